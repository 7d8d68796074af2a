import ArgumentParser
import BTCapture
import BTDecode
import BTAnalysis
import BTQuery
import BTRender

struct Diagnose: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List what went wrong in captures: failed pairings, encryption and ATT errors, lost links, refused channels, audio gaps, controller errors.",
        discussion: """
        Each problem with the packets that show it and one line on what it usually means and \
        what to do: error, the devices failed at something; warning, something degraded or \
        suspicious. What the capture itself lacks (packets a sniffer missed, answers it did not \
        hear, encrypted links without a key, records cut short, links set up before it began) \
        is listed apart under capture completeness and is never counted as a problem. Exit \
        status: 0 when no problem was found, 1 when one was (so a CI job can fail on it), 2 on \
        an error (an unreadable capture, a bad option). The filters of show choose the packets \
        looked at; --json gives one JSON document (docs/diagnose.schema.json).
        """
    )

    @Argument(help: ArgumentHelp("Capture files to read ('-' for standard input).", valueName: "FILE"))
    var files: [String]

    @Flag(help: "The problems as one JSON document instead of text.")
    var json = false

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
    }

    func run() throws {
        do {
            _ = try selection.stages(count: limit.count)
        } catch {
            // A bad filter is a usage error: status 2, as for a bad option.
            StandardError.error("\(error)")
            throw ExitCode(2)
        }
        let decoders = try decoding.prepare()
        var collector = StatisticsCollector()
        let inputs = CaptureInputs(files: files, input: input, notes: notes, selection: selection, count: limit.count,
                                   showsProgress: !noProgress)
        let outcome = try inputs.collect(into: &collector, decoders: decoders)
        if outcome.read == 0 { throw ExitCode(2) }
        let report = collector.finish()
        let problems = Diagnosis.problems(in: report)
        let out = OutputWriter()
        let rendered = DiagnosisReport(problems, gaps: Diagnosis.completeness(in: report), packets: report.totals.packets, files: files,
                                       style: Style(enabled: color.enabled(for: out)))
        do {
            if json { try out.write(rendered.document) } else { try rendered.render(to: out) }
            try out.flush()
        } catch is OutputWriter.OutputClosed {}
        if outcome.failed { throw ExitCode(2) }
        if !problems.isEmpty { throw ExitCode(1) }
    }
}
