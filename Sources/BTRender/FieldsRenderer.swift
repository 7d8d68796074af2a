import BTCapture
import BTDecode
import BTQuery

/// `--fields a,b,c`: one tab-separated row per packet, like `tshark -T fields`. A field that
/// occurs several times prints its values joined by commas; an absent one prints nothing.
public struct FieldsRenderer: PacketRenderer {
    public enum Column {
        case number, time, direction, type, controller, length
        case field(FieldDefinition)
    }

    let columns: [Column]

    public init(columns: [Column]) { self.columns = columns }

    /// Resolves names against the registry; the unknown ones are returned for the error.
    public static func columns(for names: [String]) -> (columns: [Column], unknown: [String]) {
        var columns: [Column] = [], unknown: [String] = []
        for name in names {
            switch name {
            case "number": columns.append(.number)
            case "time": columns.append(.time)
            case "direction": columns.append(.direction)
            case "type": columns.append(.type)
            case "controller": columns.append(.controller)
            case "length": columns.append(.length)
            default:
                if let definition = FieldRegistry.lookup(name) { columns.append(.field(definition)) } else { unknown.append(name) }
            }
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

    static func value(_ column: Column, of packet: Packet) -> String {
        let frame = packet.frame
        switch column {
        case .number: return String(frame.number)
        case .time:
            let (seconds, micros) = Microseconds.split(frame.timestamp)
            let fraction = String(micros)
            return "\(seconds)." + String(repeating: "0", count: 6 - fraction.count) + fraction
        case .direction:
            switch frame.direction {
            case .sent: return "sent"
            case .received: return "received"
            case .none: return ""
            }
        case .type: return packet.typeLabel
        case .controller: return frame.controller == Frame.systemController ? "" : String(frame.controller)
        case .length: return String(frame.bytes.count)
        case .field(let definition):
            var values: [String] = []
            for layer in packet.layers {
                for field in layer.fields where field.definition == definition {
                    values.append(field.value.text)
                }
            }
            return values.joined(separator: ",")
        }
    }

    public mutating func finish(_ statistics: CaptureStatistics, to out: OutputWriter) throws {}
}
