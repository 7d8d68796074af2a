import ArgumentParser
import BTBrowse
import BTCapture
import BTDecode
import BTQuery
import BTRender
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a capture reads from, opened, and how its status line speaks of it.
struct LiveSourceChoice {
    let receiver: LiveReceiver
    /// The pipe SIGINT and SIGTERM write to, which the receiver's reads wait on.
    let wake: WakePipe
    /// The name warnings carry.
    let name: String
    /// "the HCI monitor, all controllers", "/dev/ttyACM0 (BlueZ monitor protocol, 115200 bit/s)".
    let description: String
    /// How the source's own losses are named in the status line (nil: it reports none).
    let drops: String?
    /// What it means when the source ends by itself (nil: the kernel's socket never does).
    let ended: String?
    /// What else the status line says of the source at the end (where a pulled log was kept).
    var summary: (() -> String?)? = nil
}

/// One `btlog capture`: the receive thread fills a queue; this thread writes each frame to the
/// -w file (a whole record per write, so the file is valid after every one), then decodes and
/// prints it through the same pipeline as show.
final class LiveCaptureRun {
    let command: Capture
    let source: LiveSourceChoice
    let receiver: LiveReceiver
    let wake: WakePipe
    var writer: CaptureWriter?
    /// The -w file, when it is one (not standard output).
    var outputFile: OutputFile?
    var writerName = ""
    var perController: [UInt16: Int] = [:]
    var written = 0
    var notStorable = 0

    init(command: Capture, source: LiveSourceChoice) throws {
        self.command = command
        self.source = source
        receiver = source.receiver
        wake = source.wake
    }

    private func liveReader() -> LiveFrameReader {
        LiveFrameReader(receiver: receiver, name: source.name, formatDescription: "\(source.description) (live)")
    }

    func run() throws {
        let out = OutputWriter()
        out.lineBuffered = true
        let toStdout = command.writePath == "-"
        do {
            if let path = command.writePath {
                let sink: ByteSink
                if toStdout {
                    sink = FileSink(fd: 1, name: "standard output", ownsDescriptor: false)
                } else {
                    let file = try OutputFile(path: path)
                    outputFile = file
                    sink = file
                }
                writer = try CaptureWriters.make(command.fileFormat, sink: sink)
                try writer?.flush()
                writerName = toStdout ? "standard output" : path
            }
        } catch let error as CaptureError {
            StandardError.error(error.message)
            throw ExitCode(1)
        }
        StopSignals.install(wake)
        defer { StopSignals.restoreDefaults() }
        receiver.start()
        announce()

        let decoders = try command.decoding.prepare()
        if command.browse { return try browse(decoders: decoders) }
        var run = PrintedRun(decoders: decoders, stages: try command.selection.stages(count: command.limit.count), mode: command.display.mode,
                             options: command.display.renderOptions(for: out))
        run.quiet = command.quiet || toStdout
        run.collapse = command.display.collapse
        run.pipeline.tap = { [self] frame in try record(frame) }
        let reader = liveReader()
        var failure: String?
        do {
            try run.run(reader, out: out)
        } catch is OutputWriter.OutputClosed {
            // Nobody reads the printout any more: keep what arrived in the file, then end quietly.
            receiver.requestStop()
            while let frame = try? reader.next() { try? record(frame) }
        } catch let error as CaptureError {
            failure = error.message
        }
        receiver.requestStop()
        receiver.waitUntilFinished()
        try end(failure: failure, statistics: run.statistics)
    }

    /// After the receiver stopped: the -w file closed (or, on a failure, an existing file it was
    /// to replace kept), the status line, and the failure if any (exit status 1).
    private func end(failure readFailure: String?, statistics: CaptureStatistics) throws {
        var failure = readFailure
        if failure == nil {
            do { try writer?.close() } catch let error as CaptureError { failure = error.message }
        }
        if let message = failure, let kept = outputFile?.abandon(), !kept.isEmpty {
            // A failed write (a full disk): an existing file the capture was to replace is kept.
            failure = "\(message); \(kept)"
        }
        if case .failed(let message) = receiver.stopReason { failure = failure ?? message }
        StandardError.write(statusLine(statistics) + "\n")
        if let failure {
            StandardError.error(failure)
            throw ExitCode(1)
        }
    }

    /// `capture --browse`: the frames go to the -w file and to the browser as they arrive; the
    /// capture ends when the browser does, and the status line is printed once the terminal is back.
    private func browse(decoders: DecoderFactory) throws {
        let index = PacketIndex(decoder: decoders.make(buildsDisplayText: false))
        let loader = CaptureLoader(index: index)
        loader.tap = { [self] frame in try record(frame) }
        loader.start(liveReader(), live: true)
        let notes = command.writePath.map { NotesStore.path(forCapture: $0, notes: nil) }
        var browseError: Error?
        do {
            try BrowseLoop.run(index: index, loader: loader, source: command.writePath.map { ($0 as NSString).lastPathComponent } ?? (command.tty ?? command.tcp ?? command.h4.map { _ in "H4 tap" } ?? (command.android || command.ios ? source.name : "HCI monitor")),
                               time: command.display.time, follows: true, colours: command.display.color.enabledOnTerminal,
                               filter: command.selection.filter ?? "", quick: command.selection.quickFilters,
                               notesPath: notes, capturePath: command.writePath, exporting: BrowserExport(decoding: decoders.options))
        } catch {
            browseError = error
        }
        receiver.requestStop()
        loader.waitUntilFinished()
        receiver.waitUntilFinished()
        try end(failure: loader.error, statistics: index.statistics)
        if let browseError { throw browseError }
    }

    private func record(_ frame: Frame) throws {
        perController[frame.controller, default: 0] += 1
        guard let writer else { return }
        if try writer.write(frame) {
            try writer.flush()
            written += 1
        } else {
            notStorable += 1
        }
    }

    private func announce() {
        var parts = ["btlog: capturing from \(source.description)"]
        if !writerName.isEmpty {
            var writing = "writing \(writerName) (\(LiveFileFormat.describe(command.fileFormat)))"
            if let outputFile, outputFile.replacesExisting {
                writing += "; it exists, so the capture goes to \(outputFile.writingPath) and replaces it at the end"
            }
            parts.append(writing)
        }
        parts.append("Ctrl-C stops")
        StandardError.write(parts.joined(separator: " · ") + "\n")
    }

    func statusLine(_ statistics: CaptureStatistics) -> String {
        let frames = perController.values.reduce(0, +)
        var parts = ["btlog: \(frames) frame\(frames == 1 ? "" : "s") captured"]
        let counts = perController.sorted { $0.key < $1.key }.map { key, count in
            "\(key == Frame.systemController ? "system" : "hci\(key)") \(count)"
        }
        if !counts.isEmpty { parts[0] += " (\(counts.joined(separator: ", ")))" }
        parts.append("\(statistics.errors) error\(statistics.errors == 1 ? "" : "s")")
        if let drops = source.drops { parts.append("\(receiver.sourceDrops) \(drops)") }
        if receiver.malformed > 0 { parts.append("\(receiver.malformed) malformed") }
        if let stream = receiver as? StreamReceiver, stream.skippedBytes > 0 {
            parts.append("\(stream.skippedBytes) byte\(stream.skippedBytes == 1 ? "" : "s") of noise skipped")
        }
        if receiver.queueDrops > 0 { parts.append("\(receiver.queueDrops) dropped by btlog (the output did not keep up)") }
        if writer != nil {
            var wrote = "\(written) written to \(writerName)"
            if notStorable > 0 { wrote += " (\(notStorable) that \(LiveFileFormat.describe(command.fileFormat)) cannot hold left out)" }
            parts.append(wrote)
        }
        switch receiver.stopReason {
        case .signal(let number): parts.append(number == SIGINT ? "stopped by SIGINT" : number == SIGTERM ? "stopped by SIGTERM" : "stopped by signal \(number)")
        case .duration: parts.append("stopped after \(command.duration.map { "\($0)" } ?? "") s")
        case .endOfInput: if let ended = source.ended { parts.append(ended) }
        case .requested, .failed: break
        }
        if let said = source.summary?() { parts.append(said) }
        return parts.joined(separator: " · ")
    }
}

extension LiveFileFormat {
    static func describe(_ format: CaptureFileFormat) -> String {
        switch format {
        case .btsnoopMonitor: return "btsnoop, datalink 2001"
        case .pklg: return "PacketLogger"
        case .pcapng: return "pcapng, link type 254"
        default: return format.rawValue
        }
    }
}
