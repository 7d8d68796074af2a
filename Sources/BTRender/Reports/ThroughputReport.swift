import BTCapture
import BTDecode
import BTAnalysis
import BTQuery

/// `btlog stats --throughput`: application throughput per connection and direction over time
/// (a sparkline each, then the table of every interval), and the diagnosis: the rate achieved,
/// the ceiling the link's parameters allow, and the first limit in the way.
public struct ThroughputReport: ReportRenderer {
    let report: CaptureReport
    let series: ThroughputSeries
    let style: Style
    /// Columns the sparklines may use.
    let chartWidth: Int

    public init(_ report: CaptureReport, series: ThroughputSeries, style: Style, chartWidth: Int = 60) {
        self.report = report
        self.series = series
        self.style = style
        self.chartWidth = max(8, chartWidth)
    }

    public func render(to out: OutputWriter) throws {
        for line in lines { try out.line(line) }
    }

    public var lines: [String] {
        var lines: [String] = []
        let keys = series.busiest(Self.seriesShown).sorted()
        let seconds = StatisticsText.number(Double(series.interval) / 1_000_000, decimals: 6)
        lines.append(style.paint("Throughput", Style.bold) + "  application data (ATT values, L2CAP channel payloads, A2DP media), kbit/s per \(seconds) s")
        guard !keys.isEmpty else {
            lines.append("  No application data in the packets counted.")
            return lines + diagnosisLines()
        }
        var table = TextTable(["CONNECTION", "DIRECTION", "PEAK", "MEAN", "CHART"], rightAligned: [2, 3], indent: 2)
        for key in keys {
            let values = series.kbps(key)
            let peak = values.max() ?? 0
            let mean = values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count)
            table.add([name(of: key.connection), key.sent ? "sent" : "received", StatisticsText.number(peak, decimals: 1),
                       StatisticsText.number(mean, decimals: 1), Self.sparkline(values, width: chartWidth)])
        }
        lines += table.lines
        if series.bins.count > keys.count {
            lines.append("  ... and \(series.bins.count - keys.count) more (the \(keys.count) busiest shown; --handle chooses, --json lists every one)")
        }
        lines.append("")
        var rows = TextTable(["TIME"] + keys.map { "\(Hex.u16(handle(of: $0.connection))) \($0.sent ? "sent" : "received")" },
                             rightAligned: Set(1 ... keys.count), indent: 2)
        // The intervals from the first to the last that one of the shown series carried data in, and one either side.
        let first = max(0, (keys.compactMap { series.bins[$0]?.first }.min() ?? 0) - 1)
        let end = min(series.binCount, (keys.compactMap { series.bins[$0]?.end }.max() ?? 0) + 1)
        let columns = keys.map { series.kbps($0, from: first, to: end) }
        for bin in first ..< end {
            rows.add(["+" + StatisticsText.seconds(Int64(bin) * series.interval)] + columns.map { StatisticsText.number($0[bin - first], decimals: 1) })
        }
        lines += rows.lines
        return lines + diagnosisLines()
    }

    private func diagnosisLines() -> [String] {
        let assessed = ConnectionThroughput.assess(report)
        guard !assessed.isEmpty else { return [] }
        var lines = ["", style.paint("Diagnosis", Style.bold)]
        for t in assessed {
            var head = "  \(name(of: t.connection)), \(t.sent ? "sent" : "received"): "
            head += t.achievedKbps.map { "achieved \(LEThroughputCeiling.format($0)) kbps" } ?? "\(t.bytes) bytes"
            if let ceiling = t.ceiling {
                head += "; ceiling \(LEThroughputCeiling.format(ceiling.kbps)) kbps (\(Self.describe(ceiling)))"
            } else if report.connections[t.connection].transport != .le {
                head += "; no ceiling model for \(report.connections[t.connection].transport?.rawValue ?? "this") links"
            }
            lines.append(head)
            if let limit = t.limit {
                lines.append("    " + style.paint("first limit: ", Style.yellow) + limit.sentence)
            } else if t.ceiling != nil {
                lines.append("    no parameter within reach raises the ceiling by more than 10 %")
            }
            if let pace = t.pace { lines.append("    " + pace) }
        }
        return lines
    }

    /// "interval 25 ms, LE 1M, data length 27, MTU 23, notifications of 20 bytes in 1 LL packet, 36 exchanges per event".
    public static func describe(_ c: LEThroughputCeiling) -> String {
        "interval \(StatisticsText.number(Double(c.intervalMicros) / 1000, decimals: 3)) ms, \(c.phy.name), data length \(c.dataLength), "
            + (c.transfer == .creditBased(mps: c.payload) ? "MPS \(c.payload)" : "MTU \(c.mtu)")
            + (c.encrypted ? ", encrypted" : "")
            + ", \(c.transfer.noun)s of \(c.payload) bytes in \(c.fragments) LL packet\(c.fragments == 1 ? "" : "s")"
            + ", \(c.exchangesPerEvent) exchanges per event"
    }

    private func handle(of connection: Int) -> UInt16 {
        report.connections.indices.contains(connection) ? report.connections[connection].handle : 0
    }

    private func name(of connection: Int) -> String {
        guard report.connections.indices.contains(connection) else { return "connection \(connection)" }
        let c = report.connections[connection]
        return "\(Hex.u16(c.handle)) \(c.address?.description ?? "-")"
    }

    /// The busiest series the text shows (a capture of thousands of links would be unreadable).
    static let seriesShown = 12

    static let blocks: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    /// One character per bin (bins averaged in groups when there are more than `width`): a
    /// space for nothing, then ▁ to █ in eighths of the series' peak; or, given a `scale`, ▁ at
    /// its lower end (or below) to █ at its upper end (or above), the same on every series.
    public static func sparkline(_ values: [Double], width: Int, scale: ClosedRange<Double>? = nil) -> String {
        guard !values.isEmpty, width > 0 else { return "" }
        let group = (values.count + width - 1) / width
        var columns: [Double] = []
        var index = 0
        while index < values.count {
            let slice = values[index ..< min(index + group, values.count)]
            columns.append(slice.reduce(0, +) / Double(slice.count))
            index += group
        }
        if let scale, scale.upperBound > scale.lowerBound {
            return String(columns.map { value -> Character in
                let level = Int(((min(max(value, scale.lowerBound), scale.upperBound) - scale.lowerBound) / (scale.upperBound - scale.lowerBound) * 8).rounded(.up)) - 1
                return blocks[min(7, max(0, level))]
            })
        }
        let peak = columns.max() ?? 0
        return String(columns.map { value -> Character in
            guard value > 0, peak > 0 else { return " " }
            return blocks[min(7, Int((value / peak * 8).rounded(.up)) - 1)]
        })
    }
}
