import BTCapture
import BTDecode
import BTAnalysis
import BTRender

/// The browser's values report (key v): a field's numbers over the listed packets, one
/// sparkline each, between the field's minimum (▁) and maximum (█), with the count, range,
/// mean and the packets they came from. The selected tree field, or every amount the
/// described protocols give (hrs.heart_rate, bas.level, a user's revcar.drive.speed).
enum FieldValuesReport {
    /// Columns of a sparkline: values beyond this many are averaged in groups.
    static let width = 64

    static func lines(index: PacketIndex, listed: PacketRows, fields asked: [FieldDefinition]) -> [String] {
        let fields = asked.isEmpty ? FieldRegistry.quantities : asked
        guard !fields.isEmpty else {
            return ["No field to plot: select a numeric field in the tree, or load a description whose values are amounts."]
        }
        var series = FieldSeries(fields: fields)
        var positions: [Int] = []
        switch listed {
        case .all(let count): positions = Array(0 ..< min(count, index.count))
        case .matches(let indices): positions = indices.map(Int.init)
        }
        var numbers: [[Int]] = Array(repeating: [], count: fields.count)
        index.decode(positions: positions, buildsDisplayText: false) { _, packet in
            let before = series.points.map(\.count)
            try? series.consume(packet)
            for field in fields.indices where series.points[field].count > before[field] { numbers[field].append(packet.frame.number) }
        }
        var lines = ["Values over the \(positions.count) listed packet\(positions.count == 1 ? "" : "s") (Esc closes; 'btlog plot' draws them against time)", ""]
        for (position, field) in fields.enumerated() {
            let values = series.points[position].map(\.value)
            let unit = FieldRegistry.unit(of: field).map { " \($0)" } ?? ""
            guard let low = values.min(), let high = values.max() else {
                lines.append("\(field.name): no values in the listed packets")
                continue
            }
            let mean = values.reduce(0, +) / Double(values.count)
            lines.append("\(field.name) (\(field.label)\(unit.isEmpty ? "" : ",\(unit)")): \(values.count) value\(values.count == 1 ? "" : "s"), "
                         + "\(StatisticsText.amount(low)) to \(StatisticsText.amount(high)), mean \(StatisticsText.amount(mean)), "
                         + "packets #\(numbers[position].first ?? 0)-#\(numbers[position].last ?? 0)")
            let scale = high > low ? low ... high : nil
            lines.append("  " + ThroughputReport.sparkline(values, width: width, scale: scale))
            lines.append("")
        }
        return lines
    }
}
