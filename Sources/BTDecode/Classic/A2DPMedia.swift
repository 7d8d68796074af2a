import BTCapture

/// The media channel's fields: RTP (RFC 3550) and the SBC payload (A2DP 1.4, 4.3.4; SBC frame
/// header, A2DP Appendix B).
public enum MediaFields {
    static let rtp = FieldDefinition.maker("rtp")
    static let sbc = FieldDefinition.maker("sbc")
    public static let version = rtp("version", "Version", .uint8, "RTP version (2)")
    public static let marker = rtp("marker", "Marker", .bool, "RTP marker bit")
    public static let payloadType = rtp("payload_type", "Payload Type", .uint8, "RTP payload type (dynamic, 96-127, for A2DP)")
    public static let sequence = rtp("sequence", "Sequence Number", .uint16, "RTP sequence number: a gap is lost audio")
    public static let timestamp = rtp("timestamp", "Timestamp", .uint32, "RTP timestamp, in samples")
    public static let ssrc = rtp("ssrc", "SSRC", .uint32, "RTP synchronization source")
    public static let lost = rtp("lost", "Lost Packets", .uint16, "RTP packets missing before this one")
    public static let frames = sbc("frames", "Frames", .uint8, "SBC frames in the packet (or fragments of one)")
    public static let fragmented = sbc("fragmented", "Fragmented", .bool, "The packet carries a fragment of an SBC frame")
    public static let sampling = sbc("sampling", "Sampling Frequency", .uint32, "Hz, from the first frame header")
    public static let blocks = sbc("blocks", "Blocks", .uint8, "4, 8, 12 or 16")
    public static let channelMode = sbc("channel_mode", "Channel Mode", .uint8, "0 mono, 1 dual channel, 2 stereo, 3 joint stereo")
    public static let allocation = sbc("allocation", "Allocation Method", .uint8, "0 loudness, 1 SNR")
    public static let subbands = sbc("subbands", "Subbands", .uint8, "4 or 8")
    public static let bitpool = sbc("bitpool", "Bitpool", .uint8, "The first frame's bitpool")
    public static let bitrate = sbc("bitrate", "Bit Rate", .uint32, "bit/s the frame size and sampling give")
    public static let payload = rtp("payload", "Media Payload", .bytes, "The codec's data")
    static let aac = FieldDefinition.maker("aac")
    public static let aacTransport = aac("transport", "Transport", .string, "How the AAC frames travel: LATM (RFC 3016 AudioMuxElement) or ADTS")
    public static let aacLength = aac("frame_length", "Frame Length", .uint16, "Bytes of an ADTS frame, from its header")

    public static let all = [version, marker, payloadType, sequence, timestamp, ssrc, lost, frames, fragmented, sampling, blocks,
                             channelMode, allocation, subbands, bitpool, bitrate, payload, aacTransport, aacLength]
}

/// A2DP media packets on an AVDTP media channel, decoded without allocating: they are most of
/// an audio capture.
enum MediaDecoder {
    static let samplingRates: [UInt32] = [16000, 32000, 44100, 48000]
    static let modeNames = ["Mono", "Dual Channel", "Stereo", "Joint Stereo"]

    static func decode(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session, context: L2CAPContext) throws {
        var layer = packet.makeLayer(.a2dpMedia, over: c)
        defer { packet.append(taking: &layer) }

        let (first, firstAt) = try layer.reading(&c) { try $0.u8() }
        let version = first >> 6, padding = first & 0x20 != 0, extensionBit = first & 0x10 != 0, csrcCount = Int(first & 0x0F)
        layer.add(MediaFields.version, .count(Int(version)), at: firstAt)
        let (second, secondAt) = try layer.reading(&c) { try $0.u8() }
        layer.add(MediaFields.marker, .bool(second & 0x80 != 0), at: secondAt)
        layer.add(MediaFields.payloadType, .count(Int(second & 0x7F)), at: secondAt)
        let sequence = UInt16(try layer.readCount(MediaFields.sequence, &c, as: UInt16.self, .bigEndian))
        let timestamp = try layer.readCount(MediaFields.timestamp, &c, as: UInt32.self, .bigEndian)
        try layer.read(MediaFields.ssrc, &c, as: UInt32.self, .bigEndian)
        if version != 2 { layer.addIssue(.warning, "RTP version \(version), not 2") }
        try c.skip(4 * csrcCount)
        if extensionBit {
            try c.skip(2)
            let words = try c.u16be()
            try c.skip(4 * Int(words))
        }
        if padding, let count = c.bytes.last, Int(count) <= c.remaining { _ = try c.trailer(Int(count)) }
        layer.summary.set("RTP Seq \(sequence) TS \(timestamp)")

        // A gap in the sequence is lost audio.
        // One look-up for both the previous sequence number and the new one.
        let flow = AVDTPState.FlowKey(link: context.link, sent: context.sent)
        if let last = session.avdtp.lastSequence.updateValue(sequence, forKey: flow) {
            let step = sequence &- last
            if step > 1 && step < 0x8000 {
                let lost = step - 1
                layer.add(MediaFields.lost, .count(Int(lost)))
                layer.addIssue(.warning, "\(lost) RTP packet\(lost == 1 ? "" : "s") lost (sequence \(sequence) after \(last))")
            } else if step == 0 || step >= 0x8000 {
                layer.addIssue(.note, "RTP sequence \(sequence) after \(last): repeated or out of order")
            }
        }

        let codec = session.avdtp.codecTypes[context.link] ?? 0x00
        if codec == 0x02, !c.isAtEnd {
            aac(&c, &layer)
            return
        }
        guard codec == 0x00, !c.isAtEnd else {
            let payload = c.rest()
            layer.add(MediaFields.payload, .bytes(payload))
            layer.summary += " - \(A2DPCodecs.codecNames[codec] ?? "Vendor codec") \(payload.count) bytes"
            return
        }
        // SBC: the media payload header, then the first frame's header.
        let (header, headerAt) = try layer.reading(&c) { try $0.u8() }
        let fragmented = header & 0x80 != 0, count = header & 0x0F
        layer.add(MediaFields.fragmented, .bool(fragmented), at: headerAt)
        layer.add(MediaFields.frames, .count(Int(count)), at: headerAt)
        if fragmented {
            layer.summary += " - SBC fragment\(header & 0x40 != 0 ? " (start)" : header & 0x20 != 0 ? " (last)" : ""), \(count) left"
        } else {
            layer.summary += " - SBC \(count) frame\(count == 1 ? "" : "s")"
        }
        let frame = c.rest()
        layer.add(MediaFields.payload, .bytes(frame), at: layer.range(at: frame.startIndex, count: frame.count))
        guard !fragmented || header & 0x40 != 0 else { return }
        var f = ByteCursor(frame)
        guard let sync = try? f.u8(), sync == 0x9C, let settings = try? f.u8(), let bitpool = try? f.u8() else {
            layer.addIssue(.warning, "SBC frame without its sync word 0x9C")
            return
        }
        let rate = samplingRates[Int(settings >> 6)]
        let blocks = 4 * (Int(settings >> 4 & 0x03) + 1)
        let mode = Int(settings >> 2 & 0x03)
        let subbands = settings & 0x01 == 0 ? 4 : 8
        let channels = mode == 0 ? 1 : 2
        let frameLength: Int
        switch mode {
        case 0, 1: frameLength = 4 + 4 * subbands * channels / 8 + (blocks * channels * Int(bitpool) + 7) / 8
        case 2: frameLength = 4 + 4 * subbands * 2 / 8 + (blocks * Int(bitpool) + 7) / 8
        default: frameLength = 4 + 4 * subbands * 2 / 8 + (subbands + blocks * Int(bitpool) + 7) / 8
        }
        let bitrate = UInt32(8 * frameLength * Int(rate) / (subbands * blocks))
        let headerStart = frame.startIndex + 1
        // Sampling, blocks and subbands are values the header's codes stand for: no range of their own.
        layer.add(MediaFields.sampling, .count(Int(rate)))
        layer.add(MediaFields.blocks, .count(blocks))
        layer.add(MediaFields.channelMode, .count(mode), modeNames[mode], at: layer.range(at: headerStart))
        layer.add(MediaFields.allocation, .count(Int(settings >> 1 & 1)), settings & 0x02 == 0 ? "Loudness" : "SNR", at: layer.range(at: headerStart))
        layer.add(MediaFields.subbands, .count(subbands))
        layer.add(MediaFields.bitpool, .count(Int(bitpool)), at: layer.range(at: headerStart + 1))
        layer.add(MediaFields.bitrate, .count(Int(bitrate)))
        layer.summary += rate % 1000 == 0 ? " - \(rate / 1000)kHz" : " - \(rate / 1000).\(rate % 1000 / 100)kHz"
        layer.summary += " \(modeNames[mode]) bitpool \(bitpool) (\(bitrate / 1000) kb/s)"
    }

    /// MPEG-2,4 AAC: ADTS frames start with the 12-bit sync 0xFFF (their length is in the header);
    /// anything else is LATM (RFC 3016), whose lengths depend on a StreamMuxConfig that may travel
    /// out of band, so they are not guessed at.
    static func aac(_ c: inout ByteCursor, _ layer: inout Layer) {
        let start = c.index
        let bytes = c.rest()
        layer.add(MediaFields.payload, .bytes(bytes), at: layer.range(at: start, count: bytes.count))
        if bytes.count >= 7, bytes[bytes.startIndex] == 0xFF, bytes[bytes.startIndex + 1] & 0xF0 == 0xF0 {
            let b3 = Int(bytes[bytes.startIndex + 3]), b4 = Int(bytes[bytes.startIndex + 4]), b5 = Int(bytes[bytes.startIndex + 5])
            let length = (b3 & 0x03) << 11 | b4 << 3 | b5 >> 5
            // The sync word says ADTS; the length is 13 bits across header bytes 3-5.
            layer.add(MediaFields.aacTransport, .text("ADTS"), at: layer.range(at: start, count: 2))
            layer.add(MediaFields.aacLength, .count(length), at: layer.range(at: start + 3, count: 3))
            layer.summary += " - AAC ADTS frame \(length) bytes"
            if length > bytes.count { layer.addIssue(.warning, "ADTS frame of \(length) bytes in a \(bytes.count)-byte payload") }
            return
        }
        // No sync word: LATM, told by the payload as a whole.
        layer.add(MediaFields.aacTransport, .text("LATM"), at: layer.range(at: start, count: bytes.count))
        layer.summary += " - AAC LATM \(bytes.count) bytes"
    }
}

/// The layers this decoder makes.
extension LayerKind {
    public static let a2dpMedia = LayerKind("A2DP Data", protocol: "rtp")
}
