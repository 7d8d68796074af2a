import BTCapture

/// The order of a field's bytes. Bluetooth's own protocols are little-endian; those it took
/// from elsewhere are big-endian (network order): AV/C and AVRCP, AVDTP's media headers (RTP),
/// BNEP's Ethernet and IP headers, SDP.
public enum ByteOrder: Sendable {
    case littleEndian, bigEndian
}

/// A value a field can be read as, straight from a cursor: the read and the FieldValue it
/// is stored as (`Layer.read`).
public protocol FieldReadable {
    static func read(from c: inout ByteCursor, _ order: ByteOrder) throws -> Self
    var fieldValue: FieldValue { get }
}

extension UInt8: FieldReadable {
    @inline(__always) public static func read(from c: inout ByteCursor, _ order: ByteOrder) throws -> UInt8 { try c.u8() }
    @inline(__always) public var fieldValue: FieldValue { .u8(self) }
}

extension UInt16: FieldReadable {
    @inline(__always) public static func read(from c: inout ByteCursor, _ order: ByteOrder) throws -> UInt16 {
        order == .littleEndian ? try c.u16() : try c.u16be()
    }
    @inline(__always) public var fieldValue: FieldValue { .u16(self) }
}

extension UInt32: FieldReadable {
    @inline(__always) public static func read(from c: inout ByteCursor, _ order: ByteOrder) throws -> UInt32 {
        order == .littleEndian ? try c.u32() : try c.u32be()
    }
    @inline(__always) public var fieldValue: FieldValue { .u32(self) }
}

extension UInt64: FieldReadable {
    @inline(__always) public static func read(from c: inout ByteCursor, _ order: ByteOrder) throws -> UInt64 {
        order == .littleEndian ? try c.u64() : try c.u64be()
    }
    @inline(__always) public var fieldValue: FieldValue { .unsigned(self, width: 16) }
}

extension Int8: FieldReadable {
    @inline(__always) public static func read(from c: inout ByteCursor, _ order: ByteOrder) throws -> Int8 { try c.i8() }
    @inline(__always) public var fieldValue: FieldValue { .signed(Int64(self)) }
}

extension Int16: FieldReadable {
    @inline(__always) public static func read(from c: inout ByteCursor, _ order: ByteOrder) throws -> Int16 {
        Int16(bitPattern: try UInt16.read(from: &c, order))
    }
    @inline(__always) public var fieldValue: FieldValue { .signed(Int64(self)) }
}

/// Three bytes (a company ID, a class of device), shown as six hex digits.
public struct UInt24: FieldReadable, Sendable {
    public let value: UInt32
    @inline(__always) public static func read(from c: inout ByteCursor, _ order: ByteOrder) throws -> UInt24 {
        UInt24(value: order == .littleEndian ? try c.u24() : try c.u24be())
    }
    @inline(__always) public var fieldValue: FieldValue { .unsigned(UInt64(value), width: 6) }
}

extension BDAddr: FieldReadable {
    /// Bluetooth writes an address least significant byte first; Ethernet headers (BNEP), most.
    @inline(__always) public static func read(from c: inout ByteCursor, _ order: ByteOrder) throws -> BDAddr {
        order == .littleEndian ? try c.address() : BDAddr(networkOrder: try c.slice(6))
    }
    @inline(__always) public var fieldValue: FieldValue { .address(self) }
}

/// Reading and adding in one step, as Wireshark's `proto_tree_add_item` does: the value is read
/// from the decoder's cursor, appended as the field, and the bytes it came from are recorded
/// as the field's range (what the tree's hex highlighting and `--redact` use). The value is
/// returned for the decoder's own use. A display closure runs only when the layer keeps display
/// text, so the hot path builds no string. Pass it by its label (`display:` or `named:`), not
/// as a trailing closure: the two differ in how the tree shows the value.
extension Layer {
    @discardableResult @inline(__always)
    public mutating func read<T: FieldReadable>(_ definition: FieldDefinition, _ c: inout ByteCursor, as type: T.Type = T.self,
                                                _ order: ByteOrder = .littleEndian, display: (T) -> String? = { _ in nil }) throws -> T {
        let start = c.index
        let value = try T.read(from: &c, order)
        add(definition, value.fieldValue, display(value), at: range(at: start, count: c.index - start))
        return value
    }

    /// A code with its name ("Name (0x0E)").
    @discardableResult @inline(__always)
    public mutating func read<T: FieldReadable>(_ definition: FieldDefinition, _ c: inout ByteCursor, as type: T.Type = T.self,
                                                _ order: ByteOrder = .littleEndian, named name: (T) -> String?) throws -> T {
        let start = c.index
        let value = try T.read(from: &c, order)
        add(definition, value.fieldValue, named: name(value), at: range(at: start, count: c.index - start))
        return value
    }

    /// A count or length read in decimal.
    @discardableResult @inline(__always)
    public mutating func read<T: FieldReadable>(_ definition: FieldDefinition, _ c: inout ByteCursor, as type: T.Type = T.self,
                                                _ order: ByteOrder = .littleEndian, inDecimal: Bool) throws -> T {
        let start = c.index
        let value = try T.read(from: &c, order)
        add(definition, value.fieldValue, inDecimal: inDecimal, at: range(at: start, count: c.index - start))
        return value
    }

    /// A number a person and `--fields` both read in decimal (a count, an index, an ID): stored
    /// as a count.
    @discardableResult @inline(__always)
    public mutating func readCount<T: FieldReadable & BinaryInteger>(_ definition: FieldDefinition, _ c: inout ByteCursor,
                                                                     as type: T.Type = T.self, _ order: ByteOrder = .littleEndian,
                                                                     display: (T) -> String? = { _ in nil }) throws -> T {
        let start = c.index
        let value = try T.read(from: &c, order)
        add(definition, .count(Int(value)), display(value), at: range(at: start, count: c.index - start))
        return value
    }

    /// `count` bytes as they are.
    @discardableResult @inline(__always)
    public mutating func read(_ definition: FieldDefinition, _ c: inout ByteCursor, bytes count: Int,
                              display: (ArraySlice<UInt8>) -> String? = { _ in nil }) throws -> ArraySlice<UInt8> {
        let start = c.index
        let value = try c.slice(count)
        add(definition, .bytes(value), display(value), at: range(at: start, count: count))
        return value
    }

    /// Fields decoded from bits of the bytes just read (flags of an octet): they share its range.
    public mutating func addBits(_ definition: FieldDefinition, _ value: FieldValue, _ display: @autoclosure () -> String? = nil,
                                 of c: ByteCursor, width: Int) {
        add(definition, value, display(), at: range(at: c.index - width, count: width))
    }
}

extension Layer {
    /// Fields from `index` on lose their ranges: their bytes were not the layer's source's
    /// (a decrypted payload, parameters joined from several packets: buffers the packet does
    /// not keep as its own).
    mutating func forgetRanges(from index: Int) {
        for i in index ..< fields.count { fields[i].range = nil }
    }

    /// A value read with `read` and the bytes it came from, for a field added later than it is
    /// read (a status a decoder shows after the fields that follow it in the packet).
    @inline(__always)
    public func reading<T>(_ c: inout ByteCursor, _ read: (inout ByteCursor) throws -> T) rethrows -> (value: T, range: Range<Int>) {
        let start = c.index
        let value = try read(&c)
        return (value, range(at: start, count: c.index - start))
    }
}
