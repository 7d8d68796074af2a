/// One value a coded field takes and its name: 0x12 "Write Request" for att.opcode.
public struct ValueName: Sendable, Equatable {
    public let value: UInt64
    public let name: String

    public init(_ value: UInt64, _ name: String) {
        self.value = value
        self.name = name
    }

    /// The name as a filter word: "Write Request" → write_request, "LE Meta" → le_meta.
    public var key: String { ValueName.key(name) }

    /// Lower case, every run of characters other than letters and digits one underscore.
    public static func key(_ name: String) -> String {
        var key = ""
        var pendingSeparator = false
        for scalar in name.unicodeScalars {
            if scalar.properties.isAlphabetic || ("0" ... "9").contains(scalar) {
                if pendingSeparator && !key.isEmpty { key.append("_") }
                pendingSeparator = false
                key.unicodeScalars.append(contentsOf: String(scalar).lowercased().unicodeScalars)
            } else {
                pendingSeparator = true
            }
        }
        return key
    }
}

/// The names of coded fields' values, from the protocols' own opcode and error tables (each
/// protocol lists them in its descriptor): what `att.opcode == write_req` and
/// `btlog fields att.opcode --values` read.
public enum FieldValueNames {
    /// By field id; made on first use by walking the catalog.
    static let byField: [Int: [ValueName]] = {
        var table: [Int: [ValueName]] = [:]
        for descriptor in ProtocolCatalog.all {
            for (field, names) in descriptor.valueNames() {
                table[field.id, default: []].append(contentsOf: names)
            }
        }
        return table.mapValues { $0.sorted { $0.value < $1.value } }
    }()

    /// Each field's names by value, indexed by field id (export names every coded value it
    /// writes: a lookup per field, so an array, not a dictionary of dictionaries).
    static let byValue: [[UInt64: String]?] = {
        var table = [[UInt64: String]?](repeating: nil, count: (byField.keys.max() ?? 0) + 1)
        for (id, names) in byField {
            var map: [UInt64: String] = [:]
            for entry in names where map[entry.value] == nil { map[entry.value] = entry.name }
            table[id] = map
        }
        return table
    }()

    /// The name of one value of a coded field ("Write Request" for att.opcode 0x12), or nil.
    @inline(__always) public static func name(of value: UInt64, for field: FieldDefinition) -> String? {
        let id = field.id
        guard id < byValue.count, let names = byValue[id] else {
            return field.isDescribed ? FieldRegistry.Described.valueNames(id)?.first { $0.value == value }?.name : nil
        }
        return names[value]
    }

    /// The names a field's values take, by value; empty when it has none.
    public static func names(of field: FieldDefinition) -> [ValueName] {
        byField[field.id] ?? (field.isDescribed ? FieldRegistry.Described.valueNames(field.id) : nil) ?? []
    }

    /// What a word or quoted name given for `field` means.
    public enum Resolution: Equatable {
        case value(UInt64)
        /// Several values answer to the word; their names.
        case ambiguous([ValueName])
        case unknown
    }

    /// A value by name: the exact name ignoring case ("Write Request"), its key
    /// (write_request), or each word of the key abbreviated (write_req, disc_compl). An exact
    /// match wins over abbreviations.
    public static func resolve(_ word: String, for field: FieldDefinition) -> Resolution {
        let names = names(of: field)
        guard !names.isEmpty else { return .unknown }
        let wanted = ValueName.key(word)
        guard !wanted.isEmpty else { return .unknown }
        let exact = names.filter { $0.key == wanted }
        if let first = exact.first {
            return exact.allSatisfy({ $0.value == first.value }) ? .value(first.value) : .ambiguous(exact)
        }
        let parts = wanted.split(separator: "_")
        let abbreviated = names.filter { name in
            let words = name.key.split(separator: "_")
            return words.count == parts.count && zip(parts, words).allSatisfy { $1.hasPrefix($0) }
        }
        guard let first = abbreviated.first else { return .unknown }
        return abbreviated.allSatisfy({ $0.value == first.value }) ? .value(first.value) : .ambiguous(abbreviated)
    }

    /// Table rows as value names (what descriptors hand over).
    static func from<Code: BinaryInteger>(_ table: [Code: String]) -> [ValueName] {
        table.map { ValueName(UInt64($0.key), $0.value) }
    }
}
