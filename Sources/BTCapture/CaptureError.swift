/// Errors a person can act on: they name the input and, where it helps, the byte offset.
public struct CaptureError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Something wrong with part of an input that does not stop the reading: a truncated last
/// record, a record skipped, a member chosen among several.
public struct CaptureWarning: Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

func hexBytes<C: Collection>(_ bytes: C, limit: Int = 8) -> String where C.Element == UInt8 {
    bytes.prefix(limit).map { byte in
        let digits = String(byte, radix: 16)
        return digits.count == 1 ? "0" + digits : digits
    }.joined(separator: " ")
}
