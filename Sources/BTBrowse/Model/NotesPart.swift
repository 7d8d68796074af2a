import BTCapture
import BTQuery
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The capture's notes as the browser holds them: the document, the notes file (`btlog
/// annotate`'s sidecar) and the capture it is about, and which version of the file was read or
/// written last, so that another browser's or `annotate`'s change is read again. A change goes
/// through the file's lock, as `annotate`'s does.
struct NotesPart {
    /// Why notes cannot be written here.
    static let unwritable = "no notes file: a live capture is annotated once written (-w FILE)"

    private(set) var document: NotesDocument
    /// Nil: the browser cannot annotate (a live capture not written to a file).
    let path: String?
    let capturePath: String?
    private var version: [Int]?

    init(path: String?, capturePath: String?, capture source: String) {
        self.path = path
        self.capturePath = capturePath
        document = NotesDocument(capture: source)
    }

    /// Whether the file is not the version read or written last.
    var changedOnDisk: Bool { path.map { Self.version(of: $0) != version } ?? false }

    /// Reads the file again (an absent file: no notes); whether the notes held changed.
    mutating func reload(capture source: String) throws -> Bool {
        guard let path else { return false }
        version = Self.version(of: path)
        let read = try NotesStore.read(path) ?? NotesDocument(capture: source)
        guard read != document else { return false }
        document = read
        return true
    }

    /// Changes the note of the packet at `position` under the file's lock, keeping what was
    /// written meanwhile; the packet's number and its note as written (nil: removed).
    mutating func update(at position: Int, of frames: PacketIndex, _ change: (inout PacketNote) -> Void) throws -> (packet: Int, note: PacketNote?)? {
        guard let path, let capturePath, let frame = frames.frame(at: position) else { return nil }
        let number = frame.number, fingerprint = PacketFingerprint(frame)
        var written: NotesDocument?
        try NotesStore.update(path, capture: capturePath) { document in
            // Notes written for another capture of this name are never mixed with these.
            if let foreign = document.foreignNote(path: path, fingerprint: { number in
                frames.frame(at: number - 1).flatMap { $0.number == number ? PacketFingerprint($0) : nil }
            }) {
                throw NotesStore.Failure(description: foreign)
            }
            var note = document.notes[number] ?? PacketNote(packet: number, fingerprint: fingerprint)
            change(&note)
            document.notes[number] = note.isEmpty ? nil : note
            written = document
        }
        version = Self.version(of: path)
        guard let written else { return nil }
        document = written
        return (number, written.notes[number])
    }

    /// Which version of the notes file is there: each write renames a new file into place (a
    /// new inode), and two writes may share a modification time.
    static func version(of path: String) -> [Int]? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let modified = SystemCalls.modificationTime(info)
        return [Int(info.st_ino), Int(info.st_size), modified.seconds, modified.nanoseconds]
    }
}
