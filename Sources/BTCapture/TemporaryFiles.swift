import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every temporary file btlog makes, made in one place: container members spooled out of a
/// stream, the spools of inputs decoded at once, the notes file written before its rename.
/// Files kept by name are remembered until `remove` (or the process's exit) takes them away,
/// under a lock: inputs decoded at once (InputJobs) make and remove them from several
/// threads, and one job must never remove another's.
public enum TemporaryFiles {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var kept: Set<String> = []
    nonisolated(unsafe) private static var cleanupRegistered = false

    /// TMPDIR, or /tmp when it is unset or empty.
    public static var folder: String {
        ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    }

    public struct Failure: Error, CustomStringConvertible {
        public let folder: String
        public let reason: String
        public var description: String { "cannot make a temporary file in \(folder): \(reason)" }
    }

    /// How long a file made here lives by its name.
    public enum Lifetime {
        /// Unlinked at once: the descriptor alone keeps it (nothing to clean up).
        case descriptorOnly
        /// Kept by name until `remove`, or removed when the process exits.
        case untilRemoved
        /// Left to the caller, who renames it into place or removes it (the notes file).
        case caller
    }

    /// A new file `prefix-XXXXXX` in `folder` (TMPDIR by default), open for reading and writing.
    public static func make(prefix: String, in folder: String = TemporaryFiles.folder, _ lifetime: Lifetime) throws -> (descriptor: Int32, path: String) {
        var template = Array("\(folder)/\(prefix)-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw Failure(folder: folder, reason: String(cString: strerror(errno))) }
        let path = String(cString: template)
        switch lifetime {
        case .descriptorOnly:
            unlink(path)
        case .untilRemoved:
            lock.lock()
            kept.insert(path)
            if !cleanupRegistered {
                cleanupRegistered = true
                atexit { TemporaryFiles.removeAll() }
            }
            lock.unlock()
        case .caller:
            break
        }
        return (descriptor, path)
    }

    /// Removes a file made `untilRemoved` (an open descriptor keeps reading it); any other
    /// path is left alone.
    public static func remove(_ path: String) {
        lock.lock()
        let ours = kept.remove(path) != nil
        lock.unlock()
        if ours { unlink(path) }
    }

    private static func removeAll() {
        lock.lock()
        let paths = kept
        kept.removeAll()
        lock.unlock()
        for path in paths { unlink(path) }
    }
}
