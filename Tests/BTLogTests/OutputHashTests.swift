import XCTest
import Foundation

/// Every view of every fixture, the kernel captures and both benchmark sessions, hashed and
/// compared with `OutputHashes.txt`: a change that should not alter what btlog prints (a
/// refactoring, a speed-up) keeps every line of that file. A change that means to alter output
/// regenerates it deliberately and says why in its commit:
///
///     BTLOG_UPDATE_OUTPUT_HASHES=1 swift test --disable-swift-testing --filter OutputHashTests
final class OutputHashTests: XCTestCase {
    static let hashFile = Tool.root.appendingPathComponent("Tests/BTLogTests/OutputHashes.txt")

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
         ("csv", ["export", "--format", "csv"])]
    }

    func testEveryViewOfEveryCaptureIsUnchanged() throws {
        // Every capture file in Fixtures/, and the third-party captures beside them.
        let folder = Tool.root.appendingPathComponent("Fixtures").path
        let fixtures = try FileManager.default.contentsOfDirectory(atPath: folder)
            .filter { !$0.hasSuffix(".md") && $0 != "third-party" }.sorted().map { "Fixtures/" + $0 }
            + (try FileManager.default.contentsOfDirectory(atPath: folder + "/third-party/crackle"))
            .filter { $0.hasSuffix(".pcap") }.sorted().map { "Fixtures/third-party/crackle/" + $0 }
        let bench = try benchmarkSessions()
        let listed = try FieldNames.all()
        let known = Set(listed + listed.filter { $0.hasPrefix("frame.") }.map { String($0.dropFirst("frame.".count)) })
        let unknown = Self.fieldColumns.filter { !known.contains($0) }
        XCTAssertEqual(unknown, [], "the fixed --fields list names fields btlog no longer knows")

        var lines: [String] = []
        for file in fixtures + bench.files {
            for view in Self.views {
                let result = try Tool.run(Tool.btlog, view.arguments + [file])
                var bytes = Array(result.out.utf8)
                bytes += Array("\n--stderr--\n\(result.err)\n--status \(result.status)\n".utf8)
                let name = file.hasPrefix(bench.folder) ? "bench/" + (file as NSString).lastPathComponent : file
                lines.append("\(SHA256.hex(bytes))  \(view.name)  \(name)")
            }
        }
        let text = lines.joined(separator: "\n") + "\n"
        if ProcessInfo.processInfo.environment["BTLOG_UPDATE_OUTPUT_HASHES"] != nil {
            try text.write(to: Self.hashFile, atomically: true, encoding: .utf8)
            return
        }
        let committed = try String(contentsOf: Self.hashFile, encoding: .utf8)
        let expected = committed.split(separator: "\n").map(String.init)
        XCTAssertEqual(expected.count, lines.count, "OutputHashes.txt covers a different set of captures or views")
        for (have, want) in zip(lines, expected) where have != want {
            XCTFail("output changed: \(have) (committed: \(want))")
        }
    }

    /// Sinks on a thread of their own (PacketHandoff) against everything on one: the same bytes,
    /// the same messages, the same status, for every view that hands packets over. The benchmark
    /// cuts are many batches long (6,000 and 3,000 packets, batches of 128); a filter, a range
    /// and --count make dropped packets and an early stop fall inside batches.
    func testOneThreadAndTwoPrintTheSame() throws {
        let bench = try benchmarkSessions()
        let views = Self.views.filter { $0.name != "gatt" } + [
            ("stats", ["stats", "--json", "--throughput"]),
            ("diagnose", ["diagnose"]),
            ("filtered", ["show", "-V", "--color", "never", "-f", "att.opcode == 0x1b || hci.event"]),
            ("range", ["show", "--color", "never", "--packets", "700-2900"]),
            ("count", ["show", "--color", "never", "--type", "acl", "-c", "1000"]),
            ("collapse", ["show", "--color", "never", "--collapse"]),
            ("text", ["export", "--format", "text", "-V"]),
            ("grep", ["grep", "-C", "2", "Handle Value|Disconnect"]),
            ("grep -c", ["grep", "-c", "-V", "Handle: 0x00"]),
            ("grep -m", ["grep", "-m", "40", "ATT|L2CAP|A2DP"]),
        ]
        for file in bench.files + ["Fixtures/trouble.btsnoop", "Fixtures/a2dp-stream.btsnoop", "Fixtures/kernel-l2cap.btsnoop"] {
            for view in views {
                let two = try Tool.run(Tool.btlog, view.arguments + [file], environment: ["BTLOG_THREADS": "2"])
                let one = try Tool.run(Tool.btlog, view.arguments + [file], environment: ["BTLOG_THREADS": "1"])
                XCTAssertGreaterThan(two.out.count, 0, "\(view.name) \(file)")
                XCTAssertTrue(two.out == one.out, "\(view.name) of \(file) differs between one thread and two")
                XCTAssertEqual(two.err, one.err, "\(view.name) \(file)")
                XCTAssertEqual(two.status, one.status, "\(view.name) \(file)")
            }
        }
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

/// SHA-256 (FIPS 180-4), so the hashes can be checked with sha256sum by hand.
enum SHA256 {
    static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    static func hex(_ message: [UInt8]) -> String {
        var h: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
        var data = message
        data.append(0x80)
        while data.count % 64 != 56 { data.append(0) }
        let bits = UInt64(message.count) * 8
        for i in (0 ..< 8).reversed() { data.append(UInt8(truncatingIfNeeded: bits >> (UInt64(i) * 8))) }
        func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { x >> n | x << (32 - n) }
        var w = [UInt32](repeating: 0, count: 64)
        for chunk in stride(from: 0, to: data.count, by: 64) {
            for i in 0 ..< 16 {
                let j = chunk + i * 4
                w[i] = UInt32(data[j]) << 24 | UInt32(data[j + 1]) << 16 | UInt32(data[j + 2]) << 8 | UInt32(data[j + 3])
            }
            for i in 16 ..< 64 {
                let s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)
                let s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)
                w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
            for i in 0 ..< 64 {
                let t1 = hh &+ (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) &+ ((e & f) ^ (~e & g)) &+ k[i] &+ w[i]
                let t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) &+ ((a & b) ^ (a & c) ^ (b & c))
                (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
            }
            for (i, v) in [a, b, c, d, e, f, g, hh].enumerated() { h[i] = h[i] &+ v }
        }
        return h.map { word in
            let s = String(word, radix: 16)
            return String(repeating: "0", count: 8 - s.count) + s
        }.joined()
    }
}

final class SHA256Tests: XCTestCase {
    /// FIPS 180-4's examples, so a hash mismatch is never the hash's fault.
    func testKnownDigests() {
        XCTAssertEqual(SHA256.hex(Array("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SHA256.hex([]), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }
}
