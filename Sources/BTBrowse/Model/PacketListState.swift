/// Which packets the list shows, in order: every packet of the capture, or those a scan kept.
public enum PacketRows: Equatable, Sendable {
    /// The first `count` packets (the capture as far as it is loaded).
    case all(count: Int)
    /// The packets at these indices (0-based, ascending): a filter's matches.
    case matches([Int32])

    public var count: Int {
        switch self {
        case .all(let count): return count
        case .matches(let indices): return indices.count
        }
    }

    /// The packet (its index in the capture) on `row`.
    public func packet(atRow row: Int) -> Int? {
        guard row >= 0, row < count else { return nil }
        switch self {
        case .all: return row
        case .matches(let indices): return Int(indices[row])
        }
    }

    /// The row of the packet at `index`, or of the first packet after it that the rows hold.
    func row(ofPacketAtOrAfter index: Int) -> Int? {
        switch self {
        case .all(let count): return count == 0 ? nil : min(max(0, index), count - 1)
        case .matches(let indices):
            guard !indices.isEmpty else { return nil }
            // The first match at or after `index`: binary search over the ascending indices.
            var low = 0, high = indices.count
            while low < high {
                let middle = (low + high) / 2
                if Int(indices[middle]) < index { low = middle + 1 } else { high = middle }
            }
            return min(low, indices.count - 1)
        }
    }
}

/// Where the user is in the packet list, knowing nothing of terminals: the rows, the selected
/// row, the first row on screen and how many rows the screen holds. Every change keeps the
/// selection on screen; the list follows new packets only while the last row is selected (the
/// user reading older packets is never moved).
public struct PacketListState: Equatable, Sendable {
    public private(set) var rows: PacketRows
    /// The selected row; nil when there are no rows.
    public private(set) var selected: Int?
    /// The first row on screen.
    public private(set) var top = 0
    /// Rows the screen shows (one to a million).
    public private(set) var height: Int
    /// A capture followed as it grows (`--follow`, a live capture), rather than a file loading.
    public var followsNewRows = false

    /// Heights a screen can have: one row to a million (no arithmetic on rows can overflow).
    static func screenHeight(_ height: Int) -> Int { min(max(1, height), 1 << 20) }

    public init(rows: PacketRows = .all(count: 0), height: Int) {
        self.rows = rows
        self.height = Self.screenHeight(height)
        selected = rows.count > 0 ? 0 : nil
    }

    /// The rows on screen.
    public var visibleRows: Range<Int> { top ..< min(rows.count, top + height) }

    /// The packet (its index in the capture) of the selected row.
    public var selectedPacket: Int? { selected.flatMap(rows.packet(atRow:)) }

    public var isOnLastRow: Bool { selected != nil && selected == rows.count - 1 }

    /// Moves the selection by `delta` rows (negative: up), stopping at either end.
    public mutating func move(by delta: Int) {
        guard let row = selected else { return }
        select(row: row.addingReportingOverflow(delta).overflow ? (delta < 0 ? 0 : rows.count - 1) : row + delta)
    }

    /// A screen down: the selection and the screen both move by its height, as a pager does.
    public mutating func pageDown() {
        guard let row = selected else { return }
        let last = rows.count - 1
        top = min(max(0, rows.count - height), top + height)
        select(row: min(last, row + height))
    }

    public mutating func pageUp() {
        guard let row = selected else { return }
        top = max(0, top - height)
        select(row: max(0, row - height))
    }

    public mutating func home() { select(row: 0) }
    public mutating func end() { select(row: rows.count - 1) }

    /// Selects `row` (clamped to the rows) and scrolls only as far as needed to show it.
    public mutating func select(row: Int) {
        guard rows.count > 0 else {
            selected = nil
            top = 0
            return
        }
        let row = min(max(0, row), rows.count - 1)
        selected = row
        if row < top { top = row }
        if row >= top + height { top = row - height + 1 }
        top = min(top, max(0, rows.count - height))
    }

    /// Selects the row of the packet at `index` (0-based), or the first row after it.
    public mutating func select(packet index: Int) {
        guard let row = rows.row(ofPacketAtOrAfter: index) else { return }
        select(row: row)
    }

    /// The screen's new height: the selection stays on screen.
    public mutating func resize(height newHeight: Int) {
        height = Self.screenHeight(newHeight)
        if let row = selected { select(row: row) } else { top = 0 }
    }

    /// More rows of the same list: the capture is still loading or followed, a scan found more
    /// matches. The selection stays; in a followed capture (`followsNewRows`), a selection on
    /// the last row moves on to the new last row.
    public mutating func grow(to newRows: PacketRows) {
        let following = followsNewRows && (isOnLastRow || selected == nil)
        rows = newRows
        if following { end() } else { select(row: selected ?? 0) }
    }

    /// Other rows: a new filter, or none. The same packet stays selected, at the same place on
    /// screen when it can; the first packet after it when the new rows lack it.
    public mutating func replace(with newRows: PacketRows) {
        replace(with: newRows, selecting: selectedPacket, offset: selected.map { $0 - top } ?? 0)
    }

    /// Other rows, with the packet at `packet` (or the first after it) selected `offset` rows
    /// below the screen's top (a filter's matches, once its scan has reached that packet).
    public mutating func replace(with newRows: PacketRows, selecting packet: Int?, offset: Int) {
        rows = newRows
        guard newRows.count > 0 else {
            selected = nil
            top = 0
            return
        }
        guard let packet, let row = newRows.row(ofPacketAtOrAfter: packet) else {
            select(row: 0)
            return
        }
        top = max(0, row - offset)
        select(row: row)
    }
}
