import BTCapture

extension Scenarios {
    /// The headphones' SDP record: Audio Sink, L2CAP PSM 0x0019 with AVDTP 1.3, A2DP 1.4.
    static var audioSinkRecord: [UInt8] {
        typealias E = DataElement
        return E.attribute(0x0001, E.sequence(E.uuid16(0x110B)))
            + E.attribute(0x0004, E.sequence(E.sequence(E.uuid16(0x0100) + E.uint16(0x0019)) + E.sequence(E.uuid16(0x0019) + E.uint16(0x0103))))
            + E.attribute(0x0009, E.sequence(E.sequence(E.uuid16(0x110D) + E.uint16(0x0104))))
    }

    /// Media codec capabilities of the headphones' endpoints: SBC everything, bitpool 2-53;
    /// MPEG-2 AAC LC, 44.1/48 kHz, mono and stereo, VBR, 320 kb/s.
    static let sbcCapability: [UInt8] = [0x07, 0x06, 0x00, 0x00, 0xFF, 0xFF, 0x02, 0x35]
    static let aacCapability: [UInt8] = [0x07, 0x08, 0x00, 0x02, 0x80, 0x01, 0x8C, 0x84, 0xE2, 0x00]

    /// A phone (the host, A2DP source) and headphones with three sink endpoints: SDP finds the
    /// Audio Sink; AVDTP Discover, Get All Capabilities of an SBC, an AAC (with SCMS-T content
    /// protection) and an aptX endpoint; a Set Configuration the headphones refuse (SEP in use),
    /// then SBC configured, read back, opened and started; SBC media with one RTP packet lost;
    /// a delay report; suspend, reconfigure, start again; close; then AAC configured on the
    /// second endpoint and streamed as ADTS and LATM; an abort; a general reject.
    public static func a2dpSession() -> [Frame] {
        typealias E = DataElement
        let headphones = "00:1B:66:AA:BB:CC"
        var link = ClassicLink.connect(to: headphones, handle: 0x0021, at: demoStart + 27_000_000_000)

        link.findService(0x110B, attributes: audioSinkRecord + E.attribute(0x0311, E.uint16(0x0003)), sdp: (0x0040, 0x0070))

        let signaling: (local: UInt16, remote: UInt16) = (0x0041, 0x0071), media: (local: UInt16, remote: UInt16) = (0x0042, 0x0072)
        link.open(psm: 0x0019, signaling)
        var label: UInt8 = 0
        func command(_ signal: UInt8, _ body: [UInt8]) {
            label = (label + 1) & 0x0F
            link.send(signaling, [label << 4, signal] + body, sent: true)
        }
        func answer(_ signal: UInt8, _ body: [UInt8], reject: Bool = false) {
            link.send(signaling, [label << 4 | (reject ? 0x03 : 0x02), signal] + body, sent: false)
        }
        let aptxCapability: [UInt8] = [0x07, 0x09, 0x00, 0xFF, 0x4F, 0x00, 0x00, 0x00, 0x01, 0x00, 0x22]
        command(0x01, [])
        answer(0x01, [0x04, 0x08, 0x08, 0x08, 0x0C, 0x08])                              // SEIDs 1-3, audio sinks
        command(0x0C, [0x04]); answer(0x0C, [0x01, 0x00] + sbcCapability + [0x08, 0x00])
        command(0x0C, [0x08]); answer(0x0C, [0x01, 0x00] + aacCapability + [0x04, 0x02, 0x02, 0x00, 0x08, 0x00])
        command(0x0C, [0x0C]); answer(0x0C, [0x01, 0x00] + aptxCapability + [0x08, 0x00])
        // aptX first: the headphones say that endpoint is busy (another source has it).
        command(0x03, [0x0C, 0x04, 0x01, 0x00, 0x07, 0x09, 0x00, 0xFF, 0x4F, 0x00, 0x00, 0x00, 0x01, 0x00, 0x22])
        answer(0x03, [0x07, 0x13], reject: true)
        // SBC 44.1 kHz joint stereo, 16 blocks, 8 subbands, loudness, bitpool 2-53, delay reporting.
        let sbcConfiguration: [UInt8] = [0x07, 0x06, 0x00, 0x00, 0x21, 0x15, 0x02, 0x35]
        command(0x03, [0x04, 0x04, 0x01, 0x00] + sbcConfiguration + [0x08, 0x00]); answer(0x03, [])
        command(0x04, [0x04]); answer(0x04, [0x01, 0x00] + sbcConfiguration + [0x08, 0x00])
        command(0x06, [0x04]); answer(0x06, [])
        link.open(psm: 0x0019, media)
        command(0x07, [0x04]); answer(0x07, [])
        var sequence: UInt16 = 0x2F00, time: UInt32 = 0
        func sbcPacket(skip: Bool = false) {
            if skip { sequence &+= 1; time &+= 640 }
            var payload: [UInt8] = [0x80, 0x60] + be16(sequence) + be32(time) + be32(0x1234_5678) + [0x05]
            for frame in 0 ..< 5 { payload += [0x9C, 0xBD, 0x35, UInt8(truncatingIfNeeded: 0x40 + frame)] + (0 ..< 115).map { UInt8(truncatingIfNeeded: $0 * 31 + frame) } }
            link.send(media, payload, sent: true)
            sequence &+= 1
            time &+= 640
        }
        for index in 0 ..< 6 { sbcPacket(skip: index == 4) }
        link.send(signaling, [0x20, 0x0D, 0x04] + be16(1500), sent: false)              // Delay Report 150 ms (the sink asks)
        link.send(signaling, [0x22, 0x0D], sent: true)
        command(0x09, [0x04]); answer(0x09, [])
        command(0x05, [0x04, 0x07, 0x06, 0x00, 0x00, 0x21, 0x15, 0x02, 0x23]); answer(0x05, [])   // bitpool 2-35
        command(0x07, [0x04]); answer(0x07, [])
        sbcPacket()
        command(0x08, [0x04]); answer(0x08, [])
        link.close(media)
        // AAC on SEID 2: MPEG-2 AAC LC, 44.1 kHz, stereo, VBR, 320 kb/s; content protection SCMS-T.
        let aacConfiguration: [UInt8] = [0x07, 0x08, 0x00, 0x02, 0x80, 0x01, 0x84, 0x84, 0xE2, 0x00]
        command(0x03, [0x08, 0x04, 0x01, 0x00] + aacConfiguration + [0x04, 0x02, 0x02, 0x00]); answer(0x03, [])
        command(0x06, [0x08]); answer(0x06, [])
        link.open(psm: 0x0019, media)
        command(0x07, [0x08]); answer(0x07, [])
        let adts: [UInt8] = [0xFF, 0xF1, 0x50, 0x80, 0x0C, 0x7F, 0xFC] + (0 ..< 92).map { UInt8(truncatingIfNeeded: $0 * 7) }
        link.send(media, [0x80, 0x60] + be16(0x0100) + be32(0) + be32(0x0ACC_0ACC) + adts, sent: true)
        let latm: [UInt8] = [0x47, 0xFC, 0x00, 0x00, 0xB0, 0x90, 0x80, 0x03, 0x00, 0x5C] + (0 ..< 90).map { UInt8(truncatingIfNeeded: $0 * 11) }
        link.send(media, [0x80, 0x60] + be16(0x0101) + be32(1024) + be32(0x0ACC_0ACC) + latm, sent: true)
        command(0x0A, [0x08]); answer(0x0A, [])                                         // Abort
        command(0x3E, []); link.send(signaling, [label << 4 | 0x01, 0x3E], sent: false)  // an unknown signal: General Reject
        link.close(media)
        link.close(signaling)
        link.disconnect()
        return link.b.frames
    }
}

extension Scenarios {
    /// The codec a run of `a2dpStreamRun` streams with.
    public enum A2DPRunCodec: Sendable { case sbc, aac }

    /// A phone streaming to headphones that offer SBC (SEID 1) and AAC (SEID 2): SDP finds the
    /// Audio Sink, AVDTP discovers both endpoints and their capabilities, configures `codec`,
    /// opens and starts; 50 media packets, one every 20 ms; suspend, close, disconnect.
    /// The pair of runs (SBC, AAC) is what `btlog diff` shows as "another codec".
    public static func a2dpStreamRun(codec: A2DPRunCodec) -> [Frame] {
        let headphones = "00:1B:66:AA:BB:CD"
        var link = ClassicLink.connect(to: headphones, handle: 0x0022, at: demoStart + 40_000_000_000)
        link.findService(0x110B, attributes: audioSinkRecord, sdp: (0x0040, 0x0070))
        let signaling: (local: UInt16, remote: UInt16) = (0x0041, 0x0071), media: (local: UInt16, remote: UInt16) = (0x0042, 0x0072)
        link.open(psm: 0x0019, signaling)
        var label: UInt8 = 0
        func command(_ signal: UInt8, _ body: [UInt8]) {
            label = (label + 1) & 0x0F
            link.send(signaling, [label << 4, signal] + body, sent: true)
        }
        func answer(_ signal: UInt8, _ body: [UInt8]) { link.send(signaling, [label << 4 | 0x02, signal] + body, sent: false) }
        command(0x01, [])
        answer(0x01, [0x04, 0x08, 0x08, 0x08])                                          // SEIDs 1 and 2, audio sinks
        command(0x0C, [0x04]); answer(0x0C, [0x01, 0x00] + sbcCapability)
        command(0x0C, [0x08]); answer(0x0C, [0x01, 0x00] + aacCapability)
        // SBC 44.1 kHz joint stereo, 16 blocks, 8 subbands, loudness, bitpool 2-53; AAC LC 44.1 kHz stereo, VBR, 320 kb/s.
        let seid: UInt8 = codec == .sbc ? 0x04 : 0x08
        let configuration: [UInt8] = codec == .sbc ? [0x07, 0x06, 0x00, 0x00, 0x21, 0x15, 0x02, 0x35]
                                                   : [0x07, 0x08, 0x00, 0x02, 0x80, 0x01, 0x84, 0x84, 0xE2, 0x00]
        command(0x03, [seid, 0x04, 0x01, 0x00] + configuration); answer(0x03, [])
        command(0x06, [seid]); answer(0x06, [])
        link.open(psm: 0x0019, media)
        command(0x07, [seid]); answer(0x07, [])
        var sequence: UInt16 = 0x0100, time: UInt32 = 0
        for _ in 0 ..< 50 {
            link.b.advance(18_500) // with send's 1.5 ms: one packet every 20 ms
            var payload: [UInt8] = [0x80, 0x60] + be16(sequence) + be32(time) + be32(0x00AB_CDEF)
            if codec == .sbc {
                payload += [0x05]
                for frame in 0 ..< 5 { payload += [0x9C, 0xBD, 0x35, UInt8(truncatingIfNeeded: 0x40 + frame)] + (0 ..< 115).map { UInt8(truncatingIfNeeded: $0 * 31 + frame) } }
                time &+= 640
            } else {
                // LATM with the length prefix (one AudioMuxElement), 800 bytes of raw AAC.
                payload += [0xFF, 0xFF, 0xFF, 0x23] + (0 ..< 800).map { UInt8(truncatingIfNeeded: $0 * 13) }
                time &+= 1024
            }
            link.send(media, payload, sent: true)
            sequence &+= 1
        }
        command(0x09, [seid]); answer(0x09, [])
        command(0x08, [seid]); answer(0x08, [])
        link.close(media)
        link.close(signaling)
        link.disconnect()
        return link.b.frames
    }
}
