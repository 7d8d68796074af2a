import BTDecode
import BTQuery

/// Tab in the filter field: the names `btlog fields` knows (fields, protocols, the filter's
/// packet terms and words), or after `field ==` the names that field's values take.
public enum FilterCompletion {
    /// What the word before the cursor may become, sorted.
    public static func candidates(for line: InputLine) -> [String] {
        let (start, word) = line.wordBeforeCursor
        let before = String(line.characters[0 ..< start])
        let pool: [String]
        if let field = fieldBeforeComparison(before) {
            pool = FieldValueNames.names(of: field).map(\.key)
        } else {
            pool = names
        }
        let lower = word.lowercased()
        return Array(Set(pool.filter { $0.lowercased().hasPrefix(lower) })).sorted()
    }

    /// Completes the word before the cursor as far as the candidates agree (a space after a
    /// single one); returns the candidates, for the screen to list when several remain.
    @discardableResult
    public static func complete(_ line: inout InputLine) -> [String] {
        let found = candidates(for: line)
        guard let first = found.first else { return [] }
        if found.count == 1 {
            line.replaceWord(with: first)
            line.insert(" ")
            return found
        }
        var common = Array(first)
        for other in found.dropFirst() {
            let next = Array(other)
            var length = 0
            while length < common.count, length < next.count, common[length] == next[length] { length += 1 }
            common = Array(common.prefix(length))
        }
        if common.count > line.wordBeforeCursor.text.count { line.replaceWord(with: String(common)) }
        return found
    }

    /// "att.opcode" in "att.opcode == " or "att.opcode in {write_req ": the field whose values
    /// the word being typed names.
    static func fieldBeforeComparison(_ text: String) -> FieldDefinition? {
        var words = text.split { $0 == " " || $0 == "(" || $0 == ")" }.map(String.init)
        // Inside a set ("in {a b "), skip back over the set's members to the `in`.
        if let open = words.lastIndex(where: { $0.hasPrefix("{") }), !words[open...].contains(where: { $0.contains("}") }) {
            words = Array(words[..<open])
            guard words.last == "in" else { return nil }
        } else if text.hasSuffix("{") {
            words.removeLast()
        }
        guard words.count >= 2, ["==", "!=", "eq", "ne", "in", "=", "<", ">", "<=", ">="].contains(words[words.count - 1]) else { return nil }
        return FieldRegistry.lookup(words[words.count - 2])
    }

    static let keywords = ["and", "or", "not", "in", "contains", "matches", "true", "false"]

    static let names: [String] = {
        var all = FieldRegistry.all.map(\.name) + FieldRegistry.protocols + PacketFilter.packetTerms + keywords
        all += FrameFields.all.map(\.name)
        return Array(Set(all)).sorted()
    }()
}
