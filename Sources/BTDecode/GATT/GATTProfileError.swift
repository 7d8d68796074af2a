import BTCapture

/// An Error Response about a profile's characteristic with a code from the application range
/// (0x80-0xDF: VCS's 0x80 Invalid Change Counter, ANCS's 0xA0-0xA3...). ATT hands it to the
/// profile, which names it as its own layer and reports it as an error; codes outside the range
/// are ATT's, reported by ATT.
enum GATTProfileError {
    static let applicationRange: ClosedRange<UInt8> = 0x80 ... 0xDF

    static func report(_ c: inout ByteCursor, _ packet: inout Packet, layer kind: LayerKind, _ names: [UInt8: String],
                       field: FieldDefinition? = nil) throws {
        let name = kind.name
        var layer = packet.makeLayer(kind, over: c, showsDirection: true)
        defer { packet.append(taking: &layer) }
        let (code, codeAt) = try layer.reading(&c) { try $0.u8() }
        let text = names[code] ?? "Application Error"
        if let field { layer.add(field, .u8(code), named: text, at: codeAt) }
        layer.summary.set("Error: \(text)")
        layer.addIssue(.error, "\(name) error: \(text) (\(Hex.u8(code)))")
    }
}
