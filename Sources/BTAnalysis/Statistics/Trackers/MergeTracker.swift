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
        // PDUs only: a link's events matched across sources (LE Connection Complete and
        // CONNECT_IND, Disconnect and Disconnection Complete) align clocks, but their delay is
        // the procedure's, not the data's.
        guard packet.frame.kind == .aclData || packet.frame.kind.isAir && packet.layers.contains(where: { $0.kind == .l2cap }) else { return }
        // An air capture's own end: its link's access address, where the decoder kept it.
        let ownAddress = packet.frame.kind.isAir ? packet.value(of: LinkLayerFields.accessAddress)?.integer.map { UInt32(truncatingIfNeeded: $0) } : nil
        let link = SourceLink(from: LinkEnd(source: match.sourceName, controller: match.controller, handle: match.handle, accessAddress: match.accessAddress),
                              to: LinkEnd(source: origin.name, controller: origin.controller, handle: packet.handle ?? 0, accessAddress: ownAddress))
        if latencies[link] == nil { order.append(link) }
        latencies[link, default: Distribution()].add(match.latency)
    }

    func finish() -> [SourceLatency] {
        order.map { SourceLatency(link: $0, latency: latencies[$0]!) }
    }
}
