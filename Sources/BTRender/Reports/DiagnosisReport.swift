import BTCapture
import BTDecode
import BTQuery

/// `btlog diagnose`: one entry per problem (severity, category, what happened, its packets),
/// the advice under it, and a closing count; or the same as one JSON document
/// (docs/diagnose.schema.json).
public struct DiagnosisReport: ReportRenderer {
    public static let schemaVersion = 1
    let problems: [Problem]
    let packets: Int
    let files: [String]
    let style: Style

    public init(_ problems: [Problem], packets: Int, files: [String], style: Style) {
        self.problems = problems
        self.packets = packets
        self.files = files
        self.style = style
    }

    public func render(to out: OutputWriter) throws {
        for line in lines { try out.line(line) }
    }

    public var lines: [String] {
        guard !problems.isEmpty else { return ["No problems found in \(packets) packet\(packets == 1 ? "" : "s")."] }
        var lines: [String] = []
        for p in problems {
            let severity = p.severity == .error ? style.paint("error  ", Style.red) : style.paint("warning", Style.yellow)
            let frames = p.frames.map { "#\($0)" }.joined(separator: ", ") + (p.count > p.frames.count ? ", ..." : "")
            lines.append("\(severity)  \(p.category.rawValue.padded(to: 22))\(p.summary)  \(style.paint(frames, Style.dim))")
            lines.append("         \(String(repeating: " ", count: 22))→ \(p.advice)")
        }
        let errors = problems.filter { $0.severity == .error }.count, warnings = problems.count - errors
        lines.append("")
        lines.append("\(problems.count) problem\(problems.count == 1 ? "" : "s") in \(packets) packets: "
                     + "\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")")
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
    var schemaVersion: Int
    var files: [String]
    var packets: Int
    var errors: Int
    var warnings: Int
    var problems: [ProblemDocument]

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
    }
}
