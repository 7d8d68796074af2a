import BTCapture

/// Audio Input Control Service (AICS 1.0, service 0x1843): input state, gain properties, input
/// type and status, the control point's gain, mute and gain-mode operations, the description.
enum AICSDecoder {
    static let descriptor = ProtocolDescriptor(name: "AICS", fields: [],
                                               registrations: [0x2B77, 0x2B78, 0x2B79, 0x2B7A, 0x2B7B, 0x2B7C].map {
                                                   .gattCharacteristic(BTUUID(UInt16($0)), decode)
                                               })

    static let mutes = ["Not Muted", "Muted", "Mute Disabled"]
    static let gainModes = ["Manual Only", "Automatic Only", "Manual", "Automatic"]
    static let inputTypes = ["Unspecified", "Bluetooth", "Microphone", "Analog", "Digital", "Radio", "Streaming", "Ambient"]
    static let opcodes: [UInt8: String] = [0x01: "Set Gain Setting", 0x02: "Unmute", 0x03: "Mute", 0x04: "Set Manual Gain Mode",
                                           0x05: "Set Automatic Gain Mode"]
    static let errors: [UInt8: String] = [0x80: "Invalid Change Counter", 0x81: "Opcode Not Supported", 0x82: "Mute Disabled",
                                          0x83: "Value Out of Range", 0x84: "Gain Mode Change Not Allowed"]

    static func decode(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session, context: GATTValueContext) throws {
        if context.opcode == 0x01 { return try GATTProfileError.report(&c, &packet, layer: "AICS", errors) }
        var layer = packet.makeLayer("AICS", over: c, showsDirection: true)
        defer { packet.append(taking: &layer) }
        switch context.characteristic.uuid16 {
        case 0x2B77:
            let gain = try c.i8(), mute = try c.u8(), mode = try c.u8(), counter = try c.u8()
            layer.summary.set("Audio Input State: gain \(gain) - \(mutes[safe: Int(mute)] ?? "mute \(mute)") - \(gainModes[safe: Int(mode)] ?? "mode \(mode)") (counter \(counter))")
        case 0x2B78:
            let units = try c.u8(), minimum = try c.i8(), maximum = try c.i8()
            layer.summary.set("Gain Setting Properties: \(minimum) to \(maximum) in steps of \(Double(units) / 10) dB")
        case 0x2B79:
            let type = try c.u8()
            layer.summary.set("Audio Input Type: \(inputTypes[safe: Int(type)] ?? "Reserved \(type)")")
        case 0x2B7A:
            let status = try c.u8()
            layer.summary.set("Audio Input Status: \(status == 1 ? "Active" : status == 0 ? "Inactive" : "Reserved \(status)")")
        case 0x2B7B:
            let opcode = try c.u8(), counter = try c.u8()
            layer.summary.set("\(opcodes[opcode] ?? "Reserved Opcode \(Hex.u8(opcode))")")
            if opcode == 0x01 { layer.summary += " \(try c.i8())" }
            layer.summary += " (counter \(counter))"
            if opcodes[opcode] == nil { layer.addIssue(.warning, "Reserved AICS opcode \(Hex.u8(opcode))") }
        default:
            layer.summary.set("Audio Input Description: \"\(String(decoding: c.rest(), as: UTF8.self))\"")
        }
    }
}
