import XCTest
import BTCapture
import BTDecode

/// The captures of real kernel traffic (Fixtures/kernel-*.btsnoop, made by the qemu harness):
/// what the Linux stack and BlueZ's emulator really send must decode without a malformed
/// packet, except the ones the testers send malformed on purpose.
final class KernelFixtureTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    struct Decoded {
        var packets: [Packet] = []
        var summaries: [String] { packets.map(\.summary) }
        func count(where predicate: (Packet) -> Bool) -> Int { packets.filter(predicate).count }
        func has(_ text: String) -> Bool { packets.contains { $0.summary.contains(text) } }
        var malformed: [Packet] {
            packets.filter { packet in packet.issues.contains { $0.severity == .error && $0.message.hasPrefix("Truncated") } }
        }
    }

    func decode(_ name: String) throws -> Decoded {
        let reader = try CaptureInput.open(Self.fixtures.appendingPathComponent(name).path)
        XCTAssertEqual(reader.nativeFormat, .btsnoopMonitor)
        let decoder = Decoder()
        var decoded = Decoded()
        while let frame = try reader.next() { decoded.packets.append(decoder.decode(frame)) }
        XCTAssertTrue(reader.warnings.isEmpty, "\(name): \(reader.warnings)")
        return decoded
    }

    func testL2CAP() throws {
        let d = try decode("kernel-l2cap.btsnoop")
        XCTAssertGreaterThan(d.packets.count, 3000)
        XCTAssertTrue(d.has("Connection refused - PSM not supported"))
        XCTAssertTrue(d.has("LE Credit Based Connection Request"))
        XCTAssertTrue(d.has("Configuration Request"))
        // "L2CAP BR/EDR Client - Command Reject" sends a Connection Request one byte long.
        XCTAssertEqual(d.malformed.count, 1)
        XCTAssertEqual(d.malformed.first?.frame.kind, .aclData)
        XCTAssertTrue(d.malformed.first?.layers.contains { $0.name == "L2CAP" } ?? false)
        // Many controllers come and go (one hci0 per test case); the monitor frames name them.
        XCTAssertGreaterThan(d.count { $0.frame.kind == .newIndex }, 30)
        XCTAssertTrue(d.has("MGMT Open: l2cap-tester (privileged)"))
    }

    func testSMP() throws {
        let d = try decode("kernel-smp.btsnoop")
        XCTAssertTrue(d.has("Pairing Request"))
        XCTAssertTrue(d.has("Pairing Public Key") || d.has("Public Key"), "Secure Connections pairing")
        XCTAssertTrue(d.has("Pairing Failed - Reason: Confirm Value Failed"))
        XCTAssertTrue(d.has("Pairing Random"))
        // "SMP Server - Invalid Request 1" sends a Pairing Request of one byte.
        XCTAssertEqual(d.malformed.count, 1)
        XCTAssertEqual(d.malformed.first?.summary, "Pairing Request")
    }

    func testRFCOMM() throws {
        // sco-tester's cases run against an emulator without eSCO links: the file holds the
        // socket-level tests only, so no SCO data is asserted here.
        let d = try decode("kernel-rfcomm-sco.btsnoop")
        XCTAssertTrue(d.malformed.isEmpty, d.malformed.map(\.summary).joined(separator: "\n"))
        XCTAssertGreaterThan(d.count { $0.layers.contains { $0.fields.contains { $0.definition.name == "l2cap.psm" && $0.value.text.hasPrefix("0x0003") } } }, 100,
                             "RFCOMM channels are named by their PSM")
        XCTAssertTrue(d.has("Configuration Request"))
    }

    func testISO() throws {
        let d = try decode("kernel-iso.btsnoop")
        XCTAssertTrue(d.malformed.isEmpty, d.malformed.map(\.summary).joined(separator: "\n"))
        XCTAssertTrue(d.has("CIS Established"))
        XCTAssertTrue(d.has("Create BIG Complete"))
        XCTAssertGreaterThan(d.count { $0.frame.kind == .isoData }, 0)
        XCTAssertTrue(d.has("Read Local Supported Codecs V2"))
    }

    /// `capture --list` reads the controllers from the monitor's index frames through the decoder.
    func testControllerListFollowsIndexFrames() {
        let decoder = Decoder()
        _ = decoder.decode(Frame(timestamp: 0, kind: .newIndex, direction: .none, controller: 2,
                                 bytes: [0, 1, 0x55, 0x44, 0x33, 0x22, 0x11, 0x00] + Array("hci2".utf8) + [0, 0, 0, 0]))
        _ = decoder.decode(Frame(timestamp: 0, kind: .indexInfo, direction: .none, controller: 2,
                                 bytes: [0x55, 0x44, 0x33, 0x22, 0x11, 0x00, 0x02, 0x00]))
        _ = decoder.decode(Frame(timestamp: 0, kind: .openIndex, direction: .none, controller: 2, bytes: []))
        let list = decoder.session.controllers
        XCTAssertEqual(list[2]?.name, "hci2")
        XCTAssertEqual(list[2]?.address?.description, "00:11:22:33:44:55")
        XCTAssertEqual(list[2]?.bus, 1)
        XCTAssertEqual(list[2]?.manufacturer, 2)
        XCTAssertEqual(list[2]?.isUp, true)
        _ = decoder.decode(Frame(timestamp: 0, kind: .deleteIndex, direction: .none, controller: 2, bytes: []))
        XCTAssertNil(decoder.session.controllers[2])
    }

    func testKernelFixturesListTheirControllers() throws {
        // Every test case of the testers adds and removes hci0: at the end none is left.
        let decoder = Decoder()
        let reader = try CaptureInput.open(Self.fixtures.appendingPathComponent("kernel-smp.btsnoop").path)
        var sawController = false
        while let frame = try reader.next() {
            _ = decoder.decode(frame)
            if let info = decoder.session.controllers[0], info.isUp, info.manufacturer == 1521 { sawController = true }
        }
        XCTAssertTrue(sawController, "hci0 came up with the emulator's manufacturer (The Linux Foundation)")
        XCTAssertTrue(decoder.session.controllers.isEmpty)
    }
}
