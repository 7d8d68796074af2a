import BTCapture

/// A layer's one-line summary, kept as UTF-8 bytes in a buffer the layer reuses from packet to
/// packet. Decoders write it with `+=` and an interpolated literal, as they would a String, but
/// nothing is allocated: the pieces go through a buffer on the stack (`SummaryPiece`) into
/// bytes kept from the previous packet, and the renderers copy those bytes to the output line.
public struct SummaryText: Equatable, CustomStringConvertible {
    /// Written over in place from packet to packet (see `ReusedBytes`).
    private var text = ReusedBytes()
    /// Whether anything will read this summary (`FieldMask.keepsSummaries`): when not, `+=`,
    /// `set` and `append` do nothing, and the text of an interpolated literal is not even
    /// formatted (they take it as an autoclosure). So a summary's text must never be where a
    /// decoder reads its bytes or changes its state: read first, then write the summary.
    public internal(set) var isWritten = true

    public init() {}

    public var isEmpty: Bool { text.isEmpty }
    public var count: Int { text.count }
    /// The text's bytes (a slice of the storage: no copy).
    public var bytes: ArraySlice<UInt8> { text.bytes }
    public var description: String { withBytes { String(decoding: $0, as: UTF8.self) } }

    /// The text's bytes in place, for a renderer to copy into its line.
    public func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try text.withUnsafeBufferPointer(body)
    }

    public static func == (lhs: SummaryText, rhs: SummaryText) -> Bool {
        lhs.isWritten == rhs.isWritten && lhs.bytes == rhs.bytes
    }

    @inline(__always)
    public static func += (text: inout SummaryText, piece: @autoclosure () -> SummaryPiece) {
        guard text.isWritten else { return }
        piece().write(to: &text)
    }

    /// Appends a String made elsewhere (a joined list, a name from a table).
    public mutating func append(_ string: String) {
        guard isWritten else { return }
        var string = string
        string.withUTF8 { put($0) }
    }

    /// Replaces the summary, keeping the buffer.
    @inline(__always)
    public mutating func set(_ piece: @autoclosure () -> SummaryPiece) {
        guard isWritten else { return }
        text.removeAll()
        piece().write(to: &self)
    }

    public mutating func removeAll() { text.removeAll() }

    /// Takes back the last `count` bytes written.
    mutating func removeLast(_ count: Int) { text.removeLast(count) }

    /// Writes `bytes` after the text.
    public mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard isWritten else { return }
        text.put(bytes)
    }
}

/// An output text is written into that can take back what it wrote: a summary's item that
/// came out empty takes back its separator.
protocol RetractableOutput: ASCIIOutput {
    var written: Int { get }
    mutating func retract(to count: Int)
}

extension RetractableOutput {
    /// A literal's bytes where the compiler put them.
    @inline(__always) mutating func put(literal: StaticString) { literal.withUTF8Buffer { put($0) } }
}

/// Written into directly by a decoder that makes its summary from parts (a described protocol's).
extension SummaryText: RetractableOutput {
    public mutating func put(_ byte: UInt8) {
        guard isWritten else { return }
        text.put(byte)
    }
    var written: Int { text.count }
    mutating func retract(to count: Int) { removeLast(text.count - count) }
}

extension Array: RetractableOutput where Element == UInt8 {
    var written: Int { count }
    mutating func retract(to count: Int) { removeLast(self.count - count) }
}

/// The text `+=` appends to a summary: a literal with interpolations, formatted into a small
/// buffer on the stack (spilling to the heap only past 128 bytes). It takes strings, integers,
/// addresses and anything CustomStringConvertible; `\(hex: v)` writes an unsigned integer as 0x
/// and two digits per byte. Unlike String interpolation it has no catch-all, so an Optional in
/// a summary is a compile error rather than "Optional(...)" on screen.
public struct SummaryPiece: ExpressibleByStringInterpolation {
    fileprivate var interpolation: StringInterpolation

    public init(stringLiteral value: StaticString) {
        interpolation = StringInterpolation(literalCapacity: 0, interpolationCount: 0)
        interpolation.appendLiteral(value)
    }

    public init(stringInterpolation: StringInterpolation) {
        interpolation = stringInterpolation
    }

    fileprivate func write(to text: inout SummaryText) { interpolation.write(to: &text) }

    public struct StringInterpolation: StringInterpolationProtocol, ASCIIOutput {
        @usableFromInline var inline: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                                       UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)
            = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        @usableFromInline var count = 0
        /// Everything, once the text outgrew `inline`. Optional: a piece that never spills (almost
        /// every one) ends with a release of nothing, which returns at once, where an empty
        /// array's went through the runtime (110 instructions a packet on the table).
        @usableFromInline var spilled: [UInt8]? = nil
        @usableFromInline static let inlineCapacity = 128

        public init(literalCapacity: Int, interpolationCount: Int) {}

        @inlinable @inline(__always) public mutating func put(_ byte: UInt8) {
            if count < Self.inlineCapacity {
                withUnsafeMutableBytes(of: &inline) { $0[count] = byte }
                count += 1
            } else {
                spill()
                spilled!.append(byte)
            }
        }

        @inlinable public mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
            if count + bytes.count <= Self.inlineCapacity {
                let at = count
                withUnsafeMutableBytes(of: &inline) { UnsafeMutableRawBufferPointer(rebasing: $0[at ..< at + bytes.count]).copyMemory(from: UnsafeRawBufferPointer(bytes)) }
                count += bytes.count
            } else {
                spill()
                spilled!.append(contentsOf: bytes)
            }
        }

        /// Moves the inline bytes to the heap; from then on everything goes there.
        @usableFromInline mutating func spill() {
            guard spilled == nil else { return }
            var heap: [UInt8] = []
            heap.reserveCapacity(2 * Self.inlineCapacity)
            withInlineBytes { heap.append(contentsOf: $0) }
            spilled = heap
            count = Self.inlineCapacity + 1
        }

        /// The bytes written inline, as a buffer (Array appends such a buffer with one copy).
        @usableFromInline func withInlineBytes(_ body: (UnsafeBufferPointer<UInt8>) -> Void) {
            let n = min(count, Self.inlineCapacity)
            withUnsafeBytes(of: inline) { raw in
                body(UnsafeBufferPointer(start: raw.baseAddress?.assumingMemoryBound(to: UInt8.self), count: n))
            }
        }

        fileprivate func write(to text: inout SummaryText) {
            if count <= Self.inlineCapacity {
                withInlineBytes { text.put($0) }
            } else {
                spilled?.withUnsafeBufferPointer { text.put($0) }
            }
        }

        /// The literal's parts come as StaticStrings: their bytes are read where the compiler put
        /// them, without going through a String.
        public typealias StringLiteralType = StaticString

        @inlinable @inline(__always) public mutating func appendLiteral(_ literal: StaticString) {
            literal.withUTF8Buffer { put($0) }
        }

        @inlinable @inline(__always) public mutating func appendInterpolation(_ string: String) { ASCII.append(string, to: &self) }

        public mutating func appendInterpolation(_ string: Substring) {
            var string = string
            string.withUTF8 { put($0) }
        }

        public mutating func appendInterpolation<T: BinaryInteger>(_ value: T) {
            if value < 0 {
                put(UInt8(ascii: "-"))
                ASCII.appendDecimal(UInt64(value.magnitude), to: &self)
            } else {
                ASCII.appendDecimal(UInt64(value), to: &self)
            }
        }

        /// 0x and two hex digits per byte of the type: `\(hex: UInt16(0x2a))` is "0x002A".
        public mutating func appendInterpolation<T: FixedWidthInteger & UnsignedInteger>(hex value: T) {
            let width = T.bitWidth / 4, at = count
            guard at + 2 + width <= Self.inlineCapacity else { return Hex.append(UInt64(value), width: width, to: &self) }
            // Placed straight into the inline bytes: one store per character where a put each
            // checked the room (every handle and CID of every layer's summary).
            withUnsafeMutableBytes(of: &inline) { Hex.place(UInt64(value), width: width, into: $0, at: at) }
            count = at + 2 + width
        }

        /// A payload's first 16 bytes as spaced hex pairs, then " …" if there are more.
        public mutating func appendInterpolation(preview bytes: ArraySlice<UInt8>) {
            Hex.withSpacedPairs(bytes, limit: 16) { put($0) }
            if bytes.count > 16 { appendLiteral(" …") }
        }

        public mutating func appendInterpolation(_ address: BDAddr) { address.appendText(to: &self) }

        public mutating func appendInterpolation(_ text: SummaryText) {
            text.withBytes { put($0) }
        }

        public mutating func appendInterpolation<T: CustomStringConvertible>(_ value: T) {
            appendInterpolation(value.description)
        }

    }
}
