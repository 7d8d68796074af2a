import BTCapture
import BTDecode
import BTAnalysis
import BTQuery

/// `stats --svg`: throughput over time as an SVG plot: time on x (seconds from the first
/// packet), kbit/s on y, one line per connection and direction (received dashed), a legend,
/// the events that change a link's pace marked where they happened (parameter updates, PHY
/// and data length changes, MTU exchanges, disconnections) by numbered lines listed under the
/// legend, and each LE link's ceiling (what its parameters allow, `LEThroughputCeiling`) as a
/// dotted line in its colour, or as a mark at the top edge when it is far above the data.
public struct ThroughputPlot {
    public static let width = 960, height = 540
    static let left = 80.0, right = 300.0, top = 50.0, bottom = 60.0
    /// Rows of event numbers at the plot's top.
    static let markRows = 6
    static let palette = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"]

    let report: CaptureReport
    let series: ThroughputSeries
    let title: String

    public init(_ report: CaptureReport, series: ThroughputSeries, title: String) {
        self.report = report
        self.series = series
        self.title = title
    }

    public var svg: String {
        let plotWidth = Double(Self.width) - Self.left - Self.right, plotHeight = Double(Self.height) - Self.top - Self.bottom
        let seconds = max(Double(series.binCount) * Double(series.interval) / 1_000_000, Double(series.interval) / 1_000_000)
        let keys = series.busiest(Self.palette.count).sorted()
        let ceilings = Dictionary(ConnectionThroughput.assess(report).compactMap { t in
            t.ceiling.map { (ThroughputSeries.Key(connection: t.connection, sent: t.sent), $0.kbps) }
        }, uniquingKeysWith: { a, _ in a })
        // The axis fits the data: a ceiling far above it (a 5 kbit/s link whose parameters allow
        // 235) would flatten the measured line onto the floor, so it is marked at the edge instead.
        let dataPeak = keys.map { series.kbps($0).max() ?? 0 }.max() ?? 0
        let nearCeilings = ceilings.values.filter { $0 <= max(dataPeak, 0.01) * 2 }
        // A link carrying a few bytes a second is drawn at its own scale, down to 0.01 kbit/s.
        let peak = max(dataPeak, nearCeilings.max() ?? 0, 0.01)
        let yStep = Self.niceStep(peak * 1.1 / 5)
        let yMax = (peak * 1.1 / yStep).rounded(.up) * yStep
        let xStep = Self.niceStep(seconds / 8)
        func x(_ t: Double) -> Double { Self.left + t / seconds * plotWidth }
        func y(_ v: Double) -> Double { Self.top + plotHeight - v / yMax * plotHeight }

        let qualityLinks = report.connections.indices.filter { !report.connections[$0].quality.isEmpty }
        let totalHeight = Self.height + (qualityLinks.isEmpty ? 0 : Self.qualityHeight)
        var s = """
        <?xml version="1.0" encoding="UTF-8"?>
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Self.width)" height="\(totalHeight)" viewBox="0 0 \(Self.width) \(totalHeight)" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12">
        <rect width="100%" height="100%" fill="white"/>
        <text x="\(Self.left)" y="28" font-size="16" font-weight="bold">\(Self.escape(title))</text>

        """
        // Grid and axes.
        var tick = 0.0
        while tick <= yMax + yStep / 1000 {
            s += "<line x1=\"\(f(Self.left))\" y1=\"\(f(y(tick)))\" x2=\"\(f(Self.left + plotWidth))\" y2=\"\(f(y(tick)))\" stroke=\"#e0e0e0\"/>\n"
            s += "<text x=\"\(f(Self.left - 8))\" y=\"\(f(y(tick) + 4))\" text-anchor=\"end\">\(Self.label(tick))</text>\n"
            tick += yStep
        }
        tick = 0
        while tick <= seconds + xStep / 1000 {
            s += "<line x1=\"\(f(x(tick)))\" y1=\"\(f(Self.top + plotHeight))\" x2=\"\(f(x(tick)))\" y2=\"\(f(Self.top + plotHeight + 5))\" stroke=\"black\"/>\n"
            s += "<text x=\"\(f(x(tick)))\" y=\"\(f(Self.top + plotHeight + 20))\" text-anchor=\"middle\">\(Self.label(tick))</text>\n"
            tick += xStep
        }
        s += "<line x1=\"\(f(Self.left))\" y1=\"\(f(Self.top))\" x2=\"\(f(Self.left))\" y2=\"\(f(Self.top + plotHeight))\" stroke=\"black\"/>\n"
        s += "<line x1=\"\(f(Self.left))\" y1=\"\(f(Self.top + plotHeight))\" x2=\"\(f(Self.left + plotWidth))\" y2=\"\(f(Self.top + plotHeight))\" stroke=\"black\"/>\n"
        s += "<text x=\"\(f(Self.left + plotWidth / 2))\" y=\"\(Self.height - 15)\" text-anchor=\"middle\">time since the first packet (s)</text>\n"
        s += "<text x=\"20\" y=\"\(f(Self.top + plotHeight / 2))\" text-anchor=\"middle\" transform=\"rotate(-90 20 \(f(Self.top + plotHeight / 2)))\">application throughput (kbit/s)</text>\n"

        // Events that change a link's pace: a dashed vertical in the colour of its connection,
        // numbered at the top (numbers too close for one row move to the next), and the list of
        // numbers with their time, connection and what happened under the legend: labels that
        // would overlap in the plot are never drawn there.
        var colours: [Int: String] = [:]
        for (index, key) in keys.enumerated() where colours[key.connection] == nil { colours[key.connection] = Self.palette[index % Self.palette.count] }
        var eventLines: [String] = []
        if let origin = series.origin {
            var marks: [(time: Double, connection: Int, text: String)] = []
            for (index, c) in report.connections.enumerated() {
                for event in c.timeline where event.change != nil && event.failure == nil {
                    marks.append((Double(event.time.saturatingSubtract(origin)) / 1_000_000, index, "\(Hex.u16(c.handle)) \(Self.markLabel(event))"))
                }
                if let end = c.end { marks.append((Double(end.saturatingSubtract(origin)) / 1_000_000, index, "\(Hex.u16(c.handle)) disconnected")) }
            }
            let shown = marks.filter { $0.time >= 0 && $0.time <= seconds }.sorted { $0.time < $1.time }
            let listed = Self.eventListRows(keys: keys.count)
            var rowEnds: [Double] = []
            for (index, mark) in shown.prefix(listed).enumerated() {
                let px = x(mark.time), number = "\(index + 1)"
                let colour = colours[mark.connection] ?? "#888888"
                let width = Double(number.count) * 7 + 4
                s += "<line x1=\"\(f(px))\" y1=\"\(f(Self.top))\" x2=\"\(f(px))\" y2=\"\(f(Self.top + plotHeight))\" stroke=\"\(colour)\" stroke-opacity=\"0.6\" stroke-dasharray=\"4 3\"/>\n"
                // The first row whose last number ends left of this one; past the last row the
                // number stays in the list only (its time says where it is).
                let row = rowEnds.firstIndex { $0 < px - width / 2 } ?? rowEnds.count
                if row < Self.markRows {
                    if row == rowEnds.count { rowEnds.append(0) }
                    rowEnds[row] = px + width / 2
                    s += "<text x=\"\(f(px))\" y=\"\(f(Self.top + 11 + Double(row) * 12))\" text-anchor=\"middle\" font-size=\"10\" font-weight=\"bold\" fill=\"\(colour)\" stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\">\(number)</text>\n"
                }
                eventLines.append("\(number)  \(Self.label(mark.time)) s  \(mark.text)")
            }
            if shown.count > listed { eventLines.append("+\(shown.count - listed) more (btlog stats lists them)") }
        }

        // One line per connection and direction, through the middle of each interval.
        let binSeconds = Double(series.interval) / 1_000_000
        for (index, key) in keys.enumerated() {
            let colour = Self.palette[index % Self.palette.count]
            // A step for each interval: its rate held across it.
            let points = series.kbps(key).enumerated().map { bin, value in
                "\(f(x(Double(bin) * binSeconds))),\(f(y(value))) \(f(x(Double(bin + 1) * binSeconds))),\(f(y(value)))"
            }.joined(separator: " ")
            let dash = key.sent ? "" : " stroke-dasharray=\"6 3\""
            s += "<polyline fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2\"\(dash) points=\"\(points)\"/>\n"
            let legendY = Self.top + 10 + Double(index) * 34
            let legendX = Self.left + plotWidth + 15
            s += "<line x1=\"\(f(legendX))\" y1=\"\(f(legendY))\" x2=\"\(f(legendX + 24))\" y2=\"\(f(legendY))\" stroke=\"\(colour)\" stroke-width=\"2\"\(dash)/>\n"
            s += "<text x=\"\(f(legendX + 30))\" y=\"\(f(legendY + 4))\">\(Self.escape(legend(key)))</text>\n"
            if let ceiling = ceilings[key], ceiling <= yMax {
                s += "<line x1=\"\(f(Self.left))\" y1=\"\(f(y(ceiling)))\" x2=\"\(f(Self.left + plotWidth))\" y2=\"\(f(y(ceiling)))\" stroke=\"\(colour)\" stroke-width=\"1\" stroke-dasharray=\"1 3\"/>\n"
                s += "<text x=\"\(f(legendX + 30))\" y=\"\(f(legendY + 18))\" font-size=\"10\" fill=\"#555555\">ceiling \(LEThroughputCeiling.format(ceiling)) kbit/s (dotted)</text>\n"
            } else if let ceiling = ceilings[key] {
                // Far above the data: the axis is not stretched to it; a mark in the link's colour
                // beside the top edge, and the legend says how far up it is.
                s += "<path d=\"M \(f(Self.left + plotWidth + 3)) \(f(Self.top + 7 + Double(index) * 10)) l 4 -7 l 4 7 z\" fill=\"\(colour)\"/>\n"
                s += "<text x=\"\(f(legendX + 30))\" y=\"\(f(legendY + 18))\" font-size=\"10\" fill=\"#555555\">ceiling \(LEThroughputCeiling.format(ceiling)) kbit/s (▲ above the plot)</text>\n"
            }
        }
        // The numbered events, under the connections' legend.
        let listTop = Self.top + 10 + Double(keys.count) * 34 + 10
        for (row, line) in eventLines.enumerated() {
            s += "<text x=\"\(f(Self.left + plotWidth + 15))\" y=\"\(f(listTop + Double(row) * 13))\" font-size=\"10\" fill=\"#333333\">\(Self.escape(line))</text>\n"
        }
        if keys.isEmpty {
            s += "<text x=\"\(f(Self.left + plotWidth / 2))\" y=\"\(f(Self.top + plotHeight / 2))\" text-anchor=\"middle\">no application data</text>\n"
        }
        if !qualityLinks.isEmpty, let origin = series.origin {
            s += qualityPanel(qualityLinks, origin: origin, x: x, seconds: seconds, colours: colours)
        }
        return s + "</svg>\n"
    }

    /// The panel under the throughput plot when controllers sent Bluetooth Quality Reports: each
    /// link's RSSI over the same time axis (-100 to -30 dBm, the -85 dBm line dashed), its
    /// reports of trouble marked and named in the legend.
    static let qualityHeight = 300

    func qualityPanel(_ links: [Int], origin: Int64, x: (Double) -> Double, seconds: Double, colours: [Int: String]) -> String {
        let top = Double(Self.height) + 20, height = Double(Self.qualityHeight) - 70
        let plotWidth = Double(Self.width) - Self.left - Self.right
        let low = -100.0, high = -30.0
        func y(_ dBm: Double) -> Double { top + height - (min(max(dBm, low), high) - low) / (high - low) * height }
        var s = "<text x=\"\(f(Self.left))\" y=\"\(f(top - 6))\" font-weight=\"bold\">Link quality (Bluetooth Quality Reports)</text>\n"
        var tick = low
        while tick <= high {
            s += "<line x1=\"\(f(Self.left))\" y1=\"\(f(y(tick)))\" x2=\"\(f(Self.left + plotWidth))\" y2=\"\(f(y(tick)))\" stroke=\"#e0e0e0\"/>\n"
            s += "<text x=\"\(f(Self.left - 8))\" y=\"\(f(y(tick) + 4))\" text-anchor=\"end\">\(Int(tick))</text>\n"
            tick += 10
        }
        let weak = Double(Diagnosis.weakRSSI)
        s += "<line x1=\"\(f(Self.left))\" y1=\"\(f(y(weak)))\" x2=\"\(f(Self.left + plotWidth))\" y2=\"\(f(y(weak)))\" stroke=\"#d62728\" stroke-dasharray=\"6 4\"/>\n"
        s += "<line x1=\"\(f(Self.left))\" y1=\"\(f(top))\" x2=\"\(f(Self.left))\" y2=\"\(f(top + height))\" stroke=\"black\"/>\n"
        s += "<line x1=\"\(f(Self.left))\" y1=\"\(f(top + height))\" x2=\"\(f(Self.left + plotWidth))\" y2=\"\(f(top + height))\" stroke=\"black\"/>\n"
        s += "<text x=\"20\" y=\"\(f(top + height / 2))\" text-anchor=\"middle\" transform=\"rotate(-90 20 \(f(top + height / 2)))\">RSSI (dBm)</text>\n"
        s += "<text x=\"\(f(Self.left + plotWidth / 2))\" y=\"\(f(top + height + 35))\" text-anchor=\"middle\">time since the first packet (s); dashed: \(Diagnosis.weakRSSI) dBm</text>\n"
        var legendRow = 0
        for (order, index) in links.enumerated() {
            let c = report.connections[index]
            let colour = colours[index] ?? Self.palette[order % Self.palette.count]
            let points = c.quality.compactMap { sample -> (Double, Int, LinkQualitySample)? in
                guard let rssi = sample.rssi else { return nil }
                let t = Double(sample.time.saturatingSubtract(origin)) / 1_000_000
                return t >= 0 && t <= seconds ? (t, rssi, sample) : nil
            }
            let line = points.map { "\(f(x($0.0))),\(f(y(Double($0.1))))" }.joined(separator: " ")
            s += "<polyline fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2\" points=\"\(line)\"/>\n"
            let legendX = Self.left + plotWidth + 15
            s += "<text x=\"\(f(legendX))\" y=\"\(f(top + 10 + Double(legendRow) * 14))\" fill=\"\(colour)\">\(Self.escape("\(Hex.u16(c.handle)) \(c.address?.description ?? "")"))</text>\n"
            legendRow += 1
            for (t, rssi, sample) in points {
                let trouble = sample.report != 0x01
                s += "<circle cx=\"\(f(x(t)))\" cy=\"\(f(y(Double(rssi))))\" r=\"\(trouble ? 5 : 3)\" fill=\"\(trouble ? "white" : colour)\" stroke=\"\(colour)\" stroke-width=\"2\"/>\n"
                guard trouble, legendRow < 14 else { continue }
                let name = sample.reportName ?? "report \(sample.report)"
                s += "<text x=\"\(f(legendX + 8))\" y=\"\(f(top + 10 + Double(legendRow) * 14))\" font-size=\"10\" fill=\"#333333\">\(Self.escape("#\(sample.frame) \(Self.label(t)) s \(name)"))</text>\n"
                legendRow += 1
            }
        }
        return s
    }

    /// How many numbered events the list under the legend has room for.
    static func eventListRows(keys: Int) -> Int {
        let listTop = top + 10 + Double(keys) * 34 + 10
        return max(0, Int((Double(height) - 10 - listTop) / 13) - 1)
    }

    private func legend(_ key: ThroughputSeries.Key) -> String {
        guard report.connections.indices.contains(key.connection) else { return "connection \(key.connection)" }
        let c = report.connections[key.connection]
        return "\(Hex.u16(c.handle)) \(c.address?.description ?? "") \(key.sent ? "sent" : "received")"
    }

    static func markLabel(_ event: ParameterEvent) -> String {
        switch event.change {
        case .interval(let ms?)?: return "interval \(ASCII.decimal(ms, decimals: 2)) ms"
        case .phy(let phy?)?: return phy
        case .dataLength(let octets)?: return "data length \(octets)"
        case .mtu(let mtu)?: return "MTU \(mtu)"
        default: return event.event
        }
    }

    /// 1, 2 or 5 times a power of ten, at least `raw`.
    static func niceStep(_ raw: Double) -> Double {
        guard raw > 0, raw.isFinite else { return 1 }
        var power = 1.0
        while power * 10 <= raw { power *= 10 }
        while power > raw { power /= 10 }
        for factor in [1.0, 2.0, 5.0, 10.0] where power * factor >= raw { return power * factor }
        return power * 10
    }

    static func label(_ value: Double) -> String { ASCII.decimal(value, decimals: 3) }

    static func escape(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default:
                // Control characters are not allowed in XML 1.0.
                if let ascii = c.asciiValue, ascii < 0x20, c != "\t" { out += " " } else { out.append(c) }
            }
        }
        return out
    }
}

private func f(_ value: Double) -> String { ASCII.decimal(value, decimals: 1) }
