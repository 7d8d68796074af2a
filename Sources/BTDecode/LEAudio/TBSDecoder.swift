import BTCapture

/// Telephone Bearer Service fields (TBS 1.0).
public enum TBSFields {
    static let f = FieldDefinition.maker("tbs")
    public static let opcode = f("opcode", "Call Control Point Opcode", .uint8, "0x00 Accept, 0x01 Terminate, 0x02 Local Hold, 0x03 Local Retrieve, 0x04 Originate, 0x05 Join")
    public static let callIndex = f("call_index", "Call Index", .uint8, "Which call")
    public static let callState = f("call_state", "Call State", .uint8, "0 Incoming, 1 Dialing, 2 Alerting, 3 Active, 4 Locally Held, 5 Remotely Held, 6 Locally and Remotely Held")
    public static let result = f("result", "Result Code", .uint8, "0x00 Success, 0x01 Opcode Not Supported, 0x02 Operation Not Possible, 0x03 Invalid Call Index, 0x04 State Mismatch, 0x05 Lack of Resources, 0x06 Invalid Outgoing URI")
    public static let uri = f("uri", "URI", .string, "The number or address called")

    public static let all = [opcode, callIndex, callState, result, uri]
}

/// TBS and GTBS (services 0x184B, 0x184C): Call Control Point operations and their results,
/// the Call State list, incoming calls, bearer provider name.
enum TBSDecoder {
    static let descriptor = ProtocolDescriptor(name: "TBS", fields: TBSFields.all, layers: [.tbs],
                                               registrations: [0x2BBE, 0x2BBD, 0x2BC1, 0x2BB3].map { .gattCharacteristic(BTUUID(UInt16($0)), decode) })

    static let opcodes = ["Accept", "Terminate", "Local Hold", "Local Retrieve", "Originate", "Join"]
    static let states = ["Incoming", "Dialing", "Alerting", "Active", "Locally Held", "Remotely Held", "Locally and Remotely Held"]
    static let results = ["Success", "Opcode Not Supported", "Operation Not Possible", "Invalid Call Index", "State Mismatch",
                          "Lack of Resources", "Invalid Outgoing URI"]

    static func decode(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session, context: GATTValueContext) throws {
        if context.opcode == 0x01 { return try GATTProfileError.report(&c, &packet, layer: .tbs, [:]) }
        var layer = packet.makeLayer(.tbs, over: c, showsDirection: true)
        defer { packet.append(taking: &layer) }
        let notified = context.opcode == 0x1B || context.opcode == 0x1D
        switch context.characteristic.uuid16 {
        case 0x2BBE:
            let (opcode, opcodeAt) = try layer.reading(&c) { try $0.u8() }
            let name = opcodes[safe: Int(opcode)] ?? "Reserved Opcode \(Hex.u8(opcode))"
            layer.add(TBSFields.opcode, .u8(opcode), name, at: opcodeAt)
            if notified {
                let (index, indexAt) = try layer.reading(&c) { try $0.u8() }
                let (result, resultAt) = try layer.reading(&c) { try $0.u8() }
                layer.add(TBSFields.callIndex, .count(Int(index)), at: indexAt)
                layer.add(TBSFields.result, .u8(result), results[safe: Int(result)], at: resultAt)
                layer.summary.set("\(name) call \(index): \(results[safe: Int(result)] ?? "Result \(Hex.u8(result))")")
                if result != 0 { layer.addIssue(.error, "TBS \(name): \(results[safe: Int(result)] ?? "Result \(Hex.u8(result))")") }
            } else if opcode == 0x04 {
                let start = c.index
                let uri = String(decoding: c.rest(), as: UTF8.self)
                layer.add(TBSFields.uri, .text(uri), at: layer.range(at: start, count: c.index - start))
                layer.summary.set("Originate \(uri)")
            } else {
                var calls: [String] = []
                while !c.isAtEnd {
                    let index = try layer.readCount(TBSFields.callIndex, &c, as: UInt8.self)
                    calls.append(String(index))
                }
                layer.summary.set("\(name) call \(calls.joined(separator: ", "))")
            }
        case 0x2BBD:
            var calls: [String] = []
            while c.remaining >= 3 {
                let (index, indexAt) = try layer.reading(&c) { try $0.u8() }
                let (state, stateAt) = try layer.reading(&c) { try $0.u8() }
                let flags = try c.u8()
                layer.add(TBSFields.callIndex, .count(Int(index)), at: indexAt)
                layer.add(TBSFields.callState, .count(Int(state)), states[safe: Int(state)], at: stateAt)
                calls.append("call \(index) \(states[safe: Int(state)] ?? "state \(state)")\(flags & 1 == 1 ? " (outgoing)" : " (incoming)")")
            }
            layer.summary.set("Call State: \(calls.isEmpty ? "no calls" : calls.joined(separator: ", "))")
        case 0x2BC1:
            let index = try c.u8()
            let start = c.index
            let uri = String(decoding: c.rest(), as: UTF8.self)
            layer.add(TBSFields.callIndex, .count(Int(index)), at: layer.range(at: start - 1))
            layer.add(TBSFields.uri, .text(uri), at: layer.range(at: start, count: c.index - start))
            layer.summary.set("Incoming Call \(index) from \(uri)")
        default:
            let name = String(decoding: c.rest(), as: UTF8.self)
            layer.summary.set("Bearer Provider Name: \"\(name)\"")
        }
    }
}

/// The layers this decoder makes.
extension LayerKind {
    public static let tbs = LayerKind("TBS", protocol: "tbs")
}
