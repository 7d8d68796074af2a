import BTCapture

/// Several captures of one scenario as one timeline: each source's frames in its own order,
/// its times moved onto the reference clock (`ClockFit`), interleaved by that time. Every
/// frame says where it came from (`Frame.origin`); each source's controllers get indexes of
/// their own, so two captures' hci0 stay two controllers for the decoder.
///
/// On the way it pairs each PDU one host sent with the same PDU the other host received, in
/// order and by time (`FrameMatch`: the other end's packet and the latency between them).
/// Frames are held back `holdBack` of aligned time, so that the sending end, seen first, can
/// still be told of its receiver; memory holds that window, never the captures.
///
/// A sniffer's copy of a PDU is a third end: the air frame names the host that sent it (the
/// latency from that host's HCI to the air), or where no sender's log is merged, the host that
/// received it. A host's end names the other host where both logged the PDU, else the air.
public final class MergedFrameReader: FrameReader {
    public struct Source {
        public var name: String
        public var reader: FrameReader
        /// Its clock against the reference's; nil for the reference (and for a source left on
        /// its own timestamps).
        public var fit: ClockFit?

        public init(name: String, reader: FrameReader, fit: ClockFit?) {
            self.name = name
            self.reader = reader
            self.fit = fit
        }
    }

    /// How far behind the newest frame read a frame is released.
    public static let holdBack: Int64 = 2_000_000
    /// How long a PDU sent waits for its receiver (a retransmission, a slow link).
    public static let matchWindow: Int64 = 8_000_000
    /// Held frames and waiting PDUs are bounded by count too, not only by time: a capture whose
    /// clock stands still (a damaged one, every timestamp equal) must not be held whole, nor
    /// every reception compared with every send of the same bytes.
    static let mostHeld = 65_536
    static let mostWaitingPerPDU = 32

    let sources: [Source]
    public var warnings: [CaptureWarning] = []
    public var hasWarnings: Bool { !warnings.isEmpty }
    public var formatDescription: String { "merge of \(sources.count) captures" }
    public var nativeFormat: CaptureFileFormat { .pcapng }
    /// Reading several captures and pairing their PDUs is a fair share of a merge's work.
    public var worthItsOwnThread: Bool { true }
    /// The identity resolving keys the alignment found in any source.
    public let keysAhead: KeysAhead

    /// Each source's next frame (by source), and the sources that have one in a heap ordered
    /// by its aligned time, then source order: the heap moves small keys, not frames.
    private var pending: [Frame?] = []
    private var heap: [HeapKey] = []
    private var started = false
    private var controllers = ControllerIndexes()
    private var fingerprinters: [SourceFingerprinter]
    private var numbers = 0

    /// Frames read but not yet released, oldest first; `released` counts those gone before.
    private var queue: [Frame] = []
    private var queueHead = 0
    /// PDUs that completed at one end and wait for the other: sends for their receiver, and
    /// receptions that arrived a little before their sender (the clocks' residual).
    private var pendingSends: [PDUFingerprint: [End]] = [:]
    private var pendingReceipts: [PDUFingerprint: [End]] = [:]
    /// Air copies, for a reception (or a send logged a little after it) to name.
    private var pendingAir: [PDUFingerprint: [End]] = [:]
    private var pendingCount = 0
    private var lastSweep: Int64 = .min
    /// Recent latencies per pair of ends, to choose among PDUs with the same bytes.
    private var recent: [EndPair: [Int64]] = [:]
    /// How early a reception may appear before its send: the clocks' residual.
    let tolerance: Int64
    let expectedLatency: Int64
    /// For each source aligned by matching: the pairs of links (the reference's, its own) the
    /// alignment found carrying the same PDUs. PDUs between those two sources pair only there.
    let links: [Int: Set<Int>]
    /// PDUs and link events matched between two hosts so far.
    public private(set) var matches = 0
    /// Of `matches`, the links' events (LinkEvent) rather than PDUs.
    public private(set) var eventMatches = 0
    /// Air copies matched to a host's end (each copy once).
    public private(set) var airMatches = 0

    struct HeapKey {
        var aligned: Int64
        var source: Int
    }

    struct End {
        var number: Int
        /// The timeline's controller index (distinct per source), and the source's own.
        var controller: UInt16
        var ownController: UInt16
        var handle: UInt16
        var source: Int
        var time: Int64
        /// An air copy already named by its sender.
        var tied = false
        /// An air copy's link.
        var accessAddress: UInt32?
        /// A link's event (connection, encryption, termination), not a PDU.
        var isEvent = false
    }

    struct EndPair: Hashable {
        var sender: UInt16
        var receiver: UInt16
    }

    /// `keys`: long-term keys the sources' hosts revealed, for the air sources' encrypted links.
    /// `keysAhead`: identity resolving keys the sources distribute, for the frames' decoder.
    public init(sources: [Source], keys: [[UInt8]] = [], keysAhead: KeysAhead = KeysAhead()) {
        self.sources = sources
        self.keysAhead = keysAhead
        fingerprinters = Array(repeating: SourceFingerprinter(keys: keys, gathersKeys: false), count: sources.count)
        let residual = sources.compactMap(\.fit).map { max(3 * $0.residualP99, $0.spread) }.max() ?? 0
        tolerance = 2_000 + ClockFit.clamp(residual)
        let latencies = sources.compactMap { $0.fit?.latency }
        expectedLatency = latencies.isEmpty ? 0 : ClockFit.clamp(latencies.reduce(0, +) / Double(latencies.count))
        var links: [Int: Set<Int>] = [:]
        for (index, source) in sources.enumerated() where index > 0 {
            if let fit = source.fit, !fit.links.isEmpty { links[index] = Set(fit.links.map(\.key)) }
        }
        self.links = links
    }

    /// Whether the two ends may carry the same PDU: any, unless one is the reference and the
    /// alignment named the other's links.
    private func mayPair(_ x: End, _ y: End) -> Bool {
        guard x.controller != y.controller else { return false }
        let (reference, other) = x.source == 0 ? (x, y) : (y, x)
        guard reference.source == 0, let allowed = links[other.source] else { return true }
        return allowed.contains(Int(reference.ownController) << 48 | Int(reference.handle) << 32 | Int(other.ownController) << 16 | Int(other.handle))
    }

    public func next() throws -> Frame? {
        if !started {
            started = true
            pending = Array(repeating: nil, count: sources.count)
            for index in sources.indices { try pull(index) }
        }
        // Read until the oldest held frame is far enough behind, or every source has ended.
        while let top = heap.first {
            if queueHead < queue.count,
               top.aligned.saturatingSubtract(queue[queueHead].timestamp) > Self.holdBack || queue.count - queueHead >= Self.mostHeld { break }
            let key = popHead()
            let frame = pending[key.source].take()!
            try pull(key.source)
            admit(frame, aligned: key.aligned, source: key.source)
        }
        guard queueHead < queue.count else { return nil }
        let frame = queue[queueHead]
        queueHead += 1
        if queueHead >= 4096 && queueHead * 2 >= queue.count {
            queue.removeFirst(queueHead)
            queueHead = 0
        }
        return frame
    }

    /// The source's next frame into the heap, its time moved to the reference clock.
    private func pull(_ index: Int) throws {
        let reader = sources[index].reader
        let frame: Frame?
        do {
            frame = try reader.next()
        } catch let error as CaptureError {
            // One source's damage ends that source, not the merge: what it held so far stays.
            warnings.append(CaptureWarning("\(sources[index].name): \(error.message); its later packets are left out"))
            frame = nil
        }
        if reader.hasWarnings {
            for warning in reader.warnings { warnings.append(CaptureWarning("\(sources[index].name): \(warning.message)")) }
            reader.warnings.removeAll()
        }
        guard let frame else { return }
        let aligned = sources[index].fit?.referenceTime(of: frame.timestamp) ?? frame.timestamp
        pending[index] = frame
        pushHead(HeapKey(aligned: aligned, source: index))
    }

    /// The frame as the merge gives it: its number in the timeline, the aligned time, its
    /// source's controller index, its origin; then matched against the other ends.
    private func admit(_ original: Frame, aligned: Int64, source: Int) {
        var frame = original
        numbers += 1
        frame.number = numbers
        frame.timestamp = aligned
        frame.origin = FrameOrigin(source: source + 1, name: sources[source].name, number: original.number,
                                   controller: original.controller, sourceTime: original.timestamp)
        if frame.controller != Frame.systemController {
            frame.controller = controllers.index(source: source, controller: original.controller)
        }
        let controller = frame.controller
        queue.append(frame)
        fingerprinters[source].feed(original) { pdu in
            let end = End(number: numbers, controller: controller, ownController: original.controller, handle: pdu.handle,
                          source: source, time: aligned, accessAddress: pdu.accessAddress, isEvent: pdu.event != nil)
            if pdu.air {
                seenOnAir(pdu.fingerprint, end)
            } else if pdu.sent {
                sent(pdu.fingerprint, end)
            } else {
                received(pdu.fingerprint, end)
            }
        }
        if aligned.saturatingSubtract(lastSweep) > Self.matchWindow {
            sweep(before: aligned.saturatingSubtract(Self.matchWindow))
            lastSweep = aligned
        }
    }

    private func sent(_ fingerprint: PDUFingerprint, _ end: End) {
        // An air copy taken a little before its send was logged (the residual of the clocks).
        if var copies = pendingAir[fingerprint],
           let pick = copies.firstIndex(where: { !$0.tied && mayPair($0, end) && end.time.saturatingSubtract($0.time) <= tolerance }) {
            copies[pick].tied = true
            pendingAir[fingerprint] = copies
            tie(air: copies[pick], to: end, airIsSender: false)
        }
        // A reception logged a little before its send (the residual of the clocks).
        if var receipts = pendingReceipts[fingerprint],
           let pick = receipts.firstIndex(where: { mayPair($0, end) && end.time.saturatingSubtract($0.time) <= tolerance }) {
            let receiver = receipts.remove(at: pick)
            pendingReceipts[fingerprint] = receipts.isEmpty ? nil : receipts
            pendingCount -= 1
            pair(sender: end, receiver: receiver)
            return
        }
        wait(end, for: fingerprint, in: &pendingSends)
    }

    private func received(_ fingerprint: PDUFingerprint, _ end: End) {
        guard var sends = pendingSends[fingerprint] else {
            receivedFromAir(fingerprint, end)
            wait(end, for: fingerprint, in: &pendingReceipts)
            return
        }
        // Of the sends with these bytes at another end, the one whose latency is nearest what
        // that pair of ends has shown: a notification repeated every 100 ms pairs with its own.
        guard let pick = nearest(sends, to: end) else {
            receivedFromAir(fingerprint, end)
            wait(end, for: fingerprint, in: &pendingReceipts)
            return
        }
        let sender = sends[pick]
        // Delivery is in order: that sender's earlier PDUs with these bytes will find no
        // receiver now.
        let before = sends.count
        sends = sends.enumerated().filter { $0.offset != pick && !($0.offset < pick && $0.element.controller == sender.controller) }.map(\.element)
        pendingCount -= before - sends.count
        pendingSends[fingerprint] = sends.isEmpty ? nil : sends
        pair(sender: sender, receiver: end)
    }

    /// Of the ends that may have sent what `receiver` logged (within the window, not after it
    /// beyond the clocks' tolerance), the one whose latency is nearest what that pair of ends
    /// has shown.
    private func nearest(_ senders: [End], to receiver: End) -> Int? {
        var best: (index: Int, distance: UInt64)?
        for (index, sender) in senders.enumerated() where mayPair(sender, receiver) {
            let latency = receiver.time.saturatingSubtract(sender.time)
            guard latency >= -tolerance, latency <= Self.matchWindow else { continue }
            let distance = latency.saturatingSubtract(expectation(EndPair(sender: sender.controller, receiver: receiver.controller))).magnitude
            if distance < (best?.distance ?? .max) { best = (index, distance) }
        }
        return best?.index
    }

    /// A sniffer's copy: named by the send it follows, or waiting for a reception (or a send
    /// logged a little later).
    private func seenOnAir(_ fingerprint: PDUFingerprint, _ end: End) {
        var copy = end
        if let sends = pendingSends[fingerprint] {
            // The send whose latency to the air is nearest what that host has shown; the send
            // stays waiting for its receiver.
            if let pick = nearest(sends, to: end) {
                copy.tied = true
                tie(air: copy, to: sends[pick], airIsSender: false)
            }
        }
        wait(copy, for: fingerprint, in: &pendingAir)
    }

    /// A reception no host's send explains (yet): the air copy it follows, if a sniffer took one.
    private func receivedFromAir(_ fingerprint: PDUFingerprint, _ end: End) {
        guard var copies = pendingAir[fingerprint], let pick = nearest(copies, to: end) else { return }
        let copy = copies.remove(at: pick)
        pendingCount -= 1
        pendingAir[fingerprint] = copies.isEmpty ? nil : copies
        tie(air: copy, to: end, airIsSender: true)
    }

    /// An air copy and a host's end told of each other: the air frame always (unless its
    /// sender named it already), the host's only where no other host's end named it.
    private func tie(air: End, to host: End, airIsSender: Bool) {
        let (sender, receiver) = airIsSender ? (air, host) : (host, air)
        let latency = receiver.time.saturatingSubtract(sender.time)
        remember(latency, EndPair(sender: sender.controller, receiver: receiver.controller))
        if !air.tied || !airIsSender {
            let first = mark(air.number, FrameMatch(source: host.source + 1, sourceName: sources[host.source].name, number: host.number,
                                                    controller: host.ownController, handle: host.handle, latency: latency, isSender: airIsSender))
            if first { airMatches += 1 }
        }
        mark(host.number, FrameMatch(source: air.source + 1, sourceName: sources[air.source].name, number: air.number,
                                     controller: air.ownController, handle: air.handle, latency: latency, isSender: !airIsSender,
                                     accessAddress: air.accessAddress),
             unlessMatched: true)
    }

    /// One more end waiting for its other; the oldest of the same bytes gives way past
    /// `mostWaitingPerPDU` (a flood of one PDU, or a clock that stands still).
    private func wait(_ end: End, for fingerprint: PDUFingerprint, in table: inout [PDUFingerprint: [End]]) {
        var ends = table.removeValue(forKey: fingerprint) ?? []
        if ends.count >= Self.mostWaitingPerPDU {
            ends.removeFirst()
            pendingCount -= 1
        }
        ends.append(end)
        pendingCount += 1
        table[fingerprint] = ends
    }

    private func expectation(_ ends: EndPair) -> Int64 {
        guard let values = recent[ends], !values.isEmpty else { return expectedLatency }
        return values.sorted()[values.count / 2]
    }

    /// Both ends told of each other, where they are still held.
    private func pair(sender: End, receiver: End) {
        let latency = receiver.time.saturatingSubtract(sender.time)
        matches += 1
        if sender.isEvent { eventMatches += 1 }
        remember(latency, EndPair(sender: sender.controller, receiver: receiver.controller))
        let senderName = sources[sender.source].name, receiverName = sources[receiver.source].name
        mark(receiver.number, FrameMatch(source: sender.source + 1, sourceName: senderName, number: sender.number,
                                         controller: sender.ownController, handle: sender.handle, latency: latency, isSender: false))
        mark(sender.number, FrameMatch(source: receiver.source + 1, sourceName: receiverName, number: receiver.number,
                                       controller: receiver.ownController, handle: receiver.handle, latency: latency, isSender: true))
    }

    private func remember(_ latency: Int64, _ key: EndPair) {
        var values = recent[key] ?? []
        if values.count == 15 { values.removeFirst() }
        values.append(latency)
        recent[key] = values
    }

    /// Tells a held frame of its other end; whether it had none before. `unlessMatched`: an air
    /// copy names a host's end only where nothing else has (the other host's end, which a pair
    /// writes over it).
    @discardableResult
    private func mark(_ number: Int, _ match: FrameMatch, unlessMatched: Bool = false) -> Bool {
        // Numbers are given in queue order: the frame's place is its distance from the last.
        let position = queue.count - 1 - (numbers - number)
        guard position >= queueHead, position < queue.count else { return false }
        let first = queue[position].origin?.match == nil
        if unlessMatched, !first { return false }
        queue[position].origin?.match = match
        return first
    }

    /// Forgets PDUs that waited longer than any match could.
    private func sweep(before limit: Int64) {
        guard pendingCount > 0 else { return }
        for table in [\MergedFrameReader.pendingSends, \MergedFrameReader.pendingReceipts, \MergedFrameReader.pendingAir] {
            var kept: [PDUFingerprint: [End]] = [:]
            for (key, ends) in self[keyPath: table] {
                let young = ends.filter { $0.time >= limit }
                pendingCount -= ends.count - young.count
                if !young.isEmpty { kept[key] = young }
            }
            self[keyPath: table] = kept
        }
    }

    // MARK: the heap of sources' next frames

    private func before(_ a: HeapKey, _ b: HeapKey) -> Bool {
        a.aligned != b.aligned ? a.aligned < b.aligned : a.source < b.source
    }

    private func pushHead(_ key: HeapKey) {
        heap.append(key)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard before(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private func popHead() -> HeapKey {
        let top = heap[0]
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var smallest = parent
                if left < heap.count, before(heap[left], heap[smallest]) { smallest = left }
                if right < heap.count, before(heap[right], heap[smallest]) { smallest = right }
                if smallest == parent { break }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return top
    }
}
