import BTCapture
import BTDecode
import BTQuery
import BTRender

/// The wiring `show` and `capture` share: the packet chain (selection and filters first) into the chosen
/// view, then what stayed open at the end (standard error), then the view's status line.
struct PrintedRun {
    var pipeline: PacketPipeline
    let mode: RenderMode
    let options: RenderOptions
    /// Decode and count but print nothing (capture -q, capture -w -).
    var quiet = false
    /// Fold runs of packets that differ only in counters (--collapse; the table only).
    var collapse = false

    init(decoders: DecoderFactory, stages: [any PacketStage], mode: RenderMode, options: RenderOptions) {
        let decoder = decoders.make(buildsDisplayText: stages.needDisplayText(viewShowsFieldText: mode.showsFieldText),
                                    keptFields: stages.fieldsToKeep(viewReads: mode.fieldsRead))
        pipeline = PacketPipeline(decoder: decoder, stages: stages) { StandardError.warning($0.message) }
        self.mode = mode
        self.options = options
    }

    var statistics: CaptureStatistics { pipeline.statistics }

    mutating func run(_ reader: FrameReader, out: OutputWriter) throws {
        // Output flushed line by line is watched as it arrives: no batching for the sink's thread.
        pipeline.live = out.lineBuffered
        let plain = RenderingSink(mode.makeRenderer(options), out: out)
        if collapse && !quiet {
            var folding = CollapsingSink(plain, times: NotesOptionGroup.localeIsUTF8 ? "×" : "x")
            try pipeline.run(reader, into: &folding)
            try finish(out)
            try folding.finish(pipeline.statistics)
            return try out.flush()
        }
        var sink = plain
        if quiet {
            var nothing = DiscardingSink()
            try pipeline.run(reader, into: &nothing)
        } else {
            try pipeline.run(reader, into: &sink)
        }
        try finish(out)
        if !quiet { try sink.finish(pipeline.statistics) }
        try out.flush()
    }

    /// What stayed open at the end of a capture read to its end, on standard error.
    private mutating func finish(_ out: OutputWriter) throws {
        guard pipeline.readAll else { return }
        try out.flush()
        let errors = OutputWriter(fd: 2)
        try? OpenItemsReport(pipeline.finish()).render(to: errors)
        try? errors.flush()
    }
}
