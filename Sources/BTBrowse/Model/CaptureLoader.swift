import BTCapture
import BTDecode
import BTQuery
import Foundation

/// The browser's first pass: reads a capture on a thread of its own, decoding every frame for
/// the list, and fills a PacketIndex while the user already reads what has arrived.
public final class CaptureLoader: @unchecked Sendable { // the mutable state is behind `lock`
    public let index: PacketIndex
    private let lock = NSLock()
    private var done = false
    private var failure: String?
    private var warnings: [String] = []
    private var stopRequested = false
    private let finished = NSCondition()

    /// Sees every frame before the index does (`capture --browse` writes the -w file there).
    public var tap: ((Frame) throws -> Void)?

    public init(index: PacketIndex) {
        self.index = index
    }

    /// Whether the input has ended (or failed, or was stopped).
    public var isFinished: Bool { lock.withLock { done } }
    /// Why reading stopped early: a read error (a file that shrank, a socket that closed).
    public var error: String? { lock.withLock { failure } }
    /// Damage the reader reported (a truncated last record), in order.
    public var readWarnings: [String] { lock.withLock { warnings } }

    /// Asks the reading to stop at the next packet.
    public func stop() { lock.withLock { stopRequested = true } }

    var shouldStop: Bool { lock.withLock { stopRequested } }

    /// Reads `reader` to its end on a new thread (`live`: frames arrive as they happen, a
    /// followed file or a capture socket).
    public func start(_ reader: FrameReader, live: Bool) {
        let thread = Thread { [self] in
            load(reader, live: live)
        }
        thread.stackSize = 1 << 24
        thread.start()
    }

    /// Reads on the calling thread (what `start` runs; tests call it directly).
    public func load(_ reader: FrameReader, live: Bool) {
        let index = self.index
        var pipeline = PacketPipeline(decoder: index.decoder, onWarning: { [self] warning in
            lock.withLock { warnings.append(warning.message) }
        })
        pipeline.live = live
        pipeline.oneThread = true
        let tap = self.tap
        pipeline.tap = { frame in
            try tap?(frame)
            index.record(frame)
        }
        var sink = Sink(loader: self)
        do {
            try pipeline.run(reader, into: &sink)
        } catch let error as CaptureError {
            lock.withLock { failure = error.message }
        } catch {
            lock.withLock { failure = "\(error)" }
        }
        finished.lock()
        lock.withLock { done = true }
        finished.broadcast()
        finished.unlock()
    }

    /// Waits until the reading has ended.
    public func waitUntilFinished() {
        finished.lock()
        while !isFinished { finished.wait() }
        finished.unlock()
    }

    private struct Sink: PacketSink {
        let loader: CaptureLoader
        mutating func consume(_ packet: Packet) throws { loader.index.noteDecoded(packet) }
        var isSatisfied: Bool { loader.shouldStop }
    }
}
