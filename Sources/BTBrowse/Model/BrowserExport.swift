import Foundation
import BTCapture
import BTDecode
import BTExport
import BTQuery

/// `w` and `W`: what the list shows (its filter, quick filters and notes), or the selected
/// packet alone, exported in process by BTExport on a thread of its own, exactly as
/// `btlog export` writes it (every format, from the file's extension); what came of it is told
/// on the next tick.
public final class BrowserExport: @unchecked Sendable { // `outcome` is behind `lock`
    /// How the capture is read and decoded, as the command line set the browser up.
    public let input: InputOptions
    public let decoding: DecodeOptions
    /// Runs a job (on a thread of its own; the tests run it at once).
    let runs: (@escaping @Sendable () -> Void) -> Void
    let lock = NSLock()
    var outcome: String?
    /// The last request started (the tests read it).
    public internal(set) var lastRequest: ExportRequest?

    public init(input: InputOptions = InputOptions(), decoding: DecodeOptions = DecodeOptions(),
                runs: @escaping (@escaping @Sendable () -> Void) -> Void = { job in Thread(block: job).start() }) {
        self.input = input
        self.decoding = decoding
        self.runs = runs
    }

    /// The request for `capture`'s packets that `stages` keep, to `output`.
    func request(capture: String, output: String, stages: @escaping (String) throws -> [any PacketStage]) -> ExportRequest {
        var request = ExportRequest(files: [capture], format: ExportRequest.format(for: output), output: output)
        request.input = input
        request.decoding = decoding
        request.stages = stages
        return request
    }

    func start(_ request: ExportRequest) {
        lastRequest = request
        let unchecked = UncheckedRequest(request)
        runs { [self] in
            var job = ExportJob(unchecked.request)
            do {
                let result = try job.run()
                put("Exported to \(unchecked.request.output ?? "standard output") (\(result.bytesWritten ?? 0) bytes)")
            } catch {
                put("Export failed: \(error)")
            }
        }
    }

    func put(_ message: String) { lock.withLock { outcome = message } }

    /// What the last export said, once.
    func take() -> String? {
        lock.withLock {
            defer { outcome = nil }
            return outcome
        }
    }
}

/// The request handed to the export's thread: its stages are made there, from values the
/// browser no longer touches.
private struct UncheckedRequest: @unchecked Sendable {
    let request: ExportRequest
    init(_ request: ExportRequest) { self.request = request }
}
