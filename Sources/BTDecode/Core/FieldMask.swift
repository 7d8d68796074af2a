import Foundation

/// What the layers of a packet keep (`DecodeOptions.keptFields`): every field, or only those a
/// view and its stages read; and their summaries, or not when nothing will print or search one
/// (`--fields`, CSV without a summary column, a packet a filter will drop). A field no one
/// reads is still read from the bytes (the decoder needs the value: lengths, state, the
/// summary) but not stored: no Field made, copied and destroyed; a summary no one reads is not
/// written (`SummaryText`'s `+=` does not even format its text). Each layer keeps its first
/// field whatever the mask says (a layer named after a record takes its protocol from it).
///
/// A mask is a bit per field identity, interned: every mask with the same bits is one buffer,
/// allocated once and never freed, so a Layer holds it without reference counting.
public struct FieldMask: Equatable, @unchecked Sendable { // its words are never written after they are interned, nor freed
    /// nil: every field.
    private let words: UnsafeBufferPointer<UInt64>?
    /// Whether layers write their summaries (every layer's for the tree, the top one's for the
    /// table: `Packet.setSummaryIfShown`). The Session is the same either way: no decoder keeps
    /// state from its summary.
    public let keepsSummaries: Bool

    public static let all = FieldMask(words: nil, keepsSummaries: true)

    private init(words: UnsafeBufferPointer<UInt64>?, keepsSummaries: Bool) {
        self.words = words
        self.keepsSummaries = keepsSummaries
    }

    /// Only these fields (and every layer's first); summaries only if `summaries`.
    public static func only<S: Sequence>(_ definitions: S, summaries: Bool = false) -> FieldMask where S.Element == FieldDefinition {
        var bits: [UInt64] = []
        for definition in definitions {
            let id = definition.id
            let word = id >> 6
            if bits.count <= word { bits += Array(repeating: 0, count: word + 1 - bits.count) }
            bits[word] |= 1 << UInt64(id & 63)
        }
        return FieldMask(words: Interned.words(bits), keepsSummaries: summaries)
    }

    /// This mask's fields, and summaries too.
    public var withSummaries: FieldMask { FieldMask(words: words, keepsSummaries: true) }

    /// This mask's fields, and no summary.
    public var withoutSummaries: FieldMask { FieldMask(words: words, keepsSummaries: false) }

    public var keepsAll: Bool { words == nil }

    @inline(__always)
    public func keeps(_ definition: FieldDefinition) -> Bool {
        guard let words else { return true }
        let id = definition.id, word = id >> 6
        return word < words.count && words[word] & (1 << UInt64(id & 63)) != 0
    }

    /// Both masks' fields, and summaries if either keeps them.
    public func union(_ other: FieldMask) -> FieldMask {
        let summaries = keepsSummaries || other.keepsSummaries
        guard let words, let others = other.words else { return FieldMask(words: nil, keepsSummaries: summaries) }
        var bits = Array(words)
        if bits.count < others.count { bits += Array(repeating: 0, count: others.count - bits.count) }
        for (index, word) in others.enumerated() { bits[index] |= word }
        return FieldMask(words: Interned.words(bits), keepsSummaries: summaries)
    }

    public static func == (a: FieldMask, b: FieldMask) -> Bool {
        a.words?.baseAddress == b.words?.baseAddress && a.keepsSummaries == b.keepsSummaries
    }

    private enum Interned {
        static let lock = NSLock()
        nonisolated(unsafe) static var table: [[UInt64]: UnsafeBufferPointer<UInt64>] = [:]

        static func words(_ bits: [UInt64]) -> UnsafeBufferPointer<UInt64> {
            lock.lock()
            defer { lock.unlock() }
            if let known = table[bits] { return known }
            let storage = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: max(1, bits.count))
            _ = storage.initialize(from: bits.isEmpty ? [0] : bits)
            let words = UnsafeBufferPointer(rebasing: UnsafeBufferPointer(storage)[0 ..< bits.count])
            table[bits] = words
            return words
        }
    }
}
