import XCTest
import Glibc
@testable import BTCapture

/// What btlog reads from adb, as adb prints it (Debian's adb 29 and the platform tools' newer
/// ones), and the programs it runs.
final class AndroidBridgeTests: XCTestCase {
    func testDevicesAsAdbListsThem() {
        let listed = AndroidDebugBridge.parseDevices("""
        * daemon not running; starting now at tcp:5037
        * daemon started successfully
        List of devices attached
        21111FCN20000W         device usb:1-1 product:panther model:Pixel_7 device:panther transport_id:2
        R5CT1234	unauthorized usb:1-2 transport_id:3
        emulator-5554          offline transport_id:1
        0123456789ABCDEF       no permissions (user in plugdev group; are your udev rules wrong?); see [http://developer.android.com/tools/device.html] usb:1-3 transport_id:4
        192.168.1.20:5555      device product:a52qnsxx model:SM_A525F device:a52q transport_id:5

        """)
        XCTAssertEqual(listed, [
            AndroidDevice(serial: "21111FCN20000W", state: "device", model: "Pixel_7"),
            AndroidDevice(serial: "R5CT1234", state: "unauthorized", model: nil),
            AndroidDevice(serial: "emulator-5554", state: "offline", model: nil),
            AndroidDevice(serial: "0123456789ABCDEF", state: "no permissions", model: nil),
            AndroidDevice(serial: "192.168.1.20:5555", state: "device", model: "SM_A525F"),
        ])
        XCTAssertEqual(listed[0].label, "21111FCN20000W (Pixel 7)")
        XCTAssertEqual(AndroidDebugBridge.parseDevices("List of devices attached\n\n"), [])
        // One usable phone among unusable ones is the one chosen.
        XCTAssertEqual(try AndroidDebugBridge.choose(listed.filter { $0.state != "device" || $0.model == "Pixel_7" }, requested: nil).serial, "21111FCN20000W")
        XCTAssertThrowsError(try AndroidDebugBridge.choose(listed, requested: nil)) { error in
            XCTAssertTrue((error as! CaptureError).message.hasPrefix("several Android devices: choose one with --serial SERIAL"))
        }
        XCTAssertEqual(try AndroidDebugBridge.choose(listed, requested: "192.168.1.20:5555").model, "SM_A525F")
    }

    func testThePhonesSettingsAndClock() {
        func settings(_ properties: [String: String], clock: String = "1764700000 +0530") -> AndroidSettings {
            AndroidSettings(getprop: properties.map { "[\($0.key)]: [\($0.value)]" }.joined(separator: "\n") + "\n[btlog.clock]: [\(clock)]\n")
        }
        XCTAssertEqual(settings([:]).clock?.seconds, 1_764_700_000)
        XCTAssertEqual(settings([:]).clock?.utcOffset, 19_800)
        XCTAssertEqual(settings([:], clock: "1764700000 -0800").clock?.utcOffset, -28_800)
        XCTAssertNil(settings([:], clock: "Tue Dec  2 19:00:00 UTC 2026").clock)
        // The mode as the stack reads it.
        XCTAssertEqual(settings(["ro.build.type": "user"]).snoopMode, .disabled)
        XCTAssertEqual(settings(["ro.build.type": "user", "persist.bluetooth.btsnooplogmode": "full"]).snoopMode, .full)
        XCTAssertEqual(settings(["ro.build.type": "userdebug"]).snoopMode, .filtered)
        XCTAssertEqual(settings(["ro.build.type": "userdebug", "persist.bluetooth.btsnoopdefaultmode": "full"]).snoopMode, .full)
        XCTAssertEqual(settings(["ro.build.type": "user", "persist.bluetooth.btsnoopenable": "true"]).snoopMode, .full)
        XCTAssertEqual(settings(["persist.bluetooth.btsnooplogmode": "verbose"]).snoopMode, .disabled, "the stack takes an unknown mode as disabled")
        XCTAssertEqual(settings(["persist.bluetooth.btsnooplogmode": "kernel"]).snoopMode, .kernel)
        // A value with brackets and colons is the value.
        XCTAssertEqual(AndroidSettings(getprop: "[ro.product.model]: [Pixel [7]: Pro]\n").model, "Pixel [7]: Pro")
        XCTAssertEqual(settings(["persist.bluetooth.snooplogfilter.profiles.a2dp.enabled": "true",
                                 "persist.bluetooth.snooplogfilter.profiles.map": "fullfilter"]).filteredOut,
                       ["A2DP audio packets", "MAP message data (whole packets)"])
    }

    /// Which clock a pulled log keeps: UTC (recent stacks) unless its last record lies in the
    /// phone's future by UTC but not by local time.
    func testTheLogsClockIsUTCUnlessItsRecordsLieInTheFuture() {
        let stop: Int64 = 1_764_700_000
        XCTAssertEqual(AndroidLogPull.logClockShift(lastRecord: (stop - 30) * 1_000_000, stop: stop, utcOffset: 3_600), 0)
        XCTAssertEqual(AndroidLogPull.logClockShift(lastRecord: (stop + 3_600 - 30) * 1_000_000, stop: stop, utcOffset: 3_600), 3_600_000_000)
        // A log far in the future by either reading (a wrong phone clock) is left as it is.
        XCTAssertEqual(AndroidLogPull.logClockShift(lastRecord: (stop + 86_400) * 1_000_000, stop: stop, utcOffset: 3_600), 0)
        // West of Greenwich a local-time log looks like an older UTC log: read as UTC.
        XCTAssertEqual(AndroidLogPull.logClockShift(lastRecord: (stop - 28_800) * 1_000_000, stop: stop, utcOffset: -28_800), 0)
        // Hostile numbers do not trap.
        XCTAssertEqual(AndroidLogPull.logClockShift(lastRecord: .max, stop: .max, utcOffset: .max), 0)
        _ = AndroidLogPull.logClockShift(lastRecord: .min, stop: .min, utcOffset: .min)
    }

    func testProgramsRunToTheirEndOrAreEnded() throws {
        let result = try Subprocess.run(["sh", "-c", "echo out; echo err >&2; exit 3"], timeout: 10)
        XCTAssertEqual(result.status, 3)
        XCTAssertEqual(result.output, "out\n")
        XCTAssertEqual(result.errors, "err\n")
        XCTAssertEqual(try Subprocess.run(["sh", "-c", "kill -TERM $$"], timeout: 10).status, 128 + SIGTERM)
        XCTAssertThrowsError(try Subprocess.run(["btlog-no-such-program"], timeout: 10)) { error in
            XCTAssertEqual(error as? Subprocess.Failure, .notFound("btlog-no-such-program"))
        }
        var started = monotonicNow()
        XCTAssertThrowsError(try Subprocess.run(["sleep", "20"], timeout: 0.3)) { error in
            XCTAssertEqual(error as? Subprocess.Failure, .timedOut(0.3))
        }
        XCTAssertLessThan(monotonicNow() - started, 5)
        // A program that leaves a process behind holding its output (adb starting its server)
        // has ended when it ends.
        started = monotonicNow()
        XCTAssertEqual(try Subprocess.run(["sh", "-c", "sleep 20 & echo started"], timeout: 10).output, "started\n")
        XCTAssertLessThan(monotonicNow() - started, 5)
        // The wake pipe ends a program btlog waits for, and the program's process group with it.
        let wake = try WakePipe()
        started = monotonicNow()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { wake.wake(2) }
        XCTAssertThrowsError(try Subprocess.run(["sh", "-c", "sleep 20; echo late"], timeout: nil, wake: wake)) { error in
            XCTAssertEqual(error as? Subprocess.Failure, .stopped)
        }
        XCTAssertLessThan(monotonicNow() - started, 5)
    }
}

/// The framing of an iPhone's packet logger service, as libimobiledevice's reader takes it.
final class IOSRecordFramingTests: XCTestCase {
    /// Two PacketLogger records (big-endian: length less 4, seconds, microseconds, type, data).
    static let records: [[UInt8]] = [
        [0, 0, 0, 13, 0x5C, 0xD3, 0x60, 0x7C, 0, 0, 1, 0xF4, 0x00, 0x03, 0x0C, 0x00, 0xAA],
        [0, 0, 0, 14, 0x5C, 0xD3, 0x60, 0x7C, 0, 0, 1, 0xF5, 0x01, 0x0E, 0x04, 0x01, 0x03, 0x0C],
    ]

    func testRecordsComeOutWholeHoweverTheReadsSplitThem() throws {
        var served: [UInt8] = []
        for record in Self.records { served += [UInt8(record.count), 0] + record }
        for step in 1 ... served.count {
            var framing = RecordFraming()
            var out: [UInt8] = []
            for start in stride(from: 0, to: served.count, by: step) {
                out += try XCTUnwrap(framing.feed(served[start ..< min(start + step, served.count)]))
            }
            XCTAssertEqual(out, Self.records.flatMap { $0 }, "reads of \(step)")
        }
        // A little-endian record comes out big-endian; bytes that are no record end the stream.
        var little = Self.records[0]
        for field in stride(from: 0, to: 12, by: 4) { little[field ..< field + 4].reverse() }
        var framing = RecordFraming()
        XCTAssertEqual(framing.feed(ArraySlice([UInt8(little.count), 0] + little)), Self.records[0])
        var garbage = RecordFraming()
        XCTAssertNil(garbage.feed(ArraySlice(Array("HTTP/1.1 200 OK\r\n".utf8))))
    }
}
