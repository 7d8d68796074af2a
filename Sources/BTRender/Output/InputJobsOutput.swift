import BTCapture
import BTQuery

extension InputJobs {
    /// One input's turn when several are read at once (export, grep -c/-l): its warnings, its
    /// output, then its error if it could not be read, as reading it alone would give them.
    /// Returns what its job returned, or nil for an input that could not be read (handed to
    /// `failed`). A temporary file that cannot be written or read back ends the run, naming TMPDIR.
    public static func emit<Outcome>(_ spool: Spool?, _ outcome: Result<Outcome, Error>, to out: OutputWriter,
                                     warning: (String) -> Void, failed: (CaptureError) -> Void) throws -> Outcome? {
        for text in spool?.warnings ?? [] { warning(text) }
        do {
            try spool?.readBack { try out.write(raw: $0) }
        } catch let error as SpoolError {
            throw CaptureError(error.description)
        }
        switch outcome {
        case .success(let value):
            return value
        case .failure(let error as CaptureError):
            try out.flush()
            failed(error)
            return nil
        case .failure(let error as OutputWriter.OutputFailed):
            throw CaptureError("temporary file in TMPDIR: \(error.description)")
        case .failure(let error as SpoolError):
            throw CaptureError(error.description)
        case .failure(let error):
            throw error
        }
    }
}
