import BTCapture
import BTDecode
import BTQuery
import BTRender

/// Draws a Browser into a grid of cells: the list with its header, the selected packet's tree,
/// its bytes, the status line and the input line (or the help over everything).
public struct BrowserScreen {
    /// Colours, or none (`NO_COLOR`, `--color never`): then only bold and reverse video mark things.
    public var colours: Bool
    /// Whether the terminal shows UTF-8 (box lines and arrows), else ASCII stand-ins.
    public var unicode: Bool

    public init(colours: Bool = true, unicode: Bool = true) {
        self.colours = colours
        self.unicode = unicode
    }

    typealias Look = CellGrid.Look

    public func draw(_ browser: Browser) -> CellGrid {
        var grid = CellGrid(width: browser.width, height: browser.height)
        if browser.showsHelp {
            drawHelp(into: &grid)
            return grid
        }
        let layout = browser.layout
        drawList(browser, into: &grid)
        if let report = browser.report {
            drawReport(report, top: browser.reportTop, into: &grid, layout: layout)
        } else {
            drawTree(browser, into: &grid, layout: layout)
            drawBytes(browser, into: &grid, layout: layout)
        }
        drawStatus(browser, into: &grid, layout: layout)
        return grid
    }

    func colour(_ tint: Style.Tint?) -> Look.Colour {
        guard colours else { return .plain }
        switch tint {
        case .error?: return .red
        case .warning?: return .yellow
        case .sent?: return .blue
        case .received?: return .magenta
        case .text?: return .green
        case nil: return .plain
        }
    }

    func title(_ text: String, row: Int, focused: Bool, into grid: inout CellGrid) {
        let rule = unicode ? "─" : "-"
        grid.clear(row: row, look: Look(bold: true, dim: !focused))
        let x = grid.put(rule + rule + " ", row: row, column: 0, look: Look(bold: focused, dim: !focused))
        let end = grid.put(text + " ", row: row, column: x, look: Look(bold: true, reverse: focused && !colours))
        grid.put(String(repeating: rule, count: max(0, grid.width - end)), row: row, column: end, look: Look(bold: focused, dim: !focused))
    }

    // MARK: The list

    func drawList(_ browser: Browser, into grid: inout CellGrid) {
        let layout = browser.layout
        let source = browser.index.sourceColumnWidth.map { "Source".padding(to: $0) + "  " } ?? ""
        let header = "     #    " + timeHeader(browser.timeMode) + "  " + source + "Type".padding(to: TableRenderer.typeWidth) + "  Handle  Address            Summary"
        grid.clear(row: 0, look: Look(bold: true, reverse: true))
        grid.put(header, row: 0, column: 0, look: Look(bold: true, reverse: true))
        for (row, _, content) in browser.visibleRows() {
            let y = layout.listTop + row - browser.list.top
            let selected = row == browser.list.selected
            let hit = browser.searchMatches(content)
            var look = Look(colour(content.tint), bold: content.tint == .error && !colours)
            if selected { look.reverse = true; look.bold = browser.focus == .list }
            if selected { grid.clear(row: y, look: look) }
            let x = grid.put(content.text, row: y, column: 0, look: look)
            if hit { grid.paint(row: y, columns: 0 ..< min(6, x), look: Look(colours ? .cyan : .plain, bold: true, reverse: !selected, underline: true)) }
            if let comment = content.comment, x + 3 < grid.width {
                grid.put("  # " + comment, row: y, column: x, look: Look(colours ? .green : .plain, reverse: selected, dim: !selected))
            }
        }
        if browser.list.rows.count == 0 {
            let text = browser.isBusy ? "Reading…" : (browser.scan != nil ? "No packet matches the filter." : "The capture holds no packet.")
            grid.put(text, row: layout.listTop, column: 2, look: Look(dim: true))
        }
    }

    func timeHeader(_ mode: TimeFormatter.Mode) -> String {
        switch mode {
        case .abs: return "Time".padding(to: 19)
        case .rel, .delta, .epoch:
            var formatter = TimeFormatter(mode: mode)
            return "Time".padding(to: max(4, formatter.format(0).count))
        }
    }

    // MARK: The tree

    func drawTree(_ browser: Browser, into grid: inout CellGrid, layout: Browser.Layout) {
        let tree = browser.tree
        let packetTitle: String
        if let packet = browser.openPacket {
            packetTitle = "Packet \(packet.frame.number): \(packet.typeLabel)" + (packet.flagged ? (unicode ? "  ⚑ flagged" : "  F flagged") : "")
        } else {
            packetTitle = "No packet selected"
        }
        title(packetTitle, row: layout.treeTop - 1, focused: browser.focus == .tree, into: &grid)
        let open = unicode ? "▼" : "-", closed = unicode ? "▶" : "+"
        for offset in 0 ..< layout.treeHeight {
            let index = tree.top + offset
            guard index < tree.tree.lines.count else { break }
            let line = tree.tree.lines[index]
            let y = layout.treeTop + offset
            let selected = index == tree.selected
            var look: Look
            var text: String
            switch line.kind {
            case .layer(let expanded):
                look = Look(bold: true)
                text = (expanded ? open : closed) + " " + line.text
            case .field:
                look = Look()
                text = "    " + line.text
            case .issue(let severity):
                look = Look(colours ? (severity == .error ? .red : .yellow) : .plain, bold: severity == .error)
                text = line.text
            case .comment:
                look = Look(colours ? .green : .plain, bold: true)
                text = line.text
            case .origin:
                // "Merge ▼ ..." as a layer's header, its lines as fields.
                look = Look(bold: line.text.hasPrefix("Merge "))
                text = line.text.hasPrefix("Merge ") ? open + " " + line.text.replacingOccurrences(of: " ▼ ", with: " ") : "    " + line.text
            }
            if selected {
                look.reverse = true
                if browser.focus != .tree { look.dim = true }
                grid.clear(row: y, look: look)
            }
            grid.put(text, row: y, column: 0, look: look)
        }
    }

    // MARK: A report

    /// A whole-capture report in the rows of the tree and the bytes.
    func drawReport(_ report: CaptureReports, top: Int, into grid: inout CellGrid, layout: Browser.Layout) {
        let first = layout.treeTop - 1
        for row in first ..< layout.statusRow { grid.clear(row: row) }
        guard let lines = report.lines else {
            title(report.kind.rawValue + " (reading the capture…)", row: first, focused: true, into: &grid)
            return
        }
        let shown = layout.statusRow - layout.treeTop
        let end = min(lines.count, top + shown)
        let position = lines.count > shown ? " · lines \(top + 1)-\(end) of \(lines.count)" : ""
        title(report.kind.rawValue + position + " · Esc closes", row: first, focused: true, into: &grid)
        for (offset, line) in lines[min(top, lines.count) ..< end].enumerated() {
            grid.put(line, row: layout.treeTop + offset, column: 0)
        }
    }

    // MARK: The bytes

    func drawBytes(_ browser: Browser, into grid: inout CellGrid, layout: Browser.Layout) {
        let shown = browser.shownBytes
        title(shown.title, row: layout.bytesTop - 1, focused: browser.focus == .bytes, into: &grid)
        let perLine = Browser.bytesPerLine
        let highlight = Look(colours ? .cyan : .plain, bold: true, reverse: true)
        for offset in 0 ..< layout.bytesHeight {
            let line = browser.bytesTop + offset
            let start = line * perLine
            guard start < shown.bytes.count else { break }
            let y = layout.bytesTop + offset
            var x = grid.put(String(Hex.format(UInt64(start), width: 4).dropFirst(2)), row: y, column: 0, look: Look(dim: true))
            x += 2
            let end = min(shown.bytes.count, start + perLine)
            for position in start ..< end {
                let marked = shown.highlight?.contains(position) ?? false
                let gap = position > start ? (position - start == 8 ? 2 : 1) : 0
                if marked && gap > 0 && shown.highlight!.contains(position - 1) {
                    grid.put(String(repeating: " ", count: gap), row: y, column: x, look: highlight)
                }
                x += gap
                x = grid.put(Hex.bytes(CollectionOfOne(shown.bytes[position])), row: y, column: x, look: marked ? highlight : Look())
            }
            var asciiColumn = 6 + perLine * 3 + 2
            for position in start ..< end {
                let byte = shown.bytes[position]
                let character = byte >= 0x20 && byte < 0x7F ? String(UnicodeScalar(byte)) : "."
                let marked = shown.highlight?.contains(position) ?? false
                asciiColumn = grid.put(character, row: y, column: asciiColumn, look: marked ? highlight : Look(dim: true))
            }
        }
    }

    // MARK: Status and input

    func drawStatus(_ browser: Browser, into grid: inout CellGrid, layout: Browser.Layout) {
        if let input = browser.input {
            drawInput(input, error: browser.inputError, message: browser.message, into: &grid, layout: layout)
            return
        }
        grid.clear(row: layout.statusRow, look: Look(reverse: true))
        var x = grid.put(" " + browser.source + "  ", row: layout.statusRow, column: 0, look: Look(bold: true, reverse: true))
        x = grid.put(browser.statusLine, row: layout.statusRow, column: x, look: Look(reverse: true))
        let help = "  ? help "
        if x + CellWidth.columns(help) <= grid.width {
            grid.put(help, row: layout.statusRow, column: grid.width - CellWidth.columns(help), look: Look(reverse: true))
        }
        if let message = browser.message {
            grid.put(message, row: layout.inputRow, column: 0, look: Look(bold: true))
        } else if let error = browser.loader?.error {
            // Reading stopped (a followed file that shrank, a capture socket closed): what was
            // read stays browsable.
            grid.put("Reading stopped: " + error, row: layout.inputRow, column: 0, look: Look(colours ? .red : .plain, bold: true))
        } else if let warning = browser.loader?.readWarnings.last, browser.filterSummary.isEmpty {
            // What show writes to standard error (a truncated last record) has this line here.
            grid.put("Warning: " + warning, row: layout.inputRow, column: 0, look: Look(colours ? .yellow : .plain, bold: true))
        } else {
            grid.put(browser.filterSummary, row: layout.inputRow, column: 0, look: Look(dim: true))
        }
    }

    /// The field being edited on the status row; under it, the filter's error with its caret
    /// under the part at fault (as the command line prints it), or the completion's choices.
    func drawInput(_ input: InputLine, error: FilterError?, message: String?, into grid: inout CellGrid, layout: Browser.Layout) {
        let row = layout.statusRow
        grid.clear(row: row)
        let start = grid.put(input.prompt, row: row, column: 0, look: Look(bold: true))
        // The text scrolls so that the cursor stays on screen.
        let room = max(1, grid.width - start - 1)
        let first = max(0, input.cursor - room)
        grid.put(String(input.characters[first...]), row: row, column: start, look: Look(error != nil && colours ? .red : .plain))
        let cursorColumn = start + CellWidth.columns(String(input.characters[first ..< input.cursor]))
        if cursorColumn < grid.width && row < grid.height { // a screen too small shows no field
            var cell = grid[row, cursorColumn]
            cell.look.reverse = true
            grid.put(cell.text.isEmpty ? " " : cell.text, row: row, column: cursorColumn, look: cell.look)
        }
        let below = layout.inputRow
        if let error {
            // The span counts the expression's Unicode scalars: columns where each is one column.
            let prefix = String(String.UnicodeScalarView(input.text.unicodeScalars.prefix(error.span.lowerBound)))
            let caretColumn = start + max(0, CellWidth.columns(prefix) - CellWidth.columns(String(input.characters[..<first])))
            let caret = "^" + String(repeating: "~", count: max(0, error.span.count - 1))
            let errorLook = Look(colours ? .red : .plain, bold: true)
            let x = caretColumn < grid.width ? grid.put(caret, row: below, column: caretColumn, look: errorLook) : grid.width
            if x + 2 + CellWidth.columns(error.message) <= grid.width {
                grid.put(error.message, row: below, column: x + 2, look: errorLook)
            } else {
                // No room after the caret: the message goes on the row above the field.
                grid.clear(row: row - 1)
                grid.put(error.message, row: row - 1, column: 0, look: errorLook)
            }
        } else if let message {
            grid.put(message, row: below, column: 0, look: Look(dim: true))
        } else if input.purpose == .filter {
            grid.put("Enter applies · Esc cancels · Tab completes field and value names", row: below, column: 0, look: Look(dim: true))
        } else if input.purpose == .search {
            grid.put("Enter searches · Esc cancels · Tab: search \(input.searchesTree ? "the rows" : "every line of the tree") instead",
                     row: below, column: 0, look: Look(dim: true))
        }
    }

    func drawHelp(into grid: inout CellGrid) {
        grid.put("btlog browse: keys", row: 0, column: 2, look: Look(bold: true))
        let width = Browser.keyHelp.map { CellWidth.columns($0.0) }.max() ?? 0
        for (offset, entry) in Browser.keyHelp.enumerated() {
            let y = 2 + offset
            grid.put(entry.0, row: y, column: 2, look: Look(bold: true))
            grid.put(entry.1, row: y, column: 4 + width)
        }
        grid.put("Press any key to go back.", row: min(grid.height - 1, 3 + Browser.keyHelp.count), column: 2, look: Look(dim: true))
    }
}

extension String {
    func padding(to width: Int) -> String {
        let count = CellWidth.columns(self)
        return count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
