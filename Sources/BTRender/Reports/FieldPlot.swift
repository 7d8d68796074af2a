import BTCapture
import BTDecode
import BTAnalysis

/// `btlog plot`: fields against capture time as an SVG. One panel per unit (fields without a
/// unit each get their own), the panels sharing the time axis; a line per field in its colour,
/// broken where a link went down and came up again; links coming up and going down marked
/// across every panel.
public struct FieldPlot {
    public static let width = 960
    static let left = 80.0, right = 240.0, top = 58.0, panelHeight = 220.0, gap = 30.0, bottom = 60.0
    /// "▲ 0x0040" at 10 px, with a little room after it.
    static let linkLabelWidth = 52.0
    /// More points than this per line are drawn as each pixel column's lowest and highest.
    static let mostPoints = 2000

    let series: FieldSeries
    let title: String

    public init(_ series: FieldSeries, title: String) {
        self.series = series
        self.title = title
    }

    /// Fields grouped by unit, in the order asked: (unit, field indices).
    var panels: [(unit: String?, fields: [Int])] {
        var panels: [(unit: String?, fields: [Int])] = []
        for (index, field) in series.fields.enumerated() {
            let unit = FieldRegistry.unit(of: field)
            if let unit, let at = panels.firstIndex(where: { $0.unit == unit }) {
                panels[at].fields.append(index)
            } else {
                panels.append((unit, [index]))
            }
        }
        return panels
    }

    public var svg: String {
        let panels = self.panels
        let plotWidth = Double(Self.width) - Self.left - Self.right
        let height = Self.top + Double(panels.count) * (Self.panelHeight + Self.gap) - Self.gap + Self.bottom
        let origin = series.origin ?? 0
        let seconds = max(Double((series.last ?? origin).saturatingSubtract(origin)) / 1_000_000, 0.001)
        func x(_ time: Int64) -> Double { Self.left + Double(time.saturatingSubtract(origin)) / 1_000_000 / seconds * plotWidth }
        var s = """
        <?xml version="1.0" encoding="UTF-8"?>
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Self.width)" height="\(Int(height))" viewBox="0 0 \(Self.width) \(Int(height))" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12">
        <rect width="100%" height="100%" fill="white"/>
        <text x="\(Self.left)" y="28" font-size="16" font-weight="bold">\(ThroughputPlot.escape(title))</text>

        """
        let xStep = ThroughputPlot.niceStep(seconds / 8)
        let bottomY = height - Self.bottom
        for tick in Self.ticks(from: 0, to: seconds, step: xStep) {
            let px = Self.left + tick / seconds * plotWidth
            s += "<line x1=\"\(f(px))\" y1=\"\(f(bottomY))\" x2=\"\(f(px))\" y2=\"\(f(bottomY + 5))\" stroke=\"black\"/>\n"
            s += "<text x=\"\(f(px))\" y=\"\(f(bottomY + 20))\" text-anchor=\"middle\">\(ThroughputPlot.label(tick))</text>\n"
        }
        s += "<text x=\"\(f(Self.left + plotWidth / 2))\" y=\"\(f(height - 15))\" text-anchor=\"middle\">time since the first packet (s)</text>\n"
        // Links up and down, across every panel. Their labels go in the first of two rows above
        // the plot where they do not run into the one before (a link that drops and comes back
        // within a second); where neither has room, the line alone marks it.
        var rowEnds = [-Double.infinity, -Double.infinity]
        for event in series.links {
            let px = x(event.time)
            let colour = event.connected ? "#2ca02c" : "#d62728"
            s += "<line x1=\"\(f(px))\" y1=\"\(f(Self.top))\" x2=\"\(f(px))\" y2=\"\(f(bottomY))\" stroke=\"\(colour)\" stroke-opacity=\"0.7\" stroke-dasharray=\"4 3\"/>\n"
            guard let row = rowEnds.firstIndex(where: { $0 <= px + 3 }) else { continue }
            rowEnds[row] = px + 3 + Self.linkLabelWidth
            s += "<text x=\"\(f(px + 3))\" y=\"\(f(Self.top - 4 - Double(row) * 11))\" font-size=\"10\" fill=\"\(colour)\">\(event.connected ? "▲" : "▼") \(Hex.u16(event.handle))</text>\n"
        }
        let breaks = series.links.filter { !$0.connected }.map(\.time)
        var colourIndex = 0
        for (panelIndex, panel) in panels.enumerated() {
            let panelTop = Self.top + Double(panelIndex) * (Self.panelHeight + Self.gap)
            let values = panel.fields.flatMap { series.points[$0].map(\.value) }
            var low = values.min() ?? 0, high = values.max() ?? 1
            // A flat line (or one whose spread is lost in its magnitude) gets a band around it.
            let floor = max(abs(low), abs(high)) * 1e-9
            if high - low <= floor { low -= max(1, floor); high += max(1, floor) }
            let yStep = ThroughputPlot.niceStep((high - low) * 1.1 / 5)
            let yMin = (low / yStep).rounded(.down) * yStep, yMax = (high / yStep).rounded(.up) * yStep
            func y(_ v: Double) -> Double { panelTop + Self.panelHeight - (v - yMin) / (yMax - yMin) * Self.panelHeight }
            for t in Self.ticks(from: yMin, to: yMax, step: yStep) {
                s += "<line x1=\"\(f(Self.left))\" y1=\"\(f(y(t)))\" x2=\"\(f(Self.left + plotWidth))\" y2=\"\(f(y(t)))\" stroke=\"#e0e0e0\"/>\n"
                s += "<text x=\"\(f(Self.left - 8))\" y=\"\(f(y(t) + 4))\" text-anchor=\"end\">\(ThroughputPlot.label(t))</text>\n"
            }
            s += "<rect x=\"\(f(Self.left))\" y=\"\(f(panelTop))\" width=\"\(f(plotWidth))\" height=\"\(f(Self.panelHeight))\" fill=\"none\" stroke=\"black\"/>\n"
            let axis = panel.unit ?? series.fields[panel.fields[0]].label
            s += "<text x=\"20\" y=\"\(f(panelTop + Self.panelHeight / 2))\" text-anchor=\"middle\" transform=\"rotate(-90 20 \(f(panelTop + Self.panelHeight / 2)))\">\(ThroughputPlot.escape(axis))</text>\n"
            for (row, index) in panel.fields.enumerated() {
                let colour = ThroughputPlot.palette[colourIndex % ThroughputPlot.palette.count]
                colourIndex += 1
                let points = series.points[index]
                for segment in Self.segments(points, breaks: breaks) {
                    let drawn = Self.thinned(segment, columns: Int(plotWidth), x: x)
                    let list = drawn.map { "\(f(x($0.time))),\(f(y($0.value)))" }.joined(separator: " ")
                    s += "<polyline fill=\"none\" stroke=\"\(colour)\" stroke-width=\"1.5\" points=\"\(list)\"/>\n"
                    if drawn.count <= 200 {
                        for point in drawn { s += "<circle cx=\"\(f(x(point.time)))\" cy=\"\(f(y(point.value)))\" r=\"2\" fill=\"\(colour)\"/>\n" }
                    }
                }
                let legendX = Self.left + plotWidth + 15, legendY = panelTop + 10 + Double(row) * 32
                s += "<line x1=\"\(f(legendX))\" y1=\"\(f(legendY))\" x2=\"\(f(legendX + 24))\" y2=\"\(f(legendY))\" stroke=\"\(colour)\" stroke-width=\"2\"/>\n"
                s += "<text x=\"\(f(legendX + 30))\" y=\"\(f(legendY + 4))\">\(ThroughputPlot.escape(series.fields[index].name))</text>\n"
                let summary = points.isEmpty ? "no values" : "\(points.count) values, \(ThroughputPlot.label(points.map(\.value).min()!)) to \(ThroughputPlot.label(points.map(\.value).max()!))"
                s += "<text x=\"\(f(legendX + 30))\" y=\"\(f(legendY + 18))\" font-size=\"10\" fill=\"#555555\">\(summary)</text>\n"
            }
            if values.isEmpty {
                s += "<text x=\"\(f(Self.left + plotWidth / 2))\" y=\"\(f(panelTop + Self.panelHeight / 2))\" text-anchor=\"middle\">no values in the capture</text>\n"
            }
        }
        return s + "</svg>\n"
    }

    /// The axis' ticks: each a multiple of the step from the first, at most 20 of them (values
    /// a capture sends can be of any size; adding a step to 1e19 changes nothing).
    static func ticks(from low: Double, to high: Double, step: Double) -> [Double] {
        guard low.isFinite, high.isFinite, step > 0, step.isFinite, high >= low else { return [] }
        let count = Int(min(19, ((high - low) / step).rounded(.down))) + 1
        return (0 ..< max(count, 0)).map { low + Double($0) * step }
    }

    /// The points between link losses: a line is not drawn across a time the link was down.
    static func segments(_ points: [FieldSeries.Point], breaks: [Int64]) -> [[FieldSeries.Point]] {
        guard !breaks.isEmpty else { return points.isEmpty ? [] : [points] }
        var segments: [[FieldSeries.Point]] = [[]]
        var next = 0
        let sortedBreaks = breaks.sorted()
        for point in points {
            var crossed = false
            while next < sortedBreaks.count, sortedBreaks[next] <= point.time { next += 1; crossed = true }
            if crossed, !segments[segments.count - 1].isEmpty { segments.append([]) }
            segments[segments.count - 1].append(point)
        }
        return segments.filter { !$0.isEmpty }
    }

    /// At most two points (the lowest and highest, in time order) per pixel column, when there
    /// are more than `mostPoints`: what a line through every point would look like anyway.
    static func thinned(_ points: [FieldSeries.Point], columns: Int, x: (Int64) -> Double) -> [FieldSeries.Point] {
        guard points.count > mostPoints else { return points }
        var out: [FieldSeries.Point] = []
        var column = Int.min
        var low: FieldSeries.Point?, high: FieldSeries.Point?
        func flush() {
            guard let low, let high else { return }
            if low.time <= high.time { out.append(low); if high != low { out.append(high) } } else { out.append(high); out.append(low) }
        }
        for point in points {
            // Clamped: a timestamp decades from the others must not overflow the conversion.
            let c = Int(min(max(x(point.time), -1e12), 1e12))
            if c != column {
                flush()
                column = c
                low = point
                high = point
            } else {
                if point.value < low!.value { low = point }
                if point.value > high!.value { high = point }
            }
        }
        flush()
        return out
    }

    /// The numbers as CSV: time (RFC 3339), seconds since the first packet, field, value.
    public var csv: String {
        let origin = series.origin ?? 0
        var rows: [(Int64, Int, Double)] = []
        for (index, points) in series.points.enumerated() { rows += points.map { ($0.time, index, $0.value) } }
        rows.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        var out = "time,seconds,field,value\n"
        var time = UTCTimeFormatter()
        for (moment, index, value) in rows {
            var cell: [UInt8] = []
            time.append(moment, to: &cell)
            out += "\(String(decoding: cell, as: UTF8.self)),\(ASCII.decimal(Double(moment.saturatingSubtract(origin)) / 1_000_000, decimals: 6)),\(series.fields[index].name),\(FieldValue.realText(value))\n"
        }
        return out
    }
}

private func f(_ value: Double) -> String { ASCII.decimal(value, decimals: 1) }
