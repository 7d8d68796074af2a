import BTCapture
import BTDecode
import BTQuery
import BTRender

/// read → decode → select → render, one packet at a time; shared by show and capture.
struct PacketPipeline {
    let selection: PacketSelection
    let mode: RenderMode
    let options: RenderOptions
    let decoder: Decoder
    /// Decode and count but print nothing (capture -q).
    var quiet = false
    /// Sees every frame read, before it is decoded (capture -w writes here).
    var tap: ((Frame) throws -> Void)?
    private(set) var statistics = CaptureStatistics()
    /// False when the selection ended the run before the input did.
    private(set) var readAll = true

    init(selection: PacketSelection, mode: RenderMode, options: RenderOptions, decoder: Decoder) {
        self.selection = selection
        self.mode = mode
        self.options = options
        self.decoder = decoder
    }

    mutating func run(_ reader: FrameReader, out: OutputWriter) throws {
        var renderer = mode.makeRenderer(options)
        var shown = 0
        func drainWarnings() {
            guard !reader.warnings.isEmpty else { return }
            for warning in reader.warnings { FileHandleStderr.warning(warning.message) }
            reader.warnings.removeAll()
        }
        drainWarnings()
        while let frame = try reader.next() {
            drainWarnings()
            try tap?(frame)
            // Decode every frame (state such as connections spans packets), show the selected.
            let packet = decoder.decode(frame)
            guard selection.includes(number: frame.number) else { continue }
            if !quiet { try renderer.render(packet, to: out) }
            statistics.add(packet)
            shown += 1
            if selection.isExhausted(afterNumber: frame.number, shown: shown) { readAll = false; break }
        }
        drainWarnings()
        if readAll {
            try out.flush()
            for report in decoder.finish() { FileHandleStderr.warning("packet \(report.frameNumber): \(report.message)") }
        }
        if !quiet { try renderer.finish(statistics, to: out) }
        try out.flush()
    }
}
