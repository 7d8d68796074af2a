import BTCapture

/// An SDP data element (Core Vol 3, Part B, 3): a type and size descriptor, then the value;
/// sequences and alternatives nest. All values are big-endian.
struct SDPElement: Equatable {
    var value: Value
    /// The element's bytes (descriptor, size and data), as indices of the cursor it was read from.
    var span: Range<Int>
    /// Where its data starts, after the descriptor and size.
    var dataStart: Int

    /// Its data's bytes: what a field holding its value covers.
    var data: Range<Int> { dataStart ..< span.upperBound }

    enum Value: Equatable {
        case null
        case unsigned(UInt64, size: Int)
        case signed(Int64, size: Int)
        /// A 128-bit integer, kept as its bytes.
        case wide(ArraySlice<UInt8>, signed: Bool)
        case uuid(BTUUID)
        case text(ArraySlice<UInt8>)
        case bool(Bool)
        case sequence([SDPElement])
        case alternative([SDPElement])
        case url(ArraySlice<UInt8>)
    }

    /// Nesting deeper than this is refused: no record needs it, and a hostile one would
    /// otherwise recurse without bound.
    static let maximumDepth = 16

    enum ParseError: Error, Equatable {
        case badSize(type: UInt8, sizeIndex: UInt8)
        case tooDeep
        case reservedType(UInt8)
    }

    /// Reads one element (and everything it contains).
    static func read(_ c: inout ByteCursor, depth: Int = 0) throws -> SDPElement {
        let start = c.index
        var dataStart = start
        let value = try readValue(&c, depth: depth, dataStart: &dataStart)
        return SDPElement(value: value, span: start ..< c.index, dataStart: dataStart)
    }

    private static func readValue(_ c: inout ByteCursor, depth: Int, dataStart: inout Int) throws -> Value {
        guard depth <= maximumDepth else { throw ParseError.tooDeep }
        let descriptor = try c.u8()
        let type = descriptor >> 3, sizeIndex = descriptor & 0x07
        let size: Int
        switch sizeIndex {
        case 0: size = type == 0 ? 0 : 1
        case 1: size = 2
        case 2: size = 4
        case 3: size = 8
        case 4: size = 16
        case 5: size = Int(try c.u8())
        case 6: size = Int(try c.u16be())
        default: size = Int(try c.u32be())
        }
        dataStart = c.index
        // Integers, UUIDs and booleans take the fixed sizes; strings, sequences and URLs the counted ones.
        let fixed = sizeIndex <= 4, counted = sizeIndex >= 5
        switch type {
        case 0:
            guard sizeIndex == 0 else { throw ParseError.badSize(type: type, sizeIndex: sizeIndex) }
            return .null
        case 1, 2:
            guard fixed else { throw ParseError.badSize(type: type, sizeIndex: sizeIndex) }
            let bytes = try c.slice(size)
            if size == 16 { return .wide(bytes, signed: type == 2) }
            let raw = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            if type == 1 { return .unsigned(raw, size: size) }
            // Sign-extend from the element's width.
            let shift = UInt64(64 - size * 8)
            return .signed(Int64(bitPattern: raw << shift) >> Int64(shift), size: size)
        case 3:
            guard sizeIndex == 1 || sizeIndex == 2 || sizeIndex == 4 else { throw ParseError.badSize(type: type, sizeIndex: sizeIndex) }
            let bytes = try c.slice(size)
            switch size {
            case 2: return .uuid(BTUUID(UInt16(bytes[bytes.startIndex]) << 8 | UInt16(bytes[bytes.startIndex + 1])))
            case 4: return .uuid(BTUUID(bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }))
            default:
                guard let uuid = BTUUID(bigEndian: bytes) else { throw ParseError.badSize(type: type, sizeIndex: sizeIndex) }
                return .uuid(uuid)
            }
        case 4, 8:
            guard counted else { throw ParseError.badSize(type: type, sizeIndex: sizeIndex) }
            let bytes = try c.slice(size)
            return type == 4 ? .text(bytes) : .url(bytes)
        case 5:
            guard sizeIndex == 0 else { throw ParseError.badSize(type: type, sizeIndex: sizeIndex) }
            return .bool(try c.u8() != 0)
        case 6, 7:
            guard counted else { throw ParseError.badSize(type: type, sizeIndex: sizeIndex) }
            var inner = try c.cursor(size)
            var elements: [SDPElement] = []
            while !inner.isAtEnd { elements.append(try read(&inner, depth: depth + 1)) }
            return type == 6 ? .sequence(elements) : .alternative(elements)
        default:
            throw ParseError.reservedType(type)
        }
    }

    var elements: [SDPElement] {
        switch value {
        case .sequence(let e), .alternative(let e): return e
        default: return []
        }
    }

    var integer: UInt64? {
        switch value {
        case .unsigned(let v, _): return v
        case .signed(let v, _): return v >= 0 ? UInt64(v) : nil
        default: return nil
        }
    }

    // Not inlined: Swift 6.3.1's optimizer crashes (CopyPropagation, an ownership error) on
    // this switch inlined into SDPDecoder.decodeRecord.
    var uuid: BTUUID? {
        @inline(never) get {
            switch value {
            case .uuid(let u): return u
            default: return nil
            }
        }
    }

    var string: String? {
        switch value {
        case .text(let b), .url(let b): return ReadableText.decode(b)
        default: return nil
        }
    }

    /// The element as a person reads it: integers in hex with their width, UUIDs named,
    /// strings quoted, sequences in parentheses.
    func describe(_ names: (BTUUID) -> String?) -> String {
        switch value {
        case .null: return "nil"
        case .unsigned(let v, let size): return Hex.format(v, width: size * 2)
        case .signed(let v, _): return String(v)
        case .wide(let bytes, _): return "0x" + Hex.bytes(bytes, separator: "")
        case .uuid(let u): return names(u).map { "\($0) (\(u.uuid16.map(Hex.u16) ?? u.description))" } ?? u.description
        case .text(let b): return "\"\(ReadableText.decode(b))\""
        case .url(let b): return "<\(ReadableText.decode(b))>"
        case .bool(let v): return v ? "true" : "false"
        case .sequence(let e): return "(" + e.map { $0.describe(names) }.joined(separator: ", ") + ")"
        case .alternative(let e): return "alt(" + e.map { $0.describe(names) }.joined(separator: " | ") + ")"
        }
    }
}
