import XCTest
import Foundation
import Glibc
import BTCapture
import BTFixtures

/// `btlog capture --ios` against a stand-in libimobiledevice (Tests/Stubs/fake-imobiledevice.c,
/// built here with the C compiler and found through LD_LIBRARY_PATH): the calls btlog makes
/// and its messages, with no device. Debian's own libimobiledevice, with no usbmuxd running,
/// is tried too. What a device does differently is said in the note.
final class IOSCaptureTests: XCTestCase {
    /// The stand-in library, built once.
    static let library: String? = {
        guard let compiler = Tool.find("clang") ?? Tool.find("cc") else { return nil }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("btlog-imd-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let source = Tool.root.appendingPathComponent("Tests/Stubs/fake-imobiledevice.c").path
        guard let built = try? Tool.run(compiler, ["-shared", "-fPIC", "-o", "\(folder)/libimobiledevice-1.0.so.6", source]),
              built.status == 0 else { return nil }
        return folder
    }()

    func btlog(_ arguments: [String], _ environment: [String: String]) throws -> Tool.Result {
        guard let library = Self.library else { throw XCTSkip("no C compiler to build the stand-in libimobiledevice") }
        var all = environment
        all["LD_LIBRARY_PATH"] = library
        return try Tool.run(Tool.btlog, ["capture", "--ios"] + arguments, environment: all)
    }

    func testWhatAPersonIsToldWhenNoDeviceCanBeCaptured() throws {
        let cases: [([String: String], [String], String)] = [
            ([:], [], "btlog: cannot reach usbmuxd, which connects to iPhones and iPads (Debian: apt-get install usbmuxd"),
            (["FAKE_IMD_DEVICES": ""], [], "btlog: no iPhone or iPad: connect it by USB, unlock it, and tap Trust on \"Trust This Computer?\""),
            (["FAKE_IMD_DEVICES": "00008110-000A1B2C3D4E,00008030-0011223344"], [], "btlog: several iPhones or iPads: choose one with --udid UDID: 00008110-000A1B2C3D4E, 00008030-0011223344"),
            (["FAKE_IMD_DEVICES": "00008110-000A1B2C3D4E"], ["--udid", "0000"], "btlog: no iPhone or iPad 0000: usbmuxd lists 00008110-000A1B2C3D4E"),
            (["FAKE_IMD_DEVICES": "00008110-000A1B2C3D4E", "FAKE_IMD_LOCKDOWN": "-17"], [], "btlog: 00008110-000A1B2C3D4E is locked: unlock it"),
            (["FAKE_IMD_DEVICES": "00008110-000A1B2C3D4E", "FAKE_IMD_LOCKDOWN": "-19"], [], "btlog: 00008110-000A1B2C3D4E asks \"Trust This Computer?\": tap Trust on the device"),
            (["FAKE_IMD_DEVICES": "00008110-000A1B2C3D4E", "FAKE_IMD_LOCKDOWN": "-21"], [], "btlog: 00008110-000A1B2C3D4E is not paired with this computer (or no longer)"),
            (["FAKE_IMD_DEVICES": "00008110-000A1B2C3D4E", "FAKE_IMD_SERVICE": "-27"], [],
             "btlog: 00008110-000A1B2C3D4E offers no Bluetooth packet logger: install Apple's Bluetooth logging profile on it"),
        ]
        for (environment, arguments, said) in cases {
            let result = try btlog(["-q"] + arguments, environment)
            XCTAssertEqual(result.status, 1, said)
            XCTAssertTrue(result.err.hasPrefix(said), "\(said)\n\(result.err)")
        }
        XCTAssertTrue(try Tool.run(Tool.btlog, ["capture", "--udid", "X"]).err.contains("--udid chooses the device for --ios; give --ios"))
        // Without the library at all.
        let bare = try Tool.run(Tool.btlog, ["capture", "--ios"], environment: ["LD_LIBRARY_PATH": "/nonexistent"])
        if !["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib"].contains(where: { FileManager.default.fileExists(atPath: "\($0)/libimobiledevice-1.0.so.6") }) {
            XCTAssertTrue(bare.err.hasPrefix("btlog: --ios needs libimobiledevice, which is not installed (Debian: apt-get install libimobiledevice6 usbmuxd)"), bare.err)
        } else {
            // Debian's library, with no usbmuxd running (as on a build machine), or no device.
            XCTAssertEqual(bare.status, 1, bare.err)
            XCTAssertTrue(bare.err.hasPrefix("btlog: cannot reach usbmuxd") || bare.err.hasPrefix("btlog: no iPhone or iPad"), bare.err)
        }
    }

    /// The device's packet logger, as the service sends it (each PacketLogger record after a
    /// 2-byte little-endian length, in reads of a few bytes): every record reaches the -w file,
    /// the device going ends the capture, and the library's objects are freed.
    func testADevicesPacketLoggerIsCapturedRecordForRecord() throws {
        let log = Tool.root.appendingPathComponent("Fixtures/third-party/happyleaf/btsnoop_hci.log").path
        let frames = Array(try readFrames(log).prefix(3_000))
        let pklg = FixtureFiles.bigEndianPacketLogger(frames)
        // The service's framing around each record.
        var served: [UInt8] = []
        var offset = 0
        while offset + 4 <= pklg.count {
            let length = 4 + (Int(pklg[offset]) << 24 | Int(pklg[offset + 1]) << 16 | Int(pklg[offset + 2]) << 8 | Int(pklg[offset + 3]))
            served += [UInt8(length & 0xFF), UInt8(length >> 8)] + pklg[offset ..< offset + length]
            offset += length
        }
        XCTAssertEqual(offset, pklg.count)
        let stream = temporaryPath("service.bin"), calls = temporaryPath("calls.txt"), output = temporaryPath("iphone.pklg")
        try Data(served).write(to: URL(fileURLWithPath: stream))
        let result = try btlog(["-q", "-w", output], ["FAKE_IMD_DEVICES": "00008110-000A1B2C3D4E", "FAKE_IMD_FILE": stream,
                                                     "FAKE_IMD_CHUNK": "61", "FAKE_IMD_LOG": calls])
        XCTAssertEqual(result.status, 0, result.err)
        XCTAssertTrue(result.err.contains("btlog: capturing from Anna's iPhone (00008110-000A1B2C3D4E), its Bluetooth packet logger"), result.err)
        XCTAssertTrue(result.err.contains("\(frames.count) frames captured"), result.err)
        XCTAssertTrue(result.err.contains("the device went away (unplugged?) or ended its packet logger"), result.err)
        let original = try CaptureInput.open(bytes: pklg, name: "served.pklg")
        var expected: [Frame] = []
        while let frame = try original.next() { expected.append(frame) }
        let captured = try readFrames(output)
        XCTAssertEqual(captured.count, expected.count)
        for (a, b) in zip(captured, expected) where a.timestamp != b.timestamp || a.bytes != b.bytes || a.kind != b.kind || a.direction != b.direction {
            XCTFail("#\(b.number) differs")
            break
        }
        let called = (try String(contentsOfFile: calls, encoding: .utf8)).split(separator: "\n").map(String.init)
        XCTAssertEqual(called, ["new 00008110-000A1B2C3D4E", "handshake btlog", "start com.apple.bluetooth.BTPacketLogger",
                                "service-free ", "free 00008110-000A1B2C3D4E"])
    }
}
