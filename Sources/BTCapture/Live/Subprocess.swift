#if canImport(Glibc)
import Glibc

/// A program a capture runs to reach a device (adb): spawned in a process group of its own, so
/// the terminal's Ctrl-C reaches btlog alone and btlog decides what the program's end is; bounded
/// in time; ended early when the capture's wake pipe is written (a second Ctrl-C, SIGTERM).
public enum Subprocess {
    public struct Result: Sendable {
        /// The exit status, or 128 + the signal that ended it.
        public let status: Int32
        /// Standard output (empty when it was passed on).
        public let output: String
        public let errors: String
    }

    public enum Failure: Error, Equatable {
        /// No such program on PATH.
        case notFound(String)
        case timedOut(Double)
        /// The wake pipe was written while the program ran.
        case stopped
        case cannotStart(String)
    }

    /// Runs `arguments` (the program looked up on PATH) to its end, collecting its output, or
    /// passing both output streams on to `passOutputTo` (a descriptor of btlog's, such as
    /// standard error) when given.
    public static func run(_ arguments: [String], timeout: Double?, wake: WakePipe? = nil,
                           passOutputTo: Int32? = nil) throws -> Result {
        precondition(!arguments.isEmpty)
        var outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1]
        if passOutputTo == nil {
            guard pipe(&outPipe) == 0 else { throw Failure.cannotStart(systemErrorText(errno)) }
            guard pipe(&errPipe) == 0 else {
                let code = errno
                close(outPipe[0]); close(outPipe[1])
                throw Failure.cannotStart(systemErrorText(code))
            }
            for fd in [outPipe[0], errPipe[0]] {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        keepDescriptorsFromPrograms()
        if let passOutputTo {
            posix_spawn_file_actions_adddup2(&actions, passOutputTo, 1)
            posix_spawn_file_actions_adddup2(&actions, passOutputTo, 2)
        } else {
            posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
            posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
            posix_spawn_file_actions_addclose(&actions, outPipe[1])
            posix_spawn_file_actions_addclose(&actions, errPipe[1])
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signalNumber in [SIGINT, SIGTERM, SIGPIPE] { sigaddset(&defaults, signalNumber) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF))

        let cArguments: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, arguments[0], &actions, &attributes, cArguments, environ)
        if passOutputTo == nil { close(outPipe[1]); close(errPipe[1]) }
        guard spawned == 0 else {
            if passOutputTo == nil { close(outPipe[0]); close(errPipe[0]) }
            if spawned == ENOENT { throw Failure.notFound(arguments[0]) }
            throw Failure.cannotStart("\(arguments[0]): \(systemErrorText(spawned))")
        }

        var output: [UInt8] = [], errors: [UInt8] = []
        var open = passOutputTo == nil ? [outPipe[0], errPipe[0]] : []
        defer { open.forEach { close($0) } }
        let deadline = timeout.map { monotonicNow() + $0 }
        var status: Int32?
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            // The program's end, not its pipes', ends the wait: a server it started (adb's) may
            // hold them open for good. What it wrote before it ended is read first.
            if let ended = reap(pid, wait: false) {
                for fd in open {
                    if fd == outPipe[0] { drainAvailable(fd, into: &output) } else { drainAvailable(fd, into: &errors) }
                }
                status = ended
                break
            }
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if let wake { fds.append(pollfd(fd: wake.readFD, events: Int16(POLLIN), revents: 0)) }
            var slice: Int32 = 100
            if let deadline {
                let left = deadline - monotonicNow()
                if left <= 0 { end(pid); throw Failure.timedOut(timeout ?? 0) }
                slice = Int32(min(100, max(1, (left * 1000).rounded(.up))))
            }
            let ready = poll(&fds, nfds_t(fds.count), slice)
            if ready < 0 && errno != EINTR { end(pid); throw Failure.cannotStart("poll failed: \(systemErrorText(errno))") }
            if wake != nil, let last = fds.last, last.revents != 0 { end(pid); throw Failure.stopped }
            for entry in fds where entry.fd != wake?.readFD && entry.revents != 0 {
                let n = buffer.withUnsafeMutableBytes { SystemCalls.read(entry.fd, $0.baseAddress, $0.count) }
                if n > 0 {
                    // Bounded: a program that prints without end must not fill the memory.
                    if entry.fd == outPipe[0] { if output.count < 64 << 20 { output += buffer[..<n] } } else if errors.count < 1 << 20 { errors += buffer[..<n] }
                } else if n == 0 || (errno != EAGAIN && errno != EINTR) {
                    close(entry.fd)
                    open.removeAll { $0 == entry.fd }
                }
            }
        }
        return Result(status: status ?? 0, output: String(decoding: output, as: UTF8.self),
                      errors: String(decoding: errors, as: UTF8.self))
    }

    private static func drainAvailable(_ fd: Int32, into bytes: inout [UInt8]) {
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while bytes.count < 64 << 20 {
            let n = buffer.withUnsafeMutableBytes { SystemCalls.read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { return }
            bytes += buffer[..<n]
        }
    }

    /// Nothing else of btlog's goes to a program, nor to what it leaves running (adb's server):
    /// a descriptor btlog inherited without close-on-exec (its parent's pipe or socket) would
    /// be held open after btlog ended, and the parent would wait for it. (glibc's closefrom
    /// file action is not visible from Swift.)
    private static func keepDescriptorsFromPrograms() {
        guard let folder = opendir("/proc/self/fd") else { return }
        defer { closedir(folder) }
        let own = dirfd(folder)
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let fd = Int32(name), fd > 2, fd != own else { continue }
            let flags = fcntl(fd, F_GETFD)
            if flags >= 0 && flags & FD_CLOEXEC == 0 { _ = fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
        }
    }

    /// The status of `pid` once it ended (nil while it runs, when not waiting).
    private static func reap(_ pid: pid_t, wait: Bool) -> Int32? {
        var raw: Int32 = 0
        while true {
            let result = waitpid(pid, &raw, wait ? 0 : WNOHANG)
            if result == pid { break }
            if result == 0 { return nil }
            if errno == EINTR { continue }
            return 127
        }
        let signal = raw & 0x7F
        return signal == 0 ? (raw >> 8) & 0xFF : 128 + signal
    }

    /// Ends a program btlog no longer waits for: asked first, then killed.
    private static func end(_ pid: pid_t) {
        kill(-pid, SIGTERM)
        for _ in 0..<20 {
            if reap(pid, wait: false) != nil { return }
            usleep(50_000)
        }
        kill(-pid, SIGKILL)
        _ = reap(pid, wait: true)
    }
}
#endif
