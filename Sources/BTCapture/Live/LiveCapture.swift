import Foundation
#if canImport(Glibc)
import Glibc

/// Why a live capture ended.
public enum CaptureStop: Equatable, Sendable {
    case signal(Int32)
    case duration
    /// The consumer asked (enough packets, or its output closed).
    case requested
    /// The peer closed the descriptor (a test's socketpair; the kernel's socket never does).
    case endOfInput
    /// A whole message, printed as it is after "btlog: " (a fragment names its context itself).
    case failed(String)
}

/// Frames from the receive thread to the consumer, in arrival order. The receive loop never
/// waits for a slow terminal or disk (the kernel would drop frames unseen); instead the queue
/// holds up to `limit` bytes, and past that frames are dropped here and counted, so memory
/// stays bounded however long the output stalls, and the status line says what was lost.
final class FrameQueue: @unchecked Sendable {
    enum Item { case frame(Frame), warning(String) }
    private let condition = NSCondition()
    private var items: [Item] = []
    private var head = 0
    private var closed = false
    private var queuedBytes = 0
    let limit: Int
    /// Frames dropped because the queue was full.
    private(set) var dropped = 0

    /// 256 MiB: minutes of a busy controller's traffic.
    init(limit: Int = 256 << 20) { self.limit = limit }

    /// What an item costs in memory: its bytes and the Frame around them.
    static func cost(_ item: Item) -> Int {
        switch item {
        case .frame(let frame): return frame.bytes.count + 96
        case .warning(let text): return text.utf8.count + 96
        }
    }

    func push(_ item: Item) {
        let cost = Self.cost(item)
        condition.lock()
        if queuedBytes + cost > limit {
            dropped += 1
        } else {
            queuedBytes += cost
            items.append(item)
            condition.signal()
        }
        condition.unlock()
    }

    var droppedCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return dropped
    }

    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// The next item, waiting for one; nil once closed and empty.
    func pop() -> Item? {
        condition.lock()
        defer { condition.unlock() }
        while head == items.count && !closed { condition.wait() }
        guard head < items.count else { return nil }
        let item = items[head]
        head += 1
        queuedBytes -= Self.cost(item)
        if head == items.count || head > 4096 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return item
    }
}

/// A self-pipe: signal handlers and other threads wake the receive loop's poll through it.
public final class WakePipe: @unchecked Sendable {
    public let readFD: Int32
    public let writeFD: Int32

    public init() throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else {
            throw CaptureError("capture: cannot create a pipe: \(systemErrorText(errno))")
        }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        readFD = fds[0]
        writeFD = fds[1]
    }

    public func wake(_ byte: UInt8 = 0) {
        var byte = byte
        _ = SystemCalls.write(writeFD, &byte, 1)
    }

    /// The last byte written, if any (drains the pipe).
    func drain() -> UInt8? {
        var last: UInt8?
        var byte: UInt8 = 0
        while SystemCalls.read(readFD, &byte, 1) == 1 { last = byte }
        return last
    }

    deinit { close(readFD); close(writeFD) }
}

/// SIGINT and SIGTERM end a capture cleanly: the handler only writes the signal number to a pipe.
public enum StopSignals {
    nonisolated(unsafe) static var wakeFD: Int32 = -1

    public static func install(_ pipe: WakePipe) {
        wakeFD = pipe.writeFD
        for signalNumber in [SIGINT, SIGTERM] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = SystemCalls.write(StopSignals.wakeFD, &byte, 1)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            sigaction(signalNumber, &action, nil)
        }
    }

    public static func restoreDefaults() {
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
        wakeFD = -1
    }
}

/// What a capture reads from on a thread of its own (the kernel's monitor socket, a serial
/// line, a TCP stream): frames go through a queue to the consumer, who learns at the end why
/// it stopped and what was lost on the way.
public protocol LiveReceiver: AnyObject, Sendable {
    func start()
    /// Asks the receive loop to end (from the consumer); frames already queued stay readable.
    func requestStop()
    func waitUntilFinished()
    /// The next frame (warnings on the way go to `warn`); nil once the receiver ended.
    func nextFrame(warn: (String) -> Void) -> Frame?
    var stopReason: CaptureStop { get }
    var received: Int { get }
    var malformed: Int { get }
    /// Frames the source itself says it lost (the kernel's receive buffer, a board's own counters).
    var sourceDrops: UInt32 { get }
    /// Frames received but dropped because the consumer fell too far behind.
    var queueDrops: Int { get }
}

extension LiveReceiver {
    func pop(_ queue: FrameQueue, warn: (String) -> Void) -> Frame? {
        while let item = queue.pop() {
            switch item {
            case .frame(let frame): return frame
            case .warning(let text): warn(text)
            }
        }
        return nil
    }
}

/// A receiver's thread: started once, waited for by the consumer at the end.
final class ReceiveThread: @unchecked Sendable {
    private var thread: Thread?
    private let finished = NSCondition()
    private var isFinished = false

    func start(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread { [self] in
            body()
            finished.lock(); isFinished = true; finished.broadcast(); finished.unlock()
        }
        thread.name = "btlog-receive"
        thread.stackSize = 1 << 20
        self.thread = thread
        thread.start()
    }

    func wait() {
        finished.lock()
        while !isFinished { finished.wait() }
        finished.unlock()
    }
}

/// Reads monitor datagrams from a socket on its own thread and hands them on through a queue.
/// It only receives: parsing the 6-byte header is all the work done between reads.
public final class MonitorReceiver: LiveReceiver, @unchecked Sendable {
    public struct Configuration: Sendable {
        /// Keep only this controller's frames (and the frames of no controller).
        public var controller: UInt16?
        /// End after this many seconds.
        public var duration: Double?
        /// Poll the kernel's drop counter (real monitor sockets; a test socketpair has none).
        public var readsKernelDrops = true
        /// End once no frame has arrived for this many seconds (reading the kernel's replay).
        public var idleTimeout: Double?
        public init(controller: UInt16? = nil, duration: Double? = nil) {
            self.controller = controller
            self.duration = duration
        }
    }

    let fd: Int32
    let configuration: Configuration
    let queue: FrameQueue
    let wake: WakePipe
    private let thread = ReceiveThread()

    // Written by the receive thread, read by the consumer after `queue` closes.
    public private(set) var stopReason: CaptureStop = .requested
    public private(set) var received = 0
    public private(set) var malformed = 0
    public private(set) var kernelDrops: UInt32 = 0
    public var queueDrops: Int { queue.droppedCount }
    public var sourceDrops: UInt32 { kernelDrops }

    public func nextFrame(warn: (String) -> Void) -> Frame? { pop(queue, warn: warn) }

    /// 0 in the wake pipe means "stop requested"; any other byte is the signal that arrived.
    public init(fd: Int32, configuration: Configuration, wake: WakePipe, queueLimit: Int = 256 << 20) {
        self.fd = fd
        queue = FrameQueue(limit: queueLimit)
        self.configuration = configuration
        self.wake = wake
    }

    public func start() { thread.start { [self] in run() } }

    /// Asks the receive loop to end (from the consumer); frames already queued stay readable.
    public func requestStop() { wake.wake(0) }

    public func waitUntilFinished() { thread.wait() }

    func run() {
        var buffer = [UInt8](repeating: 0, count: MonitorDatagram.headerSize + 0x10000)
        var control = [UInt8](repeating: 0, count: 256)
        let deadline = configuration.duration.map { monotonicNow() + $0 }
        var lastDropCheck = monotonicNow()
        var lastFrame = monotonicNow()
        defer { queue.close() }
        while true {
            var timeout: Int32 = 1000
            if let deadline {
                let left = deadline - monotonicNow()
                if left <= 0 { stopReason = .duration; drainSocket(&buffer, &control); return }
                timeout = Int32(min(1000, max(1, (left * 1000).rounded(.up))))
            }
            if let idle = configuration.idleTimeout {
                let left = lastFrame + idle - monotonicNow()
                if left <= 0 { stopReason = .requested; return }
                timeout = min(timeout, Int32(max(1, (left * 1000).rounded(.up))))
            }
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wake.readFD, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, timeout)
            if ready < 0 {
                if errno == EINTR { continue }
                stopReason = .failed("capture: poll failed: \(systemErrorText(errno))")
                return
            }
            if fds[1].revents != 0, let byte = wake.drain() {
                stopReason = byte == 0 ? .requested : .signal(Int32(byte))
                drainSocket(&buffer, &control)
                return
            }
            if fds[0].revents & Int16(POLLIN) != 0 {
                switch receiveOne(&buffer, &control, flags: Int32(MSG_DONTWAIT)) {
                case .ended: stopReason = .endOfInput; return
                case .failed(let message): stopReason = .failed(message); return
                case .frame: lastFrame = monotonicNow()
                case .nothing: break
                }
            } else if fds[0].revents & Int16(POLLHUP) != 0 {
                stopReason = .endOfInput
                return
            } else if fds[0].revents & Int16(POLLERR | POLLNVAL) != 0 {
                stopReason = .failed("capture: the monitor socket failed")
                return
            }
            if configuration.readsKernelDrops, monotonicNow() - lastDropCheck >= 0.5 {
                lastDropCheck = monotonicNow()
                if let drops = MonitorSocket.kernelDrops(fd) { kernelDrops = drops }
            }
        }
    }

    /// Takes what the kernel had already queued when the capture was told to stop, so a
    /// SIGTERM loses nothing that arrived before it (bounded: a busy link never "drains").
    private func drainSocket(_ buffer: inout [UInt8], _ control: inout [UInt8]) {
        for _ in 0 ..< 100_000 {
            guard case .frame = receiveOne(&buffer, &control, flags: Int32(MSG_DONTWAIT)) else { break }
        }
        if configuration.readsKernelDrops, let drops = MonitorSocket.kernelDrops(fd) { kernelDrops = drops }
    }

    enum Outcome { case frame, nothing, ended, failed(String) }

    private func receiveOne(_ buffer: inout [UInt8], _ control: inout [UInt8], flags: Int32) -> Outcome {
        var timestamp: Int64?
        let count: Int = buffer.withUnsafeMutableBytes { data in
            control.withUnsafeMutableBytes { controlBytes in
                var vector = iovec(iov_base: data.baseAddress, iov_len: data.count)
                return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    var message = msghdr()
                    message.msg_iov = vectorPointer
                    message.msg_iovlen = 1
                    message.msg_control = controlBytes.baseAddress
                    message.msg_controllen = controlBytes.count
                    let n = recvmsg(fd, &message, flags)
                    if n > 0 { timestamp = Self.timestamp(in: &message) }
                    return n
                }
            }
        }
        if count < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return .nothing }
            return .failed("capture: receive failed: \(systemErrorText(errno))")
        }
        if count == 0 { return .ended }
        let stamp = timestamp ?? wallClockMicroseconds()
        let number = received + 1
        let (frame, problem) = MonitorDatagram.frame(buffer[0 ..< count], timestamp: stamp, number: number, drops: kernelDrops)
        if let problem { malformed += 1; queue.push(.warning(problem)) }
        guard let frame else { return .frame }
        if let wanted = configuration.controller, frame.controller != wanted, frame.controller != Frame.systemController {
            return .frame
        }
        received = number
        queue.push(.frame(frame))
        return .frame
    }

    /// The SO_TIMESTAMP control message (a struct timeval) of a received datagram. The
    /// CMSG_* macros are not visible from Swift; the layout is cmsghdr's, aligned to size_t.
    private static func timestamp(in message: inout msghdr) -> Int64? {
        guard let control = message.msg_control else { return nil }
        let total = Int(message.msg_controllen)
        let headerSize = MemoryLayout<cmsghdr>.size
        let align = MemoryLayout<Int>.size
        var offset = 0
        while offset + headerSize <= total {
            let header = control.advanced(by: offset).loadUnaligned(as: cmsghdr.self)
            let length = Int(header.cmsg_len)
            guard length >= headerSize, offset + length <= total else { return nil }
            if header.cmsg_level == SOL_SOCKET, header.cmsg_type == MonitorSocket.timestampOption,
               length - headerSize >= MemoryLayout<timeval>.size {
                let value = control.advanced(by: offset + headerSize).loadUnaligned(as: timeval.self)
                return Int64(value.tv_sec) * 1_000_000 + Int64(value.tv_usec)
            }
            offset += (length + align - 1) / align * align
        }
        return nil
    }
}

/// The frames of a live capture as a FrameReader, so the show pipeline reads them unchanged.
public final class LiveFrameReader: FrameReaderBase, FrameReader {
    public let receiver: LiveReceiver
    public let formatDescription: String

    public init(receiver: LiveReceiver, name: String, formatDescription: String = "Linux HCI monitor (live)") {
        self.receiver = receiver
        self.formatDescription = formatDescription
        super.init(name: name)
    }

    public var nativeFormat: CaptureFileFormat { .btsnoopMonitor }

    public func next() throws -> Frame? {
        receiver.nextFrame { warn($0) }
    }
}

func monotonicNow() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

func wallClockMicroseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
}
#endif
