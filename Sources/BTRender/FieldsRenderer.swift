import BTCapture
import BTDecode
import BTQuery

/// `--fields a,b,c`: one tab-separated row per packet, like `tshark -T fields`. A field that
/// occurs several times prints its values joined by commas; an absent one prints nothing.
public struct FieldsRenderer: PacketRenderer {
    let columns: [FieldDefinition]

    public init(columns: [FieldDefinition]) { self.columns = columns }

    /// Resolves names against the one registry; the unknown ones are returned for the error.
    public static func columns(for names: [String]) -> (columns: [FieldDefinition], unknown: [String]) {
        var columns: [FieldDefinition] = [], unknown: [String] = []
        for name in names {
            if let definition = FieldRegistry.lookup(name) { columns.append(definition) } else { unknown.append(name) }
        }
        return (columns, unknown)
    }

    public mutating func render(_ packet: Packet, to out: OutputWriter) throws {
        var row = ""
        for (index, column) in columns.enumerated() {
            if index > 0 { row.append("\t") }
            row += Self.value(column, of: packet)
        }
        try out.line(row)
    }

    /// The capture record's own fields come from the Frame; the others from the layers.
    static func value(_ column: FieldDefinition, of packet: Packet) -> String {
        let frame = packet.frame
        switch column {
        case FrameFields.number: return String(frame.number)
        case FrameFields.time: return TimeFormatter.seconds(frame.timestamp)
        case FrameFields.direction:
            switch frame.direction {
            case .sent: return "sent"
            case .received: return "received"
            case .none: return ""
            }
        case FrameFields.type: return packet.typeLabel
        case FrameFields.controller: return frame.controller == Frame.systemController ? "" : String(frame.controller)
        case FrameFields.length: return String(frame.bytes.count)
        case FrameFields.issues:
            return packet.issues.map { "\($0.severity): \($0.message)" }.joined(separator: "; ")
        default:
            var row = ""
            for layer in packet.layers {
                for field in layer.fields where field.definition == column {
                    if !row.isEmpty { row.append(",") }
                    row += field.value.text
                }
            }
            return row
        }
    }

    public mutating func finish(_ statistics: CaptureStatistics, to out: OutputWriter) throws {}
}
