import BTCapture

/// What one connection achieved in the direction that carried most application data, beside
/// the ceiling its parameters allow and the first limit in the way (LE links; BR/EDR links
/// get the rate achieved only).
public struct ConnectionThroughput: Equatable {
    /// The connection's index in `CaptureReport.connections`.
    public var connection: Int
    public var sent: Bool
    public var bytes: Int
    /// Application kilobits per second over the active period: from the first to the last
    /// packet that carried data, plus one connection interval (the last event's own time).
    public var achievedKbps: Double?
    public var ceiling: LEThroughputCeiling?
    public var limit: LEThroughputCeiling.Limit?
    /// When the link ran well under its ceiling: what sets the pace instead.
    public var pace: String?

    /// The busier direction of every connection that carried application data.
    public static func assess(_ report: CaptureReport) -> [ConnectionThroughput] {
        report.connections.indices.compactMap { assess(report.connections[$0], index: $0) }
    }

    public static func assess(_ c: ConnectionReport, index: Int) -> ConnectionThroughput? {
        let sent = c.trafficSent.bytes >= c.trafficReceived.bytes
        let traffic = sent ? c.trafficSent : c.trafficReceived
        guard traffic.bytes > 0, let first = traffic.first, let last = traffic.last else { return nil }
        var result = ConnectionThroughput(connection: index, sent: sent, bytes: traffic.bytes)
        let intervalMicros = Int64(c.parameters.interval ?? 0) * 1250
        let span = last.saturatingSubtract(first).saturatingAdd(intervalMicros)
        if span > 0 { result.achievedKbps = Double(traffic.bytes * 8) / (Double(span) / 1000) }
        // An interval outside 7.5 ms to 4 s (a damaged or invented event) has no ceiling to model.
        guard c.transport == .le, let interval = c.parameters.interval, LEThroughputCeiling.intervals.contains(interval),
              let transfer = transfer(of: traffic, c, sent: sent) else {
            return result
        }
        let p = c.parameters
        let phy = LEThroughputCeiling.PHY(rawValue: (sent ? p.txPHY : p.rxPHY) ?? 1) ?? .le1M
        let ceiling = LEThroughputCeiling(interval: interval, phy: phy, dataLength: (sent ? p.maxTxOctets : p.maxRxOctets) ?? 27,
                                          mtu: p.mtu ?? 23, encrypted: p.encrypted ?? false, transfer: transfer)
        result.ceiling = ceiling
        result.limit = ceiling.firstLimit
        if let achieved = result.achievedKbps, achieved < ceiling.kbps / 2 {
            result.pace = "achieved \(LEThroughputCeiling.format(achieved)) kbps, under half the \(LEThroughputCeiling.format(ceiling.kbps)) kbps "
                + "the parameters allow: the \(sent ? "local" : "peer's") application or its controller's connection event length sets the pace, not the link parameters"
        }
        return result
    }

    /// The kind of PDU that carried most of the data one way.
    static func transfer(of traffic: TrafficKinds, _ c: ConnectionReport, sent: Bool) -> LEThroughputCeiling.Transfer? {
        let counts: [(Int, LEThroughputCeiling.Transfer?)] = [
            (traffic.notifications, .notifications), (traffic.writeCommands, .writeCommands),
            (traffic.writeRequests, .writeRequests), (traffic.indications, .indications),
            (traffic.channelPayloads, c.channels.last(where: { (sent ? $0.remoteMPS : $0.localMPS) != nil })
                .map { .creditBased(mps: (sent ? $0.remoteMPS : $0.localMPS)!) }),
        ]
        guard let best = counts.max(by: { $0.0 < $1.0 }), best.0 > 0 else { return nil }
        return best.1
    }
}
