import BTCapture
import BTDecode
import BTQuery

/// `show -e PATTERN`: keeps the packets whose text, as the view prints it (without colour),
/// matches; the same search `btlog grep` makes, as a link of the chain.
public struct SearchStage: PacketStage {
    let search: TextSearch
    var renderer: PacketRenderer
    private let scratch = OutputWriter.capturing()

    public init(search: TextSearch, renderer: PacketRenderer) {
        self.search = search
        self.renderer = renderer
    }

    /// It searches what the view prints, and the view already has the decoder build that.
    public var readsDisplayText: Bool { false }

    public mutating func process(_ packet: inout Packet, context: StageContext) -> StageVerdict {
        do {
            try renderer.render(packet, to: scratch)
        } catch {
            _ = scratch.drain { _ in }
            return .drop
        }
        return scratch.drain { search.selects($0) } ? .keep : .drop
    }
}
