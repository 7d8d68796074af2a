import Foundation

/// A capture found inside a container (sysdiagnose archive or folder, Android bugreport).
struct ContainerMember {
    var name: String
    /// Modification time, seconds since the Unix epoch.
    var modified: Int64
    var size: Int64
    /// Where its bytes can be read: a spooled temporary file or the file itself.
    var path: String
}

enum MemberChoice {
    /// Picks `requested` (an exact path, a path suffix or a file name), or else the newest.
    /// Says which one was taken when there was a choice.
    static func choose(_ members: [ContainerMember], requested: String?, container: String,
                       what: String, warnings: inout [CaptureWarning]) throws -> ContainerMember {
        let ordered = members.sorted { a, b in
            a.modified != b.modified ? a.modified > b.modified : a.name < b.name
        }
        if let requested {
            let match = ordered.first { $0.name == requested }
                ?? ordered.first { $0.name.hasSuffix("/" + requested) }
                ?? ordered.first { ($0.name as NSString).lastPathComponent == requested }
            guard let match else {
                let names = ordered.map { "  " + $0.name }.joined(separator: "\n")
                throw CaptureError("\(container): no \(what) named \(requested); it holds:\n\(names)")
            }
            return match
        }
        guard let newest = ordered.first else {
            throw CaptureError("\(container): holds no \(what)")
        }
        if ordered.count > 1 {
            let list = ordered.map { member in
                "  \(member.name)  (\(member.size) bytes, \(formatDate(member.modified)))"
            }.joined(separator: "\n")
            warnings.append(CaptureWarning("\(container): holds \(ordered.count) \(what)s; reading the newest, \(newest.name) (choose another with --member NAME):\n\(list)"))
        }
        return newest
    }

    static func formatDate(_ seconds: Int64) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss 'UTC'"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}

/// Temporary files for members spooled out of a stream (TemporaryFiles, kept by name). Each is
/// removed as soon as the reader that needs it has it open (`release`), and any left are
/// removed when the process ends.
enum MemberSpool {
    static func makeFile() throws -> (path: String, sink: FileSink) {
        do {
            let made = try TemporaryFiles.make(prefix: "btlog", .untilRemoved)
            return (made.path, FileSink(fd: made.descriptor, name: made.path, ownsDescriptor: true))
        } catch let failure as TemporaryFiles.Failure {
            throw CaptureError(failure.description)
        }
    }

    /// Removes a spooled file (an open descriptor keeps reading it); other paths are left alone.
    static func release(_ path: String) { TemporaryFiles.remove(path) }
}
