import BTCapture

/// A line of a text protocol (AT commands, an ELM327's OBD replies): the bytes of a stream up
/// to a line end, matched by the first rule whose regular expression matches, its named groups
/// becoming fields. Lines arrive in pieces (an adapter sends "NO", " ", "D", "ATA", "\r"):
/// `DescribedState` keeps each stream's unfinished line, and the packet that ends a line
/// carries its fields.
public struct DescribedText: Sendable {
    /// The whole line, as text.
    public let lineField: FieldDefinition
    /// Bytes that end a line (default CR and LF); several in a row end one line.
    public let terminators: [UInt8]
    /// A byte that ends a reply and asks for the next command (an ELM327's '>'), shown as the
    /// prompt rather than as a line.
    public let prompt: UInt8?
    public let promptField: FieldDefinition
    public let rules: [DescribedTextRule]
    /// A summary that shows the line.
    let lineItems: [DescribedSummaryItem]

    public init(lineField: FieldDefinition, terminators: [UInt8], prompt: UInt8?, promptField: FieldDefinition, rules: [DescribedTextRule]) {
        self.lineField = lineField
        lineItems = [DescribedSummaryItem(parts: [.labelled(lineField)], condition: nil)]
        self.terminators = terminators
        self.prompt = prompt
        self.promptField = promptField
        self.rules = rules
    }
}

/// Matches a line (BTDescribe compiles the expression; BTDecode only asks).
public protocol DescribedLineMatcher: Sendable {
    /// The bounds of each group (1, 2, ...) within `line`, nil for one that took no part; nil
    /// when the line does not match.
    func groups(in line: [UInt8]) -> [Range<Int>?]?
}

public struct DescribedTextRule: Sendable {
    /// What a matching line is called in the summary ("Reply").
    public let title: String
    public let matcher: any DescribedLineMatcher
    /// Each named group: its number, its field, and how its text becomes a value.
    public let groups: [Group]
    /// A summary that shows each group's value with its label.
    let summaryItems: [DescribedSummaryItem]

    public struct Group: Sendable {
        public let number: Int
        public let field: FieldDefinition
        public let kind: Kind

        public enum Kind: Sendable {
            case text
            /// Decimal digits (a sign allowed): a number.
            case decimal
            /// Hex digits (spaces between byte pairs allowed, as an ELM327 prints them): a number.
            case hex
        }

        public init(number: Int, field: FieldDefinition, kind: Kind) {
            self.number = number
            self.field = field
            self.kind = kind
        }
    }

    public init(title: String, matcher: any DescribedLineMatcher, groups: [Group]) {
        self.title = title
        self.matcher = matcher
        self.groups = groups
        summaryItems = groups.map { DescribedSummaryItem(parts: [.labelled($0.field)], condition: nil) }
    }
}

/// Each text stream's unfinished line, by link, channel and direction.
public struct DescribedState: ProtocolState {
    public static var slot: Int { StateSlot.described.rawValue }

    struct StreamKey: Hashable {
        var link: Session.LinkKey
        /// The L2CAP CID or RFCOMM DLCI the stream travels on, with a tag telling them apart.
        var channel: UInt32
        var sent: Bool
    }

    /// Longest line kept: a stream that never ends a line does not grow without bound.
    static let longestLine = 1024

    var partial: [StreamKey: [UInt8]] = [:]

    public init() {}

    public mutating func close(_ link: Session.LinkKey) -> [String] {
        partial = partial.filter { $0.key.link != link }
        return []
    }

    public mutating func finish() -> [SessionReport] { [] }
}

extension Session {
    var described: DescribedState { _read { yield self[DescribedState.self] } _modify { yield &self[DescribedState.self] } }
}

/// Where a described protocol's bytes travel: the stream a text protocol's lines continue on.
struct DescribedStream {
    var key: DescribedState.StreamKey

    static func attribute(_ handle: UInt16, _ context: L2CAPContext) -> DescribedStream {
        DescribedStream(key: .init(link: context.link, channel: 0x1_0000 | UInt32(handle), sent: context.sent))
    }

    static func channel(_ cid: UInt16, _ context: L2CAPContext) -> DescribedStream {
        DescribedStream(key: .init(link: context.link, channel: 0x2_0000 | UInt32(cid), sent: context.sent))
    }

    static func rfcomm(_ dlci: UInt8, _ context: L2CAPContext) -> DescribedStream {
        DescribedStream(key: .init(link: context.link, channel: 0x3_0000 | UInt32(dlci), sent: context.sent))
    }
}

extension DescribedDecoder.Run {
    /// The rest of the bytes as text: lines finished by this packet decoded by the rules, an
    /// unfinished one kept for the next.
    mutating func readText(_ text: DescribedText, _ c: inout ByteCursor, _ layer: inout Layer) {
        var pending = takePending()
        let start = c.index
        let bytes = c.rest()
        let joined = !pending.isEmpty
        var lines: [(line: [UInt8], range: Range<Int>?)] = []
        var lineStart = start
        var prompted: Int?
        for index in bytes.indices {
            let byte = bytes[index]
            if text.terminators.contains(byte) || byte == text.prompt {
                if !pending.isEmpty || index > lineStart {
                    let piece = bytes[lineStart ..< index]
                    // A line begun in an earlier packet has no range of this packet's own.
                    lines.append((pending + piece, pending.isEmpty ? layer.range(at: lineStart, count: index - lineStart) : nil))
                    pending.removeAll()
                }
                if byte == text.prompt { prompted = index }
                lineStart = index + 1
            }
        }
        pending += bytes[lineStart...]
        if pending.count > DescribedState.longestLine {
            layer.addIssue(.warning, "\(described.name): a line longer than \(DescribedState.longestLine) bytes; its start is dropped")
            pending.removeFirst(pending.count - DescribedState.longestLine)
        }
        putPending(pending)
        for (line, range) in lines { readLine(text, line, range, &layer) }
        if let prompted, let prompt = text.prompt {
            layer.add(text.promptField, .bool(true), "\"\(Character(Unicode.Scalar(prompt)))\"", at: layer.range(at: prompted, count: 1))
        }
        if lines.isEmpty {
            if prompted != nil {
                title = "Prompt"
            } else if pending.isEmpty {
                // Only line ends: the end of a line an earlier packet finished, or an empty one.
                title = "Line end"
                summaryFields = []
                summaryItems = []
            } else {
                title = "Partial line"
                summaryFields = []
                summaryItems = text.lineItems
                let shown = String(decoding: pending.prefix(40), as: UTF8.self)
                summary = [DescribedDecoder.NotedValue(field: text.lineField, value: .text("\"\(shown)\"\(joined ? " (continued)" : "")"), unit: nil)]
                layer.add(text.lineField, .text(String(decoding: bytes, as: UTF8.self)), "\"\(String(decoding: bytes, as: UTF8.self))\" (the line goes on)",
                          at: layer.range(at: start, count: bytes.count))
            }
        }
    }

    mutating func readLine(_ text: DescribedText, _ line: [UInt8], _ range: Range<Int>?, _ layer: inout Layer) {
        let string = String(decoding: line, as: UTF8.self)
        layer.add(text.lineField, .text(string), "\"\(string)\"", at: range)
        for rule in text.rules {
            guard let groups = rule.matcher.groups(in: line) else { continue }
            title = rule.title
            summaryFields = rule.groups.map(\.field)
            summaryItems = rule.summaryItems
            summary.removeAll()
            for group in rule.groups {
                guard group.number - 1 < groups.count, let bounds = groups[group.number - 1],
                      bounds.lowerBound >= 0, bounds.upperBound <= line.count, !bounds.isEmpty else { continue }
                let part = line[bounds]
                let partRange = range.map { ($0.lowerBound + bounds.lowerBound) ..< ($0.lowerBound + bounds.upperBound) }
                let partText = String(decoding: part, as: UTF8.self)
                switch group.kind {
                case .text:
                    layer.add(group.field, .text(partText), at: partRange)
                    noteForSummary(group.field, .text(partText))
                case .decimal:
                    if let value = Int64(partText.trimmingWhitespace) {
                        layer.add(group.field, .signed(value), at: partRange)
                        noteForSummary(group.field, .value(.signed(value)))
                    } else {
                        layer.add(group.field, .text(partText), at: partRange)
                    }
                case .hex:
                    let digits = partText.filter { $0 != " " }
                    if !digits.isEmpty, digits.count <= 16, let value = UInt64(digits, radix: 16) {
                        layer.add(group.field, .unsigned(value, width: 0), "0x\(digits) (\(value))", at: partRange)
                        noteForSummary(group.field, .text("0x\(digits)"))
                    } else {
                        layer.add(group.field, .text(partText), at: partRange)
                    }
                }
            }
            return
        }
        summaryFields = [text.lineField]
        summaryItems = text.lineItems
        summary = [DescribedDecoder.NotedValue(field: text.lineField, value: .text("\"\(string)\""), unit: nil)]
    }
}
