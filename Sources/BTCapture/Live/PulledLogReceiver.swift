import Foundation
#if canImport(Glibc)
import Glibc

/// A source that keeps its own log and hands it over only when asked (an Android phone with no
/// snoop stream: its log comes in a bugreport). The capture waits for its stop (Ctrl-C,
/// SIGTERM, --duration), then pulls the log and passes on the frames of the capture's window.
/// A second Ctrl-C while pulling abandons the pull.
public final class PulledLogReceiver: LiveReceiver, @unchecked Sendable {
    /// What a pull gives: the log's frames (from readers read one after another: a log and the
    /// one it rotated out), and which of them belong to the capture.
    public struct Pulled {
        public let readers: [FrameReader]
        public let keep: (Frame) -> Bool
        public init(readers: [FrameReader], keep: @escaping (Frame) -> Bool) {
            self.readers = readers
            self.keep = keep
        }
    }

    let wake: WakePipe
    let deadline: Double?
    let controller: UInt16?
    let pull: (WakePipe) throws -> Pulled
    let queue: FrameQueue
    private let thread = ReceiveThread()
    private let lock = NSLock()
    private var reason: CaptureStop = .requested
    public private(set) var received = 0
    /// Frames of the pulled log outside the capture's window (from before it began).
    public private(set) var leftOut = 0
    /// Whether the log was pulled.
    public private(set) var pulled = false
    public var malformed: Int { 0 }
    public private(set) var sourceDrops: UInt32 = 0
    public var queueDrops: Int { queue.droppedCount }
    /// Called on the receive thread once the stop came and the pull begins.
    public var willPull: (() -> Void)?

    public init(wake: WakePipe, duration: Double?, controller: UInt16? = nil, queueLimit: Int = 256 << 20,
                pull: @escaping (WakePipe) throws -> Pulled) {
        self.wake = wake
        deadline = duration.map { monotonicNow() + $0 }
        self.controller = controller
        self.pull = pull
        queue = FrameQueue(limit: queueLimit)
    }

    public var stopReason: CaptureStop {
        lock.lock(); defer { lock.unlock() }
        return reason
    }

    public func start() {
        thread.start { [self] in
            run()
            queue.close()
        }
    }

    public func requestStop() { wake.wake(0) }
    public func waitUntilFinished() { thread.wait() }
    public func nextFrame(warn: (String) -> Void) -> Frame? { pop(queue, warn: warn) }

    private func run() {
        let stop = waitForStop()
        setReason(stop)
        // The consumer ending the capture (its output closed, a browser quit) wants nothing more.
        if stop == .requested { return }
        willPull?()
        do {
            let log = try pull(wake)
            pulled = true
            for reader in log.readers {
                while let frame = try reader.next() {
                    forward(reader)
                    guard log.keep(frame) else { leftOut += 1; continue }
                    if let controller, frame.controller != controller, frame.controller != Frame.systemController { continue }
                    var numbered = frame
                    received += 1
                    numbered.number = received
                    sourceDrops = frame.drops
                    queue.push(.frame(numbered))
                }
                forward(reader)
            }
        } catch let error as CaptureError {
            setReason(.failed(error.message))
        } catch {
            setReason(.failed("capture: \(error)"))
        }
    }

    private func forward(_ reader: FrameReader) {
        guard reader.hasWarnings else { return }
        for warning in reader.warnings { queue.push(.warning(warning.message)) }
        reader.warnings = []
    }

    private func setReason(_ stop: CaptureStop) {
        lock.lock()
        reason = stop
        lock.unlock()
    }

    /// Waits for the wake pipe or the deadline; the pipe is left empty, so that a second write
    /// (another Ctrl-C) can end the pull.
    private func waitForStop() -> CaptureStop {
        while true {
            var timeout: Int32 = 1000
            if let deadline {
                let left = deadline - monotonicNow()
                if left <= 0 { return .duration }
                timeout = Int32(min(1000, max(1, (left * 1000).rounded(.up))))
            }
            var fds = [pollfd(fd: wake.readFD, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 1, timeout)
            if ready < 0 && errno != EINTR { return .failed("capture: poll failed: \(systemErrorText(errno))") }
            if ready > 0, let byte = wake.drain() { return byte == 0 ? .requested : .signal(Int32(byte)) }
        }
    }
}
#endif
