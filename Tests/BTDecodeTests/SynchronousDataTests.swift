import XCTest
import BTCapture
import BTDecode

/// SCO and ISO data tied to the links that set them up (Core Vol 4, Part E, 5.4.3 and 5.4.5;
/// HFP's H2 header), and ACL data that is not L2CAP at all.
final class SynchronousDataTests: XCTestCase {
    var decoder = Decoder()
    var number = 0

    override func setUp() {
        decoder = Decoder()
        number = 0
    }

    @discardableResult
    func feed(_ kind: FrameKind, _ direction: Direction, _ bytes: [UInt8]) -> Packet {
        number += 1
        return decoder.decode(Frame(number: number, timestamp: Int64(number) * 1000, kind: kind, direction: direction, bytes: bytes))
    }

    func values(_ packet: Packet, _ field: FieldDefinition) -> [String] {
        packet.layers.flatMap { $0.fieldCopies.filter { $0.definition == field }.map(\.value.text) }
    }

    func testSCOCarriesTheCodecHFPChose() {
        // ACL 0x000B to 00:1A:7D:DA:71:13, an RFCOMM channel whose first command is AT+BRSF (so HFP), +BCS: 2 (mSBC).
        feed(.event, .received, [0x03, 0x0B, 0x00, 0x0B, 0x00, 0x13, 0x71, 0xDA, 0x7D, 0x1A, 0x00, 0x01, 0x00])
        func l2cap(_ cid: UInt16, _ payload: [UInt8], sent: Bool) {
            let pdu = [UInt8(payload.count), 0x00, UInt8(cid & 0xFF), UInt8(cid >> 8)] + payload
            feed(.aclData, sent ? .sent : .received, [0x0B, 0x20, UInt8(pdu.count), 0x00] + pdu)
        }
        l2cap(0x0001, [0x02, 0x01, 0x04, 0x00, 0x03, 0x00, 0x40, 0x00], sent: true)
        l2cap(0x0001, [0x03, 0x01, 0x08, 0x00, 0x41, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00], sent: false)
        func uih(_ text: String, sent: Bool) {
            let info = Array(text.utf8)
            let address: UInt8 = 0x0C << 2 | (sent ? 0x02 : 0x00) | 0x01 // DLCI 12 (server channel 6)
            l2cap(sent ? 0x0041 : 0x0040, [address, 0xEF, UInt8(info.count) << 1 | 1] + info + [0x00], sent: sent)
        }
        uih("AT+BRSF=1023\r", sent: false)
        uih("\r\n+BCS: 2\r\n", sent: true)
        // Synchronous Connection Complete: handle 0x0101, eSCO, 60-byte packets, transparent air mode.
        let complete = feed(.event, .received, [0x2C, 0x11, 0x00, 0x01, 0x01, 0x13, 0x71, 0xDA, 0x7D, 0x1A, 0x00, 0x02, 0x0C, 0x04, 0x3C, 0x00,
                                               0x3C, 0x00, 0x03])
        XCTAssertEqual(complete.handle, 0x0101)
        func sco(_ h2: UInt8, status: UInt16 = 0, sent: Bool = false) -> Packet {
            feed(.scoData, sent ? .sent : .received, [0x01, 0x01 | UInt8(status << 4), 0x06, 0x01, h2, 0xAD, 0x00, 0x00, 0x00])
        }
        let first = sco(0x08)
        XCTAssertEqual(first.summary, "Data [Handle: 0x0101, Length: 6] - mSBC - H2 0")
        XCTAssertEqual(first.peer?.description, "00:1A:7D:DA:71:13")
        XCTAssertEqual(values(first, DataFields.scoCodec), ["mSBC"])
        XCTAssertNil(first.worstSeverity)
        // 0x38 (1) skipped: one frame lost.
        let skipped = sco(0xC8)
        XCTAssertEqual(values(skipped, DataFields.scoH2Sequence), ["2"])
        XCTAssertEqual(skipped.issues.map(\.message), ["1 mSBC frame lost: H2 sequence 0 then 2"])
        // Erroneous data reporting: partially lost.
        let partial = sco(0xF8, status: 3)
        XCTAssertEqual(partial.summary, "Data [Handle: 0x0101, Length: 6] - Partially Lost - mSBC - H2 3")
        XCTAssertEqual(partial.worstSeverity, .warning)
        // The other direction keeps its own sequence.
        XCTAssertNil(sco(0x38, sent: true).worstSeverity)
    }

    func testISODataTiedToItsCISWithGaps() {
        // LE link 0x0040; LE Create CIS pairs CIS 0x0060 with it; CIS Established.
        feed(.event, .received, [0x3E, 0x13, 0x01, 0x00, 0x40, 0x00, 0x00, 0x01, 0x56, 0x34, 0x12, 0xEE, 0xFF, 0xC0, 0x18, 0x00, 0x00, 0x00,
                                 0x48, 0x00, 0x00])
        feed(.command, .sent, [0x64, 0x20, 0x05, 0x01, 0x60, 0x00, 0x40, 0x00])
        feed(.event, .received, [0x3E, 0x1D, 0x19, 0x00, 0x60, 0x00] + [UInt8](repeating: 0, count: 26))
        // Complete SDUs with a time stamp: sequence 7, then 10 (two lost).
        func sdu(_ sequence: UInt16, status: UInt8 = 0, received: Bool = true) -> Packet {
            let load = [0x10, 0x27, 0x00, 0x00, UInt8(sequence & 0xFF), UInt8(sequence >> 8), 0x04, status << 6, 0xDE, 0xAD, 0xBE, 0xEF]
            return feed(.isoData, received ? .received : .sent, [0x60, 0x60, UInt8(load.count), 0x00] + load)
        }
        let first = sdu(7)
        XCTAssertEqual(first.summary, "Data [Handle: 0x0060, Length: 12] - CIS on 0x0040 - SN 7 - SDU 4 bytes")
        XCTAssertEqual(values(first, DataFields.isoTimestamp), ["10000"])
        XCTAssertEqual(first.peer?.description, "C0:FF:EE:12:34:56")
        XCTAssertNil(first.worstSeverity)
        let gap = sdu(10)
        XCTAssertEqual(gap.issues.map(\.message), ["2 ISO SDUs lost: sequence 7 then 10"])
        XCTAssertEqual(values(gap, DataFields.isoSequence), ["10"])
        // Lost data reported by the controller; the host's own direction counts separately.
        XCTAssertEqual(sdu(11, status: 2).summary, "Data [Handle: 0x0060, Length: 12] - CIS on 0x0040 - SN 11 - SDU 4 bytes - Lost Data")
        XCTAssertNil(sdu(0, received: false).worstSeverity)
        // A continuation fragment has no data load header.
        let fragment = feed(.isoData, .received, [0x60, 0x10, 0x02, 0x00, 0xAA, 0xBB])
        XCTAssertEqual(fragment.summary, "Data [Handle: 0x0060, Length: 2] - CIS on 0x0040 - Continuation Fragment")
    }

    /// Each set-up packet's row teaches the ISO links it names: LE Set CIG Parameters' return
    /// (the CIG of each CIS handle), CIS Request (its ACL, CIG and CIS), Create BIG Complete and
    /// BIG Sync Established (each BIS handle's BIG and place, after the BIG's own parameters).
    func testISOLinksLearntFromEachSetUpPacket() {
        func iso(_ handle: UInt16) -> SynchronousLinksState.ISOLink? {
            decoder.session.synchronousLinks.iso[Session.LinkKey(controller: 0, handle: handle)]
        }
        feed(.event, .received, [0x0E, 0x0A, 0x01, 0x62, 0x20, 0x00, 0x01, 0x02, 0x60, 0x00, 0x61, 0x00])
        XCTAssertEqual(iso(0x60)?.cig, 1)
        XCTAssertEqual(iso(0x61)?.cig, 1)
        // A failed return teaches nothing.
        feed(.event, .received, [0x0E, 0x0A, 0x01, 0x62, 0x20, 0x0C, 0x09, 0x01, 0x62, 0x00, 0x00, 0x00])
        XCTAssertNil(iso(0x62))
        feed(.event, .received, [0x3E, 0x07, 0x1A, 0x40, 0x00, 0x70, 0x00, 0x02, 0x05])
        XCTAssertEqual([iso(0x70)?.acl, iso(0x70)?.cig.map(UInt16.init), iso(0x70)?.cis.map(UInt16.init)], [0x40, 2, 5])
        feed(.event, .received, [0x3E, 0x17, 0x1B, 0x00, 0x03] + [UInt8](repeating: 0, count: 15) + [0x02, 0x80, 0x00, 0x81, 0x00])
        XCTAssertEqual([iso(0x80)?.big, iso(0x81)?.big], [3, 3])
        XCTAssertEqual([iso(0x80)?.bis, iso(0x81)?.bis], [1, 2])
        let synced = feed(.event, .received, [0x3E, 0x11, 0x1D, 0x00, 0x04] + [UInt8](repeating: 0, count: 11) + [0x01, 0x90, 0x00])
        XCTAssertEqual(iso(0x90)?.big, 4)
        XCTAssertEqual(iso(0x90)?.bis, 1)
        // The layout is read as well: no bytes left over, nothing short.
        XCTAssertNil(synced.worstSeverity)
        XCTAssertEqual(synced.summary, "LE - BIG Sync Established")
    }

    /// Android's 0x0EDC vendor debug data is not an SMP PDU; a capture that starts mid-connection is still L2CAP.
    func testACLThatIsNotL2CAP() {
        let debug = feed(.aclData, .received, [0xDC, 0x2E, 0x18, 0x00, 0x10, 0x00, 0x06, 0x00] + [UInt8](repeating: 0x42, count: 20))
        XCTAssertEqual(debug.typeName, "Vendor")
        XCTAssertFalse(debug.layers.contains { $0.name == "SMP" || $0.name == "L2CAP" })
        XCTAssertEqual(debug.worstSeverity, .note)
        // Unannounced handle, L2CAP length 2 but 20 bytes: not a PDU.
        let junk = feed(.aclData, .received, [0x23, 0x21, 0x18, 0x00, 0x02, 0x00, 0x04, 0x00] + [UInt8](repeating: 0x00, count: 20))
        XCTAssertEqual(junk.typeName, "Vendor")
        // Unannounced handle with consistent framing: an ATT notification, decoded as before.
        let midway = feed(.aclData, .received, [0x40, 0x20, 0x08, 0x00, 0x04, 0x00, 0x04, 0x00, 0x1B, 0x03, 0x00, 0x48])
        XCTAssertEqual(midway.typeName, "ATT")
    }
}
