import BTCapture
import BTDecode
import BTQuery

/// A protocol whose exchanges `btlog diff` aligns: the field that names each operation, and
/// the fields left out because they differ between runs of the same scenario (handles, channel
/// identifiers, transaction labels, nonces and keys, packet numbers and times).
struct ConversationProtocol {
    let name: String
    /// The operation's field; the first of them a layer has names it.
    let operations: [FieldDefinition]
    /// Added to the operation's name ("Set Configuration" + "Response Accept").
    let qualifier: FieldDefinition?
    let ignored: Set<FieldDefinition>
    /// Fields compared as the step's value (`--ignore values` leaves them out, keeping their length).
    let values: Set<FieldDefinition>
    /// Which operations are not steps (credits given, data frames): returns false for them.
    let keeps: (Layer) -> Bool

    init(_ name: String, operations: [String], qualifier: String? = nil, ignored: [String], values: [String] = [],
         keeps: @escaping (Layer) -> Bool = { _ in true }) {
        self.name = name
        self.operations = operations.map(Self.field)
        self.qualifier = qualifier.map(Self.field)
        self.ignored = Set(ignored.map(Self.field))
        self.values = Set(values.map(Self.field))
        self.keeps = keeps
    }

    static func field(_ name: String) -> FieldDefinition {
        guard let field = FieldRegistry.lookup(name) else { preconditionFailure("btlog diff reads an unregistered field \(name)") }
        return field
    }

    static let att = ConversationProtocol("ATT", operations: ["att.opcode"], ignored: [
        "att.handle", "att.start_handle", "att.end_handle", "att.group_end_handle", "att.value_handle", "att.offset",
        "att.length", "att.format", "att.request_in", "att.response_time", "att.name", "att.signature",
        "gatt.service", "gatt.characteristic", "gatt.cccd", "gatt.value", "att.uuid", "att.properties",
    ], values: ["att.value"])
    /// Find Information, Find By Type Value, Read By Type and Read By Group Type responses.
    static let discoveryResponses: Set<Int> = [0x05, 0x07, 0x09, 0x11]
    static let smp = ConversationProtocol("SMP", operations: ["smp.code"], ignored: [
        "smp.confirm", "smp.random", "smp.ltk", "smp.ediv", "smp.rand", "smp.irk", "smp.csrk",
        "smp.public_key_x", "smp.public_key_y", "smp.dhkey_check", "smp.authreq",
    ])
    static let l2capSignaling = ConversationProtocol("L2CAP", operations: ["l2cap.code"], ignored: [
        "l2cap.length", "l2cap.cid", "l2cap.ident", "l2cap.cmd_length", "l2cap.scid", "l2cap.dcid", "l2cap.fragment",
        "l2cap.fragments", "l2cap.payload", "l2cap.protocol", "l2cap.data",
    ], keeps: { layer in layer.integer(field("l2cap.code")) != 0x16 }) // credits given as they are used: timing, not behaviour
    static let sdp = ConversationProtocol("SDP", operations: ["sdp.pdu"], ignored: [
        "sdp.transaction", "sdp.length", "sdp.record_handle", "sdp.max_bytes", "sdp.byte_count", "sdp.continuation",
        "sdp.fragments", "sdp.max_records", "sdp.attribute",
    ])
    static let rfcomm = ConversationProtocol("RFCOMM", operations: ["rfcomm.mcc.cmd", "rfcomm.frame_type"], qualifier: "rfcomm.mcc.cr", ignored: [
        "rfcomm.dlci", "rfcomm.direction", "rfcomm.cr", "rfcomm.pf", "rfcomm.len", "rfcomm.credits", "rfcomm.fcs",
        "rfcomm.fcs_valid", "rfcomm.payload", "rfcomm.text", "rfcomm.mcc.len", "rfcomm.mcc.dlci", "rfcomm.frame_type",
    ], keeps: { layer in
        // Data and credits travel in UIH frames on the data channels: the protocol above (HFP)
        // has those steps. The multiplexer's commands (on DLCI 0) and the channel's
        // opening and closing are RFCOMM's own.
        layer.integer(field("rfcomm.frame_type")) != 0xEF || layer.integer(field("rfcomm.mcc.cmd")) != nil
    })
    static let hfp = ConversationProtocol("HFP", operations: ["hfp.command", "hfp.response"], qualifier: "hfp.type", ignored: [
        "hfp.line", "hfp.joined",
    ], values: ["hfp.parameters", "hfp.number"])
    static let avdtp = ConversationProtocol("AVDTP", operations: ["avdtp.signal"], qualifier: "avdtp.message_type", ignored: [
        "avdtp.transaction", "avdtp.packet_type", "avdtp.signal_packets", "avdtp.seid", "avdtp.int_seid",
    ], values: ["avdtp.delay"])

    static let all = [att, smp, l2capSignaling, sdp, rfcomm, hfp, avdtp]

    /// The protocol whose operation the layer carries, if any.
    static func of(_ layer: Layer) -> ConversationProtocol? {
        for field in layer.fields {
            if let conversation = byOperation[field.definition] { return conversation }
        }
        return nil
    }

    static let byOperation: [FieldDefinition: ConversationProtocol] = {
        var table: [FieldDefinition: ConversationProtocol] = [:]
        for conversation in all { for operation in conversation.operations { table[operation] = conversation } }
        return table
    }()

    /// The layer's step, when it has this protocol's operation.
    func step(of layer: Layer, values compared: Bool) -> ConversationStep? {
        guard let operationField = operations.lazy.compactMap({ definition in layer.fields.first { $0.definition == definition } }).first,
              keeps(layer) else { return nil }
        var operation = Self.name(operationField.text)
        if let qualifier, let field = layer.fields.first(where: { $0.definition == qualifier }) {
            operation += " (" + Self.name(field.text) + ")"
        }
        var target = "", parameters: [String] = [], value: [UInt8] = [], hasValue = false, textual = false
        if name == Self.att.name {
            let uuids = layer.fields.filter { $0.definition == ATTFields.uuid }
            if let characteristic = layer.fields.first(where: { $0.definition == GATTFields.characteristic }) {
                target = characteristic.text
            } else if uuids.count == 1, !Self.discoveryResponses.contains(operationField.value.integer ?? -1) {
                target = uuids[0].text // the type a request asks for
            }
            if target.isEmpty, !uuids.isEmpty {
                // A discovery response lists what it found: types (and a characteristic's
                // properties), never handles.
                var found: [String] = [], properties: String?
                for field in layer.fields {
                    if field.definition == ATTFields.properties {
                        properties = field.text.firstIndex(of: "(").map { String(field.text[field.text.index(after: $0)...].dropLast()) } ?? field.text
                    } else if field.definition == ATTFields.uuid {
                        found.append(field.text + (properties.map { " [\($0)]" } ?? ""))
                        properties = nil
                    }
                }
                parameters.append("found: " + found.joined(separator: "; "))
            }
        }
        for field in layer.fields where field.definition != operationField.definition && field.definition != qualifier
            && !ignored.contains(field.definition) && !operations.contains(field.definition) {
            if values.contains(field.definition) {
                hasValue = true
                switch field.value {
                case .bytes(let bytes): value += bytes
                default:
                    value += Array(field.text.utf8)
                    textual = true
                }
                continue
            }
            let short = field.definition.name.split(separator: ".", maxSplits: 1).last.map(String.init) ?? field.definition.name
            parameters.append(short + "=" + field.text)
        }
        return ConversationStep(operation: operation, target: target, parameters: parameters,
                                value: compared ? (hasValue ? value : []) : nil, length: value.count, valueIsText: textual)
    }

    /// A named value's name without its number: "Write Request (0x12)" → "Write Request".
    static func name(_ text: String) -> String {
        guard text.hasSuffix(")"), let open = text.range(of: " (", options: .backwards) else { return text }
        return String(text[..<open.lowerBound])
    }
}
