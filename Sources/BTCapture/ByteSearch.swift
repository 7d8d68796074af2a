/// Whether one byte sequence occurs in another, by bytes. Text is compared as UTF-8 this way:
/// Foundation's String.contains stops a needle at a NUL ("ab".contains("ab\0") is true) and
/// traps on some strings holding one (found by the literal fuzz target).
public enum ByteSearch {
    public static func contains<Haystack: Collection, Needle: Collection>(_ haystack: Haystack, _ needle: Needle) -> Bool
    where Haystack.Element == UInt8, Needle.Element == UInt8 {
        guard let first = needle.first else { return true }
        var start = haystack.startIndex
        while let found = haystack[start...].firstIndex(of: first) {
            if haystack[found...].starts(with: needle) { return true }
            start = haystack.index(after: found)
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
