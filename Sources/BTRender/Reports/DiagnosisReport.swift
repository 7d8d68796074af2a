import BTCapture
import BTDecode
import BTAnalysis
import BTQuery

/// `btlog diagnose`: one entry per problem (severity, category, what happened, its packets),
/// the advice under it, and a closing count; or the same as one JSON document
/// (docs/diagnose.schema.json).
public struct DiagnosisReport: ReportRenderer {
    public static let schemaVersion = 2
    let problems: [Problem]
    /// What the capture itself lacks: listed apart, never counted as the devices' problems.
    let gaps: [CaptureGap]
    let packets: Int
    let files: [String]
    let style: Style

    public init(_ problems: [Problem], gaps: [CaptureGap] = [], packets: Int, files: [String], style: Style) {
        self.problems = problems
        self.gaps = gaps
        self.packets = packets
        self.files = files
        self.style = style
    }

    public func render(to out: OutputWriter) throws {
        for line in lines { try out.line(line) }
    }

    static let indent = String(repeating: " ", count: 31)

    static func frames(_ frames: [Int], count: Int) -> String {
        frames.map { "#\($0)" }.joined(separator: ", ") + (count > frames.count ? ", ..." : "")
    }

    public var lines: [String] {
        var lines: [String] = []
        for p in problems {
            let severity = p.severity == .error ? style.paint("error  ", Style.red) : style.paint("warning", Style.yellow)
            lines.append("\(severity)  \(p.category.rawValue.padded(to: 22))\(p.summary)  \(style.paint(Self.frames(p.frames, count: p.count), Style.dim))")
            lines.append("\(Self.indent)→ \(p.advice)")
        }
        if !gaps.isEmpty {
            if !lines.isEmpty { lines.append("") }
            lines.append("Capture completeness: what the capture lacks, not what the devices did")
            for g in gaps {
                lines.append("gap      \(g.kind.rawValue.padded(to: 22))\(g.summary)  \(style.paint(Self.frames(g.frames, count: g.count), Style.dim))")
                lines.append("\(Self.indent)→ \(g.advice)")
            }
        }
        let gapsLine = gaps.isEmpty ? "" : "; \(gaps.count) gap\(gaps.count == 1 ? "" : "s") in the capture"
        guard !problems.isEmpty else {
            if !lines.isEmpty { lines.append("") }
            lines.append("No problems found in \(packets) packet\(packets == 1 ? "" : "s")\(gapsLine).")
            return lines
        }
        let errors = problems.filter { $0.severity == .error }.count, warnings = problems.count - errors
        lines.append("")
        lines.append("\(problems.count) problem\(problems.count == 1 ? "" : "s") in \(packets) packets: "
                     + "\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")\(gapsLine)")
        return lines
    }

    /// The problems as one JSON document (DiagnosisDocument).
    public var document: String { JSONWriterEncoder().text(of: DiagnosisDocument(self)) }
}

/// `btlog diagnose --json`, member by member, as docs/diagnose.schema.json describes it.
struct DiagnosisDocument: Encodable {
    struct ProblemDocument: Encodable {
        var severity: String
        var category: String
        var summary: String
        var advice: String
        var count: Int
        var frames: [Int]
        var handle: Int?
        var address: String?
    }
    struct GapDocument: Encodable {
        var kind: String
        var summary: String
        var advice: String
        var count: Int
        var frames: [Int]
        var handle: Int?
        var address: String?
    }
    var schemaVersion: Int
    var files: [String]
    var packets: Int
    var errors: Int
    var warnings: Int
    var problems: [ProblemDocument]
    var completeness: [GapDocument]

    init(_ report: DiagnosisReport) {
        schemaVersion = DiagnosisReport.schemaVersion
        files = report.files
        packets = report.packets
        errors = report.problems.filter { $0.severity == .error }.count
        warnings = report.problems.filter { $0.severity == .warning }.count
        problems = report.problems.map {
            ProblemDocument(severity: $0.severity.rawValue, category: $0.category.rawValue, summary: $0.summary, advice: $0.advice,
                            count: $0.count, frames: $0.frames, handle: $0.handle.map(Int.init), address: $0.address?.description)
        }
        completeness = report.gaps.map {
            GapDocument(kind: $0.kind.rawValue, summary: $0.summary, advice: $0.advice, count: $0.count, frames: $0.frames,
                        handle: $0.handle.map(Int.init), address: $0.address?.description)
        }
    }
}
