import XCTest
import Foundation
import BTCapture
import BTDecode
import BTAnalysis
import BTQuery
import BTFixtures

/// `btlog diff` as a user runs it: the scenario pairs written as files, the exit status of
/// diff(1), the text report's ranked summary and details, --stat, --json (the schema and
/// DuckDB read it), --ignore, --tolerance, filters on both sides, and bad input.
final class DiffTests: XCTestCase {
    func btlog(_ arguments: String...) throws -> Tool.Result { try Tool.run(Tool.btlog, arguments) }

    /// The pairs as btsnoop files (what `btlog-fixtures diff-pairs` writes), once per run.
    static let pairs: Result<String, Error> = Result {
        let folder = ExportTests.temporary("diff-pairs/")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for pair in DiffPairs.all {
            try Data(try FixtureContainers.encode(pair.frames(), as: .btsnoopH4)).write(to: URL(fileURLWithPath: folder + pair.name))
        }
        return folder
    }

    func pair(_ name: String) throws -> String { try Self.pairs.get() + name }

    func testTheSameScenarioExitsZeroAndADifferentOneOne() throws {
        let same = try btlog("diff", try pair("heart-rate.btsnoop"), try pair("heart-rate-later.btsnoop"))
        XCTAssertEqual(same.status, 0, same.err)
        XCTAssertTrue(same.out.hasSuffix("\nNo differences.\n"), same.out)
        let renamed = try btlog("diff", try pair("heart-rate.btsnoop"), try pair("heart-rate-new-addresses.btsnoop"))
        XCTAssertEqual(renamed.status, 0, renamed.out)
        XCTAssertTrue(renamed.out.contains("peer C0:FF:EE:12:34:56 in A is D1:22:33:44:55:66 in B (matched by identity address)"), renamed.out)
        // A btsnoop file and the same session written by PacketLogger: the same.
        XCTAssertEqual(try btlog("diff", "Fixtures/le-heart-rate.btsnoop", "Fixtures/le-heart-rate.pklg").status, 0)

        let failed = try btlog("diff", "--color", "never", try pair("heart-rate.btsnoop"), try pair("heart-rate-pairing-fails.btsnoop"))
        XCTAssertEqual(failed.status, 1, failed.err)
        let lines = failed.out.components(separatedBy: "\n")
        let summary = try XCTUnwrap(lines.firstIndex(of: "5 differences:"), failed.out)
        XCTAssertEqual(lines[summary + 1], "  1. diagnosis: only in B: error pairing: Pairing failed: DHKey Check Failed (0x0B), sent by the peer on 0x0040 C0:FF:EE:12:34:56  [B #81]",
                       "the problem first")
        // B #83 is B's answer in place of A's Read Response (Insufficient Authentication): the
        // packet that shows the difference, not the request both sent before it.
        XCTAssertTrue(lines[summary + 2].hasPrefix("  2. conversations: ATT with C0:FF:EE:12:34:56: 1 step only in A, 1 only in B; first: A has Read Response  2A38 (Body Sensor Location)  location=Chest (0x01)  01  [A #90, B #83]"),
                      lines[summary + 2])
        XCTAssertTrue(lines[summary + 3].hasPrefix("  3. conversations: SMP with C0:FF:EE:12:34:56"), lines[summary + 3])
        // The details: the SMP conversation as diff -u, both captures' packet numbers.
        XCTAssertTrue(failed.out.contains("    #80     #80     Pairing DHKey Check\n  - #81             Pairing DHKey Check\n"), failed.out)
        XCTAssertTrue(failed.out.contains("  +         #81     Pairing Failed  reason=DHKey Check Failed (0x0B)\n"), failed.out)
        // Packet #81 of B is the Pairing Failed: the numbers point at the packets.
        let packet = try btlog("show", "--packets", "81-81", try pair("heart-rate-pairing-fails.btsnoop"))
        XCTAssertTrue(packet.out.contains("Pairing Failed"), packet.out)
    }

    func testStatAndIgnoreAndTolerance() throws {
        let stat = try btlog("diff", "--stat", try pair("a2dp-sbc.btsnoop"), try pair("a2dp-aac.btsnoop"))
        XCTAssertEqual(stat.status, 1)
        XCTAssertEqual(stat.out, """
        diagnosis     same
        conversations 1 difference
        devices       same
        connections   same
        gatt          same
        audio         1 difference
        timing        1 difference
        total         3 differences

        """)
        // Without timing and audio, the codec is still in the AVDTP conversation.
        let ignored = try btlog("diff", "--stat", "--ignore", "timing,audio", try pair("a2dp-sbc.btsnoop"), try pair("a2dp-aac.btsnoop"))
        XCTAssertEqual(ignored.status, 1)
        XCTAssertEqual(ignored.out.components(separatedBy: "\n").filter { !$0.isEmpty }.count, 6, ignored.out)
        XCTAssertFalse(ignored.out.contains("timing"))
        // A tolerance of 50% takes the throughput out; the codec stays.
        let tolerant = try btlog("diff", "--tolerance", "50%", "--ignore", "conversations", try pair("a2dp-sbc.btsnoop"), try pair("a2dp-aac.btsnoop"))
        XCTAssertEqual(tolerant.status, 1)
        XCTAssertTrue(tolerant.out.contains("audio: A2DP stream sent to 00:1B:66:AA:BB:CD: codec SBC → AAC\n") || tolerant.out.contains("codec SBC → AAC  ["), tolerant.out)
        XCTAssertFalse(tolerant.out.contains("throughput"), tolerant.out)
        // Filters apply to both captures: only ATT compared, the pairing's own problem is gone.
        let attOnly = try btlog("diff", "--stat", "-f", "att", try pair("heart-rate.btsnoop"), try pair("heart-rate-mtu-100.btsnoop"))
        XCTAssertTrue(attOnly.out.contains("conversations 1 difference"), attOnly.out)
    }

    func testJSONIsTheReportForCI() throws {
        let result = try btlog("diff", "--json", try pair("heart-rate.btsnoop"), try pair("heart-rate-no-ppcp.btsnoop"))
        XCTAssertEqual(result.status, 1)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        XCTAssertEqual(document["differences"] as? Int, 2)
        let aspects = try XCTUnwrap(document["aspects"] as? [[String: Any]])
        XCTAssertEqual(aspects.map { $0["name"] as? String }, ["diagnosis", "conversations", "devices", "connections", "gatt", "audio", "timing"])
        let gatt = try XCTUnwrap((aspects[4]["items"] as? [[String: Any]])?.first)
        XCTAssertEqual(gatt["summary"] as? String, "GATT database of C0:FF:EE:12:34:56: only in A: Characteristic Peripheral Preferred Connection Parameters (2A04) [Read]")
        let a = try XCTUnwrap(document["a"] as? [String: Any]), b = try XCTUnwrap(document["b"] as? [String: Any])
        XCTAssertEqual(a["file"] as? String, try pair("heart-rate.btsnoop"))
        XCTAssertEqual(a["packets"] as? Int, 141)
        XCTAssertEqual(b["file"] as? String, try pair("heart-rate-no-ppcp.btsnoop"))
        XCTAssertEqual(b["packets"] as? Int, 139)

        if let python = ExportTests.python(with: "jsonschema") {
            let checker = """
            import json, sys, jsonschema
            validator = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))
            for error in validator.iter_errors(json.load(sys.stdin)):
                print(error.message[:300], list(error.path)); sys.exit(1)
            """
            for name in DiffPairs.all.map(\.name) {
                let out = try btlog("diff", "--json", try pair("heart-rate.btsnoop"), try pair(name))
                let checked = try Tool.run(python, ["-c", checker, "docs/diff.schema.json"], stdin: Data(out.out.utf8))
                XCTAssertEqual(checked.status, 0, "\(name): \(checked.out) \(checked.err)")
            }
        }
        if let python = ExportTests.python(with: "duckdb") {
            // DuckDB reads the document: the differences per aspect, as btlog counts them.
            let path = ExportTests.temporary("diff.json")
            try Data(result.out.utf8).write(to: URL(fileURLWithPath: path))
            let query = """
            import duckdb, sys
            rows = duckdb.sql(f"select a.name, a.differences from (select unnest(aspects) as a from read_json_auto('{sys.argv[1]}')) where a.differences > 0 order by a.name").fetchall()
            print(" ".join(f"{n}:{d}" for n, d in rows))
            """
            let duck = try Tool.run(python, ["-c", query, path])
            XCTAssertEqual(duck.status, 0, duck.err)
            XCTAssertEqual(duck.out.trimmingCharacters(in: .whitespacesAndNewlines), "conversations:1 gatt:1")
        }
    }

    func testBadInputExitsTwoWithAMessage() throws {
        let missing = try btlog("diff", "Fixtures/le-heart-rate.btsnoop", "/nonexistent.btsnoop")
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.err.contains("/nonexistent.btsnoop"), missing.err)
        XCTAssertEqual(missing.out, "", "no report when a capture cannot be read")
        let garbage = ExportTests.temporary("garbage.log")
        try Data("not a capture\n".utf8).write(to: URL(fileURLWithPath: garbage))
        XCTAssertEqual(try btlog("diff", garbage, "Fixtures/le-heart-rate.btsnoop").status, 2)
        XCTAssertEqual(try btlog("diff", "Fixtures/le-heart-rate.btsnoop").status, 2, "one capture")
        XCTAssertEqual(try btlog("diff", "-", "-").status, 2)
        XCTAssertEqual(try btlog("diff", "--ignore", "colours", "Fixtures/le-heart-rate.btsnoop", "Fixtures/le-heart-rate.pklg").status, 2)
        XCTAssertEqual(try btlog("diff", "--tolerance", "lots", "Fixtures/le-heart-rate.btsnoop", "Fixtures/le-heart-rate.pklg").status, 2)
        XCTAssertEqual(try btlog("diff", "--stat", "--json", "Fixtures/le-heart-rate.btsnoop", "Fixtures/le-heart-rate.pklg").status, 2)
        let badFilter = try btlog("diff", "-f", "att.opcode ==", "Fixtures/le-heart-rate.btsnoop", "Fixtures/le-heart-rate.pklg")
        XCTAssertEqual(badFilter.status, 2)
        XCTAssertEqual(badFilter.out, "")
        // A capture cut inside a record: a warning, the complete records compared. The record
        // lost is the start of a PDU never completed: nothing of the scenario's meaning.
        let whole = try Data(contentsOf: Tool.root.appendingPathComponent("Fixtures/le-heart-rate.btsnoop"))
        let cut = ExportTests.temporary("cut.btsnoop")
        try whole.prefix(whole.count - 3).write(to: URL(fileURLWithPath: cut))
        let truncated = try btlog("diff", "Fixtures/le-heart-rate.btsnoop", cut)
        XCTAssertEqual(truncated.status, 0, truncated.out)
        XCTAssertTrue(truncated.err.contains("truncated"), truncated.err)
        XCTAssertTrue(truncated.out.contains("B: \(cut) (140 packets)"), truncated.out)
    }

    /// Captures this project did not make (the kernel harness's, crackle's air captures) and
    /// every fixture: each against itself a day later has no difference; crackle's two
    /// captures of different devices are told apart, their peers matched by connection order.
    func testRealCapturesAgainstThemselvesShiftedInTime() throws {
        let crackle = "Fixtures/third-party/crackle/"
        let files = try ExportTests.fixtures() + ["known_ltk.pcap", "numeric_pin.pcap"].map { crackle + $0 }
        for file in files {
            let reader = try CaptureInput.open(Tool.root.appendingPathComponent(file).path)
            var frames: [Frame] = []
            while let frame = try reader.next() { frames.append(frame) }
            let later = frames.map { frame -> Frame in
                var moved = frame
                moved.timestamp += 86_400_000_000 + 250_000
                return moved
            }
            let diff = CaptureDiff(DiffRecorder.side(of: frames), DiffRecorder.side(of: later))
            XCTAssertTrue(diff.isEmpty, "\(file): \(diff.aspects.flatMap(\.items).prefix(3).map(\.summary))")
        }
        let pair = try btlog("diff", crackle + "known_ltk.pcap", crackle + "numeric_pin.pcap")
        XCTAssertEqual(pair.status, 1)
        XCTAssertTrue(pair.out.contains("peer 78:C5:E5:6E:DD:E8 in A is 69:5B:FB:2C:3F:A7 in B (matched by order of connection)"), pair.out)
        XCTAssertTrue(pair.out.contains("SMP with 69:5B:FB:2C:3F:A7: only in B"), "numeric_pin's pairing, decrypted from the air: \(pair.out)")
    }

    /// What the controllers said of themselves: a Broadcom controller's Read Local Version
    /// Information against an Intel one's, value by value.
    func testControllersAreComparedByWhatTheyReturned() throws {
        let result = try btlog("diff", "--ignore", "conversations,diagnosis,connections", "Fixtures/broadcom-firmware.btsnoop", "Fixtures/intel-boot.btsnoop")
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.out.contains("  1. devices: controller hci0: 3 values differ\n"), result.out)
        XCTAssertTrue(result.out.contains("  hci.company_identifier: Broadcom Corporation (0x000F) → Intel Corp. (0x0002)\n"), result.out)
        XCTAssertTrue(result.out.contains("  hci.lmp_subversion: 16910 (0x420E) → 256 (0x0100)\n"), result.out)
    }

    /// Standard input in either place, and two very different captures (a small LE session
    /// against the 600-packet A2DP stream): every aspect says what only one has.
    func testStandardInputAndUnrelatedCaptures() throws {
        let data = try Data(contentsOf: Tool.root.appendingPathComponent("Fixtures/le-heart-rate.btsnoop"))
        let fromStdin = try Tool.run(Tool.btlog, ["diff", "-", "Fixtures/le-heart-rate.pklg"], stdin: data)
        XCTAssertEqual(fromStdin.status, 0, fromStdin.err)
        let unrelated = try btlog("diff", "--stat", "Fixtures/le-heart-rate.btsnoop", "Fixtures/a2dp-stream.btsnoop")
        XCTAssertEqual(unrelated.status, 1)
        for aspect in ["diagnosis", "conversations", "devices", "connections", "gatt", "audio"] {
            XCTAssertFalse(unrelated.out.contains("\(aspect.padding(toLength: 14, withPad: " ", startingAt: 0))same"), "\(aspect): \(unrelated.out)")
        }
    }

    /// Two captures that differ only in one described value (the Body Sensor Location read,
    /// Chest in A, Wrist in B: Heart Rate Service 3.2, 0x01 and 0x02): the conversation step
    /// names the shipped description's field with each side's value.
    func testACaptureDifferingInOneDescribedValue() throws {
        let reader = try CaptureInput.open(Tool.root.appendingPathComponent("Fixtures/le-heart-rate.btsnoop").path)
        var frames: [Frame] = []
        while let frame = try reader.next() { frames.append(frame) }
        let decoder = Decoder()
        var changed = frames
        var location: Int?
        for (index, frame) in frames.enumerated() {
            let packet = decoder.decode(frame)
            guard let att = packet.layers.first(where: { $0.kind == .att }), att.integer(ATTFields.opcode) == 0x0B,
                  att.fieldCopies.contains(where: { $0.definition == GATTFields.characteristic && $0.text.contains("2A38") }) else { continue }
            var bytes = Array(frame.bytes)
            XCTAssertEqual(bytes.last, 0x01, "the fixture's sensor is on the chest")
            bytes[bytes.count - 1] = 0x02
            changed[index] = Frame(number: frame.number, timestamp: frame.timestamp, kind: frame.kind, direction: frame.direction, bytes: bytes)
            location = index
        }
        XCTAssertNotNil(location)
        let a = ExportTests.temporary("described-a.btsnoop"), b = ExportTests.temporary("described-b.btsnoop")
        try Data(try FixtureContainers.encode(frames, as: .btsnoopH4)).write(to: URL(fileURLWithPath: a))
        try Data(try FixtureContainers.encode(changed, as: .btsnoopH4)).write(to: URL(fileURLWithPath: b))
        let result = try btlog("diff", "--color", "never", a, b)
        XCTAssertEqual(result.status, 1, result.out + result.err)
        XCTAssertTrue(result.out.contains("location=Chest (0x01)"), result.out)
        XCTAssertTrue(result.out.contains("  +         #90     Read Response  2A38 (Body Sensor Location)  location=Wrist (0x02)  02"), result.out)
        // Nothing else differs: one difference, in the conversations.
        let stat = try btlog("diff", "--stat", a, b)
        XCTAssertTrue(stat.out.contains("conversations 1 difference"), stat.out)
        XCTAssertTrue(stat.out.contains("total         1 difference"), stat.out)
    }

    /// A capture that starts after its link came up names no peer (revcar's: handle 0x0002, no
    /// connection event). Its conversations are compared under the link: the RevCar app's
    /// drive command at packet 102, its speed (the throttle's low five bits: 0x18, 24) made 5 in
    /// B, is the one difference, and the capture against itself has none.
    func testConversationsOfALinkWhosePeerTheCaptureNeverNames() throws {
        let revcar = "Fixtures/third-party/revcar/btsnoop_hci.log"
        let reader = try CaptureInput.open(Tool.root.appendingPathComponent(revcar).path)
        var frames: [Frame] = []
        while let frame = try reader.next() { frames.append(frame) }
        var changed = frames
        // ACL header (4), L2CAP header (4), Write Command 0x52 to handle 0x0017, drive 0x78, throttle, steering.
        let drive = try XCTUnwrap(frames.firstIndex { frame in
            let bytes = Array(frame.bytes)
            return frame.number >= 102 && bytes.count == 14 && Array(bytes[8 ..< 12]) == [0x52, 0x17, 0x00, 0x78]
        })
        var bytes = Array(frames[drive].bytes)
        XCTAssertEqual(bytes[12] & 0x1F, 24, "the capture's drive command at \(frames[drive].number)")
        bytes[12] = bytes[12] & 0xE0 | 5
        changed[drive] = Frame(number: frames[drive].number, timestamp: frames[drive].timestamp, kind: frames[drive].kind,
                               direction: frames[drive].direction, bytes: bytes)
        let a = ExportTests.temporary("revcar-a.btsnoop"), b = ExportTests.temporary("revcar-b.btsnoop")
        try Data(try FixtureContainers.encode(frames, as: .btsnoopH4)).write(to: URL(fileURLWithPath: a))
        try Data(try FixtureContainers.encode(changed, as: .btsnoopH4)).write(to: URL(fileURLWithPath: b))
        XCTAssertEqual(try btlog("diff", a, a).status, 0)
        let result = try btlog("diff", "--color", "never", "--protocol", "Examples/protocols/revcar.yaml", a, b)
        XCTAssertEqual(result.status, 1, result.out + result.err)
        XCTAssertTrue(result.out.contains("1 difference:\n  1. conversations: ATT with link 0x0002 on hci0 (its peer not in the capture): 1 step only in A, 1 only in B"), result.out)
        let lines = result.out.components(separatedBy: "\n")
        XCTAssertTrue(lines.contains { $0.hasPrefix("  - #\(frames[drive].number) ") && $0.hasSuffix("Write Command  FFE9 (RevCar Command)  78 18 00") }, result.out)
        XCTAssertTrue(lines.contains { $0.hasPrefix("  +         #\(frames[drive].number) ") && $0.hasSuffix("Write Command  FFE9 (RevCar Command)  78 05 00") }, result.out)
    }
}
