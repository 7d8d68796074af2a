import Foundation
import BTCapture
import BTDecode
import BTQuery

/// Who a public device address belongs to, from the IEEE's registry of organisationally unique
/// identifiers as Debian's ieee-data package installs it (/usr/share/ieee-data/oui.csv). Read
/// at run time, not built in: the registry changes monthly and is several megabytes.
public final class VendorNames {
    public static let systemPaths = ["/usr/share/ieee-data/oui.csv"]

    /// The registry's text: looked up by scanning for the prefixes a report needs (a few
    /// devices), not parsed whole (35,000 lines).
    private let bytes: Data

    /// The registry in `path` (a CSV with the IEEE's columns: Registry, Assignment,
    /// Organization Name, Organization Address), or nil when it cannot be read.
    public init?(path: String) {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path)), !data.isEmpty else { return nil }
        bytes = data
    }

    /// The first registry found on this system (BTLOG_OUI_FILE names another).
    public static func system() -> VendorNames? {
        if let path = ProcessInfo.processInfo.environment["BTLOG_OUI_FILE"], !path.isEmpty { return VendorNames(path: path) }
        for path in systemPaths { if let names = VendorNames(path: path) { return names } }
        return nil
    }

    /// The organisation of each address whose OUI the registry lists.
    public func organisations(of addresses: [BDAddr]) -> [BDAddr: String] {
        var wanted: [UInt32: [BDAddr]] = [:]
        for address in addresses { wanted[Self.prefix(of: address), default: []].append(address) }
        var found: [BDAddr: String] = [:]
        guard !wanted.isEmpty else { return found }
        bytes.withUnsafeBytes { raw in
            let text = raw.bindMemory(to: UInt8.self)
            var lineStart = 0
            while lineStart < text.count {
                var lineEnd = lineStart
                while lineEnd < text.count && text[lineEnd] != 0x0A { lineEnd += 1 }
                // "MA-L," then six hex digits: checked before anything is made of the line.
                if lineEnd - lineStart > 12, text[lineStart] == 0x4D, text[lineStart + 3] == 0x4C, text[lineStart + 4] == 0x2C,
                   let prefix = Self.hex(text, lineStart + 5, count: 6), text[lineStart + 11] == 0x2C, let addresses = wanted[prefix],
                   let (_, name) = Self.entry(Array(text[lineStart ..< lineEnd])[...]) {
                    for address in addresses { found[address] = name }
                }
                lineStart = lineEnd + 1
            }
        }
        return found
    }

    public func organisation(of address: BDAddr) -> String? { organisations(of: [address])[address] }

    static func prefix(of address: BDAddr) -> UInt32 {
        UInt32(address.bytes.0) << 16 | UInt32(address.bytes.1) << 8 | UInt32(address.bytes.2)
    }

    static func hex(_ text: UnsafeBufferPointer<UInt8>, _ start: Int, count: Int) -> UInt32? {
        var value: UInt32 = 0
        for index in start ..< start + count {
            let c = text[index]
            let digit: UInt8
            switch c {
            case 0x30 ... 0x39: digit = c - 0x30
            case 0x41 ... 0x46: digit = c - 0x41 + 10
            case 0x61 ... 0x66: digit = c - 0x61 + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// "MA-L,F0D5BF,Intel Corporate,..." or with the name quoted when it holds a comma.
    static func entry(_ line: ArraySlice<UInt8>) -> (UInt32, String)? {
        var fields: [String] = []
        var current: [UInt8] = []
        var quoted = false
        var index = line.startIndex
        while index < line.endIndex, fields.count < 3 {
            let byte = line[index]
            if quoted {
                if byte == 0x22 {
                    if index + 1 < line.endIndex && line[index + 1] == 0x22 { current.append(0x22); index += 1 } else { quoted = false }
                } else {
                    current.append(byte)
                }
            } else if byte == 0x22 {
                quoted = true
            } else if byte == 0x2C {
                fields.append(String(decoding: current, as: UTF8.self))
                current.removeAll(keepingCapacity: true)
            } else if byte != 0x0D {
                current.append(byte)
            }
            index += 1
        }
        if fields.count < 3 { fields.append(String(decoding: current, as: UTF8.self)) }
        guard fields.count == 3, fields[0] == "MA-L", fields[1].utf8.count == 6, let prefix = UInt32(fields[1], radix: 16) else { return nil }
        let name = fields[2].trimmingWhitespace
        return name.isEmpty ? nil : (prefix, name)
    }
}
