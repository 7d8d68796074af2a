import XCTest
import BTCapture
import BTFixtures
@testable import BTDecode

/// Vendor HCI on bytes laid out from their owners' public layouts: AOSP for Android's commands
/// and the Bluetooth Quality Report (BluetoothQualityReport.java, btif_bqr), BlueZ/Linux for
/// Broadcom's and Intel's. btmon and tshark read the same fixtures in BTLogTests.
final class VendorDecoderTests: XCTestCase {
    func decodeAll(_ frames: [Frame]) -> [Packet] {
        let decoder = Decoder()
        return frames.map { decoder.decode($0) }
    }

    func value(_ packet: Packet, _ name: String) -> FieldValue? {
        for layer in packet.layers.reversed() {
            if let field = layer.fieldCopies.first(where: { $0.definition.name == name }) { return field.value }
        }
        return nil
    }

    func int(_ packet: Packet, _ name: String) -> Int64? {
        switch value(packet, name) {
        case .unsigned(let v, _)?: return Int64(v)
        case .signed(let v)?: return v
        default: return nil
        }
    }

    /// A vendor event 0xFF carrying an Android sub-event, on a controller whose vendor
    /// capabilities may name the BQR version.
    func event(_ parameters: [UInt8], after setup: [Frame] = []) -> Packet {
        let frame = Frame(number: setup.count + 1, timestamp: 0, kind: .event, direction: .received,
                          bytes: [0xFF, UInt8(parameters.count)] + parameters)
        return decodeAll(setup + [frame]).last!
    }

    // MARK: Bluetooth Quality Report, one test per report ID

    func testQualityMonitorEveryVersionByLength() {
        // The common part grew: 48 bytes (v3), 72 (v4: ISO counters), 79 (v5: address, then ISO),
        // 85 (v6: unreceived, coex). Each is read whole and nothing is left over.
        for version in [3, 4, 5, 6] {
            let report = Scenarios.bqrCommon(id: 0x01, handle: 0x0003, rssi: -72, snr: 18, unusedChannels: 21, retransmissions: 33,
                                             nak: 4, peer: "00:1B:66:AA:BB:CC", txTotal: 500, crcErrors: 9, version: version)
            XCTAssertEqual(report.count, [3: 48, 4: 72, 5: 79, 6: 85][version])
            let packet = event([0x58] + report)
            XCTAssertEqual(packet.typeLabel, "BQR")
            XCTAssertEqual(int(packet, "bqr.report_id"), 1)
            XCTAssertEqual(int(packet, "hci.handle"), 3)
            XCTAssertEqual(int(packet, "bqr.rssi"), -72)
            XCTAssertEqual(int(packet, "bqr.snr"), 18)
            XCTAssertEqual(int(packet, "bqr.unused_afh_channel_count"), 21)
            XCTAssertEqual(int(packet, "bqr.retransmission_count"), 33)
            XCTAssertEqual(int(packet, "bqr.nak_count"), 4)
            XCTAssertEqual(int(packet, "bqr.lsto"), 8000)
            XCTAssertEqual(int(packet, "bqr.packet_type"), 25, "2-DH5 is the 25th packet type")
            XCTAssertNil(value(packet, "bqr.data"), "v\(version): nothing left over")
            XCTAssertEqual(int(packet, "bqr.tx_total_packets"), version >= 4 ? 500 : nil)
            XCTAssertEqual(int(packet, "bqr.crc_error_packets"), version >= 4 ? 9 : nil)
            XCTAssertEqual(value(packet, "bqr.remote_address").map { "\($0.displayText)" }, version >= 5 ? "00:1B:66:AA:BB:CC" : nil)
            XCTAssertTrue(packet.issues.isEmpty, "v\(version): \(packet.issues.map(\.message))")
        }
    }

    func testApproachingLSTOReadsTheVendorPartAfterTheCommonPart() {
        let tail: [UInt8] = [0x84] + le32(0x0000_00AA) + le32(4321) + le16(7) + le16(8) + le16(9) + le32(0x0001_0000) + le32(0x0000_FF00)
        XCTAssertEqual(tail.count, 23)
        for version in [3, 5, 6] {
            let packet = event([0x58] + Scenarios.bqrCommon(id: 0x02, handle: 0x0004, rssi: -95, snr: 1, unusedChannels: 60,
                                                           retransmissions: 400, peer: "00:1B:66:AA:BB:CC", version: version) + tail)
            XCTAssertEqual(int(packet, "bqr.connection_state"), 0x84, "v\(version)")
            XCTAssertEqual(value(packet, "bqr.connection_state").flatMap { _ in packet.layers.last?.fieldCopies.first { $0.definition.name == "bqr.connection_state" }?.text }, "Sniff Active (0x84)")
            XCTAssertEqual(int(packet, "bqr.slots_used"), 4321)
            XCTAssertEqual(int(packet, "bqr.cxm_denials"), 7)
            XCTAssertEqual(int(packet, "bqr.tx_skipped"), 8)
            XCTAssertEqual(int(packet, "bqr.rf_loss"), 9)
            XCTAssertNil(value(packet, "bqr.data"))
            XCTAssertEqual(packet.issues.map(\.severity), [.warning])
        }
    }

    func testA2DPChoppyAndSCOChoppy() {
        let a2dp: [UInt8] = le32(0x100) + le32(0x200) + le16(11) + le16(2) + le16(3) + [9, 4]
        let choppy = event([0x58] + Scenarios.bqrCommon(id: 0x03, handle: 0x0005, rssi: -80, snr: 10, unusedChannels: 30,
                                                       retransmissions: 90, peer: "00:1B:66:AA:BB:CC") + a2dp)
        XCTAssertEqual(int(choppy, "bqr.glitch_count"), 11)
        XCTAssertEqual(int(choppy, "bqr.acl_tx_queue_length"), 9)
        XCTAssertEqual(int(choppy, "bqr.link_quality"), 4)
        XCTAssertTrue(choppy.summary.contains("A2DP Choppy"), choppy.summary)
        XCTAssertTrue(choppy.summary.contains("Link Quality: Low") || choppy.summary.contains("Low"), choppy.summary)
        // SCO: glitches, eSCO interval and window, air format 3 (transparent), then 14 counters.
        let counters = (1 ... 14).flatMap { le16(UInt16($0)) }
        let sco = event([0x58] + Scenarios.bqrCommon(id: 0x04, handle: 0x0006, rssi: -80, snr: 10, unusedChannels: 30,
                                                    retransmissions: 90, peer: "00:1B:66:AA:BB:CC", version: 3)
                        + le16(6) + [12, 2, 3] + counters)
        XCTAssertEqual(int(sco, "bqr.glitch_count"), 6)
        XCTAssertEqual(int(sco, "bqr.esco_interval"), 12)
        XCTAssertEqual(int(sco, "bqr.air_format"), 3)
        XCTAssertEqual(int(sco, "bqr.instance_count"), 1)
        XCTAssertEqual(int(sco, "bqr.good_rx_frame_count"), 14)
        XCTAssertNil(value(sco, "bqr.data"))
    }

    func testConnectFailNamesTheHCIError() {
        let packet = event([0x58] + Scenarios.bqrCommon(id: 0x08, handle: 0, rssi: 0, snr: 0, unusedChannels: 0, retransmissions: 0,
                                                       peer: "00:1B:66:AA:BB:CC") + [0x04])
        XCTAssertEqual(int(packet, "bqr.fail_reason"), 4)
        XCTAssertTrue(packet.summary.hasSuffix("Page Timeout"), packet.summary)
        XCTAssertEqual(packet.issues.map(\.message), ["Connection failed: Page Timeout (0x04)"])
    }

    func testRootInflammationAndTraces() {
        let root = event([0x58, 0x05, 0x3E, 0x21, 0xDE, 0xAD])
        XCTAssertEqual(int(root, "bqr.error_code"), 0x3E)
        XCTAssertEqual(int(root, "bqr.vendor_error_code"), 0x21)
        XCTAssertEqual(value(root, "bqr.data"), .bytes([0xDE, 0xAD]))
        XCTAssertTrue(root.hasError)
        let trace = event([0x58, 0x11] + le16(0x0042) + [1, 2, 3])
        XCTAssertEqual(int(trace, "hci.handle"), 0x42)
        XCTAssertEqual(value(trace, "bqr.data"), .bytes([1, 2, 3]))
    }

    func testAdvanceRFStatsAndVendorReports() {
        // Advance RF Stats (0x09, and 0x0A periodic): extension info, period, then 19 u32 counters
        // (TX power by amplifier path, RSSI chain and delta histograms), as AOSP's HAL lays them out.
        let counters = (1 ... 19).flatMap { le32(UInt32($0) * 100) }
        for id: UInt8 in [0x09, 0x0A] {
            let stats = event([0x58, id, 0x01] + le32(5000) + counters)
            XCTAssertEqual(int(stats, "bqr.extension_info"), 1)
            XCTAssertEqual(int(stats, "bqr.period"), 5000)
            XCTAssertEqual(int(stats, "bqr.tx_power_ipa_bf"), 100)
            XCTAssertEqual(int(stats, "bqr.rssi_chain_below_90"), 1400)
            XCTAssertEqual(int(stats, "bqr.rssi_delta_above_11"), 1900)
            XCTAssertNil(value(stats, "bqr.data"))
            XCTAssertTrue(stats.issues.isEmpty)
        }
        // Reports whose content is the controller vendor's: named, their bytes kept.
        for (id, name) in [(UInt8(0x13), "Controller Debug Info"), (0x10, "Vendor Specific Quality"), (0x20, "Vendor Specific Trace"),
                           (0x06, "Energy Monitor"), (0x07, "LE Audio Choppy")] {
            let packet = event([0x58, id, 0xAB, 0xCD])
            XCTAssertEqual(packet.summary, "Bluetooth Quality Report - \(name)")
            XCTAssertEqual(value(packet, "bqr.data"), .bytes([0xAB, 0xCD]))
            XCTAssertTrue(packet.issues.isEmpty)
        }
    }

    func testShortAndUnknownReportsAreSaidAndKept() {
        // A quality monitor cut to 20 bytes: the fields read stand, the shortfall is a warning.
        let full = Scenarios.bqrCommon(id: 0x01, handle: 0x0003, rssi: -60, snr: 20, unusedChannels: 5, retransmissions: 1, peer: "00:00:00:00:00:01")
        let short = event([0x58] + full.prefix(20))
        XCTAssertEqual(int(short, "bqr.rssi"), -60)
        XCTAssertEqual(short.issues.count, 1)
        XCTAssertTrue(short.issues[0].message.hasPrefix("Quality report stops short"), short.issues[0].message)
        let unknown = event([0x58, 0x7E, 1, 2])
        XCTAssertEqual(unknown.issues.map(\.message), ["Unknown quality report ID 0x7E"])
        XCTAssertEqual(value(unknown, "bqr.data"), .bytes([1, 2]))
        let empty = event([0x58])
        XCTAssertFalse(empty.issues.isEmpty)
    }

    func testCapabilitiesVersionChoosesTheCommonPart() {
        // A 79-byte A2DP report could be v5's common part with nothing after, but the
        // controller said v3 (0x0098): 48 common bytes, the 16-byte A2DP part, then vendor bytes.
        let capabilities = Frame(number: 1, timestamp: 0, kind: .event, direction: .received,
                                 bytes: [0x0E, 0x12, 0x01, 0x53, 0xFD, 0x00, 4, 1] + le16(100) + [8, 1, 8, 1] + le16(0x0098) + le16(8) + [0, 0])
        let a2dp = le32(1) + le32(2) + le16(13) + le16(0) + le16(0) + [1, 2]
        let report = Scenarios.bqrCommon(id: 0x03, handle: 1, rssi: -70, snr: 10, unusedChannels: 0, retransmissions: 0, peer: "00:00:00:00:00:01", version: 3)
        let packet = event([0x58] + report + a2dp + [0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE], after: [capabilities])
        XCTAssertEqual(int(packet, "bqr.glitch_count"), 13)
        XCTAssertEqual(value(packet, "bqr.data")?.displayText.count, 15 * 3 - 1)
    }

    // MARK: The Android session

    func testAndroidSessionAgainstWhatWasBuilt() {
        let (frames, marks) = Scenarios.androidVendorSession()
        let packets = decodeAll(frames)
        func at(_ name: String) -> Packet { packets[marks[name]! - 1] }
        let caps = at("capabilities")
        XCTAssertEqual(caps.typeLabel, "Android HCI")
        XCTAssertEqual(int(caps, "android.max_advt_instances"), 5)
        XCTAssertEqual(int(caps, "android.total_scan_results_storage"), 1024)
        XCTAssertEqual(int(caps, "android.max_filter"), 16)
        XCTAssertEqual(int(caps, "android.version_supported"), 0x0104)
        XCTAssertEqual(int(caps, "android.a2dp_source_offload_capability_mask"), 3)
        XCTAssertEqual(int(caps, "android.bluetooth_quality_report_support"), 1)
        XCTAssertTrue(caps.issues.isEmpty, "\(caps.issues.map(\.message))")
        XCTAssertEqual(int(at("bqrConfig"), "android.quality_event_mask"), 0x8F)
        XCTAssertEqual(int(at("bqrConfig"), "android.minimum_report_interval"), 1000)
        let parameters = at("apcfParameters")
        XCTAssertEqual(int(parameters, "android.apcf_subcommand"), 1)
        XCTAssertEqual(int(parameters, "android.feature_selection"), 0x0004)
        XCTAssertEqual(int(parameters, "android.rssi_high_threshold"), -70)
        XCTAssertEqual(int(parameters, "android.onlost_timeout"), 3000)
        XCTAssertEqual(int(parameters, "android.num_of_tracking_entries"), 8)
        XCTAssertEqual(value(at("apcfServiceUUID"), "android.service_uuid"), .bytes([0x0D, 0x18]))
        XCTAssertEqual(value(at("apcfServiceUUID"), "android.service_uuid_mask"), .bytes([0xFF, 0xFF]))
        XCTAssertEqual(at("apcfAddress").peer?.description, "C8:FD:19:00:11:22")
        XCTAssertEqual(value(at("apcfManufacturer"), "android.manufacturer_data"), .bytes([0x4C, 0x00, 0x12, 0x19]))
        XCTAssertEqual(int(at("batchScanParameters"), "android.scan_interval"), 8192)
        XCTAssertEqual(int(at("batchScanParameters"), "android.scan_mode"), 2)
        XCTAssertEqual(at("batchThreshold").summary, "Batch Scan Storage Threshold")
        // Full records: address, type, TX power, RSSI, timestamp, advertising data, scan response.
        let results = at("batchResults")
        let addresses = results.layers.last!.fieldCopies.filter { $0.definition.name == "android.address" }.map { $0.value.displayText }
        XCTAssertEqual(addresses, ["A0:9E:1A:12:34:56", "C8:FD:19:00:11:22"])
        XCTAssertEqual(results.layers.last!.fieldCopies.filter { $0.definition.name == "android.rssi" }.map(\.value), [.signed(-61), .signed(-77)])
        XCTAssertEqual(value(results, "adv.name"), .text("Polar H10"))
        XCTAssertTrue(results.issues.isEmpty, "\(results.issues.map(\.message))")
        XCTAssertEqual(int(at("multiAdvParameters"), "android.instance"), 1)
        XCTAssertEqual(int(at("multiAdvParameters"), "android.tx_power"), -7)
        XCTAssertEqual(value(at("multiAdvData"), "adv.name"), .text("Pixel"))
        XCTAssertTrue(at("multiAdvData").issues.isEmpty, "\(at("multiAdvData").issues.map(\.message))")
        let energy = packets[marks["energyInfo"]!]
        XCTAssertEqual(int(energy, "android.total_idle_time"), 9_500_000)
        XCTAssertEqual(at("tracking").peer?.description, "C8:FD:19:00:11:22")
        XCTAssertEqual(int(at("a2dpOffload"), "android.l2cap_mtu"), 1005)
        XCTAssertEqual(at("a2dpOffload").peer?.description, "00:1B:66:AA:BB:CC")
        // Every quality report names the headset through its handle; RSSI falls as built.
        let rssi = (0 ..< 6).map { int(at("monitor\($0)"), "bqr.rssi") }
        XCTAssertEqual(rssi, [-58, -63, -71, -79, -86, -91])
        XCTAssertTrue((0 ..< 6).allSatisfy { at("monitor\($0)").peer?.description == "00:1B:66:AA:BB:CC" })
        XCTAssertEqual(int(at("a2dpChoppy"), "bqr.glitch_count"), 7)
        XCTAssertEqual(int(at("scoChoppy"), "bqr.good_rx_frame_count"), 77)
        XCTAssertEqual(int(at("approachingLSTO"), "bqr.rf_loss"), 14)
        XCTAssertEqual(int(at("connectFail"), "bqr.fail_reason"), 4)
        XCTAssertEqual(int(at("multiAdvStateChange"), "android.instance"), 1)
        // Nothing in the session is left as unexplained bytes.
        for (i, packet) in packets.enumerated() {
            XCTAssertNil(value(packet, "android.data"), "packet \(i + 1) \(packet.summary)")
            XCTAssertNil(value(packet, "bqr.data"), "packet \(i + 1) \(packet.summary)")
            XCTAssertNil(value(packet, "hci.parameters"), "packet \(i + 1) \(packet.summary)")
        }
    }

    // MARK: Broadcom and Intel

    func testBroadcomFirmwareDownload() {
        let (frames, marks) = Scenarios.broadcomFirmwareSession()
        let packets = decodeAll(frames)
        func at(_ name: String) -> Packet { packets[marks[name]! - 1] }
        XCTAssertEqual(at("firstWriteRAM").summary, "Write RAM - Address: 0x00210000")
        XCTAssertEqual(value(at("firstWriteRAM"), "broadcom.firmware_data").map { if case .bytes(let b) = $0 { b.count } else { 0 } }, 240)
        XCTAssertEqual(int(at("launchRAM"), "broadcom.address"), 0xFFFF_FFFF)
        XCTAssertEqual(int(at("baudRate"), "broadcom.baud_rate"), 3_000_000)
        XCTAssertEqual(at("writeAddress").peer?.description, "43:29:B1:55:01:00")
        XCTAssertEqual(int(at("sleepMode"), "broadcom.sleep_mode"), 1)
        XCTAssertEqual(int(at("enableWBS"), "broadcom.wbs_codec"), 2)
        XCTAssertEqual(int(at("verboseVersion"), "broadcom.build_number"), 0x0215)
        XCTAssertEqual(int(at("vidPID"), "broadcom.vid"), 0x0A5C)
        // An opcode Broadcom does not document: its name, bytes, a note, nothing guessed.
        let undocumented = packets[marks["undocumented"]! - 2]
        XCTAssertEqual(undocumented.summary, "Broadcom Command 0xFCAA")
        XCTAssertEqual(value(undocumented, "broadcom.data"), .bytes([0x01, 0x02]))
        XCTAssertEqual(undocumented.issues.map(\.severity), [.note])
    }

    func testVendorRecognisedByItsFirmwareDownloadWithoutTheVersion() throws {
        // Without Read Local Version Information, 0xFC01 could be Broadcom's Write BD ADDR or
        // Intel's Reset: before the download it is left as bytes; Download Minidriver says Broadcom.
        let frames = Scenarios.broadcomFirmwareSession().frames.filter { frame in
            !(frame.bytes.starts(with: [0x01, 0x10]) || frame.bytes.starts(with: [0x0E, 0x0C, 0x01, 0x01, 0x10]))
        }
        var early = frames
        early.insert(Frame(number: 0, timestamp: 0, kind: .command, direction: .sent, bytes: [0x01, 0xFC, 0x06, 1, 2, 3, 4, 5, 6]), at: 0)
        let packets = decodeAll(early)
        XCTAssertEqual(packets[0].typeLabel, "HCI Command")
        XCTAssertEqual(value(packets[0], "hci.parameters"), .bytes([1, 2, 3, 4, 5, 6]))
        XCTAssertTrue(packets[0].issues.contains { $0.message.contains("does not name") })
        let later = packets.first { $0.summary.hasPrefix("Write BD ADDR") }
        XCTAssertNotNil(later, "Broadcom's Write BD ADDR once the download showed the vendor")
        let recognising = try XCTUnwrap(packets.first { $0.summary == "Download Minidriver" })
        XCTAssertEqual(recognising.issues.map(\.message), ["The capture does not name the controller's manufacturer (no Read Local Version Information): taken to be Broadcom from this firmware download command"])
    }

    func testIntelBoot() {
        let (frames, marks) = Scenarios.intelBootSession()
        let packets = decodeAll(frames)
        func at(_ name: String) -> Packet { packets[marks[name]! - 1] }
        let version = at("bootloaderVersion")
        XCTAssertEqual(int(version, "intel.hardware_platform"), 0x37)
        XCTAssertEqual(int(version, "intel.hardware_variant"), 0x0B)
        XCTAssertEqual(int(version, "intel.firmware_variant"), 0x06)
        XCTAssertEqual(int(version, "intel.firmware_build_week"), 0x20)
        XCTAssertEqual(int(at("operationalVersion"), "intel.firmware_variant"), 0x23)
        XCTAssertEqual(at("bootParams").peer?.description, "A0:88:B4:01:02:03")
        XCTAssertEqual(int(at("bootParams"), "intel.device_revision_id"), 0x0010)
        XCTAssertEqual(int(at("secureSendInit"), "intel.secure_send_type"), 0)
        XCTAssertEqual(int(at("secureSendResult"), "intel.secure_send_result"), 0)
        XCTAssertEqual(int(at("secureSendResult"), "intel.secure_send_opcode"), 0xFC09)
        XCTAssertEqual(int(at("reset"), "intel.boot_address"), 0x0002_0000)
        let bootup = at("bootup")
        XCTAssertEqual(bootup.summary, "Bootup - Operational Firmware - Intel Reset Command")
        XCTAssertEqual(int(bootup, "intel.ddc_status"), 2)
        XCTAssertEqual(int(at("ddcConfig"), "intel.identifier"), 0x0144)
        // DDC Config Write's entries: length, identifier, data, as btmon reads them.
        let ddc = packets[marks["ddcConfig"]! - 2].layers.last!.fieldCopies.filter { $0.definition.name == "intel.identifier" }.map(\.value)
        XCTAssertEqual(ddc, [.u16(0x0144), .u16(0x0123)])
        XCTAssertTrue(packets[marks["ddcConfig"]! - 2].issues.isEmpty)
        XCTAssertEqual(int(at("fatalException"), "intel.line"), 0x0312)
        XCTAssertTrue(at("fatalException").hasError)
        XCTAssertEqual(at("undocumentedEvent").summary, "Intel Vendor Event 0x42")
        XCTAssertEqual(value(at("undocumentedEvent"), "intel.data"), .bytes([0x01, 0x02]))
    }

    func testRealtekAndQualcommFirmwareDownload() {
        // Read Local Version Information naming Realtek (0x005D), then a firmware fragment
        // (index 0x81: the last, fragment 1) and its return; then Qualcomm's EDL TLV download.
        func version(_ company: UInt16) -> Frame {
            Frame(number: 1, timestamp: 0, kind: .event, direction: .received,
                  bytes: [0x0E, 0x0C, 0x01, 0x01, 0x10, 0x00, 0x0A, 0x00, 0x00, 0x0A] + le16(company) + [0x00, 0x00])
        }
        let realtek = decodeAll([version(0x005D),
                                 Frame(number: 2, timestamp: 1, kind: .command, direction: .sent, bytes: [0x20, 0xFC, 0x05, 0x81, 0xAA, 0xBB, 0xCC, 0xDD]),
                                 Frame(number: 3, timestamp: 2, kind: .event, direction: .received, bytes: [0x0E, 0x05, 0x01, 0x20, 0xFC, 0x00, 0x81]),
                                 Frame(number: 4, timestamp: 3, kind: .command, direction: .sent, bytes: [0x6D, 0xFC, 0x00])])
        XCTAssertEqual(realtek[1].typeLabel, "Realtek HCI")
        XCTAssertEqual(int(realtek[1], "realtek.index"), 0x81)
        XCTAssertEqual(value(realtek[1], "realtek.firmware_data"), .bytes([0xAA, 0xBB, 0xCC, 0xDD]))
        XCTAssertEqual(int(realtek[2], "realtek.index"), 0x81)
        XCTAssertEqual(realtek[3].summary, "Read ROM Version", "0xFC6D is Realtek's, not Broadcom's I2S command, on a Realtek controller")
        let qualcomm = decodeAll([version(0x001D),
                                  Frame(number: 2, timestamp: 1, kind: .command, direction: .sent, bytes: [0x00, 0xFC, 0x05, 0x1E, 0x03, 0x01, 0x02, 0x03])])
        XCTAssertEqual(qualcomm[1].summary, "EDL Patch - TLV Download - Segment Length: 3")
        XCTAssertEqual(int(qualcomm[1], "qualcomm.subcommand"), 0x1E)
        XCTAssertEqual(value(qualcomm[1], "qualcomm.segment"), .bytes([1, 2, 3]))
    }

    func testIntelReadVersionInTLVForm() {
        // Newer Intel controllers answer Read Version (Requested_Type 0xFF) with TLVs: type,
        // length, value. Image Type (0x1C) 0x03 is the operational firmware; OTP BD_ADDR (0x30).
        let version = Frame(number: 1, timestamp: 0, kind: .event, direction: .received,
                            bytes: [0x0E, 0x0C, 0x01, 0x01, 0x10, 0x00, 0x0A, 0x00, 0x00, 0x0A, 0x02, 0x00, 0x00, 0x00])
        let tlvs: [UInt8] = [0x10, 0x04] + le32(0x0001_2B37) + [0x1C, 0x01, 0x03] + [0x30, 0x06, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01]
        let command = Frame(number: 2, timestamp: 1, kind: .command, direction: .sent, bytes: [0x05, 0xFC, 0x01, 0xFF])
        let answer = Frame(number: 3, timestamp: 2, kind: .event, direction: .received,
                           bytes: [0x0E, UInt8(4 + tlvs.count), 0x01, 0x05, 0xFC, 0x00] + tlvs)
        let packets = decodeAll([version, command, answer])
        XCTAssertEqual(int(packets[1], "intel.requested_type"), 0xFF)
        let types = packets[2].layers.last!.fieldCopies.filter { $0.definition.name == "intel.tlv_type" }.map(\.value)
        XCTAssertEqual(types, [.u8(0x10), .u8(0x1C), .u8(0x30)])
        XCTAssertEqual(int(packets[2], "intel.image_type"), 3)
        XCTAssertEqual(packets[2].summary, "Command Complete: Read Version - Operational firmware")
        XCTAssertNil(value(packets[2], "intel.hardware_platform"), "not read as the legacy form")
        XCTAssertTrue(packets[2].issues.isEmpty)
    }

    func testQualcommEDLResponses() {
        // With no version in the capture, the EDL patch command says Qualcomm; the controller
        // answers with vendor events: response 0x00, type 0x02 (version: product, patch, ROM,
        // SoC), type 0x04 (a TLV segment taken, 0x00), type 0x23 (board ID, big-endian).
        func event(_ number: Int, _ bytes: [UInt8]) -> Frame {
            Frame(number: number, timestamp: Int64(number), kind: .event, direction: .received, bytes: [0xFF, UInt8(bytes.count)] + bytes)
        }
        let packets = decodeAll([
            Frame(number: 1, timestamp: 1, kind: .command, direction: .sent, bytes: [0x00, 0xFC, 0x01, 0x19]),
            event(2, [0x00, 0x02] + le32(0x0000_0008) + le16(0x0044) + le16(0x0302) + le32(0x4001_0214)),
            event(3, [0x00, 0x04, 0x00]),
            event(4, [0x00, 0x04, 0x03]),
            event(5, [0x00, 0x23, 0x02, 0x01, 0x0A]),
            event(6, [0x00, 0x77, 0x01]),
        ])
        XCTAssertEqual(packets[0].summary, "EDL Patch - Get Version")
        XCTAssertTrue(packets[0].issues.contains { $0.message.contains("taken to be Qualcomm") })
        XCTAssertEqual(packets[1].typeLabel, "Qualcomm HCI")
        XCTAssertEqual(int(packets[1], "qualcomm.product_id"), 8)
        XCTAssertEqual(int(packets[1], "qualcomm.rom_version"), 0x0302)
        XCTAssertEqual(int(packets[1], "qualcomm.soc_id"), 0x4001_0214)
        XCTAssertTrue(packets[2].issues.isEmpty)
        XCTAssertTrue(packets[3].hasError, "a TLV segment refused")
        XCTAssertEqual(value(packets[4], "qualcomm.board_id"), .bytes([0x01, 0x0A]))
        XCTAssertEqual(value(packets[5], "qualcomm.data"), .bytes([0x01]))
        XCTAssertEqual(packets[5].issues.map(\.severity), [.note])
    }

    func testMonitorIndexInfoNamesTheManufacturer() {
        // btmon -w captures: the monitor's Index Info (address, manufacturer 2: Intel) for hci0,
        // then 0xFC01 is Intel's Reset, not Broadcom's Write BD ADDR.
        let info = Frame(number: 1, timestamp: 0, kind: .indexInfo, direction: .none, controller: 0,
                         bytes: addressBytes("00:11:22:33:44:55") + le16(0x0002))
        let reset = Frame(number: 2, timestamp: 1, kind: .command, direction: .sent, controller: 0,
                          bytes: [0x01, 0xFC, 0x08, 0x00, 0x01, 0x00, 0x01] + le32(0x0002_0000))
        let packets = decodeAll([info, reset])
        XCTAssertEqual(packets[1].summary, "Reset - Soft Software Reset")
        XCTAssertEqual(int(packets[1], "intel.boot_address"), 0x0002_0000)
    }

    func testUnknownManufacturerKeepsTheBytes() {
        let packets = decodeAll([Frame(number: 1, timestamp: 0, kind: .event, direction: .received, bytes: [0xFF, 0x03, 0x10, 0x20, 0x30])])
        XCTAssertEqual(packets[0].typeLabel, "HCI Event")
        XCTAssertEqual(value(packets[0], "hci.parameters"), .bytes([0x10, 0x20, 0x30]))
    }
}
