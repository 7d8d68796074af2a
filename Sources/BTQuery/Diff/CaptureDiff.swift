import BTCapture
import BTDecode

/// What `btlog diff` keeps of one capture: the statistics report (devices, connections and their
/// parameters), its diagnosis, and each peer's ATT conversation. Memory is the collector's plus
/// the steps (a few dozen bytes each).
public struct DiffRecorder: PacketSink {
    public var statistics = StatisticsCollector()
    /// ATT steps by peer, in order (a peer's connections one after the other).
    public private(set) var conversations: [BDAddr: [ConversationRecord]] = [:]
    let values: Bool

    public init(values: Bool = true) { self.values = values }

    public mutating func consume(_ packet: Packet) throws {
        try statistics.consume(packet)
        if let peer = packet.peer, let record = ConversationRecord.of(packet, values: values) {
            conversations[peer, default: []].append(record)
        }
    }

    public mutating func finish() -> DiffSide {
        let report = statistics.finish()
        return DiffSide(report: report, problems: Diagnosis.problems(in: report), conversations: conversations)
    }
}

public struct DiffSide {
    public var report: CaptureReport
    public var problems: [Problem]
    public var conversations: [BDAddr: [ConversationRecord]]
}

/// One difference between the captures: what differs, and the packets that show it on each side.
public struct DiffItem: Equatable, Sendable {
    public var summary: String
    public var framesA: [Int]
    public var framesB: [Int]
    public var details: [String]
}

/// An aspect of the comparison (diagnosis, conversations, devices, connections) and what differs in it.
public struct DiffAspect: Equatable, Sendable {
    public var name: String
    public var items: [DiffItem]
}

/// `btlog diff`: two captures compared by meaning. Peers are matched by address, then by the
/// name they gave, then in the order their connections came; what differs is listed by aspect,
/// the most telling first: problems one capture has and the other not, each conversation's first
/// divergence, then devices and connections.
public struct CaptureDiff {
    public var aspects: [DiffAspect]
    /// Peer of A → its counterpart in B.
    public var peers: [BDAddr: BDAddr]

    public var isEmpty: Bool { aspects.allSatisfy { $0.items.isEmpty } }

    public init(_ a: DiffSide, _ b: DiffSide, ignoringValues: Bool = false) {
        peers = Self.matchPeers(a, b)
        aspects = [
            DiffAspect(name: "diagnosis", items: Self.problems(a, b, peers: peers)),
            DiffAspect(name: "conversations", items: Self.conversations(a, b, peers: peers, ignoringValues: ignoringValues)),
            DiffAspect(name: "connections", items: Self.connections(a, b, peers: peers)),
        ]
    }

    /// Peers matched: the same address; else the same name; else the n-th peer connected to in
    /// A with the n-th in B (random addresses that changed between runs).
    static func matchPeers(_ a: DiffSide, _ b: DiffSide) -> [BDAddr: BDAddr] {
        func order(_ side: DiffSide) -> [BDAddr] {
            var seen = Set<BDAddr>()
            return side.report.connections.compactMap(\.address).filter { seen.insert($0).inserted }
        }
        let peersA = order(a), peersB = order(b)
        var matched: [BDAddr: BDAddr] = [:], taken = Set<BDAddr>()
        for peer in peersA where peersB.contains(peer) { matched[peer] = peer; taken.insert(peer) }
        func name(_ side: DiffSide, _ address: BDAddr) -> String? { side.report.devices.first { $0.address == address }?.name }
        for peer in peersA where matched[peer] == nil {
            guard let wanted = name(a, peer), let other = peersB.first(where: { !taken.contains($0) && name(b, $0) == wanted }) else { continue }
            matched[peer] = other
            taken.insert(other)
        }
        let restB = peersB.filter { !taken.contains($0) }
        for (peer, other) in zip(peersA.filter { matched[$0] == nil }, restB) { matched[peer] = other }
        return matched
    }

    /// Problems whose summary (with handles and addresses taken out) one side has and the other not.
    static func problems(_ a: DiffSide, _ b: DiffSide, peers: [BDAddr: BDAddr]) -> [DiffItem] {
        func key(_ problem: Problem) -> String {
            var text = problem.summary
            if let range = text.range(of: " on 0x") { text = String(text[..<range.lowerBound]) }
            if let range = text.range(of: " with ") { text = String(text[..<range.lowerBound]) }
            if let range = text.range(of: " × ") { text = String(text[..<range.lowerBound]) }
            return "\(problem.severity)|\(problem.category)|\(text)"
        }
        let keysA = Set(a.problems.map(key)), keysB = Set(b.problems.map(key))
        var items: [DiffItem] = []
        for problem in a.problems where !keysB.contains(key(problem)) {
            items.append(DiffItem(summary: "only in A: \(problem.severity) \(problem.category.rawValue): \(problem.summary)",
                                  framesA: problem.frames, framesB: [], details: [problem.advice]))
        }
        for problem in b.problems where !keysA.contains(key(problem)) {
            items.append(DiffItem(summary: "only in B: \(problem.severity) \(problem.category.rawValue): \(problem.summary)",
                                  framesA: [], framesB: problem.frames, details: [problem.advice]))
        }
        return items
    }

    /// Each matched peer's ATT conversation aligned; a peer only one side talked to is a difference.
    static func conversations(_ a: DiffSide, _ b: DiffSide, peers: [BDAddr: BDAddr], ignoringValues: Bool) -> [DiffItem] {
        var items: [DiffItem] = []
        for peer in a.conversations.keys.sorted(by: { $0.description < $1.description }) {
            let stepsA = a.conversations[peer] ?? []
            guard let other = peers[peer] else {
                items.append(DiffItem(summary: "ATT with \(peer): only in A (\(stepsA.count) steps)", framesA: stepsA.prefix(1).map(\.frame),
                                      framesB: [], details: []))
                continue
            }
            let diff = ConversationDiff(stepsA, b.conversations[other] ?? [], ignoringValues: ignoringValues)
            guard !diff.isEmpty, let first = diff.hunks.first?.firstChange else { continue }
            let what = first.kind == .removed ? "A \(first.step.text), B not" : "B \(first.step.text), A not"
            items.append(DiffItem(summary: "ATT with \(peer)\(other == peer ? "" : " / \(other)"): \(diff.removed) step\(diff.removed == 1 ? "" : "s") only in A, \(diff.added) only in B; first: \(what)",
                                  framesA: first.frameA.map { [$0] } ?? [], framesB: first.frameB.map { [$0] } ?? [], details: diff.unifiedText))
        }
        let matchedB = Set(peers.values)
        for peer in b.conversations.keys.sorted(by: { $0.description < $1.description }) where !matchedB.contains(peer) {
            let steps = b.conversations[peer] ?? []
            items.append(DiffItem(summary: "ATT with \(peer): only in B (\(steps.count) steps)", framesA: [], framesB: steps.prefix(1).map(\.frame), details: []))
        }
        return items
    }

    /// Connections to matched peers, in order: transport, role, the parameters in force at the
    /// end, and how the link ended.
    static func connections(_ a: DiffSide, _ b: DiffSide, peers: [BDAddr: BDAddr]) -> [DiffItem] {
        var items: [DiffItem] = []
        var usedB = Set<Int>()
        for c in a.report.connections {
            guard let peer = c.address else { continue }
            guard let other = peers[peer],
                  let index = b.report.connections.indices.first(where: { !usedB.contains($0) && b.report.connections[$0].address == other }) else {
                items.append(DiffItem(summary: "connection to \(peer): only in A", framesA: c.startFrame.map { [$0] } ?? [], framesB: [], details: []))
                continue
            }
            usedB.insert(index)
            let d = b.report.connections[index]
            var changes: [String] = []
            func compare<T: Equatable>(_ name: String, _ x: T?, _ y: T?, _ show: (T) -> String = { "\($0)" }) {
                if x != y { changes.append("\(name): \(x.map(show) ?? "-") → \(y.map(show) ?? "-")") }
            }
            compare("transport", c.transport?.rawValue, d.transport?.rawValue)
            compare("role", c.role?.rawValue, d.role?.rawValue)
            compare("MTU", c.parameters.mtu, d.parameters.mtu)
            compare("interval", c.parameters.interval, d.parameters.interval) { "\(Double($0) * 1.25) ms" }
            compare("latency", c.parameters.latency, d.parameters.latency)
            compare("supervision timeout", c.parameters.supervisionTimeout, d.parameters.supervisionTimeout) { "\($0 * 10) ms" }
            compare("TX PHY", c.parameters.txPHY, d.parameters.txPHY) { PHYName.of($0) }
            compare("data length", c.parameters.maxTxOctets, d.parameters.maxTxOctets)
            compare("encrypted", c.parameters.encrypted, d.parameters.encrypted)
            compare("key size", c.parameters.keySize, d.parameters.keySize)
            compare("end reason", c.disconnectReason, d.disconnectReason) { FieldValueNames.name(of: UInt64($0), for: StatisticsFields.reason) ?? Hex.u8($0) }
            guard !changes.isEmpty else { continue }
            items.append(DiffItem(summary: "connection to \(peer)\(other == peer ? "" : " / \(other)"): " + changes.joined(separator: ", "),
                                  framesA: c.startFrame.map { [$0] } ?? [], framesB: d.startFrame.map { [$0] } ?? [], details: []))
        }
        for (index, d) in b.report.connections.enumerated() where !usedB.contains(index) {
            items.append(DiffItem(summary: "connection to \(d.address?.description ?? "?"): only in B", framesA: [], framesB: d.startFrame.map { [$0] } ?? [], details: []))
        }
        return items
    }
}
