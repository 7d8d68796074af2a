import BTCapture

/// The decoded tree of one Frame: its layers from the outermost (HCI) to the highest decoded,
/// each with fields, and the issues found on the way.
public struct Packet {
    public let frame: Frame
    public var layers: [Layer] = []
    public var issues: [Issue] = []
    /// Connection handle the packet belongs to, if any.
    public var handle: UInt16?
    /// The remote device the packet concerns (from the connection or the packet itself).
    public var peer: BDAddr?
    /// The L2CAP PDU or SDU this packet completed, when it was reassembled from several
    /// frames: the layers above L2CAP were decoded from it, and their ranges refer to it.
    public var reassembledPDU: ArraySlice<UInt8>?

    public init(frame: Frame) { self.frame = frame }

    /// The highest decoded layer, which names the packet in the one-line view.
    public var top: Layer? { layers.last }

    /// PacketLogger's Type column: the highest layer's name plus the direction for data.
    public var typeLabel: String { typeName + directionSuffix }

    /// The Type column's name part: the highest layer's name.
    public var typeName: String { top?.name ?? "Unknown" }

    /// " Send" or " Receive" after the name of a data layer ("ACL Send"); empty otherwise.
    public var directionSuffix: String {
        guard let top, top.showsDirection else { return "" }
        switch frame.direction {
        case .sent: return " Send"
        case .received: return " Receive"
        case .none: return ""
        }
    }

    public var summary: String { top?.summary ?? "" }

    public var hasError: Bool { issues.contains { $0.severity == .error } }
    public var hasWarning: Bool { issues.contains { $0.severity == .warning } }

    public mutating func addIssue(_ severity: Issue.Severity, _ message: String) {
        issues.append(Issue(severity: severity, message: message, layer: max(0, layers.count - 1)))
    }

    /// Gives the layer at `index` its summary once the layers above it are decoded, if a view
    /// will show it: the table shows only the highest layer's, the tree every layer's. A summary
    /// the layer's own protocol already set is kept.
    mutating func setSummaryIfShown(at index: Int, _ make: () -> String) {
        guard layers[index].summary.isEmpty, Layer.recordsDisplays || layers.count == index + 1 else { return }
        layers[index].summary = make()
    }

    /// For a decoder that holds its layer outside `layers` while it works: the issue belongs
    /// to the layer about to be appended.
    mutating func addIssueOnPendingLayer(_ severity: Issue.Severity, _ message: String) {
        issues.append(Issue(severity: severity, message: message, layer: layers.count))
    }

    /// The first field with this definition, searching from the highest layer down.
    public func field(_ definition: FieldDefinition) -> Field? {
        for layer in layers.reversed() {
            if let field = layer.fields.first(where: { $0.definition == definition }) { return field }
        }
        return nil
    }
}

public struct Layer {
    public var name: String
    public var summary: String
    public var fields: [Field] = []
    /// Byte range in the frame's bytes (offsets from 0).
    public var range: Range<Int>
    /// Data layers say Send/Receive in the Type column ("ACL Send"); HCI commands do not.
    public var showsDirection: Bool
    /// `Layer.recordsDisplays` when the layer was made (read once: it is a global).
    let keepsDisplays: Bool

    public init(name: String, summary: String = "", range: Range<Int>, showsDirection: Bool = false) {
        self.name = name
        self.summary = summary
        self.range = range
        self.showsDirection = showsDirection
        keepsDisplays = Layer.recordsDisplays
        fields.reserveCapacity(8)
    }

    /// Whether fields keep their display text. Only the tree shows it, and building it for
    /// every field of every packet costs more than the rest of decoding together, so a run that
    /// prints no tree turns it off once, before the first packet (the text is then the value's).
    nonisolated(unsafe) public static var recordsDisplays = true

    public mutating func add(_ definition: FieldDefinition, _ value: FieldValue, _ display: @autoclosure () -> String? = nil,
                             at range: Range<Int>? = nil) {
        fields.append(Field(definition: definition, value: value, display: keepsDisplays ? display() : nil, range: range))
    }
}

public struct Field {
    public let definition: FieldDefinition
    public var value: FieldValue
    /// How a person reads it ("LE Set Scan Enable (0x200C)"); nil: the value's own text.
    public var display: String?
    public var range: Range<Int>?

    /// How the tree shows it.
    public var text: String { display ?? value.displayText }
}

public enum FieldValue: Equatable {
    case unsigned(UInt64, width: Int)
    case signed(Int64)
    case bool(Bool)
    case text(String)
    /// Borrowed from the frame: no copy and no text until a sink asks for it.
    case bytes(ArraySlice<UInt8>)
    case address(BDAddr)
    case uuid(BTUUID)

    /// The value in the form `--fields` prints: hex with 0x for integers, AA:BB:.. for addresses.
    public var text: String {
        switch self {
        case .unsigned(let v, let width): return width == 0 ? String(v) : Hex.format(v, width: width)
        case .signed(let v): return String(v)
        case .bool(let v): return v ? "1" : "0"
        case .text(let s): return s
        case .bytes(let b): return Hex.bytes(b, separator: "")
        case .address(let a): return a.description
        case .uuid(let u): return u.description
        }
    }

    /// For a person: bytes as spaced pairs, everything else as `text`.
    public var displayText: String {
        switch self {
        case .text(let s): return s
        case .uuid(let u): return u.labelled
        case .bytes(let b): return Hex.bytes(b)
        case .address(let a): return a.description
        default: return text
        }
    }

    /// Appends `displayText` to a line being built (the tree prints every field this way).
    public func appendDisplayText(to out: inout [UInt8]) {
        switch self {
        case .unsigned(let v, 0): ASCII.appendDecimal(v, to: &out)
        case .unsigned(let v, let width): Hex.append(v, width: width, to: &out)
        case .signed(let v):
            if v < 0 { out.put(UInt8(ascii: "-")) }
            ASCII.appendDecimal(v.magnitude, to: &out)
        case .bool(let v): out.put(v ? UInt8(ascii: "1") : UInt8(ascii: "0"))
        case .text(let s): ASCII.append(s, to: &out)
        case .bytes(let b): Hex.append(bytes: b, to: &out)
        case .address(let a): a.appendText(to: &out)
        case .uuid(let u): ASCII.append(u.labelled, to: &out)
        }
    }

    /// A count or packet number: printed in decimal.
    public static func count(_ v: Int) -> FieldValue { .unsigned(UInt64(max(0, v)), width: 0) }
    public static func u8(_ v: UInt8) -> FieldValue { .unsigned(UInt64(v), width: 2) }
    public static func u16(_ v: UInt16) -> FieldValue { .unsigned(UInt64(v), width: 4) }
    public static func u32(_ v: UInt32) -> FieldValue { .unsigned(UInt64(v), width: 8) }
}

public struct Issue: Equatable {
    public enum Severity: Int, Comparable {
        case note, warning, error
        public static func < (a: Severity, b: Severity) -> Bool { a.rawValue < b.rawValue }
    }
    public var severity: Severity
    public var message: String
    /// Index of the layer the issue belongs to.
    public var layer: Int
}
