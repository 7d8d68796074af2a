import BTCapture

/// Audio Input Control Service (AICS 1.0, service 0x1843): input state, gain properties, input
/// type and status, the control point's gain, mute and gain-mode operations, the description.
public enum AICSFields {
    static let f = FieldDefinition.maker("aics")
    public static let gain = f("gain_setting", "Gain Setting", .int, "The input's gain, in the units Gain Setting Properties give")
    public static let mute = f("mute", "Mute", .uint8, "0 not muted, 1 muted, 2 mute disabled")
    public static let gainMode = f("gain_mode", "Gain Mode", .uint8, "0 manual only, 1 automatic only, 2 manual, 3 automatic")
    public static let changeCounter = f("change_counter", "Change Counter", .uint8, "The state's change counter, which a control point write must name")
    public static let units = f("gain_units", "Gain Setting Units", .uint8, "Step of the gain setting in 0.1 dB")
    public static let minimum = f("gain_minimum", "Gain Setting Minimum", .int, "Lowest gain setting")
    public static let maximum = f("gain_maximum", "Gain Setting Maximum", .int, "Highest gain setting")
    public static let inputType = f("input_type", "Audio Input Type", .uint8, "0 unspecified, 1 Bluetooth, 2 microphone, 3 analog, 4 digital, 5 radio, 6 streaming, 7 ambient")
    public static let status = f("input_status", "Audio Input Status", .uint8, "0 inactive, 1 active")
    public static let opcode = f("opcode", "Opcode", .uint8, "Audio Input Control Point: 0x01 Set Gain Setting, 0x02 Unmute, 0x03 Mute, 0x04 Set Manual Gain Mode, 0x05 Set Automatic Gain Mode")
    public static let description = f("description", "Audio Input Description", .string, "The input's name")
    public static let all = [gain, mute, gainMode, changeCounter, units, minimum, maximum, inputType, status, opcode, description]
}

enum AICSDecoder {
    static let descriptor = ProtocolDescriptor(name: "AICS", fields: AICSFields.all, layers: [.aics],
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
        if context.opcode == 0x01 { return try GATTProfileError.report(&c, &packet, layer: .aics, errors) }
        var layer = packet.makeLayer(.aics, over: c, showsDirection: true)
        defer { packet.append(taking: &layer) }
        switch context.characteristic.uuid16 {
        case 0x2B77:
            let (gain, gainAt) = try layer.reading(&c) { try $0.i8() }
            let (mute, muteAt) = try layer.reading(&c) { try $0.u8() }
            let (mode, modeAt) = try layer.reading(&c) { try $0.u8() }
            let (counter, counterAt) = try layer.reading(&c) { try $0.u8() }
            layer.add(AICSFields.gain, .signed(Int64(gain)), "\(gain)", at: gainAt)
            layer.add(AICSFields.mute, .u8(mute), named: mutes[safe: Int(mute)] ?? "Reserved", at: muteAt)
            layer.add(AICSFields.gainMode, .u8(mode), named: gainModes[safe: Int(mode)] ?? "Reserved", at: modeAt)
            layer.add(AICSFields.changeCounter, .u8(counter), inDecimal: true, at: counterAt)
            layer.summary.set("Audio Input State: gain \(gain) - \(mutes[safe: Int(mute)] ?? "mute \(mute)") - \(gainModes[safe: Int(mode)] ?? "mode \(mode)") (counter \(counter))")
        case 0x2B78:
            let (units, unitsAt) = try layer.reading(&c) { try $0.u8() }
            let (minimum, minimumAt) = try layer.reading(&c) { try $0.i8() }
            let (maximum, maximumAt) = try layer.reading(&c) { try $0.i8() }
            layer.add(AICSFields.units, .u8(units), "\(Double(units) / 10) dB", at: unitsAt)
            layer.add(AICSFields.minimum, .signed(Int64(minimum)), "\(minimum)", at: minimumAt)
            layer.add(AICSFields.maximum, .signed(Int64(maximum)), "\(maximum)", at: maximumAt)
            layer.summary.set("Gain Setting Properties: \(minimum) to \(maximum) in steps of \(Double(units) / 10) dB")
        case 0x2B79:
            let type = try layer.read(AICSFields.inputType, &c, as: UInt8.self, named: { type in inputTypes[safe: Int(type)] ?? "Reserved" })
            layer.summary.set("Audio Input Type: \(inputTypes[safe: Int(type)] ?? "Reserved \(type)")")
        case 0x2B7A:
            let status = try layer.read(AICSFields.status, &c, as: UInt8.self, named: { status in status == 1 ? "Active" : status == 0 ? "Inactive" : "Reserved" })
            layer.summary.set("Audio Input Status: \(status == 1 ? "Active" : status == 0 ? "Inactive" : "Reserved \(status)")")
        case 0x2B7B:
            let (opcode, opcodeAt) = try layer.reading(&c) { try $0.u8() }
            let (counter, counterAt) = try layer.reading(&c) { try $0.u8() }
            layer.add(AICSFields.opcode, .u8(opcode), named: opcodes[opcode] ?? "Reserved", at: opcodeAt)
            layer.add(AICSFields.changeCounter, .u8(counter), inDecimal: true, at: counterAt)
            layer.summary.set("\(opcodes[opcode] ?? "Reserved Opcode \(Hex.u8(opcode))")")
            if opcode == 0x01 {
                let gain = try layer.read(AICSFields.gain, &c, as: Int8.self, display: { gain in "\(gain)" })
                layer.summary += " \(gain)"
            }
            layer.summary += " (counter \(counter))"
            if opcodes[opcode] == nil { layer.addIssue(.warning, "Reserved AICS opcode \(Hex.u8(opcode))") }
        default:
            let start = c.index
            let text = String(decoding: c.rest(), as: UTF8.self)
            layer.add(AICSFields.description, .text(text), at: layer.range(at: start, count: c.index - start))
            layer.summary.set("Audio Input Description: \"\(text)\"")
        }
    }
}

/// The layers this decoder makes.
extension LayerKind {
    public static let aics = LayerKind("AICS", protocol: "aics")
}
