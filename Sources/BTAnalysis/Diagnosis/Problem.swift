import BTCapture
import BTDecode
import BTQuery

/// Something that went wrong in a capture, found by `Diagnosis` in the statistics: what
/// happened, with the packets that show it, and one line a developer can act on.
public struct Problem: Equatable {
    public enum Severity: String, Comparable, Sendable {
        case warning, error
        public static func < (a: Severity, b: Severity) -> Bool { a == .warning && b == .error }
    }

    public enum Category: String, CaseIterable, Sendable {
        case pairing, encryption, att, disconnection
        case connectionParameters = "connection_parameters"
        case l2cap, credits, audio, hci, controller
        /// A link taken from the air: packets damaged or sent again.
        case radio
    }

    public var severity: Severity
    public var category: Category
    /// What happened: "Pairing failed: Confirm Value Failed (0x04), sent by the peer".
    public var summary: String
    /// What it usually means and what to do.
    public var advice: String
    /// How many times it happened.
    public var count: Int
    /// The packets that show it (the first 20).
    public var frames: [Int]
    public var handle: UInt16?
    public var address: BDAddr?

    public init(_ severity: Severity, _ category: Category, _ summary: String, advice: String, frames: [Int], count: Int? = nil,
                handle: UInt16? = nil, address: BDAddr? = nil) {
        self.severity = severity
        self.category = category
        self.summary = summary
        self.advice = advice
        self.frames = Array(frames.prefix(20))
        self.count = count ?? frames.count
        self.handle = handle
        self.address = address
    }
}
