import BTDecode
import DequeModule

/// A search over the text a view prints for each packet (its row, its tree, its hex dump):
/// a packet matches when any of its lines does, as grep reads lines. `invert` is grep -v.
public struct TextSearch {
    public let pattern: TextPattern
    public let invert: Bool

    public init(pattern: TextPattern, invert: Bool = false) {
        self.pattern = pattern
        self.invert = invert
    }

    /// Whether rendered text (lines ending in newlines) is selected.
    public func selects(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        var found = false
        TextSearch.forEachLine(text) { line in
            if pattern.matches(line) { found = true; return false }
            return true
        }
        return found != invert
    }

    /// Each line without its newline, until `body` returns false.
    public static func forEachLine(_ text: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Bool) {
        var start = 0
        while start < text.count {
            var end = start
            while end < text.count && text[end] != 0x0A { end += 1 }
            if !body(UnsafeBufferPointer(rebasing: text[start ..< end])) { return }
            start = end + 1
        }
    }
}

/// grep's context (-A, -B, -C) over a sequence of packets: which to print, which of those
/// matched, and where a `--` separates groups that are not adjacent. Counted in packets that
/// passed the filters, as grep counts lines.
public struct SearchContext {
    public let before: Int
    public let after: Int
    /// The texts of the last `before` packets not printed yet.
    private var held: Deque<(index: Int, text: [UInt8])> = []
    private var afterRemaining = 0
    private var lastPrinted: Int?
    private var index = 0

    public enum Output {
        case separator
        case packet(text: UnsafeBufferPointer<UInt8>, matched: Bool)
    }

    /// `printedBefore`: an earlier file printed something, so this one's first group is
    /// separated from it (as grep does across files).
    public init(before: Int, after: Int, printedBefore: Bool = false) {
        self.before = before
        self.after = after
        separatesFirstGroup = printedBefore
    }

    private var separatesFirstGroup: Bool

    /// Whether a separator goes between groups: only when context was asked for.
    var separates: Bool { before > 0 || after > 0 }

    /// One packet's text and whether it matched; calls `emit` for what to print now.
    public mutating func add(_ text: UnsafeBufferPointer<UInt8>, matched: Bool, emit: (Output) throws -> Void) rethrows {
        defer { index += 1 }
        if matched {
            if separates, let last = lastPrinted, (held.first?.index ?? index) > last + 1 { try emit(.separator) }
            if separates, lastPrinted == nil, separatesFirstGroup { try emit(.separator) }
            for entry in held {
                try entry.text.withUnsafeBufferPointer { try emit(.packet(text: $0, matched: false)) }
            }
            held.removeAll(keepingCapacity: true)
            try emit(.packet(text: text, matched: true))
            lastPrinted = index
            afterRemaining = after
        } else if afterRemaining > 0 {
            try emit(.packet(text: text, matched: false))
            lastPrinted = index
            afterRemaining -= 1
        } else if before > 0 {
            if held.count == before { held.removeFirst() }
            held.append((index, Array(text)))
        }
    }

    /// Whether packets after a last match are still wanted (trailing context after -m).
    public var wantsTrailingContext: Bool { afterRemaining > 0 }

    /// Whether anything was printed.
    public var printedAny: Bool { lastPrinted != nil }
}
