import ArgumentParser
import BTCapture
import BTDecode
import BTAnalysis
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
        package (/usr/share/ieee-data/oui.csv, or the file BTLOG_OUI_FILE names) when it is installed. \
        --throughput shows application throughput per connection and direction over time instead, \
        and for LE links the ceiling their parameters allow and the first limit in the way.
        """
    )

    @Argument(help: ArgumentHelp("Capture files to read ('-' for standard input).", valueName: "FILE"))
    var files: [String]

    @Flag(help: "The report as one JSON document instead of text.")
    var json = false

    @Flag(help: "Application throughput (ATT values, L2CAP channel payloads, A2DP media) per connection and direction over time, as a chart and a table, and for LE links the ceiling the parameters allow and the first limit in the way.")
    var throughput = false

    @Option(help: ArgumentHelp("With --throughput: the length of each interval, e.g. 1s (the default), 250ms, 0.5.", valueName: "DURATION"))
    var interval: TimeSpan = TimeSpan(microseconds: 1_000_000)

    @Option(help: ArgumentHelp("Also plot the throughput as an SVG image into this file (implies --throughput).", valueName: "FILE"))
    var svg: String?

    @OptionGroup var coloring: ColorOptionGroup
    var color: ColorChoice { coloring.color }

    @OptionGroup var progress: ProgressOptionGroup
    var noProgress: Bool { progress.noProgress }

    @OptionGroup(title: "Input") var input: InputOptionGroup
    @OptionGroup(title: "Notes") var notes: NotesOptionGroup
    @OptionGroup(title: "Selection") var selection: SelectionOptionGroup
    @OptionGroup(title: "Selection") var limit: LimitOptionGroup
    @OptionGroup(title: "Decoding") var decoding: DecodeOptionGroup

    func validate() throws {
        try CaptureInputs.validate(files, notes: notes)
        if interval.microseconds <= 0 { throw ValidationError("--interval takes a duration above zero, e.g. 1s or 250ms") }
    }

    var showsThroughput: Bool { throughput || svg != nil }

    func run() throws {
        _ = try selection.stages(count: limit.count) // a bad filter is reported before any output
        let decoders = try decoding.prepare()
        var collector = StatisticsCollector(throughputInterval: showsThroughput ? interval.microseconds : nil)
        let inputs = CaptureInputs(files: files, input: input, notes: notes, selection: selection, count: limit.count,
                                   showsProgress: !noProgress)
        let outcome = try inputs.collect(into: &collector, decoders: decoders)
        if outcome.read == 0 { throw ExitCode(1) }
        let report = collector.finish(vendors: VendorNames.system)
        if let series = collector.throughput, let outlier = series.firstOutlier {
            let span = Microseconds.secondsText(series.interval.saturatingMultiply(Int64(ThroughputSeries.maxBins)))
            StandardError.warning("throughput: \(series.outliers) packet\(series.outliers == 1 ? "" : "s") more than \(span) s after the capture's first "
                + "(the first of them packet \(outlier.frame), at \(Microseconds.secondsText(outlier.time)) s) left out of the series: a damaged timestamp "
                + "('btlog show --packets \(outlier.frame)-\(outlier.frame)' shows it), or a capture longer than the intervals allow: use a larger --interval")
        }
        if let svg, let series = collector.throughput {
            let title = "Application throughput: " + (files.count == 1 ? files[0] : "\(files.count) captures")
            do {
                let file = try OutputFile(path: svg)
                try file.write(Array(ThroughputPlot(report, series: series, title: title).svg.utf8))
                try file.close()
            } catch let error as CaptureError {
                StandardError.error(error.message)
                throw ExitCode(1)
            }
        }
        let out = OutputWriter()
        do {
            if json {
                try StatisticsJSON(report, files: files, throughput: collector.throughput).render(to: out)
            } else if let series = collector.throughput {
                try ThroughputReport(report, series: series, style: Style(enabled: color.enabled(for: out)),
                                     chartWidth: min(60, max(20, (out.terminalWidth ?? 100) - 60))).render(to: out)
            } else {
                try StatisticsReport(report, style: Style(enabled: color.enabled(for: out))).render(to: out)
            }
            try out.flush()
        } catch is OutputWriter.OutputClosed {}
        if outcome.failed { throw ExitCode(1) }
    }
}
