import BTCapture

/// One capture's conversations, kept compactly: a step's shape (operation, target, parameters)
/// once however often it recurs, and per step its packet, shape, length, value digest and
/// up to 24 bytes of preview: about 40 bytes a step, so the steps kept (at most
/// `perConversation` per conversation, `total` in all) stay a few megabytes whatever the
/// capture holds.
public struct ConversationLog {
    struct Shape: Hashable {
        var operation: String
        var target: String
        var parameters: [String]
        var valueIsText: Bool
    }

    struct Entry {
        var frame: Int
        var digest: UInt64
        var shape: Int32
        var length: Int32
        var previewStart: Int32
        var previewCount: UInt8
        var hasDigest: Bool
    }

    private var shapes: [Shape] = []
    private var shapeIndex: [Shape: Int32] = [:]
    private var previews: [UInt8] = []
    private var entries: [ConversationKey: [Entry]] = [:]
    /// Steps not kept, by conversation.
    public private(set) var notKept: [ConversationKey: Int] = [:]
    public private(set) var kept = 0

    public static let perConversation = 20_000
    public static let total = 200_000

    public init() {}

    /// The conversations the capture had.
    public var keys: [ConversationKey] { Array(entries.keys) }

    /// Whether a step of this conversation would be kept.
    public func accepts(_ key: ConversationKey) -> Bool {
        kept < Self.total && (entries[key]?.count ?? 0) < Self.perConversation
    }

    /// A step of this conversation that is not kept, counted.
    public mutating func refuse(_ key: ConversationKey) { notKept[key, default: 0] += 1 }

    public mutating func append(_ record: ConversationRecord, to key: ConversationKey) {
        guard accepts(key) else {
            refuse(key)
            return
        }
        let step = record.step
        let shape = Shape(operation: step.operation, target: step.target, parameters: step.parameters, valueIsText: step.valueIsText)
        let index: Int32
        if let known = shapeIndex[shape] {
            index = known
        } else {
            index = Int32(shapes.count)
            shapes.append(shape)
            shapeIndex[shape] = index
        }
        let start = Int32(previews.count)
        previews += step.valuePreview.prefix(ConversationStep.previewLength)
        entries[key, default: []].append(Entry(frame: record.frame, digest: step.valueDigest ?? 0, shape: index,
                                               length: Int32(clamping: step.length), previewStart: start,
                                               previewCount: UInt8(min(step.valuePreview.count, ConversationStep.previewLength)),
                                               hasDigest: step.valueDigest != nil))
        kept += 1
    }

    /// A conversation's steps as records, in order (nil when the capture had none).
    public subscript(key: ConversationKey) -> [ConversationRecord]? {
        guard let list = entries[key] else { return nil }
        return list.map { entry in
            let shape = shapes[Int(entry.shape)]
            var step = ConversationStep(operation: shape.operation, target: shape.target, parameters: shape.parameters, value: nil,
                                        length: Int(entry.length), valueIsText: shape.valueIsText)
            if entry.hasDigest {
                step.valueDigest = entry.digest
                let start = Int(entry.previewStart)
                step.valuePreview = Array(previews[start ..< start + Int(entry.previewCount)])
            }
            return ConversationRecord(frame: entry.frame, step: step)
        }
    }
}
