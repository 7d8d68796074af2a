import XCTest
import Foundation

/// Comments and flags from the command line: stored beside the capture, shown by show and
/// grep, tested by filters, safe under concurrent writers, never applied to another capture.
final class AnnotateTests: XCTestCase {
    var folder = ""

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "btlog-annotate-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in ["le-heart-rate.btsnoop", "bredr-l2cap.btsnoop"] {
            try FileManager.default.copyItem(atPath: Tool.root.appendingPathComponent("Fixtures/\(name)").path, toPath: "\(folder)/\(name)")
        }
    }

    override func tearDownWithError() throws {
        _ = chmod(folder, 0o755)
        try? FileManager.default.removeItem(atPath: folder)
    }

    var capture: String { "\(folder)/le-heart-rate.btsnoop" }
    var notes: String { capture + ".btlog-notes.json" }

    func btlog(_ arguments: String..., environment: [String: String] = [:]) throws -> Tool.Result {
        try Tool.run(Tool.btlog, arguments, environment: environment)
    }

    func testCommentFlagShowAndFilter() throws {
        XCTAssertEqual(try btlog("annotate", capture, "--packet", "95", "--comment", "first \"beat\"", "--flag").status, 0)
        XCTAssertEqual(try btlog("annotate", capture, "--packet", "135", "--comment", "pairing fails here").status, 0)
        let stored = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: notes))) as! [String: Any]
        XCTAssertEqual(stored["format"] as? String, "btlog-notes")
        XCTAssertEqual(stored["version"] as? Int, 1)
        XCTAssertEqual((stored["notes"] as? [[String: Any]])?.map { $0["packet"] as? Int }, [95, 135])

        let shown = try btlog("show", capture, "--packets", "94-96", environment: ["LANG": "C.UTF-8"])
        let lines = shown.out.split(separator: "\n")
        XCTAssertTrue(lines[0].hasPrefix("    94    May"), String(lines[0]))
        XCTAssertTrue(lines[1].hasPrefix("    95 ⚑  May"), String(lines[1]))
        XCTAssertEqual(lines[2], "        Comment: first \"beat\"")
        XCTAssertTrue(lines[3].hasPrefix("    96    May"), String(lines[3]))
        // Without UTF-8, the flag is an F.
        XCTAssertTrue(try btlog("show", capture, "--packets", "95", environment: ["LANG": "C", "LC_ALL": "C"]).out.hasPrefix("    95 F  May"))
        // Filters test notes; the tree shows the comment under the row too.
        XCTAssertEqual(try btlog("show", capture, "--flagged", "--fields", "number").out, "95\n")
        XCTAssertEqual(try btlog("show", capture, "-f", "comment contains \"pairing\"", "--fields", "number").out, "135\n")
        XCTAssertEqual(try btlog("show", capture, "-f", "comment and not flagged", "--fields", "number").out, "135\n")
        XCTAssertTrue(try btlog("show", capture, "-V", "--packets", "135").out.contains("\n        Comment: pairing fails here\n    SMP"))
        // grep searches the comment line too.
        XCTAssertEqual(try btlog("grep", "-c", "pairing fails", capture).out, "1\n")
        // --list prints each annotated packet with its comment.
        let listed = try btlog("annotate", capture, "--list", environment: ["LANG": "C.UTF-8"])
        XCTAssertEqual(listed.status, 0, listed.err)
        let rows = listed.out.split(separator: "\n")
        XCTAssertEqual(rows.count, 4, listed.out)
        XCTAssertTrue(rows[0].hasPrefix("    95 ⚑") && rows[0].contains("Heart Rate Measurement"))
        XCTAssertEqual(rows[3], "        Comment: pairing fails here")
        // Unflag, clear: a note that says nothing is dropped.
        XCTAssertEqual(try btlog("annotate", capture, "--packet", "95", "--unflag").status, 0)
        XCTAssertEqual(try btlog("show", capture, "--flagged", "--fields", "number").out, "")
        XCTAssertEqual(try btlog("annotate", capture, "--packet", "95", "--clear").status, 0)
        XCTAssertEqual(try btlog("annotate", capture, "--packet", "135", "--comment", "").status, 0)
        let empty = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: notes))) as! [String: Any]
        XCTAssertEqual((empty["notes"] as? [Any])?.count, 0)
        // Without notes the table has no flag column (output unchanged for unannotated captures).
        try FileManager.default.removeItem(atPath: notes)
        XCTAssertTrue(try btlog("show", capture, "--packets", "95").out.hasPrefix("    95  May"))
    }

    func testTwentyConcurrentWritersLoseNothing() throws {
        let group = DispatchGroup()
        final class Statuses: @unchecked Sendable { // guarded by `lock`
            let lock = NSLock()
            var values: [Int32] = []
        }
        let statuses = Statuses()
        let capture = self.capture
        for packet in 1 ... 20 {
            group.enter()
            DispatchQueue.global().async {
                let result = try? Tool.run(Tool.btlog, ["annotate", capture, "--packet", "\(packet * 3)", "--comment", "note \(packet)",
                                                        packet % 2 == 0 ? "--flag" : "--unflag"])
                statuses.lock.lock()
                statuses.values.append(result?.status ?? -1)
                statuses.lock.unlock()
                group.leave()
            }
        }
        group.wait()
        XCTAssertEqual(statuses.values, [Int32](repeating: 0, count: 20))
        let stored = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: notes))) as! [String: Any]
        let entries = stored["notes"] as! [[String: Any]]
        XCTAssertEqual(entries.map { $0["packet"] as! Int }, (1 ... 20).map { $0 * 3 })
        XCTAssertEqual(entries.map { $0["comment"] as! String }, (1 ... 20).map { "note \($0)" })
        XCTAssertEqual(try btlog("show", capture, "--flagged", "--fields", "number").out.split(separator: "\n").count, 10)
        // No temporary file is left behind.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(".btlog-notes-") }
        XCTAssertEqual(leftovers, [])
    }

    func testCorruptNotesAreReportedAndLeftAlone() throws {
        let garbage = "{\"format\": \"btlog-notes\", \"version\": 1, \"notes\": [{\"packet\": \"x\"}"
        try garbage.write(toFile: notes, atomically: true, encoding: .utf8)
        let annotate = try btlog("annotate", capture, "--packet", "5", "--flag")
        XCTAssertEqual(annotate.status, 1)
        XCTAssertTrue(annotate.err.contains("btlog-notes.json: not JSON; the file is left as it is"), annotate.err)
        XCTAssertEqual(try String(contentsOfFile: notes, encoding: .utf8), garbage)
        // show still shows the capture, without notes, and says why.
        let shown = try btlog("show", capture, "--packets", "5")
        XCTAssertEqual(shown.status, 0)
        XCTAssertTrue(shown.err.contains("showing the capture without notes"), shown.err)
        try "{\"format\": \"btlog-notes\", \"version\": 9, \"notes\": []}".write(toFile: notes, atomically: true, encoding: .utf8)
        XCTAssertTrue(try btlog("annotate", capture, "--packet", "5", "--flag").err.contains("version 9 (this btlog reads version 1)"))
    }

    func testNotesOfAnotherCaptureAreNeverApplied() throws {
        XCTAssertEqual(try btlog("annotate", capture, "--packet", "9", "--comment", "about the heart-rate capture", "--flag").status, 0)
        // The same notes file beside another capture (say, renamed over the first).
        let other = "\(folder)/bredr-l2cap.btsnoop"
        try FileManager.default.copyItem(atPath: notes, toPath: other + ".btlog-notes.json")
        let shown = try btlog("show", other, "--packets", "9", "--flagged")
        XCTAssertEqual(shown.status, 0)
        XCTAssertTrue(shown.out.hasPrefix("0 packets"), shown.out)
        XCTAssertTrue(shown.err.contains("the note on packet 9 was written for a packet with time"), shown.err)
        XCTAssertTrue(shown.err.contains("not shown"), shown.err)
        let refused = try btlog("annotate", other, "--packet", "3", "--flag")
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.err.contains("was written for another capture"), refused.err)
        // --notes keeps separate notes for it.
        XCTAssertEqual(try btlog("annotate", other, "--packet", "3", "--flag", "--notes", "\(folder)/other-notes.json").status, 0)
        XCTAssertEqual(try btlog("show", other, "--flagged", "--notes", "\(folder)/other-notes.json", "--fields", "number").out, "3\n")
    }

    func testBadRequestsAreClearErrors() throws {
        let past = try btlog("annotate", capture, "--packet", "100000", "--flag")
        XCTAssertEqual(past.status, 1)
        XCTAssertTrue(past.err.contains("there is no packet 100000"), past.err)
        XCTAssertEqual(try btlog("annotate", capture, "--flag").status, 2)
        XCTAssertEqual(try btlog("annotate", capture, "--packet", "3").status, 2)
        XCTAssertEqual(try btlog("annotate", capture, "--packet", "3", "--flag", "--unflag").status, 2)
        XCTAssertEqual(try btlog("annotate", capture, "--list", "--packet", "3").status, 2)
        let nowhere = try btlog("annotate", capture, "--packet", "3", "--flag", "--notes", "\(folder)/missing/dir/notes.json")
        XCTAssertEqual(nowhere.status, 1)
        XCTAssertTrue(nowhere.err.contains("cannot be created"), nowhere.err)
        XCTAssertEqual(try btlog("annotate", capture, "--list").status, 1)
        // A read-only folder (root writes anywhere, so only checked for other users).
        if getuid() != 0 {
            XCTAssertEqual(chmod(folder, 0o555), 0)
            let readOnly = try btlog("annotate", capture, "--packet", "3", "--flag")
            XCTAssertEqual(readOnly.status, 1)
            XCTAssertTrue(readOnly.err.contains("Permission denied"), readOnly.err)
        }
    }

    /// Packet comments a pcapng holds (written here by Wireshark's editcap) read as comments,
    /// for the same packets tshark's frame.comment names.
    func testPcapNGPacketCommentsAreComments() throws {
        guard let editcap = Reference.consumer("editcap"), let tshark = Reference.consumer("tshark") else {
            throw Reference.skip("editcap and tshark")
        }
        let commented = "\(folder)/commented.pcapng"
        let made = try Tool.run(editcap, ["-a", "3:first comment", "-a", "7:second, with ünïcode", "Fixtures/wwdc-dual.pcapng", commented])
        XCTAssertEqual(made.status, 0, made.err)
        let theirs = try Tool.run(tshark, ["-r", commented, "-Y", "frame.comment", "-T", "fields", "-e", "frame.number"])
        XCTAssertEqual(try btlog("show", commented, "-f", "comment", "--fields", "number").out, theirs.out)
        let shown = try btlog("show", commented, "--packets", "7")
        XCTAssertEqual(shown.out.split(separator: "\n")[1], "        Comment: second, with ünïcode")
        XCTAssertEqual(try btlog("show", commented, "-f", "comment contains \"first\"", "--fields", "number").out, "3\n")
        // A note's comment stands before the file's.
        XCTAssertEqual(try btlog("annotate", commented, "--packet", "3", "--comment", "mine").status, 0)
        XCTAssertTrue(try btlog("show", commented, "--packets", "3").out.contains("Comment: mine\n"))
    }
}
