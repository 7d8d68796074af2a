import BTCapture

extension Scenarios {
    /// Audio for export's decoders to play, with the frames a test encoded itself (sbcenc):
    /// an A2DP stream (SDP, AVDTP discover, SBC 44.1 kHz joint stereo configured, open, start)
    /// carrying `sbc` frames, `framesPerPacket` to an RTP packet; a hands-free link where HFP
    /// chooses mSBC (AT+BCS=2) and an eSCO link in transparent air mode carries `msbc` frames,
    /// each with its H2 header and a pad byte, cut into 24-byte SCO packets so that frames
    /// straddle packets as USB controllers deliver them; then a CVSD SCO link carrying `cvsd`
    /// packets as they are.
    public static func audioExport(sbc: [[UInt8]], framesPerPacket: Int = 4, msbc: [[UInt8]], cvsd: [[UInt8]]) -> [Frame] {
        typealias E = DataElement
        let headphones = "00:1B:66:AA:BB:01"
        var link = ClassicLink.connect(to: headphones, handle: 0x0021, at: demoStart + 50_000_000_000)
        link.findService(0x110B, attributes: E.attribute(0x0001, E.sequence(E.uuid16(0x110B)))
            + E.attribute(0x0004, E.sequence(E.sequence(E.uuid16(0x0100) + E.uint16(0x0019)) + E.sequence(E.uuid16(0x0019) + E.uint16(0x0103)))),
            sdp: (0x0040, 0x0070))
        let signaling: (local: UInt16, remote: UInt16) = (0x0041, 0x0071), media: (local: UInt16, remote: UInt16) = (0x0042, 0x0072)
        link.open(psm: 0x0019, signaling)
        var label: UInt8 = 0
        func exchange(_ signal: UInt8, _ body: [UInt8], _ answer: [UInt8]) {
            label = (label + 1) & 0x0F
            link.send(signaling, [label << 4, signal] + body, sent: true)
            link.send(signaling, [label << 4 | 0x02, signal] + answer, sent: false)
        }
        let configuration: [UInt8] = [0x07, 0x06, 0x00, 0x00, 0x21, 0x15, 0x02, 0x35]
        exchange(0x01, [], [0x04, 0x08])
        exchange(0x03, [0x04, 0x04, 0x01, 0x00] + configuration, [])
        exchange(0x06, [0x04], [])
        link.open(psm: 0x0019, media)
        exchange(0x07, [0x04], [])
        var sequence: UInt16 = 1, time: UInt32 = 0
        var index = 0
        while index < sbc.count {
            let group = sbc[index ..< min(index + framesPerPacket, sbc.count)]
            let header: [UInt8] = [0x80, 0x60] + be16(sequence) + be32(time) + be32(0x0102_0304) + [UInt8(group.count)]
            link.send(media, header + group.flatMap { $0 }, sent: true)
            sequence &+= 1
            time &+= UInt32(128 * group.count)
            index += group.count
        }
        exchange(0x08, [0x04], [])
        link.close(media)
        link.close(signaling)
        link.disconnect()
        var frames = link.b.frames

        // Hands-free: HFP over RFCOMM chooses mSBC, then the eSCO link carries it.
        let carKit = "00:0D:18:A1:B2:02"
        var hf = ClassicLink.connect(to: carKit, handle: 0x000E, at: (frames.last?.timestamp ?? 0) + 1_000_000)
        hf.findService(0x111E, attributes: E.attribute(0x0001, E.sequence(E.uuid16(0x111E) + E.uuid16(0x1203)))
            + E.attribute(0x0004, E.sequence(E.sequence(E.uuid16(0x0100)) + E.sequence(E.uuid16(0x0003) + E.uint8(3)))),
            sdp: (0x0040, 0x0060))
        let rfcomm: (local: UInt16, remote: UInt16) = (0x0041, 0x0061)
        let dlci: UInt8 = 6
        hf.open(psm: 0x0003, rfcomm)
        hf.rfcomm(rfcomm, dlci: 0, control: 0x3F, [], sent: true)
        hf.rfcomm(rfcomm, dlci: 0, control: 0x73, [], sent: false)
        hf.rfcomm(rfcomm, dlci: dlci, control: 0x3F, [], sent: true)
        hf.rfcomm(rfcomm, dlci: dlci, control: 0x73, [], sent: false)
        for (text, sent) in [("AT+BRSF=1023\r", false), ("\r\n+BRSF: 3839\r\n\r\nOK\r\n", true), ("AT+BAC=1,2\r", false),
                             ("\r\nOK\r\n", true), ("\r\n+BCS: 2\r\n", true), ("AT+BCS=2\r", false), ("\r\nOK\r\n", true)] {
            hf.rfcomm(rfcomm, dlci: dlci, control: 0xEF, Array(text.utf8), sent: sent)
        }
        hf.b.command(0x0428, le16(0x000E) + le32(8000) + le32(8000) + le16(0x000D) + le16(0x0063) + [0x02] + le16(0x0380))
        hf.b.commandStatus(0x0428)
        hf.b.event(0x2C, [0x00] + le16(0x0102) + addressBytes(carKit) + [0x02, 0x0C, 0x04] + le16(24) + le16(24) + [0x03])
        let h2: [UInt8] = [0x08, 0x38, 0xC8, 0xF8]
        var stream: [UInt8] = []
        for (number, frame) in msbc.enumerated() { stream += [0x01, h2[number % 4]] + frame + [0x00] }
        var offset = 0
        while offset < stream.count {
            let piece = Array(stream[offset ..< min(offset + 24, stream.count)])
            hf.b.add(.scoData, .sent, le16(0x0102) + [UInt8(piece.count)] + piece, after: 1500)
            offset += piece.count
        }
        hf.b.command(0x0406, le16(0x0102) + [0x13])
        hf.b.commandStatus(0x0406)
        hf.b.disconnectionComplete(handle: 0x0102, reason: 0x16)

        // CVSD: a SCO link in air mode CVSD, its packets as the controller hands them over.
        hf.b.command(0x0428, le16(0x000E) + le32(8000) + le32(8000) + le16(0x000A) + le16(0x0060) + [0x01] + le16(0x03FF))
        hf.b.commandStatus(0x0428)
        hf.b.event(0x2C, [0x00] + le16(0x0103) + addressBytes(carKit) + [0x00, 0x00, 0x00] + le16(48) + le16(48) + [0x02])
        for packet in cvsd { hf.b.add(.scoData, .received, le16(0x0103) + [UInt8(packet.count)] + packet, after: 3000) }
        hf.b.disconnectionComplete(handle: 0x0103, reason: 0x13)
        hf.disconnect()
        frames += hf.b.frames
        return frames
    }
}
