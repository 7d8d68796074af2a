import XCTest
import Foundation
import Glibc
import BTCapture

/// `btlog capture` end to end, with a socketpair standing in for the kernel's monitor socket
/// (the hidden --monitor-fd 0 reads it from standard input).
final class CaptureCommandTests: XCTestCase {
    /// New Index hci0, Open Index, HCI Reset and its Command Complete, a note, an ACL packet on hci1.
    func sendSession(_ run: CaptureRun) {
        run.send(0, 0, [0, 0, 0x55, 0x44, 0x33, 0x22, 0x11, 0x00] + Array("hci0".utf8) + [0, 0, 0, 0])
        run.send(8, 0, [])
        run.send(2, 0, [0x03, 0x0C, 0x00])
        run.send(3, 0, [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])
        run.send(12, 0xFFFF, Array("Bluetooth subsystem version 2.22".utf8) + [0])
        run.send(5, 1, [0x40, 0x20, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x0A, 0x03, 0x00])
    }

    func testPrintsLiveAndWritesEveryFrame() throws {
        let path = temporaryPath("live.btsnoop")
        let run = try startCapture(["-w", path])
        sendSession(run)
        let result = run.finish()
        XCTAssertEqual(result.status, 0, result.err)
        let rows = result.out.split(separator: "\n").map(String.init)
        XCTAssertEqual(rows.count, 7, result.out)  // six packets and the status line
        XCTAssertTrue(rows[0].contains("New Index") && rows[0].contains("11:22:33:44:55"), rows[0])
        XCTAssertTrue(rows[2].contains("HCI Command") && rows[2].hasSuffix("Reset"), rows[2])
        XCTAssertTrue(rows[3].contains("Command Complete: Reset"), rows[3])
        XCTAssertTrue(rows[5].contains("{hci1}") && rows[5].contains("Read Request"), rows[5])
        XCTAssertTrue(result.err.contains("6 frames captured (hci0 4, hci1 1, system 1)"), result.err)
        XCTAssertTrue(result.err.contains("0 dropped by the kernel"), result.err)
        XCTAssertTrue(result.err.contains("6 written to \(path)"), result.err)

        // The file, read back: btsnoop 2001 with the indexes, opcodes and bytes that were sent.
        let reader = try CaptureInput.open(path)
        XCTAssertEqual(reader.nativeFormat, .btsnoopMonitor)
        var frames: [Frame] = []
        while let frame = try reader.next() { frames.append(frame) }
        XCTAssertEqual(frames.map(\.kind), [.newIndex, .openIndex, .command, .event, .note, .aclData])
        XCTAssertEqual(frames.map(\.controller), [0, 0, 0, 0, 0xFFFF, 1])
        XCTAssertEqual(frames[5].direction, .received)
        XCTAssertEqual(Array(frames[2].bytes), [0x03, 0x0C, 0x00])
        XCTAssertTrue(reader.warnings.isEmpty)
    }

    func testCountAndQuietAndOneController() throws {
        let run = try startCapture(["-c", "2", "-q", "-i", "hci0"])
        sendSession(run)
        run.send(2, 0, [0x03, 0x0C, 0x00])
        let result = run.finish(closing: false)
        XCTAssertEqual(result.status, 0, result.err)
        XCTAssertEqual(result.out, "", "-q prints no packets")
        XCTAssertTrue(result.err.contains("2 frames captured (hci0 2)"), result.err)
    }

    func testEveryFormatIsCompleteAfterEveryRecord() throws {
        for (format, native) in [("btsnoop", CaptureFileFormat.btsnoopMonitor), ("pklg", .pklg), ("pcapng", .pcapng)] {
            let path = temporaryPath("live.\(format)")
            let run = try startCapture(["-q", "-w", path, "--format", format])
            run.send(2, 0, [0x03, 0x0C, 0x00])
            run.send(3, 0, [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])
            // Read the file while the capture is still running: both records must be there.
            var frames: [Frame] = []
            for _ in 0 ..< 100 {
                usleep(20_000)
                guard let reader = try? CaptureInput.open(path) else { continue }
                frames = []
                while let frame = try reader.next() { frames.append(frame) }
                if frames.count == 2 { XCTAssertTrue(reader.warnings.isEmpty, "\(format): \(reader.warnings)"); break }
            }
            XCTAssertEqual(frames.map(\.kind), [.command, .event], format)
            if format != "pcapng" { XCTAssertEqual(try CaptureInput.open(path).nativeFormat, native) }
            let result = run.finish()
            XCTAssertEqual(result.status, 0, "\(format): \(result.err)")
        }
    }

    func testSigtermFlushesAndLeavesACompleteFile() throws {
        let path = temporaryPath("term.btsnoop")
        let run = try startCapture(["-q", "-w", path])
        for i in 0 ..< 500 { run.send(12, 0xFFFF, Array("note \(i)".utf8)) }
        // Signalled once every frame is in the file (a header of 16 bytes, records of 24 + text).
        let written = 16 + (0 ..< 500).reduce(0) { $0 + 24 + "note \($1)".utf8.count }
        run.waitUntilCatchingStopSignals()
        XCTAssertTrue(waitUntil(seconds: 20) { largestFileSize(in: (path as NSString).deletingLastPathComponent) >= written })
        kill(run.process.processIdentifier, SIGTERM)
        let result = run.finish(closing: false)
        XCTAssertEqual(result.status, 0, result.err)
        XCTAssertTrue(result.err.contains("stopped by SIGTERM"), result.err)
        XCTAssertTrue(result.err.contains("500 frames captured"), result.err)
        let reader = try CaptureInput.open(path)
        var count = 0
        while try reader.next() != nil { count += 1 }
        XCTAssertEqual(count, 500)
        XCTAssertTrue(reader.warnings.isEmpty, "\(reader.warnings)")
    }

    func testClosedStandardOutputEndsQuietlyAndKeepsTheFile() throws {
        let path = temporaryPath("pipe.btsnoop")
        let run = try startCapture(["-w", path])
        try run.out.fileHandleForReading.close()   // like `btlog capture | head -0`
        for i in 0 ..< 50 { run.send(12, 0xFFFF, Array("note \(i)".utf8)) }
        usleep(200_000)
        let errors = run.err.fileHandleForReading.readDataToEndOfFile()
        run.process.waitUntilExit()
        close(run.sender)
        XCTAssertEqual(run.process.terminationStatus, 0, String(decoding: errors, as: UTF8.self))
        let reader = try CaptureInput.open(path)
        var count = 0
        while try reader.next() != nil { count += 1 }
        XCTAssertEqual(count, 50, "frames that arrived are written even after the printout stopped")
    }

    func testUserDropsPrivilegesBeforeTheFileIsCreated() throws {
        guard getuid() == 0, let nobody = getpwnam("nobody") else { throw XCTSkip("needs root and a user 'nobody'") }
        let folder = (temporaryPath("x") as NSString).deletingLastPathComponent
        chmod(folder, 0o777)
        let path = folder + "/owned.btsnoop"
        let run = try startCapture(["-q", "-w", path, "--user", "nobody"])
        run.send(2, 0, [0x03, 0x0C, 0x00])
        // Once the file exists the drop has happened: real, effective, saved and filesystem
        // ids are all nobody's, no supplementary group is left, and no capability.
        for _ in 0 ..< 200 where !FileManager.default.fileExists(atPath: path) { usleep(10_000) }
        let status = try String(contentsOfFile: "/proc/\(run.process.processIdentifier)/status", encoding: .utf8)
        func field(_ name: String) -> [String] {
            let line = status.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
            return line.split(whereSeparator: { $0 == "\t" || $0 == " " }).dropFirst().map(String.init)
        }
        let uid = String(nobody.pointee.pw_uid), gid = String(nobody.pointee.pw_gid)
        XCTAssertEqual(field("Uid"), [uid, uid, uid, uid], status)
        XCTAssertEqual(field("Gid"), [gid, gid, gid, gid], status)
        XCTAssertEqual(field("Groups"), [], status)
        XCTAssertEqual(field("CapEff"), ["0000000000000000"], status)
        let result = run.finish()
        XCTAssertEqual(result.status, 0, result.err)
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0)
        XCTAssertEqual(info.st_uid, nobody.pointee.pw_uid, "the capture file belongs to the user btlog became")
    }

    func testWritingToStandardOutput() throws {
        let run = try startCapture(["-w", "-"])
        sendSession(run)
        let result = run.finish()
        XCTAssertEqual(result.status, 0, result.err)
        let reader = try CaptureInput.open(bytes: result.bytes)
        var count = 0
        while try reader.next() != nil { count += 1 }
        XCTAssertEqual(count, 6, "only the capture goes to standard output")
    }

    func testBadOptionsAndMissingPrivilege() throws {
        let badInterface = try Tool.run(Tool.btlog, ["capture", "-i", "wlan0"])
        XCTAssertEqual(badInterface.status, 2)
        XCTAssertTrue(badInterface.err.contains("-i takes a controller such as hci0"), badInterface.err)
        let badDuration = try Tool.run(Tool.btlog, ["capture", "--duration", "0"])
        XCTAssertEqual(badDuration.status, 2)
        let formatAlone = try Tool.run(Tool.btlog, ["capture", "--format", "pklg"])
        XCTAssertEqual(formatAlone.status, 2)
        let unknownUser = try Tool.run(Tool.btlog, ["capture", "--monitor-fd", "0", "--user", "no-such-user-here"])
        XCTAssertEqual(unknownUser.status, 1)
        XCTAssertTrue(unknownUser.err.contains("no user named 'no-such-user-here'"), unknownUser.err)
        // The real monitor socket: on this machine either the kernel lacks Bluetooth, or the
        // process lacks CAP_NET_RAW, or it opens (then a short capture ends by itself).
        let real = try Tool.run(Tool.btlog, ["capture", "-q", "--duration", "0.2"])
        if real.status != 0 {
            XCTAssertEqual(real.status, 1)
            XCTAssertTrue(real.err.contains("capture needs CAP_NET_RAW (run as root, or: sudo setcap cap_net_raw+ep $(which btlog))")
                          || real.err.contains("this kernel has no Bluetooth support"), real.err)
        }
    }

    func testShowReadsAGrowingFile() throws {
        let path = temporaryPath("growing.btsnoop")
        let sink = try OutputFile(path: path)
        let writer = try CaptureWriters.make(.btsnoopMonitor, sink: sink)
        try writer.flush()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Tool.btlog)
        process.arguments = ["show", "--follow", "-c", "2", path]
        process.environment = ["TZ": "UTC"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        usleep(300_000)
        try writer.write(Frame(timestamp: 1_700_000_000_000_000, kind: .command, direction: .sent, bytes: [0x03, 0x0C, 0x00]))
        try writer.flush()
        usleep(300_000)
        XCTAssertTrue(process.isRunning, "--follow waits at the end of the file")
        try writer.write(Frame(timestamp: 1_700_000_000_100_000, kind: .event, direction: .received, bytes: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]))
        try writer.close()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertTrue(text.contains("Reset") && text.contains("Command Complete: Reset"), text)
    }

    func testStandardInputIsDecodedAsItArrives() throws {
        // The first record must be printed before the writer sends the second (idevicebtlogger).
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Tool.btlog)
        process.arguments = ["show", "-"]
        process.environment = ["TZ": "UTC"]
        let input = Pipe(), out = Pipe()
        process.standardInput = input
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let sink = MemorySink()
        let writer = PacketLoggerWriter(sink: sink)
        try writer.write(Frame(timestamp: 1_700_000_000_000_000, kind: .command, direction: .sent, bytes: [0x03, 0x0C, 0x00]))
        input.fileHandleForWriting.write(Data(sink.bytes))
        var line = Data()
        while !line.contains(0x0A) { line.append(out.fileHandleForReading.availableData) }
        XCTAssertTrue(String(decoding: line, as: UTF8.self).contains("Reset"))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
    }
}
