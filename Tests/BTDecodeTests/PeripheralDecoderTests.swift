import XCTest
import BTCapture
@testable import BTDecode

/// HID (HID Profile 1.1 transactions, HID 1.11 report descriptors) and BNEP (BNEP 1.0) on
/// bytes laid out from their specifications.
final class PeripheralDecoderTests: ClassicLinkTestCase {
    /// HID 1.11 Appendix B.1's boot keyboard descriptor, as a keyboard declares it without
    /// report IDs: modifiers, a reserved byte, five LEDs and padding, six keys.
    static let bootKeyboard: [UInt8] = [
        0x05, 0x01, 0x09, 0x06, 0xA1, 0x01, 0x05, 0x07, 0x19, 0xE0, 0x29, 0xE7, 0x15, 0x00, 0x25, 0x01, 0x75, 0x01, 0x95, 0x08,
        0x81, 0x02, 0x95, 0x01, 0x75, 0x08, 0x81, 0x01, 0x95, 0x05, 0x75, 0x01, 0x05, 0x08, 0x19, 0x01, 0x29, 0x05, 0x91, 0x02,
        0x95, 0x01, 0x75, 0x03, 0x91, 0x01, 0x95, 0x06, 0x75, 0x08, 0x15, 0x00, 0x25, 0x65, 0x05, 0x07, 0x19, 0x00, 0x29, 0x65,
        0x81, 0x00, 0xC0,
    ]

    func testReportDescriptorItems() throws {
        let descriptor = try HIDReportDescriptor(Self.bootKeyboard[...])
        XCTAssertFalse(descriptor.usesReportIDs)
        let input = try XCTUnwrap(descriptor.report(.input, id: 0))
        XCTAssertEqual(input.application, 0x0001_0006, "Generic Desktop: Keyboard")
        XCTAssertEqual(input.bits, 64, "8 modifier bits, a reserved byte, six key bytes")
        XCTAssertEqual(input.fields.map(\.isVariable), [true, false, false])
        XCTAssertEqual(input.fields[2].usageMaximum, 0x65)
        XCTAssertEqual(try XCTUnwrap(descriptor.report(.output, id: 0)).bits, 8, "five LEDs and three bits of padding")
        // Left Shift and 'h' (0x0B), Caps Lock.
        var layer = Layer(kind: .hid, range: 0 ..< 8, source: .frame, showsDirection: false, keepsDisplays: true)
        XCTAssertEqual(HIDDecoder.fields(input, [0x02, 0x00, 0x0B, 0, 0, 0, 0, 0], &layer), ["Left Shift", "H"])
        XCTAssertEqual(HIDDecoder.fields(input, [0x00, 0x00, 0x28, 0x2C, 0x3A, 0x1E, 0x27, 0x52], &layer),
                       ["Enter", "Space", "F1", "1", "0", "Up Arrow"])
        // Items cut short, and a report that would need more bits than any device sends.
        XCTAssertThrowsError(try HIDReportDescriptor([0x05, 0x01, 0x26, 0xFF][...]))
        XCTAssertThrowsError(try HIDReportDescriptor([0x75, 0x20, 0x96, 0xFF, 0x0F, 0x81, 0x02, 0x81, 0x02][...]))
        // Signed logical minimum (-127) from a one-byte item, and a long item skipped.
        let mouse = try HIDReportDescriptor([0xFE, 0x02, 0x00, 0xAA, 0xBB, 0x05, 0x01, 0x09, 0x30, 0x15, 0x81, 0x25, 0x7F, 0x75, 0x08,
                                             0x95, 0x01, 0x81, 0x06][...])
        XCTAssertEqual(mouse.report(.input, id: 0)?.fields.first?.logicalMinimum, -127)
        XCTAssertEqual(HIDDecoder.fields(try XCTUnwrap(mouse.report(.input, id: 0)), [0xFB], &layer), ["X -5"])
    }

    func testTransactionsAndBootReports() {
        open(psm: 0x0011)
        let set = l2cap(0x0041, [0x70], sent: true)
        XCTAssertEqual(set.summary, "Set Protocol: Boot")
        XCTAssertEqual(values(set, HIDFields.protocolMode), ["0"])
        XCTAssertEqual(l2cap(0x0040, [0x00], sent: false).summary, "Handshake: Successful")
        let refused = l2cap(0x0040, [0x03], sent: false)
        XCTAssertEqual(refused.summary, "Handshake: Unsupported Request")
        XCTAssertEqual(refused.worstSeverity, .warning)
        let get = l2cap(0x0041, [0x4B, 0x04, 0x40, 0x00], sent: true)
        XCTAssertEqual(get.summary, "Get Report: Feature - report 4 - up to 64 bytes")
        XCTAssertEqual(values(get, HIDFields.bufferSize), ["64"])
        // Boot mode took effect: a boot keyboard report (Report ID 1) and a boot mouse report (2).
        open(psm: 0x0013, local: 0x42, remote: 0x52)
        let key = l2cap(0x0042, [0xA1, 0x01, 0x22, 0x00, 0x04, 0x05, 0, 0, 0, 0], sent: false)
        XCTAssertEqual(key.summary, "Data: Input Report 1 (Boot Keyboard) - Left Shift + Right Shift + A + B")
        XCTAssertEqual(values(key, HIDFields.usage), ["Left Shift", "Right Shift", "A", "B"])
        let mouse = l2cap(0x0042, [0xA1, 0x02, 0x01, 0x7F, 0x80], sent: false)
        XCTAssertEqual(mouse.summary, "Data: Input Report 2 (Boot Mouse) - Button 1, X +127, Y -128")
        // Without a descriptor in Report mode: bytes, no report ID guessed.
        open(psm: 0x0013, local: 0x43, remote: 0x53)
        XCTAssertEqual(l2cap(0x0041, [0x71], sent: true).summary, "Set Protocol: Report")
        _ = l2cap(0x0040, [0x00], sent: false)
        let raw = l2cap(0x0042, [0xA1, 0x01, 0x00, 0x00], sent: false)
        XCTAssertEqual(raw.summary, "Data: Input Report - 3 bytes 01 00 00")
        XCTAssertEqual(values(raw, HIDFields.reportID), [])
        // Truncated: Set Idle without its rate.
        XCTAssertEqual(l2cap(0x0041, [0x90], sent: true).worstSeverity, .error)
        // Unplugged: the protocol mode is forgotten with the device.
        _ = l2cap(0x0041, [0x70], sent: true)
        _ = l2cap(0x0040, [0x00], sent: false)
        XCTAssertEqual(l2cap(0x0041, [0x15], sent: true).summary, "HID Control: Virtual Cable Unplug")
        XCTAssertEqual(l2cap(0x0042, [0xA1, 0x01, 0x00], sent: false).summary, "Data: Input Report - 2 bytes 01 00")
    }

    func testBNEPControlAndEthernet() {
        open(psm: 0x000F)
        // Setup Connection Request with 16-bit UUIDs: NAP (0x1116) from PANU (0x1115).
        let setup = l2cap(0x0041, [0x01, 0x01, 0x02, 0x11, 0x16, 0x11, 0x15], sent: true)
        XCTAssertEqual(setup.typeLabel, "BNEP Send")
        XCTAssertEqual(setup.summary, "Setup Connection Request - PANU to NAP")
        XCTAssertEqual(values(setup, BNEPFields.destinationService), ["1116"])
        let refused = l2cap(0x0040, [0x01, 0x02, 0x00, 0x04], sent: false)
        XCTAssertEqual(refused.summary, "Setup Connection Response - Connection Not Allowed")
        XCTAssertEqual(refused.worstSeverity, .warning)
        // General Ethernet carrying an ARP request (RFC 826 layout).
        let arp: [UInt8] = [0x00, 0x01, 0x08, 0x00, 6, 4, 0x00, 0x01, 0x02, 0x11, 0x22, 0x33, 0x44, 0x55, 10, 0, 0, 2,
                            0, 0, 0, 0, 0, 0, 10, 0, 0, 1]
        let frame = l2cap(0x0041, [0x00] + [UInt8](repeating: 0xFF, count: 6) + [0x02, 0x11, 0x22, 0x33, 0x44, 0x55, 0x08, 0x06] + arp, sent: true)
        XCTAssertEqual(frame.summary, "General Ethernet - 02:11:22:33:44:55 → FF:FF:FF:FF:FF:FF - ARP Request: who has 10.0.0.1? Tell 10.0.0.2")
        XCTAssertEqual(values(frame, BNEPFields.ethertype), ["0x0806"])
        XCTAssertEqual(values(frame, BNEPFields.arpOpcode), ["0x0001"])
        // An extension header (control: Filter Net Type Set for IPv6) before an IPv6 packet cut short.
        let extended = l2cap(0x0041, [0x82, 0x86, 0xDD, 0x00, 0x07, 0x03, 0x00, 0x04, 0x86, 0xDD, 0x86, 0xDD, 0x60, 0x00], sent: true)
        XCTAssertEqual(values(extended, BNEPFields.extensionLength), ["7"])
        XCTAssertEqual(values(extended, BNEPFields.networkTypeStart), ["0x86DD"])
        XCTAssertEqual(extended.summary, "Compressed Ethernet - IPv6 - 2 bytes")
        XCTAssertEqual(extended.worstSeverity, .warning, "the IPv6 packet is truncated")
        XCTAssertEqual(BNEPDecoder.ipv6([0x20, 0x01, 0x0D, 0xB8, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1][...]), "2001:db8::1:0:0:1")
        XCTAssertEqual(BNEPDecoder.ipv6([UInt8](repeating: 0, count: 16)[...]), "::")
        // A UUID size BNEP does not have.
        XCTAssertEqual(l2cap(0x0041, [0x01, 0x01, 0x03, 0, 0, 0, 0, 0, 0], sent: true).worstSeverity, .error)
    }
}
