import BTCapture
import BTDecode

/// What every stage is told besides the packet: facts about the run, not the packet.
public struct StageContext {
    /// Timestamp of the first frame read (what `reltime` counts from).
    public var captureStart: Int64 = 0

    public init(captureStart: Int64 = 0) { self.captureStart = captureStart }
}

/// A compiled filter expression: a tree of closures over field ids, built once, asked once
/// per packet. No name is looked up and no text is made while packets flow; a test on a
/// field reads the values the decoder stored.
public struct PacketFilter {
    public let expression: String
    let predicate: (Packet, StageContext) -> Bool
    /// Whether the expression reads comments or flags (the annotation stage must run first).
    public let readsAnnotations: Bool
    /// The fields it reads: the decoder keeps them (and what the view reads), no other.
    public let fieldsRead: FieldMask
    /// Whether a packet decoded from a frame of this kind can match, known before decoding:
    /// false when none of the fields that could make it match can be in such a frame
    /// (`ProtocolPlacement`). nil: the filter cannot tell.
    public let foresight: ((FrameKind) -> Bool)?

    /// Compiles an expression, or throws a `FilterError` pointing at what is wrong.
    public init(_ expression: String) throws {
        self.expression = expression
        let syntax = try FilterParser.parse(expression)
        var compiler = FilterCompiler(expression: expression)
        predicate = try compiler.compile(syntax)
        readsAnnotations = compiler.readsAnnotations
        fieldsRead = .only(compiler.fieldsRead)
        foresight = FilterForesight.make(syntax, protocols: compiler.testProtocols)
    }

    /// A filter from a predicate already built (quick filters), reading the fields given
    /// (all unless said).
    init(expression: String, readsAnnotations: Bool = false, fieldsRead: FieldMask = .all, foresight: ((FrameKind) -> Bool)? = nil,
         predicate: @escaping (Packet, StageContext) -> Bool) {
        self.expression = expression
        self.predicate = predicate
        self.foresight = foresight
        self.readsAnnotations = readsAnnotations
        self.fieldsRead = fieldsRead
    }

    public func matches(_ packet: Packet, context: StageContext = StageContext()) -> Bool { predicate(packet, context) }

    /// False when no packet decoded from a frame of this kind can match.
    public func mayMatch(_ kind: FrameKind) -> Bool { foresight?(kind) ?? true }

    /// Both filters.
    public static func && (a: PacketFilter, b: PacketFilter) -> PacketFilter {
        let (p, q) = (a.predicate, b.predicate)
        return PacketFilter(expression: "(\(a.expression)) and (\(b.expression))", readsAnnotations: a.readsAnnotations || b.readsAnnotations,
                            fieldsRead: a.fieldsRead.union(b.fieldsRead), foresight: FilterForesight.all([a.foresight, b.foresight])) {
            p($0, $1) && q($0, $1)
        }
    }

    /// The names a filter may start a test with besides fields and protocols: properties of
    /// the packet as a whole.
    public static let packetTerms = ["error", "warning", "flagged", "comment", "direction", "handle", "address",
                                     "controller", "time", "reltime", "number"]
}

/// The filter as a link of the packet chain: drops what it does not match.
public struct FilterStage: PacketStage {
    public let filter: PacketFilter

    public init(_ filter: PacketFilter) { self.filter = filter }

    public var fieldsRead: FieldMask { filter.fieldsRead }
    public var foresight: ((FrameKind) -> Bool)? { filter.foresight }

    public mutating func process(_ packet: inout Packet, context: StageContext) -> StageVerdict {
        filter.matches(packet, context: context) ? .keep : .drop
    }
}
