import XCTest
import Foundation

/// Vendor HCI against the tools that decode some of it: tshark's bthci_vendor.broadcom (which
/// also carries Android's LE extensions) and bthci_vendor.intel, and btmon's Broadcom and Intel
/// decoders, on the vendor fixtures. Every value they print for a field btlog also decodes must
/// be btlog's value in the same packet. Neither decodes the Bluetooth Quality Report or most of
/// Android's commands: VendorDecoderTests checks those against AOSP's layouts.
final class VendorReferenceTests: XCTestCase {
    static let files = ["Fixtures/android-vendor.btsnoop", "Fixtures/broadcom-firmware.btsnoop", "Fixtures/intel-boot.btsnoop"]

    /// tshark's field → btlog's (one of several, `|`).
    static let tsharkPairs: [String: String] = [
        "bthci_vendor.broadcom.firmware.address": "broadcom.address", "bthci_vendor.broadcom.baudrate": "broadcom.baud_rate",
        "bthci_vendor.broadcom.bd_addr": "broadcom.bd_addr|android.own_address|android.peer_address", "bthci_vendor.broadcom.sleep_mode": "broadcom.sleep_mode",
        "bthci_vendor.broadcom.chip_id": "broadcom.chip_id", "bthci_vendor.broadcom.target_id": "broadcom.target_id",
        "bthci_vendor.broadcom.build_base": "broadcom.build_base", "bthci_vendor.broadcom.build_number": "broadcom.build_number",
        "bthci_vendor.broadcom.vid": "broadcom.vid", "bthci_vendor.broadcom.pid": "broadcom.pid",
        "bthci_vendor.broadcom.codec": "broadcom.wbs_codec", "bthci_vendor.broadcom.sco.pcm_routing": "broadcom.sco_routing",
        "bthci_vendor.broadcom.uart_clock": "broadcom.uart_clock",
        "bthci_vendor.broadcom.max_advertising_instance": "android.max_advt_instances",
        "bthci_vendor.broadcom.resolvable_private_address_offloading": "android.offloaded_resolution_of_private_address",
        "bthci_vendor.broadcom.total_scan_results": "android.total_scan_results_storage",
        "bthci_vendor.broadcom.max_irk_list": "android.max_irk_list_size", "bthci_vendor.broadcom.max_filter": "android.max_filter",
        "bthci_vendor.broadcom.le.filter_index": "android.filter_index",
        "bthci_vendor.broadcom.le.total_rx_time": "android.total_rx_time", "bthci_vendor.broadcom.le.total_tx_time": "android.total_tx_time",
        "bthci_vendor.broadcom.le.total_idle_time": "android.total_idle_time",
        "bthci_vendor.broadcom.le.total_energy_used": "android.total_energy_used",
        "bthci_vendor.broadcom.le.batch_scan.full_max": "android.full_max",
        "bthci_vendor.broadcom.le.batch_scan.truncate_max": "android.truncated_max",
        "bthci_vendor.broadcom.le.batch_scan.notify_threshold": "android.notify_threshold",
        "bthci_vendor.broadcom.le.batch_scan.interval": "android.scan_interval", "bthci_vendor.broadcom.le.batch_scan.window": "android.scan_window",
        "bthci_vendor.broadcom.le.batch_scan.discard_rule": "android.discard_rule",
        "bthci_vendor.broadcom.le.batch_scan.report_format": "android.report_format",
        "bthci_vendor.broadcom.le.batch_scan.number_of_records": "android.num_records",
        "bthci_vendor.broadcom.le.multi_advertising.min_interval": "android.advertising_interval_min",
        "bthci_vendor.broadcom.le.multi_advertising.max_interval": "android.advertising_interval_max",
        "bthci_vendor.broadcom.le.multi_advertising.channel_map": "android.advertising_channel_map",
        "bthci_vendor.broadcom.le.multi_advertising.filter_policy": "android.advertising_filter_policy",
        "bthci_vendor.broadcom.le.multi_advertising.instance_id": "android.instance",
        "bthci_vendor.intel.reset.type": "intel.reset_type", "bthci_vendor.intel.reset.patch_enable": "intel.patch_enable",
        "bthci_vendor.intel.reset.ddc_reload": "intel.ddc_reload", "bthci_vendor.intel.reset.boot.option": "intel.boot_option",
        "bthci_vendor.intel.reset.boot.address": "intel.boot_address", "bthci_vendor.intel.secure_send.type": "intel.secure_send_type",
        "bthci_vendor.intel.identifier": "intel.identifier", "bthci_vendor.intel.manufacturer.mode": "intel.mode_switch",
        "bthci_vendor.intel.manufacturer.reset": "intel.manufacturer_reset", "bthci_vendor.intel.transmit_traces": "intel.transmit_traces",
        "bthci_vendor.intel.transmit_arq": "intel.transmit_arq", "bthci_vendor.intel.receive_traces": "intel.receive_traces",
    ]

    /// Where tshark 4.0 reads a layout otherwise than its owner wrote it, by file, packet and
    /// tshark field, with the evidence: btlog follows the owner (and btmon, where it decodes).
    static let tsharkMisreads: [String: String] = [
        // AOSP fills Set Advertising Data's 31-byte block and puts the instance in its last byte
        // (param[BTM_BLE_MULTI_ADV_WRITE_DATA_LEN - 1]); tshark reads it right after the data.
        "android-vendor.btsnoop #34 bthci_vendor.broadcom.le.multi_advertising.instance_id": "instance after the 31-byte block",
        // AOSP's energy info return is four u32 after the status; tshark reads other widths.
        "android-vendor.btsnoop #39 bthci_vendor.broadcom.le.total_tx_time": "four u32",
        "android-vendor.btsnoop #39 bthci_vendor.broadcom.le.total_rx_time": "four u32",
        "android-vendor.btsnoop #39 bthci_vendor.broadcom.le.total_idle_time": "four u32",
        "android-vendor.btsnoop #39 bthci_vendor.broadcom.le.total_energy_used": "four u32",
        // Intel Reset: type, patch enable, DDC reload, boot option, boot address (btmon agrees);
        // tshark reads the boot option byte as a second DDC reload.
        "intel-boot.btsnoop #20 bthci_vendor.intel.reset.boot.option": "btmon: Boot option: Specified address (0x01)",
        "intel-boot.btsnoop #20 bthci_vendor.intel.reset.ddc_reload": "btmon: DDC parameters: Do not reload (0x00)",
        // DDC Config Write entries are length, identifier, data (btmon: 0x0144, 0x0123).
        "intel-boot.btsnoop #24 bthci_vendor.intel.identifier": "btmon: Identifier 0x0144, 0x0123",
    ]

    /// btmon's line name → btlog's fields.
    static let btmonPairs: [String: String] = [
        "Chip ID": "broadcom.chip_id", "Build target": "broadcom.target_id", "Build baseline": "broadcom.build_base",
        "Build number": "broadcom.build_number", "Encoded baud rate": "broadcom.encoded_baud_rate", "Explicit baud rate": "broadcom.baud_rate",
        "Address": "broadcom.address|broadcom.bd_addr", "Sleep mode": "broadcom.sleep_mode", "SCO routing": "broadcom.sco_routing",
        "PCM interface rate": "broadcom.pcm_interface_rate", "Frame type": "broadcom.frame_type", "Sync mode": "broadcom.sync_mode",
        "Clock mode": "broadcom.clock_mode", "Mode": "broadcom.wbs_enable", "Codec": "broadcom.wbs_codec", "UART clock": "broadcom.uart_clock",
        "Hardware platform": "intel.hardware_platform", "Hardware variant": "intel.hardware_variant",
        "Firmware variant": "intel.firmware_variant", "Firmware patch": "intel.firmware_patch_number",
        "Type": "intel.secure_send_type", "Result": "intel.secure_send_result", "Opcode": "intel.secure_send_opcode",
        "Reset type": "intel.reset_type|intel.bootup_reset_type", "Patch vectors": "intel.patch_enable",
        "DDC parameters": "intel.ddc_reload", "Boot option": "intel.boot_option", "Boot address": "intel.boot_address",
        "Zero": "intel.zero", "Number of packets": "intel.number_of_packets", "Source": "intel.source",
        "Reset reason": "intel.reset_reason", "DDC status": "intel.ddc_status", "Identifier": "intel.identifier",
        "Transmit traces": "intel.transmit_traces", "Transmit arq": "intel.transmit_arq", "Receive traces": "intel.receive_traces",
        "Line": "intel.line", "Module": "intel.module", "Reason": "intel.reason",
    ]

    /// A value as a number (its hex in parentheses, a 0x number, a decimal) or an address.
    static func normalized(_ text: Substring) -> String? {
        let text = text.trimmingCharacters(in: .whitespaces)
        if let open = text.range(of: "(0x", options: .backwards), let close = text[open.upperBound...].firstIndex(of: ")"),
           let v = UInt64(text[open.upperBound ..< close], radix: 16) { return String(v) }
        if text.count >= 17, text.prefix(17).filter({ $0 == ":" }).count == 5 { return text.prefix(17).uppercased() }
        if text.hasPrefix("0x") {
            let digits = text.dropFirst(2).prefix { $0.isHexDigit }
            return UInt64(digits, radix: 16).map(String.init)
        }
        let number = text.prefix { $0.isNumber || $0 == "-" }
        return Int64(number).map(String.init)
    }

    /// btlog's values of `fields` in each packet.
    func ours(_ file: String, _ fields: [String]) throws -> [Int: [String: Set<String>]] {
        let result = try Tool.run(Tool.btlog, ["show", file, "--fields", (["number"] + fields).joined(separator: ",")])
        XCTAssertEqual(result.status, 0, result.err)
        var values: [Int: [String: Set<String>]] = [:]
        for row in result.out.split(separator: "\n") {
            let columns = row.split(separator: "\t", omittingEmptySubsequences: false)
            guard let number = Int(columns[0]) else { continue }
            for (index, field) in fields.enumerated() where index + 1 < columns.count && !columns[index + 1].isEmpty {
                values[number, default: [:]][field] = Set(columns[index + 1].split(separator: ",").compactMap { Self.normalized($0) })
            }
        }
        return values
    }

    func testVendorFieldsAgreeWithTshark() throws {
        let theirFields = Self.tsharkPairs.keys.sorted()
        var compared = 0
        for file in Self.files {
            let name = (file as NSString).lastPathComponent
            let output = try Reference.output("tshark", ["-r", file, "-T", "fields", "-E", "separator=\t", "-E", "occurrence=a", "-E", "aggregator=,",
                                                         "-e", "frame.number"] + theirFields.flatMap { ["-e", $0] },
                                              recordedAs: "tshark/vendor/\(name).tsv")
            let ourFields = Array(Set(Self.tsharkPairs.values.flatMap { $0.split(separator: "|").map(String.init) })).sorted()
            let mine = try ours(file, ourFields)
            for row in output.split(separator: "\n") {
                let columns = row.split(separator: "\t", omittingEmptySubsequences: false)
                guard let number = Int(columns[0]) else { continue }
                for (index, field) in theirFields.enumerated() where index + 1 < columns.count && !columns[index + 1].isEmpty {
                    if Self.tsharkMisreads["\(name) #\(number) \(field)"] != nil { continue }
                    let theirs = Set(columns[index + 1].split(separator: ",").compactMap { Self.normalized($0) })
                    let candidates = Self.tsharkPairs[field]!.split(separator: "|").map(String.init)
                    let found = candidates.compactMap { mine[number]?[$0] }.reduce(Set<String>()) { $0.union($1) }
                    XCTAssertTrue(!found.isEmpty && theirs.isSubset(of: found),
                                  "\(name) #\(number): tshark \(field) = \(theirs.sorted()), btlog \(candidates) = \(found.sorted())")
                    compared += 1
                }
            }
        }
        XCTAssertGreaterThan(compared, 40, "tshark decodes Broadcom's, Android's and Intel's commands in the fixtures")
    }

    func testVendorValuesAgreeWithBtmon() throws {
        var compared = 0
        for file in Self.files where !file.contains("android") {
            let name = (file as NSString).lastPathComponent
            let output = try Reference.output("btmon", ["-r", file], recordedAs: "btmon/\(name).txt")
            let ourFields = Array(Set(Self.btmonPairs.values.flatMap { $0.split(separator: "|").map(String.init) })).sorted()
            let mine = try ours(file, ourFields)
            var frame: Int?
            for line in output.split(separator: "\n") {
                if let first = line.first, "<>@=".contains(first) {
                    frame = line.range(of: "#").flatMap { Int(line[$0.upperBound...].prefix { $0.isNumber }) }
                    continue
                }
                let text = line.drop { $0 == " " }
                guard let frame, let colon = text.range(of: ": "), let pair = Self.btmonPairs[String(text[..<colon.lowerBound])],
                      let theirs = Self.normalized(text[colon.upperBound...]) else { continue }
                // btmon's "Address" is also a Read Local Version line's; only vendor packets are compared.
                let candidates = pair.split(separator: "|").map(String.init)
                let found = candidates.compactMap { mine[frame]?[$0] }.reduce(Set<String>()) { $0.union($1) }
                guard !found.isEmpty || candidates.contains(where: { $0.hasPrefix(name.hasPrefix("intel") ? "intel." : "broadcom.") }) else { continue }
                XCTAssertTrue(found.contains(theirs), "\(name) #\(frame): btmon \(text), btlog \(candidates) = \(found.sorted())")
                compared += 1
            }
        }
        XCTAssertGreaterThan(compared, 40, "btmon decodes Broadcom's and Intel's commands in the fixtures")
    }
}
