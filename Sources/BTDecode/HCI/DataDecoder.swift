import BTCapture

/// ACL, SCO and ISO data packet headers (Core Vol 4, Part E, 5.4.2-5.4.5).
enum DataDecoder {
    /// The ACL, SCO and ISO headers; ACL hands its payload to L2CAP.
    static let descriptor = ProtocolDescriptor(name: "HCI Data", fields: DataFields.all)

    static func decodeACL(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session) throws {
        var layer = packet.makeLayer("ACL", over: c, showsDirection: true)
        let word = try c.u16()
        let handle = word & 0x0FFF
        let pb = UInt8(word >> 12 & 0x3), bc = UInt8(word >> 14)
        let length = try c.u16()
        layer.add(DataFields.aclHandle, .u16(handle), at: 0 ..< 2)
        layer.add(DataFields.aclPB, .u8(pb), pbName(pb), at: 0 ..< 2)
        layer.add(DataFields.aclBC, .u8(bc), bc == 0 ? "Point-to-point" : "Broadcast", at: 0 ..< 2)
        layer.add(DataFields.aclLength, .u16(length), String(length), at: 2 ..< 4)
        packet.handle = handle
        packet.peer = session.connection(controller: packet.frame.controller, handle: handle)?.peer
        let lengthMismatch = Int(length) != c.remaining
        let payload = c.rest()
        let index = packet.layers.count
        packet.append(layer)
        defer {
            packet.setSummaryIfShown(at: index) {
                $0 += "Data [Handle: \(hex: handle), Packet Boundary Flags: \(hex: pb), Length: \(hex: length) (\(length))]"
            }
        }
        if lengthMismatch {
            packet.addIssue(.warning, "ACL length \(length) but \(payload.count) bytes follow")
        }
        if bc != 0 {
            packet.layers[index].add(DataFields.payload, .bytes(payload))
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

    static func decodeSCO(_ c: inout ByteCursor, into packet: inout Packet, session: Session) throws {
        var layer = packet.makeLayer("SCO", over: c, showsDirection: true)
        defer { packet.append(layer) }
        let word = try c.u16()
        let handle = word & 0x0FFF
        let status = UInt8(word >> 12 & 0x3)
        let length = try c.u8()
        layer.add(DataFields.scoHandle, .u16(handle), at: 0 ..< 2)
        layer.add(DataFields.scoStatus, .u8(status), at: 0 ..< 2)
        layer.add(DataFields.scoLength, .u8(length), String(length), at: 2 ..< 3)
        packet.handle = handle
        packet.peer = session.connection(controller: packet.frame.controller, handle: handle)?.peer
        layer.summary.set("Data [Handle: \(hex: handle), Length: \(length)]")
        if Int(length) != c.remaining { layer.addIssue(.warning, "SCO length \(length) but \(c.remaining) bytes follow") }
        let payload = c.rest()
        if !payload.isEmpty { layer.add(DataFields.payload, .bytes(payload), at: 3 ..< 3 + payload.count) }
    }

    static func decodeISO(_ c: inout ByteCursor, into packet: inout Packet, session: Session) throws {
        var layer = packet.makeLayer("ISO", over: c, showsDirection: true)
        defer { packet.append(layer) }
        let word = try c.u16()
        let handle = word & 0x0FFF
        let pb = UInt8(word >> 12 & 0x3), ts = UInt8(word >> 14 & 0x1)
        let length = try c.u16() & 0x3FFF
        layer.add(DataFields.isoHandle, .u16(handle), at: 0 ..< 2)
        layer.add(DataFields.isoPB, .u8(pb), at: 0 ..< 2)
        layer.add(DataFields.isoTS, .u8(ts), at: 0 ..< 2)
        layer.add(DataFields.isoLength, .u16(length), String(length), at: 2 ..< 4)
        packet.handle = handle
        layer.summary.set("Data [Handle: \(hex: handle), Length: \(length)]")
        if Int(length) != c.remaining { layer.addIssue(.warning, "ISO length \(length) but \(c.remaining) bytes follow") }
        let payload = c.rest()
        if !payload.isEmpty { layer.add(DataFields.payload, .bytes(payload), at: 4 ..< 4 + payload.count) }
    }
}
