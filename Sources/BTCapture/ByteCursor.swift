/// The one way btlog reads fields from bytes (capture records and containers as much as the
/// protocol decoders): bounds-checked, little-endian (Bluetooth's byte order)
/// unless a read says `be`, over a borrowed slice, from the front (and, for trailers such as
/// an FCS, from the back). Reading past the end throws `DecodeError.truncated`, which the
/// decoder turns into an issue on the packet. Like swift-nio's ByteBuffer: read moves,
/// peek does not.
public struct ByteCursor {
    /// What is left to read ends at `bytes.endIndex` (trailer reads move that end back).
    public private(set) var bytes: ArraySlice<UInt8>
    /// Index into `bytes` of the next byte to read.
    public private(set) var index: Int

    public init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.index = bytes.startIndex
    }

    public init(_ bytes: [UInt8]) { self.init(bytes[...]) }

    /// Offset from the start of the cursor's bytes.
    public var offset: Int { index - bytes.startIndex }
    public var remaining: Int { bytes.endIndex - index }
    public var isAtEnd: Bool { index >= bytes.endIndex }

    @inline(__always) public mutating func require(_ count: Int) throws {
        guard count >= 0, bytes.endIndex - index >= count else {
            throw DecodeError.truncated(needed: count, available: bytes.endIndex - index, at: offset)
        }
    }

    public mutating func u8() throws -> UInt8 {
        try require(1)
        defer { index += 1 }
        return bytes[index]
    }

    public mutating func i8() throws -> Int8 { Int8(bitPattern: try u8()) }

    public mutating func u16() throws -> UInt16 {
        try require(2)
        defer { index += 2 }
        return UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8
    }

    public mutating func u24() throws -> UInt32 {
        try require(3)
        defer { index += 3 }
        return UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2]) << 16
    }

    public mutating func u32() throws -> UInt32 {
        try require(4)
        defer { index += 4 }
        return UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8
            | UInt32(bytes[index + 2]) << 16 | UInt32(bytes[index + 3]) << 24
    }

    public mutating func u64() throws -> UInt64 {
        let low = try u32()
        return UInt64(low) | UInt64(try u32()) << 32
    }

    /// Big-endian (network order) reads, for the formats that use it (iBeacon, RTP, SDP, AV/C,
    /// btsnoop's and PacketLogger's record headers).
    public mutating func u16be() throws -> UInt16 { try u16().byteSwapped }
    public mutating func u24be() throws -> UInt32 { try u24().byteSwapped >> 8 }
    public mutating func u32be() throws -> UInt32 { try u32().byteSwapped }
    public mutating func u64be() throws -> UInt64 { try u64().byteSwapped }
    /// In the byte order a file declared (PacketLogger's differs between macOS and iOS).
    public mutating func u32(littleEndian: Bool) throws -> UInt32 { littleEndian ? try u32() : try u32be() }

    /// Little-endian values at an offset from the next byte, without moving: for structures
    /// read by their documented offsets (zip's directory records).
    public func u16(at offset: Int) throws -> UInt16 {
        var copy = self
        try copy.skip(offset)
        return try copy.u16()
    }

    public func u32(at offset: Int) throws -> UInt32 {
        var copy = self
        try copy.skip(offset)
        return try copy.u32()
    }

    public func u64(at offset: Int) throws -> UInt64 {
        var copy = self
        try copy.skip(offset)
        return try copy.u64()
    }

    /// The next byte or 16-bit value, without moving.
    public func peekU8() throws -> UInt8 {
        var copy = self
        return try copy.u8()
    }

    public func peekU16() throws -> UInt16 {
        var copy = self
        return try copy.u16()
    }

    /// The next `count` bytes as a cursor of their own (a parameter block, one entry of a list),
    /// moving past them here.
    public mutating func cursor(_ count: Int) throws -> ByteCursor { ByteCursor(try slice(count)) }

    /// The last `count` bytes, taken off the end: what is left to read stops before them.
    public mutating func trailer(_ count: Int) throws -> ByteCursor {
        try require(count)
        let start = bytes.endIndex - count
        defer { bytes = bytes[..<start] }
        return ByteCursor(bytes[start...])
    }

    public mutating func slice(_ count: Int) throws -> ArraySlice<UInt8> {
        try require(count)
        defer { index += count }
        return bytes[index ..< index + count]
    }

    public mutating func rest() -> ArraySlice<UInt8> {
        defer { index = bytes.endIndex }
        return bytes[index...]
    }

    /// A Bluetooth device address, stored little-endian on the wire.
    public mutating func address() throws -> BDAddr { BDAddr(littleEndian: try slice(6)) }

    /// A NUL-terminated string (the NUL is consumed), or the rest if there is none.
    public mutating func cString() -> String {
        let remainder = bytes[index...]
        let end = remainder.firstIndex(of: 0) ?? bytes.endIndex
        let text = ReadableText.decode(bytes[index ..< end])
        index = min(bytes.endIndex, end + 1)
        return text
    }

    public mutating func skip(_ count: Int) throws {
        try require(count)
        index += count
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
    @inlinable @inline(__always) public func appendText<O: ASCIIOutput>(to out: inout O) {
        withUnsafeBytes(of: bytes) { raw in
            for i in 0 ..< 6 {
                if i > 0 { out.put(UInt8(ascii: ":")) }
                Hex.append(raw[i], to: &out)
            }
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
