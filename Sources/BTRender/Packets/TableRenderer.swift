import BTCapture
import BTDecode
import BTQuery

/// PacketLogger's top-level view: one aligned line per packet.
/// Number, Time, Type, Handle, Address, then the highest layer's summary; packets taken from
/// the air add their channel and signal strength after the address, where the sniffer gave them.
///
/// The row is assembled as bytes in one reused buffer and handed to the writer as is: this
/// view prints every packet of captures with millions, so it builds no intermediate strings.
public struct TableRenderer: PacketRenderer {
    /// A row is about a tenth of a packet's cost: handing packets to another thread costs as
    /// much as it saves (the benchmark measured 0.96x-1.00x with it), and holds more memory.
    public var worthItsOwnThread: Bool { false }

    var options: RenderOptions
    var clock: TimeFormatter
    /// The first controller seen; once another appears, every row names its controller.
    var firstController: UInt16?
    var severalControllers = false
    /// In a merge: each source's first controller, and whether it has shown another.
    var sourceControllers: [(first: UInt16?, several: Bool)] = []
    var line: [UInt8] = []
    public static let typeWidth = 14

    public init(options: RenderOptions) {
        self.options = options
        self.clock = TimeFormatter(mode: options.time)
        line.reserveCapacity(512)
    }

    public mutating func render(_ packet: Packet, to out: OutputWriter) throws {
        if options.width == nil && !options.style.enabled {
            try out.lines { text in
                build(packet, into: &text)
                text.put(0x0A)
            }
        } else {
            build(packet)
            try out.line(decorated(packet))
        }
        if let comment = packet.comment { try out.line(Self.commentLine(comment)) }
    }

    /// A packet's comment under its row, on one line (line breaks and control characters
    /// shown as spaces).
    static func commentLine(_ comment: String) -> String {
        "        Comment: " + String(String.UnicodeScalarView(comment.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : $0 }))
    }

    /// For a row drawn out of order (`btlog browse` draws what is on screen): what the rows
    /// before it would have told the renderer: the capture's first packet time (`rel`), the
    /// previous packet's (`delta`), and whether the capture has several controllers.
    public mutating func prepare(first: Int64?, previous: Int64?, severalControllers: Bool) {
        clock.first = first
        clock.previous = previous
        self.severalControllers = severalControllers
    }

    /// The row's text alone: no colour, no comment, not cut to a width.
    public mutating func plainRow(_ packet: Packet) -> String {
        build(packet)
        return String(decoding: line, as: UTF8.self)
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

    /// The row into `line`.
    mutating func build(_ packet: Packet) {
        var row: [UInt8] = []
        swap(&row, &line) // `line` is written while self is borrowed: lent out, then returned
        row.removeAll(keepingCapacity: true)
        build(packet, into: &row)
        swap(&row, &line)
    }

    /// The row written to `line` (the output's buffer for a plain row: no copy in between).
    mutating func build<O: ASCIIOutput>(_ packet: Packet, into line: inout O) {
        ASCII.appendDecimal(UInt64(max(0, packet.frame.number)), width: 6, fill: UInt8(ascii: " "), to: &line)
        if let mark = options.flagColumn {
            line.put(UInt8(ascii: " "))
            if packet.flagged { ASCII.append(mark, to: &line) } else { line.put(UInt8(ascii: " ")) }
        }
        ASCII.appendSpaces(2, to: &line)
        clock.append(packet.frame.timestamp, to: &line)
        ASCII.appendSpaces(2, to: &line)
        if let origin = packet.frame.origin {
            // A merged file read back names its sources only as they come: the column widens.
            if (options.sourceColumn ?? 0) < origin.name.utf8.count { options.sourceColumn = max(origin.name.utf8.count, options.sourceColumn ?? 12) }
        }
        if let width = options.sourceColumn {
            let name = packet.frame.origin?.name ?? ""
            ASCII.append(name, to: &line)
            ASCII.appendSpaces(max(0, width - name.utf8.count) + 2, to: &line)
        }
        appendTypeLabel(packet, to: &line)
        ASCII.appendSpaces(2, to: &line)
        if let handle = packet.handle { Hex.append(UInt64(handle), width: 4, to: &line) } else { ASCII.appendSpaces(6, to: &line) }
        ASCII.appendSpaces(2, to: &line)
        if let peer = packet.peer { peer.appendText(to: &line) } else { ASCII.appendSpaces(17, to: &line) }
        ASCII.appendSpaces(2, to: &line)
        if packet.frame.kind.isAir { appendRadio(packet, to: &line) }
        if let origin = packet.frame.origin {
            appendControllerTag(origin, controller: packet.frame.controller, to: &line)
        } else {
            appendControllerTag(packet.frame.controller, to: &line)
        }
        var hasSummary = false
        if let top = packet.layers.indices.last {
            packet.layers[top].summary.withBytes { line.put($0) }
            hasSummary = !packet.layers[top].summary.isEmpty
        }
        if let issue = packet.worstIssue, issue.severity >= .warning,
           !(packet.layers.indices.last.map { top in packet.layers[top].summary.withBytes { ByteSearch.contains($0, issue.message.utf8) } } ?? false) {
            if hasSummary { ASCII.append("  [", to: &line) }
            ASCII.append(issue.message, to: &line)
            if hasSummary { line.put(UInt8(ascii: "]")) }
        }
    }

    /// What a row reads besides the packet's layers, summaries and issues: the radio columns.
    public static let fieldsRead = FieldMask.only([LinkLayerFields.channel, BasebandFields.rfChannel, LinkLayerFields.rssi, BasebandFields.signal],
                                                   summaries: true)

    /// "ch37  -58 dBm  " for a packet from the air: its channel index and RSSI; nothing when the
    /// capture says neither (link type 251 has no radio header), blanks for what one lacks.
    func appendRadio<O: ASCIIOutput>(_ packet: Packet, to line: inout O) {
        var channel: UInt64?, rssi: Int64?
        // The LE channel index, or BR/EDR's RF channel (0-78); the signal the sniffer measured.
        for layer in packet.layers where layer.kind == .linkLayer || layer.kind == .baseband {
            for field in layer.fields {
                if field.definition == LinkLayerFields.channel || field.definition == BasebandFields.rfChannel,
                   case .unsigned(let value, _)? = field.inlineValue { channel = value }
                if field.definition == LinkLayerFields.rssi || field.definition == BasebandFields.signal,
                   case .signed(let value)? = field.inlineValue { rssi = value }
            }
            break
        }
        guard channel != nil || rssi != nil else { return }
        if let channel {
            ASCII.append("ch", to: &line)
            ASCII.appendDecimal(channel, width: 2, fill: UInt8(ascii: " "), to: &line)
        } else {
            ASCII.appendSpaces(4, to: &line)
        }
        if let rssi {
            // "-58 dBm" right-aligned in 9 columns, written without a String per row.
            var digits = 1
            var rest = rssi.magnitude
            while rest >= 10 { rest /= 10; digits += 1 }
            ASCII.appendSpaces(max(1, 9 - (rssi < 0 ? 1 : 0) - digits - 4), to: &line)
            if rssi < 0 { line.put(UInt8(ascii: "-")) }
            ASCII.appendDecimal(rssi.magnitude, to: &line)
            ASCII.append(" dBm", to: &line)
        } else {
            ASCII.appendSpaces(9, to: &line)
        }
        ASCII.appendSpaces(2, to: &line)
    }

    /// PacketLogger's Type column (Packet.typeLabel), padded to its width.
    func appendTypeLabel<O: ASCIIOutput>(_ packet: Packet, to line: inout O) {
        let columns = packet.writeTypeLabel(to: &line)
        ASCII.appendSpaces(TableRenderer.typeWidth - columns, to: &line)
    }

    /// Absolute and epoch times read the packet alone; so does the row until a second
    /// controller makes every row name its own.
    public var renderedPacketAlone: Bool { !severalControllers && (clock.mode == .abs || clock.mode == .epoch) }

    public mutating func account(for packet: Packet) { see(packet.frame.controller) }

    /// Whether rows name their controller, once a second one has been seen.
    mutating func see(_ controller: UInt16) {
        guard controller != Frame.systemController, !severalControllers else { return }
        if firstController == nil { firstController = controller }
        severalControllers = controller != firstController
    }

    /// "{hci1} " as btmon writes it, when a capture holds more than one controller (a monitor
    /// capture with hci0 and hci1); nothing for single-controller captures and system frames.
    mutating func appendControllerTag<O: ASCIIOutput>(_ controller: UInt16, to line: inout O) {
        guard controller != Frame.systemController else { return }
        see(controller)
        guard severalControllers else { return }
        ASCII.append("{hci", to: &line)
        ASCII.appendDecimal(UInt64(controller), to: &line)
        ASCII.append("} ", to: &line)
    }

    /// In a merge, the source's own index ("{hci2} "), once that source shows a second
    /// controller: every source's hci0 is not a second controller of the timeline.
    mutating func appendControllerTag<O: ASCIIOutput>(_ origin: FrameOrigin, controller: UInt16, to line: inout O) {
        guard controller != Frame.systemController else { return }
        while sourceControllers.count < origin.source { sourceControllers.append((nil, false)) }
        var seen = sourceControllers[origin.source - 1]
        if seen.first == nil { seen.first = origin.controller }
        if seen.first != origin.controller { seen.several = true }
        sourceControllers[origin.source - 1] = seen
        guard seen.several else { return }
        ASCII.append("{hci", to: &line)
        ASCII.appendDecimal(UInt64(origin.controller), to: &line)
        ASCII.append("} ", to: &line)
    }

    public mutating func finish(_ statistics: CaptureStatistics, to out: OutputWriter) throws {
        try out.line(options.style.paint(statistics.statusLine, Style.bold))
    }
}
