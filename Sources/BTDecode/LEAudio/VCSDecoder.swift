import BTCapture

/// Volume Control Service fields (VCS 1.0).
public enum VCSFields {
    static let f = FieldDefinition.maker("vcs")
    public static let opcode = f("opcode", "Opcode", .uint8, "0x00 Relative Volume Down, 0x01 Relative Volume Up, 0x02/0x03 Unmute and Relative Down/Up, 0x04 Set Absolute Volume, 0x05 Unmute, 0x06 Mute")
    public static let volume = f("volume", "Volume Setting", .uint8, "0-255")
    public static let mute = f("mute", "Mute", .bool, "Muted")
    public static let changeCounter = f("change_counter", "Change Counter", .uint8, "A write must name the current counter")

    public static let all = [opcode, volume, mute, changeCounter]
}

/// VCS (service 0x1844): Volume State, Volume Flags, and the Volume Control Point's operations;
/// the service's own error codes (Invalid Change Counter, Opcode Not Supported) as errors.
enum VCSDecoder {
    static let descriptor = ProtocolDescriptor(name: "VCS", fields: VCSFields.all, layers: [.vcs],
                                               registrations: [0x2B7D, 0x2B7E, 0x2B7F].map { .gattCharacteristic(BTUUID(UInt16($0)), decode) })

    static let opcodes = ["Relative Volume Down", "Relative Volume Up", "Unmute/Relative Volume Down", "Unmute/Relative Volume Up",
                          "Set Absolute Volume", "Unmute", "Mute"]
    static let errors: [UInt8: String] = [0x80: "Invalid Change Counter", 0x81: "Opcode Not Supported"]

    static func decode(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session, context: GATTValueContext) throws {
        if context.opcode == 0x01 { return try GATTProfileError.report(&c, &packet, layer: .vcs, errors) }
        var layer = packet.makeLayer(.vcs, over: c, showsDirection: true)
        defer { packet.append(taking: &layer) }
        switch context.characteristic.uuid16 {
        case 0x2B7D:
            let (volume, volumeAt) = try layer.reading(&c) { try $0.u8() }
            let (mute, muteAt) = try layer.reading(&c) { try $0.u8() }
            let (counter, counterAt) = try layer.reading(&c) { try $0.u8() }
            layer.add(VCSFields.volume, .count(Int(volume)), at: volumeAt)
            layer.add(VCSFields.mute, .bool(mute != 0), at: muteAt)
            layer.add(VCSFields.changeCounter, .count(Int(counter)), at: counterAt)
            layer.summary.set("Volume State: \(percent(volume))\(mute != 0 ? ", muted" : "") (counter \(counter))")
        case 0x2B7E:
            let (opcode, opcodeAt) = try layer.reading(&c) { try $0.u8() }
            let (counter, counterAt) = try layer.reading(&c) { try $0.u8() }
            layer.add(VCSFields.opcode, .u8(opcode), opcodes[safe: Int(opcode)], at: opcodeAt)
            layer.add(VCSFields.changeCounter, .count(Int(counter)), at: counterAt)
            layer.summary.set("\(opcodes[safe: Int(opcode)] ?? "Reserved Opcode \(Hex.u8(opcode))")")
            if opcode == 0x04 {
                let volume = try layer.readCount(VCSFields.volume, &c, as: UInt8.self)
                layer.summary += " - \(percent(volume))"
            }
            layer.summary += " (counter \(counter))"
        default:
            let flags = try c.u8()
            layer.summary.set("Volume Flags: \(flags & 1 == 1 ? "volume set by the user" : "volume not set since reset")")
        }
    }

    static func percent(_ volume: UInt8) -> String { "\((Int(volume) * 100 + 127) / 255)%" }
}

/// The layers this decoder makes.
extension LayerKind {
    public static let vcs = LayerKind("VCS", protocol: "vcs")
}
