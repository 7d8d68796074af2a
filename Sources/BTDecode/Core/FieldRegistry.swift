import Foundation

/// A field's stable dotted name and what it means. The same names are used by `--fields`,
/// the filter language, JSON export and `btlog fields`; there is no second spelling.
///
/// Every Field of every packet carries its definition, so copying one must cost nothing: a
/// definition is one reference to its description, made once and kept for the life of the
/// process (definitions are made by the protocols' static tables, a bounded number), and
/// therefore held without reference counting.
public struct FieldDefinition: Hashable, Sendable {
    @usableFromInline final class Description: @unchecked Sendable { // immutable; treePrefix is never written after init
        @usableFromInline let name: String
        let label: String
        let type: FieldType
        let help: String
        /// "        Label: ", as the tree begins the field's line: built once, never freed (as the
        /// description itself), so that the tree reads it without retaining an array per field.
        @usableFromInline let treePrefix: UnsafeBufferPointer<UInt8>
        /// The name's UTF-8, kept the same way: JSON writes it as a key for every field.
        @usableFromInline let nameBytes: UnsafeBufferPointer<UInt8>
        /// The same for every definition of the same name (see `FieldIdentity`): what equality
        /// and a filter compare, an integer instead of a string.
        @usableFromInline let id: Int
        /// A property of the frame (frame.number, frame.time...; merge.latency, which a merge
        /// of several captures gives the frame), not a layer's field.
        @usableFromInline let isFrameField: Bool
        /// Made from a description file, not by a built-in protocol's table.
        let isDescribed: Bool

        init(name: String, label: String, type: FieldType, help: String, isDescribed: Bool) {
            self.name = name
            self.isDescribed = isDescribed
            id = FieldIdentity.id(for: name)
            isFrameField = name.hasPrefix("frame.") || name.hasPrefix("merge.") || name.hasPrefix("identity.")
            self.label = label
            self.type = type
            self.help = help
            treePrefix = ProcessLifetime.copy("        \(label): ".utf8)
            nameBytes = ProcessLifetime.copy(name.utf8)
        }
    }

    // Views in other modules read a field's name, identity and tree prefix per field: the
    // accessors are inlinable, so each is a load, not a call.
    @usableFromInline unowned(unsafe) let description: Description

    public init(_ name: String, _ label: String, _ type: FieldType, _ help: String) {
        self.init(name, label, type, help, isDescribed: false)
    }

    /// A field of a protocol described in a file. Interned: reading the same description again
    /// (the browser reopening, a test, a fuzzer) gives the same definition, so the definitions
    /// that are never freed stay as many as the distinct fields described, all reachable.
    public init(described name: String, _ label: String, _ type: FieldType, _ help: String) {
        self = DescribedDefinitions.definition(name, label, type, help)
    }

    fileprivate init(interning name: String, _ label: String, _ type: FieldType, _ help: String) {
        self.init(name, label, type, help, isDescribed: true)
    }

    private init(_ name: String, _ label: String, _ type: FieldType, _ help: String, isDescribed: Bool) {
        let description = Description(name: name, label: label, type: type, help: help, isDescribed: isDescribed)
        // Never released: what makes the unowned reference above safe.
        _ = Unmanaged.passRetained(description)
        self.description = description
    }

    @inlinable public var name: String { description.name }
    public var label: String { description.label }
    public var type: FieldType { description.type }
    public var help: String { description.help }
    /// The tree's indentation and label before a value ("        Handle: ").
    @inlinable public var treePrefix: UnsafeBufferPointer<UInt8> { description.treePrefix }
    /// The name's UTF-8 bytes, read in place.
    @inlinable public var nameBytes: UnsafeBufferPointer<UInt8> { description.nameBytes }

    /// "att" for att.opcode, "frame" for frame.number.
    public var protocolName: String { String(name.prefix { $0 != "." }) }

    /// A protocol's field declarations read as `f("opcode", "Opcode", .uint8, "...")`.
    static func maker(_ protocolName: String) -> (String, String, FieldType, String) -> FieldDefinition {
        { FieldDefinition(protocolName + "." + $0, $1, $2, $3) }
    }

    /// A small integer naming the field: equal for two definitions of the same name, below
    /// `FieldIdentity.count` (a filter indexes tables by it).
    @inlinable public var id: Int { description.id }
    /// A property of the frame (`frame.number`...), which no layer holds.
    @inlinable public var isFrameField: Bool { description.isFrameField }
    /// A field of a protocol described in a file (`FieldRegistry.register`).
    public var isDescribed: Bool { description.isDescribed }

    /// The same name is the same field, even when declared twice.
    @inlinable public static func == (a: FieldDefinition, b: FieldDefinition) -> Bool { a.description.id == b.description.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(description.id) }
}

/// The described protocols' field definitions by everything that makes one, and their layer
/// kinds: made once each, never freed (as the built-in ones, which static tables hold).
enum DescribedDefinitions {
    private struct Key: Hashable {
        let name: String, label: String, type: FieldType, help: String
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var definitions: [Key: FieldDefinition] = [:]
    nonisolated(unsafe) private static var kinds: [[String]: LayerKind] = [:]

    static func definition(_ name: String, _ label: String, _ type: FieldType, _ help: String) -> FieldDefinition {
        let key = Key(name: name, label: label, type: type, help: help)
        lock.lock()
        defer { lock.unlock() }
        if let known = definitions[key] { return known }
        let made = FieldDefinition(interning: name, label, type, help)
        definitions[key] = made
        return made
    }

    static func layerKind(_ name: String, protocol key: String) -> LayerKind {
        lock.lock()
        defer { lock.unlock() }
        if let known = kinds[[name, key]] { return known }
        let made = LayerKind(name, protocol: key)
        kinds[[name, key]] = made
        return made
    }
}

/// Numbers field names in the order they are first declared, so that two definitions of the
/// same name compare as one by an integer. Definitions are made by static tables, possibly on
/// several threads at once: hence the lock, taken once per definition made. An NSLock (a
/// pthread mutex), not Synchronization's Mutex: Thread Sanitizer sees a pthread mutex order
/// the threads, and reports the futex-based Mutex's accesses as races.
public enum FieldIdentity {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var ids: [String: Int] = [:]

    static func id(for name: String) -> Int {
        lock.lock()
        defer { lock.unlock() }
        if let id = ids[name] { return id }
        let id = ids.count
        ids[name] = id
        return id
    }

    /// One more than the largest id handed out so far.
    public static var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return ids.count
    }
}

public enum FieldType: String, Sendable {
    case uint8, uint16, uint32, uint64, int, bool, string, bytes, address, uuid, time, real
}

/// Every registered protocol's fields, in one list, in catalog order, then those of the
/// protocols described in files (`register`).
public enum FieldRegistry {
    static let builtIn: [FieldDefinition] = ProtocolCatalog.all.flatMap(\.fields)
    static let builtInByName: [String: FieldDefinition] = Dictionary(builtIn.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })

    public static var all: [FieldDefinition] {
        let described = Described.fields
        return described.isEmpty ? builtIn : builtIn + described
    }

    /// A field by its name, or by one of the frame fields' bare aliases (`number` for `frame.number`).
    public static func lookup(_ name: String) -> FieldDefinition? {
        builtInByName[name] ?? FrameFields.aliases[name] ?? Described.lookup(name)
    }

    /// Protocol prefixes in registry order ("frame", "hci", "acl", ...).
    public static var protocols: [String] {
        var seen: [String] = []
        for field in all where !seen.contains(field.protocolName) { seen.append(field.protocolName) }
        return seen
    }

    /// The unit a field's values are in, where its description gives one ("°C", "km/h").
    public static func unit(of field: FieldDefinition) -> String? {
        if field == MergeFields.latency { return "ms" }
        return field.isDescribed ? Described.unit(field.name) : nil
    }

    /// The described fields that are amounts (a rate, a level), in registration order: what
    /// `btlog stats` summarises as values.
    public static var quantities: [FieldDefinition] { Described.quantities }

    /// The protocols whose fields the registry has: the built-in ones, and those described.
    public static func isKnownProtocol(_ key: String) -> Bool {
        builtInProtocols.contains(key) || Described.keys.contains(key)
    }
    /// A protocol btlog decodes itself (its field prefix or layer word).
    public static func isBuiltIn(_ key: String) -> Bool { builtInProtocols.contains(key) }
    static let builtInProtocols = Set(builtIn.map(\.protocolName)).union(ProtocolCatalog.layerProtocols)

    /// Makes `protocols`' fields and value names known to every name lookup of the process
    /// (filters, `--fields`, export columns, `btlog fields`, the browser's completion), as the
    /// built-in ones are. Field names are process-wide, as field identities already are
    /// (`FieldIdentity`); what decodes them is the run's `DecodeOptions.described`. The command
    /// line registers its descriptions once, before it reads any option that names a field.
    public static func register(_ protocols: DescribedProtocols) {
        Described.register(protocols)
    }

    /// The described protocols' fields, behind a lock: registered once at start, read after.
    enum Described {
        private static let lock = NSLock()
        nonisolated(unsafe) private static var list: [FieldDefinition] = []
        nonisolated(unsafe) private static var byName: [String: FieldDefinition] = [:]
        nonisolated(unsafe) private static var names: [Int: [ValueName]] = [:]
        nonisolated(unsafe) private static var protocolKeys: Set<String> = []
        nonisolated(unsafe) private static var units: [String: String] = [:]
        nonisolated(unsafe) private static var quantityList: [FieldDefinition] = []

        static func register(_ protocols: DescribedProtocols) {
            lock.lock()
            defer { lock.unlock() }
            for described in protocols.all where !protocolKeys.contains(described.key) {
                protocolKeys.insert(described.key)
                for field in described.fields where byName[field.name] == nil {
                    list.append(field)
                    byName[field.name] = field
                }
                for (field, values) in described.valueNames { names[field.id] = values.sorted { $0.value < $1.value } }
                units.merge(described.units) { first, _ in first }
                for field in described.quantities where !quantityList.contains(field) { quantityList.append(field) }
            }
        }

        static var quantities: [FieldDefinition] {
            lock.lock()
            defer { lock.unlock() }
            return quantityList
        }

        static var fields: [FieldDefinition] {
            lock.lock()
            defer { lock.unlock() }
            return list
        }

        static var keys: Set<String> {
            lock.lock()
            defer { lock.unlock() }
            return protocolKeys
        }

        static func lookup(_ name: String) -> FieldDefinition? {
            lock.lock()
            defer { lock.unlock() }
            return byName[name]
        }

        static func unit(_ name: String) -> String? {
            lock.lock()
            defer { lock.unlock() }
            return units[name]
        }

        static func valueNames(_ id: Int) -> [ValueName]? {
            lock.lock()
            defer { lock.unlock() }
            return names.isEmpty ? nil : names[id]
        }
    }
}

/// Properties of the capture record itself rather than of a protocol: `frame.number`... The
/// bare names (`number`, `time`...) that `--fields` took before are aliases of these.
public enum FrameFields {
    static let f = FieldDefinition.maker("frame")
    public static let number = f("number", "Number", .uint64, "Packet number in the capture, from 1 (also: number)")
    public static let time = f("time", "Time", .time, "Capture time, seconds since the Unix epoch (also: time)")
    public static let direction = f("direction", "Direction", .string, "sent (host to controller), received, or none (also: direction)")
    public static let type = f("type", "Type", .string, "The Type column: highest decoded layer and direction (also: type)")
    public static let controller = f("controller", "Controller", .uint16, "Controller index (hci0 is 0) (also: controller)")
    public static let length = f("length", "Length", .uint32, "Captured length of the HCI packet or record (also: length)")
    public static let issues = f("issues", "Issues", .string, "Problems found in the packet, each as 'error: ...', 'warning: ...' or 'note: ...'; --fields joins them with '; ' (also: issues)")
    public static let source = f("source", "Source", .string, "The capture the packet came from, when several are read as one (btlog merge, --merge): its file name")
    public static let sourceNumber = f("source_number", "Source Number", .uint64, "The packet's number in its own capture, when several are read as one")
    public static let all = [number, time, direction, type, controller, length, issues, source, sourceNumber]

    /// The capture record's own properties, listed first.
    static let descriptor = ProtocolDescriptor(name: "Frame", fields: all)

    /// The names `--fields` took before the frame fields had a prefix.
    static let aliases: [String: FieldDefinition] = Dictionary(uniqueKeysWithValues: [number, time, direction, type, controller, length, issues].map { (String($0.name.dropFirst("frame.".count)), $0) })
}

/// What a merge of several captures of one scenario learns of a packet: the same PDU seen at
/// the other end, and the time between the two hosts' HCI.
public enum MergeFields {
    static let f = FieldDefinition.maker("merge")
    public static let latency = f("latency", "Latency", .real, "Milliseconds from the sending end (a host's HCI, or the air) to the receiving end, on the aligned clock, for a PDU both captures show (on the receiving end's packet)")
    public static let peer = f("peer", "Other End", .uint64, "Packet number of the same PDU at the other end")
    public static let peerSource = f("peer_source", "Other End Source", .string, "The capture that shows the other end")
    public static let role = f("role", "Role", .string, "sender or receiver: which end of the matched PDU this packet is")
    public static let peerAccessAddress = f("peer_access_address", "Other End Access Address", .uint32, "The other end is an air capture's copy: the link's access address")
    public static let all = [latency, peer, peerSource, role, peerAccessAddress]

    static let descriptor = ProtocolDescriptor(name: "Merge", fields: all)
}

/// The device behind a resolvable private address, where a known identity resolving key
/// resolves the packet's peer (`PrivateAddresses`): one device across its changing addresses.
public enum IdentityFields {
    static let f = FieldDefinition.maker("identity")
    public static let address = f("address", "Identity Address", .address, "The identity address of the device whose resolvable private address is the packet's peer (where the capture showed it)")
    public static let keyFrame = f("key_frame", "Key In", .uint64, "The packet whose SMP Identity Information gave the key that resolves the peer's address (0: given with --irk, or found by a merge in a packet not reached yet)")
    public static let all = [address, keyFrame]

    static let descriptor = ProtocolDescriptor(name: "Identity", fields: all)
}
