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

    @OptionGroup(title: "Input") var input: InputOptionGroup
    @OptionGroup(title: "Selection") var selection: SelectionOptionGroup
    @OptionGroup(title: "Display") var display: DisplayOptionGroup
    @OptionGroup(title: "Decoding") var decoding: DecodeOptionGroup

    func validate() throws {
        if files.isEmpty { throw ValidationError("give a capture file to read (or '-' for standard input)") }
        if files.filter({ $0 == "-" }).count > 1 { throw ValidationError("standard input ('-') can be read only once") }
    }

    func run() throws {
        let out = OutputWriter()
        let options = display.renderOptions(for: out)
        let decoders = try decoding.prepare()
        var failed = false
        for (index, file) in files.enumerated() {
            if files.count > 1 {
                if index > 0 { try? out.line("") }
                try? out.line("==> \(file) <==")
            }
            do {
                try ShowPipeline.run(file: file, input: input.inputOptions, selection: selection.selection,
                                     mode: display.mode, options: options, decoder: decoders.make(), out: out)
            } catch is OutputWriter.OutputClosed {
                return
            } catch let error as CaptureError {
                try? out.flush()
                FileHandleStderr.error(error.message)
                failed = true
            }
        }
        do { try out.flush() } catch is OutputWriter.OutputClosed { return }
        if failed { throw Failure(code: 1) }
    }
}

/// read → decode → select → render, one packet at a time.
enum ShowPipeline {
    static func run(file: String, input: InputOptions, selection: PacketSelection, mode: RenderMode,
                    options: RenderOptions, decoder: Decoder, out: OutputWriter) throws {
        let reader = try CaptureInput.open(file, options: input)
        if file == "-" { out.lineBuffered = true }
        var renderer = mode.makeRenderer(options)
        var statistics = CaptureStatistics()
        var shown = 0
        var readAll = true
        func drainWarnings() {
            guard !reader.warnings.isEmpty else { return }
            for warning in reader.warnings { FileHandleStderr.warning(warning.message) }
            reader.warnings.removeAll()
        }
        drainWarnings()
        while let frame = try reader.next() {
            drainWarnings()
            // Decode every frame (state such as connections spans packets), show the selected.
            let packet = decoder.decode(frame)
            guard selection.includes(number: frame.number) else { continue }
            try renderer.render(packet, to: out)
            statistics.add(packet)
            shown += 1
            if selection.isExhausted(afterNumber: frame.number, shown: shown) { readAll = false; break }
        }
        drainWarnings()
        if readAll {
            try out.flush()
            for report in decoder.finish() { FileHandleStderr.warning("packet \(report.frameNumber): \(report.message)") }
        }
        try renderer.finish(statistics, to: out)
        try out.flush()
    }
}
