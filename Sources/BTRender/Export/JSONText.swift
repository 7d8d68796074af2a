import BTCapture
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// JSON written straight into an output buffer: strings escaped as RFC 8259 requires, numbers
/// in decimal, times in RFC 3339. No encoder, no intermediate String: export writes millions.
public enum JSONText {
    /// A JSON string: quotes, backslashes and control characters escaped. Swift strings are
    /// valid UTF-8 (bytes that were not were replaced when the text was decoded), so every
    /// string written is valid JSON.
    @inlinable public static func appendString<O: ASCIIOutput>(_ text: String, to out: inout O) {
        if text.utf8.withContiguousStorageIfAvailable({ appendString(utf8: $0, to: &out) }) == nil {
            var text = text
            text.withUTF8 { appendString(utf8: $0, to: &out) }
        }
    }

    /// The same for UTF-8 bytes already in hand (a summary). Bytes that are not valid UTF-8
    /// are written as U+FFFD, so the result is valid JSON whatever the input.
    public static func appendString<O: ASCIIOutput>(utf8 bytes: UnsafeBufferPointer<UInt8>, to out: inout O) {
        out.put(UInt8(ascii: "\""))
        var start = 0
        var index = 0
        let count = bytes.count
        let base = bytes.baseAddress
        while index < count {
            // Eight bytes at a time while none needs attention (a control character, a quote,
            // a backslash, a byte of a multi-byte sequence): most text is plain ASCII.
            while index + 8 <= count, let base {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                if Self.needsAttention(word) { break }
                index += 8
            }
            guard index < count else { break }
            let byte = bytes[index]
            if byte >= 0x20 && byte != 0x22 && byte != 0x5C && byte < 0x80 { index += 1; continue }
            if byte >= 0x80 {
                let length = validSequenceLength(bytes, at: index)
                if length > 0 { index += length; continue }
            }
            if index > start { out.put(UnsafeBufferPointer(rebasing: bytes[start ..< index])) }
            if byte >= 0x80 {
                replacement.withUnsafeBufferPointer { out.put($0) }
            } else {
                appendEscape(byte, to: &out)
            }
            index += 1
            start = index
        }
        if count > start { out.put(UnsafeBufferPointer(rebasing: bytes[start ..< count])) }
        out.put(UInt8(ascii: "\""))
    }

    static let replacement: [UInt8] = [0xEF, 0xBF, 0xBD]

    /// Whether any of eight bytes is below 0x20, a quote, a backslash or 0x80 and above (the
    /// classic "has a byte less than n / equal to n" tricks on a 64-bit word).
    @inline(__always) static func needsAttention(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let control = (word &- ones &* 0x20) & ~word & highs
        let quote = word ^ (ones &* 0x22), backslash = word ^ (ones &* 0x5C)
        let quotes = (quote &- ones) & ~quote & highs
        let backslashes = (backslash &- ones) & ~backslash & highs
        return (control | quotes | backslashes | (word & highs)) != 0
    }

    static func appendEscape<O: ASCIIOutput>(_ byte: UInt8, to out: inout O) {
        out.put(UInt8(ascii: "\\"))
        switch byte {
        case 0x22: out.put(0x22)
        case 0x5C: out.put(0x5C)
        case 0x0A: out.put(UInt8(ascii: "n"))
        case 0x0D: out.put(UInt8(ascii: "r"))
        case 0x09: out.put(UInt8(ascii: "t"))
        case 0x08: out.put(UInt8(ascii: "b"))
        case 0x0C: out.put(UInt8(ascii: "f"))
        default:
            for c in "u00".utf8 { out.put(c) }
            Hex.append(byte, to: &out)
        }
    }

    /// The length of the well-formed UTF-8 sequence starting at `index` (RFC 3629: no overlong
    /// forms, no surrogates, nothing past U+10FFFF), or 0.
    static func validSequenceLength(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int {
        let lead = bytes[index], left = bytes.count - index
        func continuation(_ offset: Int, _ range: ClosedRange<UInt8> = 0x80 ... 0xBF) -> Bool {
            offset < left && range.contains(bytes[index + offset])
        }
        switch lead {
        case 0xC2 ... 0xDF: return continuation(1) ? 2 : 0
        case 0xE0: return continuation(1, 0xA0 ... 0xBF) && continuation(2) ? 3 : 0
        case 0xE1 ... 0xEC, 0xEE ... 0xEF: return continuation(1) && continuation(2) ? 3 : 0
        case 0xED: return continuation(1, 0x80 ... 0x9F) && continuation(2) ? 3 : 0
        case 0xF0: return continuation(1, 0x90 ... 0xBF) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF1 ... 0xF3: return continuation(1) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF4: return continuation(1, 0x80 ... 0x8F) && continuation(2) && continuation(3) ? 4 : 0
        default: return 0
        }
    }

    /// `"name":` (names are the registry's: ASCII without anything to escape).
    @inlinable @inline(__always) public static func appendKey<O: ASCIIOutput>(_ name: String, to out: inout O) {
        out.put(UInt8(ascii: "\""))
        ASCII.append(name, to: &out)
        out.put(UInt8(ascii: "\""))
        out.put(UInt8(ascii: ":"))
    }

    @inlinable public static func appendInteger<O: ASCIIOutput>(_ value: Int64, to out: inout O) {
        ASCII.appendSignedDecimal(value, to: &out)
    }

    @inlinable public static func appendLiteral<O: ASCIIOutput>(_ literal: StaticString, to out: inout O) {
        literal.withUTF8Buffer { out.put($0) }
    }
}

/// RFC 3339 times in UTC with microseconds ("2019-05-08T21:04:39.824123Z"), the date part made
/// once per second (consecutive packets share it).
public struct UTCTimeFormatter {
    var cachedSecond: Int64 = .min
    var cachedPrefix: [UInt8] = []

    public init() {}

    public mutating func append<O: ASCIIOutput>(_ micros: Int64, to out: inout O) {
        let split = Microseconds.split(micros)
        if split.seconds != cachedSecond {
            cachedSecond = split.seconds
            cachedPrefix.removeAll(keepingCapacity: true)
            let (year, month, day) = Self.civil(days: Self.floorDivide(split.seconds, 86_400))
            let second = split.seconds - Self.floorDivide(split.seconds, 86_400) * 86_400
            if year < 0 { cachedPrefix.append(UInt8(ascii: "-")) }
            ASCII.appendDecimal(year.magnitude, width: 4, to: &cachedPrefix)
            cachedPrefix.append(UInt8(ascii: "-"))
            ASCII.appendDecimal(UInt64(month), width: 2, to: &cachedPrefix)
            cachedPrefix.append(UInt8(ascii: "-"))
            ASCII.appendDecimal(UInt64(day), width: 2, to: &cachedPrefix)
            cachedPrefix.append(UInt8(ascii: "T"))
            ASCII.appendDecimal(UInt64(second / 3600), width: 2, to: &cachedPrefix)
            cachedPrefix.append(UInt8(ascii: ":"))
            ASCII.appendDecimal(UInt64(second / 60 % 60), width: 2, to: &cachedPrefix)
            cachedPrefix.append(UInt8(ascii: ":"))
            ASCII.appendDecimal(UInt64(second % 60), width: 2, to: &cachedPrefix)
            cachedPrefix.append(UInt8(ascii: "."))
        }
        cachedPrefix.withUnsafeBufferPointer { out.put($0) }
        ASCII.appendDecimal(UInt64(split.micros), width: 6, to: &out)
        out.put(UInt8(ascii: "Z"))
    }

    public mutating func format(_ micros: Int64) -> String {
        var bytes: [UInt8] = []
        append(micros, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    /// The proleptic Gregorian date of a day count from 1970-01-01 (Howard Hinnant's
    /// days-from-civil inverse, valid for every Int64 day a microsecond timestamp reaches).
    static func civil(days: Int64) -> (year: Int64, month: Int, day: Int) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), Int(month), Int(day))
    }
}
