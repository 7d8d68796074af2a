import XCTest
import BTCapture
@testable import BTDecode

/// Read-and-add in either byte order: the value, its text and the bytes it came from, from one
/// call, for the big-endian protocols (AV/C, BNEP's Ethernet header) as for Bluetooth's own.
final class LayerReadingTests: XCTestCase {
    private func layer(over bytes: [UInt8]) -> (Packet, Layer) {
        var packet = Packet(frame: Frame(timestamp: 0, kind: .aclData, direction: .received, bytes: bytes))
        let layer = packet.makeLayer(.bnep, over: ByteCursor(bytes))
        return (packet, layer)
    }

    func testBigEndianReadsKeepTheirBytes() throws {
        let bytes: [UInt8] = [0x12, 0x34, 0x00, 0x19, 0x58, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x80, 0x00]
        var (_, layer) = layer(over: bytes)
        var c = ByteCursor(bytes)
        XCTAssertEqual(try layer.read(BNEPFields.networkTypeStart, &c, as: UInt16.self, .bigEndian), 0x1234)
        XCTAssertEqual(try layer.read(AVRCPFields.companyID, &c, as: UInt24.self, .bigEndian, named: { $0.value == 0x001958 ? "Bluetooth SIG" : nil }).value,
                       0x001958)
        XCTAssertEqual(try layer.read(BNEPFields.source, &c, as: BDAddr.self, .bigEndian).description, "01:02:03:04:05:06")
        XCTAssertEqual(try layer.readCount(BNEPFields.listLength, &c, as: UInt8.self), 7)
        XCTAssertEqual(try layer.read(BNEPFields.networkTypeStart, &c, as: UInt16.self), 0x0080, "little-endian unless told")

        XCTAssertEqual(layer.fields.map(\.range), [0 ..< 2, 2 ..< 5, 5 ..< 11, 11 ..< 12, 12 ..< 14])
        XCTAssertEqual(layer.fieldCopies.map(\.text), ["0x1234", "Bluetooth SIG (0x001958)", "01:02:03:04:05:06", "7", "0x0080"])
        XCTAssertEqual(layer.fieldCopies[1].name, "Bluetooth SIG", "a named code keeps its name apart from its value")
    }

    /// A field is a plain value (copied and dropped without reference counting); its text and
    /// bytes live in its layer, read back whole, and a layer reused for the next packet holds
    /// only the new packet's.
    func testFieldsArePlainValuesWhoseStringsLiveInTheLayer() {
        XCTAssertTrue(_isPOD(Field.self), "a field holds no reference: no String, array or class")
        var packet = Packet(frame: Frame(timestamp: 0, kind: .aclData, direction: .received, bytes: [0x01]))
        var layer = packet.makeLayer(.bnep, range: 0 ..< 1)
        layer.add(BNEPFields.source, .text("Pixel 7 — née “phone”"), "shown name", at: 0 ..< 1)
        layer.add(BNEPFields.networkTypeStart, .bytes([0xDE, 0xAD, 0xBE, 0xEF][...]), named: "Dead Beef")
        layer.add(BNEPFields.listLength, .u8(7))
        XCTAssertEqual(layer.fieldCopies.map(\.value), [.text("Pixel 7 — née “phone”"), .bytes([0xDE, 0xAD, 0xBE, 0xEF][...]), .u8(7)])
        XCTAssertEqual(layer.fieldCopies.map(\.text), ["shown name", "Dead Beef (DE AD BE EF)", "0x07"])
        var written: [UInt8] = []
        layer.fieldBytes.withUnsafeBufferPointer { layer.fields[1].writeDisplayText(in: $0, to: &written) }
        XCTAssertEqual(String(decoding: written, as: UTF8.self), "DE AD BE EF")

        // Read against bytes that do not hold them (never done in btlog): empty, not a trap.
        written = []
        [UInt8]([0x41]).withUnsafeBufferPointer { layer.fields[0].writeDisplayText(in: $0, to: &written) }
        XCTAssertEqual(written, [])

        packet.append(layer)
        packet.reset(for: Frame(timestamp: 0, kind: .aclData, direction: .received, bytes: [0x02]))
        var reused = packet.makeLayer(.bnep, range: 0 ..< 1)
        XCTAssertTrue(reused.fields.isEmpty)
        XCTAssertEqual(reused.fieldBytes.count, 0, "the earlier packet's strings are gone with its fields")
        reused.add(BNEPFields.source, .text("x"))
        XCTAssertEqual(reused.fieldCopies.map(\.value), [.text("x")])
    }

    func testATruncatedReadAddsNothing() {
        var (_, layer) = layer(over: [0x12])
        var c = ByteCursor([0x12][...])
        XCTAssertThrowsError(try layer.read(BNEPFields.networkTypeStart, &c, as: UInt16.self, .bigEndian))
        XCTAssertThrowsError(try layer.read(BNEPFields.source, &c, as: BDAddr.self, .bigEndian))
        XCTAssertTrue(layer.fields.isEmpty)
        XCTAssertEqual(c.index, 0, "nothing read")
    }

    /// A value read now and added later (a header octet's bit fields) has the range of its read.
    func testReadingGivesTheRangeOfWhatItRead() throws {
        let bytes: [UInt8] = [0xAA, 0x81]
        let (_, layer) = layer(over: bytes)
        var c = ByteCursor(bytes)
        _ = try c.u8()
        let (octet, at) = try layer.reading(&c) { try $0.u8() }
        XCTAssertEqual(octet, 0x81)
        XCTAssertEqual(at, 1 ..< 2)
    }
}
