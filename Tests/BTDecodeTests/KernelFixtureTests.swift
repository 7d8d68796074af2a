import XCTest
import BTCapture
@testable import BTDecode

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
        XCTAssertGreaterThan(d.count { $0.layers.contains { $0.fieldCopies.contains { $0.definition.name == "l2cap.psm" && $0.value.text.hasPrefix("0x0003") } } }, 100,
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

    // MARK: Links that end without their disconnection: cuts from a real run

    /// kernel-l2cap.btsnoop's frames by packet number.
    func l2capFrames() throws -> [Int: Frame] {
        let reader = try CaptureInput.open(Self.fixtures.appendingPathComponent("kernel-l2cap.btsnoop").path)
        var frames: [Int: Frame] = [:]
        while let frame = try reader.next() { frames[frame.number] = frame }
        return frames
    }

    static let link = Session.LinkKey(controller: 0, handle: 0x002A)

    /// "L2CAP BR/EDR Client SSP - Success 2" (packets 1-664): handle 0x002A up, a channel to PSM
    /// 0x1001 (local and remote CID 0x0040) configured; its Disconnection Request (665) is never
    /// answered before the tester removes hci0. Here the next case's Reset (686, 688) follows
    /// it instead: the reset controller has no links, so the Disconnection Request replayed after
    /// it names no channel, and the Reset says which links ended.
    func testAResetEndsEveryLinkOfItsController() throws {
        let frames = try l2capFrames()
        let decoder = Decoder()
        for number in 1 ... 664 { _ = decoder.decode(frames[number]!) }
        XCTAssertNotNil(decoder.session.connections[Self.link])
        XCTAssertEqual(decoder.session.l2cap.channels[Self.link]?.map(\.psm), [0x1001])
        XCTAssertEqual(decoder.decode(frames[686]!).summary, "Reset")
        let complete = decoder.decode(frames[688]!)
        XCTAssertTrue(complete.issues.contains { $0.message == "Reset: the link of hci0 ends here (0x002A)" }, "\(complete.issues)")
        XCTAssertNil(decoder.session.connections[Self.link])
        XCTAssertNil(decoder.session.l2cap.channels[Self.link])
        let replayed = decoder.decode(frames[665]!)
        XCTAssertTrue(replayed.summary.hasPrefix("Disconnection Request - Destination CID: 0x0040"), replayed.summary)
        XCTAssertFalse(replayed.summary.contains("PSM 0x1001"), replayed.summary)
    }

    /// The same case as the tester ends it: Close Index (669) with the link still up ends it there,
    /// and Delete Index (671) finds nothing left to end.
    func testClosingAnIndexEndsItsLinks() throws {
        let frames = try l2capFrames()
        let decoder = Decoder()
        var packets: [Int: Packet] = [:]
        for number in 1 ... 671 { packets[number] = decoder.decode(frames[number]!) }
        XCTAssertTrue(packets[669]!.issues.contains { $0.message == "Close Index: the link of hci0 ends here (0x002A)" })
        XCTAssertFalse(packets[671]!.issues.contains { $0.message.contains("ends here") })
        XCTAssertNil(decoder.session.l2cap.channels[Self.link])
        // Every test case before it ended the same way: one note per Close Index with a link up.
        let closings = packets.values.filter { $0.frame.kind == .closeIndex && $0.issues.contains { $0.message.hasSuffix("ends here (0x002A)") } }
        XCTAssertEqual(closings.count, 3)
    }

    /// The client case's channel (packets 591-664: local 0x0040, remote 0x0040) left recorded,
    /// then "L2CAP BR/EDR Server - Success" connects on the same link without a new Connection
    /// Complete (its packets 1730-1756: the peer's CID 0x0041 to local 0x0040). The new channel
    /// replaces the old one whole: one channel, the peer's new CID, only the new configuration.
    func testAChannelConnectedOnARecordedCIDStartsAfresh() throws {
        let frames = try l2capFrames()
        let decoder = Decoder()
        for number in 1 ... 664 { _ = decoder.decode(frames[number]!) }
        let old = try XCTUnwrap(decoder.session.l2cap.channels[Self.link]?.first)
        XCTAssertEqual([old.localCID, old.remoteCID], [0x0040, 0x0040])
        let server = (1730 ... 1756).compactMap { frames[$0] }.filter { $0.kind == .aclData }
        for frame in server { _ = decoder.decode(frame) }
        let channels = try XCTUnwrap(decoder.session.l2cap.channels[Self.link])
        XCTAssertEqual(channels.map { [$0.localCID, $0.remoteCID] }, [[0x0040, 0x0041]])
        XCTAssertEqual(decoder.session.l2cap.channel(Self.link, cid: 0x0040, sent: true), nil, "the old remote CID names no channel")
        // What the same packets make on a link with nothing recorded.
        let fresh = Decoder()
        for number in 1700 ... 1729 { _ = fresh.decode(frames[number]!) }
        for frame in server { _ = fresh.decode(frame) }
        XCTAssertEqual(channels, fresh.session.l2cap.channels[Self.link])
    }

    /// The same, with only the remote CID recorded: the server case first (local 0x0040,
    /// remote 0x0041), then its Connection Response (1749) with the local CID changed to
    /// 0x0042 (the one byte edited): the channel still recorded with remote CID 0x0041 goes,
    /// so PDUs sent to 0x0041 reach the new channel, not the old one's mode and configuration.
    func testAChannelReusingOnlyTheRemoteCIDReplacesTheOldOne() throws {
        let frames = try l2capFrames()
        let decoder = Decoder()
        for number in 1700 ... 1756 { _ = decoder.decode(frames[number]!) }
        XCTAssertEqual(decoder.session.l2cap.channels[Self.link]?.map { [$0.localCID, $0.remoteCID] }, [[0x0040, 0x0041]])
        _ = decoder.decode(frames[1730]!) // the peer's Connection Request again (CID 0x0041)
        var response = Array(frames[1749]!.bytes)
        let at = try XCTUnwrap(response.indices.dropLast(3).first { response[$0] == 0x03 && response[$0 + 4] == 0x40 && response[$0 + 5] == 0x00 && response[$0 + 6] == 0x41 })
        response[at + 4] = 0x42 // the Destination CID: the local end
        let edited = frames[1749]!
        _ = decoder.decode(Frame(number: 1749, timestamp: edited.timestamp, kind: edited.kind, direction: edited.direction, bytes: response[...]))
        XCTAssertEqual(decoder.session.l2cap.channels[Self.link]?.map { [$0.localCID, $0.remoteCID] }, [[0x0042, 0x0041]])
        XCTAssertEqual(decoder.session.l2cap.channel(Self.link, cid: 0x0041, sent: true)?.localCID, 0x0042)
        XCTAssertEqual(decoder.session.l2cap.channel(Self.link, cid: 0x0041, sent: true)?.configured, [:])
    }

}
