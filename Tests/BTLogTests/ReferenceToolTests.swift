import XCTest
import Foundation
import BTCapture
import BTFixtures

/// Files btlog writes must open in tshark (Wireshark) and btmon (BlueZ) with the same packets.
final class ReferenceToolTests: XCTestCase {
    func write(_ frames: [Frame], as format: CaptureFileFormat) throws -> String {
        let path = NSTemporaryDirectory() + "btlog-ref-\(UUID().uuidString).\(format.rawValue)"
        try Data(try FixtureContainers.encode(frames, as: format)).write(to: URL(fileURLWithPath: path))
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    /// What tshark should print for a frame: command opcode, event code, ACL handle, as hex.
    func expectedFields(_ frame: Frame) -> [String] {
        let b = Array(frame.bytes)
        func hex(_ v: Int, _ width: Int) -> String { "0x" + String(format: "%0\(width)x", v) }
        switch frame.kind {
        case .command: return [hex(Int(b[0]) | Int(b[1]) << 8, 4), "", ""]
        case .event: return ["", hex(Int(b[0]), 2), ""]
        case .aclData: return ["", "", hex((Int(b[0]) | Int(b[1]) << 8) & 0x0FFF, 4)]
        default: return ["", "", ""]
        }
    }

    func testTsharkReadsEveryWrittenFormat() throws {
        guard let tshark = Reference.consumer("tshark") else { throw Reference.skip("tshark") }
        for (format, frames) in Scenarios.everyWriterFormat() {
            let path = try write(frames, as: format)
            let result = try Tool.run(tshark, ["-r", path, "-T", "fields", "-E", "separator=/t", "-e", "frame.number",
                                               "-e", "bthci_cmd.opcode", "-e", "bthci_evt.code", "-e", "bthci_acl.chandle"])
            XCTAssertEqual(result.status, 0, "\(format): \(result.err)")
            let rows = result.out.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            XCTAssertEqual(rows.count, frames.count, "\(format): tshark saw a different number of packets")
            for (row, frame) in zip(rows, frames) {
                let columns = row.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
                XCTAssertEqual(columns.first, String(frame.number), "\(format)")
                XCTAssertEqual(Array(columns.dropFirst()), expectedFields(frame), "\(format) packet \(frame.number)")
            }
        }
    }

    func testBtmonReadsBTSnoopAndBigEndianPacketLogger() throws {
        guard let btmon = Reference.consumer("btmon") else { throw Reference.skip("btmon") }
        // btmon 5.66 segfaults on an ATT Read By Type Request that follows a Read By Group Type
        // discovery (the regression named in the decoder issue); btlog decodes it. Those requests are
        // left out here so the rest of the file can be compared.
        let crashesBtmon = { (frame: Frame) -> Bool in
            let bytes = Array(frame.bytes)
            return frame.kind == .aclData && bytes.count > 8 && bytes[6] == 0x04 && bytes[7] == 0x00 && bytes[8] == 0x08
        }
        let dual = Scenarios.wwdcDual().filter { !crashesBtmon($0) }
        let hciOnly = Scenarios.renumbered(dual.filter { $0.kind.isHCI })
        let bigEndian = NSTemporaryDirectory() + "btlog-ref-\(UUID().uuidString).pklg"
        try Data(FixtureFiles.bigEndianPacketLogger(hciOnly)).write(to: URL(fileURLWithPath: bigEndian))
        addTeardownBlock { try? FileManager.default.removeItem(atPath: bigEndian) }
        let files = [try write(hciOnly, as: .btsnoopH4), try write(hciOnly, as: .btsnoopHCI),
                     try write(Scenarios.monitorSession().filter { !crashesBtmon($0) }, as: .btsnoopMonitor), bigEndian]
        // btmon prints a command as "< HCI Command: NAME (0xOGF|0xOCF) plen N".
        let expected = hciOnly.filter { $0.kind == .command }.map { frame -> String in
            let opcode = Int(frame.bytes[frame.bytes.startIndex]) | Int(frame.bytes[frame.bytes.startIndex + 1]) << 8
            return String(format: "(0x%02x|0x%04x)", opcode >> 10, opcode & 0x3FF)
        }
        for file in files {
            let result = try Tool.run(btmon, ["-r", file])
            XCTAssertEqual(result.status, 0, file)
            let commands = result.out.split(separator: "\n").filter { $0.hasPrefix("< HCI Command:") }.compactMap { line in
                (try? Regex("\\(0x[0-9a-f]{2}\\|0x[0-9a-f]{4}\\)")).flatMap { line.firstMatch(of: $0) }.map { String(line[$0.range]) }
            }
            XCTAssertEqual(commands, expected, file)
            let events = result.out.split(separator: "\n").filter { $0.hasPrefix("> HCI Event:") }.count
            XCTAssertEqual(events, hciOnly.filter { $0.kind == .event }.count, file)
        }
    }
}
