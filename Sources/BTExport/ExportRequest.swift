import BTCapture
import BTDecode
import BTQuery
import BTRender

/// Everything one export needs, as values: which captures, which packets (each input's
/// stages), what to write and where. `btlog export` makes one from its options; the browser
/// makes one from what its list shows. `ExportJob` runs it.
public struct ExportRequest {
    public var files: [String]
    public var format: ExportFormat
    /// The file written (replaced only when the export is complete); nil: standard output.
    public var output: String?
    /// How each input is opened (PacketLogger's UTC offset, a container's member).
    public var input = InputOptions()
    /// Opens an input that is not one file (several captures merged into one timeline, whose
    /// `files` entry is the merge's name); nil: each entry of `files` is a capture file.
    public var opener: ((String) throws -> FrameReader)?

    /// An input's frames.
    func open(_ file: String) throws -> FrameReader {
        try opener?(file) ?? CaptureInput.open(file, options: input)
    }
    /// What the decoders know beyond the capture (UUID names, a GATT cache, keys).
    public var decoding = DecodeOptions()
    /// Each input's stages, given its file name: the selection and filters, then its notes.
    /// A stage that cannot be made (a bad filter) fails the export before anything is written.
    public var stages: (String) throws -> [any PacketStage] = { _ in [] }
    /// jsonl, json, csv: the members and fields (or columns) to write, as `--fields` names them.
    public var columns: [String]?
    /// Instead of packets, what this protocol's layer carries (`--payload`), as hex lines or
    /// (`binary`) the bytes themselves.
    public var payload: String?
    public var binary = false
    /// sbc, msbc, cvsd: which audio stream, from 1 in order of appearance.
    public var stream = 1
    /// text: every layer with its fields, with each packet's bytes, and the time column.
    public var tree = false
    public var hex = false
    public var time: TimeFormatter.Mode = .abs
    /// text: the column that marks flagged packets when an input has notes.
    public var flagMark = "F"
    public var redaction = Redaction.none
    /// Report progress as each input is read (for an export that takes a while).
    public var reportsProgress = false

    public enum Redaction: Sendable {
        case none
        /// Keys and pairing values zeroed, device addresses given pseudonyms (`--redact`).
        case keys
        /// And every value devices say above the link (`--redact-values`).
        case values
    }

    public init(files: [String], format: ExportFormat, output: String? = nil) {
        self.files = files
        self.format = format
        self.output = output
    }

    /// The format an output path implies, as `btlog export` decides it when `--format` is not given.
    public static func format(for output: String?) -> ExportFormat { output.flatMap(ExportFormat.guess) ?? .jsonl }

    /// Why a request cannot run, in words for the person who made it.
    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    /// The checks that need no input: the columns exist, the options belong to the format.
    public func validate() throws {
        if let columns {
            guard format == .jsonl || format == .json || format == .csv else {
                throw Invalid(description: "--fields chooses the members of jsonl, json and csv, not of \(format.rawValue)")
            }
            if columns.isEmpty { throw Invalid(description: "--fields takes a comma-separated list of names; 'btlog fields' lists the fields") }
            let unknown = ExportColumn.resolve(columns).unknown
            if !unknown.isEmpty {
                throw Invalid(description: "unknown field\(unknown.count == 1 ? "" : "s") \(unknown.map { "'\($0)'" }.joined(separator: ", ")); 'btlog fields' lists them, and export also takes \(PacketMember.allCases.map(\.rawValue).joined(separator: ", "))")
            }
        }
        if (tree || hex || time != .abs) && format != .text {
            throw Invalid(description: "-V, -x and --time shape the text format; give --format text")
        }
        if hex && !tree { throw Invalid(description: "-x adds the bytes to the tree; give -V too") }
        if let payload {
            if format != .jsonl { throw Invalid(description: "--payload writes its own form; not with --format") }
            if columns != nil { throw Invalid(description: "--payload and --fields choose different outputs; give one") }
            let known = Set(FieldRegistry.protocols + ProtocolCatalog.layerProtocols).subtracting(["frame"])
            if !known.contains(payload) {
                throw Invalid(description: "--payload takes a protocol (\(known.sorted().joined(separator: ", "))), not '\(payload)'")
            }
        } else if binary {
            throw Invalid(description: "--binary goes with --payload")
        }
        if stream < 1 { throw Invalid(description: "--stream takes a stream number, 1 or more") }
        if stream != 1 && !format.isAudio { throw Invalid(description: "--stream chooses the audio stream of sbc, msbc and cvsd") }
    }

    /// Whether the export writes bytes that are not text (a terminal is no place for them).
    public var writesBinary: Bool { format.isCapture || format.isAudio || binary }
}

/// What an export says while it runs, for its caller to show: nothing is printed by the export.
public enum ExportEvent {
    /// Damage in an input (a truncated last record), or what the output format cannot hold.
    case warning(String)
    /// An input that could not be read: reported, and the other inputs are still exported.
    case inputFailed(String)
    /// What an audio export found (its streams, which one was written).
    case report(String)
    /// How far the reading of one input is: frames read so far (every 1,024), and at its end.
    case progress(ExportProgress)
}

public struct ExportProgress: Sendable {
    public var file: String
    public var frames: Int
    /// The input is read to its end (or failed): a progress line is taken down.
    public var finished: Bool
}

/// How an export ended when it ran to its end.
public struct ExportResult: Sendable {
    /// Inputs opened and read, and those that could not be (each reported as `inputFailed`).
    public var readInputs = 0
    public var failedInputs = 0
    /// The reader of standard output went away (a closed pipe): the export stopped, quietly.
    public var outputClosed = false
    /// The bytes the output file holds (nil for standard output).
    public var bytesWritten: Int64?
}

/// An export that could not complete: its output, if a file, is left as it was.
public struct ExportFailure: Error, CustomStringConvertible {
    public let description: String
}
