import BTCapture
import BTDecode
import BTQuery
import Foundation

/// A capture held for browsing: every frame (in a FrameStore), and the decoder's Session saved
/// every `interval` frames, so that any packet is decoded again, exactly as the first pass
/// decoded it, from the nearest saved Session before it: at most `interval - 1` packets decoded
/// for nothing. Nothing else is kept per packet but its worst issue (what the list highlights).
///
/// The first pass feeds it from the packet pipeline's tap, which sees every frame before it is
/// decoded: the Session then is the state before that frame. Reading and feeding may happen on
/// two threads (the list reads while the capture is still loading or followed): a lock orders
/// them; decoding again happens outside it, on a Session of the reader's own.
public final class PacketIndex: @unchecked Sendable { // every stored property is behind `lock`
    /// Frames between two saved Sessions.
    public let interval: Int
    private let lock = NSLock()
    private var frames = FrameStore()
    /// `saved[i]`: the Session before the frame at index `i * interval`.
    private var saved: [Session] = []
    /// Each recorded packet's worst issue: 0 none, 1 note, 2 warning, 3 error (`noteDecoded`).
    private var severities: [UInt8] = []
    private var counts = CaptureStatistics()
    private var firstController: UInt16?
    /// The index of the first frame of a second controller, if one appeared.
    private var secondControllerAt: Int?
    /// The first pass's decoder, whose Session is saved as frames are recorded.
    public let decoder: Decoder

    /// An index fed from `decoder`'s pipeline: call `record(_:)` with every frame before the
    /// decoder decodes it (`PacketPipeline.tap`), and `noteDecoded(_:)` with the packet after.
    ///
    /// The interval weighs the first pass against a jump: each saved Session keeps its own copy
    /// of whatever state the decoder changed after it (and the decoder pays for that copy as it
    /// changes it), while a jump decodes up to `interval - 1` packets for nothing. What grows with
    /// the capture (the keys a capture shows) is in logs the copies share (`SharedLog`), so a
    /// copy holds only state of bounded size. Measured on the bench's 2,000,000-packet LE session
    /// (Benchmarks/RESULTS.md): every 1,024 frames the last packet is listed after 2.5 s with
    /// 203 MB resident (4.5 s and 481 MB when the key lists were copied with each saved Session),
    /// and a jump decodes at most 1,023 packets again (under a millisecond).
    public init(decoder: Decoder, interval: Int = 1024) {
        precondition(interval > 0)
        self.decoder = decoder
        self.interval = interval
    }

    /// The number of frames recorded so far.
    public var count: Int {
        lock.withLock { frames.count }
    }

    /// The first pass, before `frame` is decoded: keeps it, and the Session every `interval` frames.
    public func record(_ frame: Frame) {
        lock.lock()
        defer { lock.unlock() }
        if frames.count % interval == 0 {
            var session = decoder.session
            // The pipeline's look-ahead belongs to its reader; a decode from here looks in the store.
            session.upcoming = nil
            saved.append(session)
        }
        frames.append(frame)
        severities.append(0)
        if frame.controller != Frame.systemController && secondControllerAt == nil {
            if firstController == nil { firstController = frame.controller }
            if frame.controller != firstController { secondControllerAt = frames.count - 1 }
        }
    }

    /// Whether the row of the packet at `index` names its controller: as `show` does, from the
    /// first frame of a second controller on.
    public func namesController(at index: Int) -> Bool {
        lock.withLock { secondControllerAt.map { index >= $0 } ?? false }
    }

    /// The counts of every packet decoded so far (the status line).
    public var statistics: CaptureStatistics {
        lock.withLock { counts }
    }

    /// The first pass, after the packet of the last recorded frame is decoded (a packet never
    /// noted, which a stage before the sink dropped, shows no issue).
    public func noteDecoded(_ packet: Packet) {
        let severity: UInt8 = packet.hasError ? 3 : packet.hasWarning ? 2 : packet.worstIssue != nil ? 1 : 0
        lock.withLock {
            if !severities.isEmpty { severities[severities.count - 1] = severity }
            counts.add(packet)
        }
    }

    /// The worst issue of the packet at `index` (0-based): nil for none or not yet decoded.
    public func severity(at index: Int) -> Issue.Severity? {
        lock.lock()
        defer { lock.unlock() }
        guard index >= 0, index < severities.count, severities[index] > 0 else { return nil }
        return Issue.Severity(rawValue: Int(severities[index]) - 1)
    }

    /// The capture time of the frame at `index` (0-based).
    public func timestamp(at index: Int) -> Int64? {
        lock.withLock { frames.timestamp(at: index) }
    }

    /// The frame at `index` (0-based), as read.
    public func frame(at index: Int) -> Frame? {
        lock.withLock { frames.frame(at: index) }
    }

    /// The Source column's width when the capture is a merge of several.
    public var sourceColumnWidth: Int? { lock.withLock { frames.sourceColumnWidth } }

    /// Memory the index holds for its frames (the chunks and records; the saved Sessions share
    /// most of their storage with each other and are not counted).
    public var frameBytesHeld: Int {
        lock.withLock { frames.bytesHeld }
    }

    /// Decodes the packets at `indices` (0-based, ascending) again, from the saved Session
    /// nearest before the first, handing each to `body` in order (the packet's storage is reused
    /// for the next: keep a copy, not a reference to it); with `buildsDisplayText` for
    /// the tree, without for the list; keeping the fields (and summaries) of `keeping`.
    /// Indices past the recorded frames are skipped.
    public func decode(_ indices: Range<Int>, buildsDisplayText: Bool, keeping: FieldMask = .all,
                       _ body: (inout Packet) throws -> Void) rethrows {
        guard !indices.isEmpty, indices.lowerBound >= 0 else { return }
        lock.lock()
        let start = indices.lowerBound / interval
        guard start < saved.count else {
            lock.unlock()
            return
        }
        var session = saved[start]
        lock.unlock()
        session.buildDisplayText(buildsDisplayText)
        session.keepFields(keeping)
        let replay = Decoder(options: session.options)
        var position = start * interval
        // What the link layer looks ahead at (a damaged packet's acknowledgement) comes from the
        // store, as the first pass saw it from the reader.
        let cursor = ReplayCursor()
        session.upcoming = { [weak self, cursor] distance in self?.frame(at: cursor.index + distance) }
        replay.session = session
        var packet = replay.blankPacket()
        while position < indices.upperBound, let frame = frame(at: position) {
            cursor.index = position
            replay.decode(frame, into: &packet)
            // In place: a stage (an annotation) may change it, and a copy would retain all it holds.
            if position >= indices.lowerBound { try body(&packet) }
            position += 1
        }
        replay.session.upcoming = nil
    }

    /// Decodes the packets at `positions` (0-based, ascending, any gaps) again, in runs: each
    /// run of positions less than a saved Session's interval apart decoded from one saved
    /// Session, the packets between them decoded but not handed over. `body` gets each wanted
    /// packet with its position. The one way the browser decodes a scattered set (the rows on
    /// screen, a search's next rows).
    public func decode(positions: [Int], buildsDisplayText: Bool, _ body: (Int, inout Packet) throws -> Void) rethrows {
        var start = 0
        while start < positions.count {
            var end = start + 1
            while end < positions.count, positions[end] - positions[end - 1] < interval { end += 1 }
            let run = positions[start ..< end]
            var position = run.first!, next = run.startIndex
            try decode(run.first! ..< run.last! + 1, buildsDisplayText: buildsDisplayText) { packet in
                defer { position += 1 }
                guard next < run.endIndex, run[next] == position else { return }
                next += 1
                try body(position, &packet)
            }
            start = end
        }
    }

    /// Every recorded packet decoded again in order by a decoder of its own with `options`
    /// (`btlog gatt` keeps each handle's last value), from an empty Session, as the first pass
    /// decoded them; returns the Session at the end (what the whole-capture reports read).
    public func decodeAll(options: DecodeOptions, _ body: (inout Packet) throws -> Void) rethrows -> Session {
        let replay = Decoder(options: options)
        let cursor = ReplayCursor()
        replay.session.upcoming = { [weak self, cursor] distance in self?.frame(at: cursor.index + distance) }
        var packet = replay.blankPacket()
        var position = 0
        while let frame = frame(at: position) {
            cursor.index = position
            replay.decode(frame, into: &packet)
            try body(&packet)
            position += 1
        }
        replay.session.upcoming = nil
        return replay.session
    }

    /// One packet, decoded again with its display text (the tree of the selected packet).
    public func packet(at index: Int) -> Packet? {
        guard index >= 0, index < count else { return nil }
        var found: Packet?
        decode(index ..< index + 1, buildsDisplayText: true) { found = $0 }
        return found
    }
}

/// Where a replay is: the index of the frame being decoded, read by its look-ahead.
private final class ReplayCursor: @unchecked Sendable {
    var index = 0
}
