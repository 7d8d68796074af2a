import XCTest
import Foundation
import Glibc
import BTCapture

/// Inputs that are not captures and outputs that fail: each gets a clear message and the exit
/// status the man page gives (1: an input could not be read, or the output could not be
/// written), never a crash, a hang or a lost file.
final class HostileInputTests: XCTestCase {
    func folder() -> String {
        (temporaryPath("x") as NSString).deletingLastPathComponent
    }

    func show(_ arguments: [String], timeout: Double = 20) throws -> Tool.Result {
        let started = Date()
        let result = try Tool.run(Tool.btlog, ["show"] + arguments)
        XCTAssertLessThan(Date().timeIntervalSince(started), timeout, "\(arguments)")
        return result
    }

    func testInputsThatAreNotCaptures() throws {
        let dir = folder()
        let empty = dir + "/empty.btsnoop"
        FileManager.default.createFile(atPath: empty, contents: Data())
        var result = try show([empty])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.err, "btlog: \(empty): empty file\n")

        let emptyFolder = dir + "/nothing-here"
        try FileManager.default.createDirectory(atPath: emptyFolder, withIntermediateDirectories: true)
        result = try show([emptyFolder])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.err.contains("a folder with no PacketLogger file (.pklg) in it"), result.err)

        // Endless input: decided from its first bytes, never read to the end.
        result = try show(["/dev/zero"], timeout: 10)
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.err, "btlog: /dev/zero: not a btsnoop, PacketLogger or pcap file (first bytes 00 00 00 00 00 00 00 00)\n")
        result = try show(["/dev/urandom"], timeout: 10)
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.err.contains("not a btsnoop, PacketLogger or pcap file"), result.err)

        result = try show([dir + "/missing.btsnoop"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.err.hasSuffix("missing.btsnoop: No such file or directory\n"), result.err)

        // A text file that is no bugreport, and a file of random bytes.
        let text = dir + "/notes.txt"
        FileManager.default.createFile(atPath: text, contents: Data("hello\n".utf8))
        result = try show([text])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.err.contains("its text holds no Android btsnooz section"), result.err)
    }

    func testFIFOs() throws {
        let dir = folder()
        let fifo = dir + "/fifo"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        // A writer that sends a whole capture, and one that sends nothing.
        let capture = try Data(contentsOf: Tool.root.appendingPathComponent("Fixtures/wwdc-dual.btsnoop"))
        let writer = Thread {
            let handle = FileHandle(forWritingAtPath: fifo)!
            handle.write(capture)
            try? handle.close()
        }
        writer.start()
        var result = try show([fifo])
        XCTAssertEqual(result.status, 0, result.err)
        XCTAssertTrue(result.out.contains("59 packets"), result.out)

        let silent = Thread {
            let handle = FileHandle(forWritingAtPath: fifo)!
            try? handle.close()
        }
        silent.start()
        result = try show([fifo])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.err, "btlog: \(fifo): empty file\n")
    }

    func testUnreadableFile() throws {
        guard getuid() == 0, getpwnam("nobody") != nil, let runuser = Tool.find("runuser") ?? ["/usr/sbin/runuser", "/sbin/runuser"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw XCTSkip("needs root (to run btlog as another user) and runuser")
        }
        let dir = folder()
        chmod(dir, 0o755)
        let path = dir + "/secret.btsnoop"
        try Data(contentsOf: Tool.root.appendingPathComponent("Fixtures/wwdc-dual.btsnoop")).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        // The binary must be reachable by nobody: copy it beside the capture.
        let binary = dir + "/btlog"
        try FileManager.default.copyItem(atPath: Tool.btlog, toPath: binary)
        chmod(binary, 0o755)
        let result = try Tool.run(runuser, ["-u", "nobody", "--", binary, "show", path])
        XCTAssertEqual(result.status, 1, result.err)
        XCTAssertEqual(result.err, "btlog: \(path): Permission denied\n")
    }

    /// A file cut shorter while btlog reads it: what was read is shown, the cut is named.
    func testFileShrinkingWhileRead() throws {
        let dir = folder()
        let path = dir + "/shrinking.btsnoop"
        let frames = (0 ..< 60_000).map { i in
            Frame(number: i + 1, timestamp: 1_600_000_000_000_000 + Int64(i), kind: .command, direction: .sent,
                  bytes: [0x03, 0x0C, 0x00])
        }
        let sink = MemorySink()
        let writer = try CaptureWriters.make(.btsnoopH4, sink: sink)
        for frame in frames { try writer.write(frame) }
        try writer.close()
        try Data(sink.bytes).write(to: URL(fileURLWithPath: path))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Tool.btlog)
        process.arguments = ["show", path]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Cut it mid-record once btlog has started.
        _ = out.fileHandleForReading.readData(ofLength: 1)
        XCTAssertEqual(truncate(path, 16 + 28 * 1000 + 10), 0)
        let printed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit)
        XCTAssertEqual(process.terminationStatus, 0, errors)
        // btlog reads in 1 MiB blocks: it had the whole file already, or it shows every record
        // it had read and names the byte where the file ended under it.
        let rows = printed.split(separator: "\n").count - 1
        if rows < 60_000 {
            let offset = errors.components(separatedBy: "at byte ").dropFirst().first?.prefix { $0.isNumber }
            XCTAssertNotNil(offset, errors)
            XCTAssertTrue(errors.contains("every complete record before it was read"), errors)
            XCTAssertEqual(rows, ((Int(offset ?? "") ?? 0) - 16) / 28, "every whole record before the cut is shown")
        }
    }

    // MARK: Output

    func testExistingCaptureFileIsReplacedOnlyWhenTheNewOneIsComplete() throws {
        let path = temporaryPath("existing.btsnoop")
        let old = Data("precious old capture".utf8)
        try old.write(to: URL(fileURLWithPath: path))
        let run = try startCapture(["-q", "-w", path])
        run.send(2, 0, [0x03, 0x0C, 0x00])
        // While the capture runs (its frame written: a header of 16 bytes, a record of 24 + 3),
        // the old file is whole and the new one grows beside it.
        let dir = (path as NSString).deletingLastPathComponent
        run.waitUntilCatchingStopSignals()
        XCTAssertTrue(waitUntil(seconds: 20) { largestFileSize(in: dir) >= 16 + 24 + 3 })
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), old)
        let beside = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix(".existing.btsnoop.btlog-") }
        XCTAssertEqual(beside.count, 1)
        kill(run.process.processIdentifier, SIGINT)
        let result = run.finish(closing: false)
        XCTAssertEqual(result.status, 0, result.err)
        XCTAssertTrue(result.err.contains("stopped by SIGINT"), result.err)
        XCTAssertTrue(result.err.contains("it exists, so the capture goes to"), result.err)
        let reader = try CaptureInput.open(path)
        var count = 0
        while try reader.next() != nil { count += 1 }
        XCTAssertEqual(count, 1)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), ["existing.btsnoop"], "no temporary left")
    }

    func testSymlinkAtTheOutputPathIsNotFollowed() throws {
        let path = temporaryPath("link.btsnoop")
        let dir = (path as NSString).deletingLastPathComponent
        let victim = dir + "/victim.txt"
        try Data("someone else's file".utf8).write(to: URL(fileURLWithPath: victim))
        XCTAssertEqual(symlink(victim, path), 0)
        let run = try startCapture(["-q", "-w", path])
        run.send(2, 0, [0x03, 0x0C, 0x00])
        let result = run.finish()
        XCTAssertEqual(result.status, 0, result.err)
        XCTAssertEqual(try String(contentsOfFile: victim, encoding: .utf8), "someone else's file")
        var info = stat()
        XCTAssertEqual(lstat(path, &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFREG, "the link was replaced by the capture")
    }

    func testNewFilesFollowTheUmask() throws {
        for (mask, expected) in [(mode_t(0o022), mode_t(0o644)), (0o077, 0o600), (0o000, 0o666)] {
            let path = temporaryPath("mode.btsnoop")
            let saved = umask(mask)
            defer { umask(saved) }
            let run = try startCapture(["-q", "-w", path])
            umask(saved)
            run.send(2, 0, [0x03, 0x0C, 0x00])
            XCTAssertEqual(run.finish().status, 0)
            var info = stat()
            XCTAssertEqual(stat(path, &info), 0)
            XCTAssertEqual(info.st_mode & 0o777, expected, "umask \(String(mask, radix: 8))")
        }
    }

    func testFullDiskIsReported() throws {
        guard FileManager.default.fileExists(atPath: "/dev/full") else { throw XCTSkip("no /dev/full") }
        let run = try startCapture(["-q", "-w", "/dev/full"])
        run.send(2, 0, [0x03, 0x0C, 0x00])
        let result = run.finish()
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.err.contains("btlog: /dev/full: write failed: No space left on device"), result.err)
    }

    /// `capture -w -` into a pipe whose reader went away: the capture cannot be stored any
    /// more, so it ends at once, says why, and exits 1 (no SIGPIPE death).
    func testClosedPipeForTheCaptureIsReported() throws {
        let run = try startCapture(["-w", "-"])
        try run.out.fileHandleForReading.close()
        for i in 0 ..< 50 { run.send(12, 0xFFFF, Array("note \(i)".utf8)) }
        let errors = String(decoding: run.err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        run.process.waitUntilExit()
        close(run.sender)
        XCTAssertEqual(run.process.terminationReason, .exit)
        XCTAssertEqual(run.process.terminationStatus, 1, errors)
        XCTAssertTrue(errors.hasSuffix("btlog: standard output: write failed: Broken pipe\n"), errors)
    }

    /// SIGKILL gives no chance to flush: every record is written whole the moment it arrives,
    /// so the file opens and holds everything before the kill.
    func testSigkillLeavesEveryRecordWritten() throws {
        let path = temporaryPath("killed.btsnoop")
        let run = try startCapture(["-q", "-w", path])
        let sent = 3000
        for i in 0 ..< sent { run.send(12, 0xFFFF, Array("note \(i)".utf8)) }
        // Wait until the file holds them all, keep traffic flowing, then kill mid-stream.
        var stored = 0
        for _ in 0 ..< 200 where stored < sent {
            usleep(20_000)
            var info = stat()
            if stat(path, &info) == 0 { stored = (Int(info.st_size) - 16) / (24 + 10) }
        }
        let feeder = Thread { for i in 0 ..< 100_000 { run.send(12, 0xFFFF, Array("more \(i)".utf8)) } }
        feeder.start()
        usleep(50_000)
        kill(run.process.processIdentifier, SIGKILL)
        run.process.waitUntilExit()
        XCTAssertEqual(run.process.terminationReason, .uncaughtSignal)
        let reader = try CaptureInput.open(path)
        var frames: [Frame] = []
        while let frame = try reader.next() { frames.append(frame) }
        XCTAssertGreaterThanOrEqual(frames.count, sent)
        XCTAssertLessThanOrEqual(reader.warnings.count, 1, "at most the last record cut: \(reader.warnings)")
        for (i, frame) in frames.prefix(sent).enumerated() {
            XCTAssertEqual(Array(frame.bytes), Array("note \(i)".utf8))
        }
        close(run.sender)
    }

    /// Hours of traffic in a few seconds: the capture's memory does not grow with it.
    func testLongCaptureHasFlatMemory() throws {
        let path = temporaryPath("long.btsnoop")
        let run = try startCapture(["-q", "-w", path])
        let payload = [UInt8](repeating: 0x5A, count: 200)
        func send(_ count: Int) { for _ in 0 ..< count { run.send(5, 0, payload) } }
        func residentKB() -> Int {
            let status = (try? String(contentsOfFile: "/proc/\(run.process.processIdentifier)/status", encoding: .utf8)) ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
            return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
        }
        func waitForFile(frames: Int) {
            for _ in 0 ..< 1000 {
                var info = stat()
                if stat(path, &info) == 0, Int(info.st_size) >= 16 + frames * (24 + 200) { return }
                usleep(10_000)
            }
        }
        send(20_000)
        waitForFile(frames: 20_000)
        let early = residentKB()
        // Paced as a radio paces them (batches the capture keeps up with), so what is measured
        // is what the capture keeps, not a backlog in the queue.
        for batch in 1 ... 20 {
            send(10_000)
            waitForFile(frames: 20_000 + batch * 10_000)
        }
        let late = residentKB()
        let result = run.finish()
        XCTAssertEqual(result.status, 0, result.err)
        XCTAssertTrue(result.err.contains("220000 frames captured"), result.err)
        XCTAssertGreaterThan(early, 0)
        // 200,000 more frames are 45 MB of capture; the process keeps none of it.
        XCTAssertLessThan(late - early, 4_000, "RSS grew from \(early) kB to \(late) kB")
    }
}
