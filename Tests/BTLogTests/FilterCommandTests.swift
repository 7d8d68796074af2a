import XCTest
import Foundation
import BTDecode

/// Filters and quick filters from the command line: what is printed, the status line, and how
/// a bad expression or option is reported.
final class FilterCommandTests: XCTestCase {
    func btlog(_ arguments: String...) throws -> Tool.Result { try Tool.run(Tool.btlog, arguments) }

    func numbers(_ arguments: String...) throws -> [Int] {
        let result = try Tool.run(Tool.btlog, ["show"] + arguments + ["--fields", "number"])
        XCTAssertEqual(result.status, 0, result.err)
        return result.out.split(separator: "\n").compactMap { Int($0) }
    }

    func testFilterKeepsNumbersAndCountsWhatItKept() throws {
        let file = "Fixtures/le-heart-rate.btsnoop"
        let result = try btlog("show", file, "-f", "att.opcode == 0x1b")
        XCTAssertEqual(result.status, 0, result.err)
        let rows = result.out.split(separator: "\n").dropLast()
        XCTAssertFalse(rows.isEmpty)
        XCTAssertTrue(rows.allSatisfy { $0.contains("Handle Value Notification") }, result.out)
        XCTAssertTrue(result.out.split(separator: "\n").last!.hasPrefix("\(rows.count) packets"), result.out)
        // The packet keeps its number and reads as unfiltered (GATT names learnt from discovery).
        let unfiltered = try btlog("show", file)
        for row in rows { XCTAssertTrue(unfiltered.out.contains(row), String(row)) }
        XCTAssertTrue(rows.contains { $0.contains("Heart Rate Measurement") })
        // -Y and --filter are the same option; -c counts kept packets.
        XCTAssertEqual(try numbers(file, "-Y", "att.opcode == 0x1b"), try numbers(file, "--filter", "att.opcode == 0x1b"))
        XCTAssertEqual(try numbers(file, "-f", "att.opcode == 0x1b", "-c", "2"), Array(try numbers(file, "-f", "att.opcode == 0x1b").prefix(2)))
        XCTAssertEqual(try numbers(file, "-f", "att", "--packets", "60-70"), try numbers(file, "-f", "att and number in {60..70}"))
        // A filter that keeps nothing still prints the status line.
        let none = try btlog("show", file, "-f", "hci.opcode == 0xfc00")
        XCTAssertEqual(none.status, 0)
        XCTAssertTrue(none.out.hasPrefix("0 packets"), none.out)
    }

    func testQuickFiltersAndTheirAND() throws {
        let file = "Fixtures/le-heart-rate.btsnoop"
        XCTAssertEqual(try numbers(file, "--type", "smp,cmd"), try numbers(file, "-f", "smp or hci.opcode"))
        XCTAssertEqual(try numbers(file, "--type", "smp", "--type", "cmd"), try numbers(file, "-f", "smp or hci.opcode"))
        XCTAssertEqual(try numbers(file, "--handle", "0x41", "--errors"), try numbers(file, "-f", "handle == 0x41 and error"))
        XCTAssertEqual(try numbers(file, "--handle", "64", "-f", "att"), try numbers(file, "-f", "handle == 0x40 and att"))
        XCTAssertEqual(try numbers(file, "--device", "c0:ff:ee:12:34:56"), try numbers(file, "-f", "address == C0:FF:EE:12:34:56"))
        let all = try numbers(file)
        let adv = try numbers(file, "-f", "hci.subevent == 0x02")
        XCTAssertFalse(adv.isEmpty)
        XCTAssertEqual(try numbers(file, "--hide", "adv"), all.filter { !adv.contains($0) })
        XCTAssertEqual(try numbers(file, "--flagged"), [])
    }

    func testBadFiltersAreUsageErrorsWithACaret() throws {
        let result = try btlog("show", "Fixtures/le-heart-rate.btsnoop", "-f", "att.opcod == 1")
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.out, "")
        XCTAssertEqual(result.err, "btlog: filter: att.opcod == 1: unknown field 'att.opcod' (did you mean att.opcode?)\n  att.opcod == 1\n  ^~~~~~~~~\n")
        let type = try btlog("show", "Fixtures/le-heart-rate.btsnoop", "-f", "att.handle contains \"x\"")
        XCTAssertEqual(type.status, 2)
        XCTAssertTrue(type.err.hasPrefix("btlog: filter: att.handle contains \"x\": 'contains' looks inside text and byte strings"), type.err)
        let kind = try btlog("show", "Fixtures/le-heart-rate.btsnoop", "--type", "att,wifi")
        XCTAssertEqual(kind.status, 2)
        XCTAssertTrue(kind.err.contains("unknown packet type or protocol 'wifi'"), kind.err)
        for (option, value) in [("--handle", "0xFFFF"), ("--handle", "x"), ("--device", "00:11"), ("--hide", "beacons")] {
            let bad = try btlog("show", "Fixtures/le-heart-rate.btsnoop", option, value)
            XCTAssertEqual(bad.status, 2, "\(option) \(value)")
            XCTAssertTrue(bad.err.contains(option), bad.err)
        }
        // capture checks the filter before it opens the monitor socket (which needs privileges).
        let capture = try btlog("capture", "-f", "att.opcod == 1")
        XCTAssertEqual(capture.status, 2)
        XCTAssertTrue(capture.err.contains("did you mean att.opcode?"), capture.err)
    }

    func testFieldValuesListing() throws {
        let result = try btlog("fields", "att.opcode", "--values")
        XCTAssertEqual(result.status, 0, result.err)
        let lines = result.out.split(separator: "\n")
        XCTAssertTrue(lines.contains { $0.hasPrefix("0x12  write_request") && $0.hasSuffix("Write Request") }, result.out)
        XCTAssertTrue(lines.contains { $0.hasPrefix("0x1B  handle_value_notification") }, result.out)
        let events = try btlog("fields", "hci.event", "--values")
        XCTAssertTrue(events.out.contains("0x05  disconnection_complete"), events.out)
        let status = try btlog("fields", "hci.status", "--values")
        XCTAssertTrue(status.out.contains("0x08  connection_timeout"), status.out)
        let none = try btlog("fields", "att.handle", "--values")
        XCTAssertEqual(none.status, 1)
        XCTAssertTrue(none.err.contains("att.handle has no named values"), none.err)
        XCTAssertEqual(try btlog("fields", "--values").status, 2)
        XCTAssertEqual(try btlog("fields", "att.nope", "--values").status, 2)
        let one = try btlog("fields", "att.opcode")
        XCTAssertEqual(one.out.split(separator: "\n").count, 1)
    }

    /// --collapse: each folded row stands for a run of consecutive packets of the unfolded view
    /// with the same type and handle; counts add up; nothing with an issue is folded.
    func testCollapseFoldsRunsOfCountersOnly() throws {
        let file = "Fixtures/a2dp-stream.btsnoop"
        let plain = try btlog("show", file, "--hide", "nocp", "--color", "never")
        let folded = try btlog("show", file, "--hide", "nocp", "--collapse", "--color", "never")
        XCTAssertEqual(folded.status, 0, folded.err)
        let rows = plain.out.split(separator: "\n").dropLast().map(String.init)
        let foldedRows = folded.out.split(separator: "\n").dropLast().map(String.init)
        XCTAssertLessThan(foldedRows.count, rows.count / 2)
        XCTAssertEqual(folded.out.split(separator: "\n").last, plain.out.split(separator: "\n").last, "the status line counts every packet")
        var position = 0
        for row in foldedRows {
            var count = 1, text = row
            if let range = row.range(of: "  x ", options: .backwards) ?? row.range(of: "  × ", options: .backwards),
               let n = Int(row[range.upperBound...]) {
                count = n
                text = String(row[..<range.lowerBound])
            }
            XCTAssertEqual(text, rows[position], "a folded row is the first of its run")
            let run = rows[position ..< position + count]
            let key = { (r: String) in String(r.dropFirst(32).prefix(24)) } // type and handle columns
            XCTAssertTrue(run.allSatisfy { key($0) == key(text) }, "\(run)")
            if count > 1 { XCTAssertFalse(run.contains { $0.contains("  [") }, "a packet with an issue is folded: \(run)") }
            position += count
        }
        XCTAssertEqual(position, rows.count)
        XCTAssertEqual(try btlog("show", file, "--collapse", "-V").status, 2)
    }
}

/// Every protocol in the catalog is a word a user can use three ways: a filter term (`-f vocs`),
/// a `--type` value, and a group of `btlog fields`. The list comes from the catalog, so a
/// protocol added later is checked without touching this test.
final class ProtocolTermTests: XCTestCase {
    func testEveryCatalogProtocolIsAFilterTermATypeAndAFieldsGroup() throws {
        let fields = try Tool.run(Tool.btlog, ["fields"]).out
        let groups = Set(fields.split(separator: "\n").compactMap { $0.split(separator: ".").first.map(String.init) })
        var prefixes: [String] = []
        for descriptor in ProtocolCatalog.all {
            let own = Set(descriptor.fields.map(\.protocolName))
            XCTAssertFalse(own.isEmpty, "\(descriptor.name) has no fields: no filter term, --type value or fields group")
            for prefix in own.sorted() where !prefixes.contains(prefix) { prefixes.append(prefix) }
        }
        // The LE Audio services the README names, which once had no fields of their own.
        for named in ["pacs", "ascs", "bass", "vcs", "vocs", "aics", "mcs", "tbs", "csis"] { XCTAssertTrue(prefixes.contains(named), named) }
        for prefix in prefixes { XCTAssertTrue(groups.contains(prefix), "btlog fields lists no \(prefix).* field") }
        // Each as a filter term and a --type value: two processes per protocol, one per core.
        let runs = prefixes.flatMap { [("-f", $0), ("--type", $0)] }
        var failures: [String] = []
        let lock = NSLock()
        DispatchQueue.concurrentPerform(iterations: runs.count) { index in
            let (option, prefix) = runs[index]
            let result = try? Tool.run(Tool.btlog, ["show", "-c", "1", option, prefix, "Fixtures/wwdc-dual.pklg"])
            guard result?.status != 0 else { return }
            lock.lock()
            failures.append("\(option) \(prefix): \(result?.err ?? "did not run")")
            lock.unlock()
        }
        XCTAssertEqual(failures, [])
    }

    func testLEAudioServicesAreSelectedByTheirNames() throws {
        // VOCS and AICS, which no fixture carries, are checked on bytes in LEAudioDecoderTests.
        for (term, fixture) in [("pacs", "Fixtures/le-audio-unicast.btsnoop"), ("vcs", "Fixtures/le-audio-unicast.btsnoop"),
                                ("ascs", "Fixtures/le-audio-unicast.btsnoop")] {
            let shown = try Tool.run(Tool.btlog, ["show", "-f", term, fixture, "--fields", "frame.type"])
            let typed = try Tool.run(Tool.btlog, ["show", "--type", term, fixture, "--fields", "frame.type"])
            XCTAssertEqual(shown.out, typed.out, term)
            let rows = shown.out.split(separator: "\n")
            XCTAssertFalse(rows.isEmpty, "\(term) selects nothing in \(fixture)")
            XCTAssertTrue(rows.allSatisfy { $0.hasPrefix(term.uppercased()) }, "\(term): \(rows)")
        }
    }
}

extension FilterCommandTests {
    /// A vendor command described in a file: `btlog protocols` lists it, `-f` selects it by its
    /// field, and the tree names it (the Broadcom fixture's undocumented 0xFCAA).
    func testDescribedVendorCommandListsAndFilters() throws {
        let path = ExportTests.temporary("vendor-coex.yaml")
        try DescribedHCITests_description.write(toFile: path, atomically: true, encoding: .utf8)
        let listed = try btlog("protocols", "--protocol", path)
        XCTAssertEqual(listed.status, 0, listed.err)
        XCTAssertTrue(listed.out.contains("HCI command 0xFCAA named Acme Set Coex Mode"), listed.out)
        XCTAssertTrue(listed.out.contains("HCI command 0xFCAA's return parameters -> mode_status"), listed.out)
        let checked = try btlog("protocols", "check", path)
        XCTAssertEqual(checked.status, 0, checked.out + checked.err)
        // Its Command Complete (58) carries the status alone: no return parameters to lay out.
        XCTAssertEqual(try numbers("--protocol", path, "Fixtures/broadcom-firmware.btsnoop", "-f", "coex"), [57])
        XCTAssertEqual(try numbers("--protocol", path, "Fixtures/broadcom-firmware.btsnoop", "-f", "hci.opcode == 0xfcaa || hci.event_opcode == 0xfcaa"), [57, 58])
        let tree = try btlog("show", "-V", "--protocol", path, "Fixtures/broadcom-firmware.btsnoop", "-f", "hci.opcode == 0xfcaa")
        XCTAssertTrue(tree.out.contains("Opcode: Acme Set Coex Mode (0xFCAA)"), tree.out)
    }
}

/// A vendor's commands and event described (the same as BTDescribeTests' DescribedHCITests).
let DescribedHCITests_description = """
btlog-protocol: 1
name: Acme Coex
key: coex
hci:
  - {command: 0xFCAA, name: Acme Set Coex Mode, message: mode, returns: mode_status}
  - {event: 0xFF, prefix: "42", message: mode}
messages:
  mode:
    fields:
      - {name: mode, type: u8, values: {0: off, 1: wlan-priority, 2: bt-priority}}
  mode_status:
    fields:
      - {name: active, type: u8}
"""
