import BTCapture
import BTDecode

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
                cutConversations.append("\(name): \(key.protocolName) with \(key.peer): its last \(count) step\(count == 1 ? "" : "s") not compared "
                    + "(\(ConversationLog.perConversation) steps are kept per conversation, \(ConversationLog.total) in all)")
            }
        }
    }

    /// A peer as both sides name it: "C0:FF:EE:12:34:56", or "C0:… / D1:…" when matched otherwise.
    static func label(_ peer: BDAddr?, _ other: BDAddr?) -> String {
        guard let peer else { return other?.description ?? "?" }
        guard let other, other != peer else { return peer.description }
        return "\(peer) / \(other)"
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

    /// Problems whose summary (handles, addresses and counts taken out) one side has and the other not.
    static func problems(_ a: DiffSide, _ b: DiffSide) -> [DiffItem] {
        func key(_ problem: Problem) -> String {
            var text = problem.summary
            for cut in [" on 0x", " with ", " × ", " to "] {
                if let range = text.range(of: cut) { text = String(text[..<range.lowerBound]) }
            }
            return "\(problem.severity)|\(problem.category)|\(text)"
        }
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

    // MARK: Conversations

    /// Each matched peer's conversations aligned, protocol by protocol; a conversation only one
    /// side had is a difference.
    static func conversations(_ a: DiffSide, _ b: DiffSide, _ counterpart: [BDAddr: BDAddr], ignoringValues: Bool) -> [DiffItem] {
        var items: [DiffItem] = [], comparedB = Set<ConversationKey>()
        for key in a.conversations.keys.sorted() {
            let stepsA = a.conversations[key] ?? []
            let other = counterpart[key.peer]
            let keyB = other.map { ConversationKey(peer: $0, protocolName: key.protocolName) }
            if let keyB { comparedB.insert(keyB) }
            let stepsB = keyB.flatMap { b.conversations[$0] } ?? []
            let diff = ConversationDiff(stepsA, stepsB, ignoringValues: ignoringValues)
            guard !diff.isEmpty else { continue }
            let who = "\(key.protocolName) with \(label(key.peer, other))"
            if stepsB.isEmpty {
                items.append(DiffItem(summary: "\(who): only in A (\(stepsA.count) step\(stepsA.count == 1 ? "" : "s"), first: \(Self.short(stepsA[0].step.text)))",
                                      framesA: [stepsA[0].frame], details: diff.unifiedText))
                continue
            }
            guard let first = diff.hunks.first?.firstChange else { continue }
            let what = (first.kind == .removed ? "A has " : "B has ") + Self.short(first.step.text)
            items.append(DiffItem(summary: "\(who): \(diff.removed) step\(diff.removed == 1 ? "" : "s") only in A, \(diff.added) only in B; first: \(what)",
                                  framesA: first.frameA.map { [$0] } ?? diff.nearestFrameA(to: first), framesB: first.frameB.map { [$0] } ?? diff.nearestFrameB(to: first),
                                  details: diff.unifiedText))
        }
        for key in b.conversations.keys.sorted() where !comparedB.contains(key) {
            let steps = b.conversations[key] ?? []
            guard let first = steps.first else { continue }
            items.append(DiffItem(summary: "\(key.protocolName) with \(key.peer): only in B (\(steps.count) step\(steps.count == 1 ? "" : "s"), first: \(Self.short(first.step.text)))",
                                  framesB: [first.frame], details: ConversationDiff([], steps).unifiedText))
        }
        return items
    }

    /// A step as a summary line names it: its first 100 characters (the details have it whole).
    static func short(_ text: String) -> String { text.count <= 100 ? text : String(text.prefix(99)) + "…" }

    // MARK: Devices and controllers

    /// Devices that appeared in one capture only (a named or public one each; the unnamed ones
    /// with random addresses, which change by design, only by their number), and names and
    /// address kinds that changed.
    static func devices(_ a: DiffSide, _ b: DiffSide, _ counterpart: [BDAddr: BDAddr]) -> [DiffItem] {
        var items: [DiffItem] = []
        var unmatchedB = b.report.devices
        var anonymousA = 0
        for device in a.report.devices {
            let byPeer = counterpart[device.address].flatMap { peer in unmatchedB.firstIndex { $0.address == peer } }
            let byAddress = unmatchedB.firstIndex { $0.address == device.address }
            let byName = device.name.flatMap { name in unmatchedB.firstIndex { $0.name == name } }
            guard let index = byPeer ?? byAddress ?? byName else {
                if device.name == nil && device.addressKind != "public" { anonymousA += 1; continue }
                items.append(DiffItem(summary: "device \(describe(device)): only in A"))
                continue
            }
            let other = unmatchedB.remove(at: index)
            var changes: [String] = []
            if device.name != other.name { changes.append("name \(device.name.map { "\"\($0)\"" } ?? "-") → \(other.name.map { "\"\($0)\"" } ?? "-")") }
            if device.addressKind != other.addressKind { changes.append("address \(device.addressKind) → \(other.addressKind)") }
            if !changes.isEmpty { items.append(DiffItem(summary: "device \(label(device.address, other.address)): " + changes.joined(separator: ", "))) }
        }
        var anonymousB = 0
        for device in unmatchedB {
            if device.name == nil && device.addressKind != "public" { anonymousB += 1; continue }
            items.append(DiffItem(summary: "device \(describe(device)): only in B"))
        }
        if anonymousA != anonymousB {
            items.append(DiffItem(summary: "unnamed devices with random addresses: \(anonymousA) in A, \(anonymousB) in B"))
        }
        return items
    }

    static func describe(_ device: DeviceReport) -> String {
        device.address.description + (device.name.map { " \"\($0)\"" } ?? "") + " (\(device.addressKind))"
    }

    /// What each controller returned about itself (version, features, buffers, name), controllers
    /// paired in index order.
    static func controllers(_ a: DiffSide, _ b: DiffSide) -> [DiffItem] {
        var items: [DiffItem] = []
        let indicesA = a.controllers.keys.sorted(), indicesB = b.controllers.keys.sorted()
        for (indexA, indexB) in zip(indicesA, indicesB) {
            let factsA = a.controllers[indexA] ?? [], factsB = b.controllers[indexB] ?? []
            var changes: [String] = []
            for fact in factsA {
                guard let other = factsB.first(where: { $0.command == fact.command && $0.name == fact.name }) else { continue }
                if other.text != fact.text { changes.append("\(fact.name): \(fact.text) → \(other.text)") }
            }
            let commandsA = Set(factsA.map(\.command)), commandsB = Set(factsB.map(\.command))
            for command in commandsA.subtracting(commandsB).sorted() { changes.append("\(command): only in A") }
            for command in commandsB.subtracting(commandsA).sorted() { changes.append("\(command): only in B") }
            if !changes.isEmpty {
                items.append(DiffItem(summary: "controller hci\(indexA)\(indexA == indexB ? "" : " / hci\(indexB)"): \(changes.count) value\(changes.count == 1 ? "" : "s") differ",
                                      details: changes))
            }
        }
        for index in indicesA.dropFirst(indicesB.count) { items.append(DiffItem(summary: "controller hci\(index): only in A")) }
        for index in indicesB.dropFirst(indicesA.count) { items.append(DiffItem(summary: "controller hci\(index): only in B")) }
        return items
    }

    // MARK: Connections

    /// Connections paired in order per peer: transport, role, the parameters in force at the end
    /// and how they evolved, encryption, pairing and its outcome, L2CAP channels, how the link ended.
    static func connections(_ a: DiffSide, _ b: DiffSide, _ pairs: (matched: [(Int, Int)], onlyA: [Int], onlyB: [Int]),
                            _ counterpart: [BDAddr: BDAddr]) -> [DiffItem] {
        var items: [DiffItem] = []
        for (indexA, indexB) in pairs.matched {
            let c = a.report.connections[indexA], d = b.report.connections[indexB]
            var changes: [String] = []
            func compare<T: Equatable>(_ name: String, _ x: T?, _ y: T?, _ show: (T) -> String = { "\($0)" }) {
                if x != y { changes.append("\(name) \(x.map(show) ?? "-") → \(y.map(show) ?? "-")") }
            }
            compare("transport", c.transport?.rawValue, d.transport?.rawValue)
            compare("role", c.role?.rawValue, d.role?.rawValue)
            compare("MTU", c.parameters.mtu, d.parameters.mtu)
            compare("interval", c.parameters.interval, d.parameters.interval) { "\(Double($0) * 1.25) ms" }
            compare("latency", c.parameters.latency, d.parameters.latency)
            compare("supervision timeout", c.parameters.supervisionTimeout, d.parameters.supervisionTimeout) { "\($0 * 10) ms" }
            compare("TX PHY", c.parameters.txPHY, d.parameters.txPHY) { PHYName.of($0) }
            compare("RX PHY", c.parameters.rxPHY, d.parameters.rxPHY) { PHYName.of($0) }
            compare("data length", c.parameters.maxTxOctets, d.parameters.maxTxOctets)
            compare("encrypted", c.parameters.encrypted ?? false, d.parameters.encrypted ?? false) { $0 ? "yes" : "no" }
            compare("key size", c.parameters.keySize, d.parameters.keySize)
            compare("pairing", pairing(a, c), pairing(b, d))
            compare("end", c.disconnectReason, d.disconnectReason) { FieldValueNames.name(of: UInt64($0), for: StatisticsFields.reason) ?? Hex.u8($0) }
            var details: [String] = []
            let timeline = LineDiff(c.timeline.map { ($0.frame, timelineText($0)) }, d.timeline.map { ($0.frame, timelineText($0)) })
            if !timeline.isEmpty {
                changes.append("parameter changes differ")
                details += ["parameters:"] + timeline.unifiedText
            }
            let channels = LineDiff(c.channels.map { ($0.frame, channelText($0)) } + c.refusedChannels.map { ($0.frame, refusedText($0)) },
                                    d.channels.map { ($0.frame, channelText($0)) } + d.refusedChannels.map { ($0.frame, refusedText($0)) })
            if !channels.isEmpty {
                changes.append("L2CAP channels differ")
                details += ["channels:"] + channels.unifiedText
            }
            guard !changes.isEmpty else { continue }
            items.append(DiffItem(summary: "connection to \(label(c.address, d.address)): " + changes.joined(separator: ", "),
                                  framesA: c.startFrame.map { [$0] } ?? [], framesB: d.startFrame.map { [$0] } ?? [], details: details))
        }
        items += unpaired(a.report.connections, pairs.onlyA, side: "A")
        items += unpaired(b.report.connections, pairs.onlyB, side: "B")
        return items
    }

    /// Connections one side has and the other not, one item per peer and transport (a
    /// capture that reconnected forty times is one line, with where the first three began).
    static func unpaired(_ connections: [ConnectionReport], _ indices: [Int], side: String) -> [DiffItem] {
        var groups: [(key: String, frames: [Int], count: Int)] = []
        for index in indices {
            let c = connections[index]
            let key = "\(c.address?.description ?? "?") (\(c.transport?.rawValue ?? "?"))"
            if let at = groups.firstIndex(where: { $0.key == key }) {
                groups[at].count += 1
                if let frame = c.startFrame { groups[at].frames.append(frame) }
            } else {
                groups.append((key, c.startFrame.map { [$0] } ?? [], 1))
            }
        }
        return groups.map { group in
            let what = group.count == 1 ? "connection to \(group.key): only in \(side)" : "\(group.count) connections to \(group.key): only in \(side)"
            return DiffItem(summary: what, framesA: side == "A" ? Array(group.frames.prefix(20)) : [], framesB: side == "B" ? Array(group.frames.prefix(20)) : [])
        }
    }

    /// A link's pairing: the method SMP's features chose and how it ended (failed with its
    /// reason, or the link encrypted), or a BR/EDR pairing's failure.
    static func pairing(_ side: DiffSide, _ connection: ConnectionReport) -> String? {
        let inSpan: (Int) -> Bool = { ($0 >= (connection.startFrame ?? 0)) && $0 <= (connection.endFrame ?? .max) }
        let failure = side.report.security.pairingFailures.first { $0.handle == connection.handle && $0.controller == connection.controller && inSpan($0.frame) }
        var method: String?
        if let peer = connection.address {
            for record in side.conversations[ConversationKey(peer: peer, protocolName: ConversationProtocol.smp.name)] ?? [] where inSpan(record.frame) {
                if let found = record.step.parameters.first(where: { $0.hasPrefix("method=") }) { method = String(found.dropFirst("method=".count)) }
            }
        }
        guard method != nil || failure != nil else { return nil }
        let outcome = failure.map { "failed (\(FieldValueNames.name(of: UInt64($0.reason), for: $0.source == .smp ? ConversationProtocol.field("smp.reason") : StatisticsFields.status) ?? Hex.u8($0.reason)))" }
            ?? (connection.parameters.encrypted == true ? "completed" : "no encryption followed")
        return (method.map { $0 + ", " } ?? "") + outcome
    }

    static func timelineText(_ event: ParameterEvent) -> String {
        event.event + (event.values.isEmpty ? "" : ": " + event.values.map(itemText).joined(separator: ", ")) + (event.failure.map { " (failed: \($0))" } ?? "")
    }

    static func channelText(_ channel: ChannelReport) -> String {
        var text = "\(channel.protocolName) (PSM \(Hex.u16(UInt16(truncatingIfNeeded: channel.psm)))) \(channel.mode)"
        text += ", MTU \(channel.localMTU.map(String.init) ?? "-")/\(channel.remoteMTU.map(String.init) ?? "-")"
        if channel.isCreditBased { text += ", MPS \(channel.localMPS.map(String.init) ?? "-")/\(channel.remoteMPS.map(String.init) ?? "-")" }
        return text
    }

    static func refusedText(_ refused: RefusedChannel) -> String {
        "refused\(refused.psm.map { " PSM \(Hex.u16(UInt16(truncatingIfNeeded: $0)))" } ?? ""): "
            + (L2CAPSignaling.resultName(code: refused.code, result: refused.result) ?? "result \(refused.result)") + (refused.byLocal ? " (by the local host)" : "")
    }

    static func itemText(_ item: ReportItem) -> String {
        let label = item.name.replacingOccurrences(of: "_", with: " ")
        switch item.value {
        case .count(let v): return "\(label) \(v)"
        case .milliseconds(let v): return "\(label) \(v) ms"
        case .text(let v): return "\(label) \(v)"
        case .flag(let v): return "\(label) \(v ? "on" : "off")"
        }
    }

    // MARK: GATT

    /// Each matched peer's GATT database compared tree to tree (services, characteristics with
    /// their properties, descriptors; never handles).
    static func databases(_ a: DiffSide, _ b: DiffSide, _ counterpart: [BDAddr: BDAddr]) -> [DiffItem] {
        var items: [DiffItem] = [], comparedB = Set<BDAddr>()
        for peer in a.databases.keys.sorted(by: { $0.description < $1.description }) {
            let other = counterpart[peer] ?? (b.databases[peer] != nil ? peer : nil)
            if let other { comparedB.insert(other) }
            let linesA = a.databases[peer] ?? [], linesB = other.flatMap { b.databases[$0] } ?? []
            let diff = LineDiff(linesA.map { (0, indent($0)) }, linesB.map { (0, indent($0)) }, showsFrames: false)
            guard !diff.isEmpty else { continue }
            let missing = diff.removedLines.map { $0.trimmingCharacters(in: .whitespaces) }, extra = diff.addedLines.map { $0.trimmingCharacters(in: .whitespaces) }
            var parts: [String] = []
            if linesB.isEmpty { parts.append("discovered only in A (\(linesA.count) attributes)") } else {
                if !missing.isEmpty { parts.append("only in A: " + missing.prefix(3).joined(separator: "; ") + (missing.count > 3 ? "; and \(missing.count - 3) more" : "")) }
                if !extra.isEmpty { parts.append("only in B: " + extra.prefix(3).joined(separator: "; ") + (extra.count > 3 ? "; and \(extra.count - 3) more" : "")) }
            }
            items.append(DiffItem(summary: "GATT database of \(label(peer, other)): " + parts.joined(separator: "; "), details: diff.unifiedText))
        }
        for peer in b.databases.keys.sorted(by: { $0.description < $1.description }) where !comparedB.contains(peer) {
            items.append(DiffItem(summary: "GATT database of \(peer): discovered only in B (\(b.databases[peer]!.count) attributes)"))
        }
        return items
    }

    static func indent(_ line: GATTTreeLine) -> String { String(repeating: "  ", count: line.depth) + line.text }

    // MARK: Audio

    /// A2DP streams paired in order by peer and direction: codec, configuration, media lost,
    /// bit rate (beyond the tolerance); SCO and ISO streams by kind and direction.
    static func audio(_ a: DiffSide, _ b: DiffSide, _ counterpart: [BDAddr: BDAddr], _ tolerance: DiffTolerance) -> [DiffItem] {
        var items: [DiffItem] = []
        var restB = Array(b.report.a2dpStreams.indices)
        for stream in a.report.a2dpStreams {
            let other = stream.address.flatMap { counterpart[$0] }
            let way = stream.sent ? "sent" : "received"
            guard let position = restB.firstIndex(where: { b.report.a2dpStreams[$0].sent == stream.sent && (other == nil || b.report.a2dpStreams[$0].address == other) }) else {
                items.append(DiffItem(summary: "A2DP stream \(way) to \(stream.address?.description ?? "?") (\(stream.codec ?? "?")): only in A"))
                continue
            }
            let s = b.report.a2dpStreams[restB.remove(at: position)]
            var changes: [String] = []
            if stream.codec != s.codec { changes.append("codec \(stream.codec ?? "-") → \(s.codec ?? "-")") }
            let configA = stream.configuration.map(itemText), configB = s.configuration.map(itemText)
            if configA != configB, stream.codec == s.codec { changes.append("configuration \(configA.joined(separator: ", ")) → \(configB.joined(separator: ", "))") }
            if stream.lostPackets != s.lostPackets { changes.append("RTP packets lost \(stream.lostPackets) → \(s.lostPackets) (gaps \(stream.gaps) → \(s.gaps))") }
            if let rateA = stream.bitRate, let rateB = s.bitRate, tolerance.differs(rateA, rateB, floor: 1000) {
                changes.append("bit rate \(Int(rateA / 1000)) → \(Int(rateB / 1000)) kbit/s")
            }
            guard !changes.isEmpty else { continue }
            items.append(DiffItem(summary: "A2DP stream \(way) to \(label(stream.address, s.address)): " + changes.joined(separator: ", "),
                                  framesA: stream.firstGapFrame.map { [$0] } ?? [], framesB: s.firstGapFrame.map { [$0] } ?? []))
        }
        for index in restB {
            let s = b.report.a2dpStreams[index]
            items.append(DiffItem(summary: "A2DP stream \(s.sent ? "sent" : "received") to \(s.address?.description ?? "?") (\(s.codec ?? "?")): only in B"))
        }
        var restSync = Array(b.report.synchronousStreams.indices)
        for stream in a.report.synchronousStreams {
            let way = stream.sent ? "sent" : "received"
            guard let position = restSync.firstIndex(where: { b.report.synchronousStreams[$0].kind == stream.kind && b.report.synchronousStreams[$0].sent == stream.sent }) else {
                items.append(DiffItem(summary: "\(stream.kind.rawValue) stream \(way) on \(Hex.u16(stream.handle)): only in A"))
                continue
            }
            let s = b.report.synchronousStreams[restSync.remove(at: position)]
            var changes: [String] = []
            if stream.codec != s.codec { changes.append("codec \(stream.codec ?? "-") → \(s.codec ?? "-")") }
            if stream.lost != s.lost { changes.append("lost \(stream.lost) → \(s.lost)") }
            if stream.badStatus != s.badStatus { changes.append("bad status \(stream.badStatus) → \(s.badStatus)") }
            guard !changes.isEmpty else { continue }
            items.append(DiffItem(summary: "\(stream.kind.rawValue) stream \(way): " + changes.joined(separator: ", "),
                                  framesA: stream.firstLossFrame.map { [$0] } ?? [], framesB: s.firstLossFrame.map { [$0] } ?? []))
        }
        for index in restSync {
            let s = b.report.synchronousStreams[index]
            items.append(DiffItem(summary: "\(s.kind.rawValue) stream \(s.sent ? "sent" : "received") on \(Hex.u16(s.handle)): only in B"))
        }
        return items
    }

    // MARK: Timing

    /// Set-up durations and throughput of each pair of connections, and the ATT latency of the
    /// whole capture, where they differ beyond the tolerance.
    static func timing(_ a: DiffSide, _ b: DiffSide, _ pairs: [(Int, Int)], _ tolerance: DiffTolerance) -> [DiffItem] {
        var items: [DiffItem] = []
        let floor = Double(tolerance.floor)
        func ms(_ micros: Double) -> String { String(format: "%.1f ms", micros / 1000) }
        for (indexA, indexB) in pairs {
            let c = a.report.connections[indexA], d = b.report.connections[indexB]
            let setupA = a.setups[indexA] ?? SetupTimes(), setupB = b.setups[indexB] ?? SetupTimes()
            var changes: [String] = []
            for (name, x, y) in [("to encryption", setupA.toEncryption, setupB.toEncryption),
                                 ("to discovery done", setupA.toDiscoveryDone, setupB.toDiscoveryDone),
                                 ("to first notification", setupA.toFirstNotification, setupB.toFirstNotification)] {
                switch (x, y) {
                case let (x?, y?) where tolerance.differs(Double(x), Double(y), floor: floor): changes.append("\(name) \(ms(Double(x))) → \(ms(Double(y)))")
                case (nil, let y?): changes.append("\(name) - → \(ms(Double(y)))")
                case (let x?, nil): changes.append("\(name) \(ms(Double(x))) → -")
                default: break
                }
            }
            if let rateA = throughput(c), let rateB = throughput(d), tolerance.differs(rateA, rateB, floor: 1000) {
                changes.append("throughput \(Int(rateA / 1000)) → \(Int(rateB / 1000)) kbit/s")
            }
            guard !changes.isEmpty else { continue }
            items.append(DiffItem(summary: "connection to \(label(c.address, d.address)): " + changes.joined(separator: ", "),
                                  framesA: c.startFrame.map { [$0] } ?? [], framesB: d.startFrame.map { [$0] } ?? []))
        }
        let latencyA = a.report.att.latency, latencyB = b.report.att.latency
        if let medianA = latencyA.median, let medianB = latencyB.median {
            var changes: [String] = []
            if tolerance.differs(medianA, medianB, floor: floor) { changes.append("median \(ms(medianA)) → \(ms(medianB))") }
            if let p95A = latencyA.percentile(0.95), let p95B = latencyB.percentile(0.95), tolerance.differs(Double(p95A), Double(p95B), floor: floor) {
                changes.append("p95 \(ms(Double(p95A))) → \(ms(Double(p95B)))")
            }
            if !changes.isEmpty { items.append(DiffItem(summary: "ATT response time: " + changes.joined(separator: ", "))) }
        }
        return items
    }

    /// Application bits per second over the time the link carried data (nil under a tenth of a second).
    static func throughput(_ connection: ConnectionReport) -> Double? {
        let bytes = connection.trafficSent.bytes + connection.trafficReceived.bytes
        let first = [connection.trafficSent.first, connection.trafficReceived.first].compactMap { $0 }.min()
        let last = [connection.trafficSent.last, connection.trafficReceived.last].compactMap { $0 }.max()
        guard let first, let last, bytes > 0 else { return nil }
        let span = last.saturatingSubtract(first)
        return span >= 100_000 ? Double(bytes) * 8 / (Double(span) / 1_000_000) : nil
    }
}
