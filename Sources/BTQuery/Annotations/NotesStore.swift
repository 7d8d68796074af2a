import Foundation
import BTCapture
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a capture's notes live and how they are changed safely: read, changed and written
/// back under an advisory lock (flock on `NOTES.lock`), through a temporary file that is synced
/// and renamed into place, so concurrent `btlog annotate` runs lose nothing and a reader never
/// sees half a file. A notes file that cannot be parsed is reported and never overwritten.
public enum NotesStore {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// `CAPTURE.btlog-notes.json` beside the capture, or the path given with --notes.
    public static func path(forCapture capture: String, notes: String?) -> String {
        notes ?? capture + ".btlog-notes.json"
    }

    /// The notes at `path`; nil when there is no such file.
    public static func read(_ path: String) throws -> NotesDocument? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw Failure(description: "\(path): cannot be read (\(reason(of: error)))")
        }
        do {
            return try NotesDocument.parse(data)
        } catch let error as NotesDocument.ParseError {
            throw Failure(description: "\(path): \(error.description); the file is left as it is")
        }
    }

    /// Reads the notes (or starts empty), lets `change` edit them, and writes them back, all
    /// under the lock. `change` may throw to leave the file as it was.
    public static func update(_ path: String, capture: String, _ change: (inout NotesDocument) throws -> Void) throws {
        let lockPath = path + ".lock"
        let lock = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard lock >= 0 else { throw Failure(description: "\(lockPath): cannot be created (\(String(cString: strerror(errno))))") }
        defer { close(lock) }
        while flock(lock, LOCK_EX) != 0 {
            guard errno == EINTR else { throw Failure(description: "\(lockPath): cannot be locked (\(String(cString: strerror(errno))))") }
        }
        defer { flock(lock, LOCK_UN) }
        var document = try read(path) ?? NotesDocument(capture: (capture as NSString).lastPathComponent)
        try change(&document)
        try write(document.serialized(), to: path)
    }

    /// Writes through a temporary file in the same folder, synced, then renamed over the old one.
    static func write(_ data: Data, to path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        let fd: Int32, temporary: String
        do {
            (fd, temporary) = try TemporaryFiles.make(prefix: ".btlog-notes", in: folder, .caller)
        } catch let failure as TemporaryFiles.Failure {
            throw Failure(description: "\(folder): cannot write the notes there (\(failure.reason))")
        }
        var written = true
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = SystemCalls.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 { if errno == EINTR { continue }; written = false; return }
                offset += n
            }
        }
        let synced = fsync(fd) == 0
        fchmod(fd, 0o644)
        close(fd)
        guard written, synced, rename(temporary, path) == 0 else {
            let message = String(cString: strerror(errno))
            unlink(temporary)
            throw Failure(description: "\(path): cannot be written (\(message))")
        }
        // The rename itself reaches the disk with the folder.
        let directory = open(folder, O_RDONLY | O_DIRECTORY)
        if directory >= 0 { fsync(directory); close(directory) }
    }

    private static func reason(of error: Error) -> String {
        if let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return (error as NSError).localizedDescription
    }
}
