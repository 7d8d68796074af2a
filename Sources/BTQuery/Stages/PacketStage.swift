import BTCapture
import BTDecode

/// One link of the packet chain: it sees every decoded packet that the links before it
/// kept, in capture order, and says what happens to it. Selection is the first; filter,
/// search, annotation lookup and statistics stages join the chain the same way.
public protocol PacketStage {
    /// Whether the stage reads fields' display text and every layer's summary (a text search
    /// does): the decoder then builds them whatever the view prints, so what is found never
    /// depends on what is shown.
    var readsDisplayText: Bool { get }
    /// The fields the stage reads: the decoder keeps them whatever the view reads. All, unless
    /// the stage says (a stage that does not know keeps decoding as it was).
    var fieldsRead: FieldMask { get }
    /// May change the packet (an annotation stage attaches its comment and flag).
    mutating func process(_ packet: inout Packet, context: StageContext) -> StageVerdict
    /// What the stage can tell before a frame is decoded, from its kind: false when it will
    /// certainly drop the packet (a filter whose fields cannot be in such a frame), and the
    /// decoder then builds only what the stages read: their fields, no summary, no display text
    /// unless a stage reads it. Only a promise: the stages still see the packet and decide as
    /// always, so a stage before the one that drops it must keep no state from what the view
    /// alone reads (none does: selection, notes and filters read frame numbers, notes and
    /// their own fields). nil: it cannot tell.
    var foresight: ((FrameKind) -> Bool)? { get }
}

extension PacketStage {
    public var readsDisplayText: Bool { false }
    public var fieldsRead: FieldMask { .all }
    public var foresight: ((FrameKind) -> Bool)? { nil }
}

extension Array where Element == any PacketStage {
    /// Whether a decoder feeding these stages into a view must build display text.
    public func needDisplayText(viewShowsFieldText: Bool) -> Bool {
        viewShowsFieldText || contains { $0.readsDisplayText }
    }

    /// The fields a decoder feeding these stages into a view that reads `viewReads` must keep.
    public func fieldsToKeep(viewReads: FieldMask) -> FieldMask {
        reduce(viewReads) { $0.union($1.fieldsRead) }
    }

    /// What the stages together can tell before a frame is decoded: false when one of them
    /// will certainly drop it. nil: none can tell.
    public var foresight: ((FrameKind) -> Bool)? { FilterForesight.all(map(\.foresight)) }

    /// Runs a decoded packet through the stages in order, as every chain does (the pipeline,
    /// the browser's scans): whether it is kept, and whether reading ends with it (a stage that
    /// saw its last packet ends the reading, even if a later stage dropped it).
    @inline(__always)
    public mutating func admit(_ packet: inout Packet, context: StageContext) -> (kept: Bool, stop: Bool) {
        var stop = false
        for index in indices {
            switch self[index].process(&packet, context: context) {
            case .keep: continue
            case .keepAndStop: stop = true
            case .drop: return (false, stop)
            }
        }
        return (true, stop)
    }
}

public enum StageVerdict: Equatable {
    /// On to the next stage and the sink.
    case keep
    /// Not this one; go on reading.
    case drop
    /// This one, and no later packet can be kept: reading stops after it.
    case keepAndStop
}

extension PacketSelection: PacketStage {
    /// Frame numbers only.
    public var fieldsRead: FieldMask { .only([]) }

    /// `--packets` and `-c`: the frame number against the range, then the count of packets kept.
    public mutating func process(_ packet: inout Packet, context: StageContext) -> StageVerdict {
        guard includes(number: packet.frame.number) else { return .drop }
        kept += 1
        return isExhausted(afterNumber: packet.frame.number, shown: kept) ? .keepAndStop : .keep
    }
}
