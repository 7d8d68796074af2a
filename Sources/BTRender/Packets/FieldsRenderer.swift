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
        // Written into the line as read: no String per value or per row.
        try out.lines { row in
            for (index, column) in columns.enumerated() {
                if index > 0 { row.put(0x09) }
                Self.write(column, of: packet, to: &row)
            }
            row.put(0x0A)
        }
    }

    static func write<O: ASCIIOutput>(_ column: FieldDefinition, of packet: Packet, to row: inout O) {
        let separator = column == FrameFields.issues ? "; " : ","
        var first = true
        packet.forEachValue(of: column) { value in
            if !first { ASCII.append(separator, to: &row) }
            first = false
            value.writeText(to: &row)
        }
    }

    public mutating func finish(_ statistics: CaptureStatistics, to out: OutputWriter) throws {}
}
