/// Long-term keys given for air captures' encrypted links (`--ltk HEX`, `--keys FILE`): 16
/// octets as 32 hex digits, most significant first as the specifications, btmon and Android's
/// bt_config write them (colons, spaces, dashes and a 0x prefix allowed); btlog also tries each
/// the other way round, so a key copied in air order works too.
public enum LinkLayerKeys {
    public struct ParseError: Error, CustomStringConvertible {
        public let description: String
    }

    /// One key, read as the filter language reads a byte string; the message says what is wrong.
    public static func parse(key text: Substring) throws -> [UInt8] {
        let trimmed = String(text).trimmingWhitespace
        if case .bytes(let bytes)? = FieldValue.parse(trimmed, as: .bytes), bytes.count == 16 { return Array(bytes) }
        var digits = Substring(trimmed)
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
        let significant = digits.filter { ![":", " ", "-"].contains($0) }
        if let wrong = significant.first(where: { !$0.isHexDigit }) { throw ParseError(description: "'\(wrong)' is not a hex digit") }
        throw ParseError(description: "a key is 32 hex digits (16 octets); this has \(significant.count)")
    }

    /// A keys file: one key per line; blank lines and text after # are ignored.
    public static func parse(file text: String, name: String) throws -> [[UInt8]] {
        var keys: [[UInt8]] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let content = line.prefix { $0 != "#" }
            guard content.contains(where: { !$0.isWhitespace }) else { continue }
            do {
                keys.append(try parse(key: content))
            } catch let error as ParseError {
                throw ParseError(description: "\(name):\(number + 1): \(error.description)")
            }
        }
        return keys
    }
}
