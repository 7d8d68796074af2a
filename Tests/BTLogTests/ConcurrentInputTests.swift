import XCTest
import Foundation

/// Several captures exported or counted at once (InputJobs) print what one after another
/// prints: the same bytes, the same messages in the same order, the same exit status, with
/// inputs that cannot be read or are cut short among them.
final class ConcurrentInputTests: XCTestCase {
    func testSeveralInputsAtOnceReadAsOneAfterAnother() throws {
        let folder = NSTemporaryDirectory() + "btlog-concurrent-\(getpid())"
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        let fixtures = try FileManager.default.contentsOfDirectory(atPath: Tool.root.appendingPathComponent("Fixtures").path)
            .filter { !$0.hasSuffix(".md") && $0 != "third-party" }.sorted().map { "Fixtures/" + $0 }
        // A capture cut inside a record, and a file that is no capture.
        let whole = try Data(contentsOf: Tool.root.appendingPathComponent("Fixtures/trouble.btsnoop"))
        try whole.prefix(whole.count - 7).write(to: URL(fileURLWithPath: folder + "/cut.btsnoop"))
        try Data("not a capture\n".utf8).write(to: URL(fileURLWithPath: folder + "/garbage.log"))
        let inputs = [folder + "/cut.btsnoop"] + fixtures + [folder + "/garbage.log", folder + "/missing.btsnoop"]

        let views: [[String]] = [
            ["export", "--format", "jsonl"],
            ["export", "--format", "csv"],
            ["export", "--format", "csv", "--fields", "number,att.opcode,summary", "-f", "att || hci.event", "-c", "7"],
            ["export", "--format", "hex", "--type", "acl"],
            ["grep", "-c", "ATT"],
            ["grep", "-l", "Disconnect"],
            ["grep", "-c", "-V", "-m", "3", "Handle: 0x00"],
        ]
        for view in views {
            let one = try Tool.run(Tool.btlog, view + inputs, environment: ["BTLOG_THREADS": "1"])
            XCTAssertGreaterThan(one.out.count, 0, view.joined(separator: " "))
            XCTAssertTrue(one.err.contains("missing.btsnoop"), one.err)
            for threads in ["2", "3"] {
                let several = try Tool.run(Tool.btlog, view + inputs, environment: ["BTLOG_THREADS": threads])
                XCTAssertTrue(several.out == one.out, "\(view.joined(separator: " ")) with \(threads) threads differs from one")
                XCTAssertEqual(several.err, one.err, "\(view.joined(separator: " ")) with \(threads) threads")
                XCTAssertEqual(several.status, one.status, "\(view.joined(separator: " ")) with \(threads) threads")
            }
        }
        // Nowhere to spool: read one at a time, same output (plain captures: archives unpack
        // into TMPDIR too). A reader gone: a quiet end.
        let captures = fixtures.filter { $0.hasSuffix(".btsnoop") || $0.hasSuffix(".pklg") }
        let plain = try Tool.run(Tool.btlog, ["export"] + captures, environment: ["BTLOG_THREADS": "1"])
        let unspooled = try Tool.run(Tool.btlog, ["export"] + captures, environment: ["BTLOG_THREADS": "2", "TMPDIR": folder + "/none"])
        XCTAssertTrue(unspooled.out == plain.out)
        XCTAssertEqual(unspooled.status, 0, unspooled.err)
        let piped = try Tool.run("/bin/bash", ["-c", "\(Tool.btlog) export \(fixtures.joined(separator: " ")) | head -c 10 > /dev/null; echo ${PIPESTATUS[0]}"],
                                 environment: ["BTLOG_THREADS": "2"])
        XCTAssertEqual(piped.out, "0\n")
        XCTAssertEqual(piped.err, "")
    }

    /// Container inputs unpack members into temporary files; four of them at once, one of them
    /// damaged (whose failure removes only its own members), read as one after another. Run
    /// under Thread Sanitizer too where .ci/run built that binary (.build/tsan): a race on the
    /// temporary files' bookkeeping is reported there, and the run fails.
    func testContainerInputsAtOnceKeepTheirOwnTemporaryFiles() throws {
        let folder = NSTemporaryDirectory() + "btlog-containers-\(getpid())"
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        let archive = try Data(contentsOf: Tool.root.appendingPathComponent("Fixtures/sysdiagnose_demo.tar.gz"))
        try archive.write(to: URL(fileURLWithPath: folder + "/a.tar.gz"))
        try archive.write(to: URL(fileURLWithPath: folder + "/b.tar.gz"))
        // A tar cut short after its first member was spooled.
        let unpacked = try Tool.run("/bin/sh", ["-c", "gzip -dc Fixtures/sysdiagnose_demo.tar.gz | head -c 3000 > \(folder)/cut.tar"])
        XCTAssertEqual(unpacked.status, 0)
        let inputs = [folder + "/a.tar.gz", folder + "/cut.tar", "Fixtures/bugreport-demo.zip", folder + "/b.tar.gz"]
        let binaries = [Tool.btlog] + [Tool.root.appendingPathComponent(".build/tsan/release/btlog").path]
            .filter { FileManager.default.isExecutableFile(atPath: $0) }
        for binary in binaries {
            let one = try Tool.run(binary, ["export", "--format", "jsonl"] + inputs, environment: ["BTLOG_THREADS": "1"])
            XCTAssertGreaterThan(one.out.count, 1000)
            XCTAssertTrue(one.err.contains("cut.tar"), one.err)
            for round in 0 ..< 3 {
                let several = try Tool.run(binary, ["export", "--format", "jsonl"] + inputs, environment: ["BTLOG_THREADS": "4"])
                XCTAssertTrue(several.out == one.out, "\(binary), round \(round): output differs")
                XCTAssertEqual(several.err, one.err, "\(binary), round \(round)")
                XCTAssertFalse(several.err.contains("ThreadSanitizer"), several.err)
                XCTAssertEqual(several.status, one.status)
            }
        }
    }

    /// A merge reads its captures at once for the alignment (one thread each) and, under the
    /// table, its merged frames on a thread of its own: the same output as on one thread, and
    /// under Thread Sanitizer no race (an air capture's decoder on one thread, the passkey
    /// search its link needs shared by every decoder, the keys found ahead given to the view).
    func testAMergeOnThreadsReadsAsOnOne() throws {
        let merges = [
            ["Fixtures/known-ltk-central.btsnoop", "Fixtures/third-party/crackle/known_ltk.pcap", "Fixtures/known-ltk-peripheral.btsnoop"],
            ["Fixtures/third-party/crackle/numeric_pin.pcap", "Fixtures/kernel-two-hosts.btsnoop"],
        ]
        let binaries = [Tool.btlog] + [Tool.root.appendingPathComponent(".build/tsan/release/btlog").path]
            .filter { FileManager.default.isExecutableFile(atPath: $0) }
        for binary in binaries {
            for files in merges {
                for verb in [["show"], ["show", "-V"], ["stats"]] {
                    let one = try Tool.run(binary, verb + ["--merge"] + files, environment: ["BTLOG_THREADS": "1"])
                    XCTAssertEqual(one.status, 0, one.err)
                    XCTAssertGreaterThan(one.out.count, 1000)
                    let two = try Tool.run(binary, verb + ["--merge"] + files, environment: ["BTLOG_THREADS": "2"])
                    XCTAssertTrue(two.out == one.out, "\(binary) \(verb) \(files): output differs")
                    XCTAssertEqual(two.err, one.err, "\(binary) \(verb)")
                    XCTAssertFalse(two.err.contains("ThreadSanitizer"), two.err)
                }
            }
        }
    }
}
