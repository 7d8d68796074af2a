import BTCapture
import BTDecode

/// Captures merged into one timeline: which links of different sources carried the same
/// PDUs (one connection, a name on each side), and the latency from one host's HCI to the
/// other's, per link and direction. Read from each received PDU's match (`FrameOrigin.match`).
struct MergeTracker {
    private var latencies: [SourceLink: Distribution] = [:]
    private var order: [SourceLink] = []

    mutating func see(_ packet: Packet) {
        guard let origin = packet.frame.origin, let match = origin.match, !match.isSender else { return }
        let link = SourceLink(from: LinkEnd(source: match.sourceName, controller: match.controller, handle: match.handle),
                              to: LinkEnd(source: origin.name, controller: origin.controller, handle: packet.handle ?? 0))
        if latencies[link] == nil { order.append(link) }
        latencies[link, default: Distribution()].add(match.latency)
    }

    func finish() -> [SourceLatency] {
        order.map { SourceLatency(link: $0, latency: latencies[$0]!) }
    }
}
