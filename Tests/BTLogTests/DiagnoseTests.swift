import XCTest
import Foundation
import BTCapture
import BTFixtures

/// `btlog diagnose` on a capture built to hold one of each problem: every problem is found at
/// the packet the generator says it put it, normal events are not reported, and the exit
/// status follows what was found.
final class DiagnoseTests: XCTestCase {
    func btlog(_ arguments: String...) throws -> Tool.Result { try Tool.run(Tool.btlog, arguments) }

    static func troubleCapture() throws -> (path: String, marks: [String: Int]) {
        let (frames, marks) = Scenarios.troubleSession()
        let path = ExportTests.temporary("trouble.btsnoop")
        try Data(try FixtureContainers.encode(frames, as: .btsnoopH4)).write(to: URL(fileURLWithPath: path))
        return (path, marks)
    }

    func problems(_ arguments: [String]) throws -> (status: Int32, problems: [[String: Any]]) {
        let result = try Tool.run(Tool.btlog, ["diagnose", "--json"] + arguments)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any], result.err)
        return (result.status, try XCTUnwrap(document["problems"] as? [[String: Any]]))
    }

    func testEveryProblemIsFoundWhereItWasPut() throws {
        let (path, marks) = try Self.troubleCapture()
        let (status, found) = try problems([path])
        XCTAssertEqual(status, 1, "problems found: exit status 1")
        // (mark, category, severity, words the summary holds)
        let expected: [(String, String, String, String)] = [
            ("commandDisallowed", "hci", "warning", "LE Set Scan Parameters failed: Command Disallowed (0x0C)"),
            ("unansweredCommand", "controller", "error", "Write Local Name never answered"),
            ("hardwareError", "controller", "error", "Hardware Error, code 0x2A"),
            ("insufficientEncryption", "att", "warning", "Insufficient Encryption (0x0F) for Read Request"),
            ("ltkMissing", "encryption", "error", "No LTK for the peer"),
            ("pairingFailed", "pairing", "error", "Pairing failed: Authentication Requirements (0x03), sent by the peer"),
            ("updateRejected", "connection_parameters", "warning", "Connection Parameter Update Response failed: rejected by the local host"),
            ("creditsExhausted", "credits", "warning", "Credits exhausted 1 time"),
            ("creditViolation", "credits", "error", "K-frames sent without credits"),
            ("lateResponse", "att", "error", "Response to Write Request 35 s after it, past ATT's 30 s timeout"),
            ("neverAnswered", "att", "error", "Read Request not answered within ATT's 30 s transaction timeout"),
            ("encryptionRefused", "encryption", "error", "Encryption did not start: PIN or Key Missing (0x06)"),
            ("micFailure", "disconnection", "error", "Disconnected: Connection Terminated due to MIC Failure (0x3D)"),
            ("connectionUpdateFailed", "connection_parameters", "warning", "Connection Update Complete failed: Unacceptable Connection Parameters (0x3B)"),
            ("supersededRequest", "att", "error", "Read Request superseded by another request"),
            ("supervisionTimeout", "disconnection", "error", "Disconnected: Connection Timeout (0x08)"),
            ("linkKeyMissing", "encryption", "warning", "No stored link key"),
            ("simplePairingFailed", "pairing", "error", "Pairing failed: Authentication Failure (0x05)"),
            ("channelRefused", "l2cap", "warning", "L2CAP connection refused for AVDTP: Connection refused - security block, by the peer"),
        ]
        for (name, category, severity, words) in expected {
            let frame = try XCTUnwrap(marks[name], name)
            let match = found.first { ($0["frames"] as? [Int])?.contains(frame) == true && ($0["summary"] as? String)?.contains(words) == true }
            XCTAssertNotNil(match, "\(name): no problem at #\(frame) saying '\(words)' in \(found.map { $0["summary"] ?? "" })")
            XCTAssertEqual(match?["category"] as? String, category, name)
            XCTAssertEqual(match?["severity"] as? String, severity, name)
            XCTAssertFalse((match?["advice"] as? String ?? "").isEmpty, name)
        }
        XCTAssertEqual(found.count, expected.count, "nothing else: \(found.map { $0["summary"] ?? "" })")
        // Normal events are not problems.
        for name in ["attributeNotFound", "normalDisconnection"] {
            let frame = try XCTUnwrap(marks[name])
            XCTAssertFalse(found.contains { ($0["frames"] as? [Int])?.contains(frame) == true }, name)
        }
        // In the order they happened.
        let firsts = found.compactMap { ($0["frames"] as? [Int])?.first }
        XCTAssertEqual(firsts, firsts.sorted())
    }

    func testTextColourAndFilters() throws {
        let (path, marks) = try Self.troubleCapture()
        let text = try btlog("diagnose", "--color", "always", path)
        XCTAssertEqual(text.status, 1)
        XCTAssertTrue(text.out.contains("\u{1B}[31merror"), "errors are red")
        XCTAssertTrue(text.out.contains("\u{1B}[33mwarning"), "warnings are yellow")
        XCTAssertTrue(text.out.contains("→ the link's encryption check (MIC) failed"), text.out)
        XCTAssertTrue(text.out.hasSuffix("19 problems in \(Scenarios.troubleSession().frames.count) packets: 12 errors, 7 warnings\n"), text.out)
        // --handle keeps the packets of one link: its two problems.
        let one = try problems(["--handle", "0x0041", path])
        XCTAssertEqual(one.problems.compactMap { ($0["frames"] as? [Int])?.first }, [marks["encryptionRefused"]!, marks["micFailure"]!])
    }

    func testExitStatus() throws {
        let clean = try btlog("diagnose", "Fixtures/le-throughput.btsnoop")
        XCTAssertEqual(clean.status, 0, clean.out)
        XCTAssertTrue(clean.out.hasPrefix("No problems found in "), clean.out)
        XCTAssertEqual(try btlog("diagnose", "/nonexistent.btsnoop").status, 2)
        XCTAssertEqual(try btlog("diagnose", "-f", "att.opcode ==", "Fixtures/le-throughput.btsnoop").status, 2)
        XCTAssertEqual(try btlog("diagnose", "--bogus", "Fixtures/le-throughput.btsnoop").status, 2)
    }

    /// Every fixture's diagnosis is valid against docs/diagnose.schema.json.
    func testJSONMatchesTheSchema() throws {
        guard let python = ExportTests.python(with: "jsonschema") else { throw Reference.skip("python3-jsonschema") }
        let checker = """
        import json, sys, jsonschema
        validator = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))
        for error in validator.iter_errors(json.load(sys.stdin)):
            print(error.message[:300], list(error.path)); sys.exit(1)
        """
        for fixture in try ExportTests.fixtures() + [try Self.troubleCapture().path] {
            let out = try btlog("diagnose", "--json", fixture)
            XCTAssertNotEqual(out.status, 2, "\(fixture): \(out.err)")
            let result = try Tool.run(python, ["-c", checker, "docs/diagnose.schema.json"], stdin: Data(out.out.utf8))
            XCTAssertEqual(result.status, 0, "\(fixture): \(result.out) \(result.err)")
        }
    }
}
