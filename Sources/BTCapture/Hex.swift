/// Hex formatting shared by readers (error messages), decoders and renderers.
public enum Hex {
    static let digits: [Character] = Array("0123456789ABCDEF")
    @inline(__always) public static func digit(_ value: UInt8) -> Character { digits[Int(value & 0xF)] }

    /// "0x" followed by `width` upper-case hex digits.
    public static func format<T: BinaryInteger>(_ value: T, width: Int) -> String {
        var out = "0x"
        out.reserveCapacity(width + 2)
        for shift in stride(from: (width - 1) * 4, through: 0, by: -4) {
            out.append(digit(UInt8(truncatingIfNeeded: UInt64(truncatingIfNeeded: value) >> UInt64(shift))))
        }
        return out
    }

    public static func u8(_ v: UInt8) -> String { format(v, width: 2) }
    public static func u16(_ v: UInt16) -> String { format(v, width: 4) }

    /// Space-separated upper-case byte pairs.
    public static func bytes<C: Collection>(_ data: C, separator: String = " ") -> String where C.Element == UInt8 {
        var out = ""
        out.reserveCapacity(data.count * 3)
        var first = true
        for byte in data {
            if !first { out.append(separator) }
            first = false
            out.append(digit(byte >> 4))
            out.append(digit(byte & 0xF))
        }
        return out
    }
}
