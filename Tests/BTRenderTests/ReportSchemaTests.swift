import XCTest
import Foundation
import BTCapture
import BTDecode
@testable import BTAnalysis
import BTQuery
import BTFixtures
@testable import BTRender

/// docs/stats.schema.json and StatisticsDocument say the same, and docs/diagnose.schema.json
/// and DiagnosisDocument: every member any fixture's `stats --json --throughput` (`diagnose
/// --json`) writes is declared where it is written, every required member is there, and every
/// member the schema declares is written by some fixture (so the schema keeps nothing the
/// document lost). Types are the reference tier's (python3-jsonschema
/// validates each document there); this tier holds the names, in-process.
final class ReportSchemaTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func testTheSchemaAndTheDocumentDeclareTheSameMembers() throws {
        let schemaData = try Data(contentsOf: Self.root.appendingPathComponent("docs/stats.schema.json"))
        let schema = try XCTUnwrap(JSONSerialization.jsonObject(with: schemaData) as? [String: Any])
        let walker = SchemaWalker(definitions: schema["$defs"] as? [String: Any] ?? [:])

        let fixtures = Self.root.appendingPathComponent("Fixtures")
        var files = try FileManager.default.contentsOfDirectory(atPath: fixtures.path)
            .filter { !$0.hasSuffix(".md") && $0 != "third-party" }.sorted().map { "Fixtures/" + $0 }
        files += try FileManager.default.contentsOfDirectory(atPath: fixtures.path + "/third-party/crackle")
            .filter { $0.hasSuffix(".pcap") }.sorted().map { "Fixtures/third-party/crackle/" + $0 }
        // One run of every file alone, and one of two files together (connections name their file).
        var runs = files.map { [$0] }
        runs.append(["Fixtures/trouble.btsnoop", "Fixtures/a2dp-stream.btsnoop"])

        let diagnoseData = try Data(contentsOf: Self.root.appendingPathComponent("docs/diagnose.schema.json"))
        let diagnoseSchema = try XCTUnwrap(JSONSerialization.jsonObject(with: diagnoseData) as? [String: Any])
        let diagnoseWalker = SchemaWalker(definitions: diagnoseSchema["$defs"] as? [String: Any] ?? [:])

        var seen = Set<String>(), seenDiagnosis = Set<String>()
        var failures: [String] = []
        for run in runs {
            let (stats, diagnosis) = try Self.documents(of: run)
            walker.check(try JSONSerialization.jsonObject(with: Data(stats.utf8)), against: schema, at: "", seen: &seen) {
                failures.append("stats of \(run.joined(separator: " + ")): \($0)")
            }
            diagnoseWalker.check(try JSONSerialization.jsonObject(with: Data(diagnosis.utf8)), against: diagnoseSchema, at: "", seen: &seenDiagnosis) {
                failures.append("diagnose of \(run.joined(separator: " + ")): \($0)")
            }
        }
        // The identity address behind a resolvable private address (crackle's numeric_pin.pcap
        // shows the IRK, not the address: given here as --irk gives it).
        var identified = DecodeOptions()
        identified.identityKeys = [([0x9C, 0x3E, 0x77, 0x1E, 0x76, 0x52, 0x20, 0xFD, 0x69, 0x0B, 0x7E, 0x62, 0xE7, 0x45, 0x29, 0x69],
                                    BDAddr(littleEndian: [0x55, 0x44, 0x33, 0x22, 0x11, 0xC0]))]
        let identityDecoder = Decoder(options: identified)
        var identityCollector = StatisticsCollector()
        let pin = try CaptureInput.open(Self.root.appendingPathComponent("Fixtures/third-party/crackle/numeric_pin.pcap").path)
        while let frame = try pin.next() { try identityCollector.consume(identityDecoder.decode(frame)) }
        let identityReport = identityCollector.finish()
        XCTAssertEqual(identityReport.resolvedAddresses.map { "\($0.address) \($0.identity.map(String.init(describing:)) ?? "-")" }, ["69:5B:FB:2C:3F:A7 C0:11:22:33:44:55"])
        let identityDocument = try JSONSerialization.jsonObject(with: Data(StatisticsJSON(identityReport, files: ["irk"]).text.utf8))
        walker.check(identityDocument, against: schema, at: "", seen: &seen) { failures.append("--irk: \($0)") }
        // A link from the air paired with LE Secure Connections (no fixture file holds one).
        let decoder = Decoder()
        var collector = StatisticsCollector()
        for frame in AirScenario.frames(.nordicBLE, secureConnections: true) { try collector.consume(decoder.decode(frame)) }
        let secure = try JSONSerialization.jsonObject(with: Data(StatisticsJSON(collector.finish(), files: ["sc"]).text.utf8))
        walker.check(secure, against: schema, at: "", seen: &seen) { failures.append("Secure Connections: \($0)") }
        // The amounts described protocols decode: no description is loaded in this process, so
        // a report that has some (the command line's, with the shipped ones, is StatsTests').
        var valued = CaptureReport()
        valued.values = [ValueSummary(field: "hrs.heart_rate", label: "Heart rate", unit: "bpm", count: 2, minimum: 72, maximum: 73, sum: 145,
                                      firstFrame: 95, lastFrame: 96, first: 1_557_360_268_122_700, last: 1_557_360_268_124_200)]
        let values = try JSONSerialization.jsonObject(with: Data(StatisticsJSON(valued, files: ["values"]).text.utf8))
        walker.check(values, against: schema, at: "", seen: &seen) { failures.append("values: \($0)") }
        // Two hosts' captures merged into one timeline (source_links): the kernel's two ends.
        let reader = try CaptureInput.open(Self.root.appendingPathComponent("Fixtures/kernel-two-hosts.btsnoop").path)
        var all: [Frame] = []
        while let frame = try reader.next() { all.append(frame) }
        let ends = [Set<UInt16>([0, 2]), Set<UInt16>([1, 3])].enumerated().map { index, controllers in
            MergeInput(name: "host\(index)") {
                ArrayFrameReader(frames: all.filter { controllers.contains($0.controller) }, formatDescription: "host", nativeFormat: .btsnoopMonitor)
            }
        }
        let merged = try MergePlan.reader(ends, try MergePlan.align(ends))
        var mergedCollector = StatisticsCollector()
        let mergedDecoder = Decoder()
        while let frame = try merged.next() { try mergedCollector.consume(mergedDecoder.decode(frame)) }
        let mergedReport = mergedCollector.finish()
        XCTAssertEqual(mergedReport.sourceLinks.count, 4, "two links, each both ways")
        let mergedDocument = try JSONSerialization.jsonObject(with: Data(StatisticsJSON(mergedReport, files: ["merged"]).text.utf8))
        walker.check(mergedDocument, against: schema, at: "", seen: &seen) { failures.append("merge: \($0)") }
        // A host's log merged with a sniffer's capture of its link: the air's end has an access address.
        let withAir = ["known-ltk-central.btsnoop", "third-party/crackle/known_ltk.pcap"].map { name in
            MergeInput(name: name) { try CaptureInput.open(Self.root.appendingPathComponent("Fixtures/" + name).path) }
        }
        let airMerged = try MergePlan.reader(withAir, try MergePlan.align(withAir))
        var airCollector = StatisticsCollector()
        let airDecoder = Decoder()
        while let frame = try airMerged.next() { try airCollector.consume(airDecoder.decode(frame)) }
        let airReport = airCollector.finish()
        XCTAssertEqual(airReport.sourceLinks.map { $0.link.to.accessAddress ?? $0.link.from.accessAddress }, [0x5065_4CA7, 0x5065_4CA7])
        let airDocument = try JSONSerialization.jsonObject(with: Data(StatisticsJSON(airReport, files: ["merged"]).text.utf8))
        walker.check(airDocument, against: schema, at: "", seen: &seen) { failures.append("air merge: \($0)") }
        for failure in failures.prefix(20) { XCTFail(failure) }
        let declared = walker.declaredMembers(of: schema, at: "")
        XCTAssertEqual(declared.subtracting(seen).sorted(), [], "members the schema declares that no fixture's document writes")
        XCTAssertGreaterThan(seen.count, 150)
        let declaredDiagnosis = diagnoseWalker.declaredMembers(of: diagnoseSchema, at: "")
        XCTAssertEqual(declaredDiagnosis.subtracting(seenDiagnosis).sorted(), [], "members the diagnose schema declares that no document writes")
    }

    /// docs/diff.schema.json and DiffJSON: every scenario pair's document (and a pair with a
    /// conversation cut at the step limit is not needed: `not_compared` is an array of strings
    /// either way) has the schema's members and no other, and every member is written.
    func testTheDiffSchemaAndTheDocumentDeclareTheSameMembers() throws {
        let schemaData = try Data(contentsOf: Self.root.appendingPathComponent("docs/diff.schema.json"))
        let schema = try XCTUnwrap(JSONSerialization.jsonObject(with: schemaData) as? [String: Any])
        let walker = SchemaWalker(definitions: schema["$defs"] as? [String: Any] ?? [:])
        var seen = Set<String>(), failures: [String] = []
        let base = DiffRecorder.side(of: DiffPairs.all[0].frames())
        for pair in DiffPairs.all.dropFirst() {
            let diff = CaptureDiff(base, DiffRecorder.side(of: pair.frames()))
            let text = DiffJSON(diff, a: DiffInput(file: DiffPairs.all[0].name, packets: 1), b: DiffInput(file: pair.name, packets: 1)).text
            walker.check(try JSONSerialization.jsonObject(with: Data(text.utf8)), against: schema, at: "", seen: &seen) { failures.append("\(pair.name): \($0)") }
        }
        for failure in failures.prefix(20) { XCTFail(failure) }
        XCTAssertEqual(walker.declaredMembers(of: schema, at: "").subtracting(seen).sorted(), [], "members the diff schema declares that no document writes")
    }

    /// `btlog stats --json --throughput` and `btlog diagnose --json` of the files, in-process.
    static func documents(of files: [String]) throws -> (stats: String, diagnosis: String) {
        var collector = StatisticsCollector(throughputInterval: 1_000_000)
        for file in files {
            let reader = try CaptureInput.open(root.appendingPathComponent(file).path)
            let decoder = Decoder()
            collector.beginFile(file)
            while let frame = try reader.next() { try collector.consume(decoder.decode(frame)) }
            collector.endFile(session: decoder.session)
        }
        let report = collector.finish()
        let diagnosis = DiagnosisReport(Diagnosis.problems(in: report), gaps: Diagnosis.completeness(in: report), packets: report.totals.packets, files: files, style: Style(enabled: false))
        return (StatisticsJSON(report, files: files, throughput: collector.throughput).text, diagnosis.document)
    }
}

/// Walks a JSON document beside its JSON Schema (the subset docs/*.schema.json use: $ref to
/// $defs, oneOf with null, properties, required, additionalProperties, items).
struct SchemaWalker {
    let definitions: [String: Any]

    /// The schema node `node` stands for, for a value that is (or is not) null.
    func resolve(_ node: [String: Any], forNull isNull: Bool) -> [String: Any] {
        if let reference = node["$ref"] as? String, let name = reference.split(separator: "/").last,
           let target = definitions[String(name)] as? [String: Any] {
            return resolve(target, forNull: isNull)
        }
        if let branches = node["oneOf"] as? [[String: Any]] {
            let nullBranch = branches.first { ($0["type"] as? String) == "null" }
            if isNull, let nullBranch { return nullBranch }
            if let other = branches.first(where: { ($0["type"] as? String) != "null" }) { return resolve(other, forNull: isNull) }
        }
        return node
    }

    func check(_ value: Any, against node: [String: Any], at path: String, seen: inout Set<String>, fail: (String) -> Void) {
        let node = resolve(node, forNull: value is NSNull)
        if let object = value as? [String: Any] {
            let properties = node["properties"] as? [String: Any] ?? [:]
            for key in object.keys.sorted() {
                if let member = properties[key] as? [String: Any] {
                    seen.insert(path + "/" + key)
                    check(object[key]!, against: member, at: path + "/" + key, seen: &seen, fail: fail)
                } else if let additional = node["additionalProperties"] as? [String: Any] {
                    check(object[key]!, against: additional, at: path + "/*", seen: &seen, fail: fail)
                } else {
                    fail("\(path)/\(key) is written but the schema does not declare it")
                }
            }
            for required in node["required"] as? [String] ?? [] where object[required] == nil {
                fail("\(path)/\(required) is required by the schema but not written")
            }
        } else if let array = value as? [Any], let items = node["items"] as? [String: Any] {
            for item in array { check(item, against: items, at: path + "[]", seen: &seen, fail: fail) }
        }
    }

    /// Every member path the schema declares.
    func declaredMembers(of node: [String: Any], at path: String) -> Set<String> {
        let node = resolve(node, forNull: false)
        var paths = Set<String>()
        for (key, member) in node["properties"] as? [String: Any] ?? [:] {
            paths.insert(path + "/" + key)
            if let member = member as? [String: Any] { paths.formUnion(declaredMembers(of: member, at: path + "/" + key)) }
        }
        if let items = node["items"] as? [String: Any] { paths.formUnion(declaredMembers(of: items, at: path + "[]")) }
        return paths
    }
}
