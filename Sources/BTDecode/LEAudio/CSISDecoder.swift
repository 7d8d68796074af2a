import BTCapture

/// Coordinated Set Identification Service fields (CSIS 1.0).
public enum CSISFields {
    static let f = FieldDefinition.maker("csis")
    public static let size = f("size", "Coordinated Set Size", .uint8, "Devices in the set")
    public static let lock = f("lock", "Set Member Lock", .uint8, "0x01 Unlocked, 0x02 Locked")
    public static let rank = f("rank", "Set Member Rank", .uint8, "This member's rank in the set")
    public static let sirkType = f("sirk_type", "SIRK Type", .uint8, "0x00 encrypted, 0x01 plain text")

    public static let all = [size, lock, rank, sirkType]
}

/// CSIS (service 0x1846): the set's size, a member's rank and lock, and the SIRK's type (its
/// value is shown as bytes, never decrypted).
enum CSISDecoder {
    static let descriptor = ProtocolDescriptor(name: "CSIS", fields: CSISFields.all, layers: [.csis],
                                               registrations: [0x2B84, 0x2B85, 0x2B86, 0x2B87].map { .gattCharacteristic(BTUUID(UInt16($0)), decode) })

    static let errors: [UInt8: String] = [0x80: "Lock Denied", 0x81: "Lock Release Not Allowed", 0x82: "Invalid Lock Value",
                                          0x83: "OOB SIRK Only", 0x84: "Lock Already Granted"]

    static func decode(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session, context: GATTValueContext) throws {
        if context.opcode == 0x01 { return try GATTProfileError.report(&c, &packet, layer: .csis, errors) }
        var layer = packet.makeLayer(.csis, over: c, showsDirection: true)
        defer { packet.append(taking: &layer) }
        let (value, valueAt) = try layer.reading(&c) { try $0.u8() }
        switch context.characteristic.uuid16 {
        case 0x2B84:
            layer.add(CSISFields.sirkType, .u8(value), value == 0 ? "Encrypted" : value == 1 ? "Plain Text" : nil, at: valueAt)
            let sirk = try c.slice(16)
            layer.summary.set("Set Identity Resolving Key (\(value == 0 ? "encrypted" : value == 1 ? "plain text" : "type \(value)")): \(Hex.bytes(sirk, separator: ""))")
        case 0x2B85:
            layer.add(CSISFields.size, .count(Int(value)), at: valueAt)
            layer.summary.set("Coordinated Set Size: \(value)")
        case 0x2B86:
            layer.add(CSISFields.lock, .u8(value), value == 1 ? "Unlocked" : value == 2 ? "Locked" : nil, at: valueAt)
            layer.summary.set("Set Member Lock: \(value == 1 ? "Unlocked" : value == 2 ? "Locked" : "Reserved \(Hex.u8(value))")")
        default:
            layer.add(CSISFields.rank, .count(Int(value)), at: valueAt)
            layer.summary.set("Set Member Rank: \(value)")
        }
    }
}

/// The layers this decoder makes.
extension LayerKind {
    public static let csis = LayerKind("CSIS", protocol: "csis")
}
