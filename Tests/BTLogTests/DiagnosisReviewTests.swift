import XCTest
import Foundation

/// What `btlog diagnose` says of every capture this project did not script: the kernel
/// harness's real traffic and the third-party captures. Each finding below was checked by
/// reading the packets it cites (the reason is beside it); a rule that starts crying wolf on
/// these captures, or stops seeing what is there, fails here. Problems are the devices' (error:
/// something failed; warning: refused, degraded or suspicious); gaps are the capture's own.
final class DiagnosisReviewTests: XCTestCase {
    struct Finding: Equatable, CustomStringConvertible {
        var word: String       // "error", "warning" or the gap's kind
        var category: String   // a problem's category ("" for a gap)
        var summary: String
        var frames: [Int]
        var description: String { "\(word) \(category) \(summary) \(frames)" }
    }

    static func problem(_ severity: String, _ category: String, _ summary: String, _ frames: [Int]) -> Finding {
        Finding(word: severity, category: category, summary: summary, frames: frames)
    }

    static func gap(_ kind: String, _ summary: String, _ frames: [Int]) -> Finding {
        Finding(word: kind, category: "", summary: summary, frames: frames)
    }

    func findings(_ arguments: [String]) throws -> (status: Int32, found: [Finding]) {
        let result = try Tool.run(Tool.btlog, ["diagnose", "--json"] + arguments)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any], result.err)
        let problems = try XCTUnwrap(document["problems"] as? [[String: Any]]).map {
            Self.problem($0["severity"] as! String, $0["category"] as! String, $0["summary"] as! String, $0["frames"] as! [Int])
        }
        let gaps = try XCTUnwrap(document["completeness"] as? [[String: Any]]).map {
            Self.gap($0["kind"] as! String, $0["summary"] as! String, $0["frames"] as! [Int])
        }
        return (result.status, problems + gaps)
    }

    func check(_ arguments: [String], _ expected: [Finding], file: StaticString = #filePath, line: UInt = #line) throws {
        let (status, found) = try findings(arguments)
        XCTAssertEqual(found, expected, "\n" + found.map(\.description).joined(separator: "\n"), file: file, line: line)
        // Only the devices' problems fail a CI job; the capture's gaps do not.
        XCTAssertEqual(status, expected.contains { $0.word == "error" || $0.word == "warning" } ? 1 : 0, file: file, line: line)
    }

    static let peer = " on 0x002A 00:AA:01:01:00:00"

    /// l2cap-tester's cases that ask for a refusal get one, each a true warning: "Invalid PSM 1"
    /// and "2" (#1215, #1343, #1474), "Security Block" (#2188), the server's "Invalid PSM"
    /// (#2319), "Invalid PDU" (#2448), "Invalid Disconnect CID" (#2579, #2708), "Command Reject"
    /// (#3144, #4428), "Close socket 2" cancelling a connection the controller had not started
    /// (#3432), the LE "Invalid PSM" (#3766) and "Nval SCID" (#3984). The four Link Key Request
    /// Negative Replies each open a first pairing that completes (Link Key Notification): not
    /// reported. Close Index with a link up is how every case ends: no problem either.
    func testKernelL2CAP() throws {
        try check(["Fixtures/kernel-l2cap.btsnoop"], [
            Self.problem("warning", "l2cap", "L2CAP connection refused for PSM 0x1001: Connection refused - PSM not supported, by the peer" + Self.peer, [1215]),
            Self.problem("warning", "l2cap", "L2CAP connection refused for SDP: Connection refused - PSM not supported, by the peer" + Self.peer + " × 2", [1343, 1474]),
            Self.problem("warning", "l2cap", "L2CAP connection refused for PSM 0x1001: Connection refused - security block, by the local host" + Self.peer, [2188]),
            Self.problem("warning", "l2cap", "L2CAP connection refused for PSM 0x1001: Connection refused - PSM not supported, by the local host" + Self.peer, [2319]),
            Self.problem("warning", "l2cap", "Command Reject: Command not understood, by the local host" + Self.peer, [2448]),
            Self.problem("warning", "l2cap", "Command Reject: Invalid CID in request, by the local host" + Self.peer + " × 2", [2579, 2708]),
            Self.problem("warning", "l2cap", "Command Reject: Command not understood, by the peer" + Self.peer + " × 2", [3144, 4428]),
            Self.problem("warning", "hci", "LE Create Connection Cancel failed: Command Disallowed (0x0C)", [3432]),
            Self.problem("warning", "l2cap", "L2CAP connection refused for LE Dynamic PSM 0x0080: Connection refused - SPSM not supported, by the peer" + Self.peer, [3766]),
            Self.problem("warning", "l2cap", "L2CAP connection refused for LE Dynamic PSM 0x0080: Connection refused - invalid Source CID, by the local host" + Self.peer, [3984]),
        ])
    }

    /// smp-tester's "Invalid Request 1-3" (the host refuses malformed pairing: #308, #462, #618)
    /// and "SC Request 1" (#1137, the confirm check fails): four pairings that did fail.
    func testKernelSMP() throws {
        try check(["Fixtures/kernel-smp.btsnoop"], [
            Self.problem("error", "pairing", "Pairing failed: Command Not Supported (0x07), sent by the local host" + Self.peer, [308]),
            Self.problem("error", "pairing", "Pairing failed: Encryption Key Size (0x06), sent by the local host" + Self.peer, [462]),
            Self.problem("error", "pairing", "Pairing failed: Invalid Parameters (0x0A), sent by the local host" + Self.peer, [618]),
            Self.problem("error", "pairing", "Pairing failed: Confirm Value Failed (0x04), sent by the local host" + Self.peer, [1137]),
        ])
    }

    /// Nothing failed in the ISO and RFCOMM/SCO runs. The broadcast streams' Disconnection
    /// Complete names a handle LE Create BIG Complete made, not a link up before the capture.
    func testKernelISOAndRFCOMM() throws {
        try check(["Fixtures/kernel-iso.btsnoop"], [])
        try check(["Fixtures/kernel-rfcomm-sco.btsnoop"], [])
    }

    /// The two kernel hosts (btvirt): the LE credit-based channel's server (hci3) has ten SDUs to
    /// send and four credits; it sends its fifth (#629) with its last credit, the next after the
    /// credits of #635 and #638 arrive (#642): a true wait. Before the Flow Control Credit
    /// Indication was read by its own CID (not the basic header's, 0x0005), every K-frame after
    /// the first four credits was an error, "sent without credits" (122 each way): a wolf cried.
    func testKernelTwoHosts() throws {
        try check(["Fixtures/kernel-two-hosts.btsnoop"], [
            Self.problem("warning", "credits", "Credits exhausted 1 time on the LE Dynamic PSM 0x0080 channel 0x0040: the local host had to wait on 0x002A 00:AA:01:00:00:02", [629]),
        ])
    }

    /// Ubertooth following a Texas Instruments SensorTag: the central acknowledges (NESN moves
    /// on) 83 peripheral packets Ubertooth never took (#31: SN 0 NESN 0 after SN 1 NESN 1, no
    /// peripheral packet between; one it took damaged, as #57 before #58, is no gap); the
    /// encrypted part has no key unless given. With crackle's
    /// LTK: the Device Name requests #184, #198 and #229 were answered in packets the sniffer
    /// took damaged (#187, #232) or missed, and #235's garbled copy (its header says 132 bytes,
    /// 4 follow) fails its MIC while the link goes on to a normal LL_TERMINATE_IND.
    func testCrackleKnownLTK() throws {
        let capture = "Fixtures/third-party/crackle/known_ltk.pcap", link = " on 0x0001 78:C5:E5:6E:DD:E8"
        let missed = [31, 32, 35, 36, 39, 42, 45, 46, 49, 50, 53, 56, 61, 64, 65, 68, 71, 76, 79, 80]
        try check([capture], [
            Self.gap("sniffer_missed", "The sniffer missed at least 83 packets of the link" + link, missed),
            Self.gap("no_key", "8 packets encrypted, no key" + link, [91]),
        ])
        try check(["--ltk", "7f62c053f104a5bbe68b1d896a2ed49c", capture], [
            Self.gap("sniffer_missed", "The sniffer missed at least 84 packets of the link" + link, missed),
            Self.gap("answer_not_captured", "Read By Type Request: its answer not in the sniffer's capture (it missed or took damaged packets of the link after it) × 3", [184, 198, 229]),
            Self.gap("not_authenticated", "1 encrypted packet did not authenticate, though the link's key opened the others, and the link went on" + link, [235]),
        ])
    }

    /// The passkey pairing crackle cracks. Nothing failed: #22's LL opcode 0xFF is no procedure
    /// of the specification, and the central refusing it (LL_UNKNOWN_RSP, #23) is what the
    /// specification asks. Every request "superseded" (#205, #245, #252, #263, #274) was followed
    /// by a gap the link's own counters show (#206/#208, #248, #255, #266, #277: a packet the
    /// peer acknowledged, or an encrypted packet counter that moved on by two), where its
    /// answer went; #254 does not authenticate though the key opens the packets around it, and
    /// the link goes on (no MIC Failure disconnection): a copy, not the devices' failure.
    func testCrackleNumericPin() throws {
        let link = " on 0x0001 69:5B:FB:2C:3F:A7"
        let unheard = ": its answer not in the sniffer's capture (it missed or took damaged packets of the link after it)"
        try check(["Fixtures/third-party/crackle/numeric_pin.pcap"], [
            Self.gap("sniffer_missed", "The sniffer missed at least 12 packets of the link" + link, [48, 53, 94, 125, 132, 179, 206, 208, 248, 255, 266, 277]),
            Self.gap("answer_not_captured", "Read By Group Type Request" + unheard, [205]),
            Self.gap("answer_not_captured", "Read By Type Request" + unheard + " × 3", [245, 252, 263]),
            Self.gap("not_authenticated", "1 encrypted packet did not authenticate, though the link's key opened the others, and the link went on" + link, [254]),
            Self.gap("answer_not_captured", "Find Information Request" + unheard, [274]),
        ])
    }

    /// Two Android snoop logs that start mid-connection: GATT writes to a toy car, an ELM327
    /// adapter's serial port. Nothing failed; their links' set-up is not in them.
    func testAndroidLogsThatStartMidConnection() throws {
        try check(["Fixtures/third-party/revcar/btsnoop_hci.log"], [
            Self.gap("setup_not_captured", "1 link whose set-up is not in the capture (0x0002): its data comes without the connection's start", [1]),
        ])
        try check(["Fixtures/third-party/happyleaf/btsnoop_hci.log"], [
            Self.gap("setup_not_captured", "1 link whose set-up is not in the capture (0x0032): its data comes without the connection's start", [1]),
        ])
    }

    /// BTstack's PacketLogger log (generated from its public header's definitions): its
    /// daemon's commands are never the controller's to answer, its own events are named, and
    /// the one refusal is the controller's 0xFFFF answer to a vendor command.
    func testBTstackLog() throws {
        try check(["Fixtures/btstack-daemon.pklg"], [
            Self.problem("warning", "hci", "Vendor command 0xFC0A answered with opcode 0xFFFF: not supported", [11, 12]),
        ])
        let shown = try Tool.run(Tool.btlog, ["show", "Fixtures/btstack-daemon.pklg"])
        XCTAssertFalse(shown.out.contains("Unknown"), shown.out)
        XCTAssertTrue(shown.out.contains("Daemon: L2CAP Create Channel - 00:1B:DC:07:32:11 - PSM: 0x0001"), shown.out)
        XCTAssertTrue(shown.out.contains("L2CAP Information Response - Handle: 0x000B"), shown.out)
        XCTAssertTrue(shown.out.contains("BTstack State - Working"), shown.out)
    }
}
