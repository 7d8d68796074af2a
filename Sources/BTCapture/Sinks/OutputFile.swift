#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file a command writes (a capture, later an export or an annotation sidecar), opened so
/// that nothing already on disk is lost:
/// - a path that does not exist is created exclusively (O_EXCL, so a symlink planted there is
///   never followed) and written in place: a capture killed midway leaves its records there;
/// - an existing regular file, or a symlink, is left whole while the new content goes to a
///   temporary file in the same folder, which `close()` renames over the path (the symlink
///   itself is replaced, never the file it points to);
/// - a device or FIFO (/dev/stdout, /dev/null) is written directly.
/// New files get mode 0666 less the umask, as any program's output does: never world-writable
/// unless the user's umask allows it.
public final class OutputFile: ByteSink {
    public let path: String
    /// Where the bytes go until `close()`: the path itself, or the temporary beside it.
    public let writingPath: String
    let sink: FileSink
    var closed = false

    public var replacesExisting: Bool { writingPath != path }

    public init(path: String) throws {
        self.path = path
        var info = stat()
        let exists = lstat(path, &info) == 0
        let kind = info.st_mode & S_IFMT
        if exists, kind != S_IFREG, kind != S_IFLNK {
            guard kind != S_IFDIR else { throw CaptureError("\(path): is a directory") }
            let fd = open(path, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw CaptureError("\(path): cannot write: \(systemErrorText(errno))") }
            writingPath = path
            sink = FileSink(fd: fd, name: path, ownsDescriptor: true)
            return
        }
        if !exists {
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
            if fd >= 0 {
                writingPath = path
                sink = FileSink(fd: fd, name: path, ownsDescriptor: true)
                return
            }
            guard errno == EEXIST else { throw CaptureError("\(path): cannot write: \(systemErrorText(errno))") }
            // Created by someone else in the meantime: treat it as existing.
        }
        let (fd, temporary) = try Self.createTemporary(beside: path)
        writingPath = temporary
        sink = FileSink(fd: fd, name: path, ownsDescriptor: true)
    }

    /// A new file named .NAME.btlog-XXXXXX in the path's folder (so rename is atomic).
    static func createTemporary(beside path: String) throws -> (Int32, String) {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        let base = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        for _ in 0 ..< 100 {
            let suffix = String((0 ..< 6).map { _ in letters.randomElement()! })
            let candidate = "\(folder).\(base).btlog-\(suffix)"
            let fd = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
            if fd >= 0 { return (fd, candidate) }
            guard errno == EEXIST else {
                throw CaptureError("\(path): exists, and btlog cannot create the file that replaces it beside it "
                                   + "(\(systemErrorText(errno))); write to another path or remove \(path) first")
            }
        }
        throw CaptureError("\(path): cannot find a free temporary name beside it")
    }

    /// The descriptor being written, for a writer with its own buffer (text export).
    public var descriptor: Int32 { sink.fd }

    public func write(_ bytes: [UInt8]) throws { try sink.write(bytes) }
    public func flush() throws { try sink.flush() }

    /// Completes the file: flushed, closed and, when it replaces one, renamed over the path.
    public func close() throws {
        guard !closed else { return }
        closed = true
        try sink.close()
        if replacesExisting, rename(writingPath, path) != 0 {
            throw CaptureError("\(path): cannot replace it (\(systemErrorText(errno))); the new content is in \(writingPath)")
        }
    }

    /// Gives up after a failure: the existing file stays as it was; what was written so far
    /// stays in `writingPath` for the user to look at. Returns a sentence saying so.
    public func abandon() -> String {
        guard !closed else { return "" }
        closed = true
        try? sink.close()
        return replacesExisting ? "\(path) is unchanged; what was written is in \(writingPath)" : ""
    }
}
