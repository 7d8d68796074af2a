/// Errors a person can act on: they name the input and, where it helps, the byte offset.
public struct CaptureError: Error, CustomStringConvertible, Sendable {
    public var message: String
    /// The reader of a pipe went away (`btlog export ... | head`): an ordinary end, not a failure.
    public var isBrokenPipe = false
    public init(_ message: String, isBrokenPipe: Bool = false) {
        self.message = message
        self.isBrokenPipe = isBrokenPipe
    }
    public var description: String { message }
}

/// Something wrong with part of an input that does not stop the reading: a truncated last
/// record, a record skipped, a member chosen among several.
public struct CaptureWarning: Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// "first bytes 50 4b 03 04 ...": how an error shows what a file starts with.
func firstBytes<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
    Hex.bytes(bytes.prefix(8)).lowercased()
}
