/// Application bytes per connection and direction in fixed time bins from the capture's
/// first packet: what `stats --throughput` tabulates, charts and plots. Each series keeps only
/// the bins from its first data to its last, so a long capture of many short links costs
/// what their traffic spans, not links × capture length.
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

    /// One series: bytes per bin from `first`.
    public struct Bins: Equatable {
        public var first: Int
        public var bytes: [Int]
        public var total: Int
        /// One past the last bin with data.
        public var end: Int { first + bytes.count }
    }

    /// Microseconds per bin.
    public let interval: Int64
    /// The time bin 0 starts at: the first packet's.
    public private(set) var origin: Int64?
    public private(set) var bins: [Key: Bins] = [:]
    /// The number of bins from the origin to the last packet.
    public private(set) var binCount = 0

    /// At most this many bins from the origin: a record whose time is years from the others'
    /// (a damaged or mutated capture) must not size an allocation. Records past it are left
    /// out of the series and counted, with the first of them named.
    public static let maxBins = 200_000
    public private(set) var outliers = 0
    public private(set) var firstOutlier: (frame: Int, time: Int64)?

    public init(interval: Int64) {
        precondition(interval > 0)
        self.interval = interval
    }

    /// Every packet's time extends the series (a quiet end still shows as zeros), unless it
    /// lies past the last bin the series may have.
    mutating func see(_ time: Int64, frame: Int) {
        if origin == nil { origin = time }
        let index = bin(of: time)
        guard index < Self.maxBins else {
            outliers += 1
            if firstOutlier == nil { firstOutlier = (frame, time) }
            return
        }
        binCount = max(binCount, index + 1)
    }

    mutating func add(bytes: Int, connection: Int, sent: Bool, at time: Int64) {
        let index = bin(of: time)
        guard index < Self.maxBins else { return }
        let key = Key(connection: connection, sent: sent)
        var series = bins.removeValue(forKey: key) ?? Bins(first: index, bytes: [], total: 0)
        if index < series.first {
            // A packet out of time order (a clock stepped back): the series starts earlier.
            series.bytes.insert(contentsOf: repeatElement(0, count: series.first - index), at: 0)
            series.first = index
        }
        let offset = index - series.first
        if series.bytes.count <= offset { series.bytes += repeatElement(0, count: offset + 1 - series.bytes.count) }
        series.bytes[offset] += bytes
        series.total += bytes
        bins[key] = series
    }

    /// A packet before the first (a capture whose clock stepped back) counts in bin 0.
    func bin(of time: Int64) -> Int { Int(max(0, time.saturatingSubtract(origin ?? time)) / interval) }

    /// Kilobits per second in each bin from `from` to `to` (default: the whole capture), zeros
    /// where the series carried nothing.
    public func kbps(_ key: Key, from: Int = 0, to: Int? = nil) -> [Double] {
        let end = to ?? binCount
        guard end > from else { return [] }
        let seconds = Double(interval) / 1_000_000
        var values = [Double](repeating: 0, count: end - from)
        if let series = bins[key] {
            for (offset, bytes) in series.bytes.enumerated() where series.first + offset >= from && series.first + offset < end {
                values[series.first + offset - from] = Double(bytes) * 8 / 1000 / seconds
            }
        }
        return values
    }

    /// The series that carried most, largest first, at most `limit`.
    public func busiest(_ limit: Int) -> [Key] {
        Array(bins.sorted { $0.value.total != $1.value.total ? $0.value.total > $1.value.total : $0.key < $1.key }.prefix(limit).map(\.key))
    }
}
