import ArgumentParser
import BTCapture
import BTDecode
import BTQuery
import BTRender
#if canImport(Glibc)
import Glibc
#endif

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write the packets as JSON Lines, JSON, CSV, text, hex or a capture file, for scripts, notebooks and other tools.",
        discussion: """
        The filters of show select the packets. Several captures make one stream: each JSON \
        object gets a 'file' member, CSV a first 'file' column, a capture file holds them all. \
        Without -o the output is standard output; with -o it is written to a temporary file \
        renamed over FILE when complete. The JSON object is described by docs/packet.schema.json \
        and EXPORT in the man page.
        """
    )

    @Argument(help: ArgumentHelp("Capture files to read ('-' for standard input).", valueName: "FILE"))
    var files: [String]

    @Option(help: ArgumentHelp("jsonl (default), json, csv, text, hex; a capture: btsnoop, pklg, pcap, pcapng (btsnoop and pcap keep the input's own datalink where they can; btsnoop-h4, btsnoop-hci, btsnoop-monitor, pcap-h4, pcap-monitor choose one); audio of one stream: sbc (A2DP), msbc, cvsd (HFP over SCO). Default: from -o's extension.", valueName: "FORMAT"))
    var format: ExportFormat?

    @Option(help: ArgumentHelp("Instead of packets, what one protocol's layer carries (the layer above it, or its undecoded payload): a hex line per packet, e.g. --payload rfcomm, l2cap, att.", valueName: "PROTOCOL"))
    var payload: String?

    @Flag(help: "With --payload: the bytes themselves, one packet's after another, instead of hex lines.")
    var binary = false

    @Option(help: ArgumentHelp("sbc, msbc, cvsd: which audio stream, numbered from 1 in order of appearance (the list is printed on standard error).", valueName: "N"))
    var stream = 1

    @Option(name: [.customShort("o"), .customLong("output")],
            help: ArgumentHelp("Write to this file instead of standard output (replaced only when complete).", valueName: "FILE"))
    var output: String?

    @Option(help: ArgumentHelp("jsonl, json: flat objects of just these members and fields; csv: these columns (default number,time,direction,type,handle,address,summary). Packet members (number, time, timestamp_us, direction, type, kind, controller, handle, address, summary, issues, comment, flagged, length, bytes), registry fields (att.opcode), or a field's value names (att.opcode.name).", valueName: "NAME,..."))
    var fields: String?

    @Flag(name: [.customShort("V"), .long], help: "text: every layer with all its fields, as show -V.")
    var tree = false

    @Flag(name: [.customShort("x"), .long], help: "text: with -V, each packet's bytes as hex and ASCII.")
    var hex = false

    @Option(help: ArgumentHelp("text: the time column, as show's --time.", valueName: "abs|rel|delta|epoch"))
    var time: TimeFormatter.Mode = .abs

    @Flag(help: "For sharing: zero every key and pairing value the decoders know (SMP keys, confirm and random values, public keys, DHKey checks; link keys, LTKs, PINs, passkeys, OOB data) and give every device address a pseudonym (the same device the same one, locally administered). The result still decodes.")
    var redact = false

    @Flag(name: .customLong("redact-values"), help: "--redact, and zero ATT values, what GATT profiles carry above ATT, and ANCS strings.")
    var redactValues = false

    @Flag(name: .customLong("no-progress"), help: "Never show the progress line (shown on standard error, when it is a terminal, for an export that takes more than half a second).")
    var noProgress = false

    @OptionGroup(title: "Input") var input: InputOptionGroup
    @OptionGroup(title: "Notes") var notes: NotesOptionGroup
    @OptionGroup(title: "Selection") var selection: SelectionOptionGroup
    @OptionGroup(title: "Selection") var limit: LimitOptionGroup
    @OptionGroup(title: "Decoding") var decoding: DecodeOptionGroup

    var resolvedFormat: ExportFormat { format ?? output.flatMap(ExportFormat.guess) ?? .jsonl }

    var columnNames: [String]? { fields.map(CommaList.items) }

    func validate() throws {
        try CaptureInputs.validate(files, notes: notes)
        if output == "-" { throw ValidationError("-o takes a file; without -o the export goes to standard output") }
        let format = resolvedFormat
        if let names = columnNames {
            guard format == .jsonl || format == .json || format == .csv else {
                throw ValidationError("--fields chooses the members of jsonl, json and csv, not of \(format.rawValue)")
            }
            if names.isEmpty { throw ValidationError("--fields takes a comma-separated list of names; 'btlog fields' lists the fields") }
            let unknown = ExportColumn.resolve(names).unknown
            if !unknown.isEmpty {
                throw ValidationError("unknown field\(unknown.count == 1 ? "" : "s") \(unknown.map { "'\($0)'" }.joined(separator: ", ")); 'btlog fields' lists them, and export also takes \(PacketMember.allCases.map(\.rawValue).joined(separator: ", "))")
            }
        }
        if (tree || hex || time != .abs) && format != .text {
            throw ValidationError("-V, -x and --time shape the text format; give --format text")
        }
        if hex && !tree { throw ValidationError("-x adds the bytes to the tree; give -V too") }
        if let payload {
            if format != .jsonl || self.format != nil { throw ValidationError("--payload writes its own form; not with --format") }
            if columnNames != nil { throw ValidationError("--payload and --fields choose different outputs; give one") }
            let known = Set(FieldRegistry.protocols + ProtocolCatalog.layerProtocols).subtracting(["frame"])
            if !known.contains(payload) {
                throw ValidationError("--payload takes a protocol (\(known.sorted().joined(separator: ", "))), not '\(payload)'")
            }
        } else if binary {
            throw ValidationError("--binary goes with --payload")
        }
        if stream < 1 { throw ValidationError("--stream takes a stream number, 1 or more") }
        if stream != 1 && !format.isAudio { throw ValidationError("--stream chooses the audio stream of sbc, msbc and cvsd") }
    }

    func run() throws {
        _ = try selection.stages(count: limit.count) // a bad filter is reported before any output
        let format = resolvedFormat
        if (format.isCapture || format.isAudio || binary) && output == nil && isatty(1) != 0 {
            StandardError.error("\(binary ? "--binary" : format.rawValue) writes binary data: give -o FILE, or redirect standard output")
            throw Failure(code: 2)
        }
        let decoders = try decoding.prepare()
        let destination: OutputFile?
        do {
            destination = try output.map(OutputFile.init(path:))
        } catch let error as CaptureError {
            StandardError.error(error.message)
            throw Failure(code: 1)
        }
        var run = ExportRun(command: self, format: format, decoders: decoders, destination: destination)
        do {
            try run.run()
            // Nothing could be read: an existing file is not replaced by an empty export.
            if run.readInputs == 0, let destination {
                let left = destination.abandon()
                if !left.isEmpty { StandardError.error(left) }
                throw Failure(code: 1)
            }
            try destination?.close()
        } catch let error as CaptureError where error.isBrokenPipe && destination == nil {
            return
        } catch is OutputWriter.OutputClosed {
            return
        } catch let error as CaptureError {
            Export.fail(error.message, destination)
        } catch let error as OutputWriter.OutputFailed {
            Export.fail(error.description, destination)
        }
        if run.failedInputs { throw Failure(code: 1) }
    }

    static func fail(_ message: String, _ destination: OutputFile?) -> Never {
        let left = destination?.abandon() ?? ""
        StandardError.error(message + (left.isEmpty ? "" : "; " + left))
        Glibc.exit(1)
    }
}

/// The files of one export, read in order into one sink.
struct ExportRun {
    let command: Export
    let format: ExportFormat
    let decoders: DecoderFactory
    let destination: OutputFile?
    /// An input that could not be read (reported; the others are still exported).
    private(set) var failedInputs = false
    /// How many inputs were opened and read.
    private(set) var readInputs = 0
    /// One table for every input, so a device keeps its pseudonym across files.
    let pseudonyms = AddressPseudonyms()

    init(command: Export, format: ExportFormat, decoders: DecoderFactory, destination: OutputFile?) {
        self.command = command
        self.format = format
        self.decoders = decoders
        self.destination = destination
    }

    mutating func run() throws {
        if format.isCapture { return try runCapture() }
        let out = OutputWriter(fd: destination?.descriptor ?? 1)
        if format == .text { return try runText(out) }
        if let payload = command.payload {
            var sink = PayloadSink(protocolName: payload, binary: command.binary, out: out)
            try runEach(into: &sink, buildsDisplayText: false)
            return try out.flush()
        }
        if format.isAudio {
            var sink = AudioStreamSink(codec: AudioStreamSink.Codec(rawValue: format.rawValue)!, stream: command.stream, out: out)
            try runEach(into: &sink, buildsDisplayText: false)
            try out.flush()
            StandardError.write(sink.report + "\n")
            return
        }
        if let width = concurrentInputs { return try runConcurrently(out, width: width) }
        let columns = command.columnNames.map { ExportColumn.resolve($0).columns }
        var sink = RenderingSink(makeRenderer(), out: out)
        var statistics = CaptureStatistics()
        (failedInputs, readInputs) = try forEachInput { reader, stages, file in
            if command.files.count > 1 { sink.beginFile(file) }
            var pipeline = PacketPipeline(decoder: decoders.make(buildsDisplayText: format.buildsDisplayText(tree: command.tree, columns: columns),
                                                                 keptFields: stages.fieldsToKeep(viewReads: Self.fieldsRead(format, columns: columns))),
                                          stages: stages) { StandardError.warning($0.message) }
            try pipeline.run(reader, into: &sink)
            statistics.merge(pipeline.statistics)
        }
        try sink.finish(statistics)
        try out.flush()
    }

    /// How many inputs to decode at once: several captures in a line format (each input's lines
    /// whole, in input order, as one after another would give them). Not standard input, and
    /// not redacted (pseudonyms are numbered in reading order across the inputs).
    var concurrentInputs: Int? {
        guard command.files.count > 1, [.jsonl, .csv, .hex].contains(format), !command.redact, !command.redactValues,
              !command.files.contains("-"), SinkThreading.inputsAtOnce > 1, InputJobs.canSpool else { return nil }
        return SinkThreading.inputsAtOnce
    }

    /// Each input decoded and rendered on a thread of its own into a spool (InputJobs), the
    /// spools copied to the output in input order. No progress line: several inputs move at once.
    mutating func runConcurrently(_ out: OutputWriter, width: Int) throws {
        let columns = command.columnNames.map { ExportColumn.resolve($0).columns }
        // CSV's header once, first, as one input after another writes it (even when none is read).
        var header = Self.renderer(format, columns: columns, several: true)
        try header.finish(CaptureStatistics(), to: out)
        let command = command, format = format, decoders = decoders
        let buildsDisplayText = format.buildsDisplayText(tree: command.tree, columns: columns)
        var failed = false, read = 0
        try InputJobs.run(count: command.files.count, width: width, job: { index, spool in
            let file = command.files[index]
            let reader = try CaptureInput.open(file, options: command.input.inputOptions)
            var stages = try command.selection.stages(count: command.limit.count)
            if let annotations = command.notes.stage(for: file) { stages.insert(annotations, at: 0) }
            let spoolOut = OutputWriter(fd: spool.descriptor)
            var sink = RenderingSink(Self.renderer(format, columns: columns, several: true, writesHeader: false), out: spoolOut)
            sink.beginFile(file)
            var pipeline = PacketPipeline(decoder: decoders.make(buildsDisplayText: buildsDisplayText,
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
            if try InputJobs.emit(spool, outcome, to: out) != nil { read += 1 } else { failed = true }
        })
        (failedInputs, readInputs) = (failed, read)
        try out.flush()
    }

    /// Exactly what show prints (without colour): per capture, its name when there are
    /// several, the flag column when it has notes, its status line.
    mutating func runText(_ out: OutputWriter) throws {
        var options = RenderOptions()
        options.time = command.time
        options.hex = command.hex
        let mode = command.tree ? RenderMode.tree : RenderMode.table
        var index = 0
        (failedInputs, readInputs) = try forEachInput { reader, stages, file in
            if command.files.count > 1 {
                if index > 0 { try out.line("") }
                try out.line("==> \(file) <==")
            }
            index += 1
            var fileOptions = options
            if stages.contains(where: { $0 is AnnotationStage }) { fileOptions.flagColumn = NotesOptionGroup.flagMark }
            var sink = RenderingSink(mode.makeRenderer(fileOptions), out: out)
            var pipeline = PacketPipeline(decoder: decoders.make(buildsDisplayText: mode.showsFieldText,
                                                                 keptFields: stages.fieldsToKeep(viewReads: mode.fieldsRead)), stages: stages) {
                StandardError.warning($0.message)
            }
            try pipeline.run(reader, into: &sink)
            try sink.finish(pipeline.statistics)
        }
        try out.flush()
    }

    /// Every input into one sink, each through its own decoder and stages.
    mutating func runEach<Sink: PacketSink>(into sink: inout Sink, buildsDisplayText: Bool) throws {
        (failedInputs, readInputs) = try forEachInput { reader, stages, _ in
            var pipeline = PacketPipeline(decoder: decoders.make(buildsDisplayText: buildsDisplayText), stages: stages) {
                StandardError.warning($0.message)
            }
            try pipeline.run(reader, into: &sink)
        }
    }

    func makeRenderer() -> PacketRenderer {
        Self.renderer(format, columns: command.columnNames.map { ExportColumn.resolve($0).columns }, several: command.files.count > 1)
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

    mutating func runCapture() throws {
        let sinkOut: ByteSink = destination ?? FileSink(fd: 1, name: "standard output", ownsDescriptor: false)
        var sink: CaptureExportSink?
        (failedInputs, readInputs) = try forEachInput { reader, stages, _ in
            if sink == nil {
                sink = CaptureExportSink(writer: try CaptureWriters.make(format.captureFormat(for: reader.nativeFormat), sink: sinkOut))
            }
            var pipeline = PacketPipeline(decoder: decoders.make(buildsDisplayText: false), stages: stages) {
                StandardError.warning($0.message)
            }
            try pipeline.run(reader, into: &sink!)
        }
        try sinkOut.flush()
        if let left = sink?.skippedDescription {
            StandardError.warning("\(format.rawValue) cannot hold every record: left out \(left)")
        }
    }

    /// Each input in turn, redacted when asked; a failure to write the output ends the run.
    func forEachInput(_ body: (FrameReader, [any PacketStage], String) throws -> Void) throws -> (failed: Bool, read: Int) {
        var inputs = CaptureInputs(files: command.files, input: command.input, notes: command.notes, selection: command.selection,
                                   count: command.limit.count, showsProgress: !command.noProgress)
        if command.redact || command.redactValues {
            let values = command.redactValues, pseudonyms = pseudonyms
            inputs.wrap = { RedactingReader($0, values: values, pseudonyms: pseudonyms) }
        }
        let destinationName = destinationName
        inputs.endsRun = { $0.message.hasPrefix(destinationName) }
        return try inputs.forEach(body)
    }

    /// How write errors name the output (they end the export; input errors do not).
    var destinationName: String { destination?.path ?? "standard output" }
}

enum ExportFormat: String, ExpressibleByArgument, CaseIterable {
    case jsonl, json, csv, text, hex
    case btsnoop, pklg, pcap, pcapng
    case btsnoopH4 = "btsnoop-h4", btsnoopHCI = "btsnoop-hci", btsnoopMonitor = "btsnoop-monitor"
    case pcapH4 = "pcap-h4", pcapMonitor = "pcap-monitor"
    case sbc, msbc, cvsd

    var isCapture: Bool { ![.jsonl, .json, .csv, .text, .hex].contains(self) && !isAudio }
    var isAudio: Bool { [.sbc, .msbc, .cvsd].contains(self) }

    /// JSON objects give every layer's summary and the decoders' value names, and flat ones
    /// (--fields) the names asked for; the tree its fields' text. Everything else only values
    /// and the top summary, which are always there.
    func buildsDisplayText(tree: Bool, columns: [ExportColumn]?) -> Bool {
        switch self {
        case .jsonl, .json, .csv:
            guard let columns else { return self != .csv }
            return columns.contains { if case .valueName = $0 { return true } else { return false } }
        case .text: return tree
        default: return false
        }
    }

    /// The file format for frames read from an input of `native` format: btsnoop and pcap keep
    /// the input's own datalink where it has one of theirs (so an unfiltered btsnoop export is
    /// the same file), else the one that keeps most (monitor: controller indexes and notes).
    func captureFormat(for native: CaptureFileFormat) -> CaptureFileFormat {
        switch self {
        case .btsnoop:
            switch native {
            case .btsnoopHCI, .btsnoopH4, .btsnoopMonitor: return native
            case .pcapH4: return .btsnoopH4
            default: return .btsnoopMonitor
            }
        case .pcap:
            switch native {
            case .btsnoopMonitor, .pcapMonitor, .pcapng: return .pcapMonitor
            case .pcapLELL, .pcapLELLWithRadioHeader, .pcapNordicBLE, .pcapPPI, .pcapBREDRBB: return native
            default: return .pcapH4
            }
        case .pklg: return .pklg
        case .pcapng: return .pcapng
        case .btsnoopH4: return .btsnoopH4
        case .btsnoopHCI: return .btsnoopHCI
        case .btsnoopMonitor: return .btsnoopMonitor
        case .pcapH4: return .pcapH4
        case .pcapMonitor: return .pcapMonitor
        case .jsonl, .json, .csv, .text, .hex, .sbc, .msbc, .cvsd: preconditionFailure("not a capture format")
        }
    }

    /// From an output file's extension.
    static func guess(_ path: String) -> ExportFormat? {
        let lower = path.lowercased()
        let table: [(String, ExportFormat)] = [
            (".jsonl", .jsonl), (".ndjson", .jsonl), (".json", .json), (".csv", .csv), (".txt", .text), (".hex", .hex),
            (".btsnoop", .btsnoop), (".log", .btsnoop), (".cfa", .btsnoop), (".pklg", .pklg), (".pcapng", .pcapng), (".pcap", .pcap),
            (".sbc", .sbc), (".msbc", .msbc), (".cvsd", .cvsd),
        ]
        return table.first { lower.hasSuffix($0.0) }?.1
    }
}
