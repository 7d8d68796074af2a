import BTCapture
import BTDecode
import BTQuery

/// PacketLogger's top-level view: one aligned line per packet.
/// Number, Time, Type, Handle, Address, then the highest layer's summary.
public struct TableRenderer: PacketRenderer {
    var options: RenderOptions
    var clock: TimeFormatter
    /// The first controller seen; once another appears, every row names its controller.
    var firstController: UInt16?
    var severalControllers = false
    public static let typeWidth = 14

    public init(options: RenderOptions) {
        self.options = options
        self.clock = TimeFormatter(mode: options.time)
    }

    public mutating func render(_ packet: Packet, to out: OutputWriter) throws {
        try out.line(row(packet))
    }

    public mutating func row(_ packet: Packet) -> String {
        var line = ""
        line.reserveCapacity(128)
        let number = String(packet.frame.number)
        line += String(repeating: " ", count: max(0, 6 - number.count)) + number + "  "
        line += clock.format(packet.frame.timestamp) + "  "
        line += padded(packet.typeLabel, TableRenderer.typeWidth) + "  "
        line += padded(packet.handle.map(Hex.u16) ?? "", 6) + "  "
        line += padded(packet.peer?.description ?? "", 17) + "  "
        line += controllerTag(packet.frame.controller)
        var summary = packet.summary
        if let issue = packet.issues.max(by: { $0.severity < $1.severity }), issue.severity >= .warning,
           !summary.contains(issue.message) {
            summary += summary.isEmpty ? issue.message : "  [\(issue.message)]"
        }
        line += summary
        if let width = options.width, line.count > width {
            line = String(line.prefix(max(1, width - 1))) + "…"
        }
        if let code = options.style.colour(for: packet) { line = options.style.paint(line, code) }
        return line
    }

    /// "{hci1} " as btmon writes it, when a capture holds more than one controller (a monitor
    /// capture with hci0 and hci1); nothing for single-controller captures and system frames.
    mutating func controllerTag(_ controller: UInt16) -> String {
        guard controller != Frame.systemController else { return "" }
        if !severalControllers {
            if firstController == nil { firstController = controller }
            severalControllers = controller != firstController
            if !severalControllers { return "" }
        }
        return "{hci\(controller)} "
    }

    public mutating func finish(_ statistics: CaptureStatistics, to out: OutputWriter) throws {
        try out.line(options.style.paint(statistics.statusLine, Style.bold))
    }
}

@inline(__always) func padded(_ text: String, _ width: Int) -> String {
    let count = text.count
    return count >= width ? text : text + String(repeating: " ", count: width - count)
}
