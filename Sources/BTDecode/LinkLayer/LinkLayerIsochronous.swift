import BTCapture

/// Isochronous PDUs on the air (Core Vol 6, Part B, 2.6): a connected isochronous stream's,
/// on the access address its LL_CIS_IND gave, and a broadcast isochronous stream's, which the
/// radio header marks. Their payload is an SDU, a fragment of one (unframed), or segments
/// (framed, Core Vol 6, Part G, 2).
enum LinkLayerIsochronous {
    static let cisLLIDNames: [UInt8: String] = [0: "Unframed, end of an SDU or a complete SDU", 1: "Unframed, start or continuation of an SDU",
                                                2: "Framed", 3: "Reserved"]
    static let bisLLIDNames: [UInt8: String] = [0: "Unframed, end of an SDU or a complete SDU", 1: "Unframed, start or continuation of an SDU",
                                                2: "Framed", 3: "BIG Control PDU"]
    static let bigControlNames: [UInt8: String] = [0x00: "BIG_CHANNEL_MAP_IND", 0x01: "BIG_TERMINATE_IND"]

    /// A CIS PDU: LLID, NESN, SN, CIE, NPI, length, then the ISO payload.
    static func decodeCIS(_ c: inout ByteCursor, accessAddress: UInt32, reception: AirReception, crcOK: Bool,
                          into layer: inout Layer, packet: inout Packet, session: inout Session) throws {
        let headerStart = c.index
        let header = try c.u8(), length = try c.u8()
        let llid = header & 0x03, nesn = header >> 2 & 1, sn = header >> 3 & 1, cie = header >> 4 & 1, npi = header >> 6 & 1
        var stream = session.linkLayer.streams[accessAddress]
            ?? LinkLayerState.IsochronousStream(handle: session.linkLayer.takeHandle(), aclHandle: 0)
        defer { session.linkLayer.streams[accessAddress] = stream }
        let direction = stream.rhythm.sender(reception: reception, now: packet.frame.timestamp, length: Int(length), crcOK: crcOK)
        LinkLayerDecoder.attribute(&packet, &layer, direction: direction, handle: stream.handle, peripheral: stream.peripheral)
        layer.add(LinkLayerFields.llid, .u8(llid), named: cisLLIDNames[llid]!, at: layer.range(at: headerStart))
        layer.add(LinkLayerFields.nesn, .u8(nesn), inDecimal: true, at: layer.range(at: headerStart))
        layer.add(LinkLayerFields.sn, .u8(sn), inDecimal: true, at: layer.range(at: headerStart))
        layer.add(LinkLayerFields.closeIsochronousEvent, .bool(cie != 0), cie != 0 ? "Yes" : "No", at: layer.range(at: headerStart))
        layer.add(LinkLayerFields.nullPDU, .bool(npi != 0), npi != 0 ? "Yes" : "No", at: layer.range(at: headerStart))
        layer.add(LinkLayerFields.dataLength, .u8(length), inDecimal: true, at: layer.range(at: headerStart + 1))
        var label = "CIS"
        if let cig = stream.cigID, let cis = stream.cisID { label = "CIS \(cig)/\(cis)" }
        layer.summary.set("\(LinkLayerDecoder.arrow(direction)) \(label) ")
        guard crcOK else {
            layer.summary += "PDU, \(length) bytes (damaged)"
            try layer.read(LinkLayerFields.payload, &c, bytes: c.remaining)
            return
        }
        if npi != 0 {
            // A null PDU carries no data to acknowledge: it does not count in the sequence.
            layer.summary += "Null PDU - SN \(sn) NESN \(nesn)\(cie != 0 ? " - CIE" : "")"
            if length != 0 { layer.addIssue(.warning, "A null PDU with \(length) payload bytes") }
            return
        }
        let side = direction == .sent ? 0 : direction == .received ? 1 : 2
        let retransmitted = length > 0 && stream.lastPDU.isRepeat(sn: sn, llid: llid, payload: c.bytes[c.index ..< c.index + c.remaining], side: side)
        if retransmitted {
            layer.add(LinkLayerFields.retransmission, .bool(true), "Yes")
            layer.addIssue(.note, "Retransmission: the same sequence number as this side's previous packet (not acknowledged)")
        }
        if llid == 3 { layer.addIssue(.warning, "CIS PDU with the reserved LLID 3") }
        try decodePayload(&c, llid: llid, length: length, sequence: "SN \(sn) NESN \(nesn)\(cie != 0 ? " - CIE" : "")",
                          into: &layer, reception: reception)
    }

    /// A BIS PDU: LLID, CSSN, CSTF, length, then the ISO payload or a BIG Control PDU.
    static func decodeBIS(_ c: inout ByteCursor, accessAddress: UInt32, reception: AirReception, crcOK: Bool,
                          into layer: inout Layer, packet: inout Packet) throws {
        let headerStart = c.index
        let header = try c.u8(), length = try c.u8()
        let llid = header & 0x03, cssn = header >> 2 & 0x7, cstf = header >> 5 & 1
        layer.add(LinkLayerFields.llid, .u8(llid), named: bisLLIDNames[llid]!, at: layer.range(at: headerStart))
        layer.add(LinkLayerFields.controlSubeventSN, .u8(cssn), inDecimal: true, at: layer.range(at: headerStart))
        layer.add(LinkLayerFields.controlSubeventFlag, .bool(cstf != 0), cstf != 0 ? "Yes" : "No", at: layer.range(at: headerStart))
        layer.add(LinkLayerFields.dataLength, .u8(length), inDecimal: true, at: layer.range(at: headerStart + 1))
        layer.summary.set("BIS \(hex: accessAddress) ")
        guard crcOK else {
            layer.summary += "PDU, \(length) bytes (damaged)"
            try layer.read(LinkLayerFields.payload, &c, bytes: c.remaining)
            return
        }
        guard llid == 3 else {
            try decodePayload(&c, llid: llid, length: length, sequence: "CSSN \(cssn)\(cstf != 0 ? " - CSTF" : "")", into: &layer, reception: reception)
            return
        }
        let (opcode, opcodeAt) = try layer.reading(&c) { try $0.u8() }
        let name = bigControlNames[opcode] ?? "Unknown BIG Control Opcode \(Hex.u8(opcode))"
        layer.add(LinkLayerFields.bigControlOpcode, .u8(opcode), named: name, at: opcodeAt)
        layer.summary += "\(name)"
        switch opcode {
        case 0x00:
            let map = try layer.read(LinkLayerFields.channelMapUpdate, &c, bytes: 5, display: { LinkLayerControl.describeChannelMap($0) })
            let instant = try layer.read(LinkLayerFields.instant, &c, as: UInt16.self, inDecimal: true)
            layer.summary += " - \(LinkLayerControl.describeChannelMap(map)) at event \(instant)"
            if LinkLayerControl.usedChannels(map) < 2 { layer.addIssue(.warning, "The channel map uses fewer than 2 data channels") }
        case 0x01:
            let code = try layer.read(LinkLayerFields.errorCode, &c, as: UInt8.self, named: { HCIErrorNames.name($0) })
            let instant = try layer.read(LinkLayerFields.instant, &c, as: UInt16.self, inDecimal: true)
            layer.summary += " - \(HCIErrorNames.name(code)) (\(hex: code)) at event \(instant)"
        default:
            try layer.read(LinkLayerFields.controlData, &c, bytes: c.remaining)
            layer.addIssue(.warning, "Unknown BIG Control opcode \(Hex.u8(opcode))")
        }
        if !c.isAtEnd {
            let extra = c.remaining
            try layer.read(LinkLayerFields.controlData, &c, bytes: extra)
            layer.addIssue(.warning, "\(name) has \(extra) bytes after its parameters")
        }
    }

    /// Unframed: the bytes are an SDU or a fragment of one. Framed: segments, each with its
    /// header (SC, CMPLT, length) and, starting an SDU, its time offset.
    static func decodePayload(_ c: inout ByteCursor, llid: UInt8, length: UInt8, sequence: String, into layer: inout Layer,
                              reception: AirReception) throws {
        if reception.encrypted && !reception.decrypted {
            layer.add(LinkLayerFields.encrypted, .bool(true), "Yes")
            try layer.read(LinkLayerFields.encryptedPayload, &c, bytes: c.remaining)
            layer.summary += "Encrypted ISO data - \(length) bytes - \(sequence)"
            return
        }
        guard llid == 2 else {
            let data = try layer.read(LinkLayerFields.isochronousData, &c, bytes: c.remaining)
            layer.summary += "ISO data\(llid == 1 ? " (SDU start or continuation)" : "") - \(data.count) bytes - \(sequence)"
            return
        }
        var segments = 0
        while !c.isAtEnd {
            let first = try c.u8()
            let continuation = first & 0x01 != 0, complete = first & 0x02 != 0
            layer.addBits(LinkLayerFields.segmentContinuation, .bool(continuation), continuation ? "Continuation" : "Start or complete", of: c, width: 1)
            layer.addBits(LinkLayerFields.segmentComplete, .bool(complete), complete ? "Ends the SDU" : "More follows", of: c, width: 1)
            let size = try layer.read(LinkLayerFields.segmentLength, &c, as: UInt8.self, inDecimal: true)
            var body = try c.cursor(Int(size))
            if !continuation {
                let (offset, range) = try layer.reading(&body) { try $0.u24() }
                layer.add(LinkLayerFields.segmentTimeOffset, .u32(offset), "\(offset) µs", at: range)
            }
            try layer.read(LinkLayerFields.segmentData, &body, bytes: body.remaining)
            segments += 1
        }
        layer.summary += "Framed ISO data - \(segments) segment\(segments == 1 ? "" : "s") - \(sequence)"
    }
}
