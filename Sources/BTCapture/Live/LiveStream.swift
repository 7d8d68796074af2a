#if canImport(Glibc)
import Glibc

/// A live byte stream (a serial line, a TCP connection) read by a capture: each read waits for
/// bytes, a stop request (the wake pipe: SIGINT, SIGTERM, the consumer) or the end of
/// `--duration`, whichever comes first. Once told to stop it hands out what had already arrived
/// and then ends, so nothing that reached the machine before the stop is lost.
public final class PolledStream: ByteStream {
    public let fd: Int32
    let name: String
    let wake: WakePipe
    /// Shared with the other streams the capture reads at once (a tapped UART's two wires).
    let latch: StopLatch
    let deadline: Double?
    /// Run once when the stream is done with (a serial line's settings restored, the descriptor closed).
    private var closing: (() -> Void)?
    /// Why the stream ended, once it has.
    public private(set) var stopReason: CaptureStop?
    /// The wall clock (µs since the Unix epoch) when the last bytes arrived.
    public private(set) var lastArrival: Int64 = 0
    /// Bytes read in all.
    public private(set) var bytesRead = 0
    private var draining = false

    public init(fd: Int32, name: String, wake: WakePipe, latch: StopLatch = StopLatch(), duration: Double?, closing: (() -> Void)? = nil) {
        self.fd = fd
        self.name = name
        self.wake = wake
        self.latch = latch
        deadline = duration.map { monotonicNow() + $0 }
        self.closing = closing
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    deinit { close() }

    public func close() {
        closing?()
        closing = nil
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if draining { return readNow(buffer) ?? 0 }
        if stopReason != nil { return 0 }
        while true {
            var timeout: Int32 = 1000
            if let deadline {
                let left = deadline - monotonicNow()
                if left <= 0 { return stop(.duration, buffer) }
                timeout = Int32(min(1000, max(1, (left * 1000).rounded(.up))))
            }
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wake.readFD, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, timeout)
            if ready < 0 {
                if errno == EINTR { continue }
                stopReason = .failed("capture: poll failed: \(systemErrorText(errno))")
                return 0
            }
            if fds[1].revents != 0 { return stop(latch.take(wake), buffer) }
            if fds[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                let n = SystemCalls.read(fd, buffer.baseAddress, buffer.count)
                if n > 0 {
                    arrived(n)
                    return n
                }
                if n == 0 { stopReason = .endOfInput; return 0 }
                switch errno {
                case EAGAIN, EWOULDBLOCK, EINTR: continue
                case EIO: stopReason = .endOfInput; return 0   // a serial device unplugged, a pty's other side closed
                default:
                    stopReason = .failed("capture: \(name): read failed: \(systemErrorText(errno))")
                    return 0
                }
            }
            if fds[0].revents & Int16(POLLNVAL) != 0 {
                stopReason = .failed("capture: \(name) was closed")
                return 0
            }
        }
    }

    /// Stops, but first hands out what had already arrived: until a read finds nothing, or 16 MiB
    /// have been handed out (a source that never pauses, a TCP peer streaming a large file, would
    /// otherwise keep the stop from ever coming).
    private func stop(_ reason: CaptureStop, _ buffer: UnsafeMutableRawBufferPointer) -> Int {
        stopReason = reason
        draining = true
        drainLeft = Self.drainLimit
        return readNow(buffer) ?? 0
    }

    static let drainLimit = 16 << 20
    private var drainLeft = 0

    private func readNow(_ buffer: UnsafeMutableRawBufferPointer) -> Int? {
        let n = drainLeft > 0 ? SystemCalls.read(fd, buffer.baseAddress, min(buffer.count, drainLeft)) : 0
        guard n > 0 else { draining = false; return nil }
        drainLeft -= n
        arrived(n)
        return n
    }

    private func arrived(_ n: Int) {
        lastArrival = wallClockMicroseconds()
        bytesRead += n
    }
}

/// A serial port set up as btmon sets one: raw (no echo, no line editing, no translation of
/// bytes), 8N1, the receiver on, modem lines ignored, at the given speed, with or without
/// RTS/CTS flow control. The port's own settings come back when the capture ends.
public enum SerialLine {
    /// The speeds termios can set, in bits per second.
    public static let speeds: [Int: speed_t] = [
        9600: speed_t(B9600), 19200: speed_t(B19200), 38400: speed_t(B38400), 57600: speed_t(B57600),
        115200: speed_t(B115200), 230400: speed_t(B230400), 460800: speed_t(B460800), 500000: speed_t(B500000),
        576000: speed_t(B576000), 921600: speed_t(B921600), 1000000: speed_t(B1000000), 1152000: speed_t(B1152000),
        1500000: speed_t(B1500000), 2000000: speed_t(B2000000), 2500000: speed_t(B2500000), 3000000: speed_t(B3000000),
        3500000: speed_t(B3500000), 4000000: speed_t(B4000000),
    ]

    /// What a person is told of a speed termios cannot set.
    public static func unsupported(_ speed: Int) -> String {
        "--speed \(speed) is not a speed a serial port takes (\(speeds.keys.sorted().map(String.init).joined(separator: ", ")))"
    }

    /// Opens `path` and sets the line; `closing` puts its settings back and closes it.
    public static func open(_ path: String, speed: Int, flowControl: Bool) throws -> (fd: Int32, closing: () -> Void) {
        guard let rate = speeds[speed] else { throw CaptureError(unsupported(speed)) }
        let fd = Glibc.open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 { throw openError(path, errno) }
        guard isatty(fd) == 1 else {
            Glibc.close(fd)
            throw CaptureError("\(path) is not a serial port (a terminal device such as /dev/ttyACM0 or /dev/ttyUSB0)")
        }
        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else {
            let code = errno
            Glibc.close(fd)
            throw CaptureError("\(path): cannot read the line's settings: \(systemErrorText(code))")
        }
        var line = saved
        cfmakeraw(&line)
        line.c_cflag |= tcflag_t(CLOCAL | CREAD)
        line.c_cflag &= ~tcflag_t(CSTOPB | PARENB)
        if flowControl { line.c_cflag |= tcflag_t(CRTSCTS) } else { line.c_cflag &= ~tcflag_t(CRTSCTS) }
        cfsetispeed(&line, rate)
        cfsetospeed(&line, rate)
        _ = tcflush(fd, TCIOFLUSH)   // bytes from before the capture are not the board's frames now
        guard tcsetattr(fd, TCSANOW, &line) == 0 else {
            let code = errno
            Glibc.close(fd)
            throw CaptureError("\(path): cannot set the line to \(speed) bit/s: \(systemErrorText(code))")
        }
        return (fd, {
            var original = saved
            _ = tcsetattr(fd, TCSANOW, &original)
            Glibc.close(fd)
        })
    }

    static func openError(_ path: String, _ code: Int32) -> CaptureError {
        switch code {
        case ENOENT, ENXIO, ENODEV:
            return CaptureError("\(path): no such serial port (is the board plugged in? ls /dev/ttyACM* /dev/ttyUSB* lists the ones there are)")
        case EACCES, EPERM:
            return CaptureError("\(path): permission denied (join the group that owns it, usually dialout: sudo usermod -aG dialout $USER, then log in again)")
        case EBUSY:
            return CaptureError("\(path) is in use by another program")
        default:
            return CaptureError("\(path): \(systemErrorText(code))")
        }
    }
}

/// A TCP connection to HOST:PORT (a btsnoop stream: Android's snoop service behind adb forward).
public enum TCPConnection {
    // SOCK_STREAM: not visible from Swift in every build of the Glibc module.
    static let streamSocket: Int32 = 1

    /// Whether the peer sends within `seconds`: true once bytes wait (left unread for the
    /// stream's reader), false when it closed first (adb forward closes a connection the phone
    /// refused), nil when it said nothing.
    public static func firstBytes(_ fd: Int32, within seconds: Double) -> Bool? {
        let deadline = monotonicNow() + seconds
        while true {
            let left = deadline - monotonicNow()
            if left <= 0 { return nil }
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 1, Int32(left * 1000) + 1)
            if ready < 0 { if errno == EINTR { continue }; return false }
            if ready == 0 { return nil }
            var byte: UInt8 = 0
            return recv(fd, &byte, 1, peekFlag) > 0
        }
    }

    // MSG_PEEK, which some builds of the Glibc module do not show either.
    static let peekFlag: Int32 = 2

    public static func open(_ address: String) throws -> Int32 {
        guard let colon = address.lastIndex(of: ":"), colon != address.startIndex,
              let port = UInt16(address[address.index(after: colon)...]), port > 0 else {
            throw CaptureError("--tcp takes HOST:PORT, such as localhost:8872, not '\(address)'")
        }
        var host = String(address[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = streamSocket
        var found: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &found)
        guard status == 0, let first = found else {
            throw CaptureError("--tcp \(address): cannot find host '\(host)': \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(found) }
        var lastError: Int32 = 0
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let candidate = entry {
            let fd = socket(candidate.pointee.ai_family, candidate.pointee.ai_socktype | MonitorSocket.closeOnExec, candidate.pointee.ai_protocol)
            if fd >= 0 {
                if connect(fd, candidate.pointee.ai_addr, candidate.pointee.ai_addrlen) == 0 { return fd }
                lastError = errno
                Glibc.close(fd)
            } else {
                lastError = errno
            }
            entry = candidate.pointee.ai_next
        }
        if lastError == ECONNREFUSED {
            throw CaptureError("--tcp \(address): connection refused (nothing listens there; for a phone, forward its port first: adb forward tcp:8872 tcp:8872)")
        }
        throw CaptureError("--tcp \(address): cannot connect: \(systemErrorText(lastError))")
    }
}
#endif
