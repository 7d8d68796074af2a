import ArgumentParser
import BTCapture
import BTDecode
import BTAnalysis
import BTQuery
import BTRender

/// The captures a command reads one after another (export, stats): each opened with the
/// input options, shown with a progress line when standard error is a terminal, and given its
/// own stages (selection and filters, and its notes). An input that cannot be read is reported
/// and the others go on.
struct CaptureInputs {
    let files: [String]
    let input: InputOptionGroup
    let notes: NotesOptionGroup
    let selection: SelectionOptionGroup
    let count: Int?
    let showsProgress: Bool

    /// The checks every command reading several captures makes of its arguments.
    static func validate(_ files: [String], notes: NotesOptionGroup) throws {
        if files.isEmpty { throw ValidationError("give a capture file to read (or '-' for standard input)") }
        if files.filter({ $0 == "-" }).count > 1 { throw ValidationError("standard input ('-') can be read only once") }
        if notes.notes != nil && files.count != 1 { throw ValidationError("--notes names the notes of one capture; give one file") }
    }

    /// True in `failed` when an input could not be read; `read` counts those that were.
    func forEach(_ body: (FrameReader, [any PacketStage], String) throws -> Void) throws -> (failed: Bool, read: Int) {
        var failed = false, read = 0
        for source in try input.sources(files) {
            let file = source.label
            do {
                var reader = try source.open(false)
                if let progress = ProgressLine(file: file, enabled: showsProgress) {
                    reader = ProgressReader(reader, progress: progress)
                }
                var stages = try selection.stages(count: count)
                if let annotations = notes.stage(for: file) { stages.insert(annotations, at: 0) }
                try body(reader, stages, file)
                read += 1
            } catch let error as CaptureError where !error.isBrokenPipe {
                StandardError.error(error.message)
                failed = true
            }
        }
        return (failed, read)
    }

    /// Every input through its own decoder and stages into one statistics collector (stats,
    /// diagnose): each file begins and ends in it, so connections name their file and the
    /// controllers learn their addresses.
    func collect(into collector: inout StatisticsCollector, decoders: DecoderFactory) throws -> (failed: Bool, read: Int) {
        try forEach { reader, stages, file in
            collector.beginFile(file)
            var pipeline = PacketPipeline(decoder: decoders.make(buildsDisplayText: false), stages: stages) {
                StandardError.warning($0.message)
            }
            try pipeline.run(reader, into: &collector)
            collector.endFile(session: pipeline.decoder.session)
        }
    }
}
