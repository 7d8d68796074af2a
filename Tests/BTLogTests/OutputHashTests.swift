import XCTest
import Foundation

/// Every view of every fixture, the kernel captures and both benchmark sessions, against what
/// was committed: a change that should not alter what btlog prints (a refactoring, a speed-up)
/// keeps it all. Each output is kept twice: its first lines as text in `Tests/Goldens/` (a
/// failure there shows a diff), and the whole of it as a SHA-256 in `OutputHashes.txt` (the
/// large captures' trees run to megabytes, which the repository need not hold). A change that
/// means to alter output records both again deliberately and says why in its commit:
///
///     BTLOG_UPDATE_OUTPUT_HASHES=1 swift test --disable-swift-testing --filter OutputHashTests
final class OutputHashTests: XCTestCase {
    static let hashFile = Tool.root.appendingPathComponent("Tests/BTLogTests/OutputHashes.txt")
    static let goldenFolder = Tool.root.appendingPathComponent("Tests/Goldens")
    /// How much of standard output a golden holds (lines, and bytes for the long lines of JSON);
    /// the hash covers the rest.
    static let goldenLines = 300, goldenBytes = 16_384
    static var updating: Bool { ProcessInfo.processInfo.environment["BTLOG_UPDATE_OUTPUT_HASHES"] != nil }

    /// A fixed list (today's `btlog fields` names with their bare frame names) so that fields
    /// added later do not change the hashes of the ones that exist.
    static let fieldColumns = [
        "number", "time", "direction", "type", "controller", "length", "issues",
        "hci.opcode", "hci.ogf", "hci.ocf", "hci.plen", "hci.parameters", "hci.event", "hci.subevent", "hci.status",
        "hci.event_opcode", "hci.ncmd", "hci.handle", "hci.address", "hci.address_type", "hci.reason", "hci.role",
        "hci.link_type", "hci.encryption", "hci.interval", "hci.latency", "hci.supervision_timeout",
        "hci.completed_packets", "hci.num_reports", "hci.name", "hci.version", "hci.manufacturer", "hci.key_size",
        "hci.primary_phy", "hci.secondary_phy", "hci.advertising_sid", "hci.direct_address", "hci.event_mask",
        "hci.class_of_device", "hci.le_scan_interval",
        "adv.event_type", "adv.address", "adv.address_type", "adv.rssi", "adv.data", "adv.ad_type", "adv.flags",
        "adv.name", "adv.uuid", "adv.company", "adv.manufacturer_data", "adv.tx_power", "adv.appearance",
        "acl.handle", "acl.pb", "acl.bc", "acl.length", "sco.handle", "iso.handle", "data.payload",
        "l2cap.length", "l2cap.cid", "l2cap.psm", "l2cap.protocol", "l2cap.fragment", "l2cap.fragments",
        "l2cap.payload", "l2cap.code", "l2cap.ident", "l2cap.result", "l2cap.scid", "l2cap.dcid",
        "l2cap.mtu", "l2cap.mps", "l2cap.credits", "l2cap.sdu_length", "l2cap.txseq", "l2cap.reqseq",
        "att.opcode", "att.handle", "att.start_handle", "att.end_handle", "att.uuid", "att.value", "att.error",
        "att.request_opcode", "att.mtu", "att.request_in", "att.response_time", "att.name", "att.properties",
        "att.value_handle", "att.offset",
        "gatt.service", "gatt.characteristic", "gatt.value", "gatt.cccd",
        "smp.code", "smp.io_capability", "smp.authreq", "smp.max_key_size", "smp.reason", "smp.method",
        "note.text", "syslog.message", "log.ident", "index.name", "index.manufacturer", "control.name", "control.opcode",
        "sco.status", "iso.length", "l2cap.option", "l2cap.mode", "l2cap.control", "l2cap.sar", "adv.service_data", "adv.uri",
    ]

    static var views: [(name: String, arguments: [String])] {
        [("table", ["show", "--color", "never"]),
         ("tree", ["show", "-V", "-x", "--color", "never"]),
         ("fields", ["show", "--fields", fieldColumns.joined(separator: ",")]),
         ("rel", ["show", "--time", "rel", "--color", "never", "--packets", "2-"]),
         ("gatt", ["gatt", "--color", "never"]),
         ("jsonl", ["export", "--format", "jsonl"]),
         ("csv", ["export", "--format", "csv"]),
         ("stats", ["stats", "--color", "never"]),
         ("stats-json", ["stats", "--json", "--throughput"]),
         ("diagnose", ["diagnose", "--color", "never"])]
    }

    /// A capture's folder under Tests/Goldens: its file name, or for a third-party capture whose
    /// file name is its tool's (two Android logs are both btsnoop_hci.log) its source's name too.
    static func goldenName(_ file: String) -> String {
        let name = (file as NSString).lastPathComponent
        guard file.hasPrefix("Fixtures/third-party/"), name == "btsnoop_hci.log" else { return name }
        return ((file as NSString).deletingLastPathComponent as NSString).lastPathComponent + "-" + name
    }

    func testEveryViewOfEveryCaptureIsUnchanged() throws {
        // Every capture file in Fixtures/, and the third-party captures beside them.
        let folder = Tool.root.appendingPathComponent("Fixtures").path
        let fixtures = try FileManager.default.contentsOfDirectory(atPath: folder)
            .filter { !$0.hasSuffix(".md") && $0 != "third-party" }.sorted().map { "Fixtures/" + $0 }
            + (try FileManager.default.contentsOfDirectory(atPath: folder + "/third-party")).sorted().flatMap { source in
                (try FileManager.default.contentsOfDirectory(atPath: folder + "/third-party/" + source))
                    .filter { $0.hasSuffix(".pcap") || $0.hasSuffix(".log") }.sorted().map { "Fixtures/third-party/\(source)/" + $0 }
            }
        let bench = try benchmarkSessions()
        let listed = try FieldNames.all()
        let known = Set(listed + listed.filter { $0.hasPrefix("frame.") }.map { String($0.dropFirst("frame.".count)) })
        let unknown = Self.fieldColumns.filter { !known.contains($0) }
        XCTAssertEqual(unknown, [], "the fixed --fields list names fields btlog no longer knows")

        // Every run is its own process: two at a time, one per core.
        let jobs = (fixtures + bench.files).flatMap { file in Self.views.map { (file, $0) } }
        var lines = Array(repeating: "", count: jobs.count)
        var failures: [String] = []
        let committed = Self.updating ? [] : try String(contentsOf: Self.hashFile, encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertTrue(Self.updating || committed.count == jobs.count, "OutputHashes.txt covers a different set of captures or views")
        let lock = NSLock()
        DispatchQueue.concurrentPerform(iterations: jobs.count) { index in
            let (file, view) = jobs[index]
            let name = file.hasPrefix(bench.folder) ? "bench/" + (file as NSString).lastPathComponent : file
            do {
                var result = try Tool.run(Tool.btlog, view.arguments + [file])
                // The benchmark cuts live in a folder of this run's own: their reports name them as the golden does.
                result.out = result.out.replacingOccurrences(of: bench.folder + "/", with: "bench/")
                let trailer = "\n--stderr--\n\(result.err)\n--status \(result.status)\n"
                let line = "\(try SHA256.hex(of: Data((result.out + trailer).utf8)))  \(view.name)  \(name)"
                let golden = Self.goldenFolder.appendingPathComponent(Self.goldenName(name) + "/" + view.name + ".txt")
                let text = Self.golden(result.out, trailer: trailer)
                var failure: String?
                if Self.updating {
                    try FileManager.default.createDirectory(at: golden.deletingLastPathComponent(), withIntermediateDirectories: true)
                    try text.write(to: golden, atomically: true, encoding: .utf8)
                } else if let expected = try? String(contentsOf: golden, encoding: .utf8) {
                    if expected != text { failure = "\(view.name) of \(name) changed:\n" + (try Self.diff(expected, text)) }
                } else {
                    failure = "no golden \(golden.path)"
                }
                if failure == nil, !Self.updating, index < committed.count, committed[index] != line {
                    failure = "\(view.name) of \(name) changed after the lines its golden holds: \(line) (committed: \(committed[index]))"
                }
                lock.lock()
                lines[index] = line
                if let failure { failures.append(failure) }
                lock.unlock()
            } catch {
                lock.lock()
                failures.append("\(view.name) of \(name): \(error)")
                lock.unlock()
            }
        }
        if Self.updating {
            try (lines.joined(separator: "\n") + "\n").write(to: Self.hashFile, atomically: true, encoding: .utf8)
            return
        }
        for failure in failures { XCTFail(failure) }
    }

    /// An output's golden text: its first lines, a line saying how many follow, and the
    /// standard error and exit status as they were.
    static func golden(_ out: String, trailer: String) -> String {
        var lines = out.split(separator: "\n", omittingEmptySubsequences: false)
        var kept = 0, bytes = 0
        while kept < min(lines.count, goldenLines), bytes + lines[kept].utf8.count < goldenBytes {
            bytes += lines[kept].utf8.count + 1
            kept += 1
        }
        if kept < lines.count - 1 {
            let rest = lines.count - 1 - kept
            lines = Array(lines.prefix(kept)) + ["[... \(rest) more lines: OutputHashes.txt holds the whole output's hash]", ""]
        }
        return lines.joined(separator: "\n") + trailer
    }

    /// `diff -u` of two texts, its first 80 lines.
    static func diff(_ expected: String, _ actual: String) throws -> String {
        let folder = NSTemporaryDirectory() + "btlog-golden-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try expected.write(toFile: folder + "/committed", atomically: false, encoding: .utf8)
        try actual.write(toFile: folder + "/now", atomically: false, encoding: .utf8)
        let result = try Tool.run("/usr/bin/diff", ["-u", folder + "/committed", folder + "/now"])
        return result.out.split(separator: "\n", omittingEmptySubsequences: false).prefix(80).joined(separator: "\n")
    }

    /// Sinks on a thread of their own (PacketHandoff) against everything on one: the same bytes,
    /// the same messages, the same status, for every view that hands packets over. The benchmark
    /// cuts are many batches long (6,000 and 3,000 packets, batches of 128); a filter, a range
    /// and --count make dropped packets and an early stop fall inside batches.
    func testOneThreadAndTwoPrintTheSame() throws {
        let bench = try benchmarkSessions()
        // The views above (stats as JSON with throughput covers the statistics' thread), and more.
        let views = Self.views.filter { $0.name != "gatt" && $0.name != "stats" } + [
            ("filtered", ["show", "-V", "--color", "never", "-f", "att.opcode == 0x1b || hci.event"]),
            ("range", ["show", "--color", "never", "--packets", "700-2900"]),
            ("count", ["show", "--color", "never", "--type", "acl", "-c", "1000"]),
            ("collapse", ["show", "--color", "never", "--collapse"]),
            ("text", ["export", "--format", "text", "-V"]),
            ("grep", ["grep", "-C", "2", "Handle Value|Disconnect"]),
            ("grep -c", ["grep", "-c", "-V", "Handle: 0x00"]),
            ("grep -m", ["grep", "-m", "40", "ATT|L2CAP|A2DP"]),
        ]
        // The benchmark cuts cross many batches; trouble.btsnoop ends with warnings on standard error.
        let files = bench.files + ["Fixtures/trouble.btsnoop"]
        let jobs = files.flatMap { file in views.map { (file, $0) } }
        var failures: [String] = []
        let lock = NSLock()
        DispatchQueue.concurrentPerform(iterations: jobs.count) { index in
            let (file, view) = jobs[index]
            var failure: String?
            do {
                let two = try Tool.run(Tool.btlog, view.arguments + [file], environment: ["BTLOG_THREADS": "2"])
                let one = try Tool.run(Tool.btlog, view.arguments + [file], environment: ["BTLOG_THREADS": "1"])
                if two.out.isEmpty { failure = "\(view.name) of \(file) printed nothing" }
                else if two.out != one.out { failure = "\(view.name) of \(file) differs between one thread and two" }
                else if two.err != one.err || two.status != one.status {
                    failure = "\(view.name) of \(file): \(two.status) \(two.err) with two threads, \(one.status) \(one.err) with one"
                }
            } catch { failure = "\(view.name) of \(file): \(error)" }
            lock.lock()
            if let failure { failures.append(failure) }
            lock.unlock()
        }
        for failure in failures { XCTFail(failure) }
        // What the sink's thread throws ends the run as it would on one: a reader gone quietly
        // (exit 0), a full disk with its message (exit 1).
        for threads in ["1", "2"] {
            for command in ["show -V", "export --format jsonl", "stats --json"] {
                let piped = try Tool.run("/bin/bash", ["-c", "\(Tool.btlog) \(command) \(bench.files[0]) | head -c 10 > /dev/null; echo ${PIPESTATUS[0]}"],
                                         environment: ["BTLOG_THREADS": threads])
                XCTAssertEqual(piped.out, "0\n", "\(command) with \(threads) thread(s)")
                XCTAssertEqual(piped.err, "", "\(command) with \(threads) thread(s)")
            }
            let full = try Tool.run("/bin/bash", ["-c", "\(Tool.btlog) show -V \(bench.files[0]) > /dev/full"], environment: ["BTLOG_THREADS": threads])
            XCTAssertEqual(full.status, 1)
            XCTAssertTrue(full.err.hasSuffix("write to output failed: No space left on device\n"), "with \(threads) thread(s): \(full.err)")
        }
    }

    /// Small cuts of the benchmark's two sessions (LE and BR/EDR audio), from the generator.
    func benchmarkSessions() throws -> (folder: String, files: [String]) {
        let folder = NSTemporaryDirectory() + "btlog-hash-bench-\(getpid())"
        try? FileManager.default.removeItem(atPath: folder)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        let generator = (Tool.btlog as NSString).deletingLastPathComponent + "/btlog-fixtures"
        let result = try Tool.run(generator, ["bench", folder, "--le", "6000", "--audio", "3000"])
        XCTAssertEqual(result.status, 0, result.err)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).sorted().map { folder + "/" + $0 }
        XCTAssertEqual(files.count, 4, "LE and audio sessions, btsnoop and pklg each")
        return (folder, files)
    }
}

enum FieldNames {
    static func all() throws -> [String] {
        let result = try Tool.run(Tool.btlog, ["fields"])
        return result.out.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) }
    }
}

/// SHA-256 by coreutils' sha256sum (so the hashes can be checked by hand the same way): the
/// outputs run to megabytes, which a debug build of a hash written here would take long over.
enum SHA256 {
    static func hex(of data: Data) throws -> String {
        let result = try Tool.run("/usr/bin/sha256sum", ["-"], stdin: data)
        guard result.status == 0, let digest = result.out.split(separator: " ").first, digest.count == 64 else {
            throw Reference.Failure(description: "sha256sum: \(result.err)")
        }
        return String(digest)
    }
}

final class SHA256Tests: XCTestCase {
    /// FIPS 180-4's examples, so a hash mismatch is never the hash's fault.
    func testKnownDigests() throws {
        XCTAssertEqual(try SHA256.hex(of: Data("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(try SHA256.hex(of: Data()), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(try SHA256.hex(of: Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }
}
