/// The one way btlog reads fields from bytes (capture records and containers as much as the
/// protocol decoders): bounds-checked, little-endian (Bluetooth's byte order)
/// unless a read says `be`, over a borrowed slice, from the front (and, for trailers such as
/// an FCS, from the back). Reading past the end throws `DecodeError.truncated`, which the
/// decoder turns into an issue on the packet. Like swift-nio's ByteBuffer: read moves,
/// peek does not.
///
/// It lives in BTCapture, below the decoders, and its reads are inlinable: every decoder in
/// BTDecode reads through it per field, which a call across modules would slow.
public struct ByteCursor {
    @usableFromInline var storage: ArraySlice<UInt8>
    @usableFromInline var position: Int

    /// What is left to read ends at `bytes.endIndex` (trailer reads move that end back).
    @inlinable public var bytes: ArraySlice<UInt8> { storage }
    /// Index into `bytes` of the next byte to read.
    @inlinable public var index: Int { position }

    @inlinable public init(_ bytes: ArraySlice<UInt8>) {
        storage = bytes
        position = bytes.startIndex
    }

    @inlinable public init(_ bytes: [UInt8]) { self.init(bytes[...]) }

    /// Offset from the start of the cursor's bytes.
    @inlinable public var offset: Int { position - storage.startIndex }
    @inlinable public var remaining: Int { storage.endIndex - position }
    @inlinable public var isAtEnd: Bool { position >= storage.endIndex }

    @inlinable @inline(__always) public mutating func require(_ count: Int) throws {
        guard count >= 0, storage.endIndex - position >= count else {
            throw DecodeError.truncated(needed: count, available: storage.endIndex - position, at: offset)
        }
    }

    // u8 and u16 always inlined: they are most of the reads, and left to the optimiser many call
    // sites kept a call (the table of a real ATT capture: about 240 instructions a packet in u16).
    @inlinable @inline(__always) public mutating func u8() throws -> UInt8 {
        try require(1)
        defer { position += 1 }
        return storage[position]
    }

    @inlinable public mutating func i8() throws -> Int8 { Int8(bitPattern: try u8()) }

    @inlinable @inline(__always) public mutating func u16() throws -> UInt16 {
        try require(2)
        defer { position += 2 }
        return load(UInt16.self)
    }

    @inlinable public mutating func u24() throws -> UInt32 {
        try require(3)
        defer { position += 3 }
        return UInt32(storage[position]) | UInt32(storage[position + 1]) << 8 | UInt32(storage[position + 2]) << 16
    }

    @inlinable public mutating func u32() throws -> UInt32 {
        try require(4)
        defer { position += 4 }
        return load(UInt32.self)
    }

    @inlinable public mutating func u64() throws -> UInt64 {
        try require(8)
        defer { position += 8 }
        return load(UInt64.self)
    }

    /// The little-endian integer at the next byte, in one load: the caller has checked with
    /// `require` that its bytes are there (a byte-by-byte read checks each index again).
    @inlinable @inline(__always) func load<T: FixedWidthInteger>(_: T.Type) -> T {
        let at = position - storage.startIndex
        return storage.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: at, as: T.self)) }
    }

    /// Big-endian (network order) reads, for the formats that use it (iBeacon, RTP, SDP, AV/C,
    /// btsnoop's and PacketLogger's record headers).
    @inlinable public mutating func u16be() throws -> UInt16 { try u16().byteSwapped }
    @inlinable public mutating func u24be() throws -> UInt32 { try u24().byteSwapped >> 8 }
    @inlinable public mutating func u32be() throws -> UInt32 { try u32().byteSwapped }
    @inlinable public mutating func u64be() throws -> UInt64 { try u64().byteSwapped }
    /// In the byte order a file declared (PacketLogger's differs between macOS and iOS).
    @inlinable public mutating func u32(littleEndian: Bool) throws -> UInt32 { littleEndian ? try u32() : try u32be() }

    /// Little-endian values at an offset from the next byte, without moving: for structures
    /// read by their documented offsets (zip's directory records).
    @inlinable public func u16(at offset: Int) throws -> UInt16 {
        var copy = self
        try copy.skip(offset)
        return try copy.u16()
    }

    @inlinable public func u32(at offset: Int) throws -> UInt32 {
        var copy = self
        try copy.skip(offset)
        return try copy.u32()
    }

    @inlinable public func u64(at offset: Int) throws -> UInt64 {
        var copy = self
        try copy.skip(offset)
        return try copy.u64()
    }

    /// The next byte or 16-bit value, without moving.
    @inlinable public func peekU8() throws -> UInt8 {
        var copy = self
        return try copy.u8()
    }

    @inlinable public func peekU16() throws -> UInt16 {
        var copy = self
        return try copy.u16()
    }

    /// The next `count` bytes as a cursor of their own (a parameter block, one entry of a list),
    /// moving past them here.
    @inlinable public mutating func cursor(_ count: Int) throws -> ByteCursor { ByteCursor(try slice(count)) }

    /// The last `count` bytes, taken off the end: what is left to read stops before them.
    @inlinable public mutating func trailer(_ count: Int) throws -> ByteCursor {
        try require(count)
        let start = storage.endIndex - count
        defer { storage = storage[..<start] }
        return ByteCursor(storage[start...])
    }

    @inlinable public mutating func slice(_ count: Int) throws -> ArraySlice<UInt8> {
        try require(count)
        defer { position += count }
        return storage[position ..< position + count]
    }

    @inlinable public mutating func rest() -> ArraySlice<UInt8> {
        defer { position = storage.endIndex }
        return storage[position...]
    }

    /// A Bluetooth device address, stored little-endian on the wire.
    @inlinable public mutating func address() throws -> BDAddr { BDAddr(littleEndian: try slice(6)) }

    /// A NUL-terminated string (the NUL is consumed), or the rest if there is none.
    public mutating func cString() -> String {
        let remainder = storage[position...]
        let end = remainder.firstIndex(of: 0) ?? storage.endIndex
        let text = ReadableText.decode(storage[position ..< end])
        position = min(storage.endIndex, end + 1)
        return text
    }

    @inlinable public mutating func skip(_ count: Int) throws {
        try require(count)
        position += count
    }
}

public enum DecodeError: Error, Equatable {
    case truncated(needed: Int, available: Int, at: Int)
    /// A structure that cannot be read further (a bad data element): the message says why.
    case malformed(String)
}

/// A Bluetooth device address, most significant byte first as people write it.
public struct BDAddr: Hashable, Sendable, CustomStringConvertible {
    public var bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)

    public init(littleEndian raw: ArraySlice<UInt8>) {
        let s = raw.startIndex
        bytes = (raw[s + 5], raw[s + 4], raw[s + 3], raw[s + 2], raw[s + 1], raw[s])
    }

    /// An IEEE 802 MAC address as Ethernet writes it, first octet first (BNEP).
    public init(networkOrder raw: ArraySlice<UInt8>) {
        let s = raw.startIndex
        bytes = (raw[s], raw[s + 1], raw[s + 2], raw[s + 3], raw[s + 4], raw[s + 5])
    }

    public init(_ text: String) {
        let parts = text.split(separator: ":").map { UInt8($0, radix: 16) ?? 0 }
        let p = parts + Array(repeating: 0, count: max(0, 6 - parts.count))
        bytes = (p[0], p[1], p[2], p[3], p[4], p[5])
    }

    public var array: [UInt8] { [bytes.0, bytes.1, bytes.2, bytes.3, bytes.4, bytes.5] }
    public var littleEndianBytes: [UInt8] { array.reversed() }

    public var description: String { ASCII.string(capacity: 17) { appendText(to: &$0) } }

    /// Writes "AA:BB:CC:DD:EE:FF": the one way btlog writes an address.
    /// Made on the stack and put in one piece: outputs that take a buffer copy it once (the
    /// table's and CSV's address column, every data packet).
    @inlinable @inline(__always) public func appendText<O: ASCIIOutput>(to out: inout O) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 17) { text in
            withUnsafeBytes(of: bytes) { raw in
                for i in 0 ..< 6 {
                    text[i * 3] = Hex.digit(raw[i] >> 4)
                    text[i * 3 + 1] = Hex.digit(raw[i] & 0xF)
                    if i < 5 { text[i * 3 + 2] = UInt8(ascii: ":") }
                }
            }
            out.put(UnsafeBufferPointer(text))
        }
    }

    // Byte by byte: the GATT and connection maps hash addresses per packet, without arrays.
    public static func == (a: BDAddr, b: BDAddr) -> Bool {
        a.bytes.0 == b.bytes.0 && a.bytes.1 == b.bytes.1 && a.bytes.2 == b.bytes.2
            && a.bytes.3 == b.bytes.3 && a.bytes.4 == b.bytes.4 && a.bytes.5 == b.bytes.5
    }

    /// The six bytes in one integer, first byte highest.
    @inlinable public var packed: UInt64 {
        UInt64(bytes.0) << 40 | UInt64(bytes.1) << 32 | UInt64(bytes.2) << 24
            | UInt64(bytes.3) << 16 | UInt64(bytes.4) << 8 | UInt64(bytes.5)
    }

    // One word for the hasher, not six bytes (six calls into the runtime per lookup).
    public func hash(into hasher: inout Hasher) { hasher.combine(packed) }
}
