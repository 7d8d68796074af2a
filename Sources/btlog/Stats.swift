import ArgumentParser
import BTCapture
import BTDecode
import BTQuery
import BTRender

struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Count and follow what captures hold: totals, protocols, controllers, devices, connections with their parameters, ATT, GATT and audio streams.",
        discussion: """
        The filters of show select the packets counted. Several captures make one report; \
        each connection names its file. --json gives the whole report as one JSON document \
        (docs/stats.schema.json). Vendors come from the IEEE registry of Debian's ieee-data \
        package (/usr/share/ieee-data/oui.csv, or the file BTLOG_OUI_FILE names) when it is installed.
        """
    )

    @Argument(help: ArgumentHelp("Capture files to read ('-' for standard input).", valueName: "FILE"))
    var files: [String]

    @Flag(help: "The report as one JSON document instead of text.")
    var json = false

    @Option(help: ArgumentHelp("Colour: auto, always or never.", valueName: "auto|always|never"))
    var color: ColorChoice = .auto

    @Flag(name: .customLong("no-progress"), help: "Never show the progress line on standard error.")
    var noProgress = false

    @OptionGroup(title: "Input") var input: InputOptionGroup
    @OptionGroup(title: "Notes") var notes: NotesOptionGroup
    @OptionGroup(title: "Selection") var selection: SelectionOptionGroup
    @OptionGroup(title: "Selection") var limit: LimitOptionGroup
    @OptionGroup(title: "Decoding") var decoding: DecodeOptionGroup

    func validate() throws {
        try CaptureInputs.validate(files, notes: notes)
    }

    func run() throws {
        _ = try selection.stages(count: limit.count) // a bad filter is reported before any output
        let decoders = try decoding.prepare()
        var collector = StatisticsCollector()
        let inputs = CaptureInputs(files: files, input: input, notes: notes, selection: selection, count: limit.count,
                                   showsProgress: !noProgress)
        let outcome = try inputs.forEach { reader, stages, file in
            collector.beginFile(file)
            var pipeline = PacketPipeline(decoder: decoders.make(buildsDisplayText: false), stages: stages) {
                FileHandleStderr.warning($0.message)
            }
            try pipeline.run(reader, into: &collector)
            collector.endFile(session: pipeline.decoder.session)
        }
        if outcome.read == 0 { throw Failure(code: 1) }
        let report = collector.finish(vendors: VendorNames.system)
        let out = OutputWriter()
        do {
            if json {
                try StatisticsJSON(report, files: files).render(to: out)
            } else {
                try StatisticsReport(report, style: Style(enabled: color.enabled(for: out))).render(to: out)
            }
            try out.flush()
        } catch is OutputWriter.OutputClosed {}
        if outcome.failed { throw Failure(code: 1) }
    }
}
