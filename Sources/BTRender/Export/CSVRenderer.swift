import BTCapture
import BTDecode
import BTQuery

/// `export --format csv`: a header, then one row per packet (RFC 4180: CRLF-free rows ended by
/// LF, a cell quoted when it holds a comma, quote, CR or LF, quotes doubled). Integers in
/// decimal, as JSON writes them; a field occurring several times has its values joined by ';'.
public struct CSVRenderer: PacketRenderer {
    let columns: [ExportColumn]
    /// The capture the next packets come from: a first column `file` when several are exported.
    var file: String?
    let withFileColumn: Bool
    var time = UTCTimeFormatter()
    var wroteHeader = false
    var cell: [UInt8] = []

    /// `writesHeader` false: the rows continue a table whose header is already written (one of
    /// several inputs exported at once).
    public init(columns: [ExportColumn], withFileColumn: Bool = false, writesHeader: Bool = true) {
        self.columns = columns
        self.withFileColumn = withFileColumn
        wroteHeader = !writesHeader
        cell.reserveCapacity(256)
    }

    public mutating func render(_ packet: Packet, to out: OutputWriter) throws {
        if !wroteHeader { try writeHeader(to: out) }
        try out.lines { text in
            if withFileColumn {
                cell.removeAll(keepingCapacity: true)
                ASCII.append(file ?? "", to: &cell)
                Self.appendCell(cell, to: &text)
                text.put(UInt8(ascii: ","))
            }
            for (index, column) in columns.enumerated() {
                if index > 0 { text.put(UInt8(ascii: ",")) }
                cell.removeAll(keepingCapacity: true)
                writeCell(column, of: packet)
                Self.appendCell(cell, to: &text)
            }
            text.put(0x0A)
        }
    }

    public mutating func beginFile(_ name: String) { file = name }

    public mutating func finish(_ statistics: CaptureStatistics, to out: OutputWriter) throws {
        if !wroteHeader { try writeHeader(to: out) } // an empty selection is still a table with its columns
    }

    mutating func writeHeader(to out: OutputWriter) throws {
        wroteHeader = true
        try out.line(((withFileColumn ? ["file"] : []) + columns.map(\.name)).joined(separator: ","))
    }

    /// The cell's raw text into `cell`.
    mutating func writeCell(_ column: ExportColumn, of packet: Packet) {
        let frame = packet.frame
        switch column {
        case .member(let member):
            switch member {
            case .file: ASCII.append(file ?? "", to: &cell)
            case .number: ASCII.appendDecimal(UInt64(max(0, frame.number)), to: &cell)
            case .time: time.append(frame.timestamp, to: &cell)
            case .timestampMicroseconds: JSONText.appendInteger(frame.timestamp, to: &cell)
            case .direction:
                switch frame.direction {
                case .sent: ASCII.append("sent", to: &cell)
                case .received: ASCII.append("received", to: &cell)
                case .none: break
                }
            case .type: ASCII.append(packet.typeLabel, to: &cell)
            case .kind: ASCII.append(frame.kind.word, to: &cell)
            case .controller:
                if frame.controller != Frame.systemController { ASCII.appendDecimal(UInt64(frame.controller), to: &cell) }
            case .handle: if let handle = packet.handle { ASCII.appendDecimal(UInt64(handle), to: &cell) }
            case .address: if let peer = packet.peer { peer.appendText(to: &cell) }
            case .summary: if let top = packet.top { cell.append(contentsOf: top.summary.bytes) }
            case .issues:
                var first = true
                for layer in packet.layers {
                    for issue in layer.issues {
                        if !first { cell.append(UInt8(ascii: ";")) }
                        first = false
                        ASCII.append(JSONRenderer.severityWord(issue.severity), to: &cell)
                        ASCII.append(": ", to: &cell)
                        ASCII.append(issue.message, to: &cell)
                    }
                }
            case .comment: if let comment = packet.comment { ASCII.append(comment, to: &cell) }
            case .flagged: cell.append(packet.flagged ? UInt8(ascii: "1") : UInt8(ascii: "0"))
            case .length: ASCII.appendDecimal(UInt64(max(0, frame.originalLength)), to: &cell)
            case .bytes: for byte in frame.bytes { Hex.append(byte, to: &cell) }
            }
        case .field(let field):
            var first = true
            packet.forEachValue(of: field) { value in
                if !first { cell.append(UInt8(ascii: ";")) }
                first = false
                writeValue(value)
            }
        case .valueName(let field):
            var first = true
            packet.forEachValueName(of: field) { name in
                if !first { cell.append(UInt8(ascii: ";")) }
                first = false
                if let name { ASCII.append(name, to: &cell) }
            }
        }
    }

    mutating func writeValue(_ value: FieldValue) {
        switch value {
        case .unsigned(let number, _): ASCII.appendDecimal(number, to: &cell)
        case .signed(let number): JSONText.appendInteger(number, to: &cell)
        case .bool(let flag): cell.append(flag ? UInt8(ascii: "1") : UInt8(ascii: "0"))
        case .text(let string): ASCII.append(string, to: &cell)
        case .bytes(let bytes): for byte in bytes { Hex.append(byte, to: &cell) }
        case .address(let address): address.appendText(to: &cell)
        case .uuid(let uuid): uuid.appendDescription(to: &cell)
        case .time(let micros): time.append(micros, to: &cell)
        }
    }

    /// RFC 4180: quoted when the cell holds a comma, a quote, CR or LF; quotes doubled.
    static func appendCell(_ cell: [UInt8], to text: inout OutputBuffer) {
        let needsQuotes = cell.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }
        guard needsQuotes else { return cell.withUnsafeBufferPointer { text.put($0) } }
        text.put(UInt8(ascii: "\""))
        for byte in cell {
            if byte == UInt8(ascii: "\"") { text.put(byte) }
            text.put(byte)
        }
        text.put(UInt8(ascii: "\""))
    }
}
