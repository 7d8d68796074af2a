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
    public internal(set) var list: PacketListState
    public internal(set) var tree = TreeState()
    /// The selected packet, decoded with its display text (the tree's).
    public internal(set) var openPacket: Packet?
    public internal(set) var focus = Pane.list
    /// The text field being edited, if any.
    public internal(set) var input: InputLine?
    /// The filter expression applied (empty: none) and the quick filters.
    /// The filter in force and its quick toggles, compiled once.
    var filters = FilterState()
    public var filterText: String { filters.text }
    public var quick: QuickFilters { filters.quick }
    /// What is wrong with the filter being typed, shown with a caret under the field.
    public internal(set) var inputError: FilterError?
    /// The filter being typed, compiled as it was typed (Enter applies it).
    var inputFilter: (text: String, filter: PacketFilter)?
    /// The scan of the filter applied; nil when every packet is listed.
    public internal(set) var scan: MatchScan?
    /// The search applied (n and N find its next and previous match; rows it matches are marked).
    var search = SearchState()
    public var searchPattern: TextPattern? { search.pattern }
    public var searchesTree: Bool { search.inTree }
    /// A line for the user: what a key did, a search that found nothing, a completion's choices.
    public internal(set) var message: String?
    public internal(set) var showsHelp = false
    /// A whole-capture report shown in place of the tree and bytes (s, a, d), and its first line on screen.
    public internal(set) var report: CaptureReports?
    public internal(set) var reportTop = 0
    public internal(set) var quits = false
    /// The bytes pane's first line on screen.
    public internal(set) var bytesTop = 0
    /// The screen's size, as the last resize said.
    public internal(set) var width: Int
    public internal(set) var height: Int

    var rowCache: [Int: Row] = [:]
    /// Exports what the list shows (set by the command line, which knows how the capture is
    /// read and decoded); nil: nothing to export from.
    public var exporting: BrowserExport?
    /// The capture's notes, their file and the capture they are about.
    var notesPart: NotesPart
    public var notes: NotesDocument { notesPart.document }
    /// Where the notes are kept; nil: the browser cannot annotate (a live capture not written to a file).
    public var notesPath: String? { notesPart.path }
    /// The capture the notes are about (what `btlog annotate` is given).
    var capturePath: String? { notesPart.capturePath }
    /// The packet selected when a new filter started, and its row on screen: selected again
    /// once the filter's scan has decided on it (until then the matches found so far are listed).
    var pendingSelection: (packet: Int, offset: Int)?
    /// Whether the filter applied tests notes (`flagged`, `comment`): a change of notes runs it again.
    var scanReadsNotes = false

    /// `notesPath`: the capture's notes file (`NotesStore.path`), read now and written by F and
    /// C; `capturePath` the capture it is about.
    public init(index: PacketIndex, loader: CaptureLoader?, source: String, timeMode: TimeFormatter.Mode = .abs,
                follows: Bool = false, width: Int = 80, height: Int = 24, notesPath: String? = nil, capturePath: String? = nil,
                flagMark: String = "⚑") {
        notesPart = NotesPart(path: notesPath, capturePath: capturePath, capture: source)
        self.flagMark = flagMark
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

    public internal(set) var layout = Layout(listTop: 1, listHeight: 1, treeTop: 3, treeHeight: 1, bytesTop: 5, bytesHeight: 1,
                                           statusRow: 6, inputRow: 7)

    func layOut() {
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
        if notesPart.changedOnDisk { reloadNotes() }
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

    func openSelected() {
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

    /// Decodes the packets at `indices` (ascending) again and keeps their rows.
    func fillRows(_ indices: [Int]) {
        var renderer = TableRenderer(options: rowOptions)
        let first = index.timestamp(at: 0)
        index.decode(positions: indices, buildsDisplayText: false) { position, packet in
            renderer.prepare(first: first, previous: position > 0 ? index.timestamp(at: position - 1) : nil,
                             severalControllers: index.namesController(at: position))
            attachNote(to: &packet)
            rowCache[position] = Row(text: renderer.plainRow(packet), tint: Style.Tint(for: packet),
                                     comment: packet.comment, flagged: packet.flagged)
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
}
