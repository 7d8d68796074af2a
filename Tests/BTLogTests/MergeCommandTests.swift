import XCTest
import Foundation

/// `btlog merge`, `--merge`, `btlog flow` on the kernel's two hosts (Fixtures/kernel-two-hosts.btsnoop
/// split into the hosts' own logs, one clock moved an hour and skewed): what a person runs.
final class MergeCommandTests: XCTestCase {
    func btlog(_ arguments: [String]) throws -> Tool.Result { try Tool.run(Tool.btlog, arguments) }

    static let folder = FileManager.default.temporaryDirectory.appendingPathComponent("btlog-merge-\(ProcessInfo.processInfo.processIdentifier)")

    /// phone.btsnoop (hci0 and hci2) and board.btsnoop (hci1 and hci3, its clock +1 h and
    /// 40 ppm fast, rewritten here from the export's btsnoop records).
    func hosts() throws -> (phone: String, board: String) {
        try FileManager.default.createDirectory(at: Self.folder, withIntermediateDirectories: true)
        let phone = Self.folder.appendingPathComponent("phone.btsnoop").path, board = Self.folder.appendingPathComponent("board.btsnoop").path
        let fixture = "Fixtures/kernel-two-hosts.btsnoop"
        XCTAssertEqual(try btlog(["export", fixture, "-f", "frame.controller == 0 or frame.controller == 2", "--format", "btsnoop-monitor", "-o", phone]).status, 0)
        let same = Self.folder.appendingPathComponent("board-own-clock.btsnoop").path
        XCTAssertEqual(try btlog(["export", fixture, "-f", "frame.controller == 1 or frame.controller == 3", "--format", "btsnoop-monitor", "-o", same]).status, 0)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: same)))
        var at = 16, first: Int64?
        while at + 24 <= bytes.count {
            let included = Int(bytes[at + 4]) << 24 | Int(bytes[at + 5]) << 16 | Int(bytes[at + 6]) << 8 | Int(bytes[at + 7])
            var stamp: Int64 = 0
            for i in 0..<8 { stamp = stamp << 8 | Int64(bytes[at + 16 + i]) }
            if first == nil { first = stamp }
            stamp += 3_600_000_000 + Int64((Double(stamp - first!) * 40e-6).rounded())
            for i in 0..<8 { bytes[at + 16 + i] = UInt8(truncatingIfNeeded: stamp >> (56 - 8 * i)) }
            at += 24 + included
        }
        try Data(bytes).write(to: URL(fileURLWithPath: board))
        return (phone, board)
    }

    override class func tearDown() { try? FileManager.default.removeItem(at: folder) }

    func testMergeWritesAPcapngOfTwoInterfacesThatReadsBack() throws {
        let (phone, board) = try hosts()
        let merged = Self.folder.appendingPathComponent("both.pcapng").path
        let result = try btlog(["merge", phone, board, "-o", merged])
        XCTAssertEqual(result.status, 0, result.err)
        // The offset to the millisecond, the drift within 5 ppm (the report rounds to 1 ppm).
        let report = try XCTUnwrap(result.err.split(separator: "\n").first { $0.hasPrefix("btlog: merge: board.btsnoop: +3,600.000 s, +") }, result.err)
        let ppm = Int(report.split(separator: "+")[2].prefix { $0.isNumber }) ?? 0
        XCTAssertLessThanOrEqual(abs(ppm - 40), 5, String(report))
        XCTAssertTrue(result.err.contains("phone.btsnoop hci0 handle 0x002A = board.btsnoop hci1 handle 0x002A"), result.err)
        // Read back: each packet names its source, and each source's controllers stay its own.
        let sources = try btlog(["show", merged, "--fields", "frame.source"]).out.split(separator: "\n")
        XCTAssertEqual(Set(sources), ["phone.btsnoop", "board.btsnoop"])
        XCTAssertEqual(sources.count, 2844 - 40)   // less the index records of no controller
        let table = try btlog(["show", merged, "-c", "3"]).out
        XCTAssertTrue(table.contains("  phone.btsnoop  "), table)
        // tshark names the interfaces (a real consumer, the reference tier's).
        if Reference.isLive, let tshark = Tool.find("tshark") {
            let theirs = try Tool.run(tshark, ["-r", merged, "-T", "fields", "-e", "frame.interface_name"])
            XCTAssertEqual(Set(theirs.out.split(separator: "\n")), ["phone.btsnoop", "board.btsnoop"], theirs.err)
        }
        // Bad input: one file, standard input, an offset for the reference, garbage.
        XCTAssertEqual(try btlog(["merge", phone, "-o", merged]).status, 2)
        XCTAssertEqual(try btlog(["show", "--merge", "-", phone]).status, 2)
        XCTAssertTrue(try btlog(["show", "--merge", phone, board, "--offset", "phone.btsnoop=1"]).err.contains("the reference"))
        XCTAssertTrue(try btlog(["show", phone, "--offset", "board.btsnoop=1"]).err.contains("add --merge"))
        let garbage = Self.folder.appendingPathComponent("garbage.btsnoop").path
        try Data("not a capture at all".utf8).write(to: URL(fileURLWithPath: garbage))
        let refused = try btlog(["merge", phone, garbage, "-o", merged])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.err.contains("garbage.btsnoop"), refused.err)
    }

    func testEveryVerbReadsAMerge() throws {
        let (phone, board) = try hosts()
        let shown = try btlog(["show", "--merge", phone, board, "-f", "merge.latency > 5", "--fields", "frame.source,merge.peer_source,merge.latency"])
        XCTAssertEqual(shown.status, 0, shown.err)
        for line in shown.out.split(separator: "\n") {
            let cells = line.split(separator: "\t")
            XCTAssertEqual(cells.count, 3, String(line))
            XCTAssertNotEqual(cells[0], cells[1], "the other end is the other capture")
            XCTAssertGreaterThan(Double(cells[2]) ?? 0, 5)
        }
        let stats = try btlog(["stats", "--merge", phone, board, "--json"])
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(stats.out.utf8)) as? [String: Any])
        let links = try XCTUnwrap(document["source_links"] as? [[String: Any]])
        XCTAssertEqual(links.count, 4)
        XCTAssertEqual(try btlog(["grep", "-c", "--merge", "Echo Request", phone, board]).out, "phone.btsnoop + board.btsnoop:480\n")
        let exported = try btlog(["export", "--merge", phone, board, "-f", "merge.role == \"receiver\"", "-c", "1"])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(exported.out.utf8)) as? [String: Any])
        XCTAssertNotNil((object["merge"] as? [String: Any])?["latency_ms"])
        XCTAssertEqual((object["source"] as? [String: Any])?["name"] as? String, "phone.btsnoop")
        XCTAssertEqual(try btlog(["diagnose", "--merge", phone, board]).status, 1, "the credits warning of the two hosts")
        XCTAssertEqual(try btlog(["gatt", "--merge", phone]).status, 2)
    }

    func testFlowCharts() throws {
        // One capture: host and controller.
        let single = try btlog(["flow", "Fixtures/le-heart-rate.btsnoop", "--packets", "1-12"])
        XCTAssertEqual(single.status, 0, single.err)
        let lines = single.out.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines[0].contains("host") && lines[0].contains("controller"), lines[0])
        XCTAssertTrue(lines[1].contains("#1") && lines[1].contains("Reset") && lines[1].contains("▶│"), lines[1])
        XCTAssertTrue(lines[2].contains("│◀") && lines[2].contains("Command Complete"), lines[2])
        // A capture from the air: the link's central and peripheral.
        let air = try btlog(["flow", "Fixtures/third-party/crackle/known_ltk.pcap", "--limit", "2"]).out.split(separator: "\n")
        XCTAssertTrue(air[0].contains("central") && air[0].contains("peripheral") && air[1].contains("C→P") && air[1].contains("▶│"), "\(air)")
        // A failure is marked.
        XCTAssertTrue(try btlog(["flow", "Fixtures/trouble.btsnoop", "--errors"]).out.contains("✗"))
        // Both hosts: an echo request from one host to the other with its latency, folded quiet.
        let (phone, board) = try hosts()
        let both = try btlog(["flow", "--merge", phone, board, "--handle", "0x002A", "-f", "l2cap.code == 0x08 or l2cap.code == 0x09", "--limit", "6"])
        XCTAssertEqual(both.status, 0, both.err)
        let chart = both.out.split(separator: "\n").map(String.init)
        XCTAssertTrue(chart[0].contains("phone.btsnoop host") && chart[0].contains("board.btsnoop host"), chart[0])
        XCTAssertTrue(chart[1].contains("Echo Request") && chart[1].contains("▶│") && chart[1].contains(" ms"), chart[1])
        XCTAssertTrue(chart[2].contains("│◀") && chart[2].contains("Echo Response"), chart[2])
        XCTAssertTrue(both.out.contains("more packets"), both.out)
        let svg = Self.folder.appendingPathComponent("flow.svg").path
        XCTAssertEqual(try btlog(["flow", "--merge", phone, board, "--packets", "530-700", "-o", svg]).status, 0)
        let text = try String(contentsOfFile: svg, encoding: .utf8)
        XCTAssertTrue(text.contains("phone.btsnoop host") && text.contains("Echo Request") && text.hasSuffix("</svg>\n"))
        if let rsvg = Reference.consumer("rsvg-convert") {
            let png = Self.folder.appendingPathComponent("flow.png").path
            let rendered = try Tool.run(rsvg, [svg, "-o", png])
            XCTAssertEqual(rendered.status, 0, rendered.err)
        }
    }

    /// A host's log and a sniffer's capture of the same link (crackle's known_ltk.pcap and the
    /// central's log written from it, Fixtures/known-ltk-central.btsnoop): the host's key
    /// decrypts the air, the PDUs align the clocks, and the link has both names.
    func testTheAirAsAThirdEnd() throws {
        let host = "Fixtures/known-ltk-central.btsnoop", air = "Fixtures/third-party/crackle/known_ltk.pcap"
        let shown = try btlog(["show", "--merge", host, air, "-f", "merge.latency", "--fields", "number,frame.source,merge.latency,merge.peer_source"])
        XCTAssertEqual(shown.status, 0, shown.err)
        XCTAssertTrue(shown.err.contains("known_ltk.pcap: -3,600.500 s"), shown.err)
        XCTAssertTrue(shown.err.contains("known-ltk-central.btsnoop hci0 handle 0x0040 = known_ltk.pcap access address 0x50654CA7: 5 PDUs, 2 link events"), shown.err)
        XCTAssertFalse(shown.err.contains("no PDU matched"), shown.err)
        let rows = shown.out.split(separator: "\n").filter { $0.first?.isNumber == true }
        XCTAssertEqual(rows.count, 7, shown.out)
        // The air received what the central's host sent (four requests, and LE Enable
        // Encryption's LL_ENC_REQ); the host received from the air the response and the
        // connection (CONNECT_IND).
        XCTAssertEqual(rows.filter { $0.contains("known_ltk.pcap") && $0.hasSuffix("known-ltk-central.btsnoop") }.count, 5, shown.out)
        XCTAssertEqual(rows.filter { $0.contains("known-ltk-central.btsnoop") && $0.hasSuffix("known_ltk.pcap") }.count, 2, shown.out)
        let stats = try btlog(["stats", "--merge", host, air])
        XCTAssertTrue(stats.out.contains("known-ltk-central.btsnoop hci0 0x0040  known_ltk.pcap air 0x50654CA7             4"), stats.out)
        // The flow: the host's lanes, the air's between; each request an arrow from the host
        // to the air with its latency; the air's own link-layer procedures marks on its lane.
        let flow = try btlog(["flow", "--merge", host, air])
        XCTAssertEqual(flow.status, 0, flow.err)
        let chart = flow.out.split(separator: "\n").map(String.init)
        XCTAssertTrue(chart[0].contains("known-ltk-central.btsnoop host") && chart[0].contains("known_ltk.pcap air"), chart[0])
        XCTAssertTrue(chart[1].contains("known-ltk-central.btsnoop controller"), "the long names take two lines: \(chart[1])")
        let request = try XCTUnwrap(chart.first { $0.contains("Read By Type Request") }, flow.out)
        XCTAssertTrue(request.contains("▶│") && request.contains(" ms"), request)
        XCTAssertTrue(chart.contains { $0.contains("C→P LL_ENC_REQ") && $0.contains("▶│") && $0.contains("ms") }, flow.out)
        XCTAssertTrue(chart.contains { $0.contains("● P→C LL_ENC_RSP") }, flow.out)
        XCTAssertTrue(chart.contains { $0.contains("│◀─LE - Connection Complete") }, "the connection from the air to the host: \(flow.out)")
        XCTAssertFalse(flow.out.contains("Empty PDU"), "flow hides Empty PDUs unless --hide says otherwise")
        let svg = Self.folder.appendingPathComponent("air-flow.svg").path
        try FileManager.default.createDirectory(at: Self.folder, withIntermediateDirectories: true)
        XCTAssertEqual(try btlog(["flow", "--merge", host, air, "-o", svg]).status, 0)
        let text = try String(contentsOfFile: svg, encoding: .utf8)
        XCTAssertTrue(text.contains("known_ltk.pcap air") && text.contains("<circle"), text)
        if let rsvg = Reference.consumer("rsvg-convert") {
            let rendered = try Tool.run(rsvg, [svg, "-o", Self.folder.appendingPathComponent("air-flow.png").path])
            XCTAssertEqual(rendered.status, 0, rendered.err)
        }
    }

    /// Phone, board and sniffer in one chart: the central's lanes, the air's, the peripheral's.
    func testBothEndsAndTheAirInOneChart() throws {
        let files = ["Fixtures/known-ltk-central.btsnoop", "Fixtures/third-party/crackle/known_ltk.pcap", "Fixtures/known-ltk-peripheral.btsnoop"]
        let flow = try btlog(["flow", "--merge"] + files)
        XCTAssertEqual(flow.status, 0, flow.err)
        XCTAssertTrue(flow.err.contains("known-ltk-peripheral.btsnoop: -4,834.750 s"), flow.err)
        XCTAssertTrue(flow.err.contains("known-ltk-central.btsnoop hci0 handle 0x0040 = known-ltk-peripheral.btsnoop hci0 handle 0x0002"), flow.err)
        let header = flow.out.split(separator: "\n").prefix(2).joined(separator: "\n")
        let order = ["known-ltk-central.btsnoop host", "known-ltk-central.btsnoop controller", "known_ltk.pcap air",
                     "known-ltk-peripheral.btsnoop controller", "known-ltk-peripheral.btsnoop host"]
        // Left to right: each name's column in its header line.
        let columns = try order.map { name -> Int in
            let line = try XCTUnwrap(header.split(separator: "\n").first { $0.contains(name) }, header)
            return line.distance(from: line.startIndex, to: line.range(of: name)!.lowerBound) + name.count / 2
        }
        XCTAssertEqual(columns, columns.sorted(), header)
        // A request from the central's host to the peripheral's, across the air's lane, 3 ms.
        XCTAssertTrue(flow.out.split(separator: "\n").contains { $0.contains("Read By Type Request") && $0.hasSuffix(", 3 ms") }, flow.out)
    }
}
