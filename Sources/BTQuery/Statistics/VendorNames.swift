import Foundation
import BTCapture
import BTDecode

/// Who a public device address belongs to, from the IEEE's registry of organisationally unique
/// identifiers as Debian's ieee-data package installs it (/usr/share/ieee-data/oui.csv). Read
/// at run time, not built in: the registry changes monthly and is several megabytes.
public final class VendorNames {
    public static let systemPaths = ["/usr/share/ieee-data/oui.csv"]

    private let organisations: [UInt32: String]

    /// The registry from `path` (a CSV with the IEEE's columns: Registry, Assignment,
    /// Organization Name, Organization Address), or nil when it cannot be read.
    public init?(path: String) {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path)) else { return nil }
        let bytes = [UInt8](data)
        var table: [UInt32: String] = [:]
        var lineStart = 0
        var index = 0
        while index <= bytes.count {
            if index == bytes.count || bytes[index] == 0x0A {
                if let (prefix, name) = Self.entry(bytes[lineStart ..< index]) { table[prefix] = name }
                lineStart = index + 1
            }
            index += 1
        }
        guard !table.isEmpty else { return nil }
        organisations = table
    }

    /// The first registry found on this system.
    public static func system() -> VendorNames? {
        if let path = ProcessInfo.processInfo.environment["BTLOG_OUI_FILE"], !path.isEmpty { return VendorNames(path: path) }
        for path in systemPaths { if let names = VendorNames(path: path) { return names } }
        return nil
    }

    public func organisation(of address: BDAddr) -> String? {
        organisations[UInt32(address.bytes.0) << 16 | UInt32(address.bytes.1) << 8 | UInt32(address.bytes.2)]
    }

    public var count: Int { organisations.count }

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
