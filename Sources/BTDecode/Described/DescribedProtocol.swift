import BTCapture

/// A protocol a user described in a file (`btlog-protocol: 1`, read by BTDescribe): what
/// selects it, its messages' layouts, and the fields they make. Compiled once when the file is
/// read: every field a definition (`<key>.<message>.<field>`), every reference to an earlier
/// value a slot number, every message a reference; decoding walks that, it parses nothing.
public final class DescribedProtocol: Sendable {
    /// How the layer and summaries name it ("RevCar").
    public let name: String
    /// Its fields' prefix and the filter word for its layer ("revcar").
    public let key: String
    /// Where it was read from (a file), for `btlog protocols` and errors naming both claimants.
    public let source: String
    public let summary: String
    public let layerKind: LayerKind
    /// Every field its messages make, in the order the file declares them.
    public let fields: [FieldDefinition]
    /// Named values of its coded fields (enumerations), for filters and `btlog fields --values`.
    public let valueNames: [(FieldDefinition, [ValueName])]
    public let messages: [DescribedMessage]
    public let selectors: [DescribedSelector]
    /// Names the run gives UUIDs (its characteristics' and services'), as `--uuids` does.
    public let uuidNames: [(BTUUID, String)]
    /// Names of the vendor HCI commands it describes (OGF 0x3F), for the command, its Command
    /// Complete and Command Status, with where the file gives each.
    public let commandNames: [DescribedCommandName]
    /// How many values a decode keeps for later elements to refer to (counts, conditions).
    let slotCount: Int
    /// The file's decode-as rules as written, with where: parsed once every file is loaded,
    /// as a rule may name a protocol of another file (`DecodeAsRule.parse`).
    public let decodeAs: [(rule: String, location: String)]
    /// The unit of each field that has one, by field name ("°C"): what `btlog plot` groups axes by.
    public let units: [String: String]
    /// Its GATT values are decoded into the ATT layer that carries them, their summary after
    /// the characteristic's name, as btlog's own text for a standard characteristic reads
    /// ("Heart Rate Measurement - 72 bpm"), rather than in a layer of their own.
    public let isInline: Bool
    /// Shipped with btlog (the SIG's characteristics), not read from a user's file: a user's
    /// description of the same thing replaces it.
    public let isShipped: Bool
    /// Its fields that are amounts (decimal numbers without value names: a rate, a level, a
    /// speed), not codes or flags: what `btlog stats` summarises.
    public let quantities: [FieldDefinition]

    public init(name: String, key: String, source: String, summary: String, fields: [FieldDefinition],
                valueNames: [(FieldDefinition, [ValueName])], messages: [DescribedMessage], selectors: [DescribedSelector],
                uuidNames: [(BTUUID, String)], slotCount: Int, decodeAs: [(rule: String, location: String)] = [], units: [String: String] = [:],
                isInline: Bool = false, isShipped: Bool = false, quantities: [FieldDefinition] = [], commandNames: [DescribedCommandName] = []) {
        self.quantities = quantities
        self.commandNames = commandNames
        self.decodeAs = decodeAs
        self.isInline = isInline
        self.isShipped = isShipped
        self.units = units
        self.name = name
        self.key = key
        self.source = source
        self.summary = summary
        self.fields = fields
        self.valueNames = valueNames
        self.messages = messages
        self.selectors = selectors
        self.uuidNames = uuidNames
        self.slotCount = slotCount
        layerKind = DescribedDefinitions.layerKind(name, protocol: key)
    }

    // Messages refer to each other (a switch may select its own message): the protocol that
    // owns them breaks those cycles when it goes.
    deinit {
        for message in messages { message.unlink() }
    }
}

/// What hands a described protocol its bytes, and the message its layout starts from.
public struct DescribedSelector: Sendable {
    public enum Key: Hashable, Sendable, CustomStringConvertible {
        /// A GATT characteristic's value: reads, writes, notifications, indications.
        case characteristic(BTUUID)
        /// Manufacturer-specific advertising data of a company whose data starts with `prefix`.
        case manufacturer(company: UInt16, prefix: [UInt8])
        /// Service data (16-, 32- or 128-bit UUID) in advertising data.
        case serviceData(BTUUID)
        /// A BR/EDR dynamic channel opened for this PSM.
        case psm(UInt16)
        /// An LE credit-based channel opened for this SPSM.
        case spsm(UInt16)
        /// An RFCOMM server channel, by number.
        case rfcommChannel(UInt8)
        /// An RFCOMM server channel whose SDP record has this service name.
        case serviceName(String)
        /// A vendor HCI command's parameters (OGF 0x3F).
        case hciCommand(UInt16)
        /// A vendor HCI command's return parameters, after the status of a successful Command Complete.
        case hciReturn(UInt16)
        /// The vendor HCI event (0xFF) whose parameters start with `prefix`.
        case vendorEvent(prefix: [UInt8])

        /// The first bytes that select it among others of its kind (manufacturer data, vendor events).
        var prefix: [UInt8]? {
            switch self {
            case .manufacturer(_, let prefix), .vendorEvent(let prefix): return prefix
            default: return nil
            }
        }

        public var description: String {
            switch self {
            case .characteristic(let uuid): return "characteristic \(uuid)"
            case .manufacturer(let company, let prefix):
                return "manufacturer data of company \(Hex.u16(company))" + (prefix.isEmpty ? "" : " starting \(Hex.bytes(prefix[...]))")
            case .serviceData(let uuid): return "service data \(uuid)"
            case .psm(let psm): return "PSM \(Hex.u16(psm))"
            case .spsm(let spsm): return "SPSM \(Hex.u16(spsm))"
            case .rfcommChannel(let channel): return "RFCOMM channel \(channel)"
            case .serviceName(let name): return "SDP service name \"\(name)\""
            case .hciCommand(let opcode): return "HCI command \(Hex.u16(opcode))"
            case .hciReturn(let opcode): return "HCI command \(Hex.u16(opcode))'s return parameters"
            case .vendorEvent(let prefix): return "HCI vendor event" + (prefix.isEmpty ? "" : " starting \(Hex.bytes(prefix[...]))")
            }
        }
    }

    public let key: Key
    public let message: DescribedMessage
    /// Where the file says it ("revcar.yaml:7:5"), for a conflict's error.
    public let location: String

    public init(key: Key, message: DescribedMessage, location: String) {
        self.key = key
        self.message = message
        self.location = location
    }
}

/// A vendor HCI command a description names: what the command, its Command Complete and its
/// Command Status call it.
public struct DescribedCommandName: Sendable {
    public let opcode: UInt16
    public let name: String
    /// Where the file says it ("coex.yaml:7:5"), for a conflict's error.
    public let location: String

    public init(opcode: UInt16, name: String, location: String) {
        self.opcode = opcode
        self.name = name
        self.location = location
    }
}

/// One layout with a name: `revcar.drive`'s fields, its title, what its summary lists, and a
/// checksum over its bytes. Elements may select another message (a switch), so messages are
/// references, filled in once every message of the file is known.
public final class DescribedMessage: @unchecked Sendable { // written only while its file is compiled
    /// "drive", as the file names it: its fields' middle word.
    public let id: String
    /// "Drive": what the summary calls it after the protocol's name.
    public let title: String
    public internal(set) var elements: [DescribedElement] = []
    /// The fields the summary lists (" - speed 40 - turn left"); by default every value read at
    /// the message's top level.
    public internal(set) var summaryFields: [FieldDefinition] = []
    /// How the summary reads: items joined by " - ", each a field with its label or a
    /// template ("{heart_rate} bpm").
    public internal(set) var summaryItems: [DescribedSummaryItem] = []
    /// A checksum in the message's last bytes, over the bytes before it.
    public internal(set) var checksum: DescribedChecksum?

    public init(id: String, title: String) {
        self.id = id
        self.title = title
    }

    /// Lets go of the messages its elements select (see DescribedProtocol's deinit, and a
    /// description that failed to compile).
    public func unlink() {
        elements = []
        checksum = nil
    }

    /// `summaryItems` nil: each of `summaryFields` with its label.
    public func define(elements: [DescribedElement], summaryFields: [FieldDefinition], summaryItems: [DescribedSummaryItem]? = nil,
                       checksum: DescribedChecksum?) {
        self.elements = elements
        self.summaryFields = summaryFields
        self.summaryItems = summaryItems ?? summaryFields.map { DescribedSummaryItem(parts: [.labelled($0)], condition: nil) }
        self.checksum = checksum
    }
}

/// One part of a message's summary: a field's label and value ("speed 40"), or text with
/// values in it ("RR: {rr} s"), shown when every value it names was read and its condition
/// (if any) holds.
public struct DescribedSummaryItem: Sendable {
    public enum Part: Sendable {
        case text(String)
        /// The value's text without its unit; a repeated value's joined by ", ".
        case value(FieldDefinition)
        /// The label, the values and the unit ("heart rate 72 bpm").
        case labelled(FieldDefinition)
    }

    public let parts: [Part]
    public let condition: DescribedCondition?

    public init(parts: [Part], condition: DescribedCondition?) {
        self.parts = parts
        self.condition = condition
    }

    /// The fields it shows.
    public var fields: [FieldDefinition] {
        parts.compactMap {
            switch $0 {
            case .text: return nil
            case .value(let field), .labelled(let field): return field
            }
        }
    }
}

/// One step of a layout.
public indirect enum DescribedElement: Sendable {
    /// A value read and added as a field, repeated when `count` says so.
    case value(DescribedValue)
    /// Elements read only when an earlier value satisfies the condition (Heart Rate
    /// Measurement's energy expended, present when bit 3 of its flags is set).
    case optional(DescribedCondition, [DescribedElement])
    /// A group of elements repeated `count` times (or to the end), each time all of them.
    case repeated(DescribedCount, [DescribedElement])
    /// The message the rest of the bytes are, chosen by an earlier value.
    case select(slot: Int, cases: [UInt64: DescribedMessage], otherwise: DescribedMessage?)
    /// Type-length-value items to the end: each item's value decoded by its type's message,
    /// bytes when the type has none.
    case tlv(DescribedTLV)
    /// The rest as lines of text, each matched by rules whose named groups are fields.
    case text(DescribedText)
}

/// What a value is read as.
public enum DescribedScalar: Sendable, Equatable {
    case unsigned(bytes: Int, ByteOrder)
    case signed(bytes: Int, ByteOrder)
    /// IEEE-754 binary32 or binary64.
    case float(bytes: Int, ByteOrder)
    /// IEEE-11073 16-bit SFLOAT (4-bit exponent, 12-bit mantissa) and 32-bit FLOAT (8-bit
    /// exponent, 24-bit mantissa), as health devices' characteristics send them.
    case sfloat(ByteOrder)
    case medfloat(ByteOrder)
    /// The GATT Date Time layout (year u16, month, day, hours, minutes, seconds): a text
    /// value, "2022-11-28 10:30:00".
    case dateTime
    case bytes(DescribedLength)
    case string(DescribedLength)

    /// Whether its value can be referred to by later elements (counts, conditions, switches).
    public var isInteger: Bool {
        switch self {
        case .unsigned, .signed: return true
        default: return false
        }
    }
}

/// How long a byte string or a string is.
public enum DescribedLength: Sendable, Equatable {
    case fixed(Int)
    /// As an earlier value says.
    case slot(Int)
    /// To the end of the message (before its checksum).
    case rest
    /// Up to and including a NUL byte (or the end).
    case nulTerminated
}

/// How many times a value or group repeats.
public enum DescribedCount: Sendable, Equatable {
    case fixed(Int)
    case slot(Int)
    case rest
}

/// A named bit field of an integer: `(raw & mask) >> shift`.
public struct DescribedBits: Sendable {
    public let field: FieldDefinition
    public let mask: UInt64
    public let names: [UInt64: String]
    /// Where later elements find its value, or nil.
    public let slot: Int?

    public init(field: FieldDefinition, mask: UInt64, names: [UInt64: String], slot: Int?) {
        self.field = field
        self.mask = mask
        self.names = names
        self.slot = slot
    }
}

/// A value of a layout: what it is read as, and how a person and a filter see it.
public struct DescribedValue: Sendable {
    public let field: FieldDefinition
    public let scalar: DescribedScalar
    /// nil: once.
    public let count: DescribedCount?
    /// Value names (an enumeration).
    public let names: [UInt64: String]
    public let bits: [DescribedBits]
    /// `raw × scale + offset`, in `unit`; nil scale and offset: the raw value.
    public let scale: Double?
    public let offset: Double?
    public let unit: String?
    /// Integers shown in hex (codes, flags) rather than decimal (amounts).
    public let hex: Bool
    /// Where later elements find its value, or nil when none refers to it.
    public let slot: Int?
    /// Digits after the point in a real value's text (nil: as many as it takes).
    public let decimals: Int?

    public init(field: FieldDefinition, scalar: DescribedScalar, count: DescribedCount?, names: [UInt64: String], bits: [DescribedBits],
                scale: Double?, offset: Double?, unit: String?, hex: Bool, slot: Int?, decimals: Int? = nil) {
        self.decimals = decimals
        self.field = field
        self.scalar = scalar
        self.count = count
        self.names = names
        self.bits = bits
        self.scale = scale
        self.offset = offset
        self.unit = unit
        self.hex = hex
        self.slot = slot
    }
}

/// When an optional part is present: an earlier value, masked, compared.
public struct DescribedCondition: Sendable {
    public enum Test: Sendable, Equatable {
        case nonzero
        case anyBits(UInt64)
        case equal(UInt64), notEqual(UInt64), less(UInt64), lessEqual(UInt64), greater(UInt64), greaterEqual(UInt64)
        /// The value's masked bits compared: `flags & 0x01 == 0`.
        indirect case masked(UInt64, Test)
    }

    public let slot: Int
    public let test: Test

    public init(slot: Int, test: Test) {
        self.slot = slot
        self.test = test
    }

    func holds(_ value: UInt64) -> Bool { Self.holds(test, value) }

    static func holds(_ test: Test, _ value: UInt64) -> Bool {
        switch test {
        case .masked(let mask, let inner): return holds(inner, value & mask)
        case .nonzero: return value != 0
        case .anyBits(let mask): return value & mask != 0
        case .equal(let v): return value == v
        case .notEqual(let v): return value != v
        case .less(let v): return value < v
        case .lessEqual(let v): return value <= v
        case .greater(let v): return value > v
        case .greaterEqual(let v): return value >= v
        }
    }
}

/// Type-length-value items: the sizes of the type and length, what the length counts, and the
/// message each type's value is.
public struct DescribedTLV: Sendable {
    public let typeField: FieldDefinition
    public let lengthField: FieldDefinition
    public let valueField: FieldDefinition
    public let typeBytes: Int
    public let lengthBytes: Int
    public let order: ByteOrder
    /// The length counts the type and length too, not the value alone.
    public let lengthIncludesHeader: Bool
    public let names: [UInt64: String]
    public let cases: [UInt64: DescribedMessage]

    public init(typeField: FieldDefinition, lengthField: FieldDefinition, valueField: FieldDefinition, typeBytes: Int, lengthBytes: Int,
                order: ByteOrder, lengthIncludesHeader: Bool, names: [UInt64: String], cases: [UInt64: DescribedMessage]) {
        self.typeField = typeField
        self.lengthField = lengthField
        self.valueField = valueField
        self.typeBytes = typeBytes
        self.lengthBytes = lengthBytes
        self.order = order
        self.lengthIncludesHeader = lengthIncludesHeader
        self.names = names
        self.cases = cases
    }
}

extension DescribedProtocol {
    /// `bytes` as `message` (by default the first a selector names), alone in a packet: what
    /// the tests and the fuzz targets hold the layouts to without a capture around them.
    public func decode(_ bytes: [UInt8], message: DescribedMessage? = nil, buildsDisplayText: Bool = true) -> Packet {
        var packet = Packet(frame: Frame(timestamp: 0, kind: .aclData, direction: .sent, bytes: bytes), buildsDisplayText: buildsDisplayText)
        var c = ByteCursor(packet.frame.bytes)
        var pending: [UInt8] = []
        DescribedDecoder.decode(self, message ?? selectors.first?.message ?? messages[0], &c, into: &packet, pendingLine: &pending)
        return packet
    }

    /// A message's title after the protocol's name ("RevCar Drive"), once only when the
    /// title already starts with it ("Heart Rate Measurement").
    public func heading(_ title: String) -> String { Self.heading(name, title) }

    public static func heading(_ name: String, _ title: String) -> String {
        title.hasPrefix(name) ? title : "\(name) \(title)"
    }

    /// A message by its id.
    public func message(_ id: String) -> DescribedMessage? { messages.first { $0.id == id } }
}
