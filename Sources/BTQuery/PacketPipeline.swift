import BTCapture
import BTDecode

/// What a chain ends in: the packets every stage kept, one at a time (a renderer, an exporter).
public protocol PacketSink {
    mutating func consume(_ packet: Packet) throws
    /// True once the sink wants no more packets (grep -m, -l): reading stops.
    var isSatisfied: Bool { get }
}

extension PacketSink {
    public var isSatisfied: Bool { false }
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

    public init(decoder: Decoder, stages: [any PacketStage] = [], onWarning: @escaping (CaptureWarning) -> Void) {
        self.decoder = decoder
        self.stages = stages
        self.onWarning = onWarning
    }

    public mutating func run<Sink: PacketSink>(_ reader: FrameReader, into sink: inout Sink) throws {
        drainWarnings(reader)
        // One Packet for the whole run: each frame is decoded into it, reusing its storage (in
        // place: a copy of it would retain and release everything it holds).
        var reused: Packet?
        var context = StageContext()
        var first = true
        reading: while let frame = try reader.next() {
            drainWarnings(reader)
            try tap?(frame)
            if first {
                context.captureStart = frame.timestamp
                first = false
            }
            if reused == nil {
                reused = decoder.decode(frame)
            } else {
                decoder.decode(frame, into: &reused!)
            }
            var kept = true, stop = false
            for index in stages.indices {
                switch stages[index].process(&reused!, context: context) {
                case .keep: continue
                case .keepAndStop: stop = true
                case .drop: kept = false
                }
                if !kept { break }
            }
            if kept {
                try sink.consume(reused!)
                statistics.add(reused!)
                if sink.isSatisfied { stop = true }
            }
            // A stage that saw its last packet ends the reading, even if a later stage dropped it.
            if stop {
                readAll = false
                break reading
            }
        }
        drainWarnings(reader)
    }

    /// What was still open when the input ended (PDUs, requests), reported against the packets
    /// that opened it; nothing when a stage stopped the run early (the rest was never read).
    public mutating func finish() -> [SessionReport] {
        readAll ? decoder.finish() : []
    }

    private func drainWarnings(_ reader: FrameReader) {
        guard !reader.warnings.isEmpty else { return }
        for warning in reader.warnings { onWarning(warning) }
        reader.warnings.removeAll()
    }
}
