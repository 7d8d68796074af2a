/// Application bytes per connection and direction in fixed time bins from the capture's
/// first packet: what `stats --throughput` tabulates, charts and plots.
public struct ThroughputSeries {
    public struct Key: Hashable, Comparable {
        /// The connection's index in `CaptureReport.connections`.
        public var connection: Int
        /// Sent by the local host (false: received from the peer).
        public var sent: Bool
        public init(connection: Int, sent: Bool) {
            self.connection = connection
            self.sent = sent
        }
        public static func < (a: Key, b: Key) -> Bool { (a.connection, a.sent ? 0 : 1) < (b.connection, b.sent ? 0 : 1) }
    }

    /// Microseconds per bin.
    public let interval: Int64
    /// The time bin 0 starts at: the first packet's.
    public private(set) var origin: Int64?
    /// Bytes per bin, for each connection and direction that carried any.
    public private(set) var bins: [Key: [Int]] = [:]
    /// The number of bins from the origin to the last packet.
    public private(set) var binCount = 0

    public init(interval: Int64) {
        precondition(interval > 0)
        self.interval = interval
    }

    /// Every packet's time extends the series (a quiet end still shows as zeros).
    mutating func see(_ time: Int64) {
        if origin == nil { origin = time }
        binCount = max(binCount, bin(of: time) + 1)
    }

    mutating func add(bytes: Int, connection: Int, sent: Bool, at time: Int64) {
        see(time)
        let index = bin(of: time)
        let key = Key(connection: connection, sent: sent)
        var values = bins.removeValue(forKey: key) ?? []
        if values.count <= index { values += repeatElement(0, count: index + 1 - values.count) }
        values[index] += bytes
        bins[key] = values
    }

    /// A packet before the first (a capture whose clock stepped back) counts in bin 0.
    func bin(of time: Int64) -> Int { Int(max(0, time - (origin ?? time)) / interval) }

    /// Kilobits per second in each bin of one series, zeros where it carried nothing.
    public func kbps(_ key: Key) -> [Double] {
        let values = bins[key] ?? []
        let seconds = Double(interval) / 1_000_000
        return (0 ..< binCount).map { $0 < values.count ? Double(values[$0]) * 8 / 1000 / seconds : 0 }
    }
}
