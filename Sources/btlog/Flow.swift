import ArgumentParser
import BTCapture
import BTDecode
import BTQuery
import BTRender

struct Flow: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Draw the exchange on a link as a sequence chart: text for the terminal, or an SVG.",
        discussion: """
        Lanes are each capture's host and controller: one capture has Host and Controller; with \
        --merge, the first capture's host and controller, then the second's controller and host. \
        A command or outgoing data is an arrow from a host to its controller, an event or \
        incoming data one back; a PDU both hosts logged is one arrow from the sending host to \
        the receiving one, with its latency. An air capture has the link's central and \
        peripheral; merged with hosts' logs, one air lane between theirs (a host's PDU the \
        sniffer saw is an arrow to it, its own link-layer packets marks on it). Errors are \
        marked (✗, red); stretches of more than 2 s without a packet are folded. Number Of \
        Completed Packets, advertising reports and Empty PDUs are left out unless --hide says \
        otherwise; choose the link with --handle, --device or a filter.
        """
    )

    @Argument(help: ArgumentHelp("The capture (with --merge, the captures of one scenario).", valueName: "FILE"))
    var files: [String]

    @Option(name: [.customShort("o"), .customLong("output")],
            help: ArgumentHelp("Write an SVG to this file instead of the text chart to standard output.", valueName: "FILE"))
    var output: String?

    @Option(help: ArgumentHelp("Draw at most this many arrows (default 5000).", valueName: "N"))
    var limit = 5_000

    @Option(help: ArgumentHelp("The chart's title (default: the captures).", valueName: "TEXT"))
    var title: String?

    @OptionGroup(title: "Input") var input: InputOptionGroup
    @OptionGroup(title: "Selection") var selection: SelectionOptionGroup
    @OptionGroup(title: "Decoding") var decoding: DecodeOptionGroup

    func validate() throws {
        if files.isEmpty { throw ValidationError("give a capture file to chart") }
        if input.merge { _ = try input.mergeRequest(files) } else if files.count != 1 {
            throw ValidationError("flow charts one capture; give --merge to chart the captures of one scenario as one")
        }
        if limit < 1 { throw ValidationError("--limit takes a positive number of arrows, not \(limit)") }
    }

    func run() throws {
        var chosen = selection
        // The bulk that says nothing of the exchange, unless the user chose what to hide.
        if chosen.hide.isEmpty { chosen.hide = ["nocp", "adv", "empty"] }
        let stages = try chosen.stages()
        let decoders = try decoding.prepare()
        let source = try input.sources(files)[0]
        var sink = FlowSink(limit: limit, sources: input.merge ? MergeInput.names(for: files) : [])
        do {
            let decoder = decoders.make(buildsDisplayText: false, keptFields: stages.fieldsToKeep(viewReads: .only([]).withSummaries))
            var pipeline = PacketPipeline(decoder: decoder, stages: stages) { StandardError.warning($0.message) }
            try pipeline.run(try source.open(false), into: &sink)
        } catch let error as CaptureError {
            StandardError.error(error.message)
            throw ExitCode(1)
        }
        do {
            if let output {
                let file = try OutputFile(path: output)
                try file.write(Array(sink.chart.svg(title: title ?? "Flow: \(source.label)").utf8))
                try file.close()
            } else {
                let out = OutputWriter()
                for line in sink.chart.textLines() { try out.line(line) }
                try out.flush()
            }
        } catch is OutputWriter.OutputClosed {
        } catch let error as CaptureError {
            StandardError.error(error.message)
            throw ExitCode(1)
        }
    }
}
