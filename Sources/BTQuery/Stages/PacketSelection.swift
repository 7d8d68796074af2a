import BTDecode

/// Which packets by number: `--packets 10-20` and `-c/--count N`, the first stage of the chain.
public struct PacketSelection: Sendable {
    public var range: ClosedRange<Int>?
    public var count: Int?
    /// Packets kept so far, for `count`.
    var kept = 0

    public init(range: ClosedRange<Int>? = nil, count: Int? = nil) {
        self.range = range
        self.count = count
    }

    /// Parses "10-20", "10-" (to the end), "-20" (from the start) or "15" (one packet).
    public static func parseRange(_ text: String) -> ClosedRange<Int>? {
        let parts = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        if parts.count == 1 { return Int(parts[0]).flatMap { $0 >= 1 ? $0 ... $0 : nil } }
        if parts[0].isEmpty && parts[1].isEmpty { return nil }
        let low = parts[0].isEmpty ? 1 : Int(parts[0])
        let high = parts[1].isEmpty ? Int.max : Int(parts[1])
        guard let low, let high, low >= 1, low <= high else { return nil }
        return low ... high
    }

    /// Whether a frame number is in the range (every frame is still decoded: state spans packets).
    public func includes(number: Int) -> Bool { range?.contains(number) ?? true }

    /// True once no later packet can be selected, so reading can stop.
    public func isExhausted(afterNumber number: Int, shown: Int) -> Bool {
        if let count, shown >= count { return true }
        if let range, number >= range.upperBound { return true }
        return false
    }
}
