import Foundation
#if canImport(Glibc)
import Glibc

/// Reads a live byte stream (a board's serial line, a btsnoop stream over TCP) on its own
/// thread: a FrameReader parses the bytes as they arrive, and its frames and warnings go
/// through the queue in order. The stream, not the reader, knows why reading ended.
public final class StreamReceiver: LiveReceiver, @unchecked Sendable {
    public struct Configuration: Sendable {
        /// Keep only this controller's frames (and the frames of no controller).
        public var controller: UInt16?
        public init(controller: UInt16? = nil) { self.controller = controller }
    }

    let stream: PolledStream
    let configuration: Configuration
    /// Builds the parser once the thread runs (a btsnoop stream's reader waits for its header).
    let makeReader: (BufferedReader) throws -> FrameReader
    let queue: FrameQueue
    private let thread = ReceiveThread()

    // Written by the receive thread, read by the consumer after `queue` closes.
    public private(set) var stopReason: CaptureStop = .requested
    public private(set) var received = 0
    /// No datagram to be malformed: a stream's damage is bytes skipped (`skippedBytes`).
    public var malformed: Int { 0 }
    public private(set) var sourceDrops: UInt32 = 0
    /// Bytes the parser skipped as no frame (noise on a serial line).
    public private(set) var skippedBytes = 0
    public var queueDrops: Int { queue.droppedCount }
    /// Bytes that came in, in all.
    public var bytesRead: Int { stream.bytesRead }

    public init(stream: PolledStream, configuration: Configuration = Configuration(), queueLimit: Int = 256 << 20,
                makeReader: @escaping (BufferedReader) throws -> FrameReader) {
        self.stream = stream
        self.configuration = configuration
        self.makeReader = makeReader
        queue = FrameQueue(limit: queueLimit)
    }

    public func start() { thread.start { [self] in run() } }

    public func requestStop() { stream.wake.wake(0) }

    public func waitUntilFinished() { thread.wait() }

    public func nextFrame(warn: (String) -> Void) -> Frame? { pop(queue, warn: warn) }

    /// What to say when a serial line gives only noise (told the bytes skipped since the last frame).
    public var noticeNoise: ((Int) -> String)?

    func run() {
        defer {
            stream.close()
            queue.close()
        }
        // Small chunks: a live line delivers a few bytes at a time, and each read returns what came.
        let input = BufferedReader(stream, chunkSize: 64 << 10)
        var reader: FrameReader?
        do {
            let opened = try makeReader(input)
            reader = opened
            if let serial = opened as? SerialMonitorReader, let notice = noticeNoise {
                serial.noticeNoise = { [queue] skipped in queue.push(.warning(notice(skipped))) }
            }
            forwardWarnings(opened)
            while let frame = try opened.next() {
                forwardWarnings(opened)
                sourceDrops = frame.drops
                if let wanted = configuration.controller, frame.controller != wanted, frame.controller != Frame.systemController { continue }
                var numbered = frame
                received += 1
                numbered.number = received
                queue.push(.frame(numbered))
            }
            forwardWarnings(opened)
            stopReason = stream.stopReason ?? .endOfInput
        } catch let error as CaptureError {
            if let reader { forwardWarnings(reader) }
            // A stop while a header was still awaited is a stop, not a broken stream.
            stopReason = stream.stopReason.map { $0 == .endOfInput ? .failed(error.message) : $0 } ?? .failed(error.message)
        } catch {
            stopReason = .failed("\(error)")
        }
    }

    private func forwardWarnings(_ reader: FrameReader) {
        if let serial = reader as? SerialMonitorReader { skippedBytes = serial.skippedBytes }
        guard reader.hasWarnings else { return }
        for warning in reader.warnings { queue.push(.warning(warning.message)) }
        reader.warnings = []
    }
}
#endif
