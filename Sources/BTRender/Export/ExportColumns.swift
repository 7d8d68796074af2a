import BTCapture
import BTDecode

/// The members of an exported packet object (JSON, CSV columns), beside the registry's
/// fields. Schema: docs/packet.schema.json; the man page's EXPORT section says what each holds.
public enum PacketMember: String, CaseIterable, Sendable {
    /// The capture file the packet came from (only when several are exported together).
    case file
    case number
    /// RFC 3339, UTC, microseconds.
    case time
    case timestampMicroseconds = "timestamp_us"
    /// sent, received, or null.
    case direction
    /// PacketLogger's Type column ("ATT Send"), as frame.type.
    case type
    /// The capture record's kind: command, event, acl, sco, iso, note...
    case kind
    case controller
    case handle
    case address
    case summary
    case issues
    case comment
    case flagged
    /// The packet's length on the air (more than `bytes` holds when the capture cut it short).
    case length
    /// The captured bytes, as hex.
    case bytes
}

/// One column of `--fields` (CSV and flat JSON): a packet member, a registry field, or a coded
/// field's value name (`att.opcode.name`).
public enum ExportColumn: Equatable, Sendable {
    case member(PacketMember)
    case field(FieldDefinition)
    case valueName(FieldDefinition)

    public var name: String {
        switch self {
        case .member(let member): return member.rawValue
        case .field(let field): return field.name
        case .valueName(let field): return field.name + ".name"
        }
    }

    /// False for a column whose text is made only of digits, hex, RFC 3339 time and fixed
    /// words (numbers, times, direction, kind, handle, address, bytes): CSV never quotes it, so
    /// need not scan it.
    public var mayNeedQuotes: Bool {
        switch self {
        case .member(let member):
            switch member {
            case .number, .time, .timestampMicroseconds, .direction, .kind, .controller, .handle, .address,
                 .flagged, .length, .bytes: return false
            case .file, .type, .summary, .issues, .comment: return true
            }
        case .field, .valueName: return true
        }
    }

    /// The fields these columns read (packet members read none: they are the packet's own
    /// properties, its top summary and its issues), and summaries if a column is the summary.
    public static func fieldsRead(_ columns: [ExportColumn]) -> FieldMask {
        .only(columns.compactMap { column -> FieldDefinition? in
            switch column {
            case .member: return nil
            case .field(let field), .valueName(let field): return field
            }
        }, summaries: columns.contains(.member(.summary)))
    }

    /// CSV's columns when `--fields` is not given.
    public static let csvDefault: [ExportColumn] = [.member(.number), .member(.time), .member(.direction), .member(.type),
                                                    .member(.handle), .member(.address), .member(.summary)]

    /// Resolves names: a packet member first (`time` is export's RFC 3339 time), then the
    /// registry (`frame.time`, `att.opcode`), then NAME.name for a field's value names.
    public static func resolve(_ names: [String]) -> (columns: [ExportColumn], unknown: [String]) {
        var columns: [ExportColumn] = [], unknown: [String] = []
        for name in names {
            if let member = PacketMember(rawValue: name) {
                columns.append(.member(member))
            } else if let field = FieldRegistry.lookup(name) {
                columns.append(.field(field))
            } else if name.hasSuffix(".name"), let field = FieldRegistry.lookup(String(name.dropLast(5))) {
                columns.append(.valueName(field))
            } else {
                unknown.append(name)
            }
        }
        return (columns, unknown)
    }
}

/// What export writes for a field beside its value: the name of a coded value, under one
/// convention (`"att.opcode": 18, "att.opcode.name": "Write Request"`).
public enum ExportNames {
    /// The name the decoder gave the value ("Command Complete" shown as "Command Complete
    /// (0x0E)"), else the protocol's table of names, else an assigned UUID's name.
    @inline(__always) public static func name(of field: Field, in bytes: UnsafeBufferPointer<UInt8>) -> String? {
        if field.form == .named, let name = field.writtenDisplay(in: bytes) { return name }
        switch field.inlineValue {
        case .unsigned(let value, let width) where width > 0: return FieldValueNames.name(of: value, for: field.definition)
        case .uuid(let uuid): return UUIDNames.standard.name(uuid)
        default: return nil
        }
    }
}

extension Packet {
    /// The names of a field's values, in the order `forEachValue` gives the values (nil where
    /// one has none): the decoder's own name where it gave one.
    func forEachValueName(of definition: FieldDefinition, _ body: (String?) -> Void) {
        // A frame's property (frame., merge., identity.) is no layer's field.
        if definition.isFrameField { return }
        // Read in place: a copy of each layer and field would retain their arrays and texts.
        layers.withUnsafeBufferPointer { layers in
            for index in layers.indices {
                layers[index].fieldBytes.withUnsafeBufferPointer { bytes in layers[index].fields.withUnsafeBufferPointer { fields in
                    for offset in fields.indices where fields[offset].definition == definition {
                        body(ExportNames.name(of: fields[offset], in: bytes))
                    }
                } }
            }
        }
    }
}
