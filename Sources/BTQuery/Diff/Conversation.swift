import BTCapture
import BTDecode

/// One ATT operation as `btlog diff` compares two runs of a scenario: what was done to which
/// characteristic, with the value, never a handle, a time or a transaction label (they differ
/// between runs that behave the same).
public struct ConversationStep: Hashable, Sendable {
    /// The opcode's name ("Write Request", "Handle Value Notification").
    public var operation: String
    /// The characteristic by the name (or UUID) discovery gave it; the UUID a discovery request
    /// asks for; empty for operations on no attribute (Exchange MTU).
    public var target: String
    /// The value written, read or notified; nil when values are ignored (`--ignore values`).
    public var value: [UInt8]?
    /// The value's length, compared even when the value is not.
    public var length: Int

    public init(operation: String, target: String, value: [UInt8]?, length: Int) {
        self.operation = operation
        self.target = target
        self.value = value
        self.length = length
    }

    /// The step with its value left out of the comparison.
    public var withoutValue: ConversationStep { ConversationStep(operation: operation, target: target, value: nil, length: length) }

    /// How a line of the diff shows it.
    public var text: String {
        var text = operation
        if !target.isEmpty { text += "  " + target }
        if let value, !value.isEmpty { text += "  " + Hex.bytes(value.prefix(24)) + (value.count > 24 ? " ... (\(value.count) bytes)" : "") }
        else if value == nil, length > 0 { text += "  (\(length) bytes)" }
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

    /// The ATT step a decoded packet carries, if it carries one (its ATT layer read by field).
    public static func of(_ packet: Packet, values: Bool = true) -> ConversationRecord? {
        guard let att = packet.layers.last(where: { $0.kind == .att }),
              let opcode = att.fields.first(where: { $0.definition == ATTFields.opcode }) else { return nil }
        let operation = opcode.text.components(separatedBy: " (0x").first ?? opcode.text
        var target = ""
        if let characteristic = att.fields.first(where: { $0.definition == GATTFields.characteristic }) {
            target = characteristic.text
        } else if let uuid = att.fields.first(where: { $0.definition == ATTFields.uuid }) {
            target = uuid.text
        }
        var bytes: [UInt8] = []
        for field in att.fields where field.definition == ATTFields.value {
            if case .bytes(let value) = field.value { bytes += value }
        }
        return ConversationRecord(frame: packet.frame.number,
                                  step: ConversationStep(operation: operation, target: target, value: values ? bytes : nil, length: bytes.count))
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
    public var unifiedText: [String] {
        var lines: [String] = []
        for hunk in hunks {
            let framesA = hunk.lines.compactMap(\.frameA), framesB = hunk.lines.compactMap(\.frameB)
            func span(_ frames: [Int]) -> String { frames.isEmpty ? "-" : frames.count == 1 ? "#\(frames[0])" : "#\(frames.first!)-#\(frames.last!)" }
            lines.append("@@ A \(span(framesA)) B \(span(framesB)) @@")
            for line in hunk.lines {
                let mark = line.kind == .same ? " " : line.kind == .removed ? "-" : "+"
                let a = line.frameA.map { "#\($0)" } ?? "", b = line.frameB.map { "#\($0)" } ?? ""
                lines.append("\(mark) \(a.padded(to: 7)) \(b.padded(to: 7)) \(line.step.text)")
            }
        }
        return lines
    }
}

extension String {
    /// Padded with spaces to `width` characters (never cut).
    fileprivate func padded(to width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
