import BTCapture

/// Audio Stream Control Service fields (ASCS 1.0).
public enum ASCSFields {
    static let f = FieldDefinition.maker("ascs")
    public static let opcode = f("opcode", "Opcode", .uint8, "ASE Control Point: 0x01 Config Codec, 0x02 Config QoS, 0x03 Enable, 0x04 Receiver Start Ready, 0x05 Disable, 0x06 Receiver Stop Ready, 0x07 Update Metadata, 0x08 Release")
    public static let ase = f("ase_id", "ASE ID", .uint8, "The Audio Stream Endpoint")
    public static let state = f("state", "ASE State", .uint8, "0 Idle, 1 Codec Configured, 2 QoS Configured, 3 Enabling, 4 Streaming, 5 Disabling, 6 Releasing")
    public static let response = f("response", "Response Code", .uint8, "0x00 Success, 0x01 Unsupported Opcode ... 0x0E Unspecified Error")
    public static let reason = f("reason", "Reason", .uint8, "The parameter a response code is about: 0x01 Codec ID ... 0x0A Invalid ASE CIS Mapping")
    public static let cig = f("cig_id", "CIG ID", .uint8, "Connected isochronous group")
    public static let cis = f("cis_id", "CIS ID", .uint8, "Connected isochronous stream in the group")
    public static let sduInterval = f("sdu_interval", "SDU Interval", .uint32, "Microseconds between SDUs")
    public static let framing = f("framing", "Framing", .uint8, "0 unframed, 1 framed")
    public static let phy = f("phy", "PHY", .uint8, "Bits: 0x01 LE 1M, 0x02 LE 2M, 0x04 LE Coded")
    public static let maxSDU = f("max_sdu", "Max SDU", .uint16, "Largest SDU in bytes")
    public static let retransmissions = f("retransmissions", "Retransmission Number", .uint8, "Times each PDU may be sent again")
    public static let latency = f("max_transport_latency", "Max Transport Latency", .uint16, "Milliseconds")
    public static let presentationDelay = f("presentation_delay", "Presentation Delay", .uint32, "Microseconds")
    public static let targetLatency = f("target_latency", "Target Latency", .uint8, "Config Codec: 1 low latency, 2 balanced, 3 high reliability")

    public static let all = [opcode, ase, state, response, reason, cig, cis, sduInterval, framing, phy, maxSDU, retransmissions, latency,
                             presentationDelay, targetLatency]
}

/// ASCS (service 0x184E): Sink and Source ASE states with their parameters, and the ASE
/// Control Point's operations and responses (a response other than Success is an error).
enum ASCSDecoder {
    static let descriptor = ProtocolDescriptor(name: "ASCS", fields: ASCSFields.all, layers: [.ascs],
                                               registrations: [0x2BC4, 0x2BC5, 0x2BC6].map { .gattCharacteristic(BTUUID(UInt16($0)), decode) })

    static let opcodes: [UInt8: String] = [0x01: "Config Codec", 0x02: "Config QoS", 0x03: "Enable", 0x04: "Receiver Start Ready",
                                           0x05: "Disable", 0x06: "Receiver Stop Ready", 0x07: "Update Metadata", 0x08: "Release"]
    static let states = ["Idle", "Codec Configured", "QoS Configured", "Enabling", "Streaming", "Disabling", "Releasing"]
    static let responses = ["Success", "Unsupported Opcode", "Invalid Length", "Invalid ASE ID", "Invalid ASE State Machine Transition",
                            "Invalid ASE Direction", "Unsupported Audio Capabilities", "Unsupported Configuration Parameter Value",
                            "Rejected Configuration Parameter Value", "Invalid Configuration Parameter Value", "Unsupported Metadata",
                            "Rejected Metadata", "Invalid Metadata", "Insufficient Resources", "Unspecified Error"]
    static let reasons = ["None", "Codec ID", "Codec Specific Configuration", "SDU Interval", "Framing", "PHY", "Maximum SDU Size",
                          "Retransmission Number", "Max Transport Latency", "Presentation Delay", "Invalid ASE CIS Mapping"]
    static let targetLatencies = ["", "Low Latency", "Balanced", "High Reliability"]

    static func decode(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session, context: GATTValueContext) throws {
        if context.opcode == 0x01 { return try GATTProfileError.report(&c, &packet, layer: .ascs, [:]) }
        var layer = packet.makeLayer(.ascs, over: c, showsDirection: true)
        defer { packet.append(taking: &layer) }
        if context.characteristic.uuid16 == 0x2BC6 {
            if context.opcode == 0x1B || context.opcode == 0x1D {
                try controlPointResponse(&c, &layer)
            } else {
                try operation(&c, &layer)
            }
        } else {
            try aseState(&c, &layer, sink: context.characteristic.uuid16 == 0x2BC4)
        }
        if !c.isAtEnd { layer.addIssue(.warning, "\(c.remaining) bytes after the ASCS value") }
    }

    /// A Sink or Source ASE's state and the parameters that state carries.
    static func aseState(_ c: inout ByteCursor, _ layer: inout Layer, sink: Bool) throws {
        let id = try layer.readCount(ASCSFields.ase, &c, as: UInt8.self)
        let state = try layer.readCount(ASCSFields.state, &c, as: UInt8.self, display: { state in states[safe: Int(state)] })
        layer.summary.set("\(sink ? "Sink" : "Source") ASE \(id): \(states[safe: Int(state)] ?? "Reserved State \(state)")")
        switch state {
        case 1:
            let at = c.index
            let framing = try c.u8(), phy = try c.u8(), rtn = try c.u8(), latency = try c.u16()
            layer.add(ASCSFields.framing, .count(Int(framing)), at: layer.range(at: at))
            layer.add(ASCSFields.phy, .u8(phy), at: layer.range(at: at + 1))
            layer.add(ASCSFields.retransmissions, .count(Int(rtn)), at: layer.range(at: at + 2))
            layer.add(ASCSFields.latency, .count(Int(latency)), "\(latency) ms", at: layer.range(at: at + 3, count: 2))
            let delayMin = try LEAudioValues.micros(&c), delayMax = try LEAudioValues.micros(&c)
            _ = try LEAudioValues.micros(&c)
            _ = try LEAudioValues.micros(&c)
            let codec = try LEAudioValues.codecID(&c, &layer)
            let configuration = try c.slice(Int(try c.u8()))
            let parts = LEAudioValues.ltvs(configuration, .configuration, lc3: codec.format == 0x06, &layer)
            layer.summary += " - \(([codec.name] + parts).joined(separator: " ")) - delay \(delayMin)-\(delayMax) µs"
        case 2:
            try qos(&c, &layer, withASE: false)
        case 3, 4, 5:
            let (cig, cigAt) = try layer.reading(&c) { try $0.u8() }
            let (cis, cisAt) = try layer.reading(&c) { try $0.u8() }
            layer.add(ASCSFields.cig, .count(Int(cig)), at: cigAt)
            layer.add(ASCSFields.cis, .count(Int(cis)), at: cisAt)
            let metadata = try c.slice(Int(try c.u8()))
            let parts = LEAudioValues.ltvs(metadata, .metadata, lc3: false, &layer)
            layer.summary += " - CIG \(cig) CIS \(cis)"
            if !parts.isEmpty { layer.summary += " - \(parts.joined(separator: ", "))" }
        default:
            break
        }
    }

    /// Config QoS parameters (in a command, after the ASE ID), or a QoS Configured state's.
    @discardableResult
    static func qos(_ c: inout ByteCursor, _ layer: inout Layer, withASE: Bool) throws -> String {
        // CIG, CIS, SDU interval (3), framing, PHY, max SDU (2), RTN, latency (2), presentation delay (3).
        let at = c.index
        let cig = try c.u8(), cis = try c.u8()
        let interval = try LEAudioValues.micros(&c)
        let framing = try c.u8(), phy = try c.u8(), maxSDU = try c.u16(), rtn = try c.u8(), latency = try c.u16()
        let delay = try LEAudioValues.micros(&c)
        layer.add(ASCSFields.cig, .count(Int(cig)), at: layer.range(at: at))
        layer.add(ASCSFields.cis, .count(Int(cis)), at: layer.range(at: at + 1))
        layer.add(ASCSFields.sduInterval, .count(Int(interval)), "\(interval) µs", at: layer.range(at: at + 2, count: 3))
        layer.add(ASCSFields.framing, .count(Int(framing)), framing == 0 ? "Unframed" : "Framed", at: layer.range(at: at + 5))
        layer.add(ASCSFields.phy, .u8(phy), at: layer.range(at: at + 6))
        layer.add(ASCSFields.maxSDU, .count(Int(maxSDU)), at: layer.range(at: at + 7, count: 2))
        layer.add(ASCSFields.retransmissions, .count(Int(rtn)), at: layer.range(at: at + 9))
        layer.add(ASCSFields.latency, .count(Int(latency)), "\(latency) ms", at: layer.range(at: at + 10, count: 2))
        layer.add(ASCSFields.presentationDelay, .count(Int(delay)), "\(delay) µs", at: layer.range(at: at + 12, count: 3))
        let text = "CIG \(cig) CIS \(cis) - \(interval % 1000 == 0 ? "\(interval / 1000)" : "\(Double(interval) / 1000)") ms SDUs of \(maxSDU) bytes, \(framing == 0 ? "unframed" : "framed"), RTN \(rtn), latency \(latency) ms, delay \(delay) µs"
        if !withASE { layer.summary += " - \(text)" }
        return text
    }

    /// An ASE Control Point write: the operation and each ASE's parameters.
    static func operation(_ c: inout ByteCursor, _ layer: inout Layer) throws {
        let (opcode, opcodeAt) = try layer.reading(&c) { try $0.u8() }
        let name = opcodes[opcode] ?? "Reserved Opcode \(Hex.u8(opcode))"
        layer.add(ASCSFields.opcode, .u8(opcode), named: name, at: opcodeAt)
        let count = try c.u8()
        layer.summary.set("\(name)")
        var parts: [String] = []
        for _ in 0 ..< count {
            let id = try layer.readCount(ASCSFields.ase, &c, as: UInt8.self)
            switch opcode {
            case 0x01:
                let (target, targetAt) = try layer.reading(&c) { try $0.u8() }
                let (phy, phyAt) = try layer.reading(&c) { try $0.u8() }
                layer.add(ASCSFields.targetLatency, .count(Int(target)), targetLatencies[safe: Int(target)], at: targetAt)
                layer.add(ASCSFields.phy, .u8(phy), at: phyAt)
                let codec = try LEAudioValues.codecID(&c, &layer)
                let configuration = try c.slice(Int(try c.u8()))
                let settings = LEAudioValues.ltvs(configuration, .configuration, lc3: codec.format == 0x06, &layer)
                parts.append("ASE \(id) \(([codec.name] + settings).joined(separator: " "))")
            case 0x02:
                parts.append("ASE \(id) \(try qos(&c, &layer, withASE: true))")
            case 0x03, 0x07:
                let metadata = try c.slice(Int(try c.u8()))
                let settings = LEAudioValues.ltvs(metadata, .metadata, lc3: false, &layer)
                parts.append("ASE \(id)" + (settings.isEmpty ? "" : " \(settings.joined(separator: ", "))"))
            default:
                parts.append("ASE \(id)")
            }
        }
        if !parts.isEmpty { layer.summary += " - \(parts.joined(separator: "; "))" }
        if opcodes[opcode] == nil { layer.addIssue(.warning, "Reserved ASE Control Point opcode \(Hex.u8(opcode))") }
    }

    /// The server's notification answering an operation: each ASE's response code and reason.
    static func controlPointResponse(_ c: inout ByteCursor, _ layer: inout Layer) throws {
        let (opcode, opcodeAt) = try layer.reading(&c) { try $0.u8() }
        let name = opcodes[opcode] ?? "Opcode \(Hex.u8(opcode))"
        layer.add(ASCSFields.opcode, .u8(opcode), named: name, at: opcodeAt)
        let count = try c.u8()
        layer.summary.set("\(name) Response")
        var parts: [String] = []
        // 0xFF ASEs: the write itself was refused (unsupported opcode or invalid length); one entry follows.
        for _ in 0 ..< (count == 0xFF ? 1 : Int(count)) {
            let (id, idAt) = try layer.reading(&c) { try $0.u8() }
            let (code, codeAt) = try layer.reading(&c) { try $0.u8() }
            let (reason, reasonAt) = try layer.reading(&c) { try $0.u8() }
            layer.add(ASCSFields.ase, .count(Int(id)), at: idAt)
            layer.add(ASCSFields.response, .u8(code), responses[safe: Int(code)], at: codeAt)
            layer.add(ASCSFields.reason, .u8(reason), reasons[safe: Int(reason)], at: reasonAt)
            let text = responses[safe: Int(code)] ?? "Response \(Hex.u8(code))"
            if code == 0 {
                parts.append("ASE \(id) \(text)")
            } else {
                let about = reason != 0 ? " (\(reasons[safe: Int(reason)] ?? Hex.u8(reason)))" : ""
                parts.append("ASE \(id) \(text)\(about)")
                layer.addIssue(.error, "ASCS \(name): ASE \(id) \(text)\(about)")
            }
        }
        layer.summary += " - \(parts.joined(separator: "; "))"
    }
}

/// The layers this decoder makes.
extension LayerKind {
    public static let ascs = LayerKind("ASCS", protocol: "ascs")
}
