import BTCapture

/// Volume Offset Control Service (VOCS 1.0, service 0x1845): offset state, audio location, the
/// control point's Set Volume Offset and the output description.
public enum VOCSFields {
    static let f = FieldDefinition.maker("vocs")
    public static let offset = f("volume_offset", "Volume Offset", .int, "The offset applied to the volume, -255 to 255")
    public static let changeCounter = f("change_counter", "Change Counter", .uint8, "The state's change counter, which a control point write must name")
    public static let opcode = f("opcode", "Opcode", .uint8, "Volume Offset Control Point: 0x01 Set Volume Offset")
    public static let description = f("description", "Audio Output Description", .string, "The output's name")
    public static let all = [offset, changeCounter, opcode, description]
}

enum VOCSDecoder {
    static let descriptor = ProtocolDescriptor(name: "VOCS", fields: VOCSFields.all, layers: [.vocs],
                                               registrations: [0x2B80, 0x2B81, 0x2B82, 0x2B83].map { .gattCharacteristic(BTUUID(UInt16($0)), decode) })

    static let errors: [UInt8: String] = [0x80: "Invalid Change Counter", 0x81: "Opcode Not Supported", 0x82: "Value Out of Range"]

    static func decode(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session, context: GATTValueContext) throws {
        if context.opcode == 0x01 { return try GATTProfileError.report(&c, &packet, layer: .vocs, errors) }
        var layer = packet.makeLayer(.vocs, over: c, showsDirection: true)
        defer { packet.append(taking: &layer) }
        switch context.characteristic.uuid16 {
        case 0x2B80:
            let (offset, offsetAt) = try layer.reading(&c) { try Int16.read(from: &$0, .littleEndian) }
            let (counter, counterAt) = try layer.reading(&c) { try $0.u8() }
            layer.add(VOCSFields.offset, .signed(Int64(offset)), "\(offset)", at: offsetAt)
            layer.add(VOCSFields.changeCounter, .u8(counter), inDecimal: true, at: counterAt)
            layer.summary.set("Offset State: \(offset) (counter \(counter))")
        case 0x2B81:
            let location = try layer.read(LEAudioFields.locations, &c, as: UInt32.self, display: { LEAudioValues.locations($0) })
            layer.summary.set("Audio Location: \(LEAudioValues.locations(location))")
        case 0x2B82:
            let (opcode, opcodeAt) = try layer.reading(&c) { try $0.u8() }
            let (counter, counterAt) = try layer.reading(&c) { try $0.u8() }
            layer.add(VOCSFields.opcode, .u8(opcode), named: opcode == 0x01 ? "Set Volume Offset" : "Reserved", at: opcodeAt)
            layer.add(VOCSFields.changeCounter, .u8(counter), inDecimal: true, at: counterAt)
            if opcode == 0x01 {
                let offset = try layer.read(VOCSFields.offset, &c, as: Int16.self, display: { "\($0)" })
                layer.summary.set("Set Volume Offset: \(offset) (counter \(counter))")
            } else {
                layer.summary.set("Reserved Opcode \(Hex.u8(opcode)) (counter \(counter))")
                layer.addIssue(.warning, "Reserved VOCS opcode \(Hex.u8(opcode))")
            }
        default:
            let start = c.index
            let bytes = c.rest()
            let text = String(decoding: bytes, as: UTF8.self)
            layer.add(VOCSFields.description, .text(text), at: layer.range(at: start, count: bytes.count))
            layer.summary.set("Audio Output Description: \"\(text)\"")
        }
    }
}

/// The layers this decoder makes.
extension LayerKind {
    public static let vocs = LayerKind("VOCS", protocol: "vocs")
}
