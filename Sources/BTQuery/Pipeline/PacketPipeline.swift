import BTCapture
import BTDecode

/// What a chain ends in: the packets every stage kept, one at a time (a renderer, an exporter).
public protocol PacketSink {
    mutating func consume(_ packet: Packet) throws
    /// True once the sink wants no more packets (grep -m, -l): reading stops.
    var isSatisfied: Bool { get }
    /// Whether its work per packet (rendering, writing text or JSON) is worth a thread of its
    /// own, beside the decoding. A sink that can be satisfied says no: reading must stop at its
    /// packet, not a batch later.
    var runsOnItsOwnThread: Bool { get }
}

extension PacketSink {
    public var isSatisfied: Bool { false }
    public var runsOnItsOwnThread: Bool { false }
}

/// Decodes nothing further and keeps nothing: for runs whose output is a report on the whole
/// capture (`btlog gatt`, `capture --list`), made from the Session once the input ends.
public struct DiscardingSink: PacketSink {
    public init() {}
    public mutating func consume(_ packet: Packet) throws {}
}

/// The packet loop every command wires: read a frame, show it to the tap (capture -w writes
/// there), decode it (every frame: state such as connections spans packets), pass it through
/// the stages, hand what they keep to the sink, and count it.
public struct PacketPipeline {
    public let decoder: Decoder
    public var stages: [any PacketStage]
    /// Sees every frame read, before it is decoded.
    public var tap: ((Frame) throws -> Void)?
    /// Damage the reader reported (a truncated last record), as soon as it is known.
    public var onWarning: (CaptureWarning) -> Void
    /// The counts of every packet the stages kept (the status line).
    public private(set) var statistics = CaptureStatistics()
    /// False when a stage ended the run before the input did.
    public private(set) var readAll = true
    /// Frames arrive as they happen (standard input, --follow, a live capture): each packet
    /// goes to the sink as soon as it is decoded, never held back in a batch for another thread.
    public var live = false
    /// Keep the sink on the decoding thread: the run is one of several inputs decoded at once
    /// (InputJobs), which already keep every CPU busy.
    public var oneThread = false
    /// What the stages can tell before a frame is decoded (a filter): a frame they will drop is
    /// decoded without what only the view would read.
    private var foresight: ForesightByKind?
    /// What a frame the stages will drop is decoded with: the fields they read (the stages
    /// before the one that drops it still see it), no summary, display text only if a stage
    /// reads it.
    private var keptWhenDropped = FieldMask.only([])
    private var displayTextWhenDropped = false
    /// And any other: what the decoder's options say (read once per run).
    private var keptWhenKept = FieldMask.all
    private var displayTextWhenKept = true

    public init(decoder: Decoder, stages: [any PacketStage] = [], onWarning: @escaping (CaptureWarning) -> Void) {
        self.decoder = decoder
        self.stages = stages
        self.onWarning = onWarning
    }

    public mutating func run<Sink: PacketSink>(_ plainReader: FrameReader, into sink: inout Sink) throws {
        foresight = stages.foresight.map(ForesightByKind.init)
        keptWhenKept = decoder.options.keptFields
        displayTextWhenKept = decoder.options.buildsDisplayText
        keptWhenDropped = stages.fieldsToKeep(viewReads: .only([])).withoutSummaries
        displayTextWhenDropped = stages.needDisplayText(viewShowsFieldText: false)
        // Keys the reader found ahead (a merge's other sources) count from the first packet.
        decoder.session.adopt(plainReader.keysAhead)
        let usesSinkThread = sink.runsOnItsOwnThread && !live && !oneThread && SinkThreading.available
        // A reader worth a thread reads on one where the sink leaves the second CPU idle.
        var reader = plainReader
        var readAhead: ReadAheadReader?
        if plainReader.worthItsOwnThread && !usesSinkThread && !live && !oneThread && SinkThreading.available {
            readAhead = ReadAheadReader(plainReader)
            reader = readAhead!
        }
        defer { readAhead?.stop() }
        // Looking ahead waits for the frames it looks at: not for input that arrives as it happens.
        if !live {
            let lookahead = LookaheadReader(reader)
            decoder.session.upcoming = { [unowned lookahead] in lookahead.peek($0) }
            reader = lookahead
        }
        defer { decoder.session.upcoming = nil }
        if usesSinkThread {
            try runWithSinkThread(reader, into: &sink)
        } else {
            try runOnOneThread(reader, into: &sink)
        }
    }

    private mutating func runOnOneThread<Sink: PacketSink>(_ reader: FrameReader, into sink: inout Sink) throws {
        drainWarnings(reader)
        // One Packet for the whole run: each frame is decoded into it, reusing its storage (in
        // place: a copy of it would retain and release everything it holds, and so would reading
        // it out of an Optional).
        var reused = decoder.blankPacket()
        var context = StageContext()
        var first = true
        while let frame = try reader.next() {
            try arrive(frame, reader, &context, first: &first)
            var (kept, stop) = admit(consume frame, into: &reused, context)
            if kept {
                try sink.consume(reused)
                if sink.isSatisfied { stop = true }
            }
            if stop {
                readAll = false
                break
            }
        }
        drainWarnings(reader)
    }

    /// The same loop with the sink on a second core (PacketHandoff): this thread reads, decodes,
    /// runs the stages and counts; the sink's thread consumes the kept packets in order.
    private mutating func runWithSinkThread<Sink: PacketSink>(_ reader: FrameReader, into sink: inout Sink) throws {
        drainWarnings(reader)
        let handoff = PacketHandoff(sink)
        handoff.start()
        let batchSize = PacketHandoff<Sink>.batchSize
        var context = StageContext()
        var first = true
        var readFailure: Error?
        do {
            var batch = try handoff.takeEmpty()
            defer { handoff.pass(&batch) }
            while let frame = try reader.next() {
                try arrive(frame, reader, &context, first: &first)
                let slot = batch.count
                if slot == batch.packets.count { batch.packets.append(decoder.blankPacket()) }
                // Through the buffer: an array's subscript would copy the packet to read it.
                // Moved in through an Optional: a closure cannot consume what it captures, but it
                // can take it out of one.
                var frame = Optional(consume frame)
                let (kept, stop) = batch.packets.withUnsafeMutableBufferPointer { admit(frame.take()!, into: &$0[slot], context) }
                if kept {
                    batch.count += 1
                    if batch.count == batchSize { try handoff.exchange(&batch) }
                }
                if stop {
                    readAll = false
                    break
                }
            }
        } catch {
            readFailure = error
        }
        // The sink has every packet kept before a failure, as on one thread; what it threw comes
        // first (on one thread it would have ended the run before the reader's failure).
        let (finished, sinkFailure) = handoff.finish()
        sink = finished
        if let failure = sinkFailure ?? readFailure { throw failure }
        drainWarnings(reader)
    }

    /// Before a frame is decoded: the reader's warnings, the tap, the capture's first time.
    @inline(__always)
    private mutating func arrive(_ frame: Frame, _ reader: FrameReader, _ context: inout StageContext, first: inout Bool) throws {
        drainWarnings(reader)
        try tap?(frame)
        if first {
            context.captureStart = frame.timestamp
            first = false
        }
    }

    /// Decodes a frame into `packet` (in place) and runs the stages over it: whether it is kept
    /// (and then counted), and whether reading ends with it (a stage that saw its last packet
    /// ends the reading, even if a later stage dropped it). The frame is moved into the packet,
    /// not copied (a retain and a release a packet).
    @inline(__always)
    private mutating func admit(_ frame: consuming Frame, into packet: inout Packet, _ context: StageContext) -> (kept: Bool, stop: Bool) {
        if foresight != nil {
            if foresight!.mayKeep(frame.kind) {
                decoder.decode(consume frame, into: &packet, keeping: keptWhenKept, buildsDisplayText: displayTextWhenKept)
            } else {
                decoder.decode(consume frame, into: &packet, keeping: keptWhenDropped, buildsDisplayText: displayTextWhenDropped)
            }
        } else {
            decoder.decode(consume frame, into: &packet)
        }
        let (kept, stop) = stages.admit(&packet, context: context)
        if kept { statistics.add(packet) }
        return (kept, stop)
    }

    /// What was still open when the input ended (PDUs, requests), reported against the packets
    /// that opened it; nothing when a stage stopped the run early (the rest was never read).
    public mutating func finish() -> [SessionReport] {
        readAll ? decoder.finish() : []
    }

    private func drainWarnings(_ reader: FrameReader) {
        guard reader.hasWarnings else { return }
        for warning in reader.warnings { onWarning(warning) }
        reader.warnings.removeAll()
    }
}

/// A stage chain's foresight, asked once per run of frames of one kind: captures come in runs
/// (events, then data), and comparing kinds costs less than asking the filter.
struct ForesightByKind {
    let foresight: (FrameKind) -> Bool
    private var lastKind: FrameKind?
    private var lastAnswer = true

    init(_ foresight: @escaping (FrameKind) -> Bool) { self.foresight = foresight }

    @inline(__always)
    mutating func mayKeep(_ kind: FrameKind) -> Bool {
        if kind != lastKind {
            lastKind = kind
            lastAnswer = foresight(kind)
        }
        return lastAnswer
    }
}
