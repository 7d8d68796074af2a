import XCTest
import BTCapture
import BTDecode

/// The typed accessor and the literal/comparison rules the filter language and JSON build on.
final class FieldValueTests: XCTestCase {
    /// The form `--fields` prints each kind of value in (`text`, written without a String by
    /// `writeText`): integers in hex at their width or in decimal, bytes as bare upper-case pairs.
    func testTextOfEveryKind() {
        let cases: [(FieldValue, String)] = [
            (.unsigned(0x2A, width: 4), "0x002A"), (.unsigned(612, width: 0), "612"), (.unsigned(.max, width: 16), "0xFFFFFFFFFFFFFFFF"),
            (.signed(-70), "-70"), (.signed(.min), "-9223372036854775808"), (.signed(0), "0"),
            (.bool(true), "1"), (.bool(false), "0"), (.text("Heart Rate, \"x\""), "Heart Rate, \"x\""), (.text(""), ""),
            (.bytes([0x0A, 0x1B, 0xFF][...]), "0A1BFF"), (.bytes([][...]), ""),
            (.address(BDAddr("C0:FF:EE:12:34:56")), "C0:FF:EE:12:34:56"), (.uuid(BTUUID(UInt16(0x180D))), "180D"),
            (.time(1_557_356_668_500_000), "1557356668.500000"), (.time(-250_000), "-0.250000"),
        ]
        for (value, expected) in cases {
            XCTAssertEqual(value.text, expected)
            var written = OutputBuffer(capacity: 8)
            value.writeText(to: &written)
            XCTAssertEqual(written.withBytes { String(decoding: $0, as: UTF8.self) }, expected)
            written.deallocate()
        }
    }

    func testParseLiteralsByType() {
        XCTAssertEqual(FieldValue.parse("0x1b", as: .uint8), .unsigned(0x1B, width: 2))
        XCTAssertEqual(FieldValue.parse("27", as: .uint8), .unsigned(27, width: 2))
        XCTAssertNil(FieldValue.parse("256", as: .uint8), "out of range for one byte")
        XCTAssertNil(FieldValue.parse("0x", as: .uint16))
        XCTAssertEqual(FieldValue.parse("0xFFFF", as: .uint16), .u16(0xFFFF))
        XCTAssertEqual(FieldValue.parse("-70", as: .int), .signed(-70))
        XCTAssertEqual(FieldValue.parse("-9223372036854775808", as: .int), .signed(.min))
        XCTAssertNil(FieldValue.parse("-9223372036854775809", as: .int))
        XCTAssertEqual(FieldValue.parse("true", as: .bool), .bool(true))
        XCTAssertNil(FieldValue.parse("maybe", as: .bool))
        XCTAssertEqual(FieldValue.parse("0a:1B:2c", as: .bytes), .bytes([0x0A, 0x1B, 0x2C][...]))
        XCTAssertEqual(FieldValue.parse("0a1b2c", as: .bytes), .bytes([0x0A, 0x1B, 0x2C][...]))
        XCTAssertNil(FieldValue.parse("0a1", as: .bytes), "odd number of digits")
        XCTAssertNil(FieldValue.parse("zz", as: .bytes))
        XCTAssertEqual(FieldValue.parse("c0:ff:ee:12:34:56", as: .address), .address(BDAddr("C0:FF:EE:12:34:56")))
        XCTAssertNil(FieldValue.parse("c0:ff:ee:12:34", as: .address))
        XCTAssertNil(FieldValue.parse("c0:ff:ee:12:34:5g", as: .address))
        XCTAssertEqual(FieldValue.parse("180d", as: .uuid), .uuid(BTUUID(UInt16(0x180D))))
        XCTAssertEqual(FieldValue.parse("0000180D-0000-1000-8000-00805F9B34FB", as: .uuid), .uuid(BTUUID(UInt16(0x180D))))
        XCTAssertEqual(FieldValue.parse("1557356668.5", as: .time), .time(1_557_356_668_500_000))
        XCTAssertEqual(FieldValue.parse("-0.25", as: .time), .time(-250_000))
        XCTAssertNil(FieldValue.parse("1.1234567", as: .time), "more than microseconds")
        XCTAssertEqual(FieldValue.parse(" Heart Rate ", as: .string), .text(" Heart Rate "), "text is taken as written")
    }

    func testCompareAcrossWidthsAndKinds() {
        XCTAssertEqual(FieldValue.u8(4).compare(.u16(4)), 0, "0x04 and 0x0004 are the same number")
        XCTAssertEqual(FieldValue.count(5).compare(.u8(4)), 1)
        XCTAssertEqual(FieldValue.signed(-1).compare(.unsigned(0, width: 0)), -1)
        XCTAssertEqual(FieldValue.signed(-5).compare(.signed(-3)), -1)
        XCTAssertEqual(FieldValue.unsigned(.max, width: 16).compare(.signed(.max)), 1)
        XCTAssertEqual(FieldValue.bool(true).compare(.count(1)), 0)
        XCTAssertNil(FieldValue.text("4").compare(.u8(4)), "text is not a number")
        XCTAssertEqual(FieldValue.uuid(BTUUID(UInt16(0x180D))).compare(.uuid(BTUUID("0000180D-0000-1000-8000-00805F9B34FB")!)), 0)
        XCTAssertEqual(FieldValue.address(BDAddr("00:00:00:00:00:01")).compare(.address(BDAddr("00:00:00:00:01:00"))), -1)
        XCTAssertEqual(FieldValue.time(1).compare(.time(2)), -1)
        XCTAssertTrue(FieldValue.bytes([1, 2, 3, 4][...]).contains(.bytes([2, 3][...])))
        XCTAssertFalse(FieldValue.bytes([1, 2, 3, 4][...]).contains(.bytes([3, 2][...])))
        XCTAssertFalse(FieldValue.bytes([1][...]).contains(.bytes([1, 2][...])))
        XCTAssertTrue(FieldValue.text("Heart Rate Measurement").contains(.text("Rate")))
        XCTAssertTrue(FieldValue.u16(0x2A37).contains(.u8(0x37)) == false)
    }

    /// `values(of:)`: every occurrence, frame fields from the record, bare names as aliases.
    func testValuesOfAPacket() throws {
        let decoder = Decoder()
        _ = decoder.decode(Frame(number: 1, timestamp: 1_000_000, kind: .event, direction: .received, bytes:
            [0x3E, 0x13, 0x01, 0x00, 0x40, 0x00, 0x00, 0x01, 0x56, 0x34, 0x12, 0xEE, 0xFF, 0xC0, 0x18, 0x00, 0x00, 0x00, 0x48, 0x00, 0x00]))
        // Read Multiple Request for handles 0x0003 and 0x0005.
        let packet = decoder.decode(Frame(number: 2, timestamp: 1_500_000, kind: .aclData, direction: .sent, controller: 1, bytes:
            [0x40, 0x00, 0x09, 0x00, 0x05, 0x00, 0x04, 0x00, 0x0E, 0x03, 0x00, 0x05, 0x00]))
        func values(_ name: String) throws -> [String] { try XCTUnwrap(FieldRegistry.lookup(name)).let { packet.values(of: $0).map(\.text) } }
        XCTAssertEqual(try values("att.handle"), ["0x0003", "0x0005"])
        XCTAssertEqual(try values("l2cap.cid"), ["0x0004"])
        XCTAssertEqual(try values("frame.number"), ["2"])
        XCTAssertEqual(try values("number"), ["2"], "the bare name is an alias")
        XCTAssertEqual(try values("frame.time"), ["1.500000"])
        XCTAssertEqual(try values("frame.direction"), ["sent"])
        XCTAssertEqual(try values("frame.controller"), ["1"])
        XCTAssertEqual(try values("frame.length"), ["13"])
        XCTAssertEqual(try values("frame.type"), ["ATT Send"])
        XCTAssertEqual(try values("frame.issues"), [])
        XCTAssertEqual(try values("smp.code"), [])
        XCTAssertTrue(packet.has(ATTFields.handle))
        XCTAssertFalse(packet.has(SMPFields.code))
        XCTAssertEqual(FieldRegistry.lookup("number"), FrameFields.number)
        XCTAssertEqual(FrameFields.number.name, "frame.number")
    }
}

private extension FieldDefinition {
    func `let`<T>(_ body: (FieldDefinition) throws -> T) rethrows -> T { try body(self) }
}
