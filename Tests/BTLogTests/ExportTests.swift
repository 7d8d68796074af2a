import XCTest
import Foundation
import BTCapture
import BTFixtures

/// `btlog export`, read by the programs its users feed it to: Python's json and csv modules and
/// jsonschema against docs/packet.schema.json, jq, DuckDB, tshark, btmon and text2pcap.
final class ExportTests: XCTestCase {
    func btlog(_ arguments: String...) throws -> Tool.Result { try Tool.run(Tool.btlog, arguments) }

    static func temporary(_ name: String) -> String {
        let folder = NSTemporaryDirectory() + "btlog-export-\(ProcessInfo.processInfo.processIdentifier)/"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder + name
    }

    /// Every capture fixture btlog reads as a single file.
    static func fixtures() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: Tool.root.appendingPathComponent("Fixtures").path)
            .filter { name in [".btsnoop", ".pklg", ".pcap", ".pcapng"].contains { name.hasSuffix($0) } }
            .sorted().map { "Fixtures/" + $0 }
    }

    /// A Python that has `module`: the project's venv (.ci/run makes it for DuckDB) or the system's.
    /// Its modules (python3-jsonschema, DuckDB) read what btlog writes: the reference tier's.
    static func python(with module: String) -> String? {
        guard Reference.isLive else { return nil }
        let candidates = [Tool.root.appendingPathComponent(".build/pyenv/bin/python3").path] + [Tool.find("python3")].compactMap { $0 }
        for candidate in candidates where FileManager.default.isExecutableFile(atPath: candidate) {
            if (try? Tool.run(candidate, ["-c", "import \(module)"]))?.status == 0 { return candidate }
        }
        return nil
    }

    // MARK: JSON

    /// Every fixture's export is valid JSON on every line, valid against the schema, and holds
    /// what show and --fields print for the same packets.
    func testJSONLinesMatchTheSchemaAndShowOnEveryFixture() throws {
        guard let python = Self.python(with: "jsonschema") else { throw Reference.skip("python3-jsonschema") }
        let checker = """
        import json, sys, jsonschema
        schema = json.load(open(sys.argv[1]))
        validator = jsonschema.Draft202012Validator(schema)
        count = 0
        for line in open(sys.argv[2], encoding="utf-8"):
            packet = json.loads(line)
            for error in validator.iter_errors(packet):
                print("packet", packet.get("number"), "invalid:", error.message[:300], list(error.path)); sys.exit(1)
            count += 1
        opcodes = [str(f.get("att.opcode")) for p in map(json.loads, open(sys.argv[2])) for l in p["layers"] for f in [l["fields"]] if "att.opcode" in f]
        print(count, ",".join(opcodes))
        """
        for fixture in try Self.fixtures() {
            let path = Self.temporary("schema.jsonl")
            let exported = try btlog("export", fixture, "-o", path)
            XCTAssertEqual(exported.status, 0, "\(fixture): \(exported.err)")
            let result = try Tool.run(python, ["-c", checker, "docs/packet.schema.json", path])
            XCTAssertEqual(result.status, 0, "\(fixture): \(result.out) \(result.err)")
            let parts = result.out.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ", maxSplits: 1)
            // As many objects as show counts packets, and the ATT opcodes --fields prints, in order.
            let shown = try btlog("show", fixture, "--fields", "number")
            XCTAssertEqual(Int(parts.first ?? ""), shown.out.split(separator: "\n").count, fixture)
            let opcodes = try btlog("show", fixture, "--fields", "att.opcode", "-f", "att.opcode")
            let expected = opcodes.out.split(separator: "\n").flatMap { $0.split(separator: ",") }.map { String(UInt64($0.dropFirst(2), radix: 16)!) }
            XCTAssertEqual(parts.count > 1 ? parts[1].split(separator: ",").map(String.init) : [], expected, fixture)
        }
    }

    /// Names with quotes, backslashes, control characters and bytes that are not UTF-8 still
    /// make valid JSON and CSV, in every layout, and read back as the decoder read them.
    func testStringsOfEveryKindStayValid() throws {
        let name: [UInt8] = Array("a\"b\\c".utf8) + [0x01, 0x09, 0x0A, 0x1F, 0x7F] + [0xC3, 0x28, 0xFF] + Array("é✓".utf8)
        let capture = Self.temporary("names.btsnoop")
        try Self.advertisingCapture(names: [name, Array("plain".utf8)]).write(to: URL(fileURLWithPath: capture))
        try? FileManager.default.removeItem(atPath: capture + ".btlog-notes.json")
        XCTAssertEqual(try btlog("annotate", capture, "--packet", "1", "--comment", "tab\there \"quoted\" \u{7}bell, comma").status, 0)
        let jsonl = Self.temporary("names.jsonl"), json = Self.temporary("names.json"), csv = Self.temporary("names.csv")
        for (format, path) in [("jsonl", jsonl), ("json", json), ("csv", csv)] {
            let result = try btlog("export", capture, "--format", format, "-o", path)
            XCTAssertEqual(result.status, 0, result.err)
        }
        let summaries = try btlog("show", capture, "--fields", "adv.name")
        guard let python = Tool.find("python3") else { throw XCTSkip("python3 is not installed") }
        let script = """
        import json, csv, sys
        lines = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
        array = json.load(open(sys.argv[2], encoding="utf-8"))
        assert lines == array, "jsonl and json differ"
        rows = list(csv.reader(open(sys.argv[3], encoding="utf-8", newline="")))
        assert rows[0] == ["number", "time", "direction", "type", "handle", "address", "summary"], rows[0]
        assert [r[6] for r in rows[1:]] == [p["summary"] for p in lines], "csv summaries differ"
        names = [l["fields"].get("adv.name") for p in lines for l in p["layers"] if "adv.name" in l["fields"]]
        print(json.dumps({"names": names, "comment": lines[0]["comment"]}))
        """
        let result = try Tool.run(python, ["-c", script, jsonl, json, csv])
        XCTAssertEqual(result.status, 0, result.out + result.err)
        let parsed = try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any]
        // The decoder's own reading of the name (--fields prints it raw) is what JSON carries.
        let expectedNames = summaries.out.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        XCTAssertEqual(parsed?["names"] as? [String], expectedNames.filter { !$0.isEmpty })
        XCTAssertEqual(parsed?["comment"] as? String, "tab\there \"quoted\" \u{7}bell, comma")
        if let jq = Reference.consumer("jq") {
            let read = try Tool.run(jq, ["-c", ".number", jsonl])
            XCTAssertEqual(read.out, "1\n2\n", read.err)
        }
    }

    /// A btsnoop (H4) capture of LE Advertising Reports carrying these local names.
    static func advertisingCapture(names: [[UInt8]]) -> Data {
        var bytes = Array("btsnoop".utf8) + [0, 0, 0, 0, 1, 0, 0, 0x03, 0xEA]
        for (index, name) in names.enumerated() {
            let data: [UInt8] = [UInt8(name.count + 1), 0x09] + name
            let report: [UInt8] = [0x02, 0x01, 0x00, 0x01, 0x11, 0x22, 0x33, 0x44, 0x55, 0xC6, UInt8(data.count)] + data + [0xC4]
            let packet: [UInt8] = [0x04, 0x3E, UInt8(report.count)] + report
            func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
            let stamp = UInt64(0x00dc_ddb3_0f2f_8000) + 1_700_000_000_000_000 + UInt64(index) * 1000
            bytes += be32(packet.count) + be32(packet.count) + be32(3) + be32(0)
            bytes += (0 ..< 8).map { UInt8(stamp >> (56 - 8 * UInt64($0)) & 0xFF) }
            bytes += packet
        }
        return Data(bytes)
    }

    /// --fields gives flat objects; several files add `file`; json is one array.
    func testFlatObjectsAndSeveralFiles() throws {
        let flat = try btlog("export", "Fixtures/le-heart-rate.btsnoop", "--fields", "number,att.opcode,att.opcode.name,hci.reason",
                             "-f", "att.opcode == write_req or hci.reason == connection_timeout")
        XCTAssertEqual(flat.status, 0, flat.err)
        let objects = flat.out.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let writes = objects.filter { ($0?["att.opcode"] as? Int) == 0x12 }
        XCTAssertFalse(writes.isEmpty, flat.out)
        for write in writes {
            XCTAssertEqual(write?["att.opcode.name"] as? String, "Write Request")
            XCTAssertTrue(write?["hci.reason"] is NSNull, "absent fields are null")
        }
        XCTAssertTrue(objects.contains { ($0?["hci.reason"] as? Int) == 0x08 }, flat.out)
        // Two captures, one stream: each object says which it came from.
        let two = try btlog("export", "Fixtures/le-heart-rate.btsnoop", "Fixtures/wwdc-dual.pklg", "--fields", "number")
        let files = two.out.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }.map { $0["file"] as? String }
        XCTAssertEqual(Set(files), ["Fixtures/le-heart-rate.btsnoop", "Fixtures/wwdc-dual.pklg"])
        XCTAssertEqual(files.first, "Fixtures/le-heart-rate.btsnoop")
        let csv = try btlog("export", "Fixtures/le-heart-rate.btsnoop", "Fixtures/wwdc-dual.pklg", "--format", "csv", "-c", "1")
        XCTAssertEqual(csv.out.split(separator: "\n").map { $0.split(separator: ",").prefix(2).joined(separator: ",") },
                       ["file,number", "Fixtures/le-heart-rate.btsnoop,1", "Fixtures/wwdc-dual.pklg,1"])
        let array = try btlog("export", "Fixtures/le-heart-rate.btsnoop", "--format", "json", "-f", "smp")
        let parsed = try JSONSerialization.jsonObject(with: Data(array.out.utf8)) as? [[String: Any]]
        XCTAssertEqual(parsed?.count, try btlog("show", "Fixtures/le-heart-rate.btsnoop", "-f", "smp", "--fields", "number").out.split(separator: "\n").count)
        let empty = try btlog("export", "Fixtures/le-heart-rate.btsnoop", "--format", "json", "-f", "rfcomm")
        XCTAssertEqual(empty.out, "[]\n")
        let header = try btlog("export", "Fixtures/le-heart-rate.btsnoop", "--format", "csv", "-f", "rfcomm", "--fields", "number,l2cap.cid")
        XCTAssertEqual(header.out, "number,l2cap.cid\n")
    }

    /// DuckDB's read_json_auto reads the export; its count of ATT opcodes is btlog's own.
    func testDuckDBReadsTheExport() throws {
        guard let python = Self.python(with: "duckdb") else { throw Reference.skip("DuckDB") }
        let path = Self.temporary("duck.jsonl")
        XCTAssertEqual(try btlog("export", "Fixtures/le-heart-rate.btsnoop", "Fixtures/le-apple.btsnoop", "-o", path).status, 0)
        let query = """
        import duckdb, sys
        rows = duckdb.sql(f\"\"\"
            select cast(l.fields['att.opcode'] as integer) as opcode, count(*)
            from (select unnest(layers) as l from read_json_auto('{sys.argv[1]}'))
            where l.protocol = 'att' and l.fields['att.opcode'] is not null
            group by opcode order by opcode\"\"\").fetchall()
        print(" ".join(f"{o}:{n}" for o, n in rows))
        """
        let result = try Tool.run(python, ["-c", query, path])
        XCTAssertEqual(result.status, 0, result.err)
        var counts: [Int: Int] = [:]
        for file in ["Fixtures/le-heart-rate.btsnoop", "Fixtures/le-apple.btsnoop"] {
            let opcodes = try btlog("show", file, "-f", "att", "--fields", "att.opcode")
            for line in opcodes.out.split(separator: "\n") { counts[Int(line.dropFirst(2), radix: 16)!, default: 0] += 1 }
        }
        XCTAssertEqual(result.out.trimmingCharacters(in: .whitespacesAndNewlines),
                       counts.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: " "))
    }

    /// Described protocols' fields in the export: valid against the schema (their measurements
    /// numbers), and DuckDB's sum of the RevCar's drive speeds is what --fields prints.
    func testDescribedFieldsExportAndDuckDBReadsThem() throws {
        let path = Self.temporary("described.jsonl")
        let revcar = "Fixtures/third-party/revcar/btsnoop_hci.log"
        let exported = try btlog("export", "--protocol", "Examples/protocols/revcar.yaml", revcar, "-o", path)
        XCTAssertEqual(exported.status, 0, exported.err)
        let speeds = try btlog("show", "--protocol", "Examples/protocols/revcar.yaml", revcar, "-f", "revcar.drive.speed", "--fields", "revcar.drive.speed")
        let total = speeds.out.split(separator: "\n").compactMap { Int($0) }.reduce(0, +)
        XCTAssertGreaterThan(total, 1000)
        if let python = Self.python(with: "jsonschema") {
            let checker = """
            import json, sys, jsonschema
            validator = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))
            for line in open(sys.argv[2], encoding="utf-8"):
                for error in validator.iter_errors(json.loads(line)):
                    print(error.message[:300]); sys.exit(1)
            """
            let result = try Tool.run(python, ["-c", checker, "docs/packet.schema.json", path])
            XCTAssertEqual(result.status, 0, result.out + result.err)
        }
        guard let python = Self.python(with: "duckdb") else { throw Reference.skip("DuckDB") }
        let query = """
        import duckdb, sys
        rows = duckdb.sql(f\"\"\"
            select sum(cast(l.fields['revcar.drive.speed'] as integer)), count(*)
            from (select unnest(layers) as l from read_json_auto('{sys.argv[1]}'))
            where l.protocol = 'revcar' and l.fields['revcar.drive.speed'] is not null\"\"\").fetchall()
        print(rows[0][0], rows[0][1])
        """
        let result = try Tool.run(python, ["-c", query, path])
        XCTAssertEqual(result.status, 0, result.err)
        XCTAssertEqual(result.out.trimmingCharacters(in: .whitespacesAndNewlines), "\(total) \(speeds.out.split(separator: "\n").count)")
    }

    // MARK: Captures

    /// An unfiltered export in the input's own format is the same file; a filtered one holds
    /// exactly the selected frames; tshark and btmon read what btlog writes.
    func testCaptureExportsRoundTripAndOpenInTsharkAndBtmon() throws {
        for fixture in try Self.fixtures() {
            let format = fixture.hasSuffix(".pklg") ? "pklg" : fixture.hasSuffix(".pcapng") ? "pcapng" : fixture.hasSuffix(".pcap") ? "pcap" : "btsnoop"
            let out = Self.temporary("same." + format)
            let result = try btlog("export", fixture, "--format", format, "-o", out)
            XCTAssertEqual(result.status, 0, result.err)
            let original = try Data(contentsOf: Tool.root.appendingPathComponent(fixture))
            let written = try Data(contentsOf: URL(fileURLWithPath: out))
            if fixture.contains("bcsp") || fixture.contains("h5") {
                // Three-wire and BCSP link packets carry no HCI packet: btlog writes H4 and says what it left out.
                XCTAssertTrue(result.err.contains("left out 36 Link Control"), result.err)
            } else if fixture.hasSuffix("-be.pklg") {
                XCTAssertEqual(try btlog("show", out).out, try btlog("show", fixture).out, "big-endian pklg is written little-endian, same packets")
            } else {
                XCTAssertEqual(written, original, "\(fixture) exported as \(format) is not the same file")
            }
        }
        // A filtered export holds exactly the selected frames: times and bytes as before.
        let filtered = Self.temporary("att.btsnoop")
        XCTAssertEqual(try btlog("export", "Fixtures/le-heart-rate.btsnoop", "-f", "att or smp", "-o", filtered).status, 0)
        XCTAssertEqual(try btlog("export", filtered, "--fields", "timestamp_us,bytes").out,
                       try btlog("export", "Fixtures/le-heart-rate.btsnoop", "-f", "att or smp", "--fields", "timestamp_us,bytes").out)
        guard let tshark = Reference.consumer("tshark") else { throw Reference.skip("tshark") }
        for (fixture, format) in [("Fixtures/wwdc-dual.pklg", "btsnoop"), ("Fixtures/wwdc-dual.pklg", "pcapng"), ("Fixtures/wwdc-dual.pklg", "pcap"),
                                  ("Fixtures/le-heart-rate.btsnoop", "pklg"), ("Fixtures/kernel-smp.btsnoop", "pcapng"), ("Fixtures/a2dp-stream.btsnoop", "pcap")] {
            let out = Self.temporary("read." + format)
            let result = try btlog("export", fixture, "--format", format, "-o", out)
            XCTAssertEqual(result.status, 0, result.err)
            let count = try btlog("show", out, "--fields", "number").out.split(separator: "\n").count
            let theirs = try Tool.run(tshark, ["-r", out, "-T", "fields", "-e", "frame.number"])
            XCTAssertEqual(theirs.out.split(separator: "\n").count, count, "\(fixture) as \(format): \(theirs.err)")
        }
        if let btmon = Reference.consumer("btmon") {
            // btmon 5.66 crashes on the LE fixtures' advertising data (see BtmonDepthTests), so a
            // classic capture goes through pklg and back to btsnoop for it.
            let pklg = Self.temporary("classic.pklg"), out = Self.temporary("from-pklg.btsnoop")
            XCTAssertEqual(try btlog("export", "Fixtures/bredr-handsfree.btsnoop", "-o", pklg).status, 0)
            XCTAssertEqual(try btlog("export", pklg, "--format", "btsnoop", "-o", out).status, 0)
            let theirs = try Tool.run(btmon, ["-r", out, "-T"])
            XCTAssertEqual(theirs.status, 0, theirs.err)
            // btmon prints a line per HCI packet starting with < (sent) or > (received).
            let ours = try btlog("show", out, "--fields", "direction", "--type", "cmd,event,acl,sco")
            XCTAssertEqual(theirs.out.split(separator: "\n").filter { $0.hasPrefix("<") || $0.hasPrefix(">") }.count,
                           ours.out.split(separator: "\n").count, theirs.out)
            XCTAssertEqual(try btlog("show", out).out, try btlog("show", "Fixtures/bredr-handsfree.btsnoop").out)
        }
    }

    /// pcapng carries comments and flags as packet comments: Wireshark's frame.comment.
    func testPcapngCarriesCommentsTsharkShows() throws {
        let capture = Self.temporary("noted.btsnoop")
        try? FileManager.default.removeItem(atPath: capture)
        try? FileManager.default.removeItem(atPath: capture + ".btlog-notes.json")
        try FileManager.default.copyItem(atPath: Tool.root.appendingPathComponent("Fixtures/le-heart-rate.btsnoop").path, toPath: capture)
        XCTAssertEqual(try btlog("annotate", capture, "--packet", "18", "--comment", "MTU asked: 247, ünïcode").status, 0)
        XCTAssertEqual(try btlog("annotate", capture, "--packet", "111", "--flag", "--comment", "refused").status, 0)
        XCTAssertEqual(try btlog("annotate", capture, "--packet", "135", "--flag").status, 0)
        let out = Self.temporary("noted.pcapng")
        XCTAssertEqual(try btlog("export", capture, "-o", out).status, 0)
        // btlog reads its own comments back.
        let ours = try btlog("show", out, "-f", "comment", "--fields", "number")
        XCTAssertEqual(ours.out, "18\n111\n135\n")
        guard let tshark = Reference.consumer("tshark") else { throw Reference.skip("tshark") }
        let theirs = try Tool.run(tshark, ["-r", out, "-Y", "frame.comment", "-T", "fields", "-e", "frame.number", "-e", "frame.comment"])
        XCTAssertEqual(theirs.out, "18\tMTU asked: 247, ünïcode\n111\trefused,btlog: flagged\n135\tbtlog: flagged\n", theirs.err)
    }

    /// The hex format reads back with text2pcap into the same packets, directions and times.
    func testHexReimportsWithText2pcap() throws {
        guard let text2pcap = Reference.consumer("text2pcap"), let tshark = Reference.consumer("tshark") else { throw Reference.skip("text2pcap and tshark") }
        for fixture in ["Fixtures/le-heart-rate.btsnoop", "Fixtures/wwdc-dual.pklg", "Fixtures/kernel-iso.btsnoop"] {
            let hex = Self.temporary("dump.hex"), back = Self.temporary("back.pcapng")
            XCTAssertEqual(try btlog("export", fixture, "--format", "hex", "-o", hex).status, 0)
            let imported = try Tool.run(text2pcap, ["-q", "-D", "-t", "ISO", "-l", "187", hex, back])
            XCTAssertEqual(imported.status, 0, imported.err)
            let theirs = try Tool.run(tshark, ["-r", back, "-T", "fields", "-e", "frame.time_epoch", "-e", "hci_h4.direction", "-e", "frame.len"])
            let frames = try Tool.run(tshark, ["-r", back, "-T", "json", "-x"])
            let rawBytes = Self.frameRaw(frames.out)
            let ours = try btlog("export", fixture, "--fields", "timestamp_us,direction,kind,bytes", "--type", "cmd,event,acl,sco,iso")
            var expected: [String] = [], expectedBytes: [String] = []
            for line in ours.out.split(separator: "\n") {
                let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                let micros = object["timestamp_us"] as! Int
                let direction = (object["direction"] as? String) == "received" ? "0x01" : "0x00"
                let bytes = object["bytes"] as! String
                let indicator = ["command": "01", "acl": "02", "sco": "03", "event": "04", "iso": "05"][object["kind"] as! String]!
                expected.append(String(format: "%d.%06d000\t%@\t%d", micros / 1_000_000, micros % 1_000_000, direction, bytes.count / 2 + 1))
                expectedBytes.append((indicator + bytes).lowercased())
            }
            XCTAssertEqual(theirs.out.split(separator: "\n").map(String.init), expected, fixture)
            XCTAssertEqual(rawBytes, expectedBytes, fixture)
        }
    }

    /// The "frame_raw" hex strings of `tshark -T json -x`, in packet order.
    static func frameRaw(_ json: String) -> [String] {
        guard let packets = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]] else { return [] }
        return packets.compactMap { packet in
            let layers = (packet["_source"] as? [String: Any])?["layers"] as? [String: Any]
            return (layers?["frame_raw"] as? [Any])?.first as? String
        }
    }

    // MARK: Audio and payloads

    /// A Sun .au file of 16-bit big-endian PCM: a tone per channel, what sbcenc reads.
    static func auFile(rate: Int, channels: Int, seconds: Double) -> Data {
        var bytes: [UInt8] = Array(".snd".utf8)
        let samples = Int(Double(rate) * seconds)
        for value in [24, samples * channels * 2, 3, rate, channels] {
            bytes += [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
        }
        for n in 0 ..< samples {
            for channel in 0 ..< channels {
                let value = Int16(8000 * sin(2 * Double.pi * Double(440 * (channel + 1)) * Double(n) / Double(rate)))
                bytes += [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
            }
        }
        return Data(bytes)
    }

    /// SBC frames one after another, cut by the length each header gives (A2DP Appendix B).
    static func sbcFrames(_ bytes: [UInt8]) -> [[UInt8]] {
        var frames: [[UInt8]] = [], index = 0
        while index + 4 <= bytes.count, bytes[index] == 0x9C {
            let settings = bytes[index + 1], bitpool = Int(bytes[index + 2])
            let blocks = 4 * (Int(settings >> 4 & 3) + 1), mode = Int(settings >> 2 & 3), subbands = settings & 1 == 0 ? 4 : 8
            let channels = mode == 0 ? 1 : 2
            let length = mode < 2 ? 4 + 4 * subbands * channels / 8 + (blocks * channels * bitpool + 7) / 8
                : 4 + subbands + ((mode == 3 ? subbands : 0) + blocks * bitpool + 7) / 8
            frames.append(Array(bytes[index ..< min(index + length, bytes.count)]))
            index += length
        }
        return frames
    }

    /// SBC from an A2DP stream and mSBC from HFP's eSCO link, encoded here by sbcenc, come out
    /// of btlog byte for byte and play in sbcdec; CVSD packets come out as the controller gave them.
    func testAudioStreamsPlayInSBCDecoder() throws {
        guard let sbcenc = Reference.consumer("sbcenc"), let sbcdec = Reference.consumer("sbcdec") else { throw Reference.skip("sbc-tools") }
        let stereo = Self.temporary("tone.au"), mono = Self.temporary("tone16k.au")
        try Self.auFile(rate: 44100, channels: 2, seconds: 0.5).write(to: URL(fileURLWithPath: stereo))
        try Self.auFile(rate: 16000, channels: 1, seconds: 0.3).write(to: URL(fileURLWithPath: mono))
        let sbc = try Tool.run("/bin/sh", ["-c", "'\(sbcenc)' -j -s 8 -B 16 -b 53 '\(stereo)' > '\(stereo).sbc'"])
        let msbc = try Tool.run("/bin/sh", ["-c", "'\(sbcenc)' -m '\(mono)' > '\(mono).msbc'"])
        XCTAssertEqual(sbc.status + msbc.status, 0, sbc.err + msbc.err)
        let sbcBytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: stereo + ".sbc")))
        let msbcBytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: mono + ".msbc")))
        let sbcFrames = Self.sbcFrames(sbcBytes)
        XCTAssertEqual(sbcFrames.map(\.count).reduce(0, +), sbcBytes.count, "frames cut by their headers cover the file")
        XCTAssertGreaterThan(sbcFrames.count, 100)
        let msbcFrames = stride(from: 0, to: msbcBytes.count, by: 57).map { Array(msbcBytes[$0 ..< min($0 + 57, msbcBytes.count)]) }
        XCTAssertTrue(msbcFrames.allSatisfy { $0.count == 57 && $0[0] == 0xAD }, "sbcenc -m writes 57-byte frames")
        let cvsd = (0 ..< 40).map { n in (0 ..< 48).map { UInt8(truncatingIfNeeded: n * 48 + $0) } }
        let capture = Self.temporary("audio.btsnoop")
        let frames = Scenarios.audioExport(sbc: sbcFrames, msbc: msbcFrames, cvsd: cvsd)
        try Data(FixtureContainers.encode(frames, as: .btsnoopH4)).write(to: URL(fileURLWithPath: capture))

        for (format, expected, decoderOptions) in [("sbc", sbcBytes, [String]()), ("msbc", msbcBytes, ["-m"])] {
            let out = Self.temporary("out." + format)
            let exported = try btlog("export", capture, "--format", format, "-o", out)
            XCTAssertEqual(exported.status, 0, exported.err)
            XCTAssertTrue(exported.err.hasPrefix("wrote stream 1: handle "), exported.err)
            XCTAssertEqual(try [UInt8](Data(contentsOf: URL(fileURLWithPath: out))), expected, "\(format) stream differs from sbcenc's")
            // The decoder plays it: as many samples as the encoder's own file gives.
            let ours = try Tool.run(sbcdec, decoderOptions + ["-f", out + ".au", out])
            let theirs = try Tool.run(sbcdec, decoderOptions + ["-f", out + ".reference.au", format == "sbc" ? stereo + ".sbc" : mono + ".msbc"])
            XCTAssertEqual(ours.status, 0, ours.err)
            XCTAssertEqual(theirs.status, 0, theirs.err)
            let decoded = try Data(contentsOf: URL(fileURLWithPath: out + ".au"))
            XCTAssertGreaterThan(decoded.count, format == "sbc" ? 44100 * 2 * 2 / 3 : 16000 * 2 / 5, "\(format) decoded to too little audio")
            XCTAssertEqual(decoded, try Data(contentsOf: URL(fileURLWithPath: out + ".reference.au")))
        }
        let raw = try Tool.run("/bin/sh", ["-c", "'\(Tool.btlog)' export '\(capture)' --format cvsd | od -An -v -tx1"])
        XCTAssertEqual(raw.out.split(whereSeparator: { $0 == " " || $0 == "\n" }).map { UInt8($0, radix: 16)! }, cvsd.flatMap { $0 })
        // Asking for a stream that is not there says which there are.
        let missing = try btlog("export", capture, "--format", "sbc", "--stream", "3", "-o", Self.temporary("none.sbc"))
        XCTAssertTrue(missing.err.contains("no stream 3: the capture has 1"), missing.err)

        // --payload: what RFCOMM carries on the hands-free link are HFP's AT commands.
        let payload = try btlog("export", capture, "--payload", "rfcomm", "-f", "hfp")
        let texts = payload.out.split(separator: "\n").map { line in
            String(decoding: stride(from: 0, to: line.count, by: 2).map { UInt8(line.dropFirst($0).prefix(2), radix: 16)! }, as: UTF8.self)
        }
        XCTAssertEqual(texts, ["AT+BRSF=1023\r", "\r\n+BRSF: 3839\r\n\r\nOK\r\n", "AT+BAC=1,2\r", "\r\nOK\r\n", "\r\n+BCS: 2\r\n", "AT+BCS=2\r", "\r\nOK\r\n"])
        let binary = try btlog("export", capture, "--payload", "rfcomm", "-f", "hfp", "--binary")
        XCTAssertEqual(binary.out, texts.joined())
    }

    /// L2CAP's payload is the PDU of the layer above it, reassembled: for ATT, the ATT PDUs
    /// --fields shows, byte for byte.
    func testPayloadOfL2CAPIsTheReassembledPDU() throws {
        let payload = try btlog("export", "Fixtures/le-heart-rate.btsnoop", "--payload", "l2cap", "-f", "att")
        let opcodes = try btlog("show", "Fixtures/le-heart-rate.btsnoop", "-f", "att", "--fields", "att.opcode")
        XCTAssertEqual(payload.out.split(separator: "\n").map { "0x" + $0.prefix(2) }, opcodes.out.split(separator: "\n").map(String.init))
        // A long notification reassembled from three ACL fragments comes out whole: the 55 bytes
        // its L2CAP header counts, the opcode, the handle and the 52-byte text.
        XCTAssertTrue(payload.out.split(separator: "\n").contains { $0.count == 2 * 55 && $0.hasPrefix("1B1A00") }, payload.out)
        let values = try btlog("export", "Fixtures/le-heart-rate.btsnoop", "--payload", "att", "-f", "att.opcode == 0x52")
        XCTAssertEqual(values.out, "68656C6C6F\n", "a Write Command's value ('hello')")
        let bad = try btlog("export", "Fixtures/le-heart-rate.btsnoop", "--payload", "atx")
        XCTAssertEqual(bad.status, 2)
    }

    /// The progress line shows on a terminal (a pseudo-terminal from script(1)), never with
    /// --no-progress, and never when standard error is not a terminal (every other test).
    func testProgressLineOnlyOnATerminal() throws {
        guard let script = Tool.find("script") else { throw XCTSkip("script (util-linux) is not installed") }
        let out = Self.temporary("progress.jsonl")
        func run(_ extra: String) throws -> String {
            try Tool.run(script, ["-qc", "\(Tool.btlog) export Fixtures/kernel-iso.btsnoop -o \(out) \(extra)", "/dev/null"],
                         environment: ["BTLOG_PROGRESS_DELAY": "0"]).out
        }
        let shown = try run("")
        XCTAssertTrue(shown.contains("btlog: export Fixtures/kernel-iso.btsnoop: ["), shown)
        XCTAssertTrue(shown.contains("% of "), shown)
        XCTAssertTrue(shown.hasSuffix("\r\u{1B}[K"), "the line is erased at the end: \(shown.debugDescription)")
        XCTAssertEqual(try run("--no-progress"), "")
        let plain = try btlog("export", "Fixtures/kernel-iso.btsnoop", "-o", out)
        XCTAssertEqual(plain.err, "")
    }

    // MARK: Text and errors

    /// text is show's output without colour; options are checked; output goes to a file only
    /// when complete; a reader that goes away ends the export quietly.
    func testTextErrorsAndOutputFile() throws {
        for arguments in [["-V"], ["-V", "-x"], []] {
            let exported = try Tool.run(Tool.btlog, ["export", "Fixtures/bredr-l2cap.btsnoop", "--format", "text"] + arguments)
            let shown = try Tool.run(Tool.btlog, ["show", "Fixtures/bredr-l2cap.btsnoop", "--color", "never"] + arguments)
            XCTAssertEqual(exported.out, shown.out)
        }
        let badFormat = try btlog("export", "Fixtures/le-heart-rate.btsnoop", "--format", "xml")
        XCTAssertEqual(badFormat.status, 2)
        XCTAssertTrue(badFormat.err.contains("xml"), badFormat.err)
        let badField = try btlog("export", "Fixtures/le-heart-rate.btsnoop", "--fields", "att.opcod")
        XCTAssertEqual(badField.status, 2)
        XCTAssertTrue(badField.err.contains("unknown field 'att.opcod'"), badField.err)
        let fieldsOnCapture = try btlog("export", "Fixtures/le-heart-rate.btsnoop", "--format", "pcap", "--fields", "number")
        XCTAssertEqual(fieldsOnCapture.status, 2)
        let badFilter = try btlog("export", "Fixtures/le-heart-rate.btsnoop", "-f", "att.opcode ==")
        XCTAssertEqual(badFilter.status, 2)
        XCTAssertTrue(badFilter.err.hasPrefix("btlog: filter:"), badFilter.err)
        let treeOnJSON = try btlog("export", "Fixtures/le-heart-rate.btsnoop", "-V")
        XCTAssertEqual(treeOnJSON.status, 2)
        // The format follows -o's extension; a folder that does not exist is a clear error.
        let csvPath = Self.temporary("guess.csv")
        XCTAssertEqual(try btlog("export", "Fixtures/le-heart-rate.btsnoop", "-o", csvPath).status, 0)
        XCTAssertTrue(try String(contentsOfFile: csvPath, encoding: .utf8).hasPrefix("number,time,direction,type,handle,address,summary\n"))
        let nowhere = try btlog("export", "Fixtures/le-heart-rate.btsnoop", "-o", "/nonexistent-folder/x.jsonl")
        XCTAssertEqual(nowhere.status, 1)
        XCTAssertTrue(nowhere.err.contains("/nonexistent-folder/x.jsonl: cannot write"), nowhere.err)
        // An existing file is replaced only by a complete export: a failed one leaves it whole.
        let existing = Self.temporary("existing.jsonl")
        try "keep me\n".write(toFile: existing, atomically: true, encoding: .utf8)
        let failed = try btlog("export", "Fixtures/no-such-file.btsnoop", "-o", existing)
        XCTAssertEqual(failed.status, 1)
        XCTAssertTrue(failed.err.contains("no-such-file"), failed.err)
        XCTAssertEqual(try String(contentsOfFile: existing, encoding: .utf8), "keep me\n")
        // One unreadable input among several: reported, the others exported, status 1.
        let mixed = try btlog("export", "Fixtures/no-such-file.btsnoop", "Fixtures/le-heart-rate.btsnoop", "--fields", "number")
        XCTAssertEqual(mixed.status, 1)
        XCTAssertEqual(mixed.out.split(separator: "\n").count, 141)
        // A reader that stops early (head) ends the export with status 0 and nothing on stderr.
        for format in ["jsonl", "btsnoop", "csv"] {
            let piped = try Tool.run("/bin/bash", ["-c", "\(Tool.btlog) export Fixtures/wwdc-dual.btsnoop Fixtures/a2dp-stream.btsnoop --format \(format) | head -c 10 > /dev/null; echo ${PIPESTATUS[0]}"])
            XCTAssertEqual(piped.out, "0\n", format)
            XCTAssertEqual(piped.err, "", format)
        }
    }
}
