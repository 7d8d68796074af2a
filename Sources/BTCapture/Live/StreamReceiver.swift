import Foundation
#if canImport(Glibc)
import Glibc

/// Reads live byte streams (a board's serial line, a btsnoop stream over TCP, the two wires of
/// a tapped UART), each on a thread of its own: a FrameReader parses each stream's bytes as they
/// arrive, and the frames and warnings of all of them go through one queue in the order they
/// were parsed, numbered there. The streams, not the readers, know why reading ended.
public final class StreamReceiver: LiveReceiver, @unchecked Sendable {
    public struct Configuration: Sendable {
        /// Keep only this controller's frames (and the frames of no controller).
        public var controller: UInt16?
        public init(controller: UInt16? = nil) { self.controller = controller }
    }

    /// One stream, and how to build the parser of its bytes (on its thread: a btsnoop stream's
    /// reader waits for the header).
    public struct Source {
        public let stream: PolledStream
        public let makeReader: (BufferedReader) throws -> FrameReader
        public init(stream: PolledStream, makeReader: @escaping (BufferedReader) throws -> FrameReader) {
            self.stream = stream
            self.makeReader = makeReader
        }
    }

    let sources: [Source]
    let configuration: Configuration
    let queue: FrameQueue
    private let threads: [ReceiveThread]
    /// Numbering and queueing are one step, so numbers follow the queue's order.
    private let lock = NSLock()

    // Written by the receive threads under `lock`; read by the consumer after every thread ended.
    private var reasons: [CaptureStop?]
    public private(set) var received = 0
    /// No datagram to be malformed: a stream's damage is bytes skipped (`skippedBytes`).
    public var malformed: Int { 0 }
    private var drops: [UInt32]
    private var skipped: [Int]
    public var queueDrops: Int { queue.droppedCount }

    public init(sources: [Source], configuration: Configuration = Configuration(), queueLimit: Int = 256 << 20) {
        precondition(!sources.isEmpty)
        self.sources = sources
        self.configuration = configuration
        queue = FrameQueue(limit: queueLimit)
        threads = sources.map { _ in ReceiveThread() }
        reasons = Array(repeating: nil, count: sources.count)
        drops = Array(repeating: 0, count: sources.count)
        skipped = Array(repeating: 0, count: sources.count)
    }

    public convenience init(stream: PolledStream, configuration: Configuration = Configuration(), queueLimit: Int = 256 << 20,
                            makeReader: @escaping (BufferedReader) throws -> FrameReader) {
        self.init(sources: [Source(stream: stream, makeReader: makeReader)], configuration: configuration, queueLimit: queueLimit)
    }

    /// Why reading ended: a stop, the duration or a failure on any stream; the end of input
    /// once every stream ended by itself.
    public var stopReason: CaptureStop {
        lock.lock(); defer { lock.unlock() }
        return reasons.compactMap { $0 }.first { $0 != .endOfInput } ?? .endOfInput
    }

    /// Frames the sources themselves reported lost (a board's drop counters), in all.
    public var sourceDrops: UInt32 {
        lock.lock(); defer { lock.unlock() }
        return drops.reduce(0, &+)
    }

    /// Bytes the parsers skipped as no frame (noise on a serial line), in all.
    public var skippedBytes: Int {
        lock.lock(); defer { lock.unlock() }
        return skipped.reduce(0, +)
    }

    /// Bytes that came in, in all.
    public var bytesRead: Int { sources.reduce(0) { $0 + $1.stream.bytesRead } }

    /// What to say when a serial line gives only noise (told the bytes skipped since the last frame).
    public var noticeNoise: ((Int) -> String)?

    private let ended = NSCondition()
    private var running = 0

    public func start() {
        running = sources.count
        for (index, thread) in threads.enumerated() {
            thread.start { [self] in
                run(index)
                ended.lock()
                running -= 1
                if running == 0 { queue.close() }
                ended.unlock()
            }
        }
    }

    public func requestStop() { sources[0].stream.wake.wake(0) }

    public func waitUntilFinished() { threads.forEach { $0.wait() } }

    public func nextFrame(warn: (String) -> Void) -> Frame? { pop(queue, warn: warn) }

    func run(_ index: Int) {
        let stream = sources[index].stream
        defer { stream.close() }
        // Small chunks: a live line delivers a few bytes at a time, and each read returns what came.
        let input = BufferedReader(stream, chunkSize: 64 << 10)
        var reader: FrameReader?
        var reason: CaptureStop
        do {
            let opened = try sources[index].makeReader(input)
            reader = opened
            if let notice = noticeNoise {
                let notify: (Int) -> Void = { [queue] skipped in queue.push(.warning(notice(skipped))) }
                (opened as? SerialMonitorReader)?.noticeNoise = notify
            }
            forwardWarnings(opened, index)
            while let frame = try opened.next() {
                forwardWarnings(opened, index)
                lock.lock()
                drops[index] = frame.drops
                if let wanted = configuration.controller, frame.controller != wanted, frame.controller != Frame.systemController {
                    lock.unlock()
                    continue
                }
                var numbered = frame
                received += 1
                numbered.number = received
                queue.push(.frame(numbered))
                lock.unlock()
            }
            forwardWarnings(opened, index)
            reason = stream.stopReason ?? .endOfInput
        } catch let error as CaptureError {
            if let reader { forwardWarnings(reader, index) }
            // A stop while a header was still awaited is a stop, not a broken stream.
            let failure = CaptureStop.failed("capture: \(error.message)")
            reason = stream.stopReason.map { $0 == .endOfInput ? failure : $0 } ?? failure
        } catch {
            reason = .failed("capture: \(error)")
        }
        lock.lock()
        reasons[index] = reason
        lock.unlock()
    }

    private func forwardWarnings(_ reader: FrameReader, _ index: Int) {
        lock.lock()
        defer { lock.unlock() }
        if let skipping = reader as? NoiseSkipping { skipped[index] = skipping.skippedBytes }
        guard reader.hasWarnings else { return }
        for warning in reader.warnings { queue.push(.warning(warning.message)) }
        reader.warnings = []
    }
}

/// A stop shared by the streams one capture reads at once: the first stream to see the wake
/// pipe takes the reason (SIGINT, SIGTERM, the consumer's request) and leaves the pipe readable,
/// so every other stream's wait ends too and finds the same reason.
public final class StopLatch: @unchecked Sendable {
    private let lock = NSLock()
    private var reason: CaptureStop?

    public init() {}

    func take(_ wake: WakePipe) -> CaptureStop {
        lock.lock()
        defer { lock.unlock() }
        if let reason { return reason }
        let byte = wake.drain() ?? 0
        let taken: CaptureStop = byte == 0 ? .requested : .signal(Int32(byte))
        reason = taken
        wake.wake(byte)
        return taken
    }
}
#endif
