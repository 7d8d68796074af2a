import BTCapture
import BTDecode
import BTAnalysis
import BTQuery

/// What `btlog diff` names each capture by.
public struct DiffInput: Sendable {
    public var file: String
    public var packets: Int

    public init(file: String, packets: Int) {
        self.file = file
        self.packets = packets
    }
}

/// `btlog diff`: the ranked summary (one line per difference, diagnosis and each
/// conversation's first divergence first), then each aspect's details (`diff -u` hunks with
/// both captures' packet numbers).
public struct DiffReport: ReportRenderer {
    let diff: CaptureDiff
    let a: DiffInput, b: DiffInput
    let style: Style

    public init(_ diff: CaptureDiff, a: DiffInput, b: DiffInput, style: Style) {
        self.diff = diff
        self.a = a
        self.b = b
        self.style = style
    }

    public func render(to out: OutputWriter) throws {
        for line in lines { try out.line(line) }
    }

    public var lines: [String] {
        var lines = ["A: \(a.file) (\(a.packets) packet\(a.packets == 1 ? "" : "s"))", "B: \(b.file) (\(b.packets) packet\(b.packets == 1 ? "" : "s"))"]
        for peer in diff.peers where peer.basis != .address {
            lines.append("peer \(UnnamedPeer.name(peer.a)) in A is \(UnnamedPeer.name(peer.b)) in B (matched by \(Self.basis(peer.basis)))")
        }
        for note in diff.cutConversations { lines.append("note: " + note) }
        lines.append("")
        guard !diff.isEmpty else {
            lines.append("No differences.")
            return lines
        }
        let count = diff.differences
        lines.append(style.paint("\(count) difference\(count == 1 ? "" : "s"):", Style.bold))
        var rank = 0
        for aspect in diff.aspects {
            for item in aspect.items {
                rank += 1
                lines.append("\(String(rank).leftPadded(to: 3)). \(aspect.name): \(item.summary)\(Self.frames(item))")
            }
        }
        for aspect in diff.aspects where aspect.items.contains(where: { !$0.details.isEmpty }) {
            lines.append("")
            lines.append(style.paint("== \(aspect.name)", Style.bold))
            for item in aspect.items where !item.details.isEmpty {
                lines.append(item.summary)
                for detail in item.details { lines.append("  " + paint(detail)) }
            }
        }
        return lines
    }

    static func basis(_ basis: PeerMatch.Basis) -> String {
        switch basis {
        case .address: return "address"
        case .identity: return "identity address"
        case .name: return "name"
        case .order: return "order of connection"
        }
    }

    /// "  [A #12, B #14]": where to look on each side.
    static func frames(_ item: DiffItem) -> String {
        var parts: [String] = []
        if !item.framesA.isEmpty { parts.append("A " + item.framesA.prefix(3).map { "#\($0)" }.joined(separator: " ")) }
        if !item.framesB.isEmpty { parts.append("B " + item.framesB.prefix(3).map { "#\($0)" }.joined(separator: " ")) }
        return parts.isEmpty ? "" : "  [" + parts.joined(separator: ", ") + "]"
    }

    func paint(_ line: String) -> String {
        if line.hasPrefix("-") { return style.paint(line, Style.red) }
        if line.hasPrefix("+") { return style.paint(line, Style.green) }
        if line.hasPrefix("@@") { return style.paint(line, Style.cyan) }
        return line
    }
}

/// `btlog diff --stat`: one line per aspect, then the total.
public struct DiffStatReport: ReportRenderer {
    let diff: CaptureDiff

    public init(_ diff: CaptureDiff) { self.diff = diff }

    public func render(to out: OutputWriter) throws {
        for aspect in diff.aspects {
            let n = aspect.items.count
            try out.line(aspect.name.rightPadded(to: 14) + (n == 0 ? "same" : "\(n) difference\(n == 1 ? "" : "s")"))
        }
        try out.line("total".rightPadded(to: 14) + "\(diff.differences) difference\(diff.differences == 1 ? "" : "s")")
    }
}

/// `btlog diff --json`: one document (docs/diff.schema.json).
public struct DiffJSON: ReportRenderer {
    public static let schemaVersion = 1
    let diff: CaptureDiff
    let a: DiffInput, b: DiffInput

    public init(_ diff: CaptureDiff, a: DiffInput, b: DiffInput) {
        self.diff = diff
        self.a = a
        self.b = b
    }

    struct Document: Encodable {
        var schemaVersion: Int
        var a: Input, b: Input
        var peers: [Peer]
        var differences: Int
        var aspects: [Aspect]
        var notCompared: [String]
    }
    struct Input: Encodable { var file: String; var packets: Int }
    struct Peer: Encodable { var a: String; var b: String; var matchedBy: String }
    struct Aspect: Encodable { var name: String; var differences: Int; var items: [Item] }
    struct Item: Encodable { var summary: String; var framesA: [Int]; var framesB: [Int]; var details: [String] }

    var document: Document {
        Document(schemaVersion: Self.schemaVersion, a: Input(file: a.file, packets: a.packets), b: Input(file: b.file, packets: b.packets),
                 peers: diff.peers.map { Peer(a: UnnamedPeer.name($0.a), b: UnnamedPeer.name($0.b), matchedBy: $0.basis.rawValue) },
                 differences: diff.differences,
                 aspects: diff.aspects.map { aspect in
                     Aspect(name: aspect.name, differences: aspect.items.count,
                            items: aspect.items.map { Item(summary: $0.summary, framesA: $0.framesA, framesB: $0.framesB, details: $0.details) })
                 },
                 notCompared: diff.cutConversations)
    }

    public func render(to out: OutputWriter) throws {
        var json = JSONWriter(writingTo: out)
        try JSONWriterEncoder().encode(document, into: &json)
        try json.finish()
    }

    public var text: String { JSONWriterEncoder().text(of: document) }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
    fileprivate func rightPadded(to width: Int) -> String { count >= width ? self + " " : self + String(repeating: " ", count: width - count) }
}
