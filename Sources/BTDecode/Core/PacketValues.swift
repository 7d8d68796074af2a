import BTCapture

/// The one typed accessor for a packet's fields: what `--fields`, the filter language and JSON
/// export read. Protocol fields come from the layers, every occurrence in order from the
/// outermost layer up; the `frame.` fields from the capture record and the packet itself.
extension Packet {
    public func values(of field: FieldDefinition) -> [FieldValue] {
        var values: [FieldValue] = []
        forEachValue(of: field) { values.append($0) }
        return values
    }

    /// The same values, one at a time, without collecting them.
    public func forEachValue(of field: FieldDefinition, _ body: (FieldValue) throws -> Void) rethrows {
        if field.isFrameField {
            if let value = frameValue(field) { try body(value) }
            if field == FrameFields.issues {
                for layer in layers { for issue in layer.issues { try body(.text("\(issue.severity): \(issue.message)")) } }
            }
            return
        }
        // In place: no Layer copied (and its arrays retained) per column of every row.
        let id = field.id
        for l in layers.indices {
            try layers[l].fields.withUnsafeBufferPointer { fields in
                for f in fields.indices where fields[f].definition.id == id { try body(fields[f].inlineValue ?? layers[l].value(of: fields[f])) }
            }
        }
    }

    /// Whether the packet has this field at all (a filter's bare `att.handle`).
    public func has(_ field: FieldDefinition) -> Bool {
        var found = false
        forEachValue(of: field) { _ in found = true }
        return found
    }

    private func frameValue(_ field: FieldDefinition) -> FieldValue? {
        switch field {
        case FrameFields.number: return .count(frame.number)
        case FrameFields.time: return .time(frame.timestamp)
        case FrameFields.direction:
            switch frame.direction {
            case .sent: return .text("sent")
            case .received: return .text("received")
            case .none: return nil
            }
        case FrameFields.type: return .text(typeLabel)
        case FrameFields.controller: return frame.controller == Frame.systemController ? nil : .count(Int(frame.controller))
        case FrameFields.length: return .count(frame.bytes.count)
        case FrameFields.source: return frame.origin.map { .text($0.name) }
        case FrameFields.sourceNumber: return frame.origin.map { .count($0.number) }
        case MergeFields.latency:
            // At the receiving end only: each PDU's latency once (stats, plots, CSV).
            guard let match = frame.origin?.match, !match.isSender else { return nil }
            return .real(Double(match.latency) / 1000)
        case MergeFields.peer: return frame.origin?.match.map { .count($0.number) }
        case MergeFields.peerSource: return frame.origin?.match.map { .text($0.sourceName) }
        case MergeFields.role: return frame.origin?.match.map { .text($0.isSender ? "sender" : "receiver") }
        case MergeFields.peerAccessAddress: return frame.origin?.match?.accessAddress.map { .u32($0) }
        case IdentityFields.address: return peerIdentity?.address.map { .address($0) }
        case IdentityFields.keyFrame: return peerIdentity.map { .count(max(0, $0.keyFrame)) }
        default: return nil
        }
    }
}
