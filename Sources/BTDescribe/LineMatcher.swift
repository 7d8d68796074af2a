import BTDecode
import CPCRE2

/// A text rule's regular expression: PCRE2 (Perl syntax, named groups `(?<name>...)`),
/// compiled once. Matching is bounded by PCRE2's match limit, so a pattern that backtracks
/// badly ends as "no match" rather than a hang; each match makes its own match data, so one
/// compiled pattern serves every decoding thread.
final class PCRELineMatcher: DescribedLineMatcher, @unchecked Sendable { // `code` is immutable after init
    private let code: OpaquePointer
    let groupCount: Int
    /// The named groups, by name, with their numbers.
    let names: [(name: String, number: Int)]

    struct CompileError: Error {
        let message: String
        let offset: Int
    }

    init(_ pattern: String) throws {
        var error: Int32 = 0
        var offset = 0
        let compiled = pattern.utf8CString.withUnsafeBufferPointer { text in
            btlog_pcre2_compile(text.baseAddress, text.count - 1, 0, 0, &error, &offset)
        }
        guard let compiled else {
            var buffer = [UInt8](repeating: 0, count: 256)
            let length = btlog_pcre2_error_message(error, &buffer, buffer.count)
            throw CompileError(message: length > 0 ? String(decoding: buffer.prefix(Int(length)), as: UTF8.self) : "not a valid regular expression",
                               offset: offset)
        }
        code = compiled
        groupCount = max(0, Int(btlog_pcre2_group_count(compiled)))
        var count: UInt32 = 0, size: UInt32 = 0
        var found: [(String, Int)] = []
        if let table = btlog_pcre2_name_table(compiled, &count, &size), size > 2 {
            for entry in 0 ..< Int(count) {
                let base = table + entry * Int(size)
                let number = Int(base[0]) << 8 | Int(base[1])
                let nameBytes = UnsafeBufferPointer(start: base + 2, count: Int(size) - 2).prefix { $0 != 0 }
                found.append((String(decoding: nameBytes, as: UTF8.self), number))
            }
        }
        names = found
    }

    deinit { btlog_pcre2_free(code) }

    func groups(in line: [UInt8]) -> [Range<Int>?]? {
        let pairs = groupCount + 1
        var bounds = [Int](repeating: 0, count: pairs * 2)
        let result = line.withUnsafeBufferPointer { bytes in
            bounds.withUnsafeMutableBufferPointer { out in
                // A zero-length line may have no base address; PCRE2 wants a pointer all the same.
                btlog_pcre2_groups(code, bytes.baseAddress ?? UnsafePointer(bitPattern: 1)!, bytes.count,
                                   UnsafeMutableRawPointer(out.baseAddress!).assumingMemoryBound(to: Int.self), pairs)
            }
        }
        guard result > 0 else { return nil }
        var groups: [Range<Int>?] = []
        for group in 1 ..< pairs {
            let low = bounds[group * 2], high = bounds[group * 2 + 1]
            // PCRE2_UNSET is the largest size_t: -1 here.
            groups.append(group < Int(result) && low >= 0 && high >= low && high <= line.count ? low ..< high : nil)
        }
        return groups
    }
}
