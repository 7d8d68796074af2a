import BTCapture
import BTDecode
import BTAnalysis
import BTQuery
import BTRender
import Foundation

/// The whole-capture views a key away from the list: `btlog stats`, `btlog gatt` and
/// `btlog diagnose` over the packets loaded so far, made on a thread of their own from the
/// index (every packet decoded again, as the first pass decoded it), as text lines.
public final class CaptureReports: @unchecked Sendable { // `result` is behind `lock`
    public enum Kind: String, CaseIterable, Sendable {
        case statistics = "Statistics"
        case gatt = "GATT databases"
        case diagnosis = "Diagnosis"
        case values = "Values"
    }

    public let kind: Kind
    private let lock = NSLock()
    private var result: [String]?

    /// Starts making the report of `kind` over what `index` holds now; the values report over
    /// the `listed` packets, of `fields` (every amount described protocols give when empty).
    public init(_ kind: Kind, index: PacketIndex, source: String, listed: PacketRows? = nil, fields: [FieldDefinition] = []) {
        self.kind = kind
        let thread = Thread { [self] in
            let lines = kind == .values ? FieldValuesReport.lines(index: index, listed: listed ?? .all(count: index.count), fields: fields)
                : Self.lines(kind, index: index, source: source)
            lock.withLock { result = lines }
        }
        thread.stackSize = 1 << 24
        thread.start()
    }

    /// The report's lines once made; nil while it is being made.
    public var lines: [String]? { lock.withLock { result } }

    static func lines(_ kind: Kind, index: PacketIndex, source: String) -> [String] {
        var options = index.decoder.session.options
        options.buildsDisplayText = false
        let style = Style(enabled: false)
        switch kind {
        case .values:
            return FieldValuesReport.lines(index: index, listed: .all(count: index.count), fields: [])
        case .gatt:
            options.keepsLastValues = true
            let session = index.decodeAll(options: options) { _ in }
            return rendered(GATTReport(session: session, style: style))
        case .statistics, .diagnosis:
            var collector = StatisticsCollector()
            collector.beginFile(source)
            let session = index.decodeAll(options: options) { packet in try? collector.consume(packet) }
            collector.endFile(session: session)
            let report = collector.finish(vendors: VendorNames.system)
            if kind == .statistics { return StatisticsReport(report, style: style).lines }
            let problems = Diagnosis.problems(in: report)
            return DiagnosisReport(problems, gaps: Diagnosis.completeness(in: report), packets: report.totals.packets, files: [source],
                                   style: style).lines
        }
    }

    static func rendered(_ report: ReportRenderer) -> [String] {
        let out = OutputWriter(fd: -1, capacity: 1 << 30)
        try? report.render(to: out)
        let text = out.drain { String(decoding: $0, as: UTF8.self) }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).dropLast(text.hasSuffix("\n") ? 1 : 0)
    }
}
