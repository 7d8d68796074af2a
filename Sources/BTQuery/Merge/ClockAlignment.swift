import BTCapture

/// A PDU one capture shows a host sending or receiving: what the alignment matches.
public struct MergeAnchor: Sendable {
    public var fingerprint: PDUFingerprint
    /// Microseconds, in the capture's own clock.
    public var time: Int64
    /// The frame that completed the PDU, by its number in its own capture.
    public var number: Int
    public var controller: UInt16
    public var handle: UInt16
    /// Whether the host sent it (else it arrived from the controller); for the air, whether
    /// the central did.
    public var sent: Bool
    /// A sniffer took it from the air: it pairs with either host's end (the sender's HCI comes
    /// before it, the receiver's after).
    public var air = false
    /// A link's event (`LinkEvent`'s raw value), not a PDU (0): each kind has a delay of its
    /// own (a command waits for the next connection event), so the fit takes it apart.
    public var event: UInt8 = 0

    /// Whether two captures' ends may be one PDU: a host's send and the other's reception, or a
    /// host's end and the air's (two sniffers' copies are not paired).
    static func pairs(_ a: MergeAnchor, _ b: MergeAnchor) -> Bool {
        a.air || b.air ? a.air != b.air : a.sent != b.sent
    }

    /// Which way the PDU went from `reference`'s end to `other`'s: +1 forward (the other end
    /// logged it later), −1 back.
    static func way(_ reference: MergeAnchor, _ other: MergeAnchor) -> Double {
        if other.air { return reference.sent ? 1 : -1 }   // a host's send reaches the air later
        if reference.air { return other.sent ? -1 : 1 }
        return reference.sent ? 1 : -1
    }
}

/// Every anchor of one capture, or an even sample of them when there are too many: a PDU is
/// kept when the low bits of its fingerprint are zero, so two captures keep the same PDUs
/// (their matches survive together) and the sample is spread over the whole capture (the
/// drift needs its ends). Memory is bounded by `limit`, whatever the capture's length.
public struct MergeAnchors: Sendable {
    public private(set) var anchors: [MergeAnchor] = []
    /// A fingerprint is kept when `value & mask == 0`.
    public private(set) var mask: UInt64 = 0
    public let limit: Int
    /// How many PDUs the capture completed (kept or not).
    public private(set) var seen = 0
    /// An air capture's links by number: the access address each had.
    public private(set) var accessAddresses: [UInt16: UInt32] = [:]

    /// Enough PDUs for a fit to the microsecond (tens of thousands, spread over the capture),
    /// few enough that the alignment costs a small part of the merge.
    public static let defaultLimit = 1 << 15

    public init(limit: Int = defaultLimit) { self.limit = max(16, limit) }

    public mutating func add(_ anchor: MergeAnchor) {
        seen += 1
        guard anchor.fingerprint.value & mask == 0 else { return }
        anchors.append(anchor)
        while anchors.count > limit { sample(mask: mask << 1 | 1) }
    }

    /// Keeps only the anchors a coarser sample keeps (another capture's, to match).
    public mutating func sample(mask newMask: UInt64) {
        guard newMask != mask, newMask & mask == mask else { return }
        mask = newMask
        anchors.removeAll { $0.fingerprint.value & newMask != 0 }
    }

    /// Long-term keys the capture's host gave its controller: they decrypt another source's air.
    public private(set) var revealedKeys: [[UInt8]] = []
    /// Identity resolving keys its SMP distributed: they resolve private addresses in every
    /// source, from its first packet.
    public private(set) var identityKeys = KeysAhead()
    /// Whether the capture holds packets taken from the air.
    public private(set) var hasAir = false

    /// Reads a capture's PDUs (the alignment's first pass: no decoding of a host's log; an air
    /// capture's link layer decoded, with `keys`).
    public static func read(_ reader: FrameReader, limit: Int = defaultLimit, keys: [[UInt8]] = []) throws -> MergeAnchors {
        var anchors = MergeAnchors(limit: limit)
        var fingerprinter = SourceFingerprinter(keys: keys)
        while let frame = try reader.next() {
            if frame.kind.isAir { anchors.hasAir = true }
            fingerprinter.feed(frame) { pdu in
                if let address = pdu.accessAddress, anchors.accessAddresses[pdu.handle] == nil, anchors.accessAddresses.count < 4096 {
                    anchors.accessAddresses[pdu.handle] = address
                }
                anchors.add(MergeAnchor(fingerprint: pdu.fingerprint, time: frame.timestamp, number: frame.number,
                                        controller: frame.controller, handle: pdu.handle, sent: pdu.sent, air: pdu.air,
                                        event: pdu.event?.rawValue ?? 0))
            }
        }
        anchors.revealedKeys = fingerprinter.revealedKeys
        anchors.identityKeys = fingerprinter.identityKeys
        return anchors
    }
}

/// How one capture's clock relates to the reference capture's:
/// `other = reference + offset + drift × (reference − epoch)`, all in microseconds.
public struct ClockFit: Sendable, Equatable {
    /// The reference time the offset is given at (the first matched PDU).
    public var epoch: Int64
    /// Microseconds the other clock reads ahead of the reference's at `epoch`.
    public var offset: Double
    /// Parts per million the other clock runs fast.
    public var drift: Double
    /// The one-way latency the fit took out of it (half the difference between the two
    /// directions); nil when PDUs were matched in one direction only, which cannot separate
    /// the latency from the offset.
    public var latency: Double?
    /// PDUs (and link events) matched, and those the fit set aside as wrong matches.
    public var matched: Int
    public var outliers: Int
    /// The fit read 1 PDU in this many (a long capture's even sample; 1: all).
    public var sampleOneIn: Int = 1
    /// What the fit leaves unexplained, over the PDUs it kept: the median and 99th percentile
    /// of the absolute residual, in microseconds.
    public var residual: Double
    public var residualP99: Double
    /// How far a matched PDU lies at most from the one offset, drift and latency the merge
    /// applies (a link's own latency, a link's event's own delay), in microseconds: how early
    /// a reception may appear before its send.
    public var spread: Double = 0
    /// Of the matched, the links' events (connection, encryption, termination), not PDUs.
    public var events = 0
    /// Links of the two captures that carried the same PDUs: (reference controller and handle,
    /// other controller and handle, PDUs).
    public var links: [LinkPair]

    public struct LinkPair: Sendable, Equatable {
        public var reference: (controller: UInt16, handle: UInt16)
        public var other: (controller: UInt16, handle: UInt16)
        public var pdus: Int
        /// The links' events both showed (`LinkEvent`), besides the PDUs.
        public var events = 0
        /// Where a side is an air capture: the link's access address (its handle is the
        /// decoder's number for the link).
        public var referenceAccessAddress: UInt32?
        public var otherAccessAddress: UInt32?

        /// As `ClockAligner.linkKey` makes it.
        var key: Int { Int(reference.controller) << 48 | Int(reference.handle) << 32 | Int(other.controller) << 16 | Int(other.handle) }

        public static func == (a: LinkPair, b: LinkPair) -> Bool {
            a.reference == b.reference && a.other == b.other && a.pdus == b.pdus && a.events == b.events
                && a.referenceAccessAddress == b.referenceAccessAddress && a.otherAccessAddress == b.otherAccessAddress
        }
    }

    /// Given by hand (`--offset`): no match behind it.
    public static func manual(offset: Double, drift: Double) -> ClockFit {
        ClockFit(epoch: 0, offset: offset, drift: drift, latency: nil, matched: 0, outliers: 0, residual: 0, residualP99: 0, links: [])
    }

    /// The other capture's time of something the reference shows at `time`.
    public func otherTime(atReference time: Int64) -> Int64 {
        let x = Double(Microseconds.difference(time, epoch))
        return Self.clamp(Double(time) + offset + drift * 1e-6 * x)
    }

    /// The reference time of something the other capture shows at `time`.
    public func referenceTime(of time: Int64) -> Int64 {
        // other − epoch = (reference − epoch)(1 + drift) + offset
        let shifted = Double(Microseconds.difference(time, epoch)) - offset
        let x = shifted / (1 + drift * 1e-6)
        return epoch.saturatingAdd(Self.clamp(x))
    }

    static func clamp(_ value: Double) -> Int64 {
        guard value.isFinite else { return value < 0 ? .min : .max }
        if value >= 9.2e18 { return .max }
        if value <= -9.2e18 { return .min }
        return Int64(value.rounded())
    }
}

/// Finds the clock of one capture against another's from the PDUs both show: one host's
/// sent PDU is the other's received one. Matching is by fingerprint, order and time, never by
/// bytes alone (a notification sent every 100 ms has the same bytes each time), and the fit is
/// robust: a few wrong matches do not move it.
public enum ClockAligner {
    /// A matched PDU: the reference time, the other's, and which way it went (+1 from the
    /// reference's host to the other's, −1 back).
    struct Pair {
        var reference: Int
        var other: Int
        var x: Double   // reference time − epoch, µs
        var y: Double   // other time − reference time, µs
        var way: Double
        /// The pair of links (one per capture) that carried it: each has its own latency.
        var link: Int = 0
        /// A link's event (`LinkEvent`), not a PDU (0).
        var event: UInt8 = 0
    }

    /// Sources whose matches spread wider than this are taken as unrelated: no single offset.
    static let coarseWindow: Int64 = 50_000
    /// Fingerprints seen more often than this in a capture are left out of the first, coarse
    /// search (they pair with too many): a common PDU is matched in the second.
    static let rareLimit = 4

    public static func fit(reference: MergeAnchors, other: MergeAnchors) -> ClockFit? {
        var referenceAnchors = reference, otherAnchors = other
        let mask = reference.mask | other.mask
        referenceAnchors.sample(mask: mask)
        otherAnchors.sample(mask: mask)
        let a = referenceAnchors.anchors, b = otherAnchors.anchors
        guard !a.isEmpty, !b.isEmpty else { return nil }
        guard let coarse = coarseOffset(a, b) else { return nil }
        // Then every PDU near the coarse offset, in order; the line through them; then every
        // PDU again, near the line, and the final line.
        let start = a[0].time
        var pairs = match(a, b, epoch: start, predicted: { _, _ in coarse.offset }, window: coarse.window)
        // Which link of one is which of the other: the pairs most matches agree on. Then only
        // those, so the same bytes on another link at the same moment (a notification every
        // link carries) do not pair across.
        var allowed = Set(linkPairs(pairs, a, b, supported: true).map(\.key))
        // A short capture's few matches support no pair three times over: take them as found.
        if allowed.isEmpty { allowed = Set(linkPairs(pairs, a, b, supported: false).map(\.key)) }
        pairs = match(a, b, epoch: start, predicted: { _, _ in coarse.offset }, window: coarse.window, links: allowed)
        guard pairs.count >= 2, var line = robustLine(pairs, epoch: start) else { return nil }
        let window = max(5_000, min(coarse.window, 10 * line.spread))
        let first = line
        pairs = match(a, b, epoch: first.epoch, predicted: { time, way in
            first.predict(x: Double(Microseconds.difference(time, first.epoch)), way: way)
        }, window: window, links: allowed)
        guard pairs.count >= 2, let refined = robustLine(pairs, epoch: first.epoch) else { return nil }
        line = refined
        var fit = ClockFit(epoch: line.epoch, offset: line.offset, drift: line.slope * 1e6, latency: line.bothWays ? line.latency : nil,
                           matched: line.kept, outliers: pairs.count - line.kept, residual: line.residual,
                           residualP99: line.residualP99, links: linkPairs(pairs, a, b, supported: false))
        fit.sampleOneIn = mask >= UInt64(Int.max) ? Int.max : Int(mask) + 1
        fit.spread = Double(line.spread)
        fit.events = line.keptEvents
        for index in fit.links.indices {
            fit.links[index].referenceAccessAddress = reference.accessAddresses[fit.links[index].reference.handle]
            fit.links[index].otherAccessAddress = other.accessAddresses[fit.links[index].other.handle]
        }
        return fit
    }

    /// A pair of links, one per capture, as a key.
    static func linkKey(_ a: MergeAnchor, _ b: MergeAnchor) -> Int {
        Int(a.controller) << 48 | Int(a.handle) << 32 | Int(b.controller) << 16 | Int(b.handle)
    }

    /// The offset most matches of rare PDUs agree on: the densest window of (other − reference)
    /// over every pair of equal fingerprints sent one way and received the other. The window
    /// widens with the capture's length, since drift spreads the offset over time.
    static func coarseOffset(_ a: [MergeAnchor], _ b: [MergeAnchor]) -> (offset: Int64, window: Int64)? {
        var countsA: [PDUFingerprint: Int] = [:], countsB: [PDUFingerprint: Int] = [:]
        for anchor in a { countsA[anchor.fingerprint, default: 0] += 1 }
        for anchor in b { countsB[anchor.fingerprint, default: 0] += 1 }
        var byFingerprint: [PDUFingerprint: [Int]] = [:]
        for (index, anchor) in b.enumerated() where countsB[anchor.fingerprint]! <= rareLimit && (countsA[anchor.fingerprint] ?? 0) > 0 {
            byFingerprint[anchor.fingerprint, default: []].append(index)
        }
        var differences: [Int64] = []
        for anchor in a where countsA[anchor.fingerprint]! <= rareLimit {
            for j in byFingerprint[anchor.fingerprint] ?? [] where MergeAnchor.pairs(anchor, b[j]) {
                differences.append(Microseconds.difference(b[j].time, anchor.time))
            }
        }
        guard !differences.isEmpty else { return nil }
        differences.sort()
        let span = Microseconds.difference(a.last!.time, a.first!.time).magnitude
        // 200 ppm of the capture's length beside the fixed window: a clock drifting that much
        // still puts its matches in one window.
        let window = coarseWindow.saturatingAdd(Int64(min(span / 5_000, UInt64(Int64.max / 2))))
        var best = (count: 0, start: 0, end: 0), start = 0
        for end in differences.indices {
            while Microseconds.difference(differences[end], differences[start]) > window { start += 1 }
            if end - start + 1 > best.count { best = (end - start + 1, start, end) }
        }
        // One pair is a coincidence as easily as a match.
        guard best.count >= 2 else { return nil }
        return (differences[(best.start + best.end) / 2], window)
    }

    /// Pairs each PDU one capture sent with the one the other received, per fingerprint, in
    /// order: the nearest to where the clock puts it, within the window, each used once.
    static func match(_ a: [MergeAnchor], _ b: [MergeAnchor], epoch: Int64,
                      predicted: (_ time: Int64, _ way: Double) -> Int64, window: Int64, links: Set<Int>? = nil) -> [Pair] {
        var positions: [PDUFingerprint: [Int]] = [:]
        for (index, anchor) in b.enumerated() { positions[anchor.fingerprint, default: []].append(index) }
        var used = Set<Int>()
        var pairs: [Pair] = []
        for (i, anchor) in a.enumerated() {
            guard let candidates = positions[anchor.fingerprint] else { continue }
            // Where each way puts the other end (a host's end against the air's may go either
            // way): the search starts at the earlier.
            let forward = anchor.time.saturatingAdd(predicted(anchor.time, 1))
            let backward = anchor.time.saturatingAdd(predicted(anchor.time, -1))
            let earliest = min(forward, backward).saturatingSubtract(window)
            // The first candidate not before the window (they are in time order), then the
            // nearest of those within it.
            var low = 0, high = candidates.count
            while low < high {
                let mid = (low + high) / 2
                if b[candidates[mid]].time < earliest { low = mid + 1 } else { high = mid }
            }
            var best: (index: Int, distance: UInt64)?
            // At most 64 looked at: the same bytes by the thousand within the window (a flood,
            // a clock that stands still) would make this quadratic.
            var k = low
            while k < candidates.count, k - low < 64 {
                let j = candidates[k]
                let time = b[j].time
                k += 1
                if time.saturatingSubtract(max(forward, backward)) > window { break }
                guard MergeAnchor.pairs(anchor, b[j]) else { continue }
                let expected = MergeAnchor.way(anchor, b[j]) > 0 ? forward : backward
                let distance = Microseconds.difference(time, expected)
                if distance.magnitude <= window, !used.contains(j), distance.magnitude < (best?.distance ?? .max),
                   links?.contains(linkKey(anchor, b[j])) ?? true {
                    best = (j, distance.magnitude)
                }
            }
            guard let j = best?.index else { continue }
            used.insert(j)
            // Per link and kind: a link's events each have their own latency and intercept.
            let link = linkKey(anchor, b[j]) &* 4 &+ Int(anchor.event)
            pairs.append(Pair(reference: i, other: j, x: Double(Microseconds.difference(anchor.time, epoch)),
                              y: Double(Microseconds.difference(b[j].time, anchor.time)), way: MergeAnchor.way(anchor, b[j]), link: link,
                              event: anchor.event))
        }
        return pairs
    }

    struct Line {
        var epoch: Int64
        var offset: Double
        var slope: Double
        var latency: Double
        var bothWays: Bool
        var kept: Int
        /// Of those, the links' events (not PDUs).
        var keptEvents = 0
        var residual: Double
        var residualP99: Double
        /// The spread of the kept residuals (for the next window).
        var spread: Int64

        /// other − reference at x for a PDU going `way` (0: the clock alone).
        func predict(x: Double, way: Double) -> Int64 {
            ClockFit.clamp(offset + slope * x + way * latency)
        }
    }

    /// y = offset + slope·x + way·latency of its link, robustly. Each link has its own
    /// latency (an LE link with a long interval, a BR/EDR one with a short), and a PDU's
    /// latency is its link's least plus queueing that comes and goes, so:
    /// - the slope follows the envelope: per link and direction, the capture cut into spans, the
    ///   quickest PDU of each (the slowest's delay says nothing of the clock), and the median of
    ///   the slopes between those (Theil–Sen, within one direction so the latency cancels);
    /// - each link's intercept is a median per direction, the offset the median of the links'
    ///   midpoints (a link seen one way only tells the slope, not the offset; where none was seen
    ///   both ways, the offset includes the one-way latency);
    /// - pairs far from their link's line are set aside and the line is found again without them.
    static func robustLine(_ raw: [Pair], epoch: Int64) -> Line? {
        let pairs = numberLinks(raw)
        guard let first = model(pairs) else { return nil }
        let absolute = pairs.map { abs($0.y - first.predict($0)) }
        let mad = median(absolute) ?? 0
        let limit = max(2_000, 6 * 1.4826 * mad)
        let kept = pairs.indices.filter { absolute[$0] <= limit }.map { pairs[$0] }
        guard kept.count >= 2, let model = model(kept) else { return nil }
        let final = kept.map { abs($0.y - model.predict($0)) }.sorted()
        let p99 = final[min(final.count - 1, Int((Double(final.count) * 0.99).rounded(.up)) - 1)]
        let latencies = Array(model.latency.values)
        let latency = latencies.isEmpty ? 0 : latencies.reduce(0, +) / Double(latencies.count)
        // The next match predicts with one offset and one latency for every link and kind: its
        // window must hold how far each link's own line lies from that.
        let fromLine = kept.map { abs($0.y - (model.offset + model.slope * $0.x + $0.way * latency)) }.max() ?? 0
        // Expressed at the first kept PDU: the offset a person reads is the one at the start.
        let x0 = kept.map(\.x).min() ?? 0
        return Line(epoch: epoch.saturatingAdd(ClockFit.clamp(x0)), offset: model.offset + model.slope * x0, slope: model.slope,
                    latency: latency, bothWays: !latencies.isEmpty,
                    kept: kept.count, keptEvents: kept.filter { $0.event != 0 }.count, residual: median(final) ?? 0, residualP99: p99,
                    spread: ClockFit.clamp(max(p99, fromLine, 1_000)))
    }

    /// The links of the pairs numbered from 0, in order of appearance.
    static func numberLinks(_ pairs: [Pair]) -> [Pair] {
        var numbers: [Int: Int] = [:]
        return pairs.map { pair in
            var numbered = pair
            if let number = numbers[pair.link] {
                numbered.link = number
            } else {
                numbered.link = numbers.count
                numbers[pair.link] = numbers.count
            }
            return numbered
        }
    }

    /// The fitted clock, each two-way link's latency, and each one-way link's own intercept.
    struct Model {
        var offset: Double
        var slope: Double
        var latency: [Int: Double]
        var ownIntercept: [Int: Double]

        func predict(_ pair: Pair) -> Double {
            if let own = ownIntercept[pair.link] { return own + slope * pair.x }
            return offset + slope * pair.x + pair.way * (latency[pair.link] ?? 0)
        }
    }

    static func model(_ pairs: [Pair]) -> Model? {
        let groups = (pairs.map(\.link).max() ?? -1) + 1
        // Each link's pairs, once (a filter per link would be quadratic with many links).
        var byLink = [[Pair]](repeating: [], count: groups)
        for pair in pairs { byLink[pair.link].append(pair) }
        // Per link: the slope of each direction's envelope, and their mean where both were seen
        // (queueing that grows in both directions alike cancels there).
        var slopes: [Double] = []
        for group in 0..<groups {
            var ways: [Double] = []
            for way in [1.0, -1.0] {
                let side = byLink[group].filter { $0.way == way }.sorted { $0.x < $1.x }
                if let slope = median(envelopeSlopes(side)) { ways.append(slope) }
            }
            if !ways.isEmpty { slopes.append(ways.reduce(0, +) / Double(ways.count)) }
        }
        var slope = median(slopes) ?? 0
        // Drift beyond 1,000 ppm is no crystal: a short capture's slopes are noise.
        if abs(slope) > 1e-3 { slope = 0 }
        var model = Model(offset: 0, slope: slope, latency: [:], ownIntercept: [:])
        var midpoints: [Double] = []
        var oneWay: [(link: Int, intercept: Double)] = []
        for group in 0..<groups {
            let forward = median(byLink[group].filter { $0.way > 0 }.map { $0.y - slope * $0.x })
            let backward = median(byLink[group].filter { $0.way < 0 }.map { $0.y - slope * $0.x })
            switch (forward, backward) {
            case let (f?, b?):
                midpoints.append((f + b) / 2)
                model.latency[group] = (f - b) / 2
            case let (f?, nil): oneWay.append((group, f))
            case let (nil, b?): oneWay.append((group, b))
            default: break
            }
        }
        if let offset = median(midpoints) {
            model.offset = offset
        } else if let offset = median(oneWay.map(\.intercept)) {
            model.offset = offset
        } else {
            return nil
        }
        for (link, intercept) in oneWay { model.ownIntercept[link] = intercept }
        return model
    }

    /// Slopes between the quickest PDUs of equal stretches of time of one link and direction
    /// (for PDUs coming back, the latency counts against y: the largest y is the quickest).
    /// With few PDUs, the slopes between every two of them a second or more apart.
    static func envelopeSlopes(_ side: [Pair]) -> [Double] {
        guard side.count >= 2, let first = side.first, let last = side.last, last.x - first.x > 1_000_000 else { return [] }
        var points: [Pair] = []
        if side.count >= 12 {
            let spans = min(16, side.count / 3)
            let width = (last.x - first.x) / Double(spans)
            var quickest: [Int: Pair] = [:]
            for pair in side {
                let span = min(spans - 1, Int((pair.x - first.x) / width))
                if let held = quickest[span], first.way > 0 ? held.y <= pair.y : held.y >= pair.y { continue }
                quickest[span] = pair
            }
            points = quickest.keys.sorted().map { quickest[$0]! }
        } else {
            points = side
        }
        var slopes: [Double] = []
        for i in points.indices {
            for j in points.indices where j > i && points[j].x - points[i].x > 1_000_000 {
                slopes.append((points[j].y - points[i].y) / (points[j].x - points[i].x))
            }
        }
        return slopes
    }

    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// Which link of each capture carried the matched PDUs, busiest first. `supported`: only
    /// the pairs that are the busiest of one of their two links (three matches at least).
    static func linkPairs(_ pairs: [Pair], _ a: [MergeAnchor], _ b: [MergeAnchor], supported: Bool) -> [ClockFit.LinkPair] {
        var counts: [Int: Int] = [:], events: [Int: Int] = [:]
        var order: [Int] = []
        var perA: [Int: Int] = [:], perB: [Int: Int] = [:]   // the busiest pair of each link
        for pair in pairs {
            let key = linkKey(a[pair.reference], b[pair.other])
            if counts[key] == nil { order.append(key) }
            counts[key, default: 0] += 1
            if a[pair.reference].event != 0 { events[key, default: 0] += 1 }
        }
        for key in order {
            perA[key >> 32] = max(perA[key >> 32] ?? 0, counts[key]!)
            perB[key & 0xFFFF_FFFF] = max(perB[key & 0xFFFF_FFFF] ?? 0, counts[key]!)
        }
        return order.compactMap { key -> ClockFit.LinkPair? in
            let count = counts[key]!
            // The busiest pair of either of its links: a link reconnected under another handle
            // on one side keeps its new pair; stray matches across links are the busiest of none.
            if supported {
                guard count >= 3, count == perA[key >> 32] || count == perB[key & 0xFFFF_FFFF] else { return nil }
            }
            let linkEvents = events[key] ?? 0
            return ClockFit.LinkPair(reference: (UInt16(truncatingIfNeeded: key >> 48), UInt16(truncatingIfNeeded: key >> 32)),
                                     other: (UInt16(truncatingIfNeeded: key >> 16), UInt16(truncatingIfNeeded: key)), pdus: count - linkEvents,
                                     events: linkEvents)
        }.sorted { $0.pdus + $0.events > $1.pdus + $1.events }
    }
}
