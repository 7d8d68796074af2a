import BTCapture

/// Published Audio Capabilities Service (PACS 1.0, service 0x1850): PAC records with their
/// codec capabilities and metadata, audio locations and audio contexts.
public enum PACSFields {
    static let f = FieldDefinition.maker("pacs")
    public static let direction = f("direction", "Direction", .string, "Sink or Source: which PAC, audio locations or contexts the value is")
    public static let records = f("records", "Number of PAC Records", .uint8, "PAC records in a Sink or Source PAC value")
    public static let all = [direction, records]
}

enum PACSDecoder {
    static let descriptor = ProtocolDescriptor(name: "PACS", fields: PACSFields.all + LEAudioFields.all, layers: [.pacs],
                                               registrations: [0x2BC9, 0x2BCA, 0x2BCB, 0x2BCC, 0x2BCD, 0x2BCE].map {
                                                   .gattCharacteristic(BTUUID(UInt16($0)), decode)
                                               })

    static func decode(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session, context: GATTValueContext) throws {
        if context.opcode == 0x01 { return try GATTProfileError.report(&c, &packet, layer: .pacs, [:]) }
        var layer = packet.makeLayer(.pacs, over: c, showsDirection: true)
        defer { packet.append(taking: &layer) }
        let uuid = context.characteristic.uuid16 ?? 0
        let direction = uuid == 0x2BC9 || uuid == 0x2BCA ? "Sink" : "Source"
        if uuid != 0x2BCD && uuid != 0x2BCE { layer.add(PACSFields.direction, .text(direction)) }
        switch uuid {
        case 0x2BC9, 0x2BCB:
            let count = try layer.read(PACSFields.records, &c, as: UInt8.self, inDecimal: true)
            var records: [String] = []
            for _ in 0 ..< count {
                let codec = try LEAudioValues.codecID(&c, &layer)
                let capabilities = try c.slice(Int(try c.u8()))
                var parts = LEAudioValues.ltvs(capabilities, .capabilities, lc3: codec.format == 0x06, &layer)
                let metadata = try c.slice(Int(try c.u8()))
                parts += LEAudioValues.ltvs(metadata, .metadata, lc3: false, &layer)
                records.append(([codec.name] + parts).joined(separator: " "))
            }
            layer.summary.set("\(direction) PAC: \(records.isEmpty ? "no records" : records.joined(separator: "; "))")
        case 0x2BCA, 0x2BCC:
            let locations = try layer.read(LEAudioFields.locations, &c, as: UInt32.self, display: { locations in LEAudioValues.locations(locations) })
            layer.summary.set("\(direction) Audio Locations: \(LEAudioValues.locations(locations))")
        default:
            let (sink, sinkAt) = try layer.reading(&c) { try $0.u16() }
            let (source, sourceAt) = try layer.reading(&c) { try $0.u16() }
            layer.add(LEAudioFields.contexts, .u16(sink), "Sink: \(LEAudioValues.contexts(sink))", at: sinkAt)
            layer.add(LEAudioFields.contexts, .u16(source), "Source: \(LEAudioValues.contexts(source))", at: sourceAt)
            layer.summary.set("\(uuid == 0x2BCD ? "Available" : "Supported") Audio Contexts - Sink: \(LEAudioValues.contexts(sink)) - Source: \(LEAudioValues.contexts(source))")
        }
        if !c.isAtEnd { layer.addIssue(.warning, "\(c.remaining) bytes after the PACS value") }
    }
}

/// The layers this decoder makes.
extension LayerKind {
    public static let pacs = LayerKind("PACS", protocol: "pacs")
}
