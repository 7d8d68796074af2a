import XCTest
import Foundation

/// The filter language against Wireshark's display filters: each btlog expression and its
/// tshark equivalent must keep the same packets of every fixture tshark reads.
final class FilterDifferentialTests: XCTestCase {
    /// btlog expression → tshark display filter with the same meaning.
    static let pairs: [(btlog: String, tshark: String)] = [
        ("att", "btatt"),
        ("smp", "btsmp"),
        // btlog also gives an ACL fragment (of a PDU still being reassembled, or without a start)
        // an L2CAP layer; Wireshark only a PDU whose header it read, which l2cap.cid marks.
        ("l2cap.cid", "btl2cap.cid"),
        ("sdp", "btsdp"),
        ("rfcomm", "btrfcomm"),
        ("avctp", "btavctp"),
        ("hid", "bthid"),
        ("bnep", "btbnep"),
        ("sco", "bthci_sco"),
        ("hci.opcode == 0x200c", "bthci_cmd.opcode == 0x200c"),
        ("hci.opcode == le_set_scan_enable", "bthci_cmd.opcode == 0x200c"),
        ("hci.opcode in {0x0c03 0x1001..0x1009}", "bthci_cmd.opcode in {0x0c03, 0x1001..0x1009}"),
        ("hci.event == 0x0e", "bthci_evt.code == 0x0e"),
        ("hci.event == disconnection_complete", "bthci_evt.code == 0x05"),
        ("hci.event in {0x13 0x0f}", "bthci_evt.code in {0x13, 0x0f}"),
        ("hci.subevent == 0x02", "bthci_evt.le_meta_subevent == 0x02"),
        ("hci.opcode or hci.event", "bthci_cmd || bthci_evt"),
        ("not hci.opcode and not hci.event", "!bthci_cmd && !bthci_evt"),
        ("acl.handle", "bthci_acl.chandle"),
        ("att.opcode == write_req", "btatt.opcode == 0x12"),
        ("att.opcode in {0x1b 0x1d}", "btatt.opcode in {0x1b, 0x1d}"),
        ("att.opcode in {0x10..0x11}", "btatt.opcode in {0x10..0x11}"),
        ("att.opcode == 0x01 || att.opcode == 0x0b", "btatt.opcode == 0x01 || btatt.opcode == 0x0b"),
        ("att.opcode >= 0x08 && att.opcode <= 0x09", "btatt.opcode >= 0x08 && btatt.opcode <= 0x09"),
        ("smp.random contains 22:22", "btsmp.random_value contains 22:22"),
        ("smp.random == 11111111111111111111111111111111", "btsmp.random_value == 11:11:11:11:11:11:11:11:11:11:11:11:11:11:11:11"),
        ("smp.code == 0x03 and not smp.confirm contains 00", "btsmp.opcode == 0x03 && !(btsmp.cfm_value contains 00)"),
        ("att and not att.opcode == 0x1b", "btatt && !(btatt.opcode == 0x1b)"),
        ("l2cap.cid == 0x0001", "btl2cap.cid == 0x0001"),
        ("l2cap.cid == 0x0005 or l2cap.cid == 0x0006", "btl2cap.cid == 0x0005 || btl2cap.cid == 0x0006"),
        ("l2cap.code in {0x02 0x03}", "btl2cap.cmd_code in {0x02, 0x03}"),
        ("l2cap.code == 0x14", "btl2cap.cmd_code == 0x14"),
        ("smp.code == 0x01", "btsmp.opcode == 0x01"),
        ("smp.code == pairing_failed", "btsmp.opcode == 0x05"),
        ("rfcomm.frame_type == 0xef", "btrfcomm.frame_type == 0xef"),
        ("avdtp.signal == 0x03", "btavdtp.signal_id == 0x03"),
        ("avdtp.signal == set_configuration", "btavdtp.signal_id == 0x03"),
        ("sdp.pdu in {0x06 0x07}", "btsdp.pdu in {0x06, 0x07}"),
        ("number in {2..6}", "frame.number in {2..6}"),
        ("number > 10 and hci.event == 0x0e", "frame.number > 10 && bthci_evt.code == 0x0e"),
        ("(att or smp) and not l2cap.cid == 0x0004", "(btatt || btsmp) && !(btl2cap.cid == 0x0004)"),
        // The link layer of air captures: the same names in both.
        ("btle.control_opcode == 0x0c", "btle.control_opcode == 0x0c"),
        ("btle.control_opcode in {0x14..0x18}", "btle.control_opcode in {0x14..0x18}"),
        ("btle.advertising_header.pdu_type == 0x05", "btle.advertising_header.pdu_type == 0x05"),
        ("btle.advertising_header.pdu_type in {0 3 4}", "btle.advertising_header.pdu_type in {0, 3, 4}"),
        ("btle.data_header.llid == 2 and att", "btle.data_header.llid == 2 && btatt"),
        ("btle.access_address == 0x50654c9a and btle.data_header.length > 0", "btle.access_address == 0x50654c9a && btle.data_header.length > 0"),
        ("nordic_ble.channel < 37", "nordic_ble.channel < 37"),
        ("btle_rf.pdu_type == 2", "btle_rf.pdu_type == 2"),
    ]

    func testFiltersKeepWhatTsharkKeeps() throws {
        guard let tshark = Tool.find("tshark") else { throw XCTSkip("tshark is not installed (apt-get install tshark)") }
        let files = try DifferentialTests.fixtures()
        XCTAssertGreaterThanOrEqual(Self.pairs.count, 30)
        var matched = 0
        let lock = NSLock()
        var failures: [String] = []
        var eatt: [String: Set<Substring>] = [:]
        var notDecodedAgain: [String: Set<Substring>] = [:]
        for file in files {
            let numbers = try Tool.run(Tool.btlog, ["show", file, "-f", "att and l2cap.psm == 0x0027", "--fields", "number"]).out
            eatt[file] = Set(numbers.split(separator: "\n"))
            let air = try Tool.run(Tool.btlog, ["show", file, "-f", "btle.retransmission or btle.crc_ok == 0 or btle.encrypted", "--fields", "number"]).out
            notDecodedAgain[file] = Set(air.split(separator: "\n"))
        }
        // One tshark per file and filter: spread over the cores.
        let jobs = files.flatMap { file in Self.pairs.map { (file, $0) } }
        DispatchQueue.concurrentPerform(iterations: jobs.count) { index in
            let (file, pair) = jobs[index]
            do {
                var theirs = try Tool.run(tshark, ["-r", file, "-Y", pair.tshark, "-T", "fields", "-e", "frame.number"] + Tool.tsharkUserDLT)
                var ours = try Tool.run(Tool.btlog, ["show", file, "-f", pair.btlog, "--fields", "number"])
                // Air captures: a retransmitted copy, or a packet with a bad CRC, is not decoded
                // above the link layer by btlog (its first copy was; a damaged one is not trusted);
                // Wireshark decodes them again. An encrypted one btlog decrypts; Wireshark 4.0
                // reads its ciphertext as plain. They are compared on neither side.
                let skipped = notDecodedAgain[file, default: []]
                if !skipped.isEmpty {
                    theirs.out = theirs.out.split(separator: "\n").filter { !skipped.contains($0) }.map { $0 + "\n" }.joined()
                    ours.out = ours.out.split(separator: "\n").filter { !skipped.contains($0) }.map { $0 + "\n" }.joined()
                }
                // Wireshark 4.0 does not follow enhanced credit-based channels, so ATT over EATT
                // (PSM 0x0027) is no btatt there: such packets only btlog keeps are set aside.
                let theirNumbers = Set(theirs.out.split(separator: "\n"))
                let setAside = eatt[file, default: []].subtracting(theirNumbers)
                if !setAside.isEmpty {
                    ours.out = ours.out.split(separator: "\n").filter { !setAside.contains($0) }.map { $0 + "\n" }.joined()
                }
                lock.lock()
                defer { lock.unlock() }
                guard theirs.status == 0, ours.status == 0 else {
                    failures.append("\(file): \(pair.btlog): exit \(ours.status) \(ours.err) / tshark \(theirs.status) \(theirs.err)")
                    return
                }
                if theirs.out != ours.out {
                    failures.append("\(file): '\(pair.btlog)' kept \(Self.list(ours.out)), tshark '\(pair.tshark)' \(Self.list(theirs.out))")
                } else if !ours.out.isEmpty {
                    matched += 1
                }
            } catch {
                lock.lock()
                failures.append("\(file): \(error)")
                lock.unlock()
            }
        }
        for failure in failures.sorted() { XCTFail(failure) }
        // Most filters keep something somewhere: the comparison is not of empty sets.
        XCTAssertGreaterThan(matched, Self.pairs.count)
    }

    static func list(_ text: String) -> String {
        let numbers = text.split(separator: "\n")
        return numbers.count > 12 ? "[\(numbers.prefix(12).joined(separator: " ")) ... (\(numbers.count))]" : "[\(numbers.joined(separator: " "))]"
    }
}
