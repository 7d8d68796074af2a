import BTCapture

/// Media Control Service fields (MCS 1.0).
public enum MCSFields {
    static let f = FieldDefinition.maker("mcs")
    public static let opcode = f("opcode", "Media Control Point Opcode", .uint8, "0x01 Play, 0x02 Pause, 0x05 Stop, 0x30 Previous Track, 0x31 Next Track ...")
    public static let result = f("result", "Result Code", .uint8, "0x01 Success, 0x02 Opcode Not Supported, 0x03 Media Player Inactive, 0x04 Command Cannot Be Completed")
    public static let state = f("state", "Media State", .uint8, "0 Inactive, 1 Playing, 2 Paused, 3 Seeking")
    public static let text = f("text", "Text", .string, "Track title or player name")

    public static let all = [opcode, result, state, text]
}

/// MCS and GMCS (services 0x1848, 0x1849): the Media Control Point's operations and results,
/// Media State, the player name and track title.
enum MCSDecoder {
    static let descriptor = ProtocolDescriptor(name: "MCS", fields: MCSFields.all, layers: [.mcs],
                                               registrations: [0x2BA4, 0x2BA3, 0x2B97, 0x2B93].map { .gattCharacteristic(BTUUID(UInt16($0)), decode) })

    static let opcodes: [UInt8: String] = [
        0x01: "Play", 0x02: "Pause", 0x03: "Fast Rewind", 0x04: "Fast Forward", 0x05: "Stop", 0x10: "Move Relative",
        0x20: "Previous Segment", 0x21: "Next Segment", 0x22: "First Segment", 0x23: "Last Segment", 0x24: "Goto Segment",
        0x30: "Previous Track", 0x31: "Next Track", 0x32: "First Track", 0x33: "Last Track", 0x34: "Goto Track",
        0x40: "Previous Group", 0x41: "Next Group", 0x42: "First Group", 0x43: "Last Group", 0x44: "Goto Group",
    ]
    static let results: [UInt8: String] = [0x01: "Success", 0x02: "Opcode Not Supported", 0x03: "Media Player Inactive",
                                           0x04: "Command Cannot Be Completed"]
    static let states = ["Inactive", "Playing", "Paused", "Seeking"]

    static func decode(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session, context: GATTValueContext) throws {
        if context.opcode == 0x01 { return try GATTProfileError.report(&c, &packet, layer: .mcs, [:]) }
        var layer = packet.makeLayer(.mcs, over: c, showsDirection: true)
        defer { packet.append(taking: &layer) }
        let notified = context.opcode == 0x1B || context.opcode == 0x1D
        switch context.characteristic.uuid16 {
        case 0x2BA4:
            let (opcode, opcodeAt) = try layer.reading(&c) { try $0.u8() }
            let name = opcodes[opcode] ?? "Reserved Opcode \(Hex.u8(opcode))"
            layer.add(MCSFields.opcode, .u8(opcode), name, at: opcodeAt)
            if notified {
                let result = try layer.read(MCSFields.result, &c, as: UInt8.self, display: { result in results[result] })
                layer.summary.set("\(name): \(results[result] ?? "Result \(Hex.u8(result))")")
                if result != 0x01 { layer.addIssue(.error, "MCS \(name): \(results[result] ?? "Result \(Hex.u8(result))")") }
            } else {
                layer.summary.set("\(name)")
                if [0x10, 0x24, 0x34, 0x44].contains(opcode) {
                    let value = Int32(bitPattern: try c.u32())
                    layer.summary += opcode == 0x10 ? " \(Double(value) / 100) s" : " \(value)"
                }
            }
        case 0x2BA3:
            let state = try layer.readCount(MCSFields.state, &c, as: UInt8.self, display: { state in states[safe: Int(state)] })
            layer.summary.set("Media State: \(states[safe: Int(state)] ?? "Reserved \(state)")")
        default:
            let start = c.index
            let text = String(decoding: c.rest(), as: UTF8.self)
            layer.add(MCSFields.text, .text(text), at: layer.range(at: start, count: c.index - start))
            layer.summary.set("\(context.characteristic.uuid16 == 0x2B97 ? "Track Title" : "Media Player Name"): \"\(text)\"")
        }
    }
}

/// The layers this decoder makes.
extension LayerKind {
    public static let mcs = LayerKind("MCS", protocol: "mcs")
}
