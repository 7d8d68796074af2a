import BTCapture
import BTDecode
import BTQuery

/// A per-packet view printing to an output: the end of the chain for show and capture.
public struct RenderingSink: PacketSink {
    public var renderer: PacketRenderer
    public let out: OutputWriter

    public init(_ renderer: PacketRenderer, out: OutputWriter) {
        self.renderer = renderer
        self.out = out
    }

    public mutating func beginFile(_ name: String) { renderer.beginFile(name) }

    /// A packet a stage already rendered as this view prints it (`show -e`) is written as it is.
    public mutating func consume(_ packet: Packet) throws {
        if packet.renderedText.isEmpty {
            try renderer.render(packet, to: out)
        } else {
            renderer.account(for: packet)
            try out.write(bytes: packet.renderedText)
        }
    }

    /// Rendering is half of `show -V` and most of an export: worth the second core. The
    /// table's row is not (see TableRenderer).
    public var runsOnItsOwnThread: Bool { renderer.worthItsOwnThread }

    /// The view's own ending (the status line), with the counts of what it printed.
    public mutating func finish(_ statistics: CaptureStatistics) throws { try renderer.finish(statistics, to: out) }
}
