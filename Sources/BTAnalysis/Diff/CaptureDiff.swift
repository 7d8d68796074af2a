import BTCapture
import BTDecode
import BTQuery

/// One difference between the captures: what differs, and the packets that show it on each side.
public struct DiffItem: Equatable, Sendable {
    public var summary: String
    public var framesA: [Int]
    public var framesB: [Int]
    /// Lines that show it: a `diff -u` of a conversation, a timeline or a database.
    public var details: [String]

    public init(summary: String, framesA: [Int] = [], framesB: [Int] = [], details: [String] = []) {
        self.summary = summary
        self.framesA = framesA
        self.framesB = framesB
        self.details = details
    }
}

/// An aspect of the comparison (diagnosis, conversations, devices...) and what differs in it.
public struct DiffAspect: Equatable, Sendable {
    public var name: String
    public var items: [DiffItem]
}

/// A peer of A and its counterpart in B, and what matched them.
public struct PeerMatch: Equatable, Sendable {
    public enum Basis: String, Sendable { case address, identity, name, order }
    public var a: BDAddr
    public var b: BDAddr
    public var basis: Basis
}

/// What counts as a difference in the timing aspect.
public struct DiffTolerance: Equatable, Sendable {
    /// Relative: 0.2 means two durations differ when one is more than 20% off the larger.
    public var ratio: Double
    /// Durations and latencies closer than this (microseconds) never differ: a few milliseconds
    /// are a connection event, not a change.
    public var floor: Int64

    public init(ratio: Double = 0.2, floor: Int64 = 10_000) {
        self.ratio = ratio
        self.floor = floor
    }

    func differs(_ a: Double, _ b: Double, floor: Double) -> Bool {
        abs(a - b) > max(floor, ratio * max(abs(a), abs(b)))
    }
}

/// `btlog diff`: two captures compared by meaning. Peers are matched by address, then by the
/// name they gave, then in the order their connections came (random addresses that changed
/// between runs); what differs is listed by aspect, the most telling first: problems one
/// capture has and the other not, each conversation's first divergence, then devices and
/// controllers, connections, GATT databases, audio streams and timing.
public struct CaptureDiff {
    public var aspects: [DiffAspect]
    public var peers: [PeerMatch]
    /// Conversations cut at the log's limits on either side (compared up to them).
    public var cutConversations: [String] = []

    public static let aspectNames = ["diagnosis", "conversations", "devices", "connections", "gatt", "audio", "timing"]

    public var isEmpty: Bool { aspects.allSatisfy { $0.items.isEmpty } }
    public var differences: Int { aspects.reduce(0) { $0 + $1.items.count } }

    public init(_ a: DiffSide, _ b: DiffSide, ignoringValues: Bool = false, tolerance: DiffTolerance = DiffTolerance()) {
        peers = Self.matchPeers(a, b)
        let counterpart = Dictionary(peers.map { ($0.a, $0.b) }, uniquingKeysWith: { first, _ in first })
        let pairs = Self.pairConnections(a, b, counterpart)
        aspects = [
            DiffAspect(name: "diagnosis", items: Self.problems(a, b)),
            DiffAspect(name: "conversations", items: Self.conversations(a, b, counterpart, ignoringValues: ignoringValues)),
            DiffAspect(name: "devices", items: Self.devices(a, b, counterpart) + Self.controllers(a, b)),
            DiffAspect(name: "connections", items: Self.connections(a, b, pairs, counterpart)),
            DiffAspect(name: "gatt", items: Self.databases(a, b, counterpart)),
            DiffAspect(name: "audio", items: Self.audio(a, b, counterpart, tolerance)),
            DiffAspect(name: "timing", items: Self.timing(a, b, pairs.matched, tolerance)),
        ]
        for (name, side) in [("A", a), ("B", b)] {
            for (key, count) in side.conversations.notKept.sorted(by: { $0.key < $1.key }) {
                cutConversations.append("\(name): \(key.protocolName) with \(UnnamedPeer.name(key.peer)): its last \(count) step\(count == 1 ? "" : "s") not compared "
                    + "(\(ConversationLog.perConversation) steps are kept per conversation, \(ConversationLog.total) in all)")
            }
        }
    }

    /// A peer as both sides name it: "C0:FF:EE:12:34:56", or "C0:… / D1:…" when matched otherwise.
    static func label(_ peer: BDAddr?, _ other: BDAddr?) -> String {
        guard let peer else { return other.map(UnnamedPeer.name) ?? "?" }
        guard let other, other != peer else { return UnnamedPeer.name(peer) }
        return "\(UnnamedPeer.name(peer)) / \(UnnamedPeer.name(other))"
    }

    // MARK: Peers

    /// Peers matched: the same address; else the same identity address (resolvable private
    /// addresses that rotated, the identity SMP distributed); else the same name; else the n-th
    /// peer connected to in A with the n-th left in B.
    static func matchPeers(_ a: DiffSide, _ b: DiffSide) -> [PeerMatch] {
        func order(_ side: DiffSide) -> [BDAddr] {
            var seen = Set<BDAddr>(), peers: [BDAddr] = []
            for address in side.report.connections.compactMap(\.address) + side.conversations.keys.map(\.peer).sorted(by: { $0.description < $1.description })
            where seen.insert(address).inserted { peers.append(address) }
            return peers
        }
        let peersA = order(a), peersB = order(b)
        var matches: [PeerMatch] = [], taken = Set<BDAddr>()
        for peer in peersA where peersB.contains(peer) {
            matches.append(PeerMatch(a: peer, b: peer, basis: .address))
            taken.insert(peer)
        }
        for peer in peersA where !matches.contains(where: { $0.a == peer }) {
            guard let identity = a.identities[peer],
                  let other = peersB.first(where: { !taken.contains($0) && b.identities[$0] == identity }) else { continue }
            matches.append(PeerMatch(a: peer, b: other, basis: .identity))
            taken.insert(other)
        }
        func name(_ side: DiffSide, _ address: BDAddr) -> String? { side.report.devices.first { $0.address == address }?.name }
        for peer in peersA where !matches.contains(where: { $0.a == peer }) {
            guard let wanted = name(a, peer), let other = peersB.first(where: { !taken.contains($0) && name(b, $0) == wanted }) else { continue }
            matches.append(PeerMatch(a: peer, b: other, basis: .name))
            taken.insert(other)
        }
        let restA = peersA.filter { peer in !matches.contains { $0.a == peer } }
        for (peer, other) in zip(restA, peersB.filter { !taken.contains($0) }) {
            matches.append(PeerMatch(a: peer, b: other, basis: .order))
        }
        return matches.sorted { peersA.firstIndex(of: $0.a)! < peersA.firstIndex(of: $1.a)! }
    }

    /// Connections paired in order per matched peer and transport (indices into each report's
    /// connections): a dual-mode device's BR/EDR link is never compared with its LE one.
    static func pairConnections(_ a: DiffSide, _ b: DiffSide, _ counterpart: [BDAddr: BDAddr]) -> (matched: [(Int, Int)], onlyA: [Int], onlyB: [Int]) {
        var matched: [(Int, Int)] = [], onlyA: [Int] = [], usedB = Set<Int>()
        for (index, c) in a.report.connections.enumerated() {
            // A link whose peer the capture never named (an ISO link, a baseband piconet) pairs
            // with the next such link of B on the same transport.
            let other = c.address.flatMap { counterpart[$0] }
            guard c.address == nil || other != nil,
                  let partner = b.report.connections.indices.first(where: {
                      !usedB.contains($0) && b.report.connections[$0].address == other && b.report.connections[$0].transport == c.transport
                  }) else {
                onlyA.append(index)
                continue
            }
            usedB.insert(partner)
            matched.append((index, partner))
        }
        return (matched, onlyA, b.report.connections.indices.filter { !usedB.contains($0) })
    }

    // MARK: Diagnosis

    /// Problems whose kind one side has and the other not: the summary without the link it
    /// happened on (" on 0x0040 C0:FF:..."), the device (" with ..."), how often (" × 3") and
    /// its numbers ("lost 1 RTP packet" and "lost 5 RTP packets" are the same problem, more of
    /// it; "Response to Write Request" and "to Read Request" are two).
    static func problemKey(_ problem: Problem) -> String {
        var text = problem.summary
        for cut in [" on 0x", " with ", " × "] {
            if let range = text.range(of: cut) { text = String(text[..<range.lowerBound]) }
        }
        var words: [String] = []
        for word in text.split(separator: " ").map(String.init) {
            if word.contains(where: \.isNumber), !word.contains("0x"), !word.contains(where: \.isLetter) || word.hasSuffix("%") {
                words.append("#")
                continue
            }
            // The unit after a number, in the singular: "5 RTP packets", "2 times", "3 glitches:".
            var stem = Substring(word), punctuation = ""
            while let last = stem.last, ":,;.)".contains(last) { punctuation = String(last) + punctuation; stem.removeLast() }
            if words.last == "#" || words.dropLast().last == "#" {
                if stem.hasSuffix("ches") || stem.hasSuffix("shes") || stem.hasSuffix("xes") { stem.removeLast(2) } else if stem.hasSuffix("s") { stem.removeLast() }
            }
            words.append(String(stem) + punctuation)
        }
        return "\(problem.severity)|\(problem.category)|" + words.joined(separator: " ")
    }

    static func problems(_ a: DiffSide, _ b: DiffSide) -> [DiffItem] {
        let key = problemKey
        let keysA = Set(a.problems.map(key)), keysB = Set(b.problems.map(key))
        var items: [DiffItem] = []
        for problem in a.problems where !keysB.contains(key(problem)) {
            items.append(DiffItem(summary: "only in A: \(problem.severity) \(problem.category.rawValue): \(problem.summary)",
                                  framesA: problem.frames, details: [problem.advice]))
        }
        for problem in b.problems where !keysA.contains(key(problem)) {
            items.append(DiffItem(summary: "only in B: \(problem.severity) \(problem.category.rawValue): \(problem.summary)",
                                  framesB: problem.frames, details: [problem.advice]))
        }
        return items
    }
}
