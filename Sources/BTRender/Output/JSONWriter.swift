import BTCapture

/// A JSON document written as it is walked, for reports made once per run (`stats --json`,
/// `diagnose --json`): objects and arrays nest, commas and two-space indentation are kept
/// here. Given an output, it hands it what it has every 64 KiB, so a report of thousands of
/// connections is never held whole. Packets are written by `JSONRenderer`, which writes
/// straight into the output buffer.
public struct JSONWriter {
    public private(set) var bytes: [UInt8] = []
    /// Per open container: whether it has a member yet.
    private var hasMember: [Bool] = []
    private var afterKey = false
    private let output: OutputWriter?
    /// The first error writing to the output (writing stops there; `finish` throws it).
    private var failure: Error?

    /// A document kept in `bytes`, or (with an output) written to it as it grows.
    public init(writingTo output: OutputWriter? = nil) {
        self.output = output
    }

    /// Writes what is left to the output; throws the first error writing met.
    public mutating func finish() throws {
        spill(force: true)
        if let failure { throw failure }
    }

    private mutating func spill(force: Bool = false) {
        guard let output, failure == nil, force || bytes.count >= 1 << 16 else { return }
        do {
            try output.write(bytes: bytes)
        } catch {
            failure = error
        }
        bytes.removeAll(keepingCapacity: true)
    }

    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Objects and arrays, opened and closed as an encoder meets them (JSONWriterEncoder).
    public mutating func beginObject() { open(UInt8(ascii: "{")) }
    public mutating func endObject() { close(UInt8(ascii: "}")) }
    public mutating func beginArray() { open(UInt8(ascii: "[")) }
    public mutating func endArray() { close(UInt8(ascii: "]")) }

    /// A member's name; its value follows.
    public mutating func key(_ name: String) {
        separate()
        JSONText.appendString(name, to: &bytes)
        bytes.append(contentsOf: ": ".utf8)
        afterKey = true
    }

    public mutating func string(_ value: String?) {
        guard let value else { return null() }
        separate()
        JSONText.appendString(value, to: &bytes)
    }

    public mutating func integer<I: BinaryInteger>(_ value: I?) {
        guard let value else { return null() }
        separate()
        JSONText.appendInteger(Int64(value), to: &bytes)
    }

    /// A finite number with up to `decimals` digits after the point, trailing zeros dropped.
    public mutating func number(_ value: Double?, decimals: Int = 3) {
        guard let value, value.isFinite else { return null() }
        separate()
        bytes.append(contentsOf: Self.decimal(value, decimals: decimals).utf8)
    }

    public mutating func bool(_ value: Bool?) {
        guard let value else { return null() }
        separate()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    public mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
    }

    /// "12.5", "3", "-0.125": what people and parsers both read, no exponent.
    public static func decimal(_ value: Double, decimals: Int) -> String { ASCII.decimal(value, decimals: decimals) }

    private mutating func open(_ bracket: UInt8) {
        spill()
        separate()
        bytes.append(bracket)
        hasMember.append(false)
    }

    private mutating func close(_ bracket: UInt8) {
        let had = hasMember.removeLast()
        if had { newline() }
        bytes.append(bracket)
        if hasMember.isEmpty { bytes.append(UInt8(ascii: "\n")) }
    }

    /// Before a value or key: a comma and a new line inside a container, nothing after a key.
    private mutating func separate() {
        if afterKey {
            afterKey = false
            return
        }
        guard !hasMember.isEmpty else { return }
        if hasMember[hasMember.count - 1] { bytes.append(UInt8(ascii: ",")) }
        hasMember[hasMember.count - 1] = true
        newline()
    }

    private mutating func newline() {
        bytes.append(UInt8(ascii: "\n"))
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * hasMember.count))
    }
}
