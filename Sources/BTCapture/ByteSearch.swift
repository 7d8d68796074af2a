/// Whether one byte sequence occurs in another, by bytes. Text is compared as UTF-8 this way:
/// Foundation's String.contains stops a needle at a NUL ("ab".contains("ab\0") is true) and
/// traps on some strings holding one (found by the literal fuzz target).
public enum ByteSearch {
    /// The table asks this of a row's summary and its worst issue, and a filter's `contains` of
    /// every packet it tests: the bytes are compared in place (an Array, an ArraySlice, a native
    /// String's UTF-8 are contiguous), not through a generic collection's indices, which cost
    /// some 200 instructions a byte across the module boundary.
    public static func contains<Haystack: Collection, Needle: Collection>(_ haystack: Haystack, _ needle: Needle) -> Bool
    where Haystack.Element == UInt8, Needle.Element == UInt8 {
        let inPlace = haystack.withContiguousStorageIfAvailable { whole in
            needle.withContiguousStorageIfAvailable { part in contains(whole, part) }
        }
        if let inPlace, let found = inPlace { return found }
        let whole = Array(haystack), part = Array(needle)
        return whole.withUnsafeBufferPointer { whole in part.withUnsafeBufferPointer { part in contains(whole, part) } }
    }

    public static func contains(_ whole: UnsafeBufferPointer<UInt8>, _ part: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = part.first else { return true }
        guard part.count <= whole.count else { return false }
        var start = 0
        let lastStart = whole.count - part.count
        while start <= lastStart {
            if whole[start] == first {
                var matched = 1
                while matched < part.count, whole[start + matched] == part[matched] { matched += 1 }
                if matched == part.count { return true }
            }
            start += 1
        }
        return false
    }

    public static func contains(_ text: String, _ part: String) -> Bool { contains(text.utf8, part.utf8) }
}

/// FNV-1a, 64 bits, over bytes: the same in every run and on every machine (Swift's Hasher is
/// seeded per process). What a notes file fingerprints a packet with, and what `btlog diff`
/// compares a value by.
public enum FNV1a {
    public static func hash<C: Sequence>(_ bytes: C) -> UInt64 where C.Element == UInt8 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return hash
    }
}
