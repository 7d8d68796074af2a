/// Samples of one quantity (response times, RSSI), summarised as min, median, p95 and max
/// with memory that does not grow with the capture: every sample is kept exactly up to
/// `exactLimit`, then they are folded into a log-linear histogram whose buckets are less
/// than 1 % wide (a value is reported as its bucket's middle).
///
/// A value below 256 in magnitude (an RSSI, a small count) has a bucket of its own, so the
/// histogram holds such samples exactly: a distribution of nothing else moves there from
/// `compactAfter` samples on, and back to the list should a wider value arrive before
/// `exactLimit`. It reports the same either way, in a few kilobytes instead of half a megabyte
/// (a capture of 5 million packets had 54 advertisers with 65,536 RSSI samples each).
///
/// The median is the middle sample (the mean of the two middle ones for an even count); a
/// percentile is by nearest rank: the smallest sample with at least that share of the
/// samples at or below it.
public struct Distribution: Sendable {
    public static let exactLimit = 65_536
    public static let compactAfter = 1_024

    public private(set) var count = 0
    public private(set) var minimum: Int64 = .max
    public private(set) var maximum: Int64 = .min
    public private(set) var sum: Int64 = 0
    private var samples: [Int64] = []
    /// Bucket → samples in it, once there were more than `exactLimit` (or `compactAfter`, all
    /// of them with a bucket of their own).
    private var buckets: [Int64: Int]?
    /// Every sample so far has a bucket of its own: the histogram holds them exactly.
    private var onlyOwnBuckets = true

    public init() {}

    public var isEmpty: Bool { count == 0 }

    public mutating func add(_ value: Int64) {
        count += 1
        minimum = min(minimum, value)
        maximum = max(maximum, value)
        sum &+= value
        let ownBucket = Self.hasOwnBucket(value)
        if buckets != nil {
            if ownBucket || !onlyOwnBuckets || count > Self.exactLimit {
                buckets![Self.bucket(of: value), default: 0] += 1
                return
            }
            // Folded early, and now a value the histogram would round: back to the list.
            unfold()
        }
        if !ownBucket { onlyOwnBuckets = false }
        samples.append(value)
        if samples.count > Self.exactLimit || (onlyOwnBuckets && samples.count >= Self.compactAfter) { fold() }
    }

    /// Whether a value's bucket holds that value alone (its middle is the value).
    static func hasOwnBucket(_ value: Int64) -> Bool { value > -256 && value < 256 }

    private mutating func fold() {
        var folded: [Int64: Int] = [:]
        for sample in samples { folded[Self.bucket(of: sample), default: 0] += 1 }
        buckets = folded
        samples = []
    }

    /// The samples back out of a histogram whose buckets each held one value.
    private mutating func unfold() {
        guard let folded = buckets else { return }
        samples.reserveCapacity(count)
        for (bucket, times) in folded { samples += repeatElement(Self.middle(of: bucket), count: times) }
        buckets = nil
        onlyOwnBuckets = false
    }

    public var mean: Double? { count == 0 ? nil : Double(sum) / Double(count) }

    /// The middle sample, or the mean of the two middle ones.
    public var median: Double? {
        guard count > 0 else { return nil }
        if count % 2 == 1 { return Double(sample(rank: count / 2 + 1)) }
        return (Double(sample(rank: count / 2)) + Double(sample(rank: count / 2 + 1))) / 2
    }

    /// Nearest rank: the smallest sample with at least `share` (0...1) of the samples at or below it.
    public func percentile(_ share: Double) -> Int64? {
        guard count > 0 else { return nil }
        let rank = min(count, max(1, Int((share * Double(count)).rounded(.up))))
        return sample(rank: rank)
    }

    /// The sample at this 1-based rank in ascending order (a bucket's middle once folded).
    private func sample(rank: Int) -> Int64 {
        guard let buckets else { return samples.sorted()[rank - 1] }
        var seen = 0
        for key in buckets.keys.sorted() {
            seen += buckets[key]!
            if seen >= rank { return Swift.min(maximum, Swift.max(minimum, Self.middle(of: key))) }
        }
        return maximum
    }

    /// Values below 256 have a bucket each; above, 128 buckets per power of two (under 0.8 %
    /// wide). Negative values mirror positive ones.
    static func bucket(of value: Int64) -> Int64 {
        if value < 0 { return -bucket(of: value == .min ? .max : -value) - 1 }
        if value < 256 { return value }
        let shift = Int64(63 - value.leadingZeroBitCount) - 7
        return 256 + (shift - 1) * 128 + ((value >> shift) - 128)
    }

    static func middle(of bucket: Int64) -> Int64 {
        if bucket < 0 { return -middle(of: -bucket - 1) }
        if bucket < 256 { return bucket }
        let shift = (bucket - 256) / 128 + 1
        let mantissa = (bucket - 256) % 128 + 128
        return (mantissa << shift) + (Int64(1) << shift) / 2
    }
}
