import ArgumentParser
import BTCapture
import BTQuery
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct Merge: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Merge captures of one scenario (both ends of a link) into one pcapng, on one clock.",
        discussion: """
        The first capture's clock is the reference. Each other capture's offset and drift are \
        found from the PDUs both show (what one host sent, the other received, whatever the \
        handles), with a robust fit, and reported: 'board.btsnoop: +3,612.402 s, +21 ppm from \
        phone.btsnoop, 148 matched PDUs, residual 0.3 ms (p99 1.1 ms)'. Where nothing matches, \
        the capture keeps its own timestamps, with a warning; --offset gives a clock by hand. \
        The pcapng has one interface per capture, named after it, so Wireshark shows the \
        sources side by side. Every command that reads captures takes --merge to read them as \
        one timeline without writing one.
        """
    )

    @Argument(help: ArgumentHelp("The captures, the reference first.", valueName: "FILE"))
    var files: [String]

    @Option(name: [.customShort("o"), .customLong("output")],
            help: ArgumentHelp("The merged pcapng (replaced only when complete).", valueName: "FILE"))
    var output: String

    @Flag(name: [.customShort("q"), .customLong("quiet")], help: "Do not report the clocks (warnings still are).")
    var quiet = false

    @OptionGroup(title: "Input") var input: InputOptionGroup

    func validate() throws {
        if let problem = MergeRequest.problem(with: files) { throw ValidationError(problem) }
        if output == "-" && isatty(1) != 0 { throw ValidationError("pcapng is binary: give -o FILE, or redirect standard output") }
    }

    func run() throws {
        let request = try input.mergeRequest(files)
        let reader: MergedFrameReader
        do {
            reader = try request.open { alignment in
                if alignment.basis == .timestamps || !quiet { MergeReport.print(alignment) }
            }
        } catch let error as CaptureError {
            StandardError.error(error.message)
            throw ExitCode(1)
        }
        let file: OutputFile? = output == "-" ? nil : try OutputFile(path: output)
        let sink: ByteSink = file ?? FileSink(fd: 1, name: "standard output", ownsDescriptor: false)
        var written = 0
        do {
            let writer = try PcapNGWriter(sink: sink)
            // The merge reads on one CPU while this one writes.
            let source: FrameReader = SinkThreading.available ? ReadAheadReader(reader) : reader
            defer { (source as? ReadAheadReader)?.stop() }
            while let frame = try source.next() {
                if try writer.write(frame) { written += 1 }
                for warning in source.warnings { StandardError.warning(warning.message) }
                source.warnings.removeAll()
            }
            try writer.close()
        } catch let error as CaptureError {
            let kept = file?.abandon() ?? ""
            StandardError.error(error.message + (kept.isEmpty ? "" : "; " + kept))
            throw ExitCode(1)
        }
        if !quiet {
            StandardError.note("merge: \(written) packets from \(files.count) captures, \(reader.matches - reader.eventMatches) PDUs\(reader.eventMatches > 0 ? " and \(reader.eventMatches) link event\(reader.eventMatches == 1 ? "" : "s")" : "") seen at both ends\(reader.airMatches > 0 ? ", \(reader.airMatches) by a sniffer too" : ""), written to \(output == "-" ? "standard output" : output)")
        }
    }
}
