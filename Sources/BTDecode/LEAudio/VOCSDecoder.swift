import BTCapture

/// Volume Offset Control Service (VOCS 1.0, service 0x1845): offset state, audio location, the
/// control point's Set Volume Offset and the output description.
enum VOCSDecoder {
    static let descriptor = ProtocolDescriptor(name: "VOCS", fields: [],
                                               registrations: [0x2B80, 0x2B81, 0x2B82, 0x2B83].map { .gattCharacteristic(BTUUID(UInt16($0)), decode) })

    static let errors: [UInt8: String] = [0x80: "Invalid Change Counter", 0x81: "Opcode Not Supported", 0x82: "Value Out of Range"]

    static func decode(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session, context: GATTValueContext) throws {
        if context.opcode == 0x01 { return try GATTProfileError.report(&c, &packet, layer: "VOCS", errors) }
        var layer = packet.makeLayer("VOCS", over: c, showsDirection: true)
        defer { packet.append(taking: &layer) }
        switch context.characteristic.uuid16 {
        case 0x2B80:
            let offset = Int16(bitPattern: try c.u16()), counter = try c.u8()
            layer.summary.set("Offset State: \(offset) (counter \(counter))")
        case 0x2B81:
            let location = try c.u32()
            layer.add(LEAudioFields.locations, .u32(location), LEAudioValues.locations(location))
            layer.summary.set("Audio Location: \(LEAudioValues.locations(location))")
        case 0x2B82:
            let opcode = try c.u8(), counter = try c.u8()
            if opcode == 0x01 {
                let offset = Int16(bitPattern: try c.u16())
                layer.summary.set("Set Volume Offset: \(offset) (counter \(counter))")
            } else {
                layer.summary.set("Reserved Opcode \(Hex.u8(opcode)) (counter \(counter))")
                layer.addIssue(.warning, "Reserved VOCS opcode \(Hex.u8(opcode))")
            }
        default:
            layer.summary.set("Audio Output Description: \"\(String(decoding: c.rest(), as: UTF8.self))\"")
        }
    }
}
