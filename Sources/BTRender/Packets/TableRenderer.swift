import BTCapture
import BTDecode
import BTQuery

/// PacketLogger's top-level view: one aligned line per packet.
/// Number, Time, Type, Handle, Address, then the highest layer's summary.
///
/// The row is assembled as bytes in one reused buffer and handed to the writer as is: this
/// view prints every packet of captures with millions, so it builds no intermediate strings.
public struct TableRenderer: PacketRenderer {
    var options: RenderOptions
    var clock: TimeFormatter
    /// The first controller seen; once another appears, every row names its controller.
    var firstController: UInt16?
    var severalControllers = false
    var line: [UInt8] = []
    public static let typeWidth = 14

    public init(options: RenderOptions) {
        self.options = options
        self.clock = TimeFormatter(mode: options.time)
        line.reserveCapacity(512)
    }

    public mutating func render(_ packet: Packet, to out: OutputWriter) throws {
        build(packet)
        if options.width == nil && !options.style.enabled {
            try out.line(bytes: line)
        } else {
            try out.line(decorated(packet))
        }
    }

    public mutating func row(_ packet: Packet) -> String {
        build(packet)
        return decorated(packet)
    }

    /// The built row cut to the terminal's width and coloured by severity.
    func decorated(_ packet: Packet) -> String {
        var text = String(decoding: line, as: UTF8.self)
        if let width = options.width, text.count > width {
            text = String(text.prefix(max(1, width - 1))) + "…"
        }
        if let code = options.style.colour(for: packet) { text = options.style.paint(text, code) }
        return text
    }

    mutating func build(_ packet: Packet) {
        line.removeAll(keepingCapacity: true)
        ASCII.appendDecimal(UInt64(max(0, packet.frame.number)), width: 6, fill: UInt8(ascii: " "), to: &line)
        ASCII.appendSpaces(2, to: &line)
        clock.append(packet.frame.timestamp, to: &line)
        ASCII.appendSpaces(2, to: &line)
        appendTypeLabel(packet)
        ASCII.appendSpaces(2, to: &line)
        if let handle = packet.handle { Hex.append(UInt64(handle), width: 4, to: &line) } else { ASCII.appendSpaces(6, to: &line) }
        ASCII.appendSpaces(2, to: &line)
        if let peer = packet.peer { peer.appendText(to: &line) } else { ASCII.appendSpaces(17, to: &line) }
        ASCII.appendSpaces(2, to: &line)
        appendControllerTag(packet.frame.controller)
        let summaryStart = line.count
        if let top = packet.layers.indices.last { line.append(contentsOf: packet.layers[top].summary.bytes) }
        let hasSummary = line.count > summaryStart
        if let issue = packet.worstIssue, issue.severity >= .warning,
           !ByteSearch.contains(line[summaryStart...], issue.message.utf8) {
            if hasSummary { ASCII.append("  [", to: &line) }
            ASCII.append(issue.message, to: &line)
            if hasSummary { line.append(UInt8(ascii: "]")) }
        }
    }

    /// PacketLogger's Type column (Packet.typeLabel), padded to its width.
    mutating func appendTypeLabel(_ packet: Packet) {
        let start = line.count
        let name = packet.typeName, suffix = packet.directionSuffix
        ASCII.append(name, to: &line)
        ASCII.append(suffix, to: &line)
        let written = line[start...]
        let width = written.allSatisfy({ $0 < 0x80 }) ? written.count : name.count + suffix.count
        ASCII.appendSpaces(TableRenderer.typeWidth - width, to: &line)
    }

    /// "{hci1} " as btmon writes it, when a capture holds more than one controller (a monitor
    /// capture with hci0 and hci1); nothing for single-controller captures and system frames.
    mutating func appendControllerTag(_ controller: UInt16) {
        guard controller != Frame.systemController else { return }
        if !severalControllers {
            if firstController == nil { firstController = controller }
            severalControllers = controller != firstController
            if !severalControllers { return }
        }
        ASCII.append("{hci", to: &line)
        ASCII.appendDecimal(UInt64(controller), to: &line)
        ASCII.append("} ", to: &line)
    }

    public mutating func finish(_ statistics: CaptureStatistics, to out: OutputWriter) throws {
        try out.line(options.style.paint(statistics.statusLine, Style.bold))
    }
}
