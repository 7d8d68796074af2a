import XCTest
import BTCapture
@testable import BTDecode

/// State a hostile capture could try to grow without bound: PDUs that never complete, GATT
/// handles that overlap or run backwards, requests never answered. Each stays bounded by what
/// the protocol allows (16-bit lengths and handles), whatever the capture's length.
final class HostileStructureTests: XCTestCase {
    var decoder = Decoder()
    var number = 0

    override func setUp() {
        decoder = Decoder()
        number = 0
        // LE Connection Complete: handle 0x0040.
        feed(.event, .received, [0x3E, 0x13, 0x01, 0x00, 0x40, 0x00, 0x00, 0x01, 0x56, 0x34, 0x12, 0xEE, 0xFF, 0xC0,
                                 0x18, 0x00, 0x00, 0x00, 0x48, 0x00, 0x00])
    }

    @discardableResult
    func feed(_ kind: FrameKind, _ direction: Direction, _ bytes: [UInt8]) -> Packet {
        number += 1
        return decoder.decode(Frame(number: number, timestamp: Int64(number) * 1000, kind: kind, direction: direction, bytes: bytes))
    }

    func acl(_ payload: [UInt8], handle: UInt16 = 0x0040, pb: UInt8, sent: Bool = false) -> Packet {
        feed(.aclData, sent ? .sent : .received,
             [UInt8(handle & 0xFF), UInt8(handle >> 8) | pb << 4, UInt8(payload.count & 0xFF), UInt8(payload.count >> 8)] + payload)
    }

    func att(_ pdu: [UInt8], sent: Bool) -> Packet {
        acl([UInt8(pdu.count), 0x00, 0x04, 0x00] + pdu, pb: 2, sent: sent)
    }

    func testReassemblyThatNeverCompletesStaysBounded() {
        // A start claiming the largest L2CAP PDU (65,535 bytes), then continuations that never
        // reach it, then continuations far past it.
        _ = acl([0xFF, 0xFF, 0x40, 0x00] + [UInt8](repeating: 1, count: 23), pb: 2)
        for _ in 0 ..< 2000 {
            _ = acl([UInt8](repeating: 2, count: 27), pb: 1)
            XCTAssertLessThanOrEqual(decoder.session.l2cap.reassembly.values.map(\.data.count).max() ?? 0, 65_539 + 27)
        }
        var orphans = 0
        for _ in 0 ..< 3000 {
            if acl([UInt8](repeating: 3, count: 27), pb: 1).issues.contains(where: { $0.message.hasPrefix("ACL continuation fragment without a start") }) {
                orphans += 1
            }
        }
        XCTAssertLessThanOrEqual(decoder.session.l2cap.reassembly.values.map(\.data.count).max() ?? 0, 65_539 + 27)
        XCTAssertGreaterThan(orphans, 0, "past the claimed length the PDU ended; the rest are orphans")

        // Starts on every handle, none completed: one pending PDU per link, reported at the end.
        for handle in UInt16(0) ..< 0x0EFF {
            _ = acl([0xFF, 0xFF, 0x40, 0x00, 0x00], handle: handle, pb: 2)
        }
        XCTAssertLessThanOrEqual(decoder.session.l2cap.reassembly.count, 0x0EFF * 2)
        let reports = decoder.finish()
        XCTAssertGreaterThanOrEqual(reports.count, 0x0EFF - 1)
        XCTAssertTrue(decoder.session.l2cap.reassembly.isEmpty)
    }

    func testGATTDiscoveryWithOverlappingAndDescendingHandles() {
        // Read By Group Type: primary services, then responses whose groups run backwards,
        // overlap, start at 0 and end at 0xFFFF.
        _ = att([0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28], sent: true)
        let groups: [(UInt16, UInt16)] = [(0x0010, 0x0005), (0x0001, 0xFFFF), (0x0003, 0x0008), (0x0000, 0x0000), (0xFFFF, 0x0001)]
        var response: [UInt8] = [0x11, 0x06]
        for (start, end) in groups { response += [UInt8(start & 0xFF), UInt8(start >> 8), UInt8(end & 0xFF), UInt8(end >> 8), 0x0D, 0x18] }
        let packet = att(response, sent: false)
        XCTAssertFalse(packet.layers.isEmpty)
        // Find Information with descending and repeated handles, a thousand times over.
        for round in 0 ..< 1000 {
            _ = att([0x04, 0x01, 0x00, 0xFF, 0xFF], sent: true)
            var info: [UInt8] = [0x05, 0x01]
            for handle in stride(from: UInt16(0xFFFF - round % 7), to: 0xFFF0, by: -1) {
                info += [UInt8(handle & 0xFF), UInt8(handle >> 8), 0x37, 0x2A]
            }
            info += [0x05, 0x00, 0x37, 0x2A, 0x05, 0x00, 0x02, 0x29]
            _ = att(info, sent: false)
        }
        let attributes = decoder.session.gatt.databases.values.map(\.attributes.count).reduce(0, +)
        XCTAssertLessThanOrEqual(attributes, 64, "one entry per distinct handle, however often it is named")
        // Names still resolve for a handle the responses declared.
        let notification = att([0x1B, 0x05, 0x00, 0x48], sent: false)
        XCTAssertFalse(notification.summary.isEmpty)
    }

    func testUnansweredRequestsKeepOnePerBearer() {
        for _ in 0 ..< 10_000 { _ = att([0x0A, 0x03, 0x00], sent: true) }
        XCTAssertEqual(decoder.session.att.requests.count, 1, "ATT allows one outstanding request per bearer")
        XCTAssertLessThanOrEqual(decoder.session.pendingReports.count, 10_000)
    }
}
