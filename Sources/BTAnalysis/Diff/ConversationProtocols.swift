import BTCapture
import BTDecode

/// A protocol's steps, read from its layers as its `ConversationDescription` (in BTDecode, next
/// to its fields) says: the operation, its target, its parameters and its value.
extension ConversationDescription {
    /// The protocol whose operation the layer carries, if any.
    static func of(_ layer: Layer) -> ConversationDescription? {
        for field in layer.fields {
            if let conversation = byOperation[field.definition] { return conversation }
        }
        return nil
    }

    static let byOperation: [FieldDefinition: ConversationDescription] = {
        var table: [FieldDefinition: ConversationDescription] = [:]
        for conversation in all { for operation in conversation.operations { table[operation] = conversation } }
        return table
    }()

    static func named(_ name: String) -> ConversationDescription? { all.first { $0.name == name } }

    /// The layer's step, when it has this protocol's operation.
    func step(of layer: Layer, values compared: Bool) -> ConversationStep? {
        guard operations.contains(where: { operation in layer.fields.contains { $0.definition == operation } }), isStep(layer) else { return nil }
        let fields = layer.fieldCopies
        guard let operationField = operations.lazy.compactMap({ definition in fields.first { $0.definition == definition } }).first
        else { return nil }
        var operation = operationField.name
        if let qualifier, let field = fields.first(where: { $0.definition == qualifier }) {
            operation += " (" + field.name + ")"
        }
        var stepTarget = "", parameters: [String] = [], value: [UInt8] = [], hasValue = false, textual = false
        if let requestedType {
            let types = fields.filter { $0.definition == requestedType }
            if let target, let named = fields.first(where: { $0.definition == target }) {
                stepTarget = named.text
            } else if types.count == 1, !discoveryResponses.contains(operationField.value.integer.map { UInt64(truncatingIfNeeded: $0) } ?? .max) {
                stepTarget = types[0].text // the type a request asks for
            }
            if stepTarget.isEmpty, !types.isEmpty {
                // A discovery response lists what it found: types (and their qualifier), never handles.
                var found: [String] = [], qualifierText: String?
                for field in fields {
                    if field.definition == foundQualifier {
                        qualifierText = field.value.integer.map { GATTNames.properties(UInt8(truncatingIfNeeded: $0)) }
                    } else if field.definition == requestedType {
                        found.append(field.text + (qualifierText.map { " [\($0)]" } ?? ""))
                        qualifierText = nil
                    }
                }
                parameters.append("found: " + found.joined(separator: "; "))
            }
        }
        for field in fields where field.definition != operationField.definition && field.definition != qualifier
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
        return ConversationStep(operation: operation, target: stepTarget, parameters: parameters,
                                value: compared ? (hasValue ? value : []) : nil, length: value.count, valueIsText: textual)
    }
}
