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
