/// Where the text writers below put their bytes: a growing line ([UInt8]) or the storage of a
/// String being made (`ASCII.string`). One writer per format serves both, specialised for each.
public protocol ASCIIOutput {
    mutating func put(_ byte: UInt8)
    /// Bytes already formatted (a name, a label, a run of hex pairs made on the stack).
    mutating func put(_ bytes: UnsafeBufferPointer<UInt8>)
}

extension ASCIIOutput {
    /// Byte by byte, for outputs with nothing faster.
    @inlinable public mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        for byte in bytes { put(byte) }
    }
}

extension Array: ASCIIOutput where Element == UInt8 {
    @inlinable @inline(__always) public mutating func put(_ byte: UInt8) { append(byte) }
    @inlinable @inline(__always) public mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) { append(contentsOf: bytes) }
}

/// A String's uninitialised storage of known capacity; writes past it are dropped.
public struct FixedASCIIOutput: ASCIIOutput {
    @usableFromInline let base: UnsafeMutableBufferPointer<UInt8>
    @usableFromInline var count = 0
    @inlinable init(_ base: UnsafeMutableBufferPointer<UInt8>) { self.base = base }
    @inlinable @inline(__always) public mutating func put(_ byte: UInt8) {
        guard count < base.count else { return }
        base[count] = byte
        count += 1
    }

    /// In one copy, as much as there is room for.
    @inlinable public mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        let n = min(bytes.count, base.count - count)
        guard n > 0, let source = bytes.baseAddress, let target = base.baseAddress else { return }
        (target + count).update(from: source, count: n)
        count += n
    }
}

/// Hex formatting shared by readers (error messages), decoders and renderers. Each form has
/// one writer; the String forms run it straight into the String's storage (one allocation:
/// these run several times per packet).
public enum Hex {
    /// The upper-case hex digit of a nibble (0-15), for writers that place digits themselves.
    @inlinable @inline(__always) public static func digit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") + nibble - 10
    }

    /// "0x" followed by `width` upper-case hex digits.
    @inlinable public static func format<T: BinaryInteger>(_ value: T, width: Int) -> String {
        ASCII.string(capacity: width + 2) { append(UInt64(truncatingIfNeeded: value), width: width, to: &$0) }
    }

    @inlinable public static func u8(_ v: UInt8) -> String { format(v, width: 2) }
    @inlinable public static func u16(_ v: UInt16) -> String { format(v, width: 4) }

    /// Upper-case byte pairs, space-separated unless told otherwise.
    @inlinable
    public static func bytes<C: Collection>(_ data: C, separator: String = " ") -> String where C.Element == UInt8 {
        if separator == " " { return ASCII.string(capacity: data.count * 3) { append(bytes: data, to: &$0) } }
        let separatorBytes = Array(separator.utf8)
        return ASCII.string(capacity: data.count * (2 + separatorBytes.count)) { out in
            var first = true
            for byte in data {
                if !first { for s in separatorBytes { out.put(s) } }
                first = false
                append(byte, to: &out)
            }
        }
    }

    /// Writes "0x" and `width` hex digits of `value`.
    @inlinable @inline(__always)
    public static func append<O: ASCIIOutput>(_ value: UInt64, width: Int, to out: inout O) {
        withUnsafeTemporaryAllocation(byteCount: max(0, width) + 2, alignment: 1) { text in
            place(value, width: max(0, width), into: text, at: 0)
            out.put(UnsafeBufferPointer(start: text.baseAddress!.assumingMemoryBound(to: UInt8.self), count: text.count))
        }
    }

    /// "0x" and `width` hex digits of `value` at `offset` of memory the caller owns (which must
    /// hold `width + 2` bytes there): the one hex layout, for `append` and for writers with a
    /// contiguous buffer of their own (a summary's inline bytes).
    @inlinable @inline(__always)
    public static func place(_ value: UInt64, width: Int, into bytes: UnsafeMutableRawBufferPointer, at offset: Int) {
        bytes[offset] = UInt8(ascii: "0")
        bytes[offset + 1] = UInt8(ascii: "x")
        for i in 0 ..< width {
            let shift = width - 1 - i
            bytes[offset + 2 + i] = digit(shift < 16 ? UInt8(truncatingIfNeeded: value >> UInt64(shift * 4)) & 0xF : 0)
        }
    }

    /// Writes the two hex digits of `byte`.
    @inlinable @inline(__always) public static func append<O: ASCIIOutput>(_ byte: UInt8, to out: inout O) {
        out.put(digit(byte >> 4))
        out.put(digit(byte & 0xF))
    }

    /// Writes up to `limit` bytes as space-separated pairs into a stack buffer and hands it to
    /// `body` in one piece: outputs that take a buffer copy it once instead of byte by byte.
    @inlinable
    public static func withSpacedPairs<R>(_ data: ArraySlice<UInt8>, limit: Int = 32, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        data.withUnsafeBufferPointer { withSpacedPairs(in: $0, limit: limit, body) }
    }

    /// The same from bytes lent in place.
    @inlinable
    public static func withSpacedPairs<R>(in bytes: UnsafeBufferPointer<UInt8>, limit: Int = 32, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let count = min(bytes.count, limit)
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(1, count * 3)) { buffer in
            guard count > 0, let out = buffer.baseAddress else { return body(UnsafeBufferPointer(start: buffer.baseAddress, count: 0)) }
            // Through pointers: this runs for every payload preview and byte field on screen.
            var at = out
            for index in 0 ..< count {
                let byte = bytes[index]
                at[0] = UInt8(ascii: " ")
                at[1] = digit(byte >> 4)
                at[2] = digit(byte & 0xF)
                at += 3
            }
            // The first pair has no space before it.
            return body(UnsafeBufferPointer(start: out + 1, count: count * 3 - 1))
        }
    }

    /// Space-separated byte pairs, formatted on the stack and copied once.
    @inlinable
    public static func append<O: ASCIIOutput>(bytes data: ArraySlice<UInt8>, to out: inout O) {
        data.withUnsafeBufferPointer { append(bytes: $0, to: &out) }
    }

    /// Space-separated byte pairs from bytes lent in place, formatted on the stack.
    @inlinable
    public static func append<O: ASCIIOutput>(bytes data: UnsafeBufferPointer<UInt8>, to out: inout O) {
        var rest = data[...]
        while !rest.isEmpty {
            if rest.startIndex != data.startIndex { out.put(UInt8(ascii: " ")) }
            withSpacedPairs(in: UnsafeBufferPointer(rebasing: rest), limit: 256) { out.put($0) }
            rest = rest.dropFirst(256)
        }
    }

    /// Writes space-separated byte pairs.
    @inlinable @inline(__always)
    public static func append<O: ASCIIOutput, C: Collection>(bytes data: C, to out: inout O) where C.Element == UInt8 {
        var first = true
        for byte in data {
            if !first { out.put(UInt8(ascii: " ")) }
            first = false
            append(byte, to: &out)
        }
    }
}

/// Decimal numbers, padding and strings written as ASCII: how renderers assemble lines
/// without intermediate Strings.
public enum ASCII {
    /// A signed integer in decimal ("-70"): the one writer of them (fields, the tree, JSON, CSV).
    @inlinable @inline(__always) public static func appendSignedDecimal<O: ASCIIOutput>(_ value: Int64, to out: inout O) {
        if value < 0 { out.put(UInt8(ascii: "-")) }
        appendDecimal(value.magnitude, to: &out)
    }

    /// A finite number in decimal with at most `decimals` digits after the point, trailing
    /// zeros dropped, never an exponent: "12.5", "3", "-0.125" (reports and their JSON).
    public static func decimal(_ value: Double, decimals: Int) -> String {
        var scale: UInt64 = 1
        for _ in 0 ..< max(0, min(decimals, 9)) { scale *= 10 }
        let scaled = (value * Double(scale)).rounded()
        let magnitude = scaled.isFinite ? UInt64(min(abs(scaled), 9.0e18)) : 0
        var text = (scaled < 0 && magnitude != 0 ? "-" : "") + String(magnitude / scale)
        let fraction = magnitude % scale
        if fraction != 0 {
            var digits = String(fraction)
            digits = String(repeating: "0", count: max(0, String(scale).count - 1 - digits.count)) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            text += "." + digits
        }
        return text
    }

    /// Writes `value` in decimal, at least `width` characters, filled on the left with `fill`
    /// ("0" for clock fields, " " for a right-aligned column).
    @inlinable @inline(__always)
    public static func appendDecimal<O: ASCIIOutput>(_ value: UInt64, width: Int = 1, fill: UInt8 = UInt8(ascii: "0"),
                                                     to out: inout O) {
        // Digits last to first into a small stack buffer (division by the constant 10 is a
        // multiply), then written in order.
        var scratch: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &scratch) { digits in
            var count = 0
            var rest = value
            repeat {
                digits[count] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
                count += 1
            } while rest > 0
            for _ in count ..< max(count, width) { out.put(fill) }
            while count > 0 {
                count -= 1
                out.put(digits[count])
            }
        }
    }

    @inlinable @inline(__always) public static func appendSpaces<O: ASCIIOutput>(_ count: Int, to out: inout O) {
        if count > 0 { for _ in 0 ..< count { out.put(UInt8(ascii: " ")) } }
    }

    /// Appends a string's UTF-8 bytes with one copy (the generic path goes byte by byte; small
    /// strings, which most names are, have no contiguous storage but `withUTF8` lends one).
    @inlinable @inline(__always) public static func append<O: ASCIIOutput>(_ text: String, to out: inout O) {
        // Native and small strings lend their bytes without a copy of the String; others
        // (bridged, never here on Linux) are made contiguous first.
        if text.utf8.withContiguousStorageIfAvailable({ out.put($0) }) == nil {
            var text = text
            text.withUTF8 { out.put($0) }
        }
    }

    /// The strings one after another, in one allocation of their exact size (none when short
    /// enough to be a small string): what an interpolation of them makes, without growing a
    /// buffer part by part. For display text built per field of every packet.
    public static func concat(_ a: String, _ b: String, _ c: String = "", _ d: String = "", _ e: String = "") -> String {
        let total = a.utf8.count + b.utf8.count + c.utf8.count + d.utf8.count + e.utf8.count
        return string(capacity: total) { out in
            append(a, to: &out)
            append(b, to: &out)
            if !c.isEmpty { append(c, to: &out) }
            if !d.isEmpty { append(d, to: &out) }
            if !e.isEmpty { append(e, to: &out) }
        }
    }

    /// A String written by `write` straight into its storage; `capacity` must cover it.
    @inlinable @inline(__always)
    public static func string(capacity: Int, _ write: (inout FixedASCIIOutput) -> Void) -> String {
        String(unsafeUninitializedCapacity: max(0, capacity)) { storage in
            var out = FixedASCIIOutput(storage)
            write(&out)
            return out.count
        }
    }
}
