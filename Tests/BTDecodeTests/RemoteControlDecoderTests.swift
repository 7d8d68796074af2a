import XCTest
import BTCapture
import BTDecode
import BTFixtures

/// AVCTP and AVRCP on bytes laid out from AVCTP 1.4 (6.1) and AVRCP 1.6 (4, 6, 25), including
/// the parts of a response the target sends one at a time and the browsing channel.
final class RemoteControlDecoderTests: ClassicLinkTestCase {
    /// Control channel: the host's CID 0x0040, the phone's 0x0041.
    func control(_ message: [UInt8], sent: Bool) -> Packet { l2cap(sent ? 0x0041 : 0x0040, message, sent: sent) }

    /// An AVCTP single packet for A/V Remote Control: label 3, command or response.
    static func avctp(_ avc: [UInt8], response: Bool) -> [UInt8] { [0x30 | (response ? 0x02 : 0x00), 0x11, 0x0E] + avc }

    /// A vendor-dependent AV/C frame for a Bluetooth SIG AVRCP PDU.
    static func vendor(_ ctype: UInt8, _ pdu: UInt8, _ parameters: [UInt8], packetType: UInt8 = 0) -> [UInt8] {
        [ctype, 0x48, 0x00, 0x00, 0x19, 0x58, pdu, packetType, UInt8(parameters.count >> 8), UInt8(parameters.count & 0xFF)] + parameters
    }

    /// L2CAP configuration: the mode in force is the one a response accepted. A real headset
    /// refused a phone's ERTM request on AVCTP (counter-proposing Basic); the channel then ran
    /// in Basic mode, and reading a 2-byte ERTM control field from its frames lost every command.
    func testARefusedERTMRequestLeavesTheChannelInBasicMode() throws {
        let frames = Scenarios.refusedERTMSession()
        let decoder = Decoder()
        let packets = frames.map { decoder.decode($0) }
        let refusal = try XCTUnwrap(packets.first { values($0, L2CAPFields.result) == ["0x0001"] })
        XCTAssertTrue(refusal.issues.contains { $0.message.contains("Configuration refused (MTU: 895 - Mode: Enhanced Retransmission - No FCS); counter-proposal: Mode: Basic: the channel stays in Basic mode") },
                      refusal.issues.map(\.message).joined(separator: "; "))
        let avrcp = packets.filter { $0.typeName == "AVRCP" }
        XCTAssertEqual(avrcp.count, 11, packets.map(\.summary).joined(separator: "\n"))
        XCTAssertFalse(packets.contains { $0.typeName == "AVCTP" }, "every AVCTP frame carries AVRCP")
        XCTAssertTrue(avrcp.contains { $0.summary.hasPrefix("Register Notification") })
        XCTAssertTrue(avrcp.allSatisfy { $0.worstSeverity != .error }, avrcp.map(\.summary).joined(separator: "\n"))
        // Before the disconnection the channel is in Basic mode: the refused request was never in force.
        let before = Decoder()
        for frame in frames.dropLast(3) { _ = before.decode(frame) }
        let channel = before.session.l2cap.channels[Session.LinkKey(controller: 0, handle: 0x0042)]?.first { $0.psm == 0x0017 }
        XCTAssertEqual(channel?.mode, .basic)
        XCTAssertEqual(channel?.configured[true]?.mtu, 895, "the phone's accepted request")
        XCTAssertEqual(channel?.configured[false]?.mtu, 672, "the headset's")
    }

    func testPassThroughAndItsHeaders() {
        open(psm: 0x0017)
        // PLAY pressed on the panel subunit (0x48: type 9, ID 0), no operation data.
        let play = control(Self.avctp([0x00, 0x48, 0x7C, 0x44, 0x00], response: false), sent: true)
        XCTAssertEqual(play.typeLabel, "AVRCP Send")
        XCTAssertEqual(play.summary, "Pass Through: Control - Play Pressed")
        XCTAssertEqual(values(play, AVCTPFields.transaction), ["3"])
        XCTAssertEqual(values(play, AVCTPFields.cr), ["0"])
        XCTAssertEqual(values(play, AVCTPFields.pid), ["0x110E"])
        XCTAssertEqual(values(play, AVRCPFields.subunitType), ["0x09"])
        XCTAssertEqual(values(play, AVRCPFields.operation), ["0x44"])
        XCTAssertEqual(values(play, AVRCPFields.released), ["0"])
        XCTAssertNil(play.worstSeverity)
        // Released, NOT IMPLEMENTED: a warning.
        let refused = control(Self.avctp([0x08, 0x48, 0x7C, 0xC4, 0x00], response: true), sent: false)
        XCTAssertEqual(refused.summary, "Pass Through: Not Implemented - Play Released")
        XCTAssertEqual(values(refused, AVRCPFields.released), ["1"])
        XCTAssertEqual(refused.worstSeverity, .warning)
        // Vendor unique, Bluetooth SIG's Previous Group (AVRCP 1.6, 4.6.1).
        let group = control(Self.avctp([0x00, 0x48, 0x7C, 0x7E, 0x05, 0x00, 0x19, 0x58, 0x00, 0x01], response: false), sent: true)
        XCTAssertEqual(group.summary, "Pass Through: Control - Previous Group Pressed")
        XCTAssertEqual(values(group, AVRCPFields.vendorUnique), ["0x0001"])
    }

    func testNotificationsVolumeAndPlayStatus() {
        open(psm: 0x0017)
        let register = control(Self.avctp(Self.vendor(0x03, 0x31, [0x0D, 0x00, 0x00, 0x00, 0x00]), response: false), sent: true)
        XCTAssertEqual(register.summary, "Register Notification: Notify - Volume Changed")
        XCTAssertEqual(values(register, AVRCPFields.event), ["0x0D"])
        XCTAssertEqual(values(register, AVRCPFields.length), ["5"])
        // INTERIM with volume 0x40 of 0x7F.
        let interim = control(Self.avctp(Self.vendor(0x0F, 0x31, [0x0D, 0x40]), response: true), sent: false)
        XCTAssertEqual(interim.summary, "Register Notification: Interim - Volume Changed: 50%")
        XCTAssertEqual(values(interim, AVRCPFields.volume), ["0x40"])
        let full = control(Self.avctp(Self.vendor(0x00, 0x50, [0x7F]), response: false), sent: true)
        XCTAssertEqual(full.summary, "Set Absolute Volume: Control - 100%")
        // Get Play Status: length 3:05, position 1:00, playing.
        let status = control(Self.avctp(Self.vendor(0x0C, 0x30, [0x00, 0x02, 0xD2, 0xA8, 0x00, 0x00, 0xEA, 0x60, 0x01]), response: true), sent: false)
        XCTAssertEqual(status.summary, "Get Play Status: Stable - Playing 1:00 of 3:05")
        XCTAssertEqual(values(status, AVRCPFields.songLength), ["185000"])
        // REJECTED with Invalid Parameter.
        let rejected = control(Self.avctp(Self.vendor(0x0A, 0x31, [0x01]), response: true), sent: false)
        XCTAssertEqual(rejected.summary, "Register Notification: Rejected - Invalid Parameter")
        XCTAssertEqual(values(rejected, AVRCPFields.status), ["0x01"])
        XCTAssertEqual(rejected.worstSeverity, .warning)
    }

    /// AVRCP 1.6, 6.8: a response longer than the AV/C frame is sent as start, continue and
    /// end parts, each after the controller's Request Continuing Response.
    func testResponsePartsAreJoined() {
        open(psm: 0x0017)
        func entry(_ id: UInt8, _ text: String) -> [UInt8] {
            [0, 0, 0, id, 0x00, 0x6A, 0x00, UInt8(text.utf8.count)] + Array(text.utf8)
        }
        let all = [0x03] + entry(0x1, "Clair de lune") + entry(0x2, "Claude Debussy") + entry(0x7, "302000")
        let start = control(Self.avctp(Self.vendor(0x0C, 0x20, Array(all[0 ..< 20]), packetType: 1), response: true), sent: false)
        XCTAssertEqual(start.summary, "Get Element Attributes: Stable - part 1, more follow")
        XCTAssertEqual(values(start, AVRCPFields.attribute), [], "nothing is decoded from a part")
        let ask = control(Self.avctp(Self.vendor(0x00, 0x40, [0x20]), response: false), sent: true)
        XCTAssertEqual(ask.summary, "Request Continuing Response: Control - Get Element Attributes")
        let middle = control(Self.avctp(Self.vendor(0x0C, 0x20, Array(all[20 ..< 35]), packetType: 2), response: true), sent: false)
        XCTAssertEqual(middle.summary, "Get Element Attributes: Stable - part 2, more follow")
        let end = control(Self.avctp(Self.vendor(0x0C, 0x20, Array(all[35...]), packetType: 3), response: true), sent: false)
        XCTAssertEqual(end.summary,
                       "Get Element Attributes: Stable - Title \"Clair de lune\", Artist \"Claude Debussy\", Playing Time 5:02 (joined from 3 parts)")
        XCTAssertEqual(values(end, AVRCPFields.joined), ["3"])
        XCTAssertEqual(values(end, AVRCPFields.value), ["Clair de lune", "Claude Debussy", "302000"])
        XCTAssertNil(end.worstSeverity)
        // An end part with nothing started: said, not decoded.
        let orphan = control(Self.avctp(Self.vendor(0x0C, 0x20, [0x01], packetType: 3), response: true), sent: false)
        XCTAssertEqual(orphan.summary, "Get Element Attributes: Stable - part without a start")
        XCTAssertEqual(orphan.worstSeverity, .warning)
    }

    func testAVCTPFragmentsAndOtherProfiles() {
        open(psm: 0x0017)
        // Start (3 packets, PID 0x110E), continue, end: one Get Capabilities command.
        let message = Self.vendor(0x01, 0x10, [0x03])
        let first = control([0x54, 0x03, 0x11, 0x0E] + message[0 ..< 4], sent: true)
        XCTAssertEqual(first.summary, "Command - A/V Remote Control - fragment 1 of 3")
        XCTAssertEqual(values(first, AVCTPFields.packets), ["3"])
        let second = control([0x58] + message[4 ..< 8], sent: true)
        XCTAssertEqual(second.summary, "Command - A/V Remote Control - continued (started in packet \(first.frame.number))")
        let last = control([0x5C] + message[8...], sent: true)
        XCTAssertEqual(last.summary, "Get Capabilities: Status - Events Supported")
        XCTAssertEqual(last.layers.map(\.name).suffix(2), ["AVCTP", "AVRCP"])
        // A PID the target does not serve: IPID set in the response, a warning.
        let refused = control([0x33, 0x11, 0x24], sent: false)
        XCTAssertEqual(refused.summary, "Response - Human Interface Device")
        XCTAssertEqual(values(refused, AVCTPFields.ipid), ["1"])
        XCTAssertEqual(refused.worstSeverity, .warning)
    }

    func testBrowsingFolderItems() {
        open(psm: 0x001B)
        let ask = control([0x30, 0x11, 0x0E, 0x71, 0x00, 0x0A, 0x01, 0, 0, 0, 0, 0, 0, 0, 9, 0xFF], sent: true)
        XCTAssertEqual(ask.summary, "Get Folder Items: Command - Virtual Filesystem 0-9")
        XCTAssertEqual(values(ask, AVRCPFields.attributeCount), ["255"])
        // One media element: UID 0x21, audio, "Syrinx", one attribute (Artist).
        let element = [0, 0, 0, 0, 0, 0, 0, 0x21, 0x00, 0x00, 0x6A, 0x00, 0x06] + Array("Syrinx".utf8)
            + [0x01, 0, 0, 0, 2, 0x00, 0x6A, 0x00, 0x07] + Array("Debussy".utf8)
        let body = [0x04, 0x00, 0x07, 0x00, 0x01, 0x03, 0x00, UInt8(element.count)] + element
        let answer = control([0x32, 0x11, 0x0E, 0x71, 0x00, UInt8(body.count)] + body, sent: false)
        XCTAssertEqual(answer.typeLabel, "AVRCP Receive")
        XCTAssertEqual(answer.summary, "Get Folder Items: Response - Success - 1 item: \"Syrinx\"")
        XCTAssertEqual(values(answer, AVRCPFields.name), ["Syrinx"])
        XCTAssertEqual(values(answer, AVRCPFields.value), ["Debussy"])
        XCTAssertEqual(values(answer, AVRCPFields.uid), ["0x0000000000000021"])
        XCTAssertNil(answer.worstSeverity)
    }

    func testTruncatedFramesAreMalformedNotFatal() {
        open(psm: 0x0017)
        // A vendor-dependent frame cut after its PDU ID, and an item that claims more than is there.
        let cut = control(Self.avctp([0x01, 0x48, 0x00, 0x00, 0x19, 0x58, 0x20], response: false), sent: true)
        XCTAssertEqual(cut.worstSeverity, .error)
        XCTAssertEqual(cut.typeLabel, "AVRCP Send")
        let long = control(Self.avctp(Self.vendor(0x0C, 0x20, [0x01, 0, 0, 0, 1, 0x00, 0x6A, 0x00, 0x40, 0x41]), response: true), sent: false)
        XCTAssertEqual(long.worstSeverity, .error)
        // Nothing after the AVCTP header.
        let empty = control([0x30], sent: true)
        XCTAssertEqual(empty.worstSeverity, .error)
    }
}

/// Enhanced Credit Based channels' reconfiguration (Core Vol 3, Part A, 4.27-4.28): the MTU and
/// MPS a requester receives change when the response accepts, not when it asks.
final class CreditBasedReconfigurationTests: ClassicLinkTestCase {
    func channel(_ local: UInt16) -> L2CAPChannel? {
        decoder.session.l2cap.channels[Session.LinkKey(controller: 0, handle: Self.handle)]?.first { $0.localCID == local }
    }

    func testReconfigurationTakesEffectWhenAccepted() throws {
        // The host opens two channels on SPSM 0x0027 (EATT): CIDs 0x0040/0x0041, the peer's 0x0080/0x0081.
        l2cap(0x0001, [0x17, 0x01, 0x0C, 0x00, 0x27, 0x00, 0x40, 0x00, 0x40, 0x00, 0x05, 0x00, 0x40, 0x00, 0x41, 0x00], sent: true)
        l2cap(0x0001, [0x18, 0x01, 0x0C, 0x00, 0x40, 0x00, 0x40, 0x00, 0x05, 0x00, 0x00, 0x00, 0x80, 0x00, 0x81, 0x00], sent: false)
        XCTAssertNotNil(channel(0x0040))
        XCTAssertNil(channel(0x0040)?.configured[true]?.mtu)
        // The host asks for MTU 512, MPS 251 on both; the peer refuses (reduction of MTU not allowed).
        l2cap(0x0001, [0x19, 0x02, 0x08, 0x00, 0x00, 0x02, 0xFB, 0x00, 0x40, 0x00, 0x41, 0x00], sent: true)
        let refused = l2cap(0x0001, [0x1A, 0x02, 0x02, 0x00, 0x01, 0x00], sent: false)
        XCTAssertTrue(refused.issues.contains { $0.message == "Reconfiguration refused: the channels keep their MTU and MPS" })
        XCTAssertNil(channel(0x0040)?.configured[true]?.mtu)
        // Asked again, accepted: both channels take it, for what the host receives.
        l2cap(0x0001, [0x19, 0x03, 0x08, 0x00, 0x00, 0x02, 0xFB, 0x00, 0x40, 0x00, 0x41, 0x00], sent: true)
        let accepted = l2cap(0x0001, [0x1A, 0x03, 0x02, 0x00, 0x00, 0x00], sent: false)
        XCTAssertTrue(accepted.summary.hasSuffix("MTU: 512 - MPS: 251 for 0x0040, 0x0041"), accepted.summary)
        for cid: UInt16 in [0x0040, 0x0041] {
            XCTAssertEqual(channel(cid)?.configured[true]?.mtu, 512)
            XCTAssertEqual(channel(cid)?.configured[true]?.mps, 251)
            XCTAssertNil(channel(cid)?.configured[false])
        }
    }

    func testConfigurationPerDirectionAndFCS() throws {
        open(psm: 0x0019)
        // Each side asks for ERTM without FCS; both accept: ERTM, and no FCS on its frames.
        let ertm: [UInt8] = [0x04, 0x09, 0x03, 0x08, 0x03, 0xD0, 0x07, 0xE0, 0x2E, 0xF0, 0x03]
        l2cap(0x0001, [0x04, 0x02, 0x16, 0x00, 0x41, 0x00, 0x00, 0x00] + ertm + [0x05, 0x01, 0x00] + [0x01, 0x02, 0x7F, 0x03], sent: true)
        XCTAssertEqual(channel(0x0040)?.mode, .basic, "asked, not yet accepted")
        l2cap(0x0001, [0x05, 0x02, 0x06, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00], sent: false)
        XCTAssertEqual(channel(0x0040)?.mode, .enhancedRetransmission)
        XCTAssertEqual(channel(0x0040)?.configured[true]?.mtu, 895)
        XCTAssertEqual(channel(0x0040)?.hasFCS, true, "only one side asked for no FCS so far")
        l2cap(0x0001, [0x04, 0x03, 0x12, 0x00, 0x40, 0x00, 0x00, 0x00] + ertm + [0x05, 0x01, 0x00], sent: false)
        l2cap(0x0001, [0x05, 0x03, 0x06, 0x00, 0x41, 0x00, 0x00, 0x00, 0x00, 0x00], sent: true)
        XCTAssertEqual(channel(0x0040)?.hasFCS, false, "both sides asked for no FCS")
        XCTAssertEqual(channel(0x0040)?.mode, .enhancedRetransmission)
    }
}
