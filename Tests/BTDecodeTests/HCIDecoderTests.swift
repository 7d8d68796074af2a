import XCTest
import BTCapture
@testable import BTDecode

/// HCI packets laid out from the Core specification (Vol 4, Part E, 5.4 and 7).
final class HCIDecoderTests: XCTestCase {
    func decode(_ kind: FrameKind, _ direction: Direction, _ bytes: [UInt8], with decoder: Decoder = Decoder()) -> Packet {
        decoder.decode(Frame(number: 1, timestamp: 0, kind: kind, direction: direction, bytes: bytes))
    }

    func testResetCommand() {
        // Reset: OGF 0x03, OCF 0x003 → opcode 0x0C03, little-endian 03 0C, no parameters.
        let packet = decode(.command, .sent, [0x03, 0x0C, 0x00])
        XCTAssertEqual(packet.typeLabel, "HCI Command")
        XCTAssertEqual(packet.summary, "Reset")
        XCTAssertEqual(packet.fieldCopy(HCIFields.opcode)?.value, .u16(0x0C03))
        XCTAssertEqual(packet.fieldCopy(HCIFields.ogf)?.value, .u8(0x03))
        XCTAssertTrue(packet.issues.isEmpty)
    }

    func testCommandCompleteReadBDAddr() {
        // Command Complete (0x0E), ncmd 1, opcode 0x1009, status 0, address 56:34:12:B6:99:F0 reversed on the wire.
        let packet = decode(.event, .received, [0x0E, 0x0A, 0x01, 0x09, 0x10, 0x00, 0x56, 0x34, 0x12, 0xB6, 0x99, 0xF0])
        XCTAssertEqual(packet.summary, "Command Complete: Read BD ADDR - F0:99:B6:12:34:56")
        XCTAssertEqual(packet.fieldCopy(HCIFields.commandOpcode)?.value, .u16(0x1009))
        XCTAssertEqual(packet.fieldCopy(HCIFields.status)?.value, .u8(0))
    }

    /// A PHY mask names each PHY set (Core Vol 4, Part E, 7.8.48), and says "None" when none is:
    /// LE Set Default PHY with All_PHYs 0x03 leaves both masks empty.
    func testPHYMasksAreNamed() {
        let none = decode(.command, .sent, [0x31, 0x20, 0x03, 0x03, 0x00, 0x00])
        XCTAssertEqual(none.summary, "LE Set Default PHY - TX PHYs: None - RX PHYs: None")
        let both = decode(.command, .sent, [0x31, 0x20, 0x03, 0x00, 0x05, 0x02])
        XCTAssertEqual(both.summary, "LE Set Default PHY - TX PHYs: LE 1M, LE Coded - RX PHYs: LE 2M")
        let rx = both.layers[0].fieldCopies.first { $0.definition.name == "hci.rx_phys" }
        XCTAssertEqual(rx?.text, "LE 2M (0x02)")
    }

    /// IO capability and authentication requirements of a BR/EDR IO Capability Request Reply
    /// (Core Vol 4, Part E, 7.1.29) are added as names.
    func testIOCapabilityReplyNamesItsValues() {
        let packet = decode(.command, .sent, [0x2B, 0x04, 0x09, 0x56, 0x34, 0x12, 0xB6, 0x99, 0xF0, 0x01, 0x00, 0x05])
        let fields = packet.layers[0].fieldCopies
        XCTAssertEqual(fields.first { $0.definition.name == "hci.authentication_requirements" }?.name, "MITM Protection Required - General Bonding")
        XCTAssertEqual(fields.first { $0.definition.name == "hci.io_capability" }?.name, "DisplayYesNo")
    }

    func testAdvertisingReportSummaryReadsLikePacketLogger() {
        // LE Meta 0x3E, subevent 0x02, 1 report, ADV_IND, random, address, 3 data bytes, RSSI -67 (0xBD).
        let bytes: [UInt8] = [0x3E, 0x0F, 0x02, 0x01, 0x00, 0x01, 0xAB, 0xC0, 0x6D, 0x97, 0x18, 0x24, 0x03, 0x02, 0x01, 0x1A, 0xBD]
        let packet = decode(.event, .received, bytes)
        XCTAssertEqual(packet.summary, "LE - Advertising Report - 1 Report - Normal - Random - 24:18:97:6D:C0:AB -67 dBm")
        XCTAssertEqual(packet.peer?.description, "24:18:97:6D:C0:AB")
        XCTAssertEqual(packet.fieldCopy(AdvertisingFields.rssi)?.value, .signed(-67))
        XCTAssertEqual(packet.fieldCopy(AdvertisingFields.rssi)?.text, "-67 dBm")
        // RSSI 127 (0x7F): "RSSI is not available" (Core Vol 4, Part E, 7.7.65.2), as in extended reports.
        let unavailable = decode(.event, .received, Array(bytes.dropLast()) + [0x7F])
        XCTAssertEqual(unavailable.fieldCopy(AdvertisingFields.rssi)?.text, "Not available")
    }

    func testConnectionsNamePeersOfLaterPackets() {
        let decoder = Decoder()
        // LE Connection Complete: status 0, handle 0x0044, central, public, 00:09:A7:24:26:38, 30 ms, 0, 720 ms, SCA.
        _ = decode(.event, .received, [0x3E, 0x13, 0x01, 0x00, 0x44, 0x00, 0x00, 0x00, 0x38, 0x26, 0x24, 0xA7, 0x09, 0x00,
                                       0x18, 0x00, 0x00, 0x00, 0x48, 0x00, 0x00], with: decoder)
        // ACL: handle 0x0044 with PB 0b10 → 44 20, length 7, L2CAP bytes.
        let acl = decode(.aclData, .sent, [0x44, 0x20, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x02, 0x64, 0x00], with: decoder)
        // L2CAP length 3 on CID 0x0004: ATT Exchange MTU Request (0x02), MTU 0x0064.
        XCTAssertEqual(acl.typeLabel, "ATT Send")
        XCTAssertEqual(acl.summary, "Exchange MTU Request - MTU: 100")
        XCTAssertEqual(acl.handle, 0x0044)
        XCTAssertEqual(acl.peer?.description, "00:09:A7:24:26:38")
        XCTAssertEqual(acl.fieldCopy(DataFields.aclPB)?.value, .u8(2))
        // Disconnection Complete removes the connection.
        let gone = decode(.event, .received, [0x05, 0x04, 0x00, 0x44, 0x00, 0x13], with: decoder)
        XCTAssertEqual(gone.summary, "Disconnection Complete - Handle: 0x0044 - Reason: Remote User Terminated Connection")
        XCTAssertFalse(gone.hasError, "a normal disconnect reason is not an error")
        // The MTU request was never answered: the link's end says so.
        XCTAssertEqual(gone.issues.map(\.message), ["Exchange MTU Request in packet 1 never answered (link disconnected)"])
        XCTAssertNil(decode(.aclData, .sent, [0x44, 0x20, 0x00, 0x00], with: decoder).peer)
    }

    func testNonZeroStatusIsAnError() {
        // Command Status, status 0x0C Command Disallowed, for LE Create Connection (0x200D).
        let packet = decode(.event, .received, [0x0F, 0x04, 0x0C, 0x01, 0x0D, 0x20])
        XCTAssertTrue(packet.hasError)
        XCTAssertEqual(packet.summary, "Command Status: LE Create Connection - Command Disallowed")
    }

    func testShortAndMalformedPacketsBecomeIssues() {
        for bytes: [UInt8] in [[], [0x03], [0x0E, 0x0A, 0x01], [0x3E, 0x03, 0x02, 0x05, 0x00]] {
            let packet = decode(.event, .received, bytes)
            XCTAssertTrue(packet.hasError || packet.hasWarning, "\(bytes)")
            XCTAssertFalse(packet.layers.isEmpty)
        }
        XCTAssertTrue(decode(.aclData, .received, [0x44]).hasError)
        XCTAssertTrue(decode(.command, .sent, [0x03, 0x0C, 0x05]).hasWarning)
    }

    func testUnknownOpcodeAndVendor() {
        XCTAssertEqual(decode(.command, .sent, [0x01, 0xFC, 0x00]).summary, "Vendor Command 0xFC01")
        let unknown = decode(.command, .sent, [0xFF, 0x0F, 0x00])
        XCTAssertEqual(unknown.summary, "Unknown Command 0x0FFF")
        XCTAssertTrue(unknown.hasWarning)
    }

    func testSystemRecords() {
        // PacketLogger syslog: pid 87 LE, level 0, process, sender, subsystem, category, message.
        var syslog: [UInt8] = [87, 0, 0, 0, 0]
        for text in ["bluetoothd", "bluetoothd", "com.apple.bluetooth", "Server", "Power state is ON"] { syslog += Array(text.utf8) + [0] }
        let packet = decode(.syslog, .none, syslog)
        XCTAssertEqual(packet.typeLabel, "Syslog")
        XCTAssertEqual(packet.summary, "bluetoothd com.apple.bluetooth Server: Power state is ON")
        XCTAssertEqual(decode(.note, .none, Array("hello\n".utf8) + [0]).summary, "hello")
        // Monitor New Index: type 0, bus 1 (USB), address, name "hci0".
        let index = decode(.newIndex, .none, [0x00, 0x01, 0x56, 0x34, 0x12, 0xB6, 0x99, 0xF0] + Array("hci0".utf8) + [0, 0, 0, 0])
        XCTAssertEqual(index.summary, "hci0 Primary USB F0:99:B6:12:34:56")
    }

    func testEveryFieldNameIsUnique() {
        let names = FieldRegistry.all.map(\.name)
        XCTAssertEqual(Set(names).count, names.count)
        for required in ["number", "time", "direction", "type", "controller", "hci.opcode", "hci.event", "hci.subevent",
                         "hci.status", "acl.handle", "acl.pb", "adv.address", "adv.rssi"] {
            XCTAssertNotNil(FieldRegistry.lookup(required), required)
        }
    }
}
