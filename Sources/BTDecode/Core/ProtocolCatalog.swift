import BTCapture

/// How a protocol carried on an L2CAP channel is handed its payload: the cursor over the SDU,
/// the packet being built, the session, and where the payload travels.
public typealias ChannelDecoder = (inout ByteCursor, inout Packet, inout Session, L2CAPContext) throws -> Void

/// A protocol as it describes itself, once: its name, the fields it emits, the state it keeps
/// across packets, and where it plugs in. `ProtocolCatalog.all` lists every descriptor; the
/// field registry, `btlog fields`, the Session's state and close/finish hooks, and the
/// dissector tables are all built by walking that list.
public struct ProtocolDescriptor {
    /// How people name it ("ATT", "L2CAP").
    public let name: String
    /// Every field its decoder emits (a test checks it: FieldRegistryTests). Made when the
    /// registry is first asked, not when decoding starts: HCI's come from parsing its layouts.
    public var fields: [FieldDefinition] { makeFields() }
    private let makeFields: () -> [FieldDefinition]
    /// Its state across packets, with link-close and end-of-capture hooks; nil for none.
    let state: (any ProtocolState.Type)?
    /// What selects it: the keys under which the dissector tables find its decoders.
    let registrations: [Registration]
    /// The names its coded fields' values take (opcodes, error codes), from its own tables:
    /// what the filter language accepts for them (`FieldValueNames`).
    let valueNames: () -> [(FieldDefinition, [ValueName])]
    /// The layers its decoder makes (ATT's "ATT"; HCI's "HCI Command" and "HCI Event").
    public let layers: [LayerKind]
    /// What `--redact` zeroes: its fields that are keys, or values from which keys are derived
    /// or pairing is broken (SMP's confirm and random values, HCI's link keys).
    public let secrets: [String]
    /// What `--redact-values` zeroes besides: what devices say to each other above the link.
    public let values: [String]
    /// How its exchanges are followed step by step (`btlog diff`); nil: it has no operations.
    public let conversation: ConversationDescription?

    init(name: String, fields: @autoclosure @escaping () -> [FieldDefinition], layers: [LayerKind] = [], state: (any ProtocolState.Type)? = nil,
         registrations: [Registration] = [], valueNames: @autoclosure @escaping () -> [(FieldDefinition, [ValueName])] = [],
         secrets: [String] = [], values: [String] = [], conversation: ConversationDescription? = nil) {
        self.name = name
        self.conversation = conversation
        self.layers = layers
        self.secrets = secrets
        self.values = values
        makeFields = fields
        self.state = state
        self.registrations = registrations
        self.valueNames = valueNames
    }
}

/// One key a protocol is found by, in the spirit of Wireshark's dissector tables. Later
/// protocols add the keys that select them (RFCOMM server channel, AVCTP PID, LE link-layer
/// PDU type) as a case here and a table in `DissectorTables`.
enum Registration {
    /// A fixed L2CAP channel (Core Vol 3, Part A, 2.1), with its name: 0x0004 ATT, 0x0006 SMP...
    case fixedChannel(UInt16, String, ChannelDecoder)
    /// A dynamic channel opened for this PSM, with the PSM's name (Assigned Numbers).
    case psm(UInt16, String, ChannelDecoder)
    /// A characteristic or descriptor value of this type (16- or 128-bit UUID), described in a line.
    case gattValue(BTUUID, GATTValueDescriber)
    /// Manufacturer-specific advertising data of this company, described in a line.
    case manufacturerData(UInt16, ManufacturerDataDescriber)
    /// Data on an RFCOMM server channel whose SDP record lists this service class (0x111E Handsfree...).
    case rfcommService(UInt16, RFCOMMServiceDecoder)
    /// A message AVCTP carries for this profile (its PID, a service class: 0x110E A/V Remote Control).
    case avctpProfile(UInt16, AVCTPProfileDecoder)
    /// A characteristic's value (read, written, notified or indicated) once GATT discovery has
    /// shown which characteristic the handle is: a profile above GATT, as its own layer (ANCS).
    case gattCharacteristic(BTUUID, GATTCharacteristicDecoder)
}

/// What ATT hands a profile decoding one characteristic's value.
public struct GATTValueContext {
    public var l2cap: L2CAPContext
    /// The ATT opcode carrying the value: 0x0B Read Response, 0x12/0x52 writes, 0x1B
    /// notification, 0x1D indication; 0x01 for an Error Response about the characteristic,
    /// whose value is then the one-byte error code.
    public var opcode: UInt8
    public var handle: UInt16
    public var characteristic: BTUUID
}

/// How a profile above GATT is handed a characteristic's value.
typealias GATTCharacteristicDecoder = (inout ByteCursor, inout Packet, inout Session, GATTValueContext) throws -> Void

/// A value ATT found for a profile: decoded once the ATT layer is done, as the layer above it.
struct GATTHandoff {
    var decode: GATTCharacteristicDecoder
    var value: ByteCursor
    var context: GATTValueContext
}

/// How a profile carried by AVCTP is handed a message (joined, when it came in fragments).
typealias AVCTPProfileDecoder = (inout ByteCursor, inout Packet, inout Session, AVCTPContext) throws -> Void

/// How a protocol carried on an RFCOMM server channel is handed a UIH frame's information.
typealias RFCOMMServiceDecoder = (inout ByteCursor, inout Packet, inout Session, RFCOMMContext) throws -> Void

/// A value's decoded meaning in one line; nil when the bytes do not fit the type's layout.
typealias GATTValueDescriber = (ArraySlice<UInt8>) -> String?
/// Manufacturer data after the company identifier, as fields on the layer and (when the layer
/// keeps display text) a line; nil when it is not a format this knows. It reads its bytes and
/// nothing else (no session, no state): `AdvertisingDataMemo` repeats what it made for the same
/// bytes instead of calling it again.
typealias ManufacturerDataDescriber = (ArraySlice<UInt8>, inout Layer) -> String?

/// Every protocol btlog decodes, in the order `btlog fields` lists them. Adding a protocol is
/// a folder with its decoder, fields and descriptor, and one line here.
public enum ProtocolCatalog {
    public static let all: [ProtocolDescriptor] = [
        FrameFields.descriptor,
        MergeFields.descriptor,
        IdentityFields.descriptor,
        HCIProtocol.descriptor,
        AndroidHCI.descriptor,
        BluetoothQualityReport.descriptor,
        BroadcomHCI.descriptor,
        IntelHCI.descriptor,
        RealtekHCI.descriptor,
        QualcommHCI.descriptor,
        BTstack.descriptor,
        AdvertisingData.descriptor,
        AppleAdvertising.descriptor,
        SnifferHeaders.nordicDescriptor,
        SnifferHeaders.radioDescriptor,
        SnifferHeaders.ppiDescriptor,
        LinkLayerDecoder.descriptor,
        BasebandDecoder.descriptor,
        DataDecoder.descriptor,
        L2CAPDecoder.descriptor,
        ATTDecoder.descriptor,
        GATTValues.descriptor,
        SMPDecoder.descriptor,
        SDPDecoder.descriptor,
        RFCOMMDecoder.descriptor,
        AVDTPDecoder.descriptor,
        AVCTPDecoder.descriptor,
        AVRCPDecoder.descriptor,
        HFPDecoder.descriptor,
        HIDDecoder.descriptor,
        BNEPDecoder.descriptor,
        PACSDecoder.descriptor,
        ASCSDecoder.descriptor,
        BASSDecoder.descriptor,
        VCSDecoder.descriptor,
        VOCSDecoder.descriptor,
        AICSDecoder.descriptor,
        MCSDecoder.descriptor,
        TBSDecoder.descriptor,
        CSISDecoder.descriptor,
        ANCSDecoder.descriptor,
        AMSDecoder.descriptor,
        SystemDecoder.descriptor,
    ]

    /// The protocols with a layer of their own, by the name filters and `--payload` use: a
    /// filter's bare `att` tests for its layer; another protocol's name (gatt, adv) for its fields.
    public static let layerProtocols: Set<String> = {
        let kinds = all.flatMap(\.layers)
        precondition(Set(kinds.map(\.name)).count == kinds.count, "two protocols declare a layer of the same name")
        return Set(kinds.compactMap(\.protocolName))
    }()

    /// The fields `--redact` zeroes, by name, and those `--redact-values` adds.
    public static let secretFields = Set(all.flatMap(\.secrets))
    public static let valueFields = Set(all.flatMap(\.values))

    /// The state types, in catalog order, then the described protocols' (their text streams'
    /// unfinished lines: one state for every protocol a file describes): a state's slot is its
    /// index here.
    static let stateTypes: [any ProtocolState.Type] = {
        let types = all.compactMap(\.state) + [DescribedState.self]
        precondition(types.count == StateSlot.allCases.count, "a protocol state without its StateSlot, or one declared twice")
        for (index, type) in types.enumerated() {
            precondition(type.slot == index, "\(type)'s StateSlot is not its place in ProtocolCatalog.all")
        }
        return types
    }()
}

/// Each protocol state's slot, its index among the Session's states, written out in the
/// order of `ProtocolCatalog.all` (checked when the states are first made). A constant, where
/// a slot computed at run time was a one-time initialisation check each time a decoder read a
/// state (`swift_once`, ten times a packet of ATT).
enum StateSlot: Int, CaseIterable {
    case vendor, linkLayer, baseband, synchronousLinks, l2cap, att, gatt, smp, sdp, rfcomm, avdtp, avctp, hfp, hid, ancs, described
}

/// The characteristics profiles above GATT decode (ANCS, AMS...), in a stable order: what the
/// fuzzer declares in its GATT database.
public enum GATTProfiles {
    public static let characteristics: [BTUUID] = DissectorTables.gattCharacteristics.keys.sorted { $0.description < $1.description }
}

/// Decoders by the keys that select them, built once from the catalog's registrations.
enum DissectorTables {
    /// Indexed by CID (fixed channels are 0x0001-0x003F): no hashing on every ACL packet.
    static let fixedChannels: [ChannelDecoder?] = {
        let byCID: [UInt16: ChannelDecoder] = table { if case .fixedChannel(let cid, _, let decode) = $0 { return (cid, decode) } else { return nil } }
        precondition(byCID.keys.allSatisfy { $0 < 0x0040 }, "a fixed channel's CID is below 0x0040")
        return (0 ..< 0x0040).map { byCID[UInt16($0)] }
    }()
    static let psmTable: [UInt16: ChannelDecoder] = table { if case .psm(let psm, _, let decode) = $0 { return (psm, decode) } else { return nil } }
    static let psmNames: [UInt16: String] = table { if case .psm(let psm, let name, _) = $0 { return (psm, name) } else { return nil } }
    static let fixedChannelNames: [UInt16: String] = table { if case .fixedChannel(let cid, let name, _) = $0 { return (cid, name) } else { return nil } }
    /// Indexed by PSM (the assigned ones, which decoders register, are below 0x0100): no hashing
    /// on every packet of a dynamic channel.
    static let psms: [ChannelDecoder?] = {
        precondition(psmTable.keys.allSatisfy { $0 < 0x0100 }, "a registered PSM is an assigned one, below 0x0100")
        return (0 ..< 0x0100).map { psmTable[UInt16($0)] }
    }()
    @inline(__always) static func psm(_ psm: UInt16) -> ChannelDecoder? { psm < 0x0100 ? psms[Int(psm)] : nil }
    static let gattValues: [BTUUID: GATTValueDescriber] = table { if case .gattValue(let uuid, let describe) = $0 { return (uuid, describe) } else { return nil } }
    /// The same describers in a list, and each type's place in it: what a handle's naming keeps
    /// (a place is Sendable, a closure is not) to describe its values without a lookup per value.
    static let gattValueList: [GATTValueDescriber] = gattValues.map(\.value)
    static let gattValuePlaces: [BTUUID: Int] = Dictionary(uniqueKeysWithValues: gattValues.keys.enumerated().map { ($1, $0) })
    static let manufacturerData: [UInt16: ManufacturerDataDescriber] = table {
        if case .manufacturerData(let company, let describe) = $0 { return (company, describe) } else { return nil }
    }
    static let rfcommServices: [UInt16: RFCOMMServiceDecoder] = table {
        if case .rfcommService(let serviceClass, let decode) = $0 { return (serviceClass, decode) } else { return nil }
    }
    static let avctpProfiles: [UInt16: AVCTPProfileDecoder] = table {
        if case .avctpProfile(let pid, let decode) = $0 { return (pid, decode) } else { return nil }
    }
    static let gattCharacteristics: [BTUUID: GATTCharacteristicDecoder] = table {
        if case .gattCharacteristic(let uuid, let decode) = $0 { return (uuid, decode) } else { return nil }
    }

    /// One table from every registration of one kind; a key registered twice is a programming error.
    private static func table<Key: Hashable, Value>(_ pick: (Registration) -> (Key, Value)?) -> [Key: Value] {
        var table: [Key: Value] = [:]
        for descriptor in ProtocolCatalog.all {
            for registration in descriptor.registrations {
                guard let (key, value) = pick(registration) else { continue }
                precondition(table[key] == nil, "\(descriptor.name) registers \(key), which another protocol has")
                table[key] = value
            }
        }
        return table
    }
}
