import BTCapture

/// Which attribute server a database describes: the remote device of a link, or the local
/// host as that device saw it. Keyed by address so it survives reconnections.
public struct GATTServerKey: WordKey, Comparable, CustomStringConvertible {
    public enum Device: Hashable, CustomStringConvertible {
        case address(BDAddr)
        /// The capture never showed the connection: only its handle is known.
        case handle(UInt16)

        public var description: String {
            switch self {
            case .address(let address): return address.description
            case .handle(let handle): return "handle \(Hex.u16(handle))"
            }
        }
    }

    public var controller: UInt16
    public var device: Device
    /// The server is the remote device (false: the local host's own database).
    public var isRemote: Bool

    public var description: String {
        isRemote ? "\(device) (remote server, controller \(controller))" : "local server seen by \(device) (controller \(controller))"
    }

    // Looked up for every ATT PDU. Equality stays the synthesized one.
    public var hashWord: UInt64 {
        let word: UInt64
        switch device {
        case .address(let address): word = address.packed
        case .handle(let handle): word = 1 << 63 | UInt64(handle)
        }
        return word ^ UInt64(controller) << 48 ^ (isRemote ? 1 << 62 : 0)
    }

    public static func < (a: GATTServerKey, b: GATTServerKey) -> Bool {
        (a.controller, a.device.description, a.isRemote ? 0 : 1) < (b.controller, b.device.description, b.isRemote ? 0 : 1)
    }
}

/// One attribute as discovery revealed it.
public struct GATTAttribute: Equatable, Sendable {
    public enum Role: Equatable, Sendable {
        case service(uuid: BTUUID, endHandle: UInt16, primary: Bool)
        case include(start: UInt16, end: UInt16, uuid: BTUUID?)
        case declaration(uuid: BTUUID, properties: UInt8, valueHandle: UInt16)
        case value(characteristic: BTUUID)
        case descriptor(uuid: BTUUID, characteristic: BTUUID?)
        /// Seen in a Read By Type response for this type, outside a known characteristic.
        case typed(BTUUID)
    }

    public var handle: UInt16
    public var role: Role
    public var lastValue: [UInt8]?

    /// The attribute type (what Find Information would return).
    public var type: BTUUID {
        switch role {
        case .service(_, _, let primary): return BTUUID(UInt16(primary ? 0x2800 : 0x2801))
        case .include: return BTUUID(UInt16(0x2802))
        case .declaration: return BTUUID(UInt16(0x2803))
        case .value(let uuid): return uuid
        case .descriptor(let uuid, _): return uuid
        case .typed(let uuid): return uuid
        }
    }
}

/// A GATT server's attributes, learnt from discovery responses, the BlueZ cache, and values seen.
public struct GATTDatabase: Sendable {
    public private(set) var attributes: [UInt16: GATTAttribute] = [:]
    /// What each handle a PDU named resolved to, kept until discovery changes the database:
    /// a notification stream names the same handle thousands of times, and resolving it walks
    /// the database for its service and characteristic.
    private var namings: [NamedHandle: HandleNaming] = [:]

    private struct NamedHandle: WordKey {
        let handle: UInt16
        var hashWord: UInt64 { UInt64(handle) }
    }

    /// How PDUs name a handle: its summary name, the service and characteristic it belongs
    /// to, and its attribute type. A class, made once per handle and never changed: a PDU's
    /// decoders pass it around and keep it, one reference instead of copying its name and UUIDs.
    public final class HandleNaming: Sendable {
        public let name: String
        public let service: BTUUID?
        public let characteristic: BTUUID?
        public let type: BTUUID
        /// A profile above GATT registered this type (ANCS, AMS, LE Audio): its values are handed on.
        let hasProfile: Bool
        /// How values of this type read (GATTValues), found once per handle rather than per
        /// value: its place in `DissectorTables.gattValueList`.
        let valueFormat: Int?
        /// What a PDU's summary says of the handle (`ATTDecoder.PDU.handleSummary`: " - Handle:
        /// 0x002A - Heart Rate Measurement"), made once per handle rather than formatted for
        /// every notification.
        let summaryText: String

        init(handle: UInt16, name: String, service: BTUUID?, characteristic: BTUUID?, type: BTUUID, hasProfile: Bool, valueFormat: Int?) {
            var text = SummaryText()
            text += ATTDecoder.PDU.handleSummary(handle, name: name)
            summaryText = text.description
            self.name = name
            self.service = service
            self.characteristic = characteristic
            self.type = type
            self.hasProfile = hasProfile
            self.valueFormat = valueFormat
        }

        func describe(_ value: ArraySlice<UInt8>) -> String? {
            valueFormat.flatMap { DissectorTables.gattValueList[$0](value) }
        }
    }

    public init() {}

    public mutating func set(_ handle: UInt16, _ role: GATTAttribute.Role) {
        let known = attributes[handle]
        // Discovery that finds what the database holds (a client discovering again on every
        // connection) changes nothing, and keeps the handles' namings worked out.
        if known?.role == role { return }
        attributes[handle] = GATTAttribute(handle: handle, role: role, lastValue: known?.lastValue)
        if !namings.isEmpty { namings.removeAll() }
    }

    /// The handle's naming, worked out on first use. `names` must be the same for every call on
    /// one database (the session's), as it is.
    mutating func naming(of handle: UInt16, names: UUIDNames) -> HandleNaming? {
        if let known = namings[NamedHandle(handle: handle)] { return known }
        guard let attribute = attributes[handle], let name = name(of: handle, names: names) else { return nil }
        let naming = HandleNaming(handle: handle, name: name, service: service(containing: handle)?.uuid,
                                  characteristic: characteristicUUID(of: handle), type: attribute.type,
                                  hasProfile: DissectorTables.gattCharacteristics[attribute.type] != nil,
                                  valueFormat: DissectorTables.gattValuePlaces[attribute.type])
        namings[NamedHandle(handle: handle)] = naming
        return naming
    }

    /// Find Information reveals types: descriptors unless the handle is already known.
    mutating func learnType(_ handle: UInt16, _ uuid: BTUUID) {
        if let known = attributes[handle] {
            // Discovery placed it already; only a type seen in a Read By Type answer gives way.
            guard case .typed(let type) = known.role, type != uuid else { return }
        }
        if let short = uuid.uuid16, (0x2800 ... 0x2803).contains(short) {
            // A declaration Find Information showed: typed until a read or Read By Type fills it in.
            if attributes[handle] == nil { set(handle, .typed(uuid)) }
            return
        }
        set(handle, .descriptor(uuid: uuid, characteristic: characteristic(containing: handle)?.uuid))
    }

    mutating func recordValue(_ handle: UInt16, _ value: ArraySlice<UInt8>) {
        guard let index = attributes.index(forKey: handle) else { return }
        attributes.values[index].lastValue = Array(value.prefix(512))
    }

    /// The characteristic declaration a handle belongs to: the nearest declaration at or before it.
    public func characteristic(containing handle: UInt16) -> (uuid: BTUUID, declaration: UInt16, valueHandle: UInt16)? {
        var best: (BTUUID, UInt16, UInt16)?
        for attribute in attributes.values {
            guard case .declaration(let uuid, _, let valueHandle) = attribute.role, attribute.handle <= handle else { continue }
            if best == nil || attribute.handle > best!.1 { best = (uuid, attribute.handle, valueHandle) }
        }
        if let best, let service = service(containing: handle), service.start > best.1 { return nil }
        return best.map { (uuid: $0.0, declaration: $0.1, valueHandle: $0.2) }
    }

    public func service(containing handle: UInt16) -> (uuid: BTUUID, start: UInt16, end: UInt16)? {
        for attribute in attributes.values {
            if case .service(let uuid, let end, _) = attribute.role, attribute.handle <= handle, handle <= end {
                return (uuid, attribute.handle, end)
            }
        }
        return nil
    }

    /// The characteristic whose value or descriptor this handle is.
    public func characteristicUUID(of handle: UInt16) -> BTUUID? {
        switch attributes[handle]?.role {
        case .value(let uuid): return uuid
        case .descriptor(_, let uuid): return uuid ?? characteristic(containing: handle)?.uuid
        case .typed(let uuid): return uuid
        default: return nil
        }
    }

    /// How a summary names the handle: "Heart Rate Measurement", "Service Changed - Configuration".
    public func name(of handle: UInt16, names: UUIDNames) -> String? {
        guard let attribute = attributes[handle] else { return nil }
        switch attribute.role {
        case .service(let uuid, _, let primary):
            // Vendor names often end in "Service" already ("Nordic UART Service").
            let name = names.service(uuid)
            if name.hasSuffix("Service") { return primary ? name : "\(name) (Secondary)" }
            return "\(name) \(primary ? "Service" : "Secondary Service")"
        case .include(_, _, let uuid):
            return "Include" + (uuid.map { " \(names.service($0))" } ?? "")
        case .declaration(let uuid, _, _):
            return "\(names.characteristic(uuid)) Declaration"
        case .value(let uuid), .typed(let uuid):
            return names.characteristic(uuid)
        case .descriptor(let uuid, let owner):
            let descriptor = uuid.uuid16 == 0x2902 ? "Configuration" : names.descriptor(uuid)
            guard let owner = owner ?? characteristic(containing: handle)?.uuid else { return descriptor }
            return "\(names.characteristic(owner)) - \(descriptor)"
        }
    }
}

/// Every GATT database of the capture. Databases are kept by device address, so they outlive
/// their links and are never reported as left open.
public struct GATTState: ProtocolState {
    public static var slot: Int { StateSlot.gatt.rawValue }

    public internal(set) var databases: [GATTServerKey: GATTDatabase] = [:]

    public init() {}

    public mutating func close(_ link: Session.LinkKey) -> [String] { [] }
    public mutating func finish() -> [SessionReport] { [] }

    /// How the server behind `key` names `handle` (nil: no database, or the handle is unknown).
    mutating func naming(of handle: UInt16, on key: GATTServerKey, names: UUIDNames) -> GATTDatabase.HandleNaming? {
        guard let index = databases.index(forKey: key) else { return nil }
        return databases.values[index].naming(of: handle, names: names)
    }

    /// Keeps the last value seen for a known handle (the gatt command shows it).
    mutating func recordValue(_ handle: UInt16, _ value: ArraySlice<UInt8>, on key: GATTServerKey) {
        guard let index = databases.index(forKey: key) else { return }
        databases.values[index].recordValue(handle, value)
    }

    /// A remote server the capture has not discovered yet starts from its database in `cache`
    /// (BlueZ's, from DecodeOptions.gattCache).
    mutating func seed(_ key: GATTServerKey, from cache: [BDAddr: GATTDatabase]) {
        guard key.isRemote, case .address(let address) = key.device, databases[key] == nil,
              let known = cache[address] else { return }
        databases[key] = known
    }
}

extension Session {
    public var gatt: GATTState { _read { yield self[GATTState.self] } _modify { yield &self[GATTState.self] } }
}

/// Characteristic properties by name.
public enum GATTNames {
    /// Bit 0 first.
    static let propertyBits = [
        "Broadcast", "Read", "Write Without Response", "Write", "Notify", "Indicate", "Authenticated Signed Writes", "Extended Properties",
    ]
    /// Every value's text, made once: discovery names properties in every declaration it finds,
    /// and a device that is discovered again on each connection finds them all again.
    private static let propertyTexts: [String] = (0 ... 255).map { value in
        propertyBits.indices.filter { value & (1 << $0) != 0 }.map { propertyBits[$0] }.joined(separator: ", ")
    }

    /// "Read, Write, Notify": characteristic properties (Core Vol 3, Part G, 3.3.1.1).
    public static func properties(_ value: UInt8) -> String {
        propertyTexts[Int(value)]
    }
}
