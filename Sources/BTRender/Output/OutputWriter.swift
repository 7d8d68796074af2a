import BTCapture
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one buffered writer for text output: lines are appended as UTF-8 and written in large
/// blocks. A closed pipe (`btlog show f | head`) is reported as `OutputClosed`, not a crash.
public final class OutputWriter {
    let fd: Int32
    var buffer: OutputBuffer
    let capacity: Int
    /// Flush after every line (live output to a terminal or a pipe that someone watches).
    public var lineBuffered = false

    public struct OutputClosed: Error {}
    public struct OutputFailed: Error, CustomStringConvertible {
        public let description: String
    }

    public init(fd: Int32 = 1, capacity: Int = 1 << 16) {
        self.fd = fd
        self.capacity = capacity
        buffer = OutputBuffer(capacity: capacity + 4096)
    }

    /// A writer that keeps what is rendered into it until `drain` reads it (a search renders a
    /// packet here to look at its text): it never writes anywhere.
    public static func capturing() -> OutputWriter {
        OutputWriter(fd: -1, capacity: 1 << 12)
    }

    /// Hands over what was written since the last drain, then forgets it.
    public func drain<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        defer { buffer.removeAll() }
        return try buffer.withBytes { try body($0.bindMemory(to: UInt8.self)) }
    }

    deinit { buffer.deallocate() }

    public var isTerminal: Bool { isatty(fd) != 0 }

    public func write(_ text: String) throws {
        var text = text
        text.withUTF8 { buffer.put($0) }
        if buffer.count >= capacity { try flush() }
    }

    public func line(_ text: String) throws {
        var text = text
        text.withUTF8 { buffer.put($0) }
        buffer.put(0x0A)
        if lineBuffered || buffer.count >= capacity { try flush() }
    }

    // Pieces of a line, for renderers that assemble it in place; `endLine()` completes it.
    @inline(__always) func append(_ text: String) { ASCII.append(text, to: &buffer) }

    /// Lends the buffer for a block of lines (appending to it in place is cheaper than through
    /// the class, append by append), then flushes as `line` would.
    func lines(_ write: (inout OutputBuffer) -> Void) throws {
        write(&buffer)
        if lineBuffered || buffer.count >= capacity { try flush() }
    }

    func endLine() throws {
        buffer.put(0x0A)
        if lineBuffered || buffer.count >= capacity { try flush() }
    }

    /// Bytes already encoded as UTF-8 (a JSON document in pieces).
    public func write(bytes: [UInt8]) throws {
        buffer.put(bytes)
        if buffer.count >= capacity { try flush() }
    }

    /// Bytes already written elsewhere (an input's spool, InputJobs).
    public func write(raw: UnsafeRawBufferPointer) throws {
        buffer.put(UnsafeBufferPointer(start: raw.baseAddress?.assumingMemoryBound(to: UInt8.self), count: raw.count))
        if buffer.count >= capacity { try flush() }
    }

    /// A line already encoded as UTF-8.
    public func line(bytes: [UInt8]) throws {
        buffer.put(bytes)
        buffer.put(0x0A)
        if lineBuffered || buffer.count >= capacity { try flush() }
    }

    public func flush() throws {
        if fd < 0 { return } // capturing: kept for `drain`
        defer { buffer.removeAll() }
        guard let code = buffer.withBytes({ writeFully(fd, $0) }) else { return }
        if code == EPIPE { throw OutputClosed() }
        throw OutputFailed(description: "write to output failed: \(String(cString: strerror(code)))")
    }

    /// Columns of the terminal, if the output is one.
    public var terminalWidth: Int? {
        guard isTerminal else { return nil }
        var size = winsize()
        if ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return nil
    }
}

