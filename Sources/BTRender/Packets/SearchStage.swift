import BTCapture
import BTDecode
import BTQuery

/// `show -e PATTERN`: keeps the packets whose text, as the view prints it (without colour),
/// matches; the same search `btlog grep` makes, as a link of the chain.
public struct SearchStage: PacketStage {
    let search: TextSearch
    var renderer: PacketRenderer
    /// The view prints with the same options as this search renders with (no colour, no
    /// width, no flag column): a packet whose text stands alone is printed as searched.
    let sharesText: Bool
    private let scratch = OutputWriter.capturing()

    /// `printing`: the options the view prints with, when known.
    public init(search: TextSearch, renderer: PacketRenderer, options: RenderOptions, printing: RenderOptions? = nil) {
        self.search = search
        self.renderer = renderer
        sharesText = printing == options
    }

    /// It searches what the view prints, and the view already has the decoder build that.
    public var readsDisplayText: Bool { false }

    public mutating func process(_ packet: inout Packet, context: StageContext) -> StageVerdict {
        do {
            try renderer.render(packet, to: scratch)
        } catch {
            scratch.drain { _ in }
            return .drop
        }
        let share = sharesText && renderer.renderedPacketAlone
        return scratch.drain { text in
            guard search.selects(text) else { return false }
            if share { packet.renderedText.append(contentsOf: text) }
            return true
        } ? .keep : .drop
    }
}
