import BTCapture

/// A field's value, typed. The same value serves `--fields`, the tree, the filter language and
/// JSON: each reads it through `text`/`displayText` or compares it with `FieldValue.parse`d literals.
public enum FieldValue: Equatable {
    /// An integer; `width` hex digits when it is a code, flag or handle, 0 for a count (decimal).
    case unsigned(UInt64, width: Int)
    case signed(Int64)
    case bool(Bool)
    case text(String)
    /// Borrowed from the frame: no copy and no text until a sink asks for it.
    case bytes(ArraySlice<UInt8>)
    case address(BDAddr)
    case uuid(BTUUID)
    /// Microseconds since the Unix epoch.
    case time(Int64)
    /// A measurement: a float a device sent (IEEE-754, IEEE-11073), or an integer scaled into
    /// its unit (a described protocol's `raw × 0.01 °C`). Not finite: NaN, ±INFINITY.
    case real(Double)

    /// The value in the form `--fields` prints: hex with 0x for integers, AA:BB:.. for addresses.
    public var text: String {
        if case .text(let s) = self { return s }
        var out: [UInt8] = []
        writeText(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Writes `text` without making a String (`--fields` writes a row of them per packet).
    @inlinable public func writeText<O: ASCIIOutput>(to out: inout O) {
        switch self {
        case .unsigned(let v, let width):
            if width == 0 { ASCII.appendDecimal(v, to: &out) } else { Hex.append(v, width: width, to: &out) }
        case .signed(let v): ASCII.appendSignedDecimal(v, to: &out)
        case .bool(let v): out.put(v ? UInt8(ascii: "1") : UInt8(ascii: "0"))
        case .text(let s): ASCII.append(s, to: &out)
        case .bytes(let b): for byte in b { Hex.append(byte, to: &out) }
        case .address(let a): a.appendText(to: &out)
        case .uuid(let u): u.appendDescription(to: &out)
        case .time(let t): Microseconds.appendSeconds(t, to: &out)
        case .real(let v): ASCII.append(FieldValue.realText(v), to: &out)
        }
    }

    /// A measurement as people write it: the shortest decimal that reads back as the same
    /// number ("36.6", "40", "-0.25"), "NaN", "+INF" or "-INF".
    public static func realText(_ v: Double) -> String {
        if v.isNaN { return "NaN" }
        if v.isInfinite { return v < 0 ? "-INF" : "+INF" }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return "\(v)"
    }

    /// For a person: bytes as spaced pairs, UUIDs with their assigned name, everything else as `text`.
    public var displayText: String {
        switch self {
        case .text(let s): return s
        case .uuid(let u): return UUIDNames.standard.labelled(u)
        case .bytes(let b): return Hex.bytes(b)
        case .address(let a): return a.description
        default: return text
        }
    }

    /// Appends `displayText` to a line being built (the tree prints every field this way).
    /// An integer in decimal (what `inDecimal` fields show); other values their display text.
    public var decimalText: String {
        switch self {
        case .unsigned(let v, _): return String(v)
        default: return displayText
        }
    }

    @inlinable @inline(__always) public func writeDisplayText<O: ASCIIOutput>(to out: inout O) {
        switch self {
        case .unsigned(let v, 0): ASCII.appendDecimal(v, to: &out)
        case .unsigned(let v, let width): Hex.append(v, width: width, to: &out)
        case .signed(let v): ASCII.appendSignedDecimal(v, to: &out)
        case .bool(let v): out.put(v ? UInt8(ascii: "1") : UInt8(ascii: "0"))
        case .text(let s): ASCII.append(s, to: &out)
        case .bytes(let b): Hex.append(bytes: b, to: &out)
        case .address(let a): a.appendText(to: &out)
        case .uuid(let u): ASCII.append(UUIDNames.standard.labelled(u), to: &out)
        case .time(let t): Microseconds.appendSeconds(t, to: &out)
        case .real(let v): ASCII.append(FieldValue.realText(v), to: &out)
        }
    }

    /// A count or packet number: printed in decimal.
    public static func count(_ v: Int) -> FieldValue { .unsigned(UInt64(max(0, v)), width: 0) }
    public static func u8(_ v: UInt8) -> FieldValue { .unsigned(UInt64(v), width: 2) }
    public static func u16(_ v: UInt16) -> FieldValue { .unsigned(UInt64(v), width: 4) }
    public static func u32(_ v: UInt32) -> FieldValue { .unsigned(UInt64(v), width: 8) }
}

// MARK: Literals and comparison (what the filter language and searches build on)

extension FieldValue {
    /// A literal as a value of a field of `type`, or nil when it cannot be one: integers in
    /// decimal or 0x hex (negative for `int`), booleans (1/0, true/false), byte strings
    /// ("0a1b2c", "0a:1b:2c", "0a 1b 2c"), addresses (AA:BB:CC:DD:EE:FF), UUIDs (180D,
    /// 0000FEAA, the 36-character form), times in seconds since the epoch (1557356668.5), and
    /// anything as text for string fields.
    public static func parse(_ literal: String, as type: FieldType) -> FieldValue? {
        let text = literal.trimmingWhitespace
        switch type {
        case .uint8, .uint16, .uint32, .uint64:
            guard let v = parseUnsigned(text) else { return nil }
            let limit: UInt64 = type == .uint8 ? 0xFF : type == .uint16 ? 0xFFFF : type == .uint32 ? 0xFFFF_FFFF : .max
            guard v <= limit else { return nil }
            return .unsigned(v, width: type == .uint8 ? 2 : type == .uint16 ? 4 : type == .uint32 ? 8 : 16)
        case .int:
            if text.hasPrefix("-") {
                guard let magnitude = parseUnsigned(String(text.dropFirst())), magnitude <= UInt64(Int64.max) + 1 else { return nil }
                return .signed(magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude))
            }
            guard let v = parseUnsigned(text), v <= UInt64(Int64.max) else { return nil }
            return .signed(Int64(v))
        case .bool:
            switch text.lowercased() {
            case "1", "true", "yes": return .bool(true)
            case "0", "false", "no": return .bool(false)
            default: return nil
            }
        case .string:
            return .text(literal)
        case .bytes:
            return parseBytes(text).map { .bytes($0[...]) }
        case .address:
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 6, parts.allSatisfy({ $0.count == 2 && UInt8($0, radix: 16) != nil }) else { return nil }
            return .address(BDAddr(text))
        case .uuid:
            return BTUUID(text).map(FieldValue.uuid)
        case .real:
            guard let v = Double(text), !text.lowercased().hasPrefix("0x") else { return parseUnsigned(text).map { .real(Double($0)) } }
            return .real(v)
        case .time:
            func isDigits(_ part: Substring) -> Bool { !part.isEmpty && part.allSatisfy { ("0" ... "9").contains($0) } }
            let halves = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
            guard let first = halves.first, isDigits(first.hasPrefix("-") ? first.dropFirst() : first),
                  let seconds = Int64(first) else { return nil }
            var micros: Int64 = 0
            if halves.count == 2 {
                let digits = halves[1]
                guard isDigits(digits), digits.count <= 6, let fraction = Int64(digits) else { return nil }
                micros = fraction * [1, 100_000, 10_000, 1_000, 100, 10, 1][digits.count]
            }
            return .time(Microseconds.combine(seconds: seconds, micros: seconds < 0 || first.hasPrefix("-") ? -micros : micros))
        }
    }

    /// How this value orders against another: numbers by value (unsigned, signed and booleans
    /// together), times by time, bytes and text by their bytes, addresses and UUIDs by their
    /// bits. nil when the two cannot be compared (a number against text).
    public func compare(_ other: FieldValue) -> Int? {
        func order<T: Comparable>(_ a: T, _ b: T) -> Int { a < b ? -1 : a > b ? 1 : 0 }
        switch (self.number, other.number) {
        case let (a?, b?): return order(a, b)
        default: break
        }
        if let a = self.real, let b = other.real {
            guard !a.isNaN, !b.isNaN else { return a.isNaN && b.isNaN ? 0 : nil }
            return order(a, b)
        }
        switch (self, other) {
        case let (.time(a), .time(b)): return order(a, b)
        case let (.text(a), .text(b)): return order(a, b)
        case let (.bytes(a), .bytes(b)): return a.lexicographicallyPrecedes(b) ? -1 : b.lexicographicallyPrecedes(a) ? 1 : 0
        case let (.address(a), .address(b)): return a.array.lexicographicallyPrecedes(b.array) ? -1 : b.array.lexicographicallyPrecedes(a.array) ? 1 : 0
        case let (.uuid(a), .uuid(b)): return order(a.high, b.high) != 0 ? order(a.high, b.high) : order(a.low, b.low)
        default: return nil
        }
    }

    /// Equal in meaning: 0x0004 equals 4 whatever its width, a 16-bit UUID its 128-bit form.
    public func matches(_ other: FieldValue) -> Bool { compare(other) == 0 }

    /// Whether `part` occurs in this value: a byte string in bytes, text in text (case-sensitive).
    public func contains(_ part: FieldValue) -> Bool {
        switch (self, part) {
        case let (.bytes(whole), .bytes(piece)):
            return ByteSearch.contains(whole, piece)
        case let (.text(whole), .text(piece)):
            return ByteSearch.contains(whole, piece)
        default:
            return matches(part)
        }
    }

    /// A measurement, or an integer compared with one.
    private var real: Double? {
        switch self {
        case .real(let v): return v
        case .unsigned(let v, _): return Double(v)
        case .signed(let v): return Double(v)
        default: return nil
        }
    }

    /// Integers and booleans as one signed-or-unsigned number line (Int128-free: a pair).
    private var number: NumberKey? {
        switch self {
        case .unsigned(let v, _): return NumberKey(negative: false, magnitude: v)
        case .signed(let v): return NumberKey(negative: v < 0, magnitude: v.magnitude)
        case .bool(let v): return NumberKey(negative: false, magnitude: v ? 1 : 0)
        default: return nil
        }
    }

    private struct NumberKey: Comparable {
        var negative: Bool
        var magnitude: UInt64
        static func < (a: NumberKey, b: NumberKey) -> Bool {
            switch (a.negative, b.negative) {
            case (true, false): return true
            case (false, true): return false
            case (false, false): return a.magnitude < b.magnitude
            case (true, true): return a.magnitude > b.magnitude
            }
        }
        static func == (a: NumberKey, b: NumberKey) -> Bool { a.magnitude == b.magnitude && (a.negative == b.negative || a.magnitude == 0) }
    }

    private static func parseUnsigned(_ text: String) -> UInt64? {
        let lower = text.lowercased()
        if lower.hasPrefix("0x") { return UInt64(lower.dropFirst(2), radix: 16) }
        return UInt64(lower, radix: 10)
    }

    private static func parseBytes(_ text: String) -> [UInt8]? {
        var digits = text.lowercased().filter { $0 != ":" && $0 != " " && $0 != "-" }
        if digits.hasPrefix("0x") { digits.removeFirst(2) }
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            guard let byte = UInt8(digits[index ..< next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }
}

extension String {
    /// Without white space at either end.
    public var trimmingWhitespace: String {
        var slice = Substring(self)
        while let first = slice.first, first.isWhitespace { slice.removeFirst() }
        while let last = slice.last, last.isWhitespace { slice.removeLast() }
        return String(slice)
    }
}
