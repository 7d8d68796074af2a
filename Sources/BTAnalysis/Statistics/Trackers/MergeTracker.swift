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
                              to: LinkEnd(source: origin.name, controller: origin.controller, handle: Self.handle(packet)))
        if latencies[link] == nil { order.append(link) }
        latencies[link, default: Distribution()].add(match.latency)
    }

    /// The ACL header's handle (the packet's own, which a decoder may have left unset).
    static func handle(_ packet: Packet) -> UInt16 {
        if let handle = packet.handle { return handle }
        let bytes = packet.frame.bytes
        guard bytes.count >= 2 else { return 0 }
        return (UInt16(bytes[bytes.startIndex]) | UInt16(bytes[bytes.startIndex + 1]) << 8) & 0x0FFF
    }

    func finish() -> [SourceLatency] {
        order.map { SourceLatency(link: $0, latency: latencies[$0]!) }
    }
}
