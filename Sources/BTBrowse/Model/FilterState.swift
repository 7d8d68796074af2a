import BTQuery

/// The filter in force: the expression (typed, or given on the command line), the quick
/// toggles, and what they compile to. Compiled once each time either changes, for the scan
/// that runs it; an export, on a thread of its own, compiles its own (a compiled filter keeps
/// scratch space for one thread at a time).
struct FilterState {
    private(set) var text = ""
    private(set) var quick = QuickFilters()
    /// The expression and the quick filters combined; nil: every packet is listed.
    private(set) var compiled: PacketFilter?

    var isEmpty: Bool { text.isEmpty && quick.isEmpty }

    /// A new expression, already compiled (the input line compiles it as it is typed; nil for
    /// an empty one), with the quick filters as they are.
    mutating func set(text: String, expression: PacketFilter?) throws {
        try set(text: text, expression: expression, quick: quick)
    }

    mutating func set(text: String, expression: PacketFilter?, quick newQuick: QuickFilters) throws {
        compiled = try Self.combine(expression, newQuick)
        self.text = text
        quick = newQuick
    }

    /// New quick filters, with the expression as it is (compiled once again with them).
    mutating func set(quick newQuick: QuickFilters) throws {
        compiled = try Self.combine(text.isEmpty ? nil : PacketFilter(text), newQuick)
        quick = newQuick
    }

    /// Changes the quick filters in place; a toggle that does not compile leaves them as they were.
    mutating func changeQuick(_ change: (inout QuickFilters) -> Void) throws {
        var changed = quick
        change(&changed)
        try set(quick: changed)
    }

    mutating func clear() {
        text = ""
        quick = QuickFilters()
        compiled = nil
    }

    /// A compilation of its own, for another thread.
    func compiledAnew() throws -> PacketFilter? {
        try Self.combine(text.isEmpty ? nil : PacketFilter(text), quick)
    }

    static func combine(_ expression: PacketFilter?, _ quick: QuickFilters) throws -> PacketFilter? {
        let parts = [expression, try quick.filter()].compactMap { $0 }
        guard let first = parts.first else { return nil }
        return parts.dropFirst().reduce(first, &&)
    }
}
