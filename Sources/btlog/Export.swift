import ArgumentParser
import BTCapture
import BTDecode
import BTExport
import BTQuery
import BTRender
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
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

    @OptionGroup var progress: ProgressOptionGroup
    var noProgress: Bool { progress.noProgress }

    @OptionGroup(title: "Input") var input: InputOptionGroup
    @OptionGroup(title: "Notes") var notes: NotesOptionGroup
    @OptionGroup(title: "Selection") var selection: SelectionOptionGroup
    @OptionGroup(title: "Selection") var limit: LimitOptionGroup
    @OptionGroup(title: "Decoding") var decoding: DecodeOptionGroup

    var resolvedFormat: ExportFormat { format ?? ExportRequest.format(for: output) }

    var columnNames: [String]? { fields.map(CommaList.items) }

    func validate() throws {
        try CaptureInputs.validate(files, notes: notes)
        if input.merge { _ = try input.mergeRequest(files) }
        if output == "-" { throw ValidationError("-o takes a file; without -o the export goes to standard output") }
        if payload != nil && format != nil { throw ValidationError("--payload writes its own form; not with --format") }
        do {
            try request(decoding: DecodeOptions()).validate()
        } catch let invalid as ExportRequest.Invalid {
            throw ValidationError(invalid.description)
        }
    }

    /// The export these options ask for.
    func request(decoding: DecodeOptions) -> ExportRequest {
        var request = ExportRequest(files: files, format: resolvedFormat, output: output)
        request.input = input.inputOptions
        if input.merge, let merged = try? input.sources(files).first {
            request.files = [merged.label]
            request.opener = { _ in try merged.open(false) }
        }
        request.decoding = decoding
        let selection = selection, count = limit.count, notes = notes
        request.stages = { file in
            var stages = try selection.stages(count: count)
            if let annotations = notes.stage(for: file) { stages.insert(annotations, at: 0) }
            return stages
        }
        request.columns = columnNames
        request.payload = payload
        request.binary = binary
        request.stream = stream
        request.tree = tree
        request.hex = hex
        request.time = time
        request.flagMark = NotesOptionGroup.flagMark
        request.redaction = redactValues ? .values : redact ? .keys : .none
        request.reportsProgress = !noProgress && isatty(2) != 0
        return request
    }

    func run() throws {
        let request = request(decoding: try decoding.prepare().options)
        if request.writesBinary && output == nil && isatty(1) != 0 {
            StandardError.error("\(binary ? "--binary" : request.format.rawValue) writes binary data: give -o FILE, or redirect standard output")
            throw ExitCode(2)
        }
        var progress: ProgressLine?
        var job = ExportJob(request) { event in
            switch event {
            case .progress(let state):
                if state.finished {
                    progress?.finish()
                    progress = nil
                } else if state.frames == 0 {
                    progress = ProgressLine(file: state.file, enabled: true)
                } else {
                    progress?.update(frames: state.frames)
                }
            case .warning(let message):
                progress?.finish() // a message is printed on its own line: the progress line makes room first
                StandardError.warning(message)
            case .inputFailed(let message):
                progress?.finish()
                StandardError.error(message)
            case .report(let text):
                StandardError.write(text + "\n")
            }
        }
        let result: ExportResult
        do {
            result = try job.run()
        } catch let failure as ExportFailure {
            if !failure.description.isEmpty { StandardError.error(failure.description) }
            throw ExitCode(1)
        }
        if result.failedInputs > 0 { throw ExitCode(1) }
    }
}

extension ExportFormat: ExpressibleByArgument {}
