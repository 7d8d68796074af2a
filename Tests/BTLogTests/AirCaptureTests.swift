import XCTest
import Foundation

/// Captures taken from the air through the command line: written back out as they came, read
/// by tshark, keys given on the command line, and the errors a person can act on.
final class AirCaptureTests: XCTestCase {
    func btlog(_ arguments: String...) throws -> Tool.Result { try Tool.run(Tool.btlog, arguments) }

    let fixtures = ["Fixtures/le-air-ll.pcap", "Fixtures/le-air-radio.pcap", "Fixtures/le-air-nordic.pcap", "Fixtures/le-air-ubertooth.pcap"]

    func temporary(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("btlog-air-\(ProcessInfo.processInfo.processIdentifier)-\(name)").path
    }

    func testExportKeepsTheLinkType() throws {
        for fixture in fixtures {
            let pcap = temporary("out.pcap"), pcapng = temporary("out.pcapng")
            defer { try? FileManager.default.removeItem(atPath: pcap); try? FileManager.default.removeItem(atPath: pcapng) }
            XCTAssertEqual(try btlog("export", fixture, "--format", "pcap", "-o", pcap).status, 0)
            XCTAssertEqual(FileManager.default.contents(atPath: pcap), FileManager.default.contents(atPath: fixture), "\(fixture): the same file back")
            let exported = try btlog("export", fixture, "--format", "pcapng", "-o", pcapng)
            XCTAssertEqual(exported.status, 0, exported.err)
            XCTAssertEqual(exported.err, "")
            XCTAssertEqual(try btlog("show", pcapng).out, try btlog("show", fixture).out, fixture)
            if let tshark = Tool.find("tshark") {
                let theirs = try Tool.run(tshark, ["-r", pcapng, "-T", "fields", "-e", "btle.access_address"] + Tool.tsharkUserDLT)
                XCTAssertEqual(theirs.status, 0, theirs.err)
                let ours = try btlog("show", fixture, "--fields", "btle.access_address")
                XCTAssertEqual(theirs.out.lowercased(), ours.out.lowercased(), fixture)
            }
            // HCI formats cannot hold packets from the air: said, not silently dropped.
            let btsnoop = try btlog("export", fixture, "--format", "btsnoop", "-o", pcap)
            XCTAssertTrue(btsnoop.err.contains("btsnoop cannot hold every record"), btsnoop.err)
        }
    }

    func testKeysOnTheCommandLine() throws {
        let fixture = "Fixtures/le-air-nordic.pcap"
        let bad = try btlog("show", "--ltk", "7A1F", fixture)
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.err.contains("--ltk 7A1F: a key is 32 hex digits (16 octets); this has 4"), bad.err)
        let missing = try btlog("show", "--keys", "/nonexistent/keys.txt", fixture)
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.err.contains("/nonexistent/keys.txt: cannot read the keys file"), missing.err)
        let file = temporary("keys.txt")
        defer { try? FileManager.default.removeItem(atPath: file) }
        try "# sensor\n7A1F3C55900BE26418D72B9E41C603F8\nnot a key\n".write(toFile: file, atomically: true, encoding: .utf8)
        let badLine = try btlog("show", "--keys", file, fixture)
        XCTAssertEqual(badLine.status, 1)
        XCTAssertTrue(badLine.err.contains("keys.txt:3: 'n' is not a hex digit"), badLine.err)
        try "# sensor\n7A1F3C55900BE26418D72B9E41C603F8\n".write(toFile: file, atomically: true, encoding: .utf8)
        let good = try btlog("show", "--keys", file, fixture, "-f", "btle.decrypted", "--fields", "number")
        XCTAssertEqual(good.status, 0, good.err)
        XCTAssertGreaterThan(good.out.split(separator: "\n").count, 10)
        // Grep finds decrypted text like any other: the notification the second, encrypted, link
        // carried is the third (a retransmitted copy and a damaged one are not decoded again).
        let grep = try btlog("grep", "-c", "Handle Value Notification", fixture)
        XCTAssertEqual(grep.out.trimmingCharacters(in: .whitespacesAndNewlines), "3")
    }

    func testStatsJSONOfAnAirCapture() throws {
        let result = try btlog("stats", "--json", "Fixtures/le-air-radio.pcap")
        XCTAssertEqual(result.status, 0, result.err)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        XCTAssertEqual(document["air"] as? Int, document["packets"] as? Int)
        XCTAssertEqual((document["connections"] as? [Any])?.count, 2)
        // StatsTests validates every fixture's document, these included, against docs/stats.schema.json.
    }
}
