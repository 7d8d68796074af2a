#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A source of bytes read front to back: a file, a pipe, a decompressor.
public protocol ByteStream: AnyObject {
    /// Reads up to `buffer.count` bytes; returns 0 at the end of the stream.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}

/// Reads a file descriptor (a file, standard input, a pipe or FIFO).
public final class FileDescriptorStream: ByteStream {
    public let fd: Int32
    let name: String
    let ownsDescriptor: Bool

    public init(fd: Int32, name: String, ownsDescriptor: Bool) {
        self.fd = fd
        self.name = name
        self.ownsDescriptor = ownsDescriptor
    }

    /// Opens a path for reading, with an error that says why it cannot be read.
    public convenience init(path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { throw CaptureError("\(path): \(systemErrorText(errno))") }
        var info = stat()
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw CaptureError("\(path): is a directory")
        }
        self.init(fd: fd, name: path, ownsDescriptor: true)
    }

    deinit { if ownsDescriptor { close(fd) } }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            #if canImport(Glibc)
            let n = SystemCalls.read(fd, buffer.baseAddress, buffer.count)
            #else
            let n = Darwin.read(fd, buffer.baseAddress, buffer.count)
            #endif
            if n >= 0 { return n }
            if errno == EINTR { continue }
            throw CaptureError("\(name): read failed: \(systemErrorText(errno))")
        }
    }
}

/// A file another program is still writing: at its end, wait for more instead of ending.
public final class FollowStream: ByteStream {
    let file: FileDescriptorStream
    var position: Int64 = 0
    /// How long to wait before looking again at the end of the file.
    let interval: useconds_t

    public init(_ file: FileDescriptorStream, interval: useconds_t = 100_000) {
        self.file = file
        self.interval = interval
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            let n = try file.read(into: buffer)
            if n > 0 {
                position += Int64(n)
                return n
            }
            var info = stat()
            if fstat(file.fd, &info) == 0, Int64(info.st_size) < position, (info.st_mode & S_IFMT) == S_IFREG {
                throw CaptureError("\(file.name): the file shrank while it was followed (truncated or replaced); stopped at byte \(position)")
            }
            usleep(interval)
        }
    }
}

/// Bytes already in memory (tests, zip members, decoded base64).
public final class MemoryStream: ByteStream {
    let bytes: [UInt8]
    var position = 0

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let n = min(buffer.count, bytes.count - position)
        if n <= 0 { return 0 }
        bytes.withUnsafeBytes { source in
            buffer.baseAddress!.copyMemory(from: source.baseAddress! + position, byteCount: n)
        }
        position += n
        return n
    }
}

/// Plays back bytes that were already read (for format detection) before the rest of the stream.
final class ReplayStream: ByteStream {
    var prefix: [UInt8]
    var prefixPosition = 0
    let rest: ByteStream

    init(prefix: [UInt8], rest: ByteStream) {
        self.prefix = prefix
        self.rest = rest
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if prefixPosition < prefix.count {
            let n = min(buffer.count, prefix.count - prefixPosition)
            prefix.withUnsafeBytes { source in
                buffer.baseAddress!.copyMemory(from: source.baseAddress! + prefixPosition, byteCount: n)
            }
            prefixPosition += n
            return n
        }
        return try rest.read(into: buffer)
    }
}

public func systemErrorText(_ code: Int32) -> String {
    String(cString: strerror(code))
}

/// A reading window over a ByteStream: records are handed out as slices of one large buffer,
/// so reading a record allocates nothing; the stream is never read whole into memory.
public final class BufferedReader {
    let stream: ByteStream
    private(set) var buffer: [UInt8]
    private var start = 0
    private var end = 0
    private var atEnd = false
    /// Offset in the stream of the next unread byte.
    public private(set) var offset: Int64 = 0
    let chunkSize: Int

    public init(_ stream: ByteStream, chunkSize: Int = 1 << 20) {
        self.stream = stream
        self.chunkSize = chunkSize
        self.buffer = []
    }

    public var available: Int { end - start }
    /// The stream has ended (a read returned nothing).
    public var isAtEnd: Bool { atEnd }

    /// Makes `count` bytes available if the stream has them; false at the end of the stream.
    public func ensure(_ count: Int) throws -> Bool {
        if end - start >= count { return true }
        if atEnd { return false }
        if buffer.count - start < count {
            // Not enough room after the unread bytes: move them to the front of a new buffer.
            // A new array (rather than compacting in place) leaves slices already handed out intact.
            // Not zeroed first: everything past the unread bytes is written by the stream before
            // it is read (`end` bounds every read).
            let unread = end - start
            let fresh = [UInt8](unsafeUninitializedCapacity: max(chunkSize, count)) { target, initialized in
                if unread > 0 {
                    buffer.withUnsafeBytes { source in
                        UnsafeMutableRawPointer(target.baseAddress!).copyMemory(from: source.baseAddress! + start, byteCount: unread)
                    }
                }
                initialized = target.count
            }
            end -= start
            start = 0
            buffer = fresh
        }
        while end - start < count {
            let n = try buffer.withUnsafeMutableBytes { raw in
                try stream.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[end...]))
            }
            if n == 0 { atEnd = true; return false }
            end += n
        }
        return true
    }

    /// The next `count` bytes without consuming them; call `ensure` first.
    public func peek(_ count: Int) -> ArraySlice<UInt8> {
        buffer[start ..< start + min(count, end - start)]
    }

    /// Consumes and returns `count` bytes; call `ensure` first.
    public func take(_ count: Int) -> ArraySlice<UInt8> {
        let slice = buffer[start ..< start + count]
        start += count
        offset += Int64(count)
        return slice
    }

    public func skip(_ count: Int) {
        start += count
        offset += Int64(count)
    }

    /// Skips `count` bytes that may extend past the buffer; false if the stream ended first.
    public func skipAcross(_ count: Int64) throws -> Bool {
        var remaining = count
        while remaining > 0 {
            if available == 0, !(try ensure(1)) { return false }
            let step = Int(min(Int64(available), remaining))
            skip(step)
            remaining -= Int64(step)
        }
        return true
    }

    /// Whatever is left in the buffer plus the rest of the stream, for handing to another reader.
    public func remainingStream() -> ByteStream {
        ReplayStream(prefix: Array(buffer[start ..< end]), rest: stream)
    }

    /// A big-endian integer at `offset` in the buffered bytes, read in one load: a record header
    /// read after `ensure` made it available (nil if it is not, which `ensure` rules out).
    @inline(__always)
    public func bigEndian<T: FixedWidthInteger>(at offset: Int, as type: T.Type = T.self) -> T? {
        guard offset >= 0, offset <= end - start - MemoryLayout<T>.size else { return nil }
        return buffer.withUnsafeBytes { T(bigEndian: $0.loadUnaligned(fromByteOffset: start + offset, as: T.self)) }
    }

    /// A cursor over the next `count` buffered bytes (fewer if fewer are buffered), without
    /// consuming them: a record header read field by field, checked.
    public func cursor(_ count: Int) -> ByteCursor { ByteCursor(buffer[start ..< start + max(0, min(count, end - start))]) }
}
