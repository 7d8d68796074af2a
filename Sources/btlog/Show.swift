import ArgumentParser
import BTCapture
import BTDecode
import BTQuery
import BTRender

struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decode captures: one line per packet, or the full tree with -V.",
        discussion: "FILE may be '-' for standard input, a .gz capture, an iOS sysdiagnose (.tar.gz or its folder) or an Android bugreport (.zip or its text)."
    )

    @Argument(help: ArgumentHelp("Capture files to read ('-' for standard input).", valueName: "FILE"))
    var files: [String]

    @Flag(help: "At the end of the file, wait for more, as another program is still writing it (like tail -f); Ctrl-C ends.")
    var follow = false

    @OptionGroup(title: "Input") var input: InputOptionGroup
    @OptionGroup(title: "Notes") var notes: NotesOptionGroup
    @OptionGroup(title: "Selection") var selection: SelectionOptionGroup
    @OptionGroup(title: "Selection") var limit: LimitOptionGroup

    @Option(name: [.customShort("e"), .customLong("search")],
            help: ArgumentHelp("Only packets whose printed text matches this regular expression, as 'btlog grep' searches.", valueName: "PATTERN"))
    var search: String?
    @OptionGroup(title: "Display") var display: DisplayOptionGroup
    @OptionGroup(title: "Decoding") var decoding: DecodeOptionGroup

    func validate() throws {
        if files.isEmpty { throw ValidationError("give a capture file to read (or '-' for standard input)") }
        if files.filter({ $0 == "-" }).count > 1 { throw ValidationError("standard input ('-') can be read only once") }
        if notes.notes != nil && files.count != 1 { throw ValidationError("--notes names the notes of one capture; give one file") }
        if follow && (files.count != 1 || files[0] == "-") {
            throw ValidationError("--follow reads one capture file that is still being written (standard input is always read as it arrives)")
        }
    }

    /// Selection and filters, the text search (-e), then the count. `printing`: the options
    /// the view prints with (the search hands it the text it rendered when they are the same).
    func stages(printing: RenderOptions? = nil) throws -> [any PacketStage] {
        var stages = try selection.stages()
        if let search {
            let pattern = try SearchPattern.compile(search, ignoringCase: false, fixed: false, option: "-e")
            var options = display.renderOptions(for: OutputWriter.capturing())
            options.style = Style(enabled: false)
            options.width = nil
            let renderer = display.mode.makeRenderer(options)
            stages.append(SearchStage(search: TextSearch(pattern: pattern), renderer: renderer, options: options, printing: printing))
        }
        if let count = limit.count { stages.append(PacketSelection(count: count)) }
        return stages
    }

    func run() throws {
        _ = try stages() // a bad filter or pattern is reported before any output
        let out = OutputWriter()
        let options = display.renderOptions(for: out)
        let decoders = try decoding.prepare()
        var failed = false
        let sources = try input.sources(files)
        for (index, source) in sources.enumerated() {
            let file = source.label
            if sources.count > 1 {
                if index > 0 { try? out.line("") }
                try? out.line("==> \(file) <==")
            }
            do {
                var fileOptions = options
                if input.merge { fileOptions.sourceColumn = MergeInput.names(for: files).map(\.count).max() }
                let annotations = notes.stage(for: file)
                if annotations != nil { fileOptions.flagColumn = NotesOptionGroup.flagMark }
                // Folded runs are printed from their own rendering: nothing to hand over then.
                var fileStages = try stages(printing: display.collapse ? nil : fileOptions)
                if let annotations { fileStages.insert(annotations, at: 0) }
                try ShowPipeline.run(source: source, follow: follow, stages: fileStages, mode: display.mode,
                                     options: fileOptions, collapse: display.collapse, decoders: decoders, out: out)
            } catch is OutputWriter.OutputClosed {
                return
            } catch let error as CaptureError {
                try? out.flush()
                StandardError.error(error.message)
                failed = true
            }
        }
        do { try out.flush() } catch is OutputWriter.OutputClosed { return }
        if failed { throw ExitCode(1) }
    }
}

/// Opens a capture file and runs it through the packet pipeline.
enum ShowPipeline {
    static func run(source: InputSource, follow: Bool, stages: [any PacketStage], mode: RenderMode,
                    options: RenderOptions, collapse: Bool = false, decoders: DecoderFactory, out: OutputWriter) throws {
        let reader = try source.open(follow)
        // A stream someone is still writing is shown as it arrives.
        if source.isStandardInput || follow { out.lineBuffered = true }
        var run = PrintedRun(decoders: decoders, stages: stages, mode: mode, options: options)
        run.collapse = collapse
        try run.run(reader, out: out)
    }
}
