import XCTest
import Foundation

/// `btlog grep` against GNU grep: on the table, where each packet is one line, btlog's output,
/// counts, context separators and exit statuses must be exactly grep -P's on show's rows.
final class GrepTests: XCTestCase {
    static let file = "Fixtures/le-heart-rate.btsnoop"

    /// show's rows without its closing status line, as a text file grep can read.
    func rows(_ file: String = GrepTests.file, name: String) throws -> String {
        let shown = try Tool.run(Tool.btlog, ["show", file, "--color", "never"])
        XCTAssertEqual(shown.status, 0)
        var lines = shown.out.split(separator: "\n", omittingEmptySubsequences: false)
        lines.removeLast(2) // the status line and the final empty piece
        let path = NSTemporaryDirectory() + "btlog-grep-\(name).txt"
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testAgreesWithGNUGrepOnTheTable() throws {
        guard let grep = Tool.find("grep") else { throw XCTSkip("grep is not installed") }
        let text = try rows(name: "table")
        let cases: [[String]] = [
            ["Handle Value Notification"], ["-v", "ATT"], ["-c", "Write Request"], ["-c", "-v", "ACL"],
            ["-i", "heart rate"], ["-F", "0x00(0E)"], ["Write Request.*0x00[0-9A-F]{2}"],
            ["-A", "2", "Pairing Failed"], ["-B", "1", "Error Response"], ["-C", "1", "Read Request"],
            ["-C", "3", "Notification"], ["-m", "3", "ATT"], ["-m", "2", "-A", "1", "Notification"],
            ["-c", "-m", "4", "ATT"], ["no such text anywhere"], ["-c", "no such text anywhere"], ["(?i)^\\s+1[0-9]\\s"],
        ]
        for arguments in cases {
            let ours = try Tool.run(Tool.btlog, ["grep"] + arguments + [Self.file])
            // GNU grep takes -F instead of -P (btlog's -F is PCRE2's literal mode).
            let theirs = try Tool.run(grep, (arguments.contains("-F") ? [] : ["-P"]) + arguments + [text])
            XCTAssertEqual(ours.out, theirs.out, "grep \(arguments)")
            XCTAssertEqual(ours.status, theirs.status, "exit status of grep \(arguments): \(ours.err)")
        }
        // -l names the file; with several files, lines are prefixed as grep does.
        let listed = try Tool.run(Tool.btlog, ["grep", "-l", "ATT", Self.file, "Fixtures/wwdc-dual.btsnoop"])
        XCTAssertEqual(listed.out, "\(Self.file)\nFixtures/wwdc-dual.btsnoop\n")
        let other = try rows("Fixtures/bredr-l2cap.btsnoop", name: "other")
        let two = try Tool.run(Tool.btlog, ["grep", "-C", "1", "Connection Request", Self.file, "Fixtures/bredr-l2cap.btsnoop"])
        let gnu = try Tool.run(grep, ["-P", "-C", "1", "Connection Request", text, other])
        XCTAssertEqual(two.out, gnu.out.replacingOccurrences(of: text, with: Self.file).replacingOccurrences(of: other, with: "Fixtures/bredr-l2cap.btsnoop"))
    }

    /// -q, -s, -H and -h as GNU grep has them: the same output and status, with one file, two,
    /// and a missing one among them.
    func testQuietNoMessagesAndFileNamesAgreeWithGNUGrep() throws {
        guard let grep = Tool.find("grep") else { throw XCTSkip("grep is not installed") }
        let text = try rows(name: "quiet"), other = try rows("Fixtures/bredr-l2cap.btsnoop", name: "quiet-other")
        let second = "Fixtures/bredr-l2cap.btsnoop", missing = "/nonexistent/btlog-grep-missing.btsnoop"
        let cases: [(arguments: [String], files: Int, missing: Bool)] = [
            (["-q", "Write Request"], 1, false), (["-q", "no such text anywhere"], 1, false), (["-q", "Write Request"], 1, true),
            (["-q", "Connection Request"], 2, false), (["-q", "no such text anywhere"], 1, true),
            (["-H", "-c", "Write Request"], 1, false), (["-H", "Pairing Failed"], 1, false), (["-H", "-C", "1", "Pairing Failed"], 1, false),
            (["-h", "-c", "ATT"], 2, false), (["-h", "Connection Request"], 2, false),
            (["-s", "-c", "ATT"], 1, true), (["-s", "Pairing Failed"], 2, true),
        ]
        for (arguments, files, withMissing) in cases {
            let ours = try Tool.run(Tool.btlog, ["grep"] + arguments + [Self.file, second].prefix(files) + (withMissing ? [missing] : []))
            let theirs = try Tool.run(grep, ["-P"] + arguments + [text, other].prefix(files) + (withMissing ? [missing] : []))
            let expected = theirs.out.replacingOccurrences(of: text, with: Self.file).replacingOccurrences(of: other, with: second)
            XCTAssertEqual(ours.out, expected, "grep \(arguments) on \(files) file(s)\(withMissing ? " and a missing one" : "")")
            XCTAssertEqual(ours.status, theirs.status, "exit status of grep \(arguments)\(withMissing ? " with a missing file" : ""): \(ours.err)")
            if arguments.contains("-s") { XCTAssertEqual(ours.err, "", "-s reports no file: \(arguments)") }
        }
        let contradiction = try Tool.run(Tool.btlog, ["grep", "-H", "-h", "ATT", Self.file])
        XCTAssertEqual(contradiction.status, 2)
        XCTAssertTrue(contradiction.err.contains("-H and -h contradict each other"), contradiction.err)
        XCTAssertEqual(try Tool.run(Tool.btlog, ["grep", "-q", "-c", "ATT", Self.file]).status, 2)
    }

    func testTreeAndFiltersAndErrors() throws {
        // -V searches every line of the tree: a field only the tree shows selects the packet.
        let tree = try Tool.run(Tool.btlog, ["grep", "-V", "Attribute: Battery Level", Self.file])
        XCTAssertEqual(tree.status, 0)
        XCTAssertTrue(tree.out.contains("Read Request - Handle: 0x0014"), tree.out)
        let table = try Tool.run(Tool.btlog, ["grep", "Attribute: Battery Level", Self.file])
        XCTAssertEqual(table.status, 1)
        // -x adds the hex dump to what is searched.
        let hex = try Tool.run(Tool.btlog, ["grep", "-c", "-V", "-x", "4020 0700 0300 0400 02F7", Self.file])
        XCTAssertEqual(hex.out, "1\n", hex.err)
        // Filters apply first.
        let filtered = try Tool.run(Tool.btlog, ["grep", "-c", "Handle", Self.file, "-f", "att.opcode == 0x1b"])
        let notifications = try Tool.run(Tool.btlog, ["show", Self.file, "-f", "att.opcode == 0x1b", "--fields", "number"])
        XCTAssertEqual(filtered.out, "\(notifications.out.split(separator: "\n").count)\n")
        // --color highlights the match inside the row.
        let coloured = try Tool.run(Tool.btlog, ["grep", "--color", "always", "-m", "1", "Notification", Self.file])
        XCTAssertTrue(coloured.out.hasSuffix(" - \u{1B}[01;31m\u{1B}[KNotification\u{1B}[m\u{1B}[K\n"), coloured.out)
        XCTAssertEqual(coloured.out.replacingOccurrences(of: "\u{1B}[01;31m\u{1B}[K", with: "").replacingOccurrences(of: "\u{1B}[m\u{1B}[K", with: ""),
                       try Tool.run(Tool.btlog, ["grep", "-m", "1", "Notification", Self.file]).out)
        // A bad pattern is a usage error pointing at its column; an unreadable file exits 2.
        let bad = try Tool.run(Tool.btlog, ["grep", "a(b", Self.file])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.err.hasPrefix("btlog: grep: bad pattern 'a(b': missing closing parenthesis"), bad.err)
        XCTAssertTrue(bad.err.hasSuffix("  a(b\n    ^\n"), bad.err)
        let missing = try Tool.run(Tool.btlog, ["grep", "ATT", "Fixtures/no-such-file.btsnoop"])
        XCTAssertEqual(missing.status, 2)
        // show -e is the same search inside show, with show's status line.
        let shown = try Tool.run(Tool.btlog, ["show", "-e", "Pairing Failed", Self.file])
        let lines = shown.out.split(separator: "\n")
        XCTAssertTrue(lines.dropLast().allSatisfy { $0.contains("Pairing Failed") }, shown.out)
        XCTAssertTrue(lines.last!.hasPrefix("\(lines.count - 1) packet"), shown.out)
    }
}
