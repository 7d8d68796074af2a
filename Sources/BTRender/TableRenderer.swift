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
        let number = UInt64(max(0, packet.frame.number))
        var digits = 1
        var probe = number
        while probe >= 10 { probe /= 10; digits += 1 }
        appendSpaces(6 - digits)
        appendDecimal(number, width: 1, to: &line)
        appendSpaces(2)
        clock.append(packet.frame.timestamp, to: &line)
        appendSpaces(2)
        appendTypeLabel(packet)
        appendSpaces(2)
        if let handle = packet.handle {
            line.append(UInt8(ascii: "0"))
            line.append(UInt8(ascii: "x"))
            Hex.append(UInt8(handle >> 8), to: &line)
            Hex.append(UInt8(handle & 0xFF), to: &line)
        } else {
            appendSpaces(6)
        }
        appendSpaces(2)
        if let peer = packet.peer {
            withUnsafeBytes(of: peer.bytes) { raw in
                for i in 0 ..< 6 {
                    if i > 0 { line.append(UInt8(ascii: ":")) }
                    Hex.append(raw[i], to: &line)
                }
            }
        } else {
            appendSpaces(17)
        }
        appendSpaces(2)
        appendControllerTag(packet.frame.controller)
        let summary = packet.summary
        appendUTF8(summary, to: &line)
        if let issue = packet.issues.max(by: { $0.severity < $1.severity }), issue.severity >= .warning,
           !summary.contains(issue.message) {
            if !summary.isEmpty { line.append(contentsOf: "  [".utf8) }
            appendUTF8(issue.message, to: &line)
            if !summary.isEmpty { line.append(UInt8(ascii: "]")) }
        }
    }

    /// PacketLogger's Type column, padded: the highest layer's name, plus Send/Receive for data.
    mutating func appendTypeLabel(_ packet: Packet) {
        guard let top = packet.top else { return appendPadded("Unknown", TableRenderer.typeWidth) }
        var suffix = ""
        if top.showsDirection {
            switch packet.frame.direction {
            case .sent: suffix = " Send"
            case .received: suffix = " Receive"
            case .none: break
            }
        }
        let start = line.count
        appendUTF8(top.name, to: &line)
        appendUTF8(suffix, to: &line)
        let written = line[start...]
        let width = written.allSatisfy({ $0 < 0x80 }) ? written.count : (top.name + suffix).count
        appendSpaces(TableRenderer.typeWidth - width)
    }

    mutating func appendPadded(_ text: String, _ width: Int) {
        appendUTF8(text, to: &line)
        appendSpaces(width - text.count)
    }

    static let spaces = [UInt8](repeating: UInt8(ascii: " "), count: 32)

    @inline(__always) mutating func appendSpaces(_ count: Int) {
        var left = count
        while left > 0 {
            let chunk = min(left, TableRenderer.spaces.count)
            line.append(contentsOf: TableRenderer.spaces[0 ..< chunk])
            left -= chunk
        }
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
        line.append(contentsOf: "{hci".utf8)
        appendDecimal(UInt64(controller), width: 1, to: &line)
        line.append(contentsOf: "} ".utf8)
    }

    public mutating func finish(_ statistics: CaptureStatistics, to out: OutputWriter) throws {
        try out.line(options.style.paint(statistics.statusLine, Style.bold))
    }
}
