import BTCapture

/// ACL, SCO and ISO data packet headers (Core Vol 4, Part E, 5.4.2-5.4.5).
enum DataDecoder {
    /// The ACL, SCO and ISO headers; ACL hands its payload to L2CAP.
    static let descriptor = ProtocolDescriptor(name: "HCI Data", fields: DataFields.all, layers: [.acl, .sco, .iso], state: SynchronousLinksState.self)

    static func decodeACL(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session) throws {
        let index = packet.openLayer(.acl, over: c, showsDirection: true)
        let word = try c.u16()
        let handle = word & 0x0FFF
        let pb = UInt8(word >> 12 & 0x3), bc = UInt8(word >> 14)
        let length = try c.u16()
        packet.layers.update(index) { layer in
            layer.add(DataFields.aclHandle, .u16(handle), at: 0 ..< 2)
            layer.add(DataFields.aclPB, .u8(pb), pbName(pb), at: 0 ..< 2)
            layer.add(DataFields.aclBC, .u8(bc), bc == 0 ? "Point-to-point" : "Broadcast", at: 0 ..< 2)
            layer.add(DataFields.aclLength, .u16(length), inDecimal: true, at: 2 ..< 4)
        }
        packet.handle = handle
        let connection = session.connection(controller: packet.frame.controller, handle: handle)
        packet.peer = connection?.peer
        // A link without its Connection Complete: remembered, so that its controller's end ends it.
        if connection == nil { session.sawData(on: Session.LinkKey(controller: packet.frame.controller, handle: handle)) }
        let lengthMismatch = Int(length) != c.remaining
        let payload = c.rest()
        defer {
            packet.setSummaryIfShown(at: index) {
                $0 += "Data [Handle: \(hex: handle), Packet Boundary Flags: \(hex: pb), Length: \(hex: length) (\(length))]"
            }
        }
        if lengthMismatch {
            packet.addIssue(.warning, "ACL length \(length) but \(payload.count) bytes follow")
        }
        if bc != 0 {
            packet.layers[index].add(DataFields.payload, .bytes(payload), at: packet.layers[index].range(at: payload.startIndex, count: payload.count))
            return
        }
        try L2CAPDecoder.receive(payload, pb: pb, into: &packet, session: &session)
    }

    static func pbName(_ pb: UInt8) -> String {
        switch pb {
        case 0: return "First Non-automatically-flushable"
        case 1: return "Continuing Fragment"
        case 2: return "First Automatically-flushable"
        default: return "Complete"
        }
    }

    static let scoStatuses = ["Correctly Received", "Possibly Invalid", "No Data Received", "Partially Lost"]
    static let airModes = ["µ-law", "A-law", "CVSD", "Transparent"]
    /// The H2 synchronization header's second octet for sequence numbers 0-3 (HFP 1.8, 5.7.1).
    static let h2Sequences: [UInt8: Int] = [0x08: 0, 0x38: 1, 0xC8: 2, 0xF8: 3]

    static func decodeSCO(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session) throws {
        _ = try HCIPacketContext.decode(.sco, over: c, showsDirection: true, into: &packet) { layer, context in
            try readSCO(&c, &layer, &context, &session)
        }
    }

    private static func readSCO(_ c: inout ByteCursor, _ layer: inout Layer, _ context: inout HCIPacketContext, _ session: inout Session) throws {
        let word = try c.u16()
        let handle = word & 0x0FFF
        let status = UInt8(word >> 12 & 0x3)
        let length = try c.u8()
        layer.add(DataFields.scoHandle, .u16(handle), at: 0 ..< 2)
        layer.add(DataFields.scoStatus, .u8(status), "\(scoStatuses[Int(status)]) (\(status))", at: 0 ..< 2)
        layer.add(DataFields.scoLength, .u8(length), inDecimal: true, at: 2 ..< 3)
        context.handle = handle
        let key = Session.LinkKey(controller: context.controller, handle: handle)
        let link = session.synchronousLinks.sco[key]
        context.peer = link?.peer ?? session.connections[key]?.peer
        if link == nil, session.connections[key] == nil { session.sawData(on: key) }
        layer.summary.set("Data [Handle: \(hex: handle), Length: \(length)]")
        if Int(length) != c.remaining { layer.addIssue(.warning, "SCO length \(length) but \(c.remaining) bytes follow") }
        if status != 0 {
            layer.addIssue(.warning, "SCO packet status: \(scoStatuses[Int(status)])")
            layer.summary += " - \(scoStatuses[Int(status)])"
        }
        let payload = c.rest()
        if !payload.isEmpty { layer.add(DataFields.payload, .bytes(payload), at: 3 ..< 3 + payload.count) }
        guard let link else { return }
        // What the link carries: the codec HFP chose on the peer's ACL link, else the air mode.
        var codec = link.airMode == 3 ? "Transparent" : airModes[safe: Int(link.airMode)] ?? "Air mode \(link.airMode)"
        if link.airMode == 3, let acl = link.acl, let chosen = session.hfp.codecs[Session.LinkKey(controller: key.controller, handle: acl)] {
            codec = chosen == 2 ? "mSBC" : chosen == 3 ? "LC3-SWB" : chosen == 1 ? "CVSD" : "codec \(chosen)"
        }
        layer.add(DataFields.scoCodec, .text(codec))
        layer.summary += " - \(codec)"
        // mSBC and LC3-SWB frames start with the H2 header, whose sequence number shows a lost frame.
        if link.airMode == 3, payload.count >= 2, payload[payload.startIndex] == 0x01,
           let sequence = h2Sequences[payload[payload.startIndex + 1]] {
            layer.add(DataFields.scoH2Sequence, .count(sequence), at: 3 ..< 5)
            layer.summary += " - H2 \(sequence)"
            let flow = SynchronousLinksState.FlowKey(link: key, sent: context.direction == .sent)
            if let last = session.synchronousLinks.lastH2[flow], case let lost = (sequence - last + 3) & 3, lost != 0 {
                layer.addIssue(.warning, "\(lost) \(codec) frame\(lost == 1 ? "" : "s") lost: H2 sequence \(last) then \(sequence)")
            }
            session.synchronousLinks.lastH2[flow] = sequence
        }
    }

    static let isoStatuses = ["Valid", "Possibly Invalid", "Lost Data"]
    static let isoBoundaries = ["First Fragment", "Continuation Fragment", "Complete SDU", "Last Fragment"]

    static func decodeISO(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session) throws {
        _ = try HCIPacketContext.decode(.iso, over: c, showsDirection: true, into: &packet) { layer, context in
            try readISO(&c, &layer, &context, &session)
        }
    }

    private static func readISO(_ c: inout ByteCursor, _ layer: inout Layer, _ context: inout HCIPacketContext, _ session: inout Session) throws {
        let word = try c.u16()
        let handle = word & 0x0FFF
        let pb = UInt8(word >> 12 & 0x3), ts = UInt8(word >> 14 & 0x1)
        let length = try c.u16() & 0x3FFF
        layer.add(DataFields.isoHandle, .u16(handle), at: 0 ..< 2)
        layer.add(DataFields.isoPB, .u8(pb), isoBoundaries[Int(pb)], at: 0 ..< 2)
        layer.add(DataFields.isoTS, .u8(ts), at: 0 ..< 2)
        layer.add(DataFields.isoLength, .u16(length), inDecimal: true, at: 2 ..< 4)
        context.handle = handle
        let key = Session.LinkKey(controller: context.controller, handle: handle)
        let link = session.synchronousLinks.iso[key]
        if link == nil { session.sawData(on: key) }
        if let acl = link?.acl { context.peer = session.connection(controller: key.controller, handle: acl)?.peer }
        layer.summary.set("Data [Handle: \(hex: handle), Length: \(length)]")
        if let link {
            if let big = link.big {
                layer.summary += " - BIS \(link.bis ?? 0) of BIG \(big)"
            } else {
                layer.summary += " - CIS"
                if let acl = link.acl { layer.summary += " on \(hex: acl)" }
            }
        }
        if Int(length) != c.remaining { layer.addIssue(.warning, "ISO length \(length) but \(c.remaining) bytes follow") }
        // The data load header comes with the first fragment or a complete SDU (Core Vol 4, Part E, 5.4.5).
        if pb == 0 || pb == 2 {
            if ts == 1 {
                let stamp = try c.u32()
                layer.add(DataFields.isoTimestamp, .count(Int(stamp)), "\(stamp) µs", at: 4 ..< 8)
            }
            let start = c.index
            let sequence = try c.u16()
            let word = try c.u16()
            let sduLength = word & 0x0FFF, status = UInt8(word >> 14)
            let at = layer.range(at: start, count: 2)
            layer.add(DataFields.isoSequence, .count(Int(sequence)), at: at)
            layer.add(DataFields.isoSDULength, .count(Int(sduLength)), at: layer.range(at: start + 2, count: 2))
            layer.summary += " - SN \(sequence) - SDU \(sduLength) bytes"
            // The status flag is the controller's report on data it received.
            if context.direction == .received {
                layer.add(DataFields.isoStatus, .u8(status), isoStatuses[safe: Int(status)] ?? "Reserved", at: layer.range(at: start + 2, count: 2))
                if status != 0 {
                    layer.addIssue(.warning, "ISO SDU status: \(isoStatuses[safe: Int(status)] ?? "Reserved (\(status))")")
                    layer.summary += " - \(isoStatuses[safe: Int(status)] ?? "Reserved")"
                }
            }
            let flow = SynchronousLinksState.FlowKey(link: key, sent: context.direction == .sent)
            if let last = session.synchronousLinks.lastSequence[flow] {
                let gap = sequence &- last &- 1
                if gap != 0 && gap < 0x8000 {
                    layer.addIssue(.warning, "\(gap) ISO SDU\(gap == 1 ? "" : "s") lost: sequence \(last) then \(sequence)")
                } else if gap >= 0x8000 {
                    layer.addIssue(.warning, "ISO sequence number went back: \(last) then \(sequence)")
                }
            }
            session.synchronousLinks.lastSequence[flow] = sequence
        } else {
            layer.summary += " - \(isoBoundaries[Int(pb)])"
        }
        let payloadStart = c.index
        let payload = c.rest()
        if !payload.isEmpty { layer.add(DataFields.payload, .bytes(payload), at: layer.range(at: payloadStart, count: payload.count)) }
    }
}

/// The layers this decoder makes.
extension LayerKind {
    public static let acl = LayerKind("ACL", protocol: "acl")
    public static let sco = LayerKind("SCO", protocol: "sco")
    public static let iso = LayerKind("ISO", protocol: "iso")
}
