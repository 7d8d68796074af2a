import BTCapture
import BTDecode
import BTExport
import BTQuery
import BTRender
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `btlog browse` as a model: what the user sees and what each key does, without a terminal.
/// The capture arrives in a PacketIndex (loaded, followed or captured on another thread);
/// a filter runs as a MatchScan on a thread of its own; `tick()` takes in what both found,
/// and the screen (BrowserScreen) draws the state.
public final class Browser {
    public enum Pane: CaseIterable, Sendable {
        case list, tree, bytes
    }

    /// A list row as drawn: the table's text for the packet and how it is coloured.
    public struct Row: Equatable {
        public var text: String
        public var tint: Style.Tint?
        public var comment: String?
        public var flagged: Bool
    }

    public let index: PacketIndex
    public let loader: CaptureLoader?
    public let source: String
    public let timeMode: TimeFormatter.Mode
    /// The flag column's mark (F where the terminal is not UTF-8), as `show` prints it.
    public let flagMark: String
    public private(set) var list: PacketListState
    public private(set) var tree = TreeState()
    /// The selected packet, decoded with its display text (the tree's).
    public private(set) var openPacket: Packet?
    public private(set) var focus = Pane.list
    /// The text field being edited, if any.
    public private(set) var input: InputLine?
    /// The filter expression applied (empty: none) and the quick filters.
    public private(set) var filterText = ""
    public private(set) var quick = QuickFilters()
    /// What is wrong with the filter being typed, shown with a caret under the field.
    public private(set) var inputError: FilterError?
    /// The scan of the filter applied; nil when every packet is listed.
    public private(set) var scan: MatchScan?
    /// The search applied (n and N find its next and previous match; rows it matches are marked).
    public private(set) var searchPattern: TextPattern?
    /// Whether the search reads every line of each packet's tree (as `grep -V`), not its row alone.
    public private(set) var searchesTree = false
    /// A line for the user: what a key did, a search that found nothing, a completion's choices.
    public private(set) var message: String?
    public private(set) var showsHelp = false
    /// A whole-capture report shown in place of the tree and bytes (s, a, d), and its first line on screen.
    public private(set) var report: CaptureReports?
    public private(set) var reportTop = 0
    public private(set) var quits = false
    /// The bytes pane's first line on screen.
    public private(set) var bytesTop = 0
    /// The screen's size, as the last resize said.
    public private(set) var width: Int
    public private(set) var height: Int

    private var rowCache: [Int: Row] = [:]
    /// Exports what the list shows (set by the command line, which knows how the capture is
    /// read and decoded); nil: nothing to export from.
    public var exporting: BrowserExport?
    /// The capture's notes (`btlog annotate`'s sidecar), and where they are kept; nil: the
    /// browser cannot annotate (a live capture not written to a file).
    public private(set) var notes: NotesDocument
    public let notesPath: String?
    /// The capture the notes are about (what `btlog annotate` is given).
    private let capturePath: String?
    /// When the notes file last changed, as the browser read or wrote it: another browser's or
    /// `btlog annotate`'s change is read again on the next tick.
    private var notesModified: [Int]?
    /// The packet selected when a new filter started, and its row on screen: selected again
    /// once the filter's scan has decided on it (until then the matches found so far are listed).
    private var pendingSelection: (packet: Int, offset: Int)?
    /// Whether the filter applied tests notes (`flagged`, `comment`): a change of notes runs it again.
    private var scanReadsNotes = false

    /// `notesPath`: the capture's notes file (`NotesStore.path`), read now and written by F and
    /// C; `capturePath` the capture it is about.
    public init(index: PacketIndex, loader: CaptureLoader?, source: String, timeMode: TimeFormatter.Mode = .abs,
                follows: Bool = false, width: Int = 80, height: Int = 24, notesPath: String? = nil, capturePath: String? = nil,
                flagMark: String = "⚑") {
        self.notesPath = notesPath
        self.capturePath = capturePath
        self.flagMark = flagMark
        notes = NotesDocument(capture: source)
        self.index = index
        self.loader = loader
        self.source = source
        self.timeMode = timeMode
        self.width = width
        self.height = height
        list = PacketListState(height: 1)
        list.followsNewRows = follows
        layOut()
        reloadNotes()
        tick()
    }

    // MARK: Layout

    /// Rows of each part of the screen, top to bottom: the list's header, the list, the tree's
    /// title, the tree, the bytes' title, the bytes, the status line, the input line.
    public struct Layout: Equatable {
        public var listTop: Int, listHeight: Int
        public var treeTop: Int, treeHeight: Int
        public var bytesTop: Int, bytesHeight: Int
        public var statusRow: Int, inputRow: Int
    }

    public private(set) var layout = Layout(listTop: 1, listHeight: 1, treeTop: 3, treeHeight: 1, bytesTop: 5, bytesHeight: 1,
                                           statusRow: 6, inputRow: 7)

    private func layOut() {
        let usable = max(3, height - 5) // header, two titles, status, input
        let listHeight = max(1, usable * 45 / 100)
        let treeHeight = max(1, usable * 35 / 100)
        let bytesHeight = max(1, usable - listHeight - treeHeight)
        layout = Layout(listTop: 1, listHeight: listHeight,
                        treeTop: 2 + listHeight, treeHeight: treeHeight,
                        bytesTop: 3 + listHeight + treeHeight, bytesHeight: bytesHeight,
                        statusRow: 3 + listHeight + treeHeight + bytesHeight, inputRow: 4 + listHeight + treeHeight + bytesHeight)
        list.resize(height: listHeight)
        tree.height = treeHeight
    }

    // MARK: What arrives

    /// Takes in the packets loaded and the matches found since the last call; opens the
    /// selected packet when it changed. Call before drawing.
    public func tick() {
        if let outcome = exporting?.take() { message = outcome }
        if let notesPath, Self.modified(notesPath) != notesModified { reloadNotes() }
        let total = index.count
        if let scan {
            if scan.isFinished && scan.scanned < total { scan.start() }
            if let pending = pendingSelection, scan.scanned > pending.packet || scan.isFinished {
                list.replace(with: .matches(scan.matches), selecting: pending.packet, offset: pending.offset)
                pendingSelection = nil
            } else if scan.matchCount != list.rows.count {
                list.grow(to: .matches(scan.matches))
            }
        } else if list.rows.count != total {
            list.grow(to: .all(count: total))
        }
        openSelected()
    }

    /// Whether something may still change without a key: the capture loading or followed, a scan running.
    public var isBusy: Bool {
        !(loader?.isFinished ?? true) || !(scan?.isFinished ?? true)
    }

    private func openSelected() {
        guard let packetIndex = list.selectedPacket else {
            if openPacket != nil {
                openPacket = nil
                tree.clear()
            }
            return
        }
        guard tree.packetIndex != packetIndex || openPacket == nil, var packet = index.packet(at: packetIndex) else { return }
        attachNote(to: &packet)
        openPacket = packet
        tree.show(packet, at: packetIndex)
        bytesTop = 0
        revealHighlight()
    }

    // MARK: Rows

    /// The rows on screen, drawn from packets decoded again (a screen's worth from the nearest
    /// saved Session) and kept until the filter or the notes change them.
    public func visibleRows() -> [(row: Int, packet: Int, content: Row)] {
        let wanted = list.visibleRows.compactMap { row in list.rows.packet(atRow: row).map { (row, $0) } }
        let missing = wanted.map(\.1).filter { rowCache[$0] == nil }
        if !missing.isEmpty { fillRows(missing) }
        if rowCache.count > 20_000 {
            let onScreen = Set(wanted.map(\.1))
            rowCache = rowCache.filter { onScreen.contains($0.key) }
        }
        return wanted.compactMap { row, packet in rowCache[packet].map { (row, packet, $0) } }
    }

    /// Decodes the packets at `indices` (ascending) in runs, each run from one saved Session.
    private func fillRows(_ indices: [Int]) {
        var renderer = TableRenderer(options: rowOptions)
        let first = index.timestamp(at: 0)
        var start = 0
        while start < indices.count {
            var end = start + 1
            while end < indices.count, indices[end] - indices[end - 1] < index.interval { end += 1 }
            let run = Array(indices[start ..< end])
            var position = run[0]
            var next = 0
            index.decode(run[0] ..< run[run.count - 1] + 1, buildsDisplayText: false) { packet in
                defer { position += 1 }
                guard next < run.count, run[next] == position else { return }
                next += 1
                renderer.prepare(first: first, previous: position > 0 ? index.timestamp(at: position - 1) : nil,
                                 severalControllers: index.namesController(at: position))
                attachNote(to: &packet)
                rowCache[position] = Row(text: renderer.plainRow(packet), tint: Style.Tint(for: packet),
                                         comment: packet.comment, flagged: packet.flagged)
            }
            start = end
        }
    }

    /// The table's options for a row: `show`'s with notes (the flag column).
    public var rowOptions: RenderOptions {
        var options = RenderOptions()
        options.time = timeMode
        options.flagColumn = flagMark
        return options
    }

    /// Whether the search marks this row.
    public func searchMatches(_ row: Row) -> Bool {
        !searchesTree && (searchPattern?.matches(row.text) ?? false)
    }

    // MARK: Status

    /// The status line of what is listed, as `show` ends with, and what the browser is doing.
    public var statusLine: String {
        let counts = scan?.statistics ?? index.statistics
        var parts = [counts.statusLine]
        if scan != nil || !quick.isEmpty {
            parts.append("\(list.rows.count) of \(index.count) listed")
        }
        if let loader, !loader.isFinished { parts.append("loading…") }
        if let scan, !scan.isFinished { parts.append("filtering \(scan.scanned * 100 / max(1, index.count))%") }
        return parts.joined(separator: " · ")
    }

    /// The filters in force, for the line under the status: the expression and the quick toggles.
    public var filterSummary: String {
        var parts: [String] = []
        if !filterText.isEmpty { parts.append("filter: \(filterText)") }
        if quick.hidden.contains(.adv) { parts.append("advertising hidden") }
        if quick.hidden.contains(.nocp) { parts.append("flow control hidden") }
        if quick.errorsOnly { parts.append("errors only") }
        if quick.flaggedOnly { parts.append("flagged only") }
        if !quick.hidden.filter({ $0 != .adv && $0 != .nocp }).isEmpty {
            parts.append("hidden: " + quick.hidden.filter { $0 != .adv && $0 != .nocp }.map(\.rawValue).joined(separator: ","))
        }
        if !quick.devices.isEmpty { parts.append("device \(quick.devices.map(\.description).joined(separator: ","))") }
        if !quick.handles.isEmpty { parts.append("handle \(quick.handles.map { Hex.format(UInt64($0), width: 4) }.joined(separator: ","))") }
        if !quick.types.isEmpty { parts.append("type \(quick.types.joined(separator: ","))") }
        if let searchPattern { parts.append("search\(searchesTree ? " (tree)" : ""): \(searchPattern.source)") }
        return parts.joined(separator: " · ")
    }

    // MARK: Keys

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
        if report != nil, reportKey(key) { return tick() }
        switch key {
        case .character(let pressed) where Self.reportKeys[pressed] != nil: showReport(Self.reportKeys[pressed]!)
        case .character("q"), .control("c"): quits = true
        case .character("?"): showsHelp = true
        case .tab: focus = Pane.allCases[(Pane.allCases.firstIndex(of: focus)! + 1) % Pane.allCases.count]
        case .backTab: focus = Pane.allCases[(Pane.allCases.firstIndex(of: focus)! + 2) % Pane.allCases.count]
        case .character("f"): input = InputLine(.filter, text: filterText); validateInput()
        case .character("/"):
            input = InputLine(.search, text: searchPattern?.source ?? "")
            input?.searchesTree = searchesTree
        case .character(":"): input = InputLine(.goTo)
        case .character("n"): findMatch(forward: true)
        case .character("N"): findMatch(forward: false)
        case .character("A"): toggleHidden(.adv)
        case .character("O"): toggleHidden(.nocp)
        case .character("E"):
            quick.errorsOnly.toggle()
            applyFilters()
        case .character("D"): toggle(\.devices, to: openPacket?.peer, lacking: "device address")
        case .character("H"): toggle(\.handles, to: openPacket?.handle, lacking: "connection handle")
        case .character("T"): toggleType()
        case .character("F"): annotate { $0.flagged.toggle() }
        case .character("C"):
            guard notesPath != nil, let packet = list.selectedPacket, let frame = index.frame(at: packet) else {
                message = notesPath == nil ? "no notes file: a live capture is annotated once written (-w FILE)" : nil
                break
            }
            input = InputLine(.comment, text: notes.notes[frame.number]?.comment ?? "")
        case .character("w"), .character("W"):
            guard capturePath != nil, exporting != nil else {
                message = "nothing to export from: a live capture is exported once written (-w FILE)"
                break
            }
            input = InputLine(.export(selectedOnly: key == .character("W")))
        case .character("c") where !filterText.isEmpty || !quick.isEmpty:
            filterText = ""
            quick = QuickFilters()
            applyFilters()
            message = "Filters cleared"
        case .click(let row, _, let double): click(row: row, double: double)
        case .wheel(let row, _, let down): wheel(row: row, down: down)
        default:
            switch focus {
            case .list: listKey(key)
            case .tree: treeKey(key)
            case .bytes: bytesKey(key)
            }
        }
        tick()
    }

    /// The keys of the whole-capture reports (each closes its own report too).
    static let reportKeys: [Character: CaptureReports.Kind] = ["s": .statistics, "a": .gatt, "d": .diagnosis]

    /// Opens a whole-capture report over the packets loaded so far (again: made anew).
    private func showReport(_ kind: CaptureReports.Kind) {
        report = CaptureReports(kind, index: index, source: source)
        reportTop = 0
    }

    /// Keys while a report is shown: scrolling it, and closing it (Esc, or its own key);
    /// false for a key the report leaves to the browser.
    private func reportKey(_ key: BrowserKey) -> Bool {
        let lines = report?.lines?.count ?? 0
        let page = max(1, layout.statusRow - layout.treeTop)
        switch key {
        case .escape:
            report = nil
            return true
        case .character(let pressed) where Self.reportKeys[pressed] == report?.kind:
            report = nil
            return true
        case .up, .character("k"): reportTop -= 1
        case .down, .character("j"): reportTop += 1
        case .pageUp, .character("b"): reportTop -= page
        case .pageDown, .character(" "): reportTop += page
        case .home, .character("g"): reportTop = 0
        case .end, .character("G"): reportTop = lines
        case .wheel(let row, _, let down) where row >= layout.treeTop - 1 && row < layout.statusRow: reportTop += down ? 3 : -3
        default: return false
        }
        reportTop = max(0, min(reportTop, lines - page))
        return true
    }

    private func listKey(_ key: BrowserKey) {
        pendingSelection = nil // the user moves on: the filter's scan no longer takes the selection back
        switch key {
        case .up, .character("k"): list.move(by: -1)
        case .down, .character("j"): list.move(by: 1)
        case .pageUp, .character("b"), .control("b"): list.pageUp()
        case .pageDown, .character(" "), .control("f"): list.pageDown()
        case .home, .character("g"): list.home()
        case .end, .character("G"): list.end()
        case .enter, .right, .character("l"): focus = .tree
        default: break
        }
    }

    private func treeKey(_ key: BrowserKey) {
        switch key {
        case .up, .character("k"): tree.move(by: -1)
        case .down, .character("j"): tree.move(by: 1)
        case .pageUp, .character("b"): tree.move(by: -layout.treeHeight)
        case .pageDown, .character(" "): tree.move(by: layout.treeHeight)
        case .home, .character("g"): tree.select(line: 0)
        case .end, .character("G"): tree.select(line: .max)
        case .enter: if let openPacket { tree.toggle(openPacket) }
        case .left, .character("h"):
            if let openPacket, let line = tree.selectedLine, line.layer != nil {
                if line.kind == .layer(expanded: true) || line.kind == .field { tree.toggle(openPacket) } else { focus = .list }
            } else {
                focus = .list
            }
        case .right, .character("l"):
            if let openPacket, tree.selectedLine?.kind == .layer(expanded: false) { tree.toggle(openPacket) }
        case .character("-"): if let openPacket { tree.setAll(expanded: false, openPacket) }
        case .character("+"), .character("="): if let openPacket { tree.setAll(expanded: true, openPacket) }
        case .escape: focus = .list
        default: break
        }
        revealHighlight()
    }

    private func bytesKey(_ key: BrowserKey) {
        let lines = bytesLineCount
        switch key {
        case .up, .character("k"): bytesTop -= 1
        case .down, .character("j"): bytesTop += 1
        case .pageUp, .character("b"): bytesTop -= layout.bytesHeight
        case .pageDown, .character(" "): bytesTop += layout.bytesHeight
        case .home, .character("g"): bytesTop = 0
        case .end, .character("G"): bytesTop = lines
        case .escape: focus = .list
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
    private func revealHighlight() {
        guard let range = shownBytes.highlight else { return }
        let first = range.lowerBound / Self.bytesPerLine, last = (range.upperBound - 1) / Self.bytesPerLine
        if first < bytesTop { bytesTop = first }
        if last >= bytesTop + layout.bytesHeight { bytesTop = max(first, last - layout.bytesHeight + 1) }
    }

    private func click(row: Int, double: Bool) {
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

    private func wheel(row: Int, down: Bool) {
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

    // MARK: The input line

    private func editInput(_ key: BrowserKey) {
        guard var line = input else { return }
        switch key {
        case .escape, .control("c"), .control("g"):
            input = nil
            inputError = nil
            return
        case .enter:
            submit(line)
            return
        case .tab where line.purpose == .search: line.searchesTree.toggle()
        case .tab where line.purpose == .filter:
            let found = FilterCompletion.complete(&line)
            message = found.count > 1 ? found.prefix(40).joined(separator: " ") + (found.count > 40 ? " …" : "") : nil
        case .character(let character): line.insert(character)
        case .backspace, .control("h"): line.deleteBackward()
        case .delete, .control("d"): line.deleteForward()
        case .left, .control("b"): line.moveLeft()
        case .right, .control("f"): line.moveRight()
        case .home, .control("a"): line.moveHome()
        case .end, .control("e"): line.moveEnd()
        case .control("u"): line.clear()
        case .control("w"): line.deleteWord()
        default: break
        }
        input = line
        validateInput()
    }

    /// The filter is compiled as it is typed: its error, with the caret, shows at once.
    private func validateInput() {
        inputError = nil
        guard let line = input else { return }
        switch line.purpose {
        case .filter:
            let text = line.text.trimmingCharacters(in: .whitespaces)
            if !text.isEmpty {
                do { _ = try PacketFilter(text) } catch let error as FilterError { inputError = error } catch {}
            }
        case .search, .goTo, .comment, .export: break
        }
    }

    private func submit(_ line: InputLine) {
        let text = line.text.trimmingCharacters(in: .whitespaces)
        switch line.purpose {
        case .filter:
            if !text.isEmpty {
                do { _ = try PacketFilter(text) } catch let error as FilterError {
                    inputError = error
                    return
                } catch {
                    return
                }
            }
            input = nil
            inputError = nil
            filterText = text
            applyFilters()
        case .search:
            input = nil
            guard !text.isEmpty else {
                searchPattern = nil
                return
            }
            do {
                searchPattern = try TextPattern(text)
                searchesTree = line.searchesTree
                findMatch(forward: true, includingSelected: true)
            } catch let error as TextPattern.CompileError {
                message = "search: \(error.message) at offset \(error.offset)"
            } catch {}
        case .comment:
            input = nil
            annotate { $0.comment = text.isEmpty ? nil : text }
        case .export(let selectedOnly):
            input = nil
            guard !text.isEmpty, let exporting, let request = exportRequest(to: text, selectedOnly: selectedOnly, exporting) else { return }
            message = "Exporting to \(text)…"
            exporting.start(request)
        case .goTo:
            input = nil
            guard let number = Int(text), number >= 1 else {
                message = text.isEmpty ? nil : "'\(text)' is not a packet number"
                return
            }
            guard number <= index.count else {
                message = "the capture has \(index.count) packets"
                return
            }
            list.select(packet: number - 1)
            if list.selectedPacket != number - 1 { message = "packet \(number) is not listed; the next listed one is selected" }
        }
    }

    // MARK: Filters

    /// Applies a filter expression and quick filters given on the command line; throws the
    /// FilterError or QuickFilterError the command line reports.
    public func setFilters(expression: String, quick newQuick: QuickFilters) throws {
        if !expression.isEmpty { _ = try PacketFilter(expression) }
        _ = try newQuick.filter()
        filterText = expression
        quick = newQuick
        applyFilters()
        tick()
    }

    private func toggleHidden(_ hidden: QuickFilters.HiddenClass) {
        if let at = quick.hidden.firstIndex(of: hidden) { quick.hidden.remove(at: at) } else { quick.hidden.append(hidden) }
        applyFilters()
    }

    /// A quick filter on one value of the selected packet (its device, its handle): on with
    /// that value, or off when it was on.
    private func toggle<Value>(_ filter: WritableKeyPath<QuickFilters, [Value]>, to value: Value?, lacking: String) {
        if !quick[keyPath: filter].isEmpty {
            quick[keyPath: filter] = []
        } else if let value {
            quick[keyPath: filter] = [value]
        } else {
            message = "the selected packet has no \(lacking)"
            return
        }
        applyFilters()
    }

    /// The selected packet's highest protocol (att, smp, ...), or its HCI kind.
    private func toggleType() {
        if !quick.types.isEmpty {
            quick.types = []
        } else if let packet = openPacket, let top = packet.top {
            let name = top.protocolName
            if FieldRegistry.protocols.contains(name), !["frame", "acl"].contains(name) {
                quick.types = [name]
            } else if let kind = QuickFilters.kindNames.first(where: { $0.value == packet.frame.kind })?.key {
                quick.types = [kind]
            } else {
                message = "no type filter for \(packet.typeName)"
                return
            }
        } else {
            return
        }
        applyFilters()
    }

    /// Starts a scan for the filter and quick filters in force (none: every packet listed).
    private func applyFilters() {
        scan?.cancel()
        scan = nil
        var filters: [PacketFilter] = []
        do {
            if !filterText.isEmpty { filters.append(try PacketFilter(filterText)) }
            if let quickFilter = try quick.filter() { filters.append(quickFilter) }
        } catch {
            message = "\(error)"
        }
        guard let first = filters.first else {
            if let pending = pendingSelection {
                list.replace(with: .all(count: index.count), selecting: pending.packet, offset: pending.offset)
                pendingSelection = nil
                openSelected()
                return
            }
            list.replace(with: .all(count: index.count))
            openSelected()
            return
        }
        let combined = filters.dropFirst().reduce(first, &&)
        var stages: [any PacketStage] = [FilterStage(combined)]
        // Notes first, as in show's chain, so that `flagged` and `comment` test them.
        if combined.readsAnnotations { stages.insert(annotationStage, at: 0) }
        scanReadsNotes = combined.readsAnnotations
        let newScan = MatchScan(index: index, stages: stages)
        if let packet = list.selectedPacket { pendingSelection = (packet, (list.selected ?? 0) - list.top) }
        scan = newScan
        newScan.start()
        list.replace(with: .matches(newScan.matches))
    }

    // MARK: Export

    /// The export of what the list shows (its filter and quick filters, and its notes), or of
    /// the selected packet alone, to `output` (the format from its extension, as export
    /// decides); nil when there is nothing to export.
    func exportRequest(to output: String, selectedOnly: Bool, _ exporting: BrowserExport) -> ExportRequest? {
        guard let capturePath else { return nil }
        let annotations = notes.notes.isEmpty ? nil : annotationStage
        if selectedOnly {
            guard let position = list.selectedPacket, let frame = index.frame(at: position) else {
                message = "no packet selected"
                return nil
            }
            let number = frame.number
            return exporting.request(capture: capturePath, output: output) { _ in
                (annotations.map { [$0] } ?? []) + [PacketSelection(range: number ... number)]
            }
        }
        let filterText = filterText, quick = quick
        return exporting.request(capture: capturePath, output: output) { _ in
            var filters: [PacketFilter] = []
            if !filterText.isEmpty { filters.append(try PacketFilter(filterText)) }
            if let quickFilter = try quick.filter() { filters.append(quickFilter) }
            var stages: [any PacketStage] = annotations.map { [$0] } ?? []
            if let first = filters.first { stages.append(FilterStage(filters.dropFirst().reduce(first, &&))) }
            return stages
        }
    }

    // MARK: Notes

    /// The notes as show's chain attaches them (a note whose packet differs is not shown).
    private var annotationStage: AnnotationStage {
        AnnotationStage(notes) { _, _ in }
    }

    /// A packet decoded again gets its note as the pipeline's annotation stage gives it.
    private func attachNote(to packet: inout Packet) {
        guard notes.notes[packet.frame.number] != nil else { return }
        var stage = annotationStage
        _ = stage.process(&packet, context: StageContext())
    }

    /// Which version of the notes file is there: each write renames a new file into place (a
    /// new inode), and two writes may share a modification time.
    static func modified(_ path: String) -> [Int]? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return [Int(info.st_ino), Int(info.st_size), Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec)]
    }

    /// Reads the notes file again (at start, and when another program changed it).
    private func reloadNotes() {
        guard let notesPath else { return }
        notesModified = Self.modified(notesPath)
        do {
            let document = try NotesStore.read(notesPath) ?? NotesDocument(capture: source)
            guard document != notes else { return }
            notes = document
            notesChanged()
        } catch let failure as NotesStore.Failure {
            message = failure.description
        } catch {
            message = "\(notesPath): \(error)"
        }
    }

    /// Changes the selected packet's note under the notes file's lock, as `btlog annotate`
    /// does (what another browser or `annotate` wrote meanwhile is kept).
    private func annotate(_ change: (inout PacketNote) -> Void) {
        guard let notesPath, let capturePath else {
            message = "no notes file: a live capture is annotated once written (-w FILE)"
            return
        }
        guard let position = list.selectedPacket, let frame = index.frame(at: position) else { return }
        let number = frame.number, fingerprint = PacketFingerprint(frame)
        do {
            var written: NotesDocument?
            try NotesStore.update(notesPath, capture: capturePath) { document in
                // Notes written for another capture of this name are never mixed with these.
                let frames = index
                if let foreign = document.foreignNote(path: notesPath, fingerprint: { number in
                    frames.frame(at: number - 1).flatMap { $0.number == number ? PacketFingerprint($0) : nil }
                }) {
                    throw NotesStore.Failure(description: foreign)
                }
                var note = document.notes[number] ?? PacketNote(packet: number, fingerprint: fingerprint)
                change(&note)
                document.notes[number] = note.isEmpty ? nil : note
                written = document
            }
            notesModified = Self.modified(notesPath)
            if let written {
                notes = written
                notesChanged()
                let note = written.notes[number]
                message = note == nil ? "Packet \(number): note removed" : "Packet \(number): \(note!.flagged ? "flagged" : "not flagged")\(note!.comment.map { ", comment: \($0)" } ?? "")"
            }
        } catch let failure as NotesStore.Failure {
            message = failure.description
        } catch {
            message = "\(error)"
        }
    }

    /// Rows, the open packet and a filter on notes are made again with the new notes.
    private func notesChanged() {
        rowCache.removeAll()
        openPacket = nil
        if scanReadsNotes { applyFilters() }
        openSelected()
    }

    // MARK: Search

    /// Selects the next (or previous) listed packet whose row (or a line of whose tree) the
    /// search matches, decoding a run of packets at a time from the saved Sessions.
    private func findMatch(forward: Bool, includingSelected: Bool = false) {
        guard let pattern = searchPattern else {
            message = "no search: press / to search"
            return
        }
        guard let selectedRow = list.selected else { return }
        let rows = list.rows
        var renderer = TableRenderer(options: rowOptions)
        let first = index.timestamp(at: 0)
        let step = index.interval
        var row = includingSelected ? selectedRow : selectedRow + (forward ? 1 : -1)
        let tree = searchesTree
        // The row, and with the tree scope every line of the packet's tree.
        func matches(_ packet: Packet, at position: Int) -> Bool {
            renderer.prepare(first: first, previous: position > 0 ? index.timestamp(at: position - 1) : nil, severalControllers: index.namesController(at: position))
            if pattern.matches(renderer.plainRow(packet)) { return true }
            return tree && PacketTree.anyLine(of: packet) { pattern.matches($0) }
        }
        // Rows in runs of `step`, each run's packets decoded from one saved Session.
        while row >= 0 && row < rows.count {
            let runRows = forward ? row ..< min(rows.count, row + step) : max(0, row - step + 1) ..< row + 1
            guard let low = rows.packet(atRow: runRows.lowerBound), let high = rows.packet(atRow: runRows.upperBound - 1) else { return }
            var wantedRows: [Int: Int] = [:]
            for r in runRows { if let p = rows.packet(atRow: r) { wantedRows[p] = r } }
            var hits: [Int] = []
            if high - low <= step * 8 {
                var position = low
                index.decode(low ..< high + 1, buildsDisplayText: tree) { packet in
                    defer { position += 1 }
                    if let r = wantedRows[position], matches(packet, at: position) { hits.append(r) }
                }
            } else {
                for (p, r) in wantedRows.sorted(by: { $0.key < $1.key }) {
                    index.decode(p ..< p + 1, buildsDisplayText: tree) { packet in
                        if matches(packet, at: p) { hits.append(r) }
                    }
                }
            }
            if let hit = forward ? hits.min() : hits.max() {
                list.select(row: hit)
                return
            }
            row = forward ? runRows.upperBound : runRows.lowerBound - 1
        }
        message = "\"\(pattern.source)\" not found \(forward ? "below" : "above")"
    }

    // MARK: Help

    /// Every key, for the help screen.
    public static let keyHelp: [(String, String)] = [
        ("↑ ↓  j k", "previous / next packet (tree line, bytes line)"),
        ("PgUp PgDn  b Space", "a screen up / down"),
        ("Home End  g G", "first / last"),
        ("Enter", "list: open the tree · tree: fold or unfold a layer"),
        ("← →  h l", "tree: fold / unfold · back to the list"),
        ("- +", "tree: fold / unfold every layer"),
        ("Tab  Shift-Tab", "next / previous pane (list, tree, bytes)"),
        ("f", "filter field (-f expressions; Tab completes, Enter applies, Esc cancels)"),
        ("A O E", "hide advertising · hide flow control · errors only (toggles)"),
        ("D H T", "only the selected packet's device · handle · type (toggles)"),
        ("c", "clear the filter and every toggle"),
        ("/  n N", "search the rows (a regular expression; Tab: every tree line) · next / previous match"),
        ("F  C", "flag / unflag the packet · comment on it (kept beside the capture, as btlog annotate)"),
        ("w  W", "export the listed packets · the selected packet (the format from the file's extension, as btlog export)"),
        ("s a d", "statistics · GATT databases · diagnosis of the capture, in place of the tree (Esc closes)"),
        (":", "go to a packet number"),
        ("mouse", "click selects, double-click opens or folds, wheel scrolls"),
        ("?", "this help (any key closes it)"),
        ("q  Ctrl-C", "quit"),
    ]
}
