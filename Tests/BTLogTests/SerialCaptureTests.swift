import XCTest
import Foundation
import Glibc
import BTCapture
import BTFixtures

/// `btlog capture --tty`: a pseudo-terminal stands in for a board's serial port. One side is
/// fed the BlueZ monitor protocol as an embedded stack writes it; btlog (and btmon -d, the
/// reference) read the other side as they would read /dev/ttyACM0.
final class SerialCaptureTests: XCTestCase {
    /// A pseudo-terminal pair: `master` is the board's end, `path` the port a capture opens.
    struct PseudoTerminal {
        let master: Int32
        let path: String
        /// The test's own descriptor of the port, to see when the capture has set it raw.
        let port: Int32

        init() throws {
            // posix_openpt and friends are not visible from Swift: the Linux calls they make.
            // TIOCSPTLCK (unlock the port) and TIOCGPTN (its number), from asm-generic/ioctls.h.
            master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
            var unlock: Int32 = 0, number: UInt32 = 0
            guard master >= 0, ioctl(master, 0x4004_5431, &unlock) == 0, ioctl(master, 0x8004_5430, &number) == 0 else {
                throw XCTSkip("no pseudo-terminals here: \(String(cString: strerror(errno)))")
            }
            path = "/dev/pts/\(number)"
            port = open(path, O_RDWR | O_NOCTTY)
        }

        /// Waits until the reader has put the line in raw mode (no line editing): only then do
        /// bytes pass unchanged.
        func waitUntilRaw(seconds: Double = 20) -> Bool {
            waitUntil(seconds: seconds) {
                var settings = termios()
                return tcgetattr(port, &settings) == 0 && settings.c_lflag & tcflag_t(ICANON) == 0
            }
        }

        /// Writes the stream in pieces of `piece` bytes, pausing now and then as a board's UART does.
        func send(_ bytes: [UInt8], piece: Int = 97) {
            var offset = 0
            while offset < bytes.count {
                let end = min(offset + piece, bytes.count)
                let written = bytes[offset ..< end].withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
                if written > 0 { offset += written } else if errno != EINTR && errno != EAGAIN { break }
                if offset % (piece * 16) < piece { usleep(2_000) }
            }
        }

        /// The board goes away: its end closes (the port then reads as hung up).
        func unplug() {
            close(master)
            close(port)
        }
    }

    /// Every opcode, without and with a timestamp (and once drop counters).
    static func boardStream() -> (bytes: [UInt8], frames: Int) {
        var bytes: [UInt8] = [], frames = 0
        var time: UInt32 = 50_000
        for (index, opcode) in (UInt16(0) ... 19).enumerated() {
            guard let payload = SerialMonitorSamples.payloads[opcode] else { continue }
            bytes += SerialMonitor.encode(opcode: opcode, payload: payload)
            bytes += SerialMonitor.encode(opcode: opcode, payload: payload, timestamp: time, drops: index == 5 ? [(.aclReceivedDrops, 2)] : [])
            frames += 2
            time += 1_234
        }
        return (bytes, frames)
    }

    func startBtlog(_ terminal: PseudoTerminal, _ arguments: [String]) throws -> (Process, Pipe, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Tool.btlog)
        process.arguments = ["capture", "--tty", terminal.path] + arguments
        process.environment = ["TZ": "UTC", "PATH": "/usr/bin:/bin"]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        return (process, out, err)
    }

    /// The board's frames reach the -w file as they were sent, the board's clock kept; the
    /// board unplugged ends the capture with what arrived, and the status line says so.
    /// btmon -d, fed the same bytes on its own port, records the same frames at the same times.
    func testABoardsSerialMonitorStreamIsCapturedAsBtmonCapturesIt() throws {
        let (stream, count) = Self.boardStream()
        let terminal = try PseudoTerminal()
        let file = temporaryPath("board.btsnoop")
        let (process, out, err) = try startBtlog(terminal, ["-w", file])
        XCTAssertTrue(terminal.waitUntilRaw(), "btlog did not set the line raw")
        terminal.send(stream)
        XCTAssertTrue(waitUntil(seconds: 20) { ((try? readFrames(file))?.count ?? 0) >= count }, "frames written as they come")
        terminal.unplug()
        let printed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let status = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, status)
        XCTAssertTrue(status.contains("btlog: capturing from \(terminal.path) (BlueZ monitor protocol, 115200 bit/s)"), status)
        XCTAssertTrue(status.contains("\(count) frames captured"), status)
        XCTAssertTrue(status.contains("2 dropped by the board"), status)
        XCTAssertTrue(status.contains("\(terminal.path) closed (the board unplugged or reset?)"), status)
        XCTAssertTrue(status.contains("the board dropped 2 frames before frame 12 (ACL received 2)"), status)
        XCTAssertTrue(printed.contains("Reset"), printed)
        XCTAssertTrue(printed.contains("Bluetooth subsystem version 2.22"), printed)
        let ours = try readFrames(file)
        XCTAssertEqual(ours.count, count)
        // The board's clock: the timestamped frames 1,234 units of 100 µs apart.
        let stamped = stride(from: 1, to: ours.count, by: 2).map { ours[$0].timestamp }
        XCTAssertEqual(zip(stamped.dropFirst(), stamped).map { $0 - $1 }, Array(repeating: 123_400, count: stamped.count - 1))

        guard Reference.isLive, let btmon = Tool.find("btmon") else { return }
        let reference = try PseudoTerminal()
        let theirsFile = temporaryPath("btmon.btsnoop")
        let theirs = Process()
        theirs.executableURL = URL(fileURLWithPath: btmon)
        theirs.arguments = ["-d", reference.path, "-w", theirsFile]
        theirs.standardOutput = FileHandle.nullDevice
        theirs.standardError = FileHandle.nullDevice
        try theirs.run()
        XCTAssertTrue(reference.waitUntilRaw(), "btmon did not set the line raw")
        reference.send(stream)
        // btmon -w records only the frames that carry the board's timestamp (it shows the others,
        // but its file writer takes no frame without a time): half of these.
        let stampedFrames = stride(from: 1, to: ours.count, by: 2).map { ours[$0] }
        XCTAssertTrue(waitUntil(seconds: 20) { ((try? readFrames(theirsFile))?.count ?? 0) >= stampedFrames.count }, "btmon wrote its frames")
        usleep(200_000)
        reference.unplug()
        theirs.interrupt()
        theirs.waitUntilExit()
        let btmonFrames = try readFrames(theirsFile)
        XCTAssertEqual(btmonFrames.count, stampedFrames.count)
        for (a, b) in zip(stampedFrames, btmonFrames) {
            XCTAssertEqual(a.kind, b.kind, "#\(a.number)")
            XCTAssertEqual(a.direction, b.direction, "#\(a.number)")
            XCTAssertEqual(a.controller, b.controller, "#\(a.number)")
            XCTAssertEqual(a.bytes, b.bytes, "#\(a.number)")
        }
        // btmon keeps the board's clock as it is (time since the board started); btlog puts it
        // on the wall clock at the first frame: the same times, one offset apart.
        let theirStamps = btmonFrames.map(\.timestamp)
        XCTAssertEqual(theirStamps.first, 5_000_000, "btmon: 50,000 units of 100 µs")
        XCTAssertEqual(zip(stamped, theirStamps).map { $0 - $1 }, Array(repeating: stamped[0] - theirStamps[0], count: stamped.count))
    }

    /// A real capture (the kernel's SMP run, re-encoded as a board would send it) captured
    /// through the port decodes as its btsnoop file does: every packet's summary alike.
    func testAKernelCaptureThroughThePortDecodesAsItsFile() throws {
        let original = Tool.root.appendingPathComponent("Fixtures/kernel-smp.btsnoop").path
        let frames = try readFrames(original)
        let start = frames.map(\.timestamp).min() ?? 0
        var stream: [UInt8] = []
        for frame in frames {
            let opcode = try XCTUnwrap(MonitorOpcode.opcode(for: frame.kind, direction: frame.direction), "#\(frame.number)")
            stream += SerialMonitor.encode(opcode: opcode, payload: Array(frame.bytes), timestamp: UInt32((frame.timestamp - start) / 100))
        }
        let terminal = try PseudoTerminal()
        let file = temporaryPath("smp.btsnoop")
        let (process, out, err) = try startBtlog(terminal, ["-q", "-w", file, "--speed", "1000000"])
        XCTAssertTrue(terminal.waitUntilRaw())
        terminal.send(stream, piece: 509)
        XCTAssertTrue(waitUntil(seconds: 30) { ((try? readFrames(file))?.count ?? 0) >= frames.count })
        terminal.unplug()
        _ = out.fileHandleForReading.readDataToEndOfFile()
        let status = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, status)
        XCTAssertTrue(status.contains("1000000 bit/s"), status)
        let fields = ["--fields", "type,hci.opcode,hci.event,l2cap.cid,smp.code,frame.issues"]
        let theirs = try btlog(["show", original] + fields)
        let ours = try btlog(["show", file] + fields)
        XCTAssertEqual(ours.status, 0, ours.err)
        XCTAssertGreaterThan(ours.out.split(separator: "\n").count, 500)
        XCTAssertEqual(ours.out, theirs.out)
    }

    /// A UART between a host and its controller tapped on both wires (two ports): a real
    /// phone's traffic split by direction, with line noise on each wire, comes out as the
    /// phone's snoop log holds it, each direction in its order, on this machine's clock.
    func testAnH4TapOfBothWiresCapturesEachDirection() throws {
        let original = Tool.root.appendingPathComponent("Fixtures/third-party/happyleaf/btsnoop_hci.log").path
        let frames = Array(try readFrames(original).prefix(4_000))
        let host = try PseudoTerminal(), controller = try PseudoTerminal()
        let file = temporaryPath("tap.btsnoop")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Tool.btlog)
        process.arguments = ["capture", "--h4", "controller=\(controller.path),host=\(host.path)", "--speed", "3000000", "-q", "-w", file]
        let err = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = err
        try process.run()
        XCTAssertTrue(host.waitUntilRaw() && controller.waitUntilRaw(), "btlog did not set both lines raw")
        let noise: [UInt8] = [0x00, 0xFF, 0xF0, 0x80, 0xFE]
        var hostBytes: [UInt8] = [], controllerBytes: [UInt8] = []
        for (index, frame) in frames.enumerated() {
            let packet = (index % 97 == 0 ? Array(noise.prefix(1 + index % 5)) : []) + [H4.indicator(for: frame.kind)!] + Array(frame.bytes)
            if frame.direction == .sent { hostBytes += packet } else { controllerBytes += packet }
            // Both wires in step, a few hundred packets at a time, as the link runs.
            if index % 300 == 299 || index == frames.count - 1 {
                host.send(hostBytes)
                controller.send(controllerBytes)
                hostBytes = []
                controllerBytes = []
            }
        }
        XCTAssertTrue(waitUntil(seconds: 30) { ((try? readFrames(file))?.count ?? 0) >= frames.count }, "every packet written")
        host.unplug()
        controller.unplug()
        let status = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, status)
        XCTAssertTrue(status.contains("capturing from a tapped UART (H4; host \(host.path), controller \(controller.path); 3000000 bit/s)"), status)
        XCTAssertTrue(status.contains("both wires closed"), status)
        XCTAssertTrue(status.contains("bytes of noise skipped"), status)
        let captured = try readFrames(file)
        XCTAssertEqual(captured.count, frames.count)
        for direction in [Direction.sent, .received] {
            let ours = captured.filter { $0.direction == direction }, theirs = frames.filter { $0.direction == direction }
            XCTAssertEqual(ours.map(\.kind), theirs.map(\.kind), "\(direction)")
            XCTAssertEqual(ours.map(\.bytes), theirs.map(\.bytes), "\(direction)")
        }
        let bad = try btlog(["capture", "--h4", "host=\(host.path)"])
        XCTAssertTrue(bad.err.contains("--h4 needs both wires: host=PATH,controller=PATH"), bad.err)
        let same = try btlog(["capture", "--h4", "host=/dev/ttyS0,controller=/dev/ttyS0"])
        XCTAssertTrue(same.err.contains("the host and controller wires are two ports"), same.err)
    }

    /// What a person gets wrong: a port that is not there, a file that is no port, a speed no
    /// port takes, options that need --tty; and a line of noise (the wrong speed) is told.
    func testBadPortsAndOptionsAndALineOfNoise() throws {
        let missing = try btlog(["capture", "--tty", "/dev/ttyNOSUCH9"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.err.contains("/dev/ttyNOSUCH9: no such serial port (is the board plugged in?"), missing.err)
        let plainFile = temporaryPath("not-a-port.txt")
        FileManager.default.createFile(atPath: plainFile, contents: Data("hello\n".utf8))
        let notAPort = try btlog(["capture", "--tty", plainFile])
        XCTAssertTrue(notAPort.err.contains("\(plainFile) is not a serial port"), notAPort.err)
        let speed = try btlog(["capture", "--tty", "/dev/ttyS0", "--speed", "12345"])
        XCTAssertTrue(speed.err.contains("--speed 12345 is not a speed a serial port takes"), speed.err)
        let noPort = try btlog(["capture", "--speed", "115200"])
        XCTAssertTrue(noPort.err.contains("--speed and --flow-control set a serial line; give --tty PATH or --h4 host=PATH,controller=PATH"), noPort.err)
        let both = try btlog(["capture", "--tty", "/dev/ttyS0", "--tcp", "localhost:8872"])
        XCTAssertTrue(both.err.contains("capture from one source: --tty, --h4, --tcp, --android or --ios, not two"), both.err)

        let terminal = try PseudoTerminal()
        let (process, _, err) = try startBtlog(terminal, ["-q"])
        XCTAssertTrue(terminal.waitUntilRaw())
        var generator = SystemRandomNumberGenerator()
        terminal.send((0 ..< 6_000).map { _ in UInt8(0x80 | UInt8.random(in: 0 ... 0x7F, using: &generator)) })
        usleep(300_000)
        terminal.unplug()
        let status = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, status)
        XCTAssertTrue(status.contains("256 bytes and counting: \(terminal.path) sends bytes but no monitor frame: is 115200 bit/s the board's speed (--speed)?"), status)
        XCTAssertTrue(status.contains("0 frames captured"), status)
        XCTAssertTrue(status.contains("6000 bytes of noise skipped"), status)
    }

    func btlog(_ arguments: [String]) throws -> Tool.Result { try Tool.run(Tool.btlog, arguments) }
}
