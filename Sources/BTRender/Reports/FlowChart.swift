import BTCapture
import BTDecode
import BTQuery

/// `btlog flow`: the exchange on a link as a message sequence chart, Wireshark's flow graph and
/// the hardware analyzers' charts as the model. Lanes are each capture's host and controller
/// (one capture: Host, Controller; a merge of two: the first's host and controller, then the
/// second's controller and host, so the air is in the middle). A command or outgoing data goes
/// from a host to its controller, an event or incoming data back; a PDU both hosts logged
/// (a merge's match) is one arrow from the sending host to the receiving one, its latency on
/// it. Errors are marked; quiet stretches are folded into one line.
public struct FlowChart {
    public struct Arrow: Sendable {
        public var time: Int64
        /// The packet (and, for a PDU seen at both ends, the sender's).
        public var number: Int
        public var from: Int
        public var to: Int
        public var label: String
        public var latency: Int64?
        public var otherNumber: Int?
        public var isError: Bool
    }

    public private(set) var lanes: [String] = []
    public private(set) var arrows: [Arrow] = []
    /// Arrows left out past `limit` (memory and the chart stay readable).
    public private(set) var leftOut = 0
    public let limit: Int
    /// A stretch without arrows longer than this is folded.
    public static let quiet: Int64 = 2_000_000

    private var laneOf: [Int: (host: Int, controller: Int)] = [:]

    /// `sources`: the merged captures' names in order, for their lanes to follow it (empty:
    /// lanes as sources appear).
    public init(limit: Int = 5_000, sources: [String] = []) {
        self.limit = max(1, limit)
        for (index, name) in sources.enumerated() { _ = lanes(for: index + 1, name: name) }
    }

    /// The lanes of a source (1 for a single capture), made as it first appears. A capture
    /// taken from the air has the link's central and peripheral instead (its readers give a
    /// packet from the central the direction of a host's send).
    mutating func lanes(for source: Int, name: String?, air: Bool = false) -> (host: Int, controller: Int) {
        if let known = laneOf[source] { return known }
        let prefix = name.map { $0 + " " } ?? ""
        let (first, second) = air ? ("central", "peripheral") : ("host", "controller")
        let pair: (host: Int, controller: Int)
        if laneOf.count % 2 == 0 {
            lanes += [prefix + first, prefix + second]
            pair = (lanes.count - 2, lanes.count - 1)
        } else {
            lanes += [prefix + second, prefix + first]
            pair = (lanes.count - 1, lanes.count - 2)
        }
        laneOf[source] = pair
        return pair
    }

    /// A packet kept by the chain: its arrow (none for records of no direction, and for the
    /// sending end of a matched PDU, which the receiving end's arrow draws).
    public mutating func add(_ packet: Packet) {
        let frame = packet.frame
        guard frame.direction != .none else { return }
        let origin = frame.origin
        let own = lanes(for: origin?.source ?? 1, name: origin?.name, air: frame.kind.isAir)
        var arrow = Arrow(time: frame.timestamp, number: frame.number, from: own.host, to: own.controller,
                          label: Self.label(packet), latency: nil, otherNumber: nil, isError: packet.hasError)
        if let match = origin?.match {
            guard !match.isSender else { return }
            let sender = lanes(for: match.source, name: match.sourceName)
            arrow.from = sender.host
            arrow.to = own.host
            arrow.latency = match.latency
            arrow.otherNumber = match.number
        } else if frame.direction == .received {
            arrow.from = own.controller
            arrow.to = own.host
        }
        guard arrows.count < limit else { leftOut += 1; return }
        arrows.append(arrow)
    }

    /// The highest layer's summary, as the table shows it (the lanes say the direction);
    /// the Type where there is none.
    static func label(_ packet: Packet) -> String {
        let summary = packet.top?.summary.description ?? ""
        return summary.isEmpty ? packet.typeLabel : summary
    }

    // MARK: Text

    /// Columns between two lanes.
    static let laneWidth = 30

    /// The chart for a terminal: a header of lanes, then an arrow a line (time since the
    /// first arrow, packet number, the arrow with its label, the latency).
    public func textLines() -> [String] {
        guard !arrows.isEmpty else { return ["No packets to chart."] }
        let left = 22, width = Self.laneWidth * max(1, lanes.count - 1) + 1
        var lines: [String] = []
        var header = [Character](repeating: " ", count: left + width + 16)
        for (index, lane) in lanes.enumerated() {
            let center = left + index * Self.laneWidth
            let start = max(0, min(center - lane.count / 2, header.count - lane.count))
            for (offset, character) in lane.enumerated() where start + offset < header.count { header[start + offset] = character }
        }
        lines.append(String(header).trimmingTrailingSpaces)
        let first = arrows[0].time
        var previous = first
        for arrow in arrows {
            let gap = arrow.time.saturatingSubtract(previous)
            if gap > Self.quiet {
                lines.append(String(repeating: " ", count: left) + "⋮ " + StatisticsText.seconds(gap) + " quiet")
            }
            previous = arrow.time
            var row = [Character](repeating: " ", count: left + width + 1)
            for index in lanes.indices { row[left + index * Self.laneWidth] = "│" }
            let a = left + arrow.from * Self.laneWidth, b = left + arrow.to * Self.laneWidth
            let low = min(a, b), high = max(a, b)
            for column in low + 1 ..< high { row[column] = "─" }
            if b > a { row[high - 1] = "▶" } else { row[low + 1] = "◀" }
            // The label on the arrow, cut to its length.
            var label = (arrow.isError ? "✗ " : "") + arrow.label
            let room = high - low - 5
            if label.count > room { label = String(label.prefix(max(0, room - 1))) + "…" }
            let start = low + 2 + (b > a ? 0 : 1)
            for (offset, character) in label.enumerated() where start + offset < high - 1 { row[start + offset] = character }
            var text = Self.pad(StatisticsText.seconds(arrow.time.saturatingSubtract(first)), 10) + " " + Self.pad("#\(arrow.number)", 8) + "  "
            text += String(row[left...]).trimmingTrailingSpaces
            if let latency = arrow.latency, let other = arrow.otherNumber {
                text += "  #\(other) → #\(arrow.number), \(StatisticsText.milliseconds(Double(latency)))"
            }
            lines.append(text)
        }
        if leftOut > 0 { lines.append("... and \(leftOut) more packets (narrow the selection: --handle, --device, -f, --packets)") }
        return lines
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }


    // MARK: SVG

    static let svgLane = 230.0, svgLeft = 150.0, svgTop = 70.0, svgRow = 24.0

    /// The chart as an SVG: lanes as vertical lines, each arrow at its row, its label above it,
    /// the latency beside a matched PDU's, errors in red, quiet stretches as a gap marked.
    public func svg(title: String) -> String {
        var rows = 0
        var previous = arrows.first?.time ?? 0
        for arrow in arrows {
            if arrow.time.saturatingSubtract(previous) > Self.quiet { rows += 1 }
            previous = arrow.time
            rows += 1
        }
        let width = Self.svgLeft + Self.svgLane * Double(max(1, lanes.count - 1)) + 200
        let height = Self.svgTop + Double(rows + 1) * Self.svgRow + 40
        func x(_ lane: Int) -> Double { Self.svgLeft + Double(lane) * Self.svgLane }
        var s = """
        <?xml version="1.0" encoding="UTF-8"?>
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" viewBox="0 0 \(Int(width)) \(Int(height))" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="11">
        <rect width="100%" height="100%" fill="white"/>
        <defs><marker id="head" markerWidth="8" markerHeight="8" refX="8" refY="4" orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="black"/></marker>
        <marker id="headRed" markerWidth="8" markerHeight="8" refX="8" refY="4" orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#c00000"/></marker>
        <marker id="headBlue" markerWidth="8" markerHeight="8" refX="8" refY="4" orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#1f5fbf"/></marker></defs>
        <text x="10" y="24" font-size="15" font-weight="bold">\(ThroughputPlot.escape(title))</text>

        """
        for (index, lane) in lanes.enumerated() {
            s += "<text x=\"\(f(x(index)))\" y=\"\(f(Self.svgTop - 14))\" text-anchor=\"middle\" font-weight=\"bold\">\(ThroughputPlot.escape(lane))</text>\n"
            s += "<line x1=\"\(f(x(index)))\" y1=\"\(f(Self.svgTop - 6))\" x2=\"\(f(x(index)))\" y2=\"\(f(height - 30))\" stroke=\"#888\"/>\n"
        }
        var y = Self.svgTop
        previous = arrows.first?.time ?? 0
        let first = previous
        for arrow in arrows {
            let gap = arrow.time.saturatingSubtract(previous)
            if gap > Self.quiet {
                y += Self.svgRow
                s += "<text x=\"\(f(Self.svgLeft - 10))\" y=\"\(f(y - 6))\" text-anchor=\"end\" fill=\"#666\" font-style=\"italic\">⋮ \(StatisticsText.seconds(gap)) quiet</text>\n"
            }
            previous = arrow.time
            y += Self.svgRow
            let colour = arrow.isError ? "#c00000" : arrow.latency != nil ? "#1f5fbf" : "black"
            let marker = arrow.isError ? "headRed" : arrow.latency != nil ? "headBlue" : "head"
            s += "<text x=\"10\" y=\"\(f(y))\" fill=\"#444\">\(StatisticsText.seconds(arrow.time.saturatingSubtract(first)))  #\(arrow.number)</text>\n"
            s += "<line x1=\"\(f(x(arrow.from)))\" y1=\"\(f(y))\" x2=\"\(f(x(arrow.to)))\" y2=\"\(f(y))\" stroke=\"\(colour)\" marker-end=\"url(#\(marker))\"/>\n"
            var label = (arrow.isError ? "✗ " : "") + arrow.label
            let room = Int(abs(x(arrow.to) - x(arrow.from)) / 6.2)
            if label.count > room { label = String(label.prefix(max(0, room - 1))) + "…" }
            s += "<text x=\"\(f((x(arrow.from) + x(arrow.to)) / 2))\" y=\"\(f(y - 4))\" text-anchor=\"middle\" fill=\"\(colour)\">\(ThroughputPlot.escape(label))</text>\n"
            if let latency = arrow.latency {
                s += "<text x=\"\(f(max(x(arrow.from), x(arrow.to)) + 8))\" y=\"\(f(y + 4))\" fill=\"#1f5fbf\">\(StatisticsText.milliseconds(Double(latency)))</text>\n"
            }
        }
        if leftOut > 0 {
            s += "<text x=\"10\" y=\"\(f(height - 12))\" fill=\"#666\">... and \(leftOut) more packets</text>\n"
        }
        return s + "</svg>\n"
    }

    func f(_ value: Double) -> String { ASCII.decimal(value, decimals: 1) }
}

extension String {
    var trimmingTrailingSpaces: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}

/// The sink `btlog flow` reads packets into.
public struct FlowSink: PacketSink {
    public var chart: FlowChart
    public init(limit: Int, sources: [String] = []) { chart = FlowChart(limit: limit, sources: sources) }
    public mutating func consume(_ packet: Packet) throws { chart.add(packet) }
}
