/// A screen as a grid of cells, which the browser's view draws into and a terminal back end
/// copies out: the view is tested on the grid, with no terminal.
public struct CellGrid: Equatable {
    /// A cell's look: a colour for its text, and attributes.
    public struct Look: Hashable, Sendable {
        public enum Colour: UInt8, CaseIterable, Sendable {
            case plain, red, green, yellow, blue, magenta, cyan
        }
        public var colour: Colour
        public var bold: Bool
        public var reverse: Bool
        public var dim: Bool
        public var underline: Bool

        public init(_ colour: Colour = .plain, bold: Bool = false, reverse: Bool = false, dim: Bool = false, underline: Bool = false) {
            self.colour = colour
            self.bold = bold
            self.reverse = reverse
            self.dim = dim
            self.underline = underline
        }

        public static let plain = Look()
    }

    public struct Cell: Equatable {
        /// What the cell shows: one character (a grapheme cluster); empty for the right half
        /// of a character two columns wide, which the cell before it holds.
        public var text: String
        public var look: Look
        public static let blank = Cell(text: " ", look: .plain)
    }

    public let width: Int
    public let height: Int
    public private(set) var cells: [Cell]

    public init(width: Int, height: Int) {
        self.width = max(0, min(width, 4096))
        self.height = max(0, min(height, 4096))
        cells = Array(repeating: .blank, count: self.width * self.height)
    }

    public subscript(row: Int, column: Int) -> Cell {
        cells[row * width + column]
    }

    /// Writes `text` at (`row`, `column`) in `look`, cut at `limit` columns (the grid's right
    /// edge by default); a character two columns wide that would not fit whole is left out.
    /// Returns the column after the last one written.
    @discardableResult
    public mutating func put(_ text: String, row: Int, column: Int, look: Look = .plain, limit: Int? = nil) -> Int {
        guard row >= 0, row < height, column >= 0 else { return column }
        let end = min(width, limit ?? width)
        var x = column
        for character in text {
            let columns = CellWidth.of(character)
            if columns == 0 { continue }
            if x + columns > end { break }
            // Control characters are shown as spaces: a capture's text never moves the cursor.
            let shown = character.unicodeScalars.contains { $0.value < 0x20 || (0x7F ..< 0xA0).contains($0.value) } ? " " : String(character)
            cells[row * width + x] = Cell(text: shown, look: look)
            if columns == 2 { cells[row * width + x + 1] = Cell(text: "", look: look) }
            x += columns
        }
        return x
    }

    /// Paints cells `columns` of `row` with `look`, keeping their text (a selection bar).
    public mutating func paint(row: Int, columns: Range<Int>, look: Look) {
        guard row >= 0, row < height else { return }
        for x in max(0, columns.lowerBound) ..< min(width, max(0, columns.upperBound)) {
            cells[row * width + x].look = look
        }
    }

    /// Fills a row with blanks in `look`.
    public mutating func clear(row: Int, look: Look = .plain) {
        guard row >= 0, row < height else { return }
        for x in 0 ..< width { cells[row * width + x] = Cell(text: " ", look: look) }
    }

    /// A row's text (tests, and the terminal back end's runs).
    public func text(row: Int) -> String {
        guard row >= 0, row < height else { return "" }
        return (0 ..< width).map { self[row, $0].text }.joined()
    }

    /// Every row's text, trailing blanks removed.
    public var lines: [String] {
        (0 ..< height).map { row in
            var line = text(row: row)
            while line.last == " " { line.removeLast() }
            return line
        }
    }
}

/// How many terminal columns a character takes: 0 for combining marks and zero-width
/// characters, 2 for East Asian wide and fullwidth characters and emoji, 1 otherwise (the
/// ranges of Unicode's East Asian Width "W" and "F", in the broad blocks terminals follow).
public enum CellWidth {
    public static func of(_ character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        let value = first.value
        if value < 0x300 { return 1 }
        if first.properties.generalCategory == .nonspacingMark || first.properties.generalCategory == .enclosingMark
            || first.properties.generalCategory == .format { return 0 }
        return wide.contains { $0.contains(value) } ? 2 : 1
    }

    static let wide: [ClosedRange<UInt32>] = [
        0x1100 ... 0x115F, 0x231A ... 0x231B, 0x2329 ... 0x232A, 0x23E9 ... 0x23EC, 0x23F0 ... 0x23F0,
        0x23F3 ... 0x23F3, 0x25FD ... 0x25FE, 0x2614 ... 0x2615, 0x2648 ... 0x2653, 0x267F ... 0x267F,
        0x2693 ... 0x2693, 0x26A1 ... 0x26A1, 0x26AA ... 0x26AB, 0x26BD ... 0x26BE, 0x26C4 ... 0x26C5,
        0x26CE ... 0x26CE, 0x26D4 ... 0x26D4, 0x26EA ... 0x26EA, 0x26F2 ... 0x26F3, 0x26F5 ... 0x26F5,
        0x26FA ... 0x26FA, 0x26FD ... 0x26FD, 0x2705 ... 0x2705, 0x270A ... 0x270B, 0x2728 ... 0x2728,
        0x274C ... 0x274C, 0x274E ... 0x274E, 0x2753 ... 0x2755, 0x2757 ... 0x2757, 0x2795 ... 0x2797,
        0x27B0 ... 0x27B0, 0x27BF ... 0x27BF, 0x2B1B ... 0x2B1C, 0x2B50 ... 0x2B50, 0x2B55 ... 0x2B55,
        0x2E80 ... 0x303E, 0x3041 ... 0x33FF, 0x3400 ... 0x4DBF, 0x4E00 ... 0x9FFF, 0xA000 ... 0xA4CF,
        0xA960 ... 0xA97F, 0xAC00 ... 0xD7A3, 0xF900 ... 0xFAFF, 0xFE10 ... 0xFE19, 0xFE30 ... 0xFE6F,
        0xFF00 ... 0xFF60, 0xFFE0 ... 0xFFE6, 0x16FE0 ... 0x16FE4, 0x17000 ... 0x18CFF, 0x1B000 ... 0x1B2FF,
        0x1F004 ... 0x1F004, 0x1F0CF ... 0x1F0CF, 0x1F18E ... 0x1F18E, 0x1F191 ... 0x1F19A,
        0x1F200 ... 0x1F251, 0x1F300 ... 0x1F320, 0x1F32D ... 0x1F335, 0x1F337 ... 0x1F37C,
        0x1F37E ... 0x1F393, 0x1F3A0 ... 0x1F3CA, 0x1F3CF ... 0x1F3D3, 0x1F3E0 ... 0x1F3F0,
        0x1F3F4 ... 0x1F3F4, 0x1F3F8 ... 0x1F43E, 0x1F440 ... 0x1F440, 0x1F442 ... 0x1F4FC,
        0x1F4FF ... 0x1F53D, 0x1F54B ... 0x1F54E, 0x1F550 ... 0x1F567, 0x1F57A ... 0x1F57A,
        0x1F595 ... 0x1F596, 0x1F5A4 ... 0x1F5A4, 0x1F5FB ... 0x1F64F, 0x1F680 ... 0x1F6C5,
        0x1F6CC ... 0x1F6CC, 0x1F6D0 ... 0x1F6D2, 0x1F6D5 ... 0x1F6D7, 0x1F6EB ... 0x1F6EC,
        0x1F6F4 ... 0x1F6FC, 0x1F7E0 ... 0x1F7EB, 0x1F90C ... 0x1F93A, 0x1F93C ... 0x1F945,
        0x1F947 ... 0x1F9FF, 0x1FA70 ... 0x1FAFF, 0x20000 ... 0x2FFFD, 0x30000 ... 0x3FFFD,
    ]

    /// The columns `text` takes.
    public static func columns(_ text: String) -> Int {
        text.reduce(0) { $0 + of($1) }
    }
}
