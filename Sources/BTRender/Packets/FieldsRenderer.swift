import BTCapture
import BTDecode
import BTQuery

/// `--fields a,b,c`: one tab-separated row per packet, like `tshark -T fields`. A field that
/// occurs several times prints its values joined by commas (issues by "; ", since their text
/// has commas); an absent one prints nothing.
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

    static func value(_ column: FieldDefinition, of packet: Packet) -> String {
        let separator = column == FrameFields.issues ? "; " : ","
        var text = ""
        var first = true
        packet.forEachValue(of: column) { value in
            if !first { text += separator }
            first = false
            text += value.text
        }
        return text
    }

    public mutating func finish(_ statistics: CaptureStatistics, to out: OutputWriter) throws {}
}
