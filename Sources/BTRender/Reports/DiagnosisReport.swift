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

    public var document: String {
        var json = JSONWriter()
        json.object { json in
            json.member("schema_version", Self.schemaVersion)
            json.key("files")
            json.array { json in for file in files { json.string(file) } }
            json.member("packets", packets)
            json.member("errors", problems.filter { $0.severity == .error }.count)
            json.member("warnings", problems.filter { $0.severity == .warning }.count)
            json.objects("problems", problems) { json, p in
                json.member("severity", p.severity.rawValue)
                json.member("category", p.category.rawValue)
                json.member("summary", p.summary)
                json.member("advice", p.advice)
                json.member("count", p.count)
                json.key("frames")
                json.array { json in for frame in p.frames { json.integer(frame) } }
                json.member("handle", p.handle.map(Int.init))
                json.member("address", p.address?.description)
            }
        }
        return json.text
    }
}
