import BTCapture
import BTDecode
import BTQuery
import BTRender
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs an `ExportRequest`: the files of one export, read in order into one sink (or, for
/// several inputs in a line format, decoded at once and written in input order). Everything
/// it has to say goes to `onEvent`; how it ended is its result or its `ExportFailure`.
public struct ExportJob {
    public let request: ExportRequest
    let onEvent: (ExportEvent) -> Void
    private var result = ExportResult()
    /// One table for every input, so a device keeps its pseudonym across files.
    let pseudonyms = AddressPseudonyms()
    /// The first input's stages, made before the output is opened (a bad filter fails there)
    /// and used for that input: made once, so what making them says (a notes file that does
    /// not read) is said once.
    private var firstStages: [any PacketStage]?

    public init(_ request: ExportRequest, onEvent: @escaping (ExportEvent) -> Void = { _ in }) {
        self.request = request
        self.onEvent = onEvent
    }

    /// The whole export: the output opened (a file is replaced only when complete, and not at
    /// all when no input could be read), every input written, the output closed.
    public mutating func run() throws -> ExportResult {
        try request.validate()
        // A stage that cannot be made (a bad filter) fails before any output.
        firstStages = try request.stages(request.files.first ?? "-")
        let destination: OutputFile?
        do {
            destination = try request.output.map(OutputFile.init(path:))
        } catch let error as CaptureError {
            throw ExportFailure(description: error.message)
        }
        do {
            try write(to: destination)
            // Nothing could be read: an existing file is not replaced by an empty export.
            if result.readInputs == 0, let destination {
                let left = destination.abandon()
                throw ExportFailure(description: left)
            }
            try destination?.close()
            if let destination {
                var info = stat()
                if stat(destination.path, &info) == 0 { result.bytesWritten = Int64(info.st_size) }
            }
        } catch let error as CaptureError where error.isBrokenPipe && destination == nil {
            result.outputClosed = true
        } catch is OutputWriter.OutputClosed {
            result.outputClosed = true
        } catch let error as CaptureError {
            throw Self.failure(error.message, destination)
        } catch let error as OutputWriter.OutputFailed {
            throw Self.failure(error.description, destination)
        }
        return result
    }

    static func failure(_ message: String, _ destination: OutputFile?) -> ExportFailure {
        let left = destination?.abandon() ?? ""
        return ExportFailure(description: message + (left.isEmpty ? "" : "; " + left))
    }

    var format: ExportFormat { request.format }
    var columns: [ExportColumn]? { request.columns.map { ExportColumn.resolve($0).columns } }

    func decoder(buildsDisplayText: Bool, keptFields: FieldMask = .all) -> Decoder {
        var options = request.decoding
        options.buildsDisplayText = buildsDisplayText
        options.keptFields = keptFields
        return Decoder(options: options)
    }

    func pipeline(_ decoder: Decoder, _ stages: [any PacketStage]) -> PacketPipeline {
        let onEvent = onEvent
        return PacketPipeline(decoder: decoder, stages: stages) { onEvent(.warning($0.message)) }
    }

    private mutating func write(to destination: OutputFile?) throws {
        if format.isCapture { return try writeCapture(to: destination) }
        let out = OutputWriter(fd: destination?.descriptor ?? 1)
        if format == .text { return try writeText(out) }
        if let payload = request.payload {
            var sink = PayloadSink(protocolName: payload, binary: request.binary, out: out)
            try writeEach(into: &sink, buildsDisplayText: false)
            return try out.flush()
        }
        if format.isAudio {
            var sink = AudioStreamSink(codec: AudioStreamSink.Codec(rawValue: format.rawValue)!, stream: request.stream, out: out)
            try writeEach(into: &sink, buildsDisplayText: false)
            try out.flush()
            onEvent(.report(sink.report))
            return
        }
        if let width = concurrentInputs { return try writeConcurrently(out, width: width) }
        let columns = columns
        var sink = RenderingSink(Self.renderer(format, columns: columns, several: request.files.count > 1), out: out)
        var statistics = CaptureStatistics()
        let several = request.files.count > 1
        count(try forEachInput { reader, stages, file in
            if several { sink.beginFile(file) }
            var pipeline = pipeline(decoder(buildsDisplayText: format.buildsDisplayText(tree: request.tree, columns: columns),
                                            keptFields: stages.fieldsToKeep(viewReads: Self.fieldsRead(format, columns: columns))), stages)
            try pipeline.run(reader, into: &sink)
            statistics.merge(pipeline.statistics)
        })
        try sink.finish(statistics)
        try out.flush()
    }

    /// How many inputs to decode at once: several captures in a line format (each input's lines
    /// whole, in input order, as one after another would give them). Not standard input, and
    /// not redacted (pseudonyms are numbered in reading order across the inputs).
    var concurrentInputs: Int? {
        guard request.files.count > 1, [.jsonl, .csv, .hex].contains(format), request.redaction == .none,
              !request.files.contains("-"), SinkThreading.inputsAtOnce > 1, InputJobs.canSpool else { return nil }
        return SinkThreading.inputsAtOnce
    }

    /// Each input decoded and rendered on a thread of its own into a spool (InputJobs), the
    /// spools copied to the output in input order. No progress: several inputs move at once.
    private mutating func writeConcurrently(_ out: OutputWriter, width: Int) throws {
        let columns = columns
        // CSV's header once, first, as one input after another writes it (even when none is read).
        var header = Self.renderer(format, columns: columns, several: true)
        try header.finish(CaptureStatistics(), to: out)
        let request = request, format = format, job = self, firstStages = firstStages
        let buildsDisplayText = format.buildsDisplayText(tree: request.tree, columns: columns)
        var failed = 0, read = 0
        try InputJobs.run(count: request.files.count, width: width, job: { index, spool in
            let file = request.files[index]
            let reader = try request.open(file)
            let stages = try index == 0 ? firstStages ?? request.stages(file) : request.stages(file)
            let spoolOut = OutputWriter(fd: spool.descriptor)
            var sink = RenderingSink(Self.renderer(format, columns: columns, several: true, writesHeader: false), out: spoolOut)
            sink.beginFile(file)
            var pipeline = PacketPipeline(decoder: job.decoder(buildsDisplayText: buildsDisplayText,
                                                               keptFields: stages.fieldsToKeep(viewReads: Self.fieldsRead(format, columns: columns))),
                                          stages: stages) {
                spool.warnings.append($0.message)
            }
            pipeline.oneThread = true
            // What was rendered before a read error is output, as it would be one input at a time.
            defer { try? spoolOut.flush() }
            try pipeline.run(reader, into: &sink)
            try spoolOut.flush()
        }, emit: { _, spool, outcome in
            let onEvent = job.onEvent
            if try InputJobs.emit(spool, outcome, to: out, warning: { onEvent(.warning($0)) }, failed: { onEvent(.inputFailed($0.message)) }) != nil {
                read += 1
            } else {
                failed += 1
            }
        })
        result.readInputs = read
        result.failedInputs = failed
        try out.flush()
    }

    /// Exactly what show prints (without colour): per capture, its name when there are
    /// several, the flag column when it has notes, its status line.
    private mutating func writeText(_ out: OutputWriter) throws {
        var options = RenderOptions()
        options.time = request.time
        options.hex = request.hex
        let mode = request.tree ? RenderMode.tree : RenderMode.table
        var index = 0
        let several = request.files.count > 1, flagMark = request.flagMark
        count(try forEachInput { reader, stages, file in
            if several {
                if index > 0 { try out.line("") }
                try out.line("==> \(file) <==")
            }
            index += 1
            var fileOptions = options
            if stages.contains(where: { $0 is AnnotationStage }) { fileOptions.flagColumn = flagMark }
            var sink = RenderingSink(mode.makeRenderer(fileOptions), out: out)
            var pipeline = pipeline(decoder(buildsDisplayText: mode.showsFieldText, keptFields: stages.fieldsToKeep(viewReads: mode.fieldsRead)), stages)
            try pipeline.run(reader, into: &sink)
            try sink.finish(pipeline.statistics)
        })
        try out.flush()
    }

    /// Every input into one sink, each through its own decoder and stages.
    private mutating func writeEach<Sink: PacketSink>(into sink: inout Sink, buildsDisplayText: Bool) throws {
        count(try forEachInput { reader, stages, _ in
            var pipeline = pipeline(decoder(buildsDisplayText: buildsDisplayText), stages)
            try pipeline.run(reader, into: &sink)
        })
    }

    /// The fields a line format reads: CSV and JSON with `--fields` their columns, JSON
    /// without every field, hex every field (its layers' ranges).
    static func fieldsRead(_ format: ExportFormat, columns: [ExportColumn]?) -> FieldMask {
        switch format {
        case .csv: return ExportColumn.fieldsRead(columns ?? ExportColumn.csvDefault)
        case .jsonl, .json: return columns.map(ExportColumn.fieldsRead) ?? .all
        default: return .all
        }
    }

    /// The line format's renderer; `writesHeader` false continues a CSV table whose header
    /// is already out (one of several inputs exported at once).
    static func renderer(_ format: ExportFormat, columns: [ExportColumn]?, several: Bool, writesHeader: Bool = true) -> PacketRenderer {
        switch format {
        case .jsonl: return JSONRenderer(layout: .lines, columns: columns)
        case .json: return JSONRenderer(layout: .array, columns: columns)
        case .csv: return CSVRenderer(columns: columns ?? ExportColumn.csvDefault, withFileColumn: several, writesHeader: writesHeader)
        default: return HexRenderer()
        }
    }

    private mutating func writeCapture(to destination: OutputFile?) throws {
        let sinkOut: ByteSink = destination ?? FileSink(fd: 1, name: "standard output", ownsDescriptor: false)
        var sink: CaptureExportSink?
        let format = format
        count(try forEachInput { reader, stages, _ in
            if sink == nil {
                sink = CaptureExportSink(writer: try CaptureWriters.make(format.captureFormat(for: reader.nativeFormat), sink: sinkOut))
            }
            var pipeline = pipeline(decoder(buildsDisplayText: false), stages)
            try pipeline.run(reader, into: &sink!)
        })
        try sinkOut.flush()
        if let left = sink?.skippedDescription {
            onEvent(.warning("\(format.rawValue) cannot hold every record: left out \(left)"))
        }
    }

    /// Each input in turn (redacted when asked, its progress counted when asked); an input that
    /// cannot be read is reported and the others go on; a failure to write the output ends the export.
    private func forEachInput(_ body: (FrameReader, [any PacketStage], String) throws -> Void) throws -> (read: Int, failed: Int) {
        var read = 0, failed = 0
        let destinationName = request.output ?? "standard output"
        for (index, file) in request.files.enumerated() {
            var progress: ProgressCountingReader?
            do {
                var reader = try request.open(file)
                if request.reportsProgress {
                    progress = ProgressCountingReader(reader, file: file, onEvent: onEvent)
                    reader = progress!
                }
                switch request.redaction {
                case .none: break
                case .keys: reader = RedactingReader(reader, values: false, pseudonyms: pseudonyms)
                case .values: reader = RedactingReader(reader, values: true, pseudonyms: pseudonyms)
                }
                let stages = try index == 0 ? firstStages ?? request.stages(file) : request.stages(file)
                defer { progress?.finish() }
                try body(reader, stages, file)
                read += 1
            } catch let error as CaptureError where !error.isBrokenPipe && !error.message.hasPrefix(destinationName) {
                progress?.finish()
                onEvent(.inputFailed(error.message))
                failed += 1
            }
        }
        return (read, failed)
    }

    private mutating func count(_ inputs: (read: Int, failed: Int)) {
        result.readInputs = inputs.read
        result.failedInputs = inputs.failed
    }
}

/// Counts the frames read from one input and says so as it begins, every 1,024 frames and at its end.
final class ProgressCountingReader: FrameReaderWrapper {
    let base: FrameReader
    let file: String
    let onEvent: (ExportEvent) -> Void
    var frames = 0
    var finished = false

    /// Says at once that the input is being read (frames: 0).
    init(_ base: FrameReader, file: String, onEvent: @escaping (ExportEvent) -> Void) {
        self.base = base
        self.file = file
        self.onEvent = onEvent
        onEvent(.progress(ExportProgress(file: file, frames: 0, finished: false)))
    }

    func next() throws -> Frame? {
        let frame = try base.next()
        if frame != nil {
            frames += 1
            if frames & 1023 == 0 { onEvent(.progress(ExportProgress(file: file, frames: frames, finished: false))) }
        }
        return frame
    }

    func finish() {
        guard !finished else { return }
        finished = true
        onEvent(.progress(ExportProgress(file: file, frames: frames, finished: true)))
    }
}
