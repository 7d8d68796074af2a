import ArgumentParser
import BTCapture
import BTDecode
import BTAnalysis
import BTQuery
import BTRender

struct Plot: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plot",
        abstract: "Plot fields against capture time: an SVG image, or the numbers as CSV.",
        discussion: """
        btlog plot FIELD... FILE: each field's numeric values (integers, measurements, flags as \
        0 and 1) over time, one panel per unit (fields without one each have their own), links \
        coming up and going down marked, lines broken while a link was down. A heart rate's bpm, \
        a battery's level, a described protocol's values. The filters of show select the packets.
        """
    )

    @Argument(help: ArgumentHelp("The fields to plot ('btlog fields' lists them), then the capture file (with --merge, the captures to merge: merge.latency plots the latency between them).", valueName: "FIELD... FILE"))
    var items: [String] = []

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the SVG (or with --csv, the CSV) to this file instead of standard output.", valueName: "FILE"))
    var output: String?

    @Flag(help: "The numbers as CSV (time, seconds since the first packet, field, value) instead of an image.")
    var csv = false

    @Option(help: ArgumentHelp("The plot's title (default: the fields and the file).", valueName: "TEXT"))
    var title: String?

    @OptionGroup(title: "Input") var input: InputOptionGroup
    @OptionGroup(title: "Selection") var selection: SelectionOptionGroup
    @OptionGroup(title: "Decoding") var decoding: DecodeOptionGroup

    /// The fields, then the file; with --merge the files are the items after the last field.
    var fieldNames: [String] {
        guard input.merge else { return Array(items.dropLast()) }
        let files = mergedFiles.count
        return Array(items.dropLast(files))
    }
    var file: String { input.merge ? mergedFiles.joined(separator: " + ") : items.last ?? "" }
    var mergedFiles: [String] { Array(items.reversed().prefix { FieldRegistry.lookup($0) == nil }.reversed()) }

    func validate() throws {
        if input.merge { _ = try input.mergeRequest(mergedFiles) }
        guard items.count >= 2 else { throw ValidationError("give the fields to plot, then a capture file: btlog plot hrs.heart_rate capture.log") }
        let unknown = fieldNames.filter { FieldRegistry.lookup($0) == nil }
        if !unknown.isEmpty {
            throw ValidationError("unknown field\(unknown.count == 1 ? "" : "s") \(unknown.map { "'\($0)'" }.joined(separator: ", ")); 'btlog fields' lists them")
        }
        let unplottable = fieldNames.compactMap(FieldRegistry.lookup).filter { [.string, .bytes, .address, .uuid, .time].contains($0.type) }
        if !unplottable.isEmpty {
            throw ValidationError("\(unplottable.map { "\($0.name) (\($0.type.rawValue))" }.joined(separator: ", ")) cannot be plotted: give fields whose values are numbers")
        }
    }

    func run() throws {
        let fields = fieldNames.compactMap(FieldRegistry.lookup)
        var series = FieldSeries(fields: fields)
        let decoders = try decoding.prepare()
        do {
            let reader = try input.sources(input.merge ? mergedFiles : [file])[0].open(false)
            var pipeline = PacketPipeline(decoder: decoders.make(buildsDisplayText: false, keptFields: .only(series.fieldsRead)),
                                          stages: try selection.stages()) { StandardError.warning($0.message) }
            try pipeline.run(reader, into: &series)
        } catch let error as CaptureError {
            StandardError.error(error.message)
            throw ExitCode(1)
        }
        let plot = FieldPlot(series, title: title ?? "\(fieldNames.joined(separator: ", ")): \(file)")
        let text = csv ? plot.csv : plot.svg
        do {
            if let output {
                let out = try OutputFile(path: output)
                try out.write(Array(text.utf8))
                try out.close()
            } else {
                let out = OutputWriter()
                try out.write(text)
                try out.flush()
            }
        } catch is OutputWriter.OutputClosed {
        } catch let error as CaptureError {
            StandardError.error(error.message)
            throw ExitCode(1)
        }
        if series.points.allSatisfy(\.isEmpty) { StandardError.warning("no packet of \(file) has a value of \(fieldNames.joined(separator: ", "))") }
    }
}
