import XCTest
import Foundation
import BTCapture
import BTFixtures

/// `btlog stats`: totals against tshark's own counts, the JSON against docs/stats.schema.json,
/// and the connections, devices, ATT and audio of fixtures whose scenarios say what happened.
final class StatsTests: XCTestCase {
    func btlog(_ arguments: String..., environment: [String: String] = [:]) throws -> Tool.Result {
        try Tool.run(Tool.btlog, arguments, environment: environment)
    }

    func stats(_ arguments: String..., environment: [String: String] = [:]) throws -> [String: Any] {
        let result = try Tool.run(Tool.btlog, ["stats", "--json"] + arguments, environment: environment)
        XCTAssertEqual(result.status, 0, result.err)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
    }

    /// Packets, commands, events, ACL, SCO, ISO and other records agree with what tshark
    /// dissects in every fixture (tshark 4.0 leaves the monitor's ISO records, opcodes 18 and
    /// 19, undissected: they count as ISO by their opcode).
    func testTotalsAgreeWithTshark() throws {
        for fixture in try ExportTests.fixtures() {
            // tshark does not read the three-wire and BCSP link types; btlog's counts for them
            // are checked against the H4 file's (ExportTests).
            if fixture.contains("-h5") || fixture.contains("-bcsp") { continue }
            let ours = try stats(fixture)
            let theirs = try Reference.output("tshark", ["-r", fixture, "-T", "fields", "-e", "frame.protocols", "-e", "hci_mon.opcode"] + Tool.tsharkUserDLT,
                                              recordedAs: "tshark/protocols/" + (fixture as NSString).lastPathComponent + ".tsv")
            var counts = ["packets": 0, "commands": 0, "events": 0, "acl": 0, "sco": 0, "iso": 0, "other": 0, "air": 0, "baseband": 0]
            for line in theirs.split(separator: "\n") {
                let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
                let protocols = columns[0].split(separator: ":")
                let opcode = columns.count > 1 ? Int(columns[1]) : nil
                counts["packets"]! += 1
                if protocols.contains("bthci_cmd") { counts["commands"]! += 1 }
                else if protocols.contains("bthci_evt") { counts["events"]! += 1 }
                else if protocols.contains("bthci_acl") { counts["acl"]! += 1 }
                else if protocols.contains("bthci_sco") { counts["sco"]! += 1 }
                else if protocols.contains("bthci_iso") || (protocols.last == "hci_mon" && (opcode == 18 || opcode == 19)) { counts["iso"]! += 1 }
                else if protocols.contains("btle") { counts["air"]! += 1 }
                else if protocols.contains("btbredr_rf") { counts["baseband"]! += 1 }
                else { counts["other"]! += 1 }
            }
            // "air" and "baseband" are written only when there are packets from the air.
            for (key, value) in counts { XCTAssertEqual(ours[key] as? Int ?? (key == "air" || key == "baseband" ? 0 : nil), value, "\(fixture): \(key)") }
        }
    }

    /// Every fixture's document validates against the schema (python3-jsonschema).
    func testJSONMatchesTheSchemaOnEveryFixture() throws {
        guard let python = ExportTests.python(with: "jsonschema") else { throw Reference.skip("python3-jsonschema") }
        let checker = """
        import json, sys, jsonschema
        validator = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))
        document = json.load(sys.stdin)
        for error in validator.iter_errors(document):
            print(error.message[:300], list(error.path)); sys.exit(1)
        """
        for fixture in try ExportTests.fixtures() {
            for extra in fixture.contains("le-") || fixture.contains("a2dp") ? [[], ["--throughput"]] : [[]] {
                let out = try Tool.run(Tool.btlog, ["stats", "--json", fixture] + extra)
                XCTAssertEqual(out.status, 0, out.err)
                let result = try Tool.run(python, ["-c", checker, "docs/stats.schema.json"], stdin: Data(out.out.utf8))
                XCTAssertEqual(result.status, 0, "\(fixture) \(extra): \(result.out) \(result.err)")
            }
        }
    }

    /// le-heart-rate's scenario (Scenarios.heartRateSession): the link to HRM-01 made at packet
    /// 17 with a 30 ms interval (24 units), 720 ms timeout; MTU 247 offered, 65 answered; LE
    /// Secure Connections pairing, encryption on at 84; the peer's parameter update request
    /// (100-200 ms) accepted and the link updated to 200 ms; EATT's two channels; a read left
    /// unanswered when the link times out (0x08) at 126; a second link to Lock-42 still up,
    /// with a read unanswered at the end.
    func testHeartRateSession() throws {
        let vendors = ExportTests.temporary("oui.csv")
        try "Registry,Assignment,Organization Name,Organization Address\nMA-L,D43A2C,\"Lockmakers, \"\"Test\"\" Ltd\",Somewhere\nMA-L,C0FFEE,Never Used,\n"
            .write(toFile: vendors, atomically: true, encoding: .utf8)
        let report = try stats("Fixtures/le-heart-rate.btsnoop", environment: ["BTLOG_OUI_FILE": vendors])
        XCTAssertEqual(report["packets"] as? Int, 141)
        let connections = try XCTUnwrap(report["connections"] as? [[String: Any]])
        XCTAssertEqual(connections.count, 2)
        let first = connections[0]
        XCTAssertEqual(first["handle"] as? Int, 0x40)
        XCTAssertEqual(first["address"] as? String, "C0:FF:EE:12:34:56")
        XCTAssertEqual(first["transport"] as? String, "LE")
        XCTAssertEqual(first["role"] as? String, "central")
        XCTAssertEqual(first["start_frame"] as? Int, 17)
        XCTAssertEqual(first["end_frame"] as? Int, 126)
        XCTAssertEqual(first["disconnect_reason"] as? Int, 0x08)
        XCTAssertEqual(first["disconnect_reason_name"] as? String, "Connection Timeout")
        let parameters = try XCTUnwrap(first["parameters"] as? [String: Any])
        XCTAssertEqual(parameters["interval_ms"] as? Double, 200)
        XCTAssertEqual(parameters["supervision_timeout_ms"] as? Int, 3000)
        XCTAssertEqual(parameters["mtu"] as? Int, 65)
        XCTAssertEqual(parameters["encrypted"] as? Bool, true)
        let timeline = try XCTUnwrap(first["timeline"] as? [[String: Any]])
        XCTAssertEqual(timeline.map { $0["frame"] as? Int }, [17, 19, 84, 112, 113, 116])
        // The amounts the shipped descriptions decode: two heart rates (0x48 and 0x49 in #95 and
        // #96), three battery levels (0x57, 0x56, 0x55 in #58, #99, #120). Flags are not amounts.
        let values = try XCTUnwrap(report["values"] as? [[String: Any]])
        XCTAssertEqual(values.map { $0["field"] as? String }, ["hrs.heart_rate", "hrs.rr", "bas.level"])
        XCTAssertEqual(values[0]["count"] as? Int, 2)
        XCTAssertEqual(values[0]["min"] as? Double, 72)
        XCTAssertEqual(values[0]["max"] as? Double, 73)
        XCTAssertEqual(values[0]["unit"] as? String, "bpm")
        XCTAssertEqual(values[2]["count"] as? Int, 3)
        XCTAssertEqual(values[2]["min"] as? Double, 85)
        XCTAssertEqual(values[2]["max"] as? Double, 87)
        XCTAssertEqual([values[2]["first_frame"] as? Int, values[2]["last_frame"] as? Int], [58, 120])
        XCTAssertEqual(timeline[0]["interval_ms"] as? Double, 30)
        XCTAssertEqual(timeline[0]["supervision_timeout_ms"] as? Double, 720)
        XCTAssertEqual(timeline[1]["client_mtu"] as? Int, 247)
        XCTAssertEqual(timeline[1]["server_mtu"] as? Int, 65)
        XCTAssertEqual(timeline[3]["interval_min_ms"] as? Double, 100)
        XCTAssertEqual(timeline[3]["interval_max_ms"] as? Double, 200)
        XCTAssertEqual(timeline[4]["result"] as? String, "accepted")
        XCTAssertEqual(timeline[5]["interval_ms"] as? Double, 200)
        let channels = try XCTUnwrap(first["channels"] as? [[String: Any]])
        XCTAssertEqual(channels.map { $0["protocol"] as? String }, ["EATT", "EATT"])
        XCTAssertEqual(channels.map { $0["local_cid"] as? Int }, [0x41, 0x42])
        XCTAssertEqual(channels.map { $0["remote_cid"] as? Int }, [0x80, 0x81])
        XCTAssertEqual(channels.map { $0["local_credits"] as? Int }, [5, 5])
        let second = connections[1]
        XCTAssertEqual(second["address"] as? String, "D4:3A:2C:11:22:33")
        XCTAssertTrue(second["end"] is NSNull)

        let att = try XCTUnwrap(report["att"] as? [String: Any])
        let unanswered = try XCTUnwrap(att["unanswered"] as? [[String: Any]])
        XCTAssertEqual(unanswered.map { $0["frame"] as? Int }, [124, 140])
        XCTAssertEqual(unanswered.map { $0["end"] as? String }, ["disconnected", "capture_ended"])
        let errors = try XCTUnwrap(att["errors"] as? [[String: Any]])
        XCTAssertEqual(errors.map { [$0["request_opcode"] as? Int, $0["error"] as? Int, $0["first_frame"] as? Int] },
                       [[0x10, 0x0A, 28], [0x0A, 0x05, 68], [0x12, 0x03, 111]])
        let pdus = try XCTUnwrap(att["pdus"] as? [[String: Any]])
        XCTAssertEqual(pdus.first { $0["opcode"] as? Int == 0x1B }?["count"] as? Int, 4, "Handle Value Notifications")

        let devices = try XCTUnwrap(report["devices"] as? [[String: Any]])
        let sensor = try XCTUnwrap(devices.first { $0["address"] as? String == "C0:FF:EE:12:34:56" })
        XCTAssertEqual(sensor["name"] as? String, "HRM-01")
        XCTAssertEqual(sensor["address_type"] as? String, "random static")
        XCTAssertTrue(sensor["vendor"] is NSNull, "a random address has no vendor")
        let rssi = try XCTUnwrap(sensor["rssi"] as? [String: Any])
        XCTAssertEqual(rssi["min"] as? Int, -59)
        XCTAssertEqual(rssi["median"] as? Double, -58.5)
        XCTAssertEqual(rssi["max"] as? Int, -58)
        let lock = try XCTUnwrap(devices.first { $0["address"] as? String == "D4:3A:2C:11:22:33" })
        XCTAssertEqual(lock["vendor"] as? String, "Lockmakers, \"Test\" Ltd")
        XCTAssertEqual(lock["address_type"] as? String, "public")
        let beacon = try XCTUnwrap(devices.first { $0["address"] as? String == "6A:0B:1C:2D:3E:4F" })
        XCTAssertEqual(beacon["address_type"] as? String, "resolvable private")

        // The text report says the same.
        let text = try btlog("stats", "Fixtures/le-heart-rate.btsnoop", "--color", "never")
        XCTAssertEqual(text.status, 0, text.err)
        XCTAssertTrue(text.out.contains("Connection Update Complete: interval 200 ms, latency 0, supervision timeout 3000 ms"), text.out)
        XCTAssertTrue(text.out.contains("Unanswered requests: 2 (#124, #140)"), text.out)
        XCTAssertTrue(text.out.contains("Connection Timeout (0x08)"), text.out)
    }

    /// The system registry names public addresses when Debian's ieee-data is installed.
    func testVendorFromTheIEEERegistry() throws {
        guard FileManager.default.fileExists(atPath: "/usr/share/ieee-data/oui.csv") else { throw XCTSkip("ieee-data is not installed") }
        let report = try stats("Fixtures/wwdc-dual.btsnoop")
        let devices = try XCTUnwrap(report["devices"] as? [[String: Any]])
        // 00:09:A7 is Bang & Olufsen's, 00:1A:7D cyber-blue's: the fixture's Mac and peers use real OUIs.
        let named = devices.filter { !($0["vendor"] is NSNull) }
        XCTAssertFalse(named.isEmpty, "\(devices)")
    }

    /// A2DP streams start anew at each configuration; SCO and ISO losses are counted.
    func testAudioStreams() throws {
        let a2dp = try XCTUnwrap(try stats("Fixtures/a2dp-codecs.btsnoop")["audio"] as? [String: Any])
        let streams = try XCTUnwrap(a2dp["a2dp"] as? [[String: Any]])
        XCTAssertEqual(streams.map { $0["codec"] as? String }, ["SBC", "AAC"])
        XCTAssertEqual(streams[0]["rtp_gaps"] as? Int, 1)
        XCTAssertEqual(streams[0]["rtp_lost_packets"] as? Int, 1)
        XCTAssertEqual(streams[0]["first_gap_frame"] as? Int, 36)
        let configuration = try XCTUnwrap(streams[0]["configuration"] as? [String: Any])
        XCTAssertEqual(configuration["bitpool"] as? String, "2-53")

        let handsfree = try XCTUnwrap(try stats("Fixtures/bredr-handsfree.btsnoop")["audio"] as? [String: Any])
        let sco = try XCTUnwrap(handsfree["sco"] as? [[String: Any]])
        XCTAssertEqual(sco.map { $0["direction"] as? String }, ["sent", "received"])
        XCTAssertEqual(sco.map { $0["codec"] as? String }, ["mSBC", "mSBC"])
        XCTAssertEqual(sco.map { $0["lost"] as? Int }, [0, 1])
        XCTAssertEqual(sco[1]["first_loss_frame"] as? Int, 57)
        // The SCO link's disconnection does not look like an ACL link.
        let connections = try XCTUnwrap(try stats("Fixtures/bredr-handsfree.btsnoop")["connections"] as? [[String: Any]])
        XCTAssertEqual(connections.map { $0["handle"] as? Int }, [0x000D])

        let leAudio = try XCTUnwrap(try stats("Fixtures/le-audio-unicast.btsnoop")["audio"] as? [String: Any])
        let iso = try XCTUnwrap(leAudio["iso"] as? [[String: Any]])
        XCTAssertEqual(iso.first?["lost"] as? Int, 1, "one sequence number missing")
    }

    /// Filters choose what is counted; several files make one report whose connections name their file.
    func testFiltersAndSeveralFiles() throws {
        let filtered = try stats("Fixtures/le-heart-rate.btsnoop", "--handle", "0x0041")
        let connections = try XCTUnwrap(filtered["connections"] as? [[String: Any]])
        XCTAssertEqual(connections.map { $0["handle"] as? Int }, [0x41])
        let shown = try btlog("show", "Fixtures/le-heart-rate.btsnoop", "--handle", "0x0041", "--fields", "number")
        XCTAssertEqual(filtered["packets"] as? Int, shown.out.split(separator: "\n").count)

        let both = try stats("Fixtures/le-heart-rate.btsnoop", "Fixtures/a2dp-codecs.btsnoop")
        XCTAssertEqual(both["packets"] as? Int, 141 + 71)
        XCTAssertEqual(both["files"] as? [String], ["Fixtures/le-heart-rate.btsnoop", "Fixtures/a2dp-codecs.btsnoop"])
        let files = try XCTUnwrap(both["connections"] as? [[String: Any]]).map { $0["file"] as? String }
        XCTAssertEqual(files, ["Fixtures/le-heart-rate.btsnoop", "Fixtures/le-heart-rate.btsnoop", "Fixtures/a2dp-codecs.btsnoop"])
    }

    func testBadInputs() throws {
        let missing = try btlog("stats", "/nonexistent.btsnoop")
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.err.contains("/nonexistent.btsnoop"), missing.err)
        let partly = try btlog("stats", "--json", "/nonexistent.btsnoop", "Fixtures/le-heart-rate.btsnoop")
        XCTAssertEqual(partly.status, 1, "an unreadable input is an error, the others are still counted")
        XCTAssertTrue(partly.out.contains("\"packets\": 141"), partly.out)
        let filter = try btlog("stats", "-f", "att.opcode ==", "Fixtures/le-heart-rate.btsnoop")
        XCTAssertNotEqual(filter.status, 0)
        XCTAssertEqual(filter.out, "")
        XCTAssertEqual(try btlog("stats").status, 2, "no file is a usage error")
    }

    // MARK: Throughput

    func capture(_ regime: ThroughputRegime, _ name: String) throws -> String {
        let path = ExportTests.temporary(name)
        try Data(try FixtureContainers.encode(Scenarios.throughputSession(regime), as: .btsnoopH4)).write(to: URL(fileURLWithPath: path))
        return path
    }

    func throughput(_ path: String) throws -> (series: [[String: Any]], diagnosis: [String: Any]) {
        let report = try stats("--throughput", path)
        let throughput = try XCTUnwrap(report["throughput"] as? [String: Any])
        let series = try XCTUnwrap(throughput["series"] as? [[String: Any]])
        let diagnosis = try XCTUnwrap((throughput["diagnosis"] as? [[String: Any]])?.first)
        return (series, diagnosis)
    }

    /// Each regime's traffic, in one-second bins, and its diagnosis, against figures worked by
    /// hand from the regime (the generator places whole connection events one interval apart,
    /// from 1 s after the first packet for `seconds` seconds).
    func testThroughputRegimes() throws {
        // 25 ms, 4 notifications of 20 bytes per event: 40 × 4 × 20 × 8 = 25.6 kbit/s in each second;
        // ceiling 230.4, held back by MTU 23 (780.8 with MTU 247 and data length 251).
        let mtu23 = try throughput("Fixtures/le-throughput.btsnoop")
        XCTAssertEqual(mtu23.series.count, 1)
        XCTAssertEqual(mtu23.series[0]["direction"] as? String, "received")
        XCTAssertEqual(mtu23.series[0]["kbps"] as? [Double], [25.6, 25.6, 25.6])
        XCTAssertEqual(mtu23.series[0]["first_interval"] as? Int, 1)
        XCTAssertEqual(mtu23.diagnosis["achieved_kbps"] as? Double, 25.6)
        let ceiling = try XCTUnwrap(mtu23.diagnosis["ceiling"] as? [String: Any])
        XCTAssertEqual(ceiling["kbps"] as? Double, 230.4)
        XCTAssertEqual(ceiling["exchanges_per_event"] as? Int, 36)
        XCTAssertEqual(ceiling["exchange_us"] as? Int, 676)
        let limit = try XCTUnwrap(mtu23.diagnosis["first_limit"] as? [String: Any])
        XCTAssertEqual(limit["parameter"] as? String, "mtu")
        XCTAssertEqual(limit["kbps"] as? Double, 780.8)
        XCTAssertNotNil(mtu23.diagnosis["pace"] as? String, "25.6 of 230.4 kbit/s: the application sets the pace")

        // 10 ms, LE 2M, 251, MTU 247, 7 writes without response per event: 100 × 7 × 244 × 8 =
        // 1366.4 kbit/s, the ceiling itself: no limit, no pace remark.
        let full = try throughput(try capture(ThroughputRegime(interval: 8, mtu: 247, dataLength: 251, phy: 2, transfer: .writeCommands,
                                                               perEvent: 7, seconds: 2), "full.btsnoop"))
        XCTAssertEqual(full.series[0]["direction"] as? String, "sent")
        XCTAssertEqual(full.series[0]["kbps"] as? [Double], [1366.4, 1366.4])
        XCTAssertEqual((full.diagnosis["ceiling"] as? [String: Any])?["kbps"] as? Double, 1366.4)
        XCTAssertTrue(full.diagnosis["first_limit"] is NSNull)
        XCTAssertTrue(full.diagnosis["pace"] is NSNull)

        // 50 ms, MTU 185, write requests (one every two events): 10 writes of 182 bytes a second,
        // 14.56 kbit/s; achieved over the active period, 30 writes from event 0 to event 58 plus
        // one interval: 30 × 182 × 8 / 2.95 s. Write Without Response would allow 303.68.
        let requests = try throughput(try capture(ThroughputRegime(interval: 40, mtu: 185, dataLength: 27, phy: 1, transfer: .writeRequests,
                                                                   perEvent: 1, seconds: 3), "requests.btsnoop"))
        XCTAssertEqual(requests.series[0]["kbps"] as? [Double], [14.56, 14.56, 14.56])
        XCTAssertEqual(try XCTUnwrap(requests.diagnosis["achieved_kbps"] as? Double), 30.0 * 182 * 8 / 2950, accuracy: 0.001)
        XCTAssertEqual((requests.diagnosis["ceiling"] as? [String: Any])?["kbps"] as? Double, 14.56)
        XCTAssertEqual((requests.diagnosis["ceiling"] as? [String: Any])?["link_layer_packets"] as? Int, 7)
        XCTAssertEqual((requests.diagnosis["first_limit"] as? [String: Any])?["parameter"] as? String, "transfer")
        XCTAssertEqual((requests.diagnosis["first_limit"] as? [String: Any])?["kbps"] as? Double, 303.68)

        // 40 ms on LE Coded, 11 notifications per event: 25 × 11 × 20 × 8 = 44 kbit/s, the ceiling;
        // LE 2M would allow 320.
        let coded = try throughput(try capture(ThroughputRegime(interval: 32, mtu: 23, dataLength: 27, phy: 3, transfer: .notifications,
                                                                perEvent: 11, seconds: 2), "coded.btsnoop"))
        XCTAssertEqual(coded.series[0]["kbps"] as? [Double], [44, 44])
        XCTAssertEqual((coded.diagnosis["ceiling"] as? [String: Any])?["phy"] as? String, "LE Coded")
        XCTAssertEqual((coded.diagnosis["first_limit"] as? [String: Any])?["text"] as? String,
                       "LE Coded PHY (long range): LE 2M would allow about 320 kbps at this interval")

        // A credit-based channel, MPS 247, LE 2M, 20 ms, 5 K-frames per event: 50 × 5 × 247 × 8 =
        // 494 kbit/s of a 1383.2 ceiling.
        let channel = try throughput(try capture(ThroughputRegime(interval: 16, mtu: 23, dataLength: 251, phy: 2, transfer: .creditBased(mps: 247),
                                                                  perEvent: 5, seconds: 2), "channel.btsnoop"))
        XCTAssertEqual(channel.series[0]["kbps"] as? [Double], [494, 494])
        XCTAssertEqual((channel.diagnosis["ceiling"] as? [String: Any])?["transfer"] as? String, "credit_based_channel")
        XCTAssertEqual((channel.diagnosis["ceiling"] as? [String: Any])?["kbps"] as? Double, 1383.2)
    }

    /// The text view: a sparkline per series, the table of intervals, the diagnosis in words;
    /// --interval changes the bins.
    func testThroughputText() throws {
        let text = try btlog("stats", "--throughput", "--color", "never", "Fixtures/le-throughput.btsnoop")
        XCTAssertEqual(text.status, 0, text.err)
        XCTAssertTrue(text.out.contains("0x0040 C0:FF:EE:00:00:01  received   25.6  15.4   ███"), text.out)
        XCTAssertTrue(text.out.contains("  +1.000 s             25.6"), text.out)
        XCTAssertTrue(text.out.contains("first limit: MTU 23: each notification carries 20 bytes; MTU 247 with data length 251 would allow about 780.8 kbps at this interval"), text.out)
        let half = try stats("--throughput", "--interval", "500ms", "Fixtures/le-throughput.btsnoop")
        let kbps = try XCTUnwrap(((half["throughput"] as? [String: Any])?["series"] as? [[String: Any]])?.first?["kbps"] as? [Double])
        XCTAssertEqual(kbps, [25.6, 25.6, 25.6, 25.6, 25.6, 25.6])
        XCTAssertEqual(try btlog("stats", "--throughput", "--interval", "0", "Fixtures/le-throughput.btsnoop").status, 2)
        XCTAssertEqual(try btlog("stats", "--throughput", "--interval", "fast", "Fixtures/le-throughput.btsnoop").status, 2)
    }

    /// The SVG renders with a real renderer (rsvg-convert) to a PNG of the declared size, and
    /// holds its axes, legend, ceiling and the disconnection marker.
    func testThroughputSVGRenders() throws {
        let svg = ExportTests.temporary("throughput.svg"), png = ExportTests.temporary("throughput.png")
        let result = try btlog("stats", "--svg", svg, "Fixtures/le-throughput.btsnoop")
        XCTAssertEqual(result.status, 0, result.err)
        let text = try String(contentsOfFile: svg, encoding: .utf8)
        for expected in ["width=\"960\" height=\"540\"", "time since the first packet (s)", "application throughput (kbit/s)",
                         "0x0040 C0:FF:EE:00:00:01 received", "ceiling 230.4 kbit/s", "0x0040 disconnected"] {
            XCTAssertTrue(text.contains(expected), expected)
        }
        guard let rsvg = Reference.consumer("rsvg-convert") else { throw Reference.skip("rsvg-convert") }
        try? FileManager.default.removeItem(atPath: png)
        let rendered = try Tool.run(rsvg, [svg, "-o", png])
        XCTAssertEqual(rendered.status, 0, rendered.err)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: png)))
        XCTAssertGreaterThan(bytes.count, 2000)
        XCTAssertEqual(Array(bytes.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        func be32(_ at: Int) -> Int { bytes[at ..< at + 4].reduce(0) { $0 << 8 | Int($1) } }
        XCTAssertEqual(be32(16), 960, "PNG width")
        XCTAssertEqual(be32(20), 540, "PNG height")
        // A file that cannot be written is an error, and nothing is left behind.
        XCTAssertEqual(try btlog("stats", "--svg", "/nonexistent/dir/x.svg", "Fixtures/le-throughput.btsnoop").status, 1)
    }

    /// The plot is read by a person: its y axis fits the data (a ceiling far above is marked,
    /// not the axis), and no two event numbers are drawn over each other, however close their
    /// events (a connection's parameter changes come milliseconds apart).
    func testThroughputSVGLabelsDoNotOverlapAndTheAxisFitsTheData() throws {
        for fixture in ["Fixtures/le-throughput.btsnoop", "Fixtures/le-throughput-phases.btsnoop", "Fixtures/trouble.btsnoop",
                        "Fixtures/third-party/crackle/numeric_pin.pcap"] {
            let svg = ExportTests.temporary("labels.svg")
            XCTAssertEqual(try btlog("stats", "--svg", svg, fixture).status, 0)
            let text = try String(contentsOfFile: svg, encoding: .utf8)
            // Event numbers: bold text in the plot; each is about 7 px a digit wide, 12 px high.
            var labels: [(x: Double, y: Double, width: Double)] = []
            for line in text.split(separator: "\n") where line.contains("font-weight=\"bold\" fill=") && line.hasPrefix("<text x=") {
                func attribute(_ name: String) -> Double? {
                    guard let start = line.range(of: name + "=\"") else { return nil }
                    return Double(line[start.upperBound...].prefix { $0 != "\"" })
                }
                let digits = line.split(separator: ">")[1].prefix { $0 != "<" }.count
                if let x = attribute("x"), let y = attribute("y") { labels.append((x, y, Double(digits) * 7)) }
            }
            for (i, a) in labels.enumerated() {
                for b in labels[(i + 1)...] where abs(a.y - b.y) < 12 {
                    XCTAssertGreaterThanOrEqual(abs(a.x - b.x), (a.width + b.width) / 2, "\(fixture): labels at \(a) and \(b) overlap")
                }
            }
            if fixture == "Fixtures/le-throughput.btsnoop" {
                // 25.6 kbit/s measured, 230.4 allowed: the axis ends near the data, the ceiling is named.
                XCTAssertTrue(text.contains("ceiling 230.4 kbit/s (▲ above the plot)"), text)
                XCTAssertFalse(text.contains(">200<"), "the axis is not stretched to the ceiling")
                XCTAssertTrue(text.contains(">30<"), "the axis reaches just past 25.6")
            }
        }
    }

    /// The README's picture is what btlog draws today (regenerate it deliberately with
    /// `btlog stats --svg docs/throughput.svg Fixtures/le-throughput-phases.btsnoop`).
    func testREADMEPictureIsCurrent() throws {
        let svg = ExportTests.temporary("phases.svg")
        XCTAssertEqual(try btlog("stats", "--svg", svg, "Fixtures/le-throughput-phases.btsnoop").status, 0)
        XCTAssertEqual(try String(contentsOfFile: svg, encoding: .utf8),
                       try String(contentsOf: Tool.root.appendingPathComponent("docs/throughput.svg"), encoding: .utf8))
    }
}

/// `btlog plot`: a described protocol's values over time, as CSV equal to what --fields prints
/// and as an SVG a real renderer draws; link events marked; fields that are not numbers refused.
final class PlotTests: XCTestCase {
    func btlog(_ arguments: String...) throws -> Tool.Result { try Tool.run(Tool.btlog, arguments) }
    func btlog(_ arguments: [String]) throws -> Tool.Result { try Tool.run(Tool.btlog, arguments) }

    let revcar = ["--protocol", "Examples/protocols/revcar.yaml", "revcar.drive.speed", "revcar.drive.turn", "Fixtures/third-party/revcar/btsnoop_hci.log"]

    func testCSVHoldsWhatFieldsPrints() throws {
        let csv = try btlog(["plot", "--csv"] + revcar)
        XCTAssertEqual(csv.status, 0, csv.err)
        let rows = csv.out.split(separator: "\n").dropFirst().map { $0.split(separator: ",") }
        let fields = try btlog("show", "--protocol", "Examples/protocols/revcar.yaml", "-f", "revcar.drive.speed", "--fields", "time,revcar.drive.speed",
                               "--time", "epoch", "Fixtures/third-party/revcar/btsnoop_hci.log")
        let speeds = rows.filter { $0[2] == "revcar.drive.speed" }.map { String($0[3]) }
        XCTAssertEqual(speeds, fields.out.split(separator: "\n").map { String($0.split(separator: "\t")[1]) })
        XCTAssertEqual(speeds.count, 47)
        XCTAssertEqual(rows.filter { $0[2] == "revcar.drive.turn" }.count, 47)
        XCTAssertEqual(csv.out.split(separator: "\n").first, "time,seconds,field,value")
    }

    func testSVGRendersAndMarksLinks() throws {
        let svg = ExportTests.temporary("plot.svg"), png = ExportTests.temporary("plot.png")
        let result = try btlog(["plot", "-o", svg] + revcar)
        XCTAssertEqual(result.status, 0, result.err)
        let text = try String(contentsOfFile: svg, encoding: .utf8)
        for expected in ["revcar.drive.speed", "47 values, 9 to 31", "time since the first packet (s)"] { XCTAssertTrue(text.contains(expected), expected) }
        // The heart-rate fixture's links: one comes up, goes down (connection timeout), another comes up.
        let links = try btlog("plot", "att.handle", "Fixtures/le-heart-rate.btsnoop")
        XCTAssertTrue(links.out.contains("▲ 0x0040") && links.out.contains("▼ 0x0040") && links.out.contains("▲ 0x0041"), links.out)
        XCTAssertEqual(try btlog("plot", "att.value", "Fixtures/le-heart-rate.btsnoop").status, 2)
        XCTAssertEqual(try btlog("plot", "Fixtures/le-heart-rate.btsnoop").status, 2)
        guard let rsvg = Reference.consumer("rsvg-convert") else { throw Reference.skip("rsvg-convert") }
        let rendered = try Tool.run(rsvg, [svg, "-o", png])
        XCTAssertEqual(rendered.status, 0, rendered.err)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: png)))
        XCTAssertEqual(Array(bytes.prefix(4)), [0x89, 0x50, 0x4E, 0x47])
    }
}
