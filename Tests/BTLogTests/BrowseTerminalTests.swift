import XCTest
import Foundation
import BTCapture

/// `btlog browse` in a real terminal: tmux plays it (terminfo, keys, resizes), as a user's
/// terminal over ssh would. What the screen shows after each key is read back from tmux; the
/// terminal must be given back on quit and on SIGTERM. Reference tier (it needs tmux).
final class BrowseTerminalTests: XCTestCase {
    /// A tmux session running one command in a pane of the given size.
    final class Pane {
        let tmux: String
        let name: String

        init(tmux: String, command: String, width: Int = 120, height: Int = 40, environment: [String: String] = [:]) throws {
            self.tmux = tmux
            name = "btlog-test-\(getpid())-\(UInt32.random(in: 0 ... .max))"
            let exports = environment.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            // The shell prints how btlog ended, then waits: the pane stays to be read.
            let script = "\(exports.isEmpty ? "" : "export \(exports); ")\(command); echo \"EXIT:$?\"; sleep 600"
            // Spawned and waited for directly: the client starts a server that lives on (it
            // must hold no pipe of ours), and Foundation's Process was seen never to notice the
            // client's exit here.
            let arguments = [tmux, "-L", name, "-f", "/dev/null", "new-session", "-d", "-s", name, "-x", "\(width)", "-y", "\(height)",
                             "sh", "-c", script]
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            for fd: Int32 in [0, 1, 2] { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0) }
            let argv = arguments.map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            var pid: pid_t = 0
            XCTAssertEqual(posix_spawn(&pid, tmux, &actions, nil, argv, environ), 0)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            XCTAssertEqual(status, 0)
        }

        deinit { _ = try? Tool.run(tmux, ["-L", name, "kill-server"]) }

        func keys(_ keys: String...) throws {
            try Tool.run(tmux, ["-L", name, "send-keys", "-t", name] + keys)
        }

        /// A key that opens a field, the text typed into it, then Enter.
        func answer(_ key: String, _ text: String) throws {
            try keys(key)
            try type(text)
            try keys("Enter")
        }

        /// Text typed as is (no key names).
        func type(_ text: String) throws {
            try Tool.run(tmux, ["-L", name, "send-keys", "-t", name, "-l", text])
        }

        func screen(escapes: Bool = false) throws -> String {
            try Tool.run(tmux, ["-L", name, "capture-pane", "-p", "-t", name] + (escapes ? ["-e"] : [])).out
        }

        /// Waits (up to 15 s) for the screen to satisfy `condition`; fails with the screen otherwise.
        @discardableResult
        func wait(for what: String, escapes: Bool = false, file: StaticString = #filePath, line: UInt = #line,
                  _ condition: (String) -> Bool) throws -> String {
            let deadline = Date().addingTimeInterval(15)
            var text = ""
            while Date() < deadline {
                text = try screen(escapes: escapes)
                if condition(text) { return text }
                Thread.sleep(forTimeInterval: 0.05)
            }
            XCTFail("waited for \(what); the screen:\n\(text)", file: file, line: line)
            return text
        }

        func resize(width: Int, height: Int) throws {
            try Tool.run(tmux, ["-L", name, "resize-window", "-t", name, "-x", "\(width)", "-y", "\(height)"])
        }

        var panePID: Int32? {
            (try? Tool.run(tmux, ["-L", name, "list-panes", "-t", name, "-F", "#{pane_pid}"]).out)
                .flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
    }

    func tmux() throws -> String {
        guard let path = Reference.consumer("tmux") else { throw Reference.skip("tmux") }
        return path
    }

    static func fixture(_ name: String) -> String { Tool.root.appendingPathComponent("Fixtures/" + name).path }

    func testKeysFilterSearchResizeAndQuit() throws {
        let pane = try Pane(tmux: try tmux(), command: "'\(Tool.btlog)' browse '\(Self.fixture("le-heart-rate.btsnoop"))'",
                            environment: ["LANG": "C.UTF-8"])
        var screen = try pane.wait(for: "the capture read") { $0.contains("Packet 1: HCI Command") && $0.contains("141 packets (4 errors)") }
        XCTAssertTrue(screen.hasPrefix("     #    Time"), screen)
        // End: the last packet, opened into its tree and bytes.
        try pane.keys("End")
        screen = try pane.wait(for: "packet 141") { $0.contains("Packet 141: ") }
        XCTAssertTrue(screen.contains("── Bytes ("), screen)
        // The filter field: an error with its caret under the mistake, then a filter applied.
        try pane.keys("f")
        try pane.type("att.opcode == read_rex")
        screen = try pane.wait(for: "the filter's error") { $0.contains("'read_rex' is not a value of att.opcode") }
        let lines = screen.components(separatedBy: "\n")
        let field = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("Filter: att.opcode == read_rex") }, screen)
        XCTAssertEqual(lines[field + 1].firstIndex(of: "^").map { lines[field + 1].distance(from: lines[field + 1].startIndex, to: $0) },
                       "Filter: att.opcode == ".count, screen)
        try pane.keys("BSpace", "BSpace")
        try pane.type("eq")
        try pane.keys("Enter")
        // The status line can say what the scan found a moment before the rows are drawn (a
        // loaded machine shows it): wait for both.
        func readRows(_ screen: String) -> Int {
            screen.components(separatedBy: "\n").filter { $0.range(of: #"^ +\d+ .*Read Request - Handle"#, options: .regularExpression) != nil }.count
        }
        screen = try pane.wait(for: "the filtered list") { $0.contains("14 packets (1 error)") && !$0.contains("filtering") && readRows($0) == 14 }
        XCTAssertEqual(readRows(screen), 14, screen)
        // Search, then the tree of what it found.
        try pane.keys("c", "g")
        try pane.answer("/", "Pairing Failed")
        screen = try pane.wait(for: "the search's match") { $0.contains("Packet 135: SMP Receive") }
        try pane.keys("Enter", "Down")
        screen = try pane.wait(for: "a field selected") { $0.contains("    Code: Pairing Failed") || $0.contains("Code:") }
        // Resizing re-lays the panes in the new size.
        try pane.resize(width: 70, height: 20)
        screen = try pane.wait(for: "the smaller screen") { text in
            let rows = text.components(separatedBy: "\n")
            return rows.allSatisfy { $0.count <= 70 } && rows.contains { $0.hasPrefix(" le-heart-rate.btsnoop") }
        }
        // q: the terminal is given back, the browser's screen gone, the exit status 0.
        try pane.keys("q")
        screen = try pane.wait(for: "btlog's exit") { $0.contains("EXIT:") }
        XCTAssertTrue(screen.contains("EXIT:0"), screen)
        XCTAssertFalse(screen.contains("le-heart-rate.btsnoop"), "the alternate screen was left:\n\(screen)")
    }

    /// Colours as `show` uses them (an error row red), none with NO_COLOR; SIGTERM gives the
    /// terminal back and exits as SIGTERM says (143).
    func testColoursAndSIGTERM() throws {
        let tmux = try tmux()
        // (swift test sets NO_COLOR for the tests it runs: the coloured browser runs without it.)
        let coloured = try Pane(tmux: tmux, command: "unset NO_COLOR; '\(Tool.btlog)' browse '\(Self.fixture("le-heart-rate.btsnoop"))'",
                                environment: ["LANG": "C.UTF-8", "TERM": "xterm-256color"])
        try coloured.wait(for: "the capture read") { $0.contains("Packet 1: ") && $0.contains("141 packets") }
        try coloured.answer(":", "135")
        try coloured.keys("Down")
        let escapes = try coloured.wait(for: "packet 136 selected", escapes: true) { $0.contains("Packet 136") }
        let errorRow = try XCTUnwrap(escapes.components(separatedBy: "\n").first { $0.contains("Pairing Failed - Reason") })
        XCTAssertTrue(errorRow.contains("\u{1B}[31m"), "an error row is red: \(errorRow.debugDescription)")

        let plain = try Pane(tmux: tmux, command: "'\(Tool.btlog)' browse '\(Self.fixture("le-heart-rate.btsnoop"))'",
                             environment: ["LANG": "C.UTF-8", "TERM": "xterm-256color", "NO_COLOR": "1"])
        let text = try plain.wait(for: "the list", escapes: true) { $0.contains("Packet 1: ") }
        XCTAssertFalse(text.contains("\u{1B}[31m") || text.contains("\u{1B}[34m") || text.contains("\u{1B}[35m"), "NO_COLOR: no colour")
        XCTAssertNotNil(text.range(of: "\u{1B}\\[([0-9]+;)*7(;[0-9]+)*m", options: .regularExpression), "the selection is still shown, in reverse video")

        // SIGTERM to btlog (the shell's child).
        let shell = try XCTUnwrap(coloured.panePID)
        let children = try Tool.run("/usr/bin/pgrep", ["-P", "\(shell)", "btlog"]).out.split(separator: "\n")
        let browser = try XCTUnwrap(children.first.flatMap { Int32($0) }, "btlog's pid")
        kill(browser, SIGTERM)
        let after = try coloured.wait(for: "btlog's exit") { $0.contains("EXIT:") }
        XCTAssertTrue(after.contains("EXIT:143"), after)
        XCTAssertFalse(after.contains("le-heart-rate.btsnoop"), "the terminal was given back:\n\(after)")
    }

    /// w exports what the list shows, through `btlog export` itself: the file holds `show -f`'s
    /// packets; W the selected packet alone.
    func testExportFromInside() throws {
        let tmux = try tmux()
        let folder = (temporaryPath("x") as NSString).deletingLastPathComponent
        let fixture = Self.fixture("le-heart-rate.btsnoop")
        let expected = try Tool.run(Tool.btlog, ["show", "-f", "smp", "--fields", "frame.time,type,smp.code", fixture]).out
        let count = expected.split(separator: "\n").count
        XCTAssertGreaterThan(count, 4)
        let pane = try Pane(tmux: tmux, command: "cd '\(folder)' && '\(Tool.btlog)' browse -f smp '\(fixture)'", environment: ["LANG": "C.UTF-8"])
        try pane.wait(for: "the filtered list") { $0.contains("\(count) packets (") && !$0.contains("filtering") }
        try pane.answer("w", "smp.btsnoop")
        try pane.wait(for: "the export's end") { $0.contains("Exported to smp.btsnoop (") }
        // The same bytes as the command writes; and the packets `show -f` lists (their times).
        XCTAssertEqual(try Tool.run(Tool.btlog, ["export", fixture, "-f", "smp", "-o", folder + "/cli.btsnoop"]).status, 0)
        XCTAssertEqual(FileManager.default.contents(atPath: folder + "/smp.btsnoop"), FileManager.default.contents(atPath: folder + "/cli.btsnoop"))
        let times = try Tool.run(Tool.btlog, ["show", "--fields", "frame.time", folder + "/smp.btsnoop"]).out
        XCTAssertEqual(times, expected.split(separator: "\n").map { $0.split(separator: "\t")[0] + "\n" }.joined())
        // W: the selected packet alone, as JSON Lines.
        try pane.keys("End")
        try pane.answer("W", "one.jsonl")
        try pane.wait(for: "the second export's end") { $0.contains("Exported to one.jsonl (") }
        let lines = try String(contentsOfFile: folder + "/one.jsonl", encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 1)
        XCTAssertTrue(lines.first?.contains("\"number\":135") ?? false, String(lines.first ?? ""))
        // An export that fails: its message, the browser still running.
        try pane.answer("w", "/nonexistent-folder/out.jsonl")
        try pane.wait(for: "the failure") { $0.contains("Export failed: /nonexistent-folder/out.jsonl: cannot write") }
        try pane.keys("q")
        try pane.wait(for: "btlog's exit") { $0.contains("EXIT:0") }
    }

    /// `--follow`: packets another program appends join the list; the list follows them while
    /// its last row is selected, and leaves a user reading an older packet where they are.
    func testFollowAGrowingFile() throws {
        let tmux = try tmux()
        let path = temporaryPath("growing.btsnoop")
        let writer = try CaptureWriters.make(.btsnoopMonitor, sink: try OutputFile(path: path))
        var time: Int64 = 1_700_000_000_000_000
        func append(_ count: Int) throws {
            for _ in 0 ..< count {
                time += 1000
                try writer.write(Frame(timestamp: time, kind: .command, direction: .sent, bytes: [0x03, 0x0C, 0x00]))
                time += 1000
                try writer.write(Frame(timestamp: time, kind: .event, direction: .received, bytes: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]))
            }
            try writer.flush()
        }
        try append(5)
        let pane = try Pane(tmux: tmux, command: "'\(Tool.btlog)' browse --follow '\(path)'", environment: ["LANG": "C.UTF-8"])
        try pane.wait(for: "the first packets") { $0.contains("10 packets (0 errors)") }
        // The last row selected: new packets are followed.
        try pane.keys("End")
        try pane.wait(for: "packet 10 selected") { $0.contains("Packet 10: HCI Event") }
        try append(10)
        try pane.wait(for: "the list following the new packets") { $0.contains("30 packets") && $0.contains("Packet 30: HCI Event") }
        // An older packet selected: the list grows, the selection stays.
        try pane.keys("g")
        try pane.wait(for: "packet 1 selected") { $0.contains("Packet 1: HCI Command") }
        try append(5)
        let screen = try pane.wait(for: "the new packets listed") { $0.contains("40 packets") }
        XCTAssertTrue(screen.contains("Packet 1: HCI Command"), screen)
        try writer.close()
        // The file shrinks under the browser: reading stops and says why; what was read stays.
        XCTAssertEqual(truncate(path, 100), 0)
        let stopped = try pane.wait(for: "the reading stopped") { $0.contains("Reading stopped: ") }
        XCTAssertTrue(stopped.contains("40 packets") && stopped.contains("Packet 1: HCI Command"), stopped)
        try pane.keys("G")
        try pane.wait(for: "the last packet read still opens") { $0.contains("Packet 40: HCI Event") }
        try pane.keys("q")
        try pane.wait(for: "btlog's exit") { $0.contains("EXIT:0") }
    }

    /// `capture --browse`: the monitor's frames (a socketpair standing in for the kernel's
    /// socket, fed through a FIFO by a relay in the pane) listed as they arrive, written to -w;
    /// q ends the capture and prints its status line once the terminal is back.
    func testCaptureBrowse() throws {
        let tmux = try tmux()
        let folder = (temporaryPath("x") as NSString).deletingLastPathComponent
        let fifo = folder + "/monitor.fifo", relay = folder + "/relay.py", written = folder + "/live.btsnoop"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        try Self.relay.write(toFile: relay, atomically: true, encoding: .utf8)
        let pane = try Pane(tmux: tmux, command: "python3 '\(relay)' '\(fifo)' '\(Tool.btlog)' capture --browse --monitor-fd 3 -w '\(written)'",
                            environment: ["LANG": "C.UTF-8"])
        let feed = try XCTUnwrap(FileHandle(forWritingAtPath: fifo)) // opened once the relay reads it
        func send(_ opcode: UInt16, _ index: UInt16, _ payload: [UInt8]) {
            let datagram = MonitorDatagram.bytes(opcode: opcode, controller: index, payload: payload)
            feed.write(Data((datagram.map { String(format: "%02x", $0) }.joined() + "\n").utf8))
        }
        send(0, 0, [0, 0, 0x55, 0x44, 0x33, 0x22, 0x11, 0x00] + Array("hci0".utf8) + [0, 0, 0, 0])
        send(2, 0, [0x03, 0x0C, 0x00])
        send(3, 0, [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])
        try pane.wait(for: "the live packets") { $0.contains("3 packets (0 errors)") && $0.contains("Command Complete: Reset") }
        try pane.keys("End")
        send(2, 0, [0x14, 0x0C, 0x00])
        try pane.wait(for: "a packet that arrived later, followed") { $0.contains("Packet 4: HCI Command") && $0.contains("Read Local Name") }
        try pane.keys("q")
        try feed.close() // the relay waits for the FIFO's end, then for btlog
        let after = try pane.wait(for: "the capture's end") { $0.contains("EXIT:") }
        XCTAssertTrue(after.contains("EXIT:0"), after)
        XCTAssertTrue(after.contains("btlog: 4 frames captured"), after)
        let frames = try CaptureInput.open(written)
        var count = 0
        while try frames.next() != nil { count += 1 }
        XCTAssertEqual(count, 4, "every frame in the -w file")
    }

    /// Runs btlog with a socketpair's end as descriptor 3 and relays hex lines read from a FIFO
    /// to the other end as datagrams (a shell has no socketpair to give).
    static let relay = """
    import os, socket, sys
    fifo, btlog, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    pid = os.fork()
    if pid == 0:
        ours.close()
        os.dup2(theirs.fileno(), 3)
        os.execv(btlog, [btlog] + args)
    theirs.close()
    with open(fifo, "rb") as lines:
        for line in lines:
            ours.send(bytes.fromhex(line.decode().strip()))
    status = os.waitpid(pid, 0)[1]
    sys.exit(os.waitstatus_to_exitcode(status))
    """

    /// Without a terminal, browse says so instead of drawing into a pipe.
    func testBrowseNeedsATerminal() throws {
        let result = try Tool.run(Tool.btlog, ["browse", Self.fixture("le-heart-rate.btsnoop")])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.err.contains("browse needs a terminal"), result.err)
        let bad = try Tool.run(Tool.btlog, ["browse", "-f", "att.opcod == 1", Self.fixture("le-heart-rate.btsnoop")])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.err.contains("^~~~~~~~~"), bad.err)
        let range = try Tool.run(Tool.btlog, ["browse", "--packets", "1-2", Self.fixture("le-heart-rate.btsnoop")])
        XCTAssertEqual(range.status, 2)
        XCTAssertTrue(range.err.contains("--packets does not apply to browse"), range.err)
        let missing = try Tool.run(Tool.btlog, ["browse", "/nonexistent.btsnoop"])
        XCTAssertNotEqual(missing.status, 0)
    }
}
