import ArgumentParser
import BTCapture
import BTDecode
import BTAnalysis
import BTQuery
import BTRender

struct Diff: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Compare two captures of the same scenario by meaning: what one did and the other did not.",
        discussion: """
        Handles, addresses, timestamps and transaction labels differ between two runs that behave \
        the same; the comparison reads past them. Peers are matched by address, then by the name \
        they gave, then in the order of their connections (random addresses that changed). \
        Compared: problems diagnose finds in one capture and not the other (first); each peer's \
        conversations (ATT named by GATT, SMP, L2CAP signaling, SDP, RFCOMM, HFP's AT commands, \
        AVDTP), aligned as diff -u aligns lines, with both captures' packet numbers; devices and \
        what the controllers said of themselves; connections (transport, role, parameters and \
        their changes, encryption, pairing and its outcome, L2CAP channels, how the link ended); \
        GATT databases tree to tree; A2DP, SCO and ISO streams; timing (set-up durations, \
        throughput, ATT response times) beyond --tolerance. A short ranked summary comes first, \
        the details below. Exit status: 0 when nothing differs, 1 when something does, 2 on \
        error, as diff(1). The filters of show select the packets compared, in both captures.
        """
    )

    @Argument(help: ArgumentHelp("The first capture (the one that works, say).", valueName: "A"))
    var first: String

    @Argument(help: ArgumentHelp("The second capture ('-' for standard input in either place, once).", valueName: "B"))
    var second: String

    @Flag(help: "The comparison as one JSON document (docs/diff.schema.json).")
    var json = false

    @Flag(help: "One line per aspect: how many differences each has.")
    var stat = false

    @Option(name: .customLong("ignore"),
            help: ArgumentHelp("Leave out of the comparison: values (ATT values, AT parameters and delay reports: only their length counts), or an aspect: diagnosis, conversations, devices, connections, gatt, audio, timing. Comma-separated or repeated.", valueName: "WHAT,..."))
    var ignore: [String] = []

    @Option(help: ArgumentHelp("How far timing may differ before it counts, e.g. 20% (the default) or 50%; differences under 10 ms never count.", valueName: "PERCENT"))
    var tolerance: TolerancePercent = TolerancePercent(ratio: 0.2)

    @OptionGroup var coloring: ColorOptionGroup
    var color: ColorChoice { coloring.color }

    @OptionGroup var progress: ProgressOptionGroup
    var noProgress: Bool { progress.noProgress }

    @OptionGroup(title: "Input") var input: InputOptionGroup
    @OptionGroup(title: "Selection") var selection: SelectionOptionGroup
    @OptionGroup(title: "Selection") var limit: LimitOptionGroup
    @OptionGroup(title: "Decoding") var decoding: DecodeOptionGroup

    static let ignorable = ["values"] + CaptureDiff.aspectNames

    var ignored: Set<String> { Set(ignore.flatMap(CommaList.items).map { $0.lowercased() }) }

    func validate() throws {
        try input.refuseMerge("diff", because: "it compares two captures of two runs; merge the two ends of each run first (btlog merge)")
        if first == "-" && second == "-" { throw ValidationError("standard input ('-') can be read only once") }
        if stat && json { throw ValidationError("--stat and --json are two forms of the report: give one") }
        for item in ignored where !Self.ignorable.contains(item) {
            throw ValidationError("--ignore takes \(Self.ignorable.joined(separator: ", ")); not '\(item)'")
        }
    }

    func run() throws {
        _ = try selection.stages(count: limit.count) // a bad filter is reported before any output
        let decoders = try decoding.prepare()
        let values = !ignored.contains("values")
        let notes = try NotesOptionGroup.parse([])
        var sides: [(DiffSide, DiffInput)] = []
        for file in [first, second] {
            var recorder = DiffRecorder(values: values)
            var packets = 0
            let inputs = CaptureInputs(files: [file], input: input, notes: notes, selection: selection, count: limit.count, showsProgress: !noProgress)
            let outcome = try inputs.forEach { reader, stages, file in
                recorder.beginFile(file)
                // The display text is built: conversations name operations as the tree does.
                var pipeline = PacketPipeline(decoder: decoders.make(buildsDisplayText: true), stages: stages) { StandardError.warning($0.message) }
                var counting = CountingSink(inner: recorder)
                try pipeline.run(reader, into: &counting)
                recorder = counting.inner
                packets = counting.count
                recorder.endFile(session: pipeline.decoder.session)
            }
            if outcome.failed || outcome.read == 0 { throw ExitCode(2) }
            sides.append((recorder.finish(vendors: VendorNames.system), DiffInput(file: file, packets: packets)))
        }
        var diff = CaptureDiff(sides[0].0, sides[1].0, ignoringValues: !values, tolerance: DiffTolerance(ratio: tolerance.ratio))
        diff.aspects.removeAll { ignored.contains($0.name) }
        let out = OutputWriter()
        do {
            if json {
                try DiffJSON(diff, a: sides[0].1, b: sides[1].1).render(to: out)
            } else if stat {
                try DiffStatReport(diff).render(to: out)
            } else {
                try DiffReport(diff, a: sides[0].1, b: sides[1].1, style: Style(enabled: color.enabled(for: out))).render(to: out)
            }
            try out.flush()
        } catch is OutputWriter.OutputClosed {}
        if !diff.isEmpty { throw ExitCode(1) }
    }
}

/// Counts the packets a sink is given (what `btlog diff` says each capture held after the filters).
struct CountingSink<Inner: PacketSink>: PacketSink {
    var inner: Inner
    var count = 0

    mutating func consume(_ packet: Packet) throws {
        count += 1
        try inner.consume(packet)
    }

    var runsOnItsOwnThread: Bool { inner.runsOnItsOwnThread }
}

/// `--tolerance 20%`: a share, given in percent.
struct TolerancePercent: ExpressibleByArgument {
    var ratio: Double

    init(ratio: Double) { self.ratio = ratio }

    init?(argument: String) {
        let text = argument.hasSuffix("%") ? String(argument.dropLast()) : argument
        guard let percent = Double(text), percent.isFinite, percent >= 0, percent <= 1000 else { return nil }
        ratio = percent / 100
    }

    var defaultValueDescription: String { "\(Int(ratio * 100))%" }
}
