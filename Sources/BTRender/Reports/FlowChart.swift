import BTCapture
import BTDecode
import BTQuery

/// `btlog flow`: the exchange on a link as a message sequence chart, Wireshark's flow graph and
/// the hardware analyzers' charts as the model. Lanes are each capture's host and controller
/// (one capture: Host, Controller; a merge of two: the first's host and controller, then the
/// second's controller and host, so the air is in the middle). A command or outgoing data goes
/// from a host to its controller, an event or incoming data back; a PDU both hosts logged
/// (a merge's match) is one arrow from the sending host to the receiving one, its latency on
/// it. A capture taken from the air has the link's central and peripheral as its lanes; merged
/// with hosts' logs it is one lane between them, "air": a host's PDU the sniffer saw is an
/// arrow from that host to it, the rest of the air's packets marks on it. Errors are marked;
/// quiet stretches are folded into one line.
public struct FlowChart {
    /// Who an arrow leaves or reaches: a source's host or controller, or an air capture's
    /// central, peripheral, or (in a merge) the air itself.
    public struct End: Hashable, Sendable {
        public enum Role: Sendable { case host, controller, central, peripheral, air }
        public var source: Int
        public var role: Role
    }

    public struct Arrow: Sendable {
        public var time: Int64
        /// The packet (and, for a PDU seen at both ends, the sender's).
        public var number: Int
        public var from: End
        public var to: End
        public var label: String
        public var latency: Int64?
        public var otherNumber: Int?
        public var isError: Bool
    }

    public private(set) var arrows: [Arrow] = []
    /// Arrows left out past `limit` (memory and the chart stay readable).
    public private(set) var leftOut = 0
    public let limit: Int
    /// A stretch without arrows longer than this is folded.
    public static let quiet: Int64 = 2_000_000

    /// Sources in lane order (those named at the start first), their names, which are air captures.
    private var order: [Int] = []
    private var known: Set<Int> = []
    private var names: [Int: String] = [:]
    private var airSources: Set<Int> = []

    /// `sources`: the merged captures' names in order, for their lanes to follow it (empty:
    /// lanes as sources appear).
    public init(limit: Int = 5_000, sources: [String] = []) {
        self.limit = max(1, limit)
        for (index, name) in sources.enumerated() { note(source: index + 1, name: name, air: false) }
    }

    private mutating func note(source: Int, name: String?, air: Bool) {
        if known.insert(source).inserted {
            order.append(source)
            if let name { names[source] = name }
        }
        if air { airSources.insert(source) }
    }

    /// Whether the chart is of several captures (an air capture's lane is then the air).
    var isMerge: Bool { order.count > 1 }

    /// The lanes, left to right: the first host's host and controller, the air captures, then
    /// each other host's controller and host (every other one the other way round).
    public var lanes: [String] { laneEnds.map(laneName) }

    var laneEnds: [End] {
        if !isMerge, let only = order.first, airSources.contains(only) {
            return [End(source: only, role: .central), End(source: only, role: .peripheral)]
        }
        var ends: [End] = []
        let hosts = order.filter { !airSources.contains($0) }, airs = order.filter { airSources.contains($0) }
        for (position, source) in hosts.enumerated() {
            let pair = [End(source: source, role: .host), End(source: source, role: .controller)]
            ends += position % 2 == 0 ? pair : pair.reversed()
            if position == 0 { ends += airs.map { End(source: $0, role: .air) } }
        }
        if hosts.isEmpty { ends += airs.map { End(source: $0, role: .air) } }
        return ends
    }

    func laneName(_ end: End) -> String {
        let prefix = names[end.source].map { $0 + " " } ?? ""
        switch end.role {
        case .host: return prefix + "host"
        case .controller: return prefix + "controller"
        case .central: return prefix + "central"
        case .peripheral: return prefix + "peripheral"
        case .air: return prefix + "air"
        }
    }

    /// Each lane's place, by its end.
    var lanePositions: [End: Int] {
        var positions = Dictionary(laneEnds.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        // The end that logs an air source's PDUs, in a merge, is its air lane.
        for source in airSources {
            if let air = positions[End(source: source, role: .air)] { positions[End(source: source, role: .host)] = air }
        }
        return positions
    }

    /// A packet kept by the chain: its arrow (none for records of no direction, and for the
    /// sending end of a matched PDU, which the receiving end's arrow draws).
    public mutating func add(_ packet: Packet) {
        let frame = packet.frame
        guard frame.direction != .none else { return }
        let origin = frame.origin
        let source = origin?.source ?? 1, air = frame.kind.isAir
        note(source: source, name: origin?.name, air: air)
        var arrow = Arrow(time: frame.timestamp, number: frame.number, from: End(source: source, role: .host),
                          to: End(source: source, role: .controller), label: Self.label(packet), latency: nil, otherNumber: nil,
                          isError: packet.hasError)
        if let match = origin?.match {
            guard !match.isSender else { return }
            // An other end with an access address is an air capture's copy.
            note(source: match.source, name: match.sourceName, air: match.accessAddress != nil)
            // A host's lane, or an air source's lane (`lanePositions` puts an air source's host there).
            arrow.from = End(source: match.source, role: .host)
            arrow.to = End(source: source, role: .host)
            arrow.latency = match.latency
            arrow.otherNumber = match.number
        } else if air {
            // One capture of the air: central and peripheral. In a merge: a mark on the air.
            if origin != nil {
                arrow.from = End(source: source, role: .air)
                arrow.to = arrow.from
            } else {
                let central = End(source: source, role: .central), peripheral = End(source: source, role: .peripheral)
                (arrow.from, arrow.to) = frame.direction == .sent ? (central, peripheral) : (peripheral, central)
            }
        } else if frame.direction == .received {
            arrow.from = End(source: source, role: .controller)
            arrow.to = End(source: source, role: .host)
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
        let lanes = self.lanes, position = lanePositions
        let left = 22, width = Self.laneWidth * max(1, lanes.count - 1) + 1
        var lines: [String] = []
        // Each lane's name centred over it, on the first header line where it clears the names
        // before it (long file names take turns on two or more lines).
        var header: [[Character]] = [], ends: [Int] = []
        for (index, lane) in lanes.enumerated() {
            let center = left + index * Self.laneWidth
            let start = max(0, center - lane.count / 2)
            let line = ends.firstIndex { $0 < start } ?? ends.count
            if line == ends.count {
                header.append([Character](repeating: " ", count: left + width + 16))
                ends.append(-1)
            }
            if header[line].count < start + lane.count { header[line] += [Character](repeating: " ", count: start + lane.count - header[line].count) }
            for (offset, character) in lane.enumerated() { header[line][start + offset] = character }
            ends[line] = start + lane.count
        }
        lines += header.map { String($0).trimmingTrailingSpaces }
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
            let a = left + (position[arrow.from] ?? 0) * Self.laneWidth, b = left + (position[arrow.to] ?? 0) * Self.laneWidth
            var label = (arrow.isError ? "✗ " : "") + arrow.label
            if a == b {
                // A mark on one lane (the air's own packets in a merge): the label beside it.
                row[a] = "●"
                let room = max(8, Self.laneWidth - 4)
                if label.count > room { label = String(label.prefix(room - 1)) + "…" }
                row += [Character](repeating: " ", count: max(0, a + 2 + label.count - row.count))
                for (offset, character) in label.enumerated() where row[a + 2 + offset] == " " { row[a + 2 + offset] = character }
            } else {
                let low = min(a, b), high = max(a, b)
                for column in low + 1 ..< high { row[column] = "─" }
                if b > a { row[high - 1] = "▶" } else { row[low + 1] = "◀" }
                // The label on the arrow, cut to its length.
                let room = high - low - 5
                if label.count > room { label = String(label.prefix(max(0, room - 1))) + "…" }
                let start = low + 2 + (b > a ? 0 : 1)
                for (offset, character) in label.enumerated() where start + offset < high - 1 { row[start + offset] = character }
            }
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
        let lanes = self.lanes, position = lanePositions
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
            let from = x(position[arrow.from] ?? 0), to = x(position[arrow.to] ?? 0)
            var label = (arrow.isError ? "✗ " : "") + arrow.label
            if from == to {
                // A mark on one lane, its label beside it.
                s += "<circle cx=\"\(f(from))\" cy=\"\(f(y))\" r=\"3.5\" fill=\"\(colour)\"/>\n"
                let room = Int(Self.svgLane / 6.2)
                if label.count > room { label = String(label.prefix(max(0, room - 1))) + "…" }
                s += "<text x=\"\(f(from + 8))\" y=\"\(f(y + 4))\" fill=\"\(colour)\">\(ThroughputPlot.escape(label))</text>\n"
                continue
            }
            s += "<line x1=\"\(f(from))\" y1=\"\(f(y))\" x2=\"\(f(to))\" y2=\"\(f(y))\" stroke=\"\(colour)\" marker-end=\"url(#\(marker))\"/>\n"
            let room = Int(abs(to - from) / 6.2)
            if label.count > room { label = String(label.prefix(max(0, room - 1))) + "…" }
            s += "<text x=\"\(f((from + to) / 2))\" y=\"\(f(y - 4))\" text-anchor=\"middle\" fill=\"\(colour)\">\(ThroughputPlot.escape(label))</text>\n"
            if let latency = arrow.latency {
                s += "<text x=\"\(f(max(from, to) + 8))\" y=\"\(f(y + 4))\" fill=\"#1f5fbf\">\(StatisticsText.milliseconds(Double(latency)))</text>\n"
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
