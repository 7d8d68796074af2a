import BTCapture
import BTDecode
import BTQuery

/// One step of a conversation as `btlog diff` compares two runs of a scenario: what was done
/// (an ATT operation on a characteristic, an SMP command with its features, an AT command...),
/// never a handle, a channel, a time or a transaction label: they differ between runs that
/// behave the same.
public struct ConversationStep: Hashable, Sendable {
    /// The operation's name ("Write Request", "Pairing Request", "AT+BRSF=959").
    public var operation: String
    /// ATT: the characteristic by the name (or UUID) discovery gave it, or the UUID a discovery
    /// request asks for; empty for other protocols and operations on no attribute.
    public var target: String
    /// The operation's other parameters, "name=value", in the order the packet has them.
    public var parameters: [String]
    /// What a value compares by (a 64-bit FNV-1a of its bytes; nil when values are ignored),
    /// and the first bytes for the reader: the whole value is never kept, so memory stays
    /// bounded whatever a capture notifies.
    public var valueDigest: UInt64?
    public var valuePreview: [UInt8]
    /// The value's length, compared even when the value is not.
    public var length: Int
    /// The value is text (an AT command's parameters), shown as text rather than hex.
    public var valueIsText = false

    public static let previewLength = 24

    public init(operation: String, target: String = "", parameters: [String] = [], value: [UInt8]?, length: Int? = nil, valueIsText: Bool = false) {
        self.operation = operation
        self.valueIsText = valueIsText
        self.target = target
        self.parameters = parameters
        valueDigest = value.map(FNV1a.hash)
        valuePreview = Array((value ?? []).prefix(Self.previewLength))
        self.length = length ?? value?.count ?? 0
    }

    /// The step with its value left out of the comparison.
    public var withoutValue: ConversationStep {
        var step = self
        step.valueDigest = nil
        step.valuePreview = []
        return step
    }

    /// How a line of the diff shows it.
    public var text: String {
        var text = operation
        if !target.isEmpty { text += "  " + target }
        if !parameters.isEmpty { text += "  " + parameters.joined(separator: ", ") }
        if valueDigest != nil, !valuePreview.isEmpty {
            text += "  " + (valueIsText ? "\"" + String(decoding: valuePreview, as: UTF8.self) + "\"" : Hex.bytes(valuePreview[...])) + (length > valuePreview.count ? " ... (\(length) bytes)" : "")
        } else if valueDigest == nil, length > 0 {
            text += "  (\(length) byte\(length == 1 ? "" : "s"))"
        }
        return text
    }
}

/// A step and the packet it came from.
public struct ConversationRecord: Equatable, Sendable {
    public var frame: Int
    public var step: ConversationStep

    public init(frame: Int, step: ConversationStep) {
        self.frame = frame
        self.step = step
    }

    /// The ATT step a decoded packet carries, if it carries one.
    public static func of(_ packet: Packet, values: Bool = true) -> ConversationRecord? {
        steps(of: packet, values: values).first { $0.protocolName == ATTFields.conversation.name }?.record
    }

    /// Every conversation step a decoded packet carries, with the protocol each belongs to
    /// (an RFCOMM frame carrying an AT command gives none for RFCOMM and one for HFP).
    public static func steps(of packet: Packet, values: Bool = true) -> [(protocolName: String, record: ConversationRecord)] {
        var steps: [(String, ConversationRecord)] = []
        for layer in packet.layers {
            guard let conversation = ConversationDescription.of(layer), let step = conversation.step(of: layer, values: values) else { continue }
            steps.append((conversation.name, ConversationRecord(frame: packet.frame.number, step: step)))
        }
        return steps
    }
}

/// Two conversations aligned as `diff -u` aligns lines, by Swift's `CollectionDifference`
/// (Myers' algorithm): the steps both runs took, those only the first took (`-`), those only
/// the second took (`+`), grouped in hunks with context around each change.
public struct ConversationDiff: Equatable, Sendable {
    public enum Kind: Equatable, Sendable { case same, removed, added }

    public struct Line: Equatable, Sendable {
        public var kind: Kind
        /// The packet in the first capture (nil for an added line) and in the second (nil for a removed one).
        public var frameA: Int?
        public var frameB: Int?
        public var step: ConversationStep
    }

    public struct Hunk: Equatable, Sendable {
        public var lines: [Line]
        /// The first differing line's packets: what the summary ranks ("first divergence").
        public var firstChange: Line? { lines.first { $0.kind != .same } }
    }

    public var hunks: [Hunk]
    /// Steps the two runs share, and those only one took.
    public var same = 0, removed = 0, added = 0

    public var isEmpty: Bool { removed == 0 && added == 0 }

    /// Aligns `b` against `a`; values are compared unless `ignoringValues`.
    public init(_ a: [ConversationRecord], _ b: [ConversationRecord], ignoringValues: Bool = false, context: Int = 3) {
        let keysA = a.map { ignoringValues ? $0.step.withoutValue : $0.step }
        let keysB = b.map { ignoringValues ? $0.step.withoutValue : $0.step }
        let difference = keysB.difference(from: keysA)
        var removedOffsets = Set<Int>(), insertedOffsets = Set<Int>()
        for change in difference {
            switch change {
            case .remove(let offset, _, _): removedOffsets.insert(offset)
            case .insert(let offset, _, _): insertedOffsets.insert(offset)
            }
        }
        // The edit script in order: a removal before an insertion at the same place, as diff does.
        var script: [Line] = []
        var i = 0, j = 0
        while i < a.count || j < b.count {
            if i < a.count, removedOffsets.contains(i) {
                script.append(Line(kind: .removed, frameA: a[i].frame, frameB: nil, step: a[i].step))
                i += 1
            } else if j < b.count, insertedOffsets.contains(j) {
                script.append(Line(kind: .added, frameA: nil, frameB: b[j].frame, step: b[j].step))
                j += 1
            } else if i < a.count, j < b.count {
                script.append(Line(kind: .same, frameA: a[i].frame, frameB: b[j].frame, step: a[i].step))
                i += 1
                j += 1
            } else {
                // Unreachable for a consistent difference; stop rather than loop.
                break
            }
        }
        same = script.filter { $0.kind == .same }.count
        removed = removedOffsets.count
        added = insertedOffsets.count
        hunks = Self.hunks(script, context: context)
    }

    /// Changed lines with up to `context` unchanged lines around them; changes closer than
    /// twice the context share a hunk.
    static func hunks(_ script: [Line], context: Int) -> [Hunk] {
        let changed = script.indices.filter { script[$0].kind != .same }
        guard let first = changed.first else { return [] }
        var ranges: [ClosedRange<Int>] = []
        var start = max(0, first - context), end = min(script.count - 1, first + context)
        for index in changed.dropFirst() {
            if index - context <= end + 1 {
                end = min(script.count - 1, index + context)
            } else {
                ranges.append(start ... end)
                start = max(0, index - context)
                end = min(script.count - 1, index + context)
            }
        }
        ranges.append(start ... end)
        return ranges.map { Hunk(lines: Array(script[$0])) }
    }

    /// The hunks as `diff -u` prints them, with each side's packet numbers.
    public var unifiedText: [String] { unifiedText(showsFrames: true) }

    /// The hunks as `diff -u` prints them; `showsFrames` false for lines no packet carries
    /// (a database's tree).
    public func unifiedText(showsFrames: Bool) -> [String] {
        var lines: [String] = []
        for hunk in hunks {
            let framesA = hunk.lines.compactMap(\.frameA), framesB = hunk.lines.compactMap(\.frameB)
            func span(_ frames: [Int]) -> String { frames.isEmpty ? "-" : frames.count == 1 ? "#\(frames[0])" : "#\(frames.first!)-#\(frames.last!)" }
            lines.append(showsFrames ? "@@ A \(span(framesA)) B \(span(framesB)) @@" : "@@")
            for line in hunk.lines {
                let mark = line.kind == .same ? " " : line.kind == .removed ? "-" : "+"
                if showsFrames {
                    let a = line.frameA.map { "#\($0)" } ?? "", b = line.frameB.map { "#\($0)" } ?? ""
                    lines.append("\(mark) \(a.padded(to: 7)) \(b.padded(to: 7)) \(line.step.text)")
                } else {
                    lines.append("\(mark) \(line.step.text)")
                }
            }
        }
        return lines
    }

    /// For a line only B has: A's step in its place when the same run of changes has one (A did
    /// that step otherwise: another value, another outcome), else A's step just before it
    /// (where A went another way). The packet a report cites must show the difference.
    func nearestFrameA(to line: Line) -> [Int] { counterpart(of: line, \Line.frameA, in: .removed) }

    /// For a line only A has: B's step in its place, else B's step just before it.
    func nearestFrameB(to line: Line) -> [Int] { counterpart(of: line, \Line.frameB, in: .added) }

    private func counterpart(of line: Line, _ frame: KeyPath<Line, Int?>, in kind: Kind) -> [Int] {
        let all = hunks.flatMap(\.lines)
        guard let index = all.firstIndex(of: line) else { return [] }
        // The run of changed lines around it: a replaced step is removed and added there.
        var start = index, end = index
        while start > all.startIndex, all[start - 1].kind != .same { start -= 1 }
        while end + 1 < all.endIndex, all[end + 1].kind != .same { end += 1 }
        if let replaced = all[start ... end].first(where: { $0.kind == kind })?[keyPath: frame] { return [replaced] }
        return all[..<index].last { $0[keyPath: frame] != nil }?[keyPath: frame].map { [$0] } ?? []
    }
}

/// Lines of text (a link's parameter changes, its channels, a database's tree) aligned as
/// conversations are.
struct LineDiff {
    let diff: ConversationDiff
    let showsFrames: Bool

    init(_ a: [(Int, String)], _ b: [(Int, String)], showsFrames: Bool = true) {
        func records(_ lines: [(Int, String)]) -> [ConversationRecord] {
            lines.map { ConversationRecord(frame: $0.0, step: ConversationStep(operation: $0.1, value: nil)) }
        }
        diff = ConversationDiff(records(a), records(b))
        self.showsFrames = showsFrames
    }

    var isEmpty: Bool { diff.isEmpty }
    var unifiedText: [String] { diff.unifiedText(showsFrames: showsFrames) }
    var removedLines: [String] { diff.hunks.flatMap(\.lines).filter { $0.kind == .removed }.map(\.step.operation) }
    var addedLines: [String] { diff.hunks.flatMap(\.lines).filter { $0.kind == .added }.map(\.step.operation) }
}

extension String {
    /// Padded with spaces to `width` characters (never cut).
    fileprivate func padded(to width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
