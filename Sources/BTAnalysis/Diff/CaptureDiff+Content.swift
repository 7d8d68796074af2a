import BTCapture
import BTDecode
import BTQuery

/// What the two captures' devices said and did: their conversations, who they were, their
/// GATT databases, their audio streams.
extension CaptureDiff {
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
            items.append(DiffItem(summary: "\(key.protocolName) with \(UnnamedPeer.name(key.peer)): only in B (\(steps.count) step\(steps.count == 1 ? "" : "s"), first: \(Self.short(first.step.text)))",
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
}
