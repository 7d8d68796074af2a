import XCTest
import Foundation
import Glibc
import BTCapture
import BTFixtures

/// `btlog capture --android` against a stand-in for adb: a script on PATH that answers as adb
/// answers (its outputs are adb's, as a phone gives them) and writes down every command btlog
/// runs. No phone is needed; what a phone does differently is said in the note.
final class AndroidCaptureTests: XCTestCase {
    /// A folder holding the fake adb and what it answers: `devices`, `getprop`, `clock` (one
    /// "SECONDS ZONE" line per date command), `port` (what adb forward prints), `bugreport.zip`.
    struct FakePhone {
        let folder: String
        var environment: [String: String] { ["PATH": "\(folder)/bin:/usr/bin:/bin", "FAKE_ADB": folder, "ANDROID_SERIAL": ""] }
        var calls: [String] {
            ((try? String(contentsOfFile: "\(folder)/calls", encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }

        static let script = """
        #!/bin/sh
        # Answers as adb does, from the files beside it; writes down each command.
        echo "$*" >> "$FAKE_ADB/calls"
        if [ "$1" = "devices" ]; then cat "$FAKE_ADB/devices"; exit 0; fi
        [ "$1" = "-s" ] && shift 2
        case "$1" in
          shell)
            case "$2" in getprop*) cat "$FAKE_ADB/getprop";; esac
            n=$(cat "$FAKE_ADB/clock-calls" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$FAKE_ADB/clock-calls"
            echo "[btlog.clock]: [$(sed -n ${n}p "$FAKE_ADB/clock")]";;
          forward)
            [ "$2" = "--remove" ] && exit 0
            cat "$FAKE_ADB/port";;
          bugreport)
            echo "[  5%] generating bugreport" >&2
            [ -f "$FAKE_ADB/slow" ] && sleep 30
            cp "$FAKE_ADB/bugreport.zip" "$2";;
        esac
        """

        init(devices: String = "List of devices attached\nR5CT1234       device usb:1-1 product:a52qnsxx model:SM_A525F device:a52q transport_id:1\n\n",
             properties: [String: String] = ["persist.bluetooth.btsnooplogmode": "full"], clock: [String] = []) throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("btlog-adb-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: "\(folder)/bin", withIntermediateDirectories: true)
            try Self.script.write(toFile: "\(folder)/bin/adb", atomically: true, encoding: .utf8)
            chmod("\(folder)/bin/adb", 0o755)
            try devices.write(toFile: "\(folder)/devices", atomically: true, encoding: .utf8)
            var all = ["ro.build.type": "user", "ro.product.model": "SM-A525F", "ro.build.version.release": "14"]
            for (key, value) in properties { all[key] = value }
            try all.map { "[\($0.key)]: [\($0.value)]\n" }.sorted().joined().write(toFile: "\(folder)/getprop", atomically: true, encoding: .utf8)
            try clock.map { $0 + "\n" }.joined().write(toFile: "\(folder)/clock", atomically: true, encoding: .utf8)
        }

        func answerForward(with port: UInt16) throws {
            try "\(port)\n".write(toFile: "\(folder)/port", atomically: true, encoding: .utf8)
        }
    }

    func btlog(_ phone: FakePhone, _ arguments: [String]) throws -> Tool.Result {
        try Tool.run(Tool.btlog, ["capture", "--android"] + arguments, environment: phone.environment)
    }

    /// Each way a phone can be out of reach gets its own message, before anything is captured.
    func testWhatAPersonIsToldWhenNoPhoneCanBeCaptured() throws {
        let cases: [(devices: String, properties: [String: String], arguments: [String], said: String)] = [
            ("List of devices attached\n\n", [:], [], "no Android device: connect the phone by USB with USB debugging on"),
            ("* daemon not running; starting now at tcp:5037\n* daemon started successfully\nList of devices attached\n\n", [:], [],
             "no Android device"),
            ("List of devices attached\nR5CT1234       unauthorized usb:1-1 transport_id:3\n\n", [:], [],
             "R5CT1234 has not allowed this computer: unlock the phone and accept \"Allow USB debugging?\""),
            ("List of devices attached\nR5CT1234       no permissions (user in plugdev group; are your udev rules wrong?); see [http://developer.android.com/tools/device.html] usb:1-1\n\n",
             [:], [], "R5CT1234: no permission to open the phone's USB device"),
            ("List of devices attached\nemulator-5554  offline transport_id:1\n\n", [:], [], "emulator-5554 is offline"),
            ("List of devices attached\nR5CT1234       device usb:1-1 model:SM_A525F transport_id:1\n0B201JEC200456 device usb:1-2 model:Pixel_7 transport_id:2\n\n",
             [:], [], "several Android devices: choose one with --serial SERIAL (or ANDROID_SERIAL): R5CT1234 (SM A525F) device, 0B201JEC200456 (Pixel 7) device"),
            ("List of devices attached\nR5CT1234       device usb:1-1 model:SM_A525F transport_id:1\n\n", [:], ["--serial", "0B201JEC200456"],
             "no Android device 0B201JEC200456: adb lists R5CT1234 (SM A525F)"),
            ("List of devices attached\nR5CT1234       sideload usb:1-1\n\n", [:], [], "R5CT1234 is in sideload mode, not running Android"),
            // A phone as sold, the snoop log never turned on.
            ("List of devices attached\nR5CT1234       device usb:1-1 model:SM_A525F transport_id:1\n\n", ["persist.bluetooth.btsnooplogmode": ""], [],
             "the phone R5CT1234 (SM-A525F, Android 14) keeps no Bluetooth snoop log (persist.bluetooth.btsnooplogmode is ''): on the phone, Settings > System > Developer options > Enable Bluetooth HCI snoop log: Enabled"),
            ("List of devices attached\nR5CT1234       device usb:1-1 model:SM_A525F transport_id:1\n\n", ["persist.bluetooth.btsnooplogmode": "disabled"], [],
             "keeps no Bluetooth snoop log (persist.bluetooth.btsnooplogmode is 'disabled')"),
            ("List of devices attached\nR5CT1234       device usb:1-1 model:SM_A525F transport_id:1\n\n", ["persist.bluetooth.btsnooplogmode": "kernel"], [],
             "sends its Bluetooth snoop log to the kernel's log, not to a btsnoop file"),
        ]
        for (devices, properties, arguments, said) in cases {
            var all = properties
            if all["persist.bluetooth.btsnooplogmode"] == nil { all["persist.bluetooth.btsnooplogmode"] = "full" }
            let phone = try FakePhone(devices: devices, properties: all, clock: ["1557356600 +0000"])
            let result = try btlog(phone, ["-q"] + arguments)
            XCTAssertEqual(result.status, 1, said)
            XCTAssertTrue(result.err.hasPrefix("btlog: ") && result.err.contains(said), "\(said)\n\(result.err)")
            XCTAssertFalse(phone.calls.contains { $0.contains("forward") || $0.contains("bugreport") }, "nothing is forwarded or pulled: \(phone.calls)")
            XCTAssertEqual(phone.calls.first, "devices -l")
        }
        // --serial is the one asked for, and so is ANDROID_SERIAL; the phone's commands name it.
        let two = "List of devices attached\nR5CT1234       device usb:1-1 model:SM_A525F transport_id:1\n0B201JEC200456 unauthorized usb:1-2 transport_id:2\n\n"
        var phone = try FakePhone(devices: two, properties: ["persist.bluetooth.btsnooplogmode": "disabled"])
        XCTAssertTrue(try btlog(phone, ["--serial", "R5CT1234"]).err.contains("the phone R5CT1234 (SM-A525F, Android 14) keeps no Bluetooth snoop log"))
        XCTAssertEqual(phone.calls, ["devices -l", "-s R5CT1234 shell getprop; date +'[btlog.clock]: [%s %z]'"])
        phone = try FakePhone(devices: two, properties: ["persist.bluetooth.btsnooplogmode": "disabled"])
        var environment = phone.environment
        environment["ANDROID_SERIAL"] = "0B201JEC200456"
        let asked = try Tool.run(Tool.btlog, ["capture", "--android"], environment: environment)
        XCTAssertTrue(asked.err.contains("btlog: 0B201JEC200456 has not allowed this computer"), asked.err)

        // No adb at all.
        let bare = try Tool.run(Tool.btlog, ["capture", "--android"], environment: ["PATH": "/nonexistent"])
        XCTAssertEqual(bare.status, 1)
        XCTAssertTrue(bare.err.contains("btlog: --android needs adb, Android's debug bridge, and there is none on PATH (Debian: apt-get install adb)"), bare.err)
        // Options that do not go together.
        XCTAssertTrue(try Tool.run(Tool.btlog, ["capture", "--serial", "X"]).err.contains("--serial chooses the phone for --android; give --android"))
        XCTAssertTrue(try Tool.run(Tool.btlog, ["capture", "--android", "--tcp", "localhost:8872"]).err.contains("capture from one source: --tty, --h4, --tcp, --android or --ios, not two"))
    }

    /// A phone serving its snoop stream (a development build): btlog forwards a free port to
    /// the phone's 8872 and captures what comes, record for record; the stream's end ends the
    /// capture and the forward is removed. A filtered log is said to be one, with what it hides.
    func testAStreamingPhoneIsCapturedThroughAdbForward() throws {
        let log = Tool.root.appendingPathComponent("Fixtures/third-party/happyleaf/btsnoop_hci.log").path
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: log)))
        let server = try TCPCaptureTests.StreamServer(sending: bytes, piece: 4096, pauseEvery: 20)
        let phone = try FakePhone(properties: ["ro.build.type": "userdebug", "persist.bluetooth.btsnooplogmode": "filtered",
                                               "persist.bluetooth.snooplogfilter.headers.enabled": "true",
                                               "persist.bluetooth.snooplogfilter.profiles.pbap": "magic"],
                                  clock: ["1557356600 +0000"])
        try phone.answerForward(with: server.port)
        let output = temporaryPath("phone.btsnoop")
        let result = try btlog(phone, ["-q", "-w", output])
        XCTAssertEqual(result.status, 0, result.err)
        XCTAssertTrue(result.err.contains("btlog: capturing from R5CT1234 (SM-A525F, Android 14), its Bluetooth snoop stream (adb forward tcp:\(server.port) tcp:8872)"), result.err)
        XCTAssertTrue(result.err.contains("warning: the phone's snoop log is filtered (persist.bluetooth.btsnooplogmode is 'filtered', the default of a userdebug build): it leaves out ACL data after its first 14 bytes, except L2CAP signaling (ATT values, SMP, RFCOMM and AVDTP contents); PBAP and HFP phone-book and call-list data (replaced by \"PROHIBITED\")"), result.err)
        XCTAssertTrue(result.err.contains("the phone's snoop stream closed (unplugged, adb disconnected, or Bluetooth turned off)"), result.err)
        let original = try readFrames(log), captured = try readFrames(output)
        XCTAssertEqual(captured.count, 30_378)
        XCTAssertEqual(captured.count, original.count)
        for (a, b) in zip(captured, original) where a.timestamp != b.timestamp || a.bytes != b.bytes || a.kind != b.kind || a.direction != b.direction {
            XCTFail("#\(b.number) differs")
            break
        }
        XCTAssertEqual(phone.calls, ["devices -l", "-s R5CT1234 shell getprop; date +'[btlog.clock]: [%s %z]'",
                                     "-s R5CT1234 forward tcp:0 tcp:8872", "-s R5CT1234 forward --remove tcp:\(server.port)"])
    }

    /// The real phone log (HappyLeaf's, 30,378 packets over 861 s) as a bugreport holds it: the
    /// first 10,000 records rotated out to btsnoop_hci.log.last, the rest in btsnoop_hci.log.
    func bugreport() throws -> (zip: String, frames: [Frame]) {
        let log = Tool.root.appendingPathComponent("Fixtures/third-party/happyleaf/btsnoop_hci.log").path
        let frames = try readFrames(log)
        let zip = temporaryPath("bugreport.zip")
        try FixtureContainers.zip([
            ("bugreport-a52qnsxx-UP1A.231005.007-2019-05-08-23-05-00.txt", Date(timeIntervalSince1970: 1_557_356_700), Array("== dumpstate\n".utf8)),
            ("FS/data/misc/bluetooth/logs/btsnoop_hci.log.last", Date(timeIntervalSince1970: 1_557_356_000),
             try FixtureContainers.encode(Array(frames.prefix(10_000)), as: .btsnoopH4)),
            ("FS/data/misc/bluetooth/logs/btsnoop_hci.log", Date(timeIntervalSince1970: 1_557_356_700),
             try FixtureContainers.encode(Array(frames.dropFirst(10_000)), as: .btsnoopH4)),
        ], to: URL(fileURLWithPath: zip))
        return (zip, frames)
    }

    /// A phone as sold serves no stream: btlog says so, waits for the stop, pulls the log with
    /// adb bugreport (kept beside the -w file), and writes what the phone logged from the
    /// capture's start by the phone's clock, across the rotated file; the rest is counted.
    /// A log in the phone's local time (older stacks) is cut by its local clock.
    func testAPhoneWithoutAStreamHasItsLogPulledWhenTheCaptureStops() throws {
        let (report, frames) = try bugreport()
        // The phone's clock: the capture starts at packet 8,000's second (in the rotated-out
        // file) and stops a minute after the log's last packet.
        let startSecond = frames[7_999].timestamp / 1_000_000 + 2
        let stopSecond = frames.last!.timestamp / 1_000_000 + 60
        let expected = frames.filter { $0.timestamp >= (startSecond - 2) * 1_000_000 }
        XCTAssertTrue((22_000 ..< 22_500).contains(expected.count), "\(expected.count)")
        for (zone, offset) in [("+0000", Int64(0)), ("+0200", Int64(7_200))] {
            // In +0200 the phone's UTC clock is two hours behind the log's local times.
            let phone = try FakePhone(clock: ["\(startSecond - offset) \(zone)", "\(stopSecond - offset) \(zone)"])
            let closing = try TCPCaptureTests.StreamServer(sending: [])
            try phone.answerForward(with: closing.port)
            try FileManager.default.copyItem(atPath: report, toPath: "\(phone.folder)/bugreport.zip")
            let output = temporaryPath("pulled.btsnoop")
            let result = try btlog(phone, ["-q", "--duration", "0.5", "-w", output])
            XCTAssertEqual(result.status, 0, result.err)
            XCTAssertTrue(result.err.contains("btlog: R5CT1234 (SM-A525F, Android 14) serves no snoop stream (development builds of recent Android do, on port 8872): it keeps its log, and when you stop (Ctrl-C, or --duration) btlog pulls it with adb bugreport"), result.err)
            XCTAssertTrue(result.err.contains("btlog: pulling the phone's log: adb -s R5CT1234 bugreport "), result.err)
            XCTAssertTrue(result.err.contains("[  5%] generating bugreport"), "adb's progress is shown")
            let calls = phone.calls
            XCTAssertEqual(Array(calls.prefix(5)), ["devices -l", "-s R5CT1234 shell getprop; date +'[btlog.clock]: [%s %z]'",
                                                    "-s R5CT1234 forward tcp:0 tcp:8872", "-s R5CT1234 forward --remove tcp:\(closing.port)",
                                                    "-s R5CT1234 shell date +'[btlog.clock]: [%s %z]'"])
            let pulled = try XCTUnwrap(calls.last.flatMap { $0.hasPrefix("-s R5CT1234 bugreport ") ? String($0.dropFirst("-s R5CT1234 bugreport ".count)) : nil }, "\(calls)")
            XCTAssertEqual((pulled as NSString).deletingLastPathComponent, (output as NSString).deletingLastPathComponent, "kept beside the -w file")
            XCTAssertTrue(FileManager.default.fileExists(atPath: pulled))
            XCTAssertTrue(result.err.contains("\(expected.count) frames captured (hci0 \(expected.count))"), result.err)
            XCTAssertTrue(result.err.contains("stopped after 0.5 s · the phone's whole log is in \(pulled) (\(frames.count - expected.count) earlier frames of it left out)"), result.err)
            let captured = try readFrames(output)
            XCTAssertEqual(captured.count, expected.count, zone)
            for (a, b) in zip(captured, expected) where a.timestamp != b.timestamp || a.bytes != b.bytes || a.direction != b.direction {
                XCTFail("\(zone): #\(a.number) differs from the log's")
                break
            }
        }
    }

    /// A second Ctrl-C while the bugreport is made abandons it: btlog ends at once and says how
    /// to pull the log by hand.
    func testASecondInterruptAbandonsThePull() throws {
        let phone = try FakePhone(clock: ["1557356600 +0000", "1557356700 +0000"])
        let closing = try TCPCaptureTests.StreamServer(sending: [])
        try phone.answerForward(with: closing.port)
        FileManager.default.createFile(atPath: "\(phone.folder)/slow", contents: Data())
        let errors = temporaryPath("stderr.txt")
        FileManager.default.createFile(atPath: errors, contents: Data())
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Tool.btlog)
        process.arguments = ["capture", "--android", "-q"]
        process.environment = phone.environment
        process.currentDirectoryURL = URL(fileURLWithPath: phone.folder)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(fileDescriptor: open(errors, O_WRONLY | O_APPEND), closeOnDealloc: true)
        try process.run()
        let said = { (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "" }
        XCTAssertTrue(waitUntil(seconds: 20) { said().contains("Ctrl-C stops") }, said())
        kill(process.processIdentifier, SIGINT)
        XCTAssertTrue(waitUntil(seconds: 20) { said().contains("generating bugreport") }, said())
        let interrupted = Date()
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        XCTAssertLessThan(Date().timeIntervalSince(interrupted), 10, "the pull ends at once, not when adb would")
        XCTAssertEqual(process.terminationStatus, 1)
        XCTAssertTrue(said().contains("0 frames captured"), said())
        XCTAssertTrue(said().contains("btlog: the bugreport was interrupted, so nothing was pulled from the phone (adb bugreport "), said())
    }

    /// Debian's adb itself, with no phone (the reference tier installs it): btlog runs it,
    /// starting its server when none runs, and says what it found. A serial no phone has keeps
    /// the answer the same on a machine with a phone plugged in.
    func testDebiansAdbWithNoSuchPhone() throws {
        guard let adb = Reference.consumer("adb") else { throw Reference.skip("adb") }
        let folder = (adb as NSString).deletingLastPathComponent
        defer { _ = try? Tool.run(adb, ["kill-server"]) }
        let started = Date()
        let result = try Tool.run(Tool.btlog, ["capture", "--android", "--serial", "btlog-test-no-such-phone"],
                                  environment: ["PATH": "\(folder):/usr/bin:/bin"])
        XCTAssertEqual(result.status, 1, result.err)
        XCTAssertTrue(result.err.hasPrefix("btlog: no Android device btlog-test-no-such-phone: adb lists "), result.err)
        XCTAssertLessThan(Date().timeIntervalSince(started), 25, "adb's server, left running, does not hold btlog")
    }
}
