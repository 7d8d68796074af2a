import BTCapture
import BTDecode
import Foundation

/// A person's note on one packet: a comment, a flag, or both, with the packet's fingerprint
/// so that a note is never shown on another capture's packet of the same number.
public struct PacketNote: Equatable, Sendable {
    public var packet: Int
    public var fingerprint: PacketFingerprint
    public var comment: String?
    public var flagged: Bool

    public init(packet: Int, fingerprint: PacketFingerprint, comment: String? = nil, flagged: Bool = false) {
        self.packet = packet
        self.fingerprint = fingerprint
        self.comment = comment
        self.flagged = flagged
    }

    /// A note that says nothing any more (unflagged, comment cleared) is dropped.
    public var isEmpty: Bool { comment == nil && !flagged }
}

/// What identifies a packet across runs: its timestamp and a hash of its bytes (64-bit FNV-1a).
public struct PacketFingerprint: Equatable, Sendable, CustomStringConvertible {
    public var timestamp: Int64
    public var digest: UInt64

    public init(timestamp: Int64, digest: UInt64) {
        self.timestamp = timestamp
        self.digest = digest
    }

    public init(_ frame: Frame) {
        timestamp = frame.timestamp
        digest = FNV1a.hash(frame.bytes)
    }

    /// "fnv1a64:0123456789abcdef", as the notes file stores it.
    public var digestText: String {
        let hex = String(digest, radix: 16)
        return "fnv1a64:" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    public var description: String { "time \(Microseconds.secondsText(timestamp)) s, bytes \(digestText)" }
}

/// The notes of one capture, as stored beside it (`CAPTURE.btlog-notes.json`): a versioned JSON
/// document, documented in the man page (FILES):
///
///     {"format": "btlog-notes", "version": 1, "capture": "session.btsnoop",
///      "notes": [{"packet": 95, "time_us": 1557360268123456, "bytes": "fnv1a64:...",
///                 "comment": "first notification", "flagged": true}]}
public struct NotesDocument: Equatable, Sendable {
    public static let format = "btlog-notes"
    public static let version = 1

    /// The capture's file name when the notes were written (for people; not checked).
    public var capture: String
    /// By packet number.
    public var notes: [Int: PacketNote]

    public init(capture: String, notes: [Int: PacketNote] = [:]) {
        self.capture = capture
        self.notes = notes
    }

    public struct ParseError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Reads a notes file; throws a ParseError saying what is wrong (it is then left untouched).
    public static func parse(_ data: Data) throws -> NotesDocument {
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: data, options: [])
        } catch {
            throw ParseError(description: "not JSON")
        }
        guard let object = root as? [String: Any] else { throw ParseError(description: "not a JSON object") }
        guard object["format"] as? String == format else { throw ParseError(description: "not a btlog notes file (no \"format\": \"\(format)\")") }
        guard let version = object["version"] as? Int else { throw ParseError(description: "no version") }
        guard version == NotesDocument.version else {
            throw ParseError(description: "version \(version) (this btlog reads version \(NotesDocument.version))")
        }
        guard let entries = object["notes"] as? [Any] else { throw ParseError(description: "no notes array") }
        var document = NotesDocument(capture: object["capture"] as? String ?? "")
        for (index, entry) in entries.enumerated() {
            guard let note = entry as? [String: Any] else { throw ParseError(description: "note \(index + 1) is not an object") }
            guard let packet = note["packet"] as? Int, packet >= 1 else { throw ParseError(description: "note \(index + 1) has no packet number") }
            guard let time = note["time_us"] as? Int64 ?? (note["time_us"] as? Int).map(Int64.init) else {
                throw ParseError(description: "note on packet \(packet) has no time_us")
            }
            guard let bytes = note["bytes"] as? String, bytes.hasPrefix("fnv1a64:"), bytes.count == 24,
                  let digest = UInt64(bytes.dropFirst(8), radix: 16) else {
                throw ParseError(description: "note on packet \(packet) has no bytes fingerprint (fnv1a64:16 hex digits)")
            }
            let comment = note["comment"] as? String
            if note["comment"] != nil, comment == nil, !(note["comment"] is NSNull) {
                throw ParseError(description: "note on packet \(packet): comment is not a string")
            }
            let flagged = note["flagged"] as? Bool ?? false
            guard document.notes[packet] == nil else { throw ParseError(description: "two notes on packet \(packet)") }
            document.notes[packet] = PacketNote(packet: packet, fingerprint: PacketFingerprint(timestamp: time, digest: digest),
                                                comment: comment, flagged: flagged)
        }
        return document
    }

    /// Why these notes cannot be about the capture whose packets `fingerprint(number)` gives
    /// (nil for a packet it does not have): the first note whose packet differs, said so that
    /// the person can act; nil when every note's packet matches. `btlog annotate` and the
    /// browser refuse to change such a notes file.
    public func foreignNote(path: String, fingerprint: (Int) -> PacketFingerprint?) -> String? {
        for number in notes.keys.sorted() {
            if let actual = fingerprint(number), let note = notes[number], actual != note.fingerprint {
                return "\(path) was written for another capture: its note on packet \(number) is for a packet with \(note.fingerprint), "
                    + "this one has \(actual); nothing was changed (give --notes for a separate notes file)"
            }
        }
        return nil
    }

    /// The document as JSON, notes in packet order, one per line.
    public func serialized() -> Data {
        var text = "{\n  \"format\": \"\(NotesDocument.format)\",\n  \"version\": \(NotesDocument.version),\n"
        text += "  \"capture\": \(NotesDocument.quoted(capture)),\n  \"notes\": ["
        for (index, packet) in notes.keys.sorted().enumerated() {
            let note = notes[packet]!
            text += index == 0 ? "\n" : ",\n"
            text += "    {\"packet\": \(packet), \"time_us\": \(note.fingerprint.timestamp), \"bytes\": \"\(note.fingerprint.digestText)\""
            if let comment = note.comment { text += ", \"comment\": \(NotesDocument.quoted(comment))" }
            text += ", \"flagged\": \(note.flagged)}"
        }
        text += notes.isEmpty ? "]\n}\n" : "\n  ]\n}\n"
        return Data(text.utf8)
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || (0x2028 ... 0x2029).contains(scalar.value):
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
