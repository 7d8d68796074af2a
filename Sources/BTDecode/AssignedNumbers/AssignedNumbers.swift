import BTCapture

/// Names from the Bluetooth assigned numbers: companies, appearances and GATT UUIDs.
public enum AssignedNumbers {
    static let companies: [UInt16: String] = parse(AssignedNumbersData.companies) { UInt16($0, radix: 16) }
    static let appearances: [UInt16: String] = parse(AssignedNumbersData.appearances) { UInt16($0, radix: 16) }
    static let services: [BTUUID: String] = parse(AssignedNumbersData.services) { BTUUID($0) }
    static let characteristics: [BTUUID: String] = parse(AssignedNumbersData.characteristics) { BTUUID($0) }
    static let descriptors: [BTUUID: String] = parse(AssignedNumbersData.descriptors) { BTUUID($0) }

    public static func company(_ id: UInt16) -> String? { companies[id] }

    /// "Watch: Sports Watch"; an unknown subcategory falls back to its category's name.
    public static func appearance(_ value: UInt16) -> String? {
        appearances[value] ?? appearances[value & 0xFFC0]
    }

    /// Reads a tab-separated table by bytes: it runs at start-up, and walking thousands of
    /// lines as Characters cost more than decoding a small capture.
    static func parse<Key: Hashable>(_ table: String, key: (String) -> Key?) -> [Key: String] {
        var out: [Key: String] = [:]
        var table = table
        table.withUTF8 { bytes in
            out.reserveCapacity(bytes.count / 24)
            var lineStart = 0
            while lineStart < bytes.count {
                var lineEnd = lineStart
                while lineEnd < bytes.count, bytes[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
                var tab = lineStart
                while tab < lineEnd, bytes[tab] != UInt8(ascii: "\t") { tab += 1 }
                if tab < lineEnd, let k = key(String(decoding: bytes[lineStart ..< tab], as: UTF8.self)) {
                    out[k] = String(decoding: bytes[tab + 1 ..< lineEnd], as: UTF8.self)
                }
                lineStart = lineEnd + 1
            }
        }
        return out
    }
}

/// What a UUID names in GATT, for choosing among tables and for `btlog gatt`.
public enum UUIDKind: String, Sendable {
    case service, characteristic, descriptor, declaration
}

/// UUID → name: names given for this run (`--uuids`) first, then the GATT declarations, then
/// the assigned numbers. A value: each Decoder carries its own in its DecodeOptions.
public struct UUIDNames: Sendable {
    /// GATT attribute types of Core Vol 3, Part G, 3 (not in the database's descriptor list).
    static let declarations: [BTUUID: String] = [
        BTUUID(UInt16(0x2800)): "Primary Service",
        BTUUID(UInt16(0x2801)): "Secondary Service",
        BTUUID(UInt16(0x2802)): "Include",
        BTUUID(UInt16(0x2803)): "Characteristic",
    ]

    /// The assigned numbers alone.
    public static let standard = UUIDNames()

    var custom: [BTUUID: (kind: UUIDKind?, name: String)] = [:]

    public init() {}

    public mutating func add(_ uuid: BTUUID, name: String, kind: UUIDKind? = nil) {
        custom[uuid] = (kind, name)
    }

    public func name(_ uuid: BTUUID) -> String? {
        if !custom.isEmpty, let entry = custom[uuid] { return entry.name }
        return Self.standardNames[uuid]
    }

    /// The declarations and assigned numbers in one table, a declaration's name first, then a
    /// service's, a characteristic's, a descriptor's: one lookup per UUID instead of four.
    static let standardNames: [BTUUID: String] = {
        var names = AssignedNumbers.descriptors
        names.merge(AssignedNumbers.characteristics) { _, preferred in preferred }
        names.merge(AssignedNumbers.services) { _, preferred in preferred }
        names.merge(declarations) { _, preferred in preferred }
        return names
    }()

    /// `labelled` for every standard name, made once: the tree and JSON label UUIDs per packet.
    static let standardLabels: [BTUUID: String] = standardNames.reduce(into: [:]) { labels, entry in
        labels[entry.key] = label(entry.key, entry.value)
    }

    static func label(_ uuid: BTUUID, _ name: String) -> String { "\(uuid.description) (\(name))" }

    public func name(_ uuid: BTUUID, as kind: UUIDKind) -> String? {
        if let entry = custom[uuid], entry.kind == nil || entry.kind == kind { return entry.name }
        switch kind {
        case .service: return AssignedNumbers.services[uuid] ?? name(uuid)
        case .characteristic: return AssignedNumbers.characteristics[uuid] ?? name(uuid)
        case .descriptor: return AssignedNumbers.descriptors[uuid] ?? name(uuid)
        case .declaration: return Self.declarations[uuid] ?? name(uuid)
        }
    }

    /// "2A37 (Heart Rate Measurement)" or the bare UUID.
    public func labelled(_ uuid: BTUUID) -> String {
        if !custom.isEmpty, let entry = custom[uuid] { return Self.label(uuid, entry.name) }
        return Self.standardLabels[uuid] ?? uuid.description
    }

    /// Names as GATT uses them, falling back to the UUID itself.
    public func service(_ uuid: BTUUID) -> String { name(uuid, as: .service) ?? uuid.description }
    public func characteristic(_ uuid: BTUUID) -> String { name(uuid, as: .characteristic) ?? uuid.description }
    public func descriptor(_ uuid: BTUUID) -> String { name(uuid, as: .descriptor) ?? uuid.description }
}
