import XCTest
import Foundation

/// Runs the built `btlog` executable as a user would.
enum Tool {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The binary under test: the one this test build made, or the one BTLOG_UNDER_TEST names
    /// (CI checks the output hashes against the optimised build too, where the optimiser could
    /// change what the debug build prints).
    static var btlog: String {
        if let named = ProcessInfo.processInfo.environment["BTLOG_UNDER_TEST"], !named.isEmpty { return named }
        let candidates = [Bundle.main.bundleURL.appendingPathComponent("btlog").path,
                          Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("btlog").path,
                          root.appendingPathComponent(".build/debug/btlog").path]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates.last!
    }

    /// tshark's preference that decodes DLT_USER0 (147) as the LE link layer, as Ubertooth's
    /// PPI captures need (Wireshark users set the same in Preferences > Protocols > DLT_USER).
    static let tsharkUserDLT = ["-o", #"uat:user_dlts:"User 0 (DLT=147)","btle","0","","0","""#]

    static func find(_ name: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    struct Result { var status: Int32; var out: String; var err: String }

    @discardableResult
    static func run(_ executable: String, _ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["TZ"] = "UTC"
        for (k, v) in environment { env[k] = v }
        process.environment = env
        process.currentDirectoryURL = root
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        try process.run()
        if let stdin {
            input.fileHandleForWriting.write(stdin)
            try input.fileHandleForWriting.close()
        }
        // Standard output is read on a thread of its own, not a dispatch queue's: callers run
        // many of these from the global queues at once, whose threads would all be waiting here.
        final class Reading: @unchecked Sendable { var data = Data() } // written before `done` signals
        let reading = Reading(), done = DispatchSemaphore(value: 0)
        let reader = Thread {
            reading.data = out.fileHandleForReading.readDataToEndOfFile()
            done.signal()
        }
        reader.start()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        done.wait()
        let outData = reading.data
        process.waitUntilExit()
        return Result(status: process.terminationStatus, out: String(decoding: outData, as: UTF8.self),
                      err: String(decoding: errData, as: UTF8.self))
    }
}

final class CommandLineTests: XCTestCase {
    func btlog(_ arguments: String..., stdin: Data? = nil) throws -> Tool.Result {
        try Tool.run(Tool.btlog, arguments, stdin: stdin)
    }

    func testShowFixture() throws {
        let result = try btlog("Fixtures/wwdc-dual.pklg")
        XCTAssertEqual(result.status, 0, result.err)
        let lines = result.out.split(separator: "\n")
        XCTAssertEqual(lines.count, 64)
        XCTAssertEqual(lines.last, "63 packets (0 errors) · 12 HCI commands · 23 events · 24 ACL · 0 SCO · 4 other · 0.070 s")
        XCTAssertTrue(lines.contains { $0.contains("Syslog") && $0.contains("Power state is ON") })
        XCTAssertTrue(result.out.contains("HCI Event               24:18:97:6D:C0:AB  LE - Advertising Report - 1 Report - Normal - Random - 24:18:97:6D:C0:AB -67 dBm"))
    }

    func testDefaultCommandAndSelection() throws {
        let result = try btlog("show", "--packets", "4-5", "--time", "rel", "Fixtures/wwdc-dual.btsnoop")
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(result.out.split(separator: "\n").count, 3)
        XCTAssertTrue(result.out.hasPrefix("     4  0.000000  HCI Event"), result.out)
        XCTAssertEqual(try btlog("-c", "2", "Fixtures/wwdc-dual.btsnoop").out.split(separator: "\n").count, 3)
    }

    func testTreeAndHex() throws {
        let result = try btlog("show", "-V", "-x", "--packets", "38", "Fixtures/wwdc-dual.pklg")
        XCTAssertEqual(result.status, 0)
        XCTAssertTrue(result.out.contains("HCI Event    ▼ LE - Connection Complete - Handle: 0x0044"), result.out)
        XCTAssertTrue(result.out.contains("Connection Handle: 0x0044"))
        XCTAssertTrue(result.out.contains("00000000: 3E13 0100 4400 0000 3826 24A7 0900 1800"), result.out)
    }

    func testStandardInput() throws {
        let bytes = try Data(contentsOf: Tool.root.appendingPathComponent("Fixtures/wwdc-dual.btsnoop.gz"))
        let result = try btlog("show", "-", stdin: bytes)
        XCTAssertEqual(result.status, 0, result.err)
        XCTAssertTrue(result.out.hasSuffix("0.068 s\n"))
    }

    func testBadInputsSayWhatIsWrong() throws {
        let garbage = NSTemporaryDirectory() + "btlog-garbage-\(UUID().uuidString).log"
        try Data([0x50, 0x4B, 0x05, 0x06, 0x01, 0x02, 0x03, 0x04, 0x05]).write(to: URL(fileURLWithPath: garbage))
        addTeardownBlock { try? FileManager.default.removeItem(atPath: garbage) }
        let result = try btlog(garbage)
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.err, "btlog: \(garbage): not a btsnoop, PacketLogger or pcap file (first bytes 50 4b 05 06 01 02 03 04)\n")
        let missing = try btlog("/nonexistent/capture.pklg")
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.err.contains("No such file or directory"))
        XCTAssertEqual(try btlog("--packets", "9-1", "Fixtures/wwdc-dual.pklg").status, 2)
        XCTAssertEqual(try btlog("--bogus", "Fixtures/wwdc-dual.pklg").status, 2)
        XCTAssertEqual(try btlog("--pklg-utc-offset", "2h", "Fixtures/wwdc-dual.pklg").status, 2)
        // Digits that are numbers but not ASCII (Arabic-Indic, fractions) are a usage error, not a trap.
        for offset in ["+\u{0660}\u{0662}", "+\u{0660}\u{0662}:\u{0663}\u{0660}", "-\u{00BD}\u{00BD}", "+\u{FF10}\u{FF12}"] {
            let refused = try btlog("--pklg-utc-offset=\(offset)", "Fixtures/wwdc-dual.pklg")
            XCTAssertEqual(refused.status, 2, offset)
            XCTAssertTrue(refused.err.contains("--pklg-utc-offset takes +HH:MM or -HH:MM"), refused.err)
        }
        XCTAssertEqual(try btlog("--pklg-utc-offset", "+0530", "Fixtures/wwdc-dual.pklg").status, 0)
        // One bad file does not stop the others.
        let both = try btlog(garbage, "Fixtures/wwdc-dual.btsnoop")
        XCTAssertEqual(both.status, 1)
        XCTAssertTrue(both.out.contains("59 packets"))
    }

    func testTruncatedFileWarnsAndShowsCompleteRecords() throws {
        let data = try Data(contentsOf: Tool.root.appendingPathComponent("Fixtures/wwdc-dual.btsnoop"))
        let cut = NSTemporaryDirectory() + "btlog-cut-\(UUID().uuidString).btsnoop"
        try data.prefix(data.count - 3).write(to: URL(fileURLWithPath: cut))
        addTeardownBlock { try? FileManager.default.removeItem(atPath: cut) }
        let result = try btlog(cut)
        XCTAssertEqual(result.status, 0)
        XCTAssertTrue(result.out.contains("58 packets"))
        XCTAssertTrue(result.err.contains("warning:") && result.err.contains("truncated record"), result.err)
    }

    /// The man page renders without warnings and documents every subcommand and option `--help` lists.
    func testManPageMatchesHelp() throws {
        guard let groff = Tool.find("groff") else { throw XCTSkip("groff is not installed") }
        let rendered = try Tool.run(groff, ["-man", "-Tutf8", "-ww", "man/btlog.1"])
        XCTAssertEqual(rendered.status, 0)
        XCTAssertEqual(rendered.err, "", "groff warnings")
        let page = try String(contentsOf: Tool.root.appendingPathComponent("man/btlog.1"), encoding: .utf8)
            .replacingOccurrences(of: "\\-", with: "-")
        let top = try btlog("--help").out
        // Subcommand lines are indented two spaces; their wrapped descriptions much more.
        let subcommands = top.components(separatedBy: "SUBCOMMANDS:").last!.split(separator: "\n")
            .filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }
            .compactMap { $0.split(separator: " ").first.map(String.init) }.filter { $0 != "See" }
        XCTAssertFalse(subcommands.isEmpty)
        for command in subcommands {
            XCTAssertTrue(page.contains("btlog \(command)"), "man page lacks subcommand \(command)")
            let help = try btlog(command, "--help").out
            let options = Set(help.matches(of: try Regex("--[a-z][a-z0-9-]+")).map { String(help[$0.range]) })
            XCTAssertFalse(options.isEmpty)
            for option in options {
                XCTAssertTrue(page.contains(option), "man page lacks \(option) of \(command)")
            }
        }
    }

    func testFieldsOutputAndListing() throws {
        let result = try btlog("show", "Fixtures/le-heart-rate.btsnoop", "--packets", "95-95",
                               "--fields", "number,direction,type,acl.handle,l2cap.cid,att.opcode,att.handle,gatt.value,smp.code")
        XCTAssertEqual(result.status, 0, result.err)
        // RR intervals 0x0340 and 0x0330 in 1/1024 s: 0.8125 (to even: 0.812) and 0.796875 (0.797).
        XCTAssertEqual(result.out, "95\treceived\tATT Receive\t0x0040\t0x0004\t0x1B\t0x000E\t72 bpm - Contact detected - RR: 0.812, 0.797 s\t\n")
        // The values are fields too, from the description btlog ships for the Heart Rate Service.
        let values = try btlog("show", "Fixtures/le-heart-rate.btsnoop", "-f", "hrs.heart_rate", "--fields", "number,hrs.heart_rate,hrs.contact,hrs.rr")
        XCTAssertEqual(values.out, "95\t72\t3\t0.8125,0.796875\n96\t73\t3\t\n", values.err)
        let unknown = try btlog("show", "Fixtures/le-heart-rate.btsnoop", "--fields", "att.nope")
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.err.contains("unknown field 'att.nope'"), unknown.err)
        let listing = try btlog("fields", "smp")
        XCTAssertEqual(listing.status, 0)
        XCTAssertTrue(listing.out.split(separator: "\n").allSatisfy { $0.hasPrefix("smp.") })
        XCTAssertTrue(listing.out.contains("smp.reason"))
        let all = try btlog("fields")
        for name in ["frame.number", "frame.time", "frame.direction", "frame.type", "frame.controller", "hci.opcode", "hci.event", "hci.subevent", "hci.status",
                     "acl.handle", "acl.pb", "l2cap.cid", "l2cap.psm", "l2cap.code", "att.opcode", "att.handle", "att.error",
                     "att.uuid", "smp.code", "smp.reason", "adv.address", "adv.rssi", "hci.le_scan_interval"] {
            XCTAssertTrue(all.out.contains("\n\(name) ") || all.out.hasPrefix("\(name) "), name)
        }
        XCTAssertEqual(try btlog("fields", "nosuch").status, 2)
        // The frame fields' bare names stay aliases: the same columns either way.
        let bare = try btlog("show", "Fixtures/le-heart-rate.btsnoop", "--fields", "number,time,direction,type,controller,length,issues")
        let prefixed = try btlog("show", "Fixtures/le-heart-rate.btsnoop", "--fields",
                                 "frame.number,frame.time,frame.direction,frame.type,frame.controller,frame.length,frame.issues")
        XCTAssertEqual(bare.status, 0)
        XCTAssertEqual(bare.out, prefixed.out)
        XCTAssertTrue(bare.out.hasPrefix("1\t1557360268.001000\tsent\tHCI Command\t0\t3\t\n"), String(bare.out.prefix(80)))
    }

    func testGattCommandPrintsTheDiscoveredDatabase() throws {
        let result = try btlog("gatt", "Fixtures/le-heart-rate.btsnoop")
        XCTAssertEqual(result.status, 0, result.err)
        let lines = result.out.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "C0:FF:EE:12:34:56 (remote server, controller 0)")
        XCTAssertTrue(lines.contains { $0.hasPrefix("  0x000C  Primary Service  180D") && $0.contains("Heart Rate") })
        XCTAssertTrue(lines.contains { $0.hasPrefix("  0x0011      Value        2A38") && $0.hasSuffix("= Chest") })
        // The failed write of "A" did not replace the name the server holds.
        XCTAssertTrue(lines.contains { $0.hasPrefix("  0x0003") && $0.hasSuffix("= \"HRM-01\"") })
        XCTAssertEqual(try btlog("gatt", "Fixtures/bredr-l2cap.btsnoop").out, "No GATT discovery in this capture.\n")
        XCTAssertEqual(try btlog("gatt", "Fixtures/le-heart-rate.btsnoop", "--uuids", "/nonexistent.json").status, 1)
    }
}
