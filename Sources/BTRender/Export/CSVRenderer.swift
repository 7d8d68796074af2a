import BTCapture
import BTDecode
import BTQuery

/// `export --format csv`: a header, then one row per packet (RFC 4180: CRLF-free rows ended by
/// LF, a cell quoted when it holds a comma, quote, CR or LF, quotes doubled). Integers in
/// decimal, as JSON writes them; a field occurring several times has its values joined by ';'.
public struct CSVRenderer: PacketRenderer {
    let columns: [ExportColumn]
    /// Per column, whether its text can hold a character that needs quotes (see `mayNeedQuotes`).
    let scanned: [Bool]
    /// The capture the next packets come from: a first column `file` when several are exported.
    var file: String?
    let withFileColumn: Bool
    var time = UTCTimeFormatter()
    var wroteHeader = false

    /// `writesHeader` false: the rows continue a table whose header is already written (one of
    /// several inputs exported at once).
    public init(columns: [ExportColumn], withFileColumn: Bool = false, writesHeader: Bool = true) {
        self.columns = columns
        scanned = columns.map(\.mayNeedQuotes)
        self.withFileColumn = withFileColumn
        wroteHeader = !writesHeader
    }

    public mutating func render(_ packet: Packet, to out: OutputWriter) throws {
        if !wroteHeader { try writeHeader(to: out) }
        try out.lines { text in
            // Each cell is written straight into the line, then quoted there if it must be
            // (rarely: a summary with a comma), rather than built apart and copied in.
            if withFileColumn {
                let start = text.count
                ASCII.append(file ?? "", to: &text)
                Self.quoteCell(from: start, in: &text)
                text.put(UInt8(ascii: ","))
            }
            for index in columns.indices {
                if index > 0 { text.put(UInt8(ascii: ",")) }
                let start = text.count
                writeCell(columns[index], of: packet, to: &text)
                if scanned[index] { Self.quoteCell(from: start, in: &text) }
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

    /// The cell's raw text onto `cell`.
    mutating func writeCell(_ column: ExportColumn, of packet: Packet, to cell: inout OutputBuffer) {
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
            case .type: packet.writeTypeLabel(to: &cell)
            case .kind: ASCII.append(frame.kind.word, to: &cell)
            case .controller:
                if frame.controller != Frame.systemController { ASCII.appendDecimal(UInt64(frame.controller), to: &cell) }
            case .handle: if let handle = packet.handle { ASCII.appendDecimal(UInt64(handle), to: &cell) }
            case .address: if let peer = packet.peer { peer.appendText(to: &cell) }
            case .summary:
                // By index: `top` would copy the layer.
                if let top = packet.layers.indices.last { packet.layers[top].summary.withBytes { cell.put($0) } }
            case .issues:
                var first = true
                for layer in packet.layers {
                    for issue in layer.issues {
                        if !first { cell.put(UInt8(ascii: ";")) }
                        first = false
                        ASCII.append(JSONRenderer.severityWord(issue.severity), to: &cell)
                        ASCII.append(": ", to: &cell)
                        ASCII.append(issue.message, to: &cell)
                    }
                }
            case .comment: if let comment = packet.comment { ASCII.append(comment, to: &cell) }
            case .flagged: cell.put(packet.flagged ? UInt8(ascii: "1") : UInt8(ascii: "0"))
            case .length: ASCII.appendDecimal(UInt64(max(0, frame.originalLength)), to: &cell)
            case .bytes: for byte in frame.bytes { Hex.append(byte, to: &cell) }
            }
        case .field(let field):
            var first = true
            packet.forEachValue(of: field) { value in
                if !first { cell.put(UInt8(ascii: ";")) }
                first = false
                writeValue(value, to: &cell)
            }
        case .valueName(let field):
            var first = true
            packet.forEachValueName(of: field) { name in
                if !first { cell.put(UInt8(ascii: ";")) }
                first = false
                if let name { ASCII.append(name, to: &cell) }
            }
        }
    }

    /// As `--fields` writes it (`FieldValue.writeText`), but integers in decimal and times in
    /// RFC 3339, as JSON writes them.
    mutating func writeValue(_ value: FieldValue, to cell: inout OutputBuffer) {
        switch value {
        case .unsigned(let number, _): ASCII.appendDecimal(number, to: &cell)
        case .time(let micros): time.append(micros, to: &cell)
        default: value.writeText(to: &cell)
        }
    }

    /// RFC 4180: the cell written from `start` is quoted when it holds a comma, a quote, CR or
    /// LF, its quotes doubled.
    static func quoteCell(from start: Int, in text: inout OutputBuffer) {
        let cell: [UInt8]? = text.withBytes { written in
            let cell = UnsafeRawBufferPointer(rebasing: written[start...])
            return needsQuotes(cell) ? Array(cell) : nil
        }
        guard let cell else { return }
        text.removeLast(text.count - start)
        text.put(UInt8(ascii: "\""))
        for byte in cell {
            if byte == UInt8(ascii: "\"") { text.put(byte) }
            text.put(byte)
        }
        text.put(UInt8(ascii: "\""))
    }

    /// Whether `cell` holds a comma, a quote, CR or LF. Eight bytes at a time: every summary
    /// is scanned, and a byte-by-byte test was a tenth of the export.
    static func needsQuotes(_ cell: UnsafeRawBufferPointer) -> Bool {
        let lows: UInt64 = 0x0101_0101_0101_0101, highs = lows << 7
        var offset = 0
        while offset + 8 <= cell.count {
            let word = cell.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            // High bit of a byte set where the byte is below 0x0E (CR, LF and rarer controls),
            // or equals a comma, or a quote: exact for "any" (the classic zero-byte test).
            let comma = word ^ (lows &* 0x2C), quote = word ^ (lows &* 0x22)
            let marks = ((word &- lows &* 0x0E) & ~word) | ((comma &- lows) & ~comma) | ((quote &- lows) & ~quote)
            if marks & highs != 0, bytewise(cell, offset ..< offset + 8) { return true }
            offset += 8
        }
        return bytewise(cell, offset ..< cell.count)
    }

    private static func bytewise(_ cell: UnsafeRawBufferPointer, _ range: Range<Int>) -> Bool {
        for offset in range {
            switch cell[offset] {
            case UInt8(ascii: ","), UInt8(ascii: "\""), 0x0A, 0x0D: return true
            default: continue
            }
        }
        return false
    }
}
