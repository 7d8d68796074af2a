import BTCapture
import BTDecode
import BTQuery

/// The two captures' links: connections paired per peer and transport, their parameters,
/// pairing, channels and timing.
extension CaptureDiff {
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
            compare("end", c.disconnectReason, d.disconnectReason) { FieldValueNames.name(of: UInt64($0), for: HCIFields.reason) ?? Hex.u8($0) }
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
            for record in side.conversations[ConversationKey(peer: peer, protocolName: SMPFields.conversation.name)] ?? [] where inSpan(record.frame) {
                if let found = record.step.parameters.first(where: { $0.hasPrefix("method=") }) { method = String(found.dropFirst("method=".count)) }
            }
        }
        guard method != nil || failure != nil else { return nil }
        let outcome = failure.map { "failed (\(FieldValueNames.name(of: UInt64($0.reason), for: $0.source == .smp ? SMPFields.reason : HCIFields.status) ?? Hex.u8($0.reason)))" }
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
