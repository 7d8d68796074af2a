/// What following a protocol's exchanges needs from it, as `btlog diff` aligns two runs of one
/// scenario step by step: the field naming each operation, the fields that differ between runs
/// of the same scenario (handles, channel identifiers, transaction labels, nonces and keys,
/// packet numbers and times) and are left out, and the fields compared as a step's value. Part
/// of the protocol's description (`ProtocolDescriptor.conversation`), next to its fields: a
/// protocol described there has its steps compared, with nothing to add elsewhere.
public struct ConversationDescription: Sendable {
    /// How people name the protocol ("ATT").
    public let name: String
    /// Where its conversation comes in a report, before those with a higher rank (ATT's first:
    /// what most captures are about).
    public let rank: Int
    /// The operation's field; the first of them a layer has names the step.
    public let operations: [FieldDefinition]
    /// Added to the operation's name ("Set Configuration" + "Response Accept").
    public let qualifier: FieldDefinition?
    public let ignored: Set<FieldDefinition>
    /// Compared as the step's value (`--ignore values` leaves them out, keeping their length).
    public let values: Set<FieldDefinition>
    /// Which layers are steps: false for operations that are not (credits given, data frames).
    public let isStep: @Sendable (Layer) -> Bool
    /// What a step acts on, when the layer has it (ATT: the characteristic).
    public var target: FieldDefinition?
    /// A request's one type, which names its target when `target` is absent (ATT: the UUID a
    /// Read By Type asks for); in a discovery response, each value is something found.
    public var requestedType: FieldDefinition?
    /// Qualifies the found value that follows it in a discovery response (ATT: a characteristic's properties).
    public var foundQualifier: FieldDefinition?
    /// Operation values that answer a discovery with what it found, not with a target.
    public var discoveryResponses: Set<UInt64> = []

    public init(_ name: String, rank: Int, operations: [FieldDefinition], qualifier: FieldDefinition? = nil, ignored: [FieldDefinition],
                values: [FieldDefinition] = [], isStep: @escaping @Sendable (Layer) -> Bool = { _ in true }) {
        self.name = name
        self.rank = rank
        self.operations = operations
        self.qualifier = qualifier
        self.ignored = Set(ignored)
        self.values = Set(values)
        self.isStep = isStep
    }

    /// Every protocol's, by rank.
    public static let all: [ConversationDescription] = ProtocolCatalog.all.compactMap(\.conversation).sorted { $0.rank < $1.rank }
}
