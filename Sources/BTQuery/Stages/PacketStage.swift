import BTDecode

/// One link of the packet chain: it sees every decoded packet that the links before it
/// kept, in capture order, and says what happens to it. Selection is the first; filter,
/// search, annotation lookup and statistics stages join the chain the same way.
public protocol PacketStage {
    /// Whether the stage reads fields' display text and every layer's summary (a text search
    /// does): the decoder then builds them whatever the view prints, so what is found never
    /// depends on what is shown.
    var readsDisplayText: Bool { get }
    /// May change the packet (an annotation stage attaches its comment and flag).
    mutating func process(_ packet: inout Packet, context: StageContext) -> StageVerdict
}

extension PacketStage {
    public var readsDisplayText: Bool { false }
}

extension Array where Element == any PacketStage {
    /// Whether a decoder feeding these stages into a view must build display text.
    public func needDisplayText(viewShowsFieldText: Bool) -> Bool {
        viewShowsFieldText || contains { $0.readsDisplayText }
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
    /// `--packets` and `-c`: the frame number against the range, then the count of packets kept.
    public mutating func process(_ packet: inout Packet, context: StageContext) -> StageVerdict {
        guard includes(number: packet.frame.number) else { return .drop }
        kept += 1
        return isExhausted(afterNumber: packet.frame.number, shown: kept) ? .keepAndStop : .keep
    }
}
