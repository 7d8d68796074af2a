import XCTest
import Foundation

/// btlog and tshark decode every fixture; per packet, the fields both know must agree.
final class DifferentialTests: XCTestCase {
    /// tshark field → btlog field with the same meaning.
    static let pairs: [(tshark: String, btlog: String)] = [
        ("frame.number", "number"), ("bthci_cmd.opcode", "hci.opcode"), ("bthci_evt.code", "hci.event"),
        ("bthci_evt.le_meta_subevent", "hci.subevent"), ("bthci_evt.status", "hci.status"),
        ("bthci_acl.chandle", "acl.handle"), ("btl2cap.cid", "l2cap.cid"), ("btl2cap.psm", "l2cap.psm"),
        ("btl2cap.cmd_code", "l2cap.code"), ("btatt.opcode", "att.opcode"), ("btatt.handle", "att.handle"),
        ("btsmp.opcode", "smp.code"), ("btsmp.reason", "smp.reason"),
        ("btrfcomm.dlci", "rfcomm.dlci"), ("btrfcomm.cr", "rfcomm.cr"), ("btrfcomm.frame_type", "rfcomm.frame_type"),
        ("btrfcomm.pf", "rfcomm.pf"), ("btrfcomm.len", "rfcomm.len"), ("btrfcomm.credits", "rfcomm.credits"),
        ("btrfcomm.fcs", "rfcomm.fcs"), ("btrfcomm.mcc.cmd", "rfcomm.mcc.cmd"), ("btrfcomm.max_frame_size", "rfcomm.max_frame_size"),
        ("btsdp.pdu", "sdp.pdu"), ("btsdp.tid", "sdp.transaction"), ("btsdp.len", "sdp.length"), ("btsdp.error_code", "sdp.error_code"),
        ("btsdp.ssr.total_count", "sdp.total_records"), ("btsdp.ssr.current_count", "sdp.current_records"),
        ("btsdp.attribute_list_byte_count", "sdp.byte_count"), ("btsdp.maximum_attribute_byte_count", "sdp.max_bytes"),
        ("btsdp.maximum_service_record_count", "sdp.max_records"), ("btsdp.service.attribute", "sdp.attribute"),
        ("btavdtp.signal_id", "avdtp.signal"), ("btavdtp.message_type", "avdtp.message_type"), ("btavdtp.transaction", "avdtp.transaction"),
        ("btavdtp.packet_type", "avdtp.packet_type"), ("btavdtp.acp_seid", "avdtp.seid"), ("btavdtp.int_seid", "avdtp.int_seid"),
        ("btavdtp.error_code", "avdtp.error_code"), ("btavdtp.service_category", "avdtp.category"),
        ("btavdtp.media_codec_audio_type", "avdtp.codec"), ("btavdtp.delay", "avdtp.delay"),
        ("btavctp.transaction", "avctp.transaction"), ("btavctp.cr", "avctp.cr"), ("btavctp.packet_type", "avctp.packet_type"),
        ("btavctp.pid", "avctp.pid"), ("btavrcp.ctype", "avrcp.ctype"), ("btavrcp.opcode", "avrcp.opcode"), ("btavrcp.pdu_id", "avrcp.pdu"),
        ("btavrcp.passthrough.operation", "avrcp.operation"), ("btavrcp.notification.event_id", "avrcp.event"),
        ("btavrcp.attribute", "avrcp.attribute"), ("btavrcp.volume", "avrcp.volume"), ("btavrcp.status", "avrcp.status"),
        ("btavrcp.length", "avrcp.length"), ("btavrcp.packet_type", "avrcp.packet_type"), ("btavrcp.scope", "avrcp.scope"),
        ("btavrcp.uid_counter", "avrcp.uid_counter"), ("btavrcp.number_of_items", "avrcp.number_of_items"),
        ("btavrcp.player_id", "avrcp.player_id"), ("btavrcp.play_status", "avrcp.play_status"),
        ("bthid.transaction_type", "hid.type"), ("bthid.parameter.report_type", "hid.report_type"), ("bthid.report_id", "hid.report_id"),
        ("bthid.result_code", "hid.result"), ("bthid.control_operation", "hid.control"), ("bthid.protocol", "hid.protocol"),
        ("bthid.buffer_size", "hid.buffer_size"), ("bthid.idle_rate", "hid.idle_rate"),
        ("btbnep.bnep_type", "bnep.type"), ("btbnep.control_type", "bnep.control_type"), ("btbnep.type", "bnep.ethertype"),
        ("btbnep.list_length", "bnep.list_length"), ("btbnep.network_type_start", "bnep.network_type_start"),
        ("btbnep.network_type_end", "bnep.network_type_end"), ("btbnep.extension_type", "bnep.extension_type"),
        ("btbnep.extension_length", "bnep.extension_length"), ("btbnep.uuid_size", "bnep.uuid_size"),
        ("bthci_sco.chandle", "sco.handle"), ("bthci_sco.packet_status", "sco.status"), ("bthci_iso.chandle", "iso.handle"),
        ("bthci_iso.pb_flag", "iso.pb"), ("bthci_iso_data.packet_seq_num", "iso.sequence"), ("bthci_iso_data.sdu_length", "iso.sdu_length"),
        ("rtp.seq", "rtp.sequence"), ("rtp.timestamp", "rtp.timestamp"), ("rtp.ssrc", "rtp.ssrc"), ("sbc.bitpool", "sbc.bitpool"),
    ] + airPairs

    /// The LE link layer and the sniffers' headers: btlog names these fields as Wireshark does.
    static let airPairs: [(tshark: String, btlog: String)] = [
        "btle.access_address", "btle.advertising_header.pdu_type", "btle.advertising_header.length",
        "btle.link_layer_data.access_address", "btle.link_layer_data.crc_init", "btle.link_layer_data.window_size",
        "btle.link_layer_data.window_offset", "btle.link_layer_data.interval", "btle.link_layer_data.latency",
        "btle.link_layer_data.timeout", "btle.link_layer_data.hop", "btle.link_layer_data.sleep_clock_accuracy",
        "btle.extended_advertising_header.length", "btle.extended_advertising_header.mode",
        "btle.extended_advertising_header.aux_pointer.channel", "btle.data_header.llid", "btle.data_header.sequence_number",
        "btle.data_header.next_expected_sequence_number", "btle.data_header.length", "btle.control_opcode", "btle.control.error_code",
        "btle.control.version_number", "btle.control.company_id", "btle.control.subversion_number", "btle.control.instant",
        "btle.control.interval", "btle.control.latency", "btle.control.timeout", "btle.control.window_size",
        "btle.control.window_offset", "btle.control.interval.min", "btle.control.interval.max", "btle.control.max_rx_octets",
        "btle.control.max_rx_time", "btle.control.max_tx_octets", "btle.control.max_tx_time", "btle.control.tx_phys",
        "btle.control.rx_phys", "btle.control.reject_opcode", "btle.control.unknown_type", "btle.control.encrypted_diversifier",
        "btle.control.sleep_clock_accuracy", "btle.control.feature_set", "btle.crc",
        "btle.control.cte.min_len_req", "btle.control.cte.type_req", "btle.control.sync.id", "btle.control.sync_info.interval",
        "btle.control.sync_info.access_address", "btle.control.sync.sid", "btle.control.sync.conn_event_count",
        "btle.control.sync.last_pa_event_counter", "btle.control.sync.sync_conn_event_count", "btle.control.phys",
        "btle.control.cig_id", "btle.control.cis_id", "btle.control.max_sdu_m_to_s", "btle.control.max_sdu_s_to_m",
        "btle.control.sdu_interval_m_to_s", "btle.control.sdu_interval_s_to_m", "btle.control.max_pdu_m_to_s",
        "btle.control.max_pdu_s_to_m", "btle.control.num_sub_events", "btle.control.sub_interval", "btle.control.bn_m_to_s",
        "btle.control.bn_s_to_m", "btle.control.ft_m_to_s", "btle.control.ft_s_to_m", "btle.control.iso_interval",
        "btle.control.cis_offset_min", "btle.control.cis_offset_max", "btle.control.conn_event_count", "btle.control.access_address",
        "btle.control.cis_offset", "btle.control.cig_sync_delay", "btle.control.cis_sync_delay", "btle.control.pwr_phy",
        "btle.control.delta", "btle.control.txpower", "btle.control.acceptable_power_reduction",
        "nordic_ble.board_id", "nordic_ble.protover", "nordic_ble.packet_counter", "nordic_ble.packet_id", "nordic_ble.len",
        "nordic_ble.flags", "nordic_ble.phy", "nordic_ble.channel", "nordic_ble.event_counter", "nordic_ble.time",
        "btle_rf.channel", "btle_rf.access_address_offenses", "btle_rf.reference_access_address", "btle_rf.flags", "btle_rf.pdu_type",
        "btle_rf.phy", "ppi.version", "ppi.flags", "ppi.length", "ppi.dlt",
        "btle.coding_indicator", "btle.data_header.close_isochronous_event", "btle.data_header.null_pdu_indicator",
        "btle.data_header.control_subevent_sequence_number", "btle.data_header.control_subevent_transmission_flag",
        "btle.big_control_opcode", "btle.control.sync_info.sync_offset", "btle.control.sync_info.offset_units",
        "btle.control.sync_info.offset_adjust", "btle.control.sync_info.sleep_clock_accuracy", "btle.control.sync_info.crc_init",
        "btle.control.sync_info.event_counter",
    ].map { ($0, $0) } + ["sync_offset", "offset_units", "offset_adjust", "interval", "sleep_clock_accuracy", "access_address", "crc_init",
                          "event_counter"].map { ("btle.extended_advertising_header.sync_info." + $0, "btle.extended_advertising_header.sync_info." + $0) }

    /// Files tshark reads. Not compared: btsnoop datalinks 1003/1004 (H5/BCSP), which Wireshark
    /// does not open, and the sysdiagnose/bugreport containers, which it does not unpack. The
    /// BR/EDR baseband capture is compared by AirCaptureTests.testBasebandAgreesWithTshark, on a
    /// copy whose payloads are flagged decrypted: Wireshark 4.0 decodes no other.
    static func fixtures() throws -> [String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: Tool.root.appendingPathComponent("Fixtures").path)
        return names.filter { name in
            [".btsnoop", ".pklg", ".pcap", ".pcapng", ".btsnoop.gz"].contains { name.hasSuffix($0) }
                && !name.contains("-h5") && !name.contains("-bcsp") && !name.contains("bredr-baseband")
        }.sorted().map { "Fixtures/" + $0 }
    }

    static let unknownToTshark: Set<Substring> = ["0x100d", "0x100e", "0x100f", "0x100D", "0x100E", "0x100F"]

    /// "0x000b,0x0003" → the set of values; decimal numbers too.
    static func values(_ text: Substring) -> Set<UInt64> {
        Set(text.split(separator: ",").compactMap { v in
            v.hasPrefix("0x") ? UInt64(v.dropFirst(2), radix: 16) : UInt64(v)
        })
    }

    func testFieldsAgreeWithTshark() throws {
        let files = try Self.fixtures()
        XCTAssertGreaterThanOrEqual(files.count, 12)
        // tshark's answers first (recorded, or asked in the reference tier); then each file is
        // compared on its own, both cores at once.
        let answers = try files.map { file in
            try Reference.output("tshark", ["-r", file, "-T", "fields", "-E", "separator=/t"] + Tool.tsharkUserDLT + Self.pairs.flatMap { ["-e", $0.tshark] },
                                          recordedAs: "tshark/fields/" + (file as NSString).lastPathComponent + ".tsv")
        }
        var results = [(failures: [String], compared: Int)](repeating: ([], 0), count: files.count)
        let lock = NSLock()
        DispatchQueue.concurrentPerform(iterations: files.count) { index in
            let result = Self.compareFields(files[index], tshark: answers[index])
            lock.lock()
            results[index] = result
            lock.unlock()
        }
        for failure in results.flatMap(\.failures) { XCTFail(failure) }
        XCTAssertGreaterThan(results.map(\.compared).reduce(0, +), 5000, "the comparison covered too little")
    }

    /// One file's fields against tshark's: what differs, and how many values agreed.
    static func compareFields(_ file: String, tshark ts: String) -> (failures: [String], compared: Int) {
        var failures: [String] = []
        var compared = 0
        let fields = Self.pairs.map(\.btlog) + ["btle.encrypted", "btle.retransmission", "btle.crc_ok", "sdp.attribute_id", "att.value_handle",
                                                "hci.event_opcode"]
        guard let bt = try? Tool.run(Tool.btlog, ["show", file, "--fields", fields.joined(separator: ",")]), bt.status == 0 else {
            return (["\(file): btlog failed"], 0)
        }
        let tsRows = ts.split(separator: "\n"), btRows = bt.out.split(separator: "\n")
        if tsRows.count != btRows.count { failures.append("\(file): packet counts differ (\(tsRows.count) and \(btRows.count))") }
        for (tsRow, btRow) in zip(tsRows, btRows) {
            let t = tsRow.split(separator: "\t", omittingEmptySubsequences: false)
            let b = btRow.split(separator: "\t", omittingEmptySubsequences: false)
            guard t.count == Self.pairs.count, b.count == fields.count else {
                failures.append("\(file): malformed row \(tsRow) / \(btRow)")
                continue
            }
            let psmIndex = Self.pairs.firstIndex { $0.btlog == "l2cap.psm" }!
            let onEATT = Self.values(b[psmIndex]) == [0x0027]
            let encrypted = Self.values(b[fields.count - 6]) == [1]
            let notDecodedAgain = Self.values(b[fields.count - 5]) == [1] || Self.values(b[fields.count - 4]) == [0]
            let controlOpcode = Self.values(b[Self.pairs.firstIndex { $0.btlog == "btle.control_opcode" }!])
            let pduTypeIndex = Self.pairs.firstIndex { $0.btlog == "btle.advertising_header.pdu_type" }!
            let onTrain = !b[pduTypeIndex].isEmpty && t[pduTypeIndex].isEmpty
            let cieIndex = Self.pairs.firstIndex { $0.btlog == "btle.data_header.close_isochronous_event" }!
            let cisNotFollowed = !b[cieIndex].isEmpty && t[cieIndex].isEmpty
            for (index, pair) in Self.pairs.enumerated() {
                var ours = Self.values(b[index])
                let theirs = Self.values(t[index])
                switch pair.btlog {
                case _ where onTrain && pair.btlog.hasPrefix("btle.") && pair.btlog != "btle.access_address":
                    // Wireshark 4.0 does not follow a SyncInfo to its periodic advertising train: it
                    // reads the train's AUX_SYNC_IND and AUX_CHAIN_IND as a connection's data PDUs.
                    continue
                case "btle.data_header.close_isochronous_event", "btle.data_header.null_pdu_indicator" where cisNotFollowed:
                    // Wireshark 4.0 knows a CIS PDU only by the radio header's PDU type; btlog also
                    // by the access address LL_CIS_IND gave (the nRF Sniffer's captures).
                    continue
                case _ where encrypted && (pair.btlog.hasPrefix("btle.control") || pair.btlog == "btle.crc"
                                               || ["l2cap.cid", "att.opcode", "att.handle", "smp.code"].contains(pair.btlog)):
                    // Wireshark 4.0 does not follow LL_START_ENC on these captures: it reads the
                    // encrypted payloads as if they were plain (and, taking one for an
                    // LL_LENGTH_REQ, misplaces its CRC); btlog decrypts them.
                    continue
                case "btle.crc" where !controlOpcode.isDisjoint(with: [0x14, 0x15, 0x16, 0x17]):
                    // Wireshark 4.0 reads the CRC of LL_LENGTH_REQ/RSP and LL_PHY_REQ/RSP from
                    // inside their parameters (0xDF0012 for bytes FB 00 48 of Max RX octets and
                    // time); btlog reads the last three bytes, where the CRC is.
                    continue
                case _ where pair.btlog.hasPrefix("btle.control.") && !controlOpcode.isDisjoint(with: [0x26, 0x27]):
                    // Wireshark 4.0 predates connection subrating (Core 5.3): it reads no parameters
                    // of LL_SUBRATE_REQ/IND.
                    continue
                case "btle.control.phys" where controlOpcode == [0x1A]:
                    // Wireshark 4.0 labels LL_CTE_REQ's CTE octet "PHYs" as well as reading its parts.
                    continue
                case "btle.control.sleep_clock_accuracy" where controlOpcode.isSubset(of: [0x1D, 0x1E]) && !controlOpcode.isEmpty:
                    // LL_CLOCK_ACCURACY_REQ/RSP carry the SCA code as the whole octet (btmon reads
                    // it so too); Wireshark 4.0 takes bits 5-7, as in CONNECT_IND's last octet.
                    continue
                case "l2cap.cid", "att.opcode", "att.handle", "smp.code" where notDecodedAgain:
                    // A retransmitted copy, or a packet received with a bad CRC: btlog does not
                    // decode it above the link layer (the first copy was; a damaged one is not
                    // trusted); Wireshark decodes it again.
                    continue
                case "att.opcode" where onEATT && theirs.isEmpty, "att.handle" where onEATT && theirs.isEmpty:
                    // Wireshark 4.0 does not follow enhanced credit-based channels, so ATT
                    // over EATT (Core 5.2, PSM 0x0027) stays undecoded there.
                    continue
                case "att.handle":
                    // Wireshark also calls the value handle inside a characteristic
                    // declaration btatt.handle; btlog keeps it apart as att.value_handle.
                    ours.formUnion(Self.values(b[fields.count - 2]))
                case "avdtp.seid" where theirs.isEmpty && Self.values(b[Self.pairs.firstIndex { $0.btlog == "avdtp.signal" }!]) == [0x01]:
                    // A Discover response's endpoints are btavdtp.sep_seid in Wireshark.
                    continue
                case "sdp.attribute":
                    // Wireshark calls the IDs a request asks for btsdp.service.attribute too;
                    // btlog keeps them apart as sdp.attribute_id.
                    ours.formUnion(Self.values(b[fields.count - 3]))
                case "hci.status" where theirs.isEmpty && (b[fields.count - 1].lowercased().hasPrefix("0xf")
                                                           || Self.values(b[Self.pairs.firstIndex { $0.btlog == "hci.event" }!]) == [0xFF]):
                    // A vendor command's return or a vendor event: Wireshark hands it to its vendor
                    // dissector, whose status is bthci_vendor.*.status, when it reads one at all
                    // (VendorReferenceTests compares those packets).
                    continue
                case "hci.status" where theirs.isEmpty && Self.unknownToTshark.contains(b[fields.count - 1]):
                    // Wireshark 4.0 does not know the Core 5.2 codec commands (Read Local
                    // Supported Codecs V2, Codec Capabilities, Controller Delay) that the
                    // kernel sends at power-on, so it decodes no status for their returns.
                    continue
                case "rfcomm.fcs" where theirs.isEmpty:
                    // Wireshark reads no FCS when the length field runs past the frame (BlueZ's
                    // emulator sends such frames); btlog, like the kernel and btmon, takes the
                    // last octet and reports the length.
                    continue
                case "avrcp.scope", "avrcp.uid_counter", "avrcp.number_of_items"
                    where theirs.isEmpty && Self.values(b[Self.pairs.firstIndex { $0.btlog == "avrcp.pdu" }!]) == [0x75]:
                    // Wireshark 4.0 does not decode AVRCP 1.6's Get Total Number of Items (0x75).
                    continue
                case "hid.report_id" where theirs.isEmpty, "hid.protocol" where theirs.isEmpty:
                    // Wireshark reads every DATA report as a boot report without a bthid.report_id,
                    // and does not pair a Get Protocol's answer with its request.
                    continue
                case "bnep.control_type", "bnep.list_length", "bnep.network_type_start", "bnep.network_type_end"
                    where !Self.values(b[Self.pairs.firstIndex { $0.btlog == "bnep.extension_type" }!]).isEmpty:
                    // Wireshark 4.0 starts an extension header's control packet one byte early
                    // (it reads the extension type as the control type); btlog reads it where
                    // BNEP 1.0 and Linux's bnep_rx_extension put it, after type and length.
                    continue
                case "iso.handle", "iso.pb", "iso.sequence", "iso.sdu_length" where theirs.isEmpty && file.hasPrefix("Fixtures/kernel-"):
                    // The kernel harness writes btmon's monitor format, whose ISO opcodes (18, 19)
                    // Wireshark 4.0 does not know; the H4 fixtures compare ISO in full.
                    continue
                case "avctp.pid" where theirs.isEmpty:
                    // btlog gives the continue and end packets of a fragmented AVCTP message
                    // the start packet's profile; Wireshark only the start packet.
                    continue
                case "l2cap.psm" where theirs.isEmpty:
                    // btlog labels every PDU of a channel with its PSM (responses, S-frames,
                    // credit-based commands); Wireshark only requests and I-frames.
                    continue
                default: break
                }
                if ours != theirs { failures.append("\(file) packet \(t[0]): \(pair.btlog) is \(b[index]), tshark's \(pair.tshark) is \(t[index])") }
                compared += 1
            }
        }
        return (failures, compared)
    }

    /// HFP: the AT command and result names tshark finds (it follows SDP to the channel and
    /// joins split commands, as btlog does) are the ones btlog finds, packet by packet.
    func testHandsFreeCommandsAgreeWithTshark() throws {
        let file = "Fixtures/bredr-handsfree.btsnoop"
        let ts = try Reference.output("tshark", ["-r", file, "-Y", "bthfp", "-T", "fields", "-E", "separator=/t", "-e", "frame.number", "-e", "bthfp.at_cmd"],
                                      recordedAs: "tshark/hfp-commands.tsv")
        let bt = try Tool.run(Tool.btlog, ["show", file, "--fields", "number,hfp.command,hfp.response"])
        XCTAssertEqual(bt.status, 0, bt.err)
        var ours: [String: Set<String>] = [:]
        for row in bt.out.split(separator: "\n") {
            let columns = row.split(separator: "\t", omittingEmptySubsequences: false)
            guard columns.count == 3 else { continue }
            ours[String(columns[0])] = Set((columns[1].split(separator: ",") + columns[2].split(separator: ",")).map(String.init))
        }
        var compared = 0
        for row in ts.split(separator: "\n") {
            let columns = row.split(separator: "\t", omittingEmptySubsequences: false)
            guard columns.count == 2 else { continue }
            let theirs = Set(columns[1].split(separator: ",").map(String.init))
            XCTAssertEqual(ours[String(columns[0])] ?? [], theirs, "packet \(columns[0])")
            compared += 1
        }
        XCTAssertGreaterThanOrEqual(compared, 15)
    }

    /// The trace that crashes btmon 5.66: btlog decodes all four packets and names Heart Rate.
    func testBtmonCrashTraceDecodes() throws {
        let result = try Tool.run(Tool.btlog, ["show", "Fixtures/btmon-crash-heart-rate.btsnoop"])
        XCTAssertEqual(result.status, 0, result.err)
        let lines = result.out.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 5)
        XCTAssertTrue(lines[1].hasSuffix("Read By Group Type Request - Start Handle: 0x0001 - End Handle: 0xFFFF - UUID: Primary Service"), lines[1])
        XCTAssertTrue(lines[2].hasSuffix("Read By Group Type Response - Heart Rate (0x0001-0x0005)"), lines[2])
        XCTAssertTrue(lines[3].hasSuffix("Read By Type Request - Start Handle: 0x0001 - End Handle: 0x0005 - UUID: Characteristic"), lines[3])
        // The request is still open when the capture ends: said once, on stderr.
        XCTAssertEqual(result.err, "btlog: warning: packet 4: Read By Type Request never answered (end of capture)\n")
    }
}
