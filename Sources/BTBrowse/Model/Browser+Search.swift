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

/// The search applied: its pattern, and whether it reads every line of each packet's tree (as
/// `grep -V`) or the row alone.
struct SearchState {
    var pattern: TextPattern?
    var inTree = false
}

/// The search: the next or previous listed packet whose row (or tree) matches.
extension Browser {
    /// Selects the next (or previous) listed packet whose row (or a line of whose tree) the
    /// search matches, decoding a run of packets at a time from the saved Sessions.
    func findMatch(forward: Bool, includingSelected: Bool = false) {
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
            guard rows.packet(atRow: runRows.lowerBound) != nil, rows.packet(atRow: runRows.upperBound - 1) != nil else { return }
            var wantedRows: [Int: Int] = [:]
            for r in runRows { if let p = rows.packet(atRow: r) { wantedRows[p] = r } }
            var hits: [Int] = []
            index.decode(positions: wantedRows.keys.sorted(), buildsDisplayText: tree) { position, packet in
                if let r = wantedRows[position], matches(packet, at: position) { hits.append(r) }
            }
            if let hit = forward ? hits.min() : hits.max() {
                list.select(row: hit)
                return
            }
            row = forward ? runRows.upperBound : runRows.lowerBound - 1
        }
        message = "\"\(pattern.source)\" not found \(forward ? "below" : "above")"
    }
}
