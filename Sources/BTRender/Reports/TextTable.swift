/// Columns padded to their widest cell, two spaces apart, the last column unpadded: the
/// reports' tables (controllers, statistics). Numbers are right-aligned.
public struct TextTable {
    public var header: [String]
    public var rows: [[String]] = []
    /// Columns whose cells are right-aligned (counts, sizes).
    public var rightAligned: Set<Int> = []
    /// Spaces before every line.
    public var indent = 0

    public init(_ header: [String], rightAligned: Set<Int> = [], indent: Int = 0) {
        self.header = header
        self.rightAligned = rightAligned
        self.indent = indent
    }

    public mutating func add(_ row: [String]) { rows.append(row) }

    public var lines: [String] {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0 }
        let margin = String(repeating: " ", count: indent)
        return all.map { row in
            var line = margin
            for (column, cell) in row.enumerated() {
                if column > 0 { line += "  " }
                let pad = String(repeating: " ", count: max(0, widths[column] - cell.count))
                if rightAligned.contains(column) { line += pad + cell } else { line += column == row.count - 1 ? cell : cell + pad }
            }
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }
    }
}
