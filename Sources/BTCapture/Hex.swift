/// Hex formatting shared by readers (error messages), decoders and renderers. Every function
/// writes its result in one allocation: these run several times per packet.
public enum Hex {
    static let digits: [Character] = Array("0123456789ABCDEF")
    /// The ASCII codes of 0-9A-F, for writing bytes directly.
    public static let asciiDigits: [UInt8] = Array("0123456789ABCDEF".utf8)
    @inline(__always) public static func digit(_ value: UInt8) -> Character { digits[Int(value & 0xF)] }

    /// "0x" followed by `width` upper-case hex digits.
    public static func format<T: BinaryInteger>(_ value: T, width: Int) -> String {
        let value = UInt64(truncatingIfNeeded: value)
        return String(unsafeUninitializedCapacity: width + 2) { out in
            out[0] = UInt8(ascii: "0")
            out[1] = UInt8(ascii: "x")
            asciiDigits.withUnsafeBufferPointer { table in
                for i in 0 ..< width {
                    out[2 + i] = table[Int(truncatingIfNeeded: value >> UInt64((width - 1 - i) * 4)) & 0xF]
                }
            }
            return width + 2
        }
    }

    public static func u8(_ v: UInt8) -> String { format(v, width: 2) }
    public static func u16(_ v: UInt16) -> String { format(v, width: 4) }

    /// Space-separated upper-case byte pairs.
    public static func bytes<C: Collection>(_ data: C, separator: String = " ") -> String where C.Element == UInt8 {
        let count = data.count
        guard count > 0 else { return "" }
        let separatorBytes = Array(separator.utf8)
        let capacity = count * 2 + (count - 1) * separatorBytes.count
        return String(unsafeUninitializedCapacity: capacity) { out in
            var at = 0
            asciiDigits.withUnsafeBufferPointer { table in
                for byte in data {
                    if at > 0 { for s in separatorBytes { out[at] = s; at += 1 } }
                    out[at] = table[Int(byte >> 4)]
                    out[at + 1] = table[Int(byte & 0xF)]
                    at += 2
                }
            }
            return at
        }
    }

    /// The common case, without the generic iterator: a slice of a frame's bytes, space-separated.
    public static func bytes(_ data: ArraySlice<UInt8>) -> String {
        let count = data.count
        guard count > 0 else { return "" }
        return data.withUnsafeBufferPointer { input in
            String(unsafeUninitializedCapacity: count * 3 - 1) { out in
                asciiDigits.withUnsafeBufferPointer { table in
                    for i in 0 ..< count {
                        let byte = input[i]
                        if i > 0 { out[i * 3 - 1] = UInt8(ascii: " ") }
                        out[i * 3] = table[Int(byte >> 4)]
                        out[i * 3 + 1] = table[Int(byte & 0xF)]
                    }
                }
                return count * 3 - 1
            }
        }
    }

    /// Appends the two hex digits of `byte` to a byte buffer.
    @inline(__always) public static func append(_ byte: UInt8, to out: inout [UInt8]) {
        out.append(asciiDigits[Int(byte >> 4)])
        out.append(asciiDigits[Int(byte & 0xF)])
    }
}
