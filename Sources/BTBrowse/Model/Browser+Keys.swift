import BTCapture
import BTDecode
import BTExport
import BTQuery
import BTRender
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What each key does: the key map's actions, in the pane with the focus or on a report.
extension Browser {
    public func handle(_ key: BrowserKey) {
        if case .resize(let newWidth, let newHeight) = key {
            width = max(1, min(newWidth, 4096))
            height = max(1, min(newHeight, 4096))
            layOut()
            return
        }
        if showsHelp {
            showsHelp = false
            return
        }
        if input != nil {
            editInput(key)
            tick()
            return
        }
        message = nil
        switch key {
        case .click(let row, _, let double): click(row: row, double: double)
        case .wheel(let row, _, let down):
            if report != nil, row >= layout.treeTop - 1 && row < layout.statusRow { scrollReport(by: down ? 3 : -3) } else { wheel(row: row, down: down) }
        default:
            guard let action = KeyMap.action(for: key) else { break }
            if report != nil, reportAction(action) { break }
            perform(action)
        }
        tick()
    }

    /// What a key asks for, in the pane with the focus.
    func perform(_ action: BrowserAction) {
        switch action {
        case .report(let kind): showReport(kind)
        case .quit: quits = true
        case .help: showsHelp = true
        case .nextPane: focus = Pane.allCases[(Pane.allCases.firstIndex(of: focus)! + 1) % Pane.allCases.count]
        case .previousPane: focus = Pane.allCases[(Pane.allCases.firstIndex(of: focus)! + 2) % Pane.allCases.count]
        case .filter: input = InputLine(.filter, text: filterText); validateInput()
        case .search:
            input = InputLine(.search, text: searchPattern?.source ?? "")
            input?.searchesTree = searchesTree
        case .goTo: input = InputLine(.goTo)
        case .nextMatch: findMatch(forward: true)
        case .previousMatch: findMatch(forward: false)
        case .hideAdvertising: toggleHidden(.adv)
        case .hideFlowControl: toggleHidden(.nocp)
        case .errorsOnly: changeQuick { $0.errorsOnly.toggle() }
        case .onlyDevice: toggle(\.devices, to: openPacket?.peer, lacking: "device address")
        case .onlyHandle: toggle(\.handles, to: openPacket?.handle, lacking: "connection handle")
        case .onlyType: toggleType()
        case .flag: annotate { $0.flagged.toggle() }
        case .comment:
            guard notesPath != nil, let packet = list.selectedPacket, let frame = index.frame(at: packet) else {
                message = notesPath == nil ? NotesPart.unwritable : nil
                break
            }
            input = InputLine(.comment, text: notes.notes[frame.number]?.comment ?? "")
        case .exportListed, .exportSelected:
            guard capturePath != nil, exporting != nil else {
                message = "nothing to export from: a live capture is exported once written (-w FILE)"
                break
            }
            input = InputLine(.export(selectedOnly: action == .exportSelected))
        case .clearFilters:
            guard !filters.isEmpty else { break }
            filters.clear()
            applyFilters()
            message = "Filters cleared"
        case .up, .down, .pageUp, .pageDown, .first, .last, .open, .left, .right, .foldAll, .unfoldAll, .back:
            switch focus {
            case .list: listAction(action)
            case .tree: treeAction(action)
            case .bytes: bytesAction(action)
            }
        }
    }

    /// Opens a whole-capture report over the packets loaded so far (again: made anew).
    func showReport(_ kind: CaptureReports.Kind) {
        if kind == .values {
            // The field on the tree's selected line, when the tree has the focus and it is one.
            let field = focus == .tree ? tree.selectedLine?.field : nil
            report = CaptureReports(kind, index: index, source: source, listed: list.rows, fields: field.map { [$0] } ?? [])
        } else {
            report = CaptureReports(kind, index: index, source: source)
        }
        reportTop = 0
    }

    /// What a report does with an action: it scrolls, and closes (Esc, or its own key); false
    /// for an action it leaves to the browser.
    func reportAction(_ action: BrowserAction) -> Bool {
        let page = max(1, layout.statusRow - layout.treeTop)
        switch action {
        case .back: report = nil
        case .report(let kind) where kind == report?.kind: report = nil
        case .up: scrollReport(by: -1)
        case .down: scrollReport(by: 1)
        case .pageUp: scrollReport(by: -page)
        case .pageDown: scrollReport(by: page)
        case .first: scrollReport(by: Int.min / 2)
        case .last: scrollReport(by: Int.max / 2)
        default: return false
        }
        return true
    }

    func scrollReport(by lines: Int) {
        let count = report?.lines?.count ?? 0
        let page = max(1, layout.statusRow - layout.treeTop)
        reportTop = max(0, min(reportTop.addingReportingOverflow(lines).partialValue, count - page))
    }

    func listAction(_ action: BrowserAction) {
        pendingSelection = nil // the user moves on: the filter's scan no longer takes the selection back
        switch action {
        case .up: list.move(by: -1)
        case .down: list.move(by: 1)
        case .pageUp: list.pageUp()
        case .pageDown: list.pageDown()
        case .first: list.home()
        case .last: list.end()
        case .open, .right: focus = .tree
        default: break
        }
    }

    func treeAction(_ action: BrowserAction) {
        switch action {
        case .up: tree.move(by: -1)
        case .down: tree.move(by: 1)
        case .pageUp: tree.move(by: -layout.treeHeight)
        case .pageDown: tree.move(by: layout.treeHeight)
        case .first: tree.select(line: 0)
        case .last: tree.select(line: .max)
        case .open: if let openPacket { tree.toggle(openPacket) }
        case .left:
            if let openPacket, let line = tree.selectedLine, line.layer != nil {
                if line.kind == .layer(expanded: true) || line.kind == .field { tree.toggle(openPacket) } else { focus = .list }
            } else {
                focus = .list
            }
        case .right:
            if let openPacket, tree.selectedLine?.kind == .layer(expanded: false) { tree.toggle(openPacket) }
        case .foldAll: if let openPacket { tree.setAll(expanded: false, openPacket) }
        case .unfoldAll: if let openPacket { tree.setAll(expanded: true, openPacket) }
        case .back: focus = .list
        default: break
        }
        revealHighlight()
    }

    func bytesAction(_ action: BrowserAction) {
        let lines = bytesLineCount
        switch action {
        case .up: bytesTop -= 1
        case .down: bytesTop += 1
        case .pageUp: bytesTop -= layout.bytesHeight
        case .pageDown: bytesTop += layout.bytesHeight
        case .first: bytesTop = 0
        case .last: bytesTop = lines
        case .back: focus = .list
        default: break
        }
        bytesTop = max(0, min(bytesTop, lines - layout.bytesHeight))
    }

    /// The bytes the bytes pane shows: those of the selected tree line's source (the frame, or
    /// a reassembled PDU), and the range to highlight.
    public var shownBytes: (bytes: [UInt8], title: String, highlight: Range<Int>?) {
        let line = tree.selectedLine
        let source = line?.source ?? .frame
        let bytes = tree.tree.bytes(of: source)
        let title: String
        switch source {
        case .frame: title = "Bytes (\(bytes.count))"
        case .reassembled(let which): title = "Reassembled PDU \(which + 1) (\(bytes.count) bytes)"
        }
        let highlight = line?.bytes.flatMap { $0.lowerBound >= 0 && $0.upperBound <= bytes.count && !$0.isEmpty ? $0 : nil }
        return (bytes, title, highlight)
    }

    public static let bytesPerLine = 16

    var bytesLineCount: Int { (shownBytes.bytes.count + Self.bytesPerLine - 1) / Self.bytesPerLine }

    /// Scrolls the bytes pane to the highlighted bytes.
    func revealHighlight() {
        guard let range = shownBytes.highlight else { return }
        let first = range.lowerBound / Self.bytesPerLine, last = (range.upperBound - 1) / Self.bytesPerLine
        if first < bytesTop { bytesTop = first }
        if last >= bytesTop + layout.bytesHeight { bytesTop = max(first, last - layout.bytesHeight + 1) }
    }

    func click(row: Int, double: Bool) {
        if row >= layout.listTop && row < layout.listTop + layout.listHeight {
            focus = .list
            let target = list.top + row - layout.listTop
            if target < list.rows.count { list.select(row: target) }
            if double { focus = .tree }
        } else if row >= layout.treeTop && row < layout.treeTop + layout.treeHeight {
            focus = .tree
            let target = tree.top + row - layout.treeTop
            if target < tree.tree.lines.count {
                tree.select(line: target)
                if double, let openPacket { tree.toggle(openPacket) }
            }
            revealHighlight()
        } else if row >= layout.bytesTop && row < layout.bytesTop + layout.bytesHeight {
            focus = .bytes
        }
    }

    func wheel(row: Int, down: Bool) {
        let step = down ? 3 : -3
        if row >= layout.treeTop && row < layout.treeTop + layout.treeHeight {
            tree.move(by: step)
            revealHighlight()
        } else if row >= layout.bytesTop && row < layout.bytesTop + layout.bytesHeight {
            bytesTop = max(0, min(bytesTop + step, bytesLineCount - layout.bytesHeight))
        } else {
            list.move(by: step)
        }
    }

    // MARK: Help

    /// Every key, for the help screen (from the key map).
    public static var keyHelp: [(String, String)] { KeyMap.help }
}
