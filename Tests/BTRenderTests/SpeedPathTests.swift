import XCTest
import BTCapture
@testable import BTDecode
@testable import BTRender
import BTQuery
import BTFixtures

/// The shortcuts taken for speed (issue 5) must not change what is printed: text built only
/// for the tree, lower-layer summaries made only when shown, rows assembled as bytes.
final class SpeedPathTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")

    func rows(_ frames: [Frame], displays: Bool) -> ([String], [[FieldValue]]) {
        let decoder = Decoder(options: DecodeOptions(buildsDisplayText: displays))
        var table = TableRenderer(options: RenderOptions())
        var rows: [String] = [], values: [[FieldValue]] = []
        for frame in frames {
            let packet = decoder.decode(frame)
            rows.append(table.row(packet))
            values.append(packet.layers.flatMap { $0.fieldCopies.map(\.value) })
        }
        return (rows, values)
    }

    /// Every fixture, and the benchmark sessions: the same rows and the same field values
    /// whether or not field display text is recorded; without it, no field keeps any.
    func testTableWithoutDisplayTextIsUnchanged() throws {
        setenv("TZ", "UTC", 1)
        tzset()
        var captures: [(String, [Frame])] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: Self.fixtures.path).sorted()
        where name.hasSuffix(".btsnoop") || name.hasSuffix(".pklg") {
            let reader = try CaptureInput.open(bytes: [UInt8](try Data(contentsOf: Self.fixtures.appendingPathComponent(name))))
            var frames: [Frame] = []
            while let frame = try reader.next() { frames.append(frame) }
            captures.append((name, frames))
        }
        var le: [Frame] = [], audio: [Frame] = []
        BenchmarkSessions.leSession(packets: 6000) { le += $0 }
        BenchmarkSessions.audioSession(packets: 3000) { audio += $0 }
        captures += [("benchmark LE", le), ("benchmark audio", audio)]
        XCTAssertGreaterThan(captures.count, 15)
        for (name, frames) in captures {
            let full = rows(frames, displays: true), lean = rows(frames, displays: false)
            XCTAssertEqual(full.0, lean.0, name)
            XCTAssertEqual(full.1, lean.1, name)
        }
        let packet = Decoder(options: DecodeOptions(buildsDisplayText: false)).decode(le[36])
        XCTAssertTrue(packet.layers.allSatisfy { $0.fieldCopies.allSatisfy { $0.display == nil } })
    }

    /// The tree writes numbers, bytes and addresses straight into the buffer: the same text as
    /// the values' own `displayText`.
    func testTreeValuesMatchDisplayText() throws {
        let values: [FieldValue] = [.unsigned(0, width: 0), .unsigned(1234, width: 0), .u8(0x0A), .u16(0xBEEF),
                                    .u32(0x0102_0304), .unsigned(0xABCDEF, width: 6), .signed(-67), .signed(0),
                                    .bytes([0x00, 0x7F, 0xFF][...]), .bytes([][...]),
                                    .address(BDAddr("C0:FF:EE:12:34:56")), .text("name"), .bool(true)]
        XCTAssertEqual(values.map { Self.treeText(FieldCopy(definition: HCIFields.handle, value: $0)) }, values.map(\.displayText))
        XCTAssertEqual(values.map(\.displayText)[2 ... 6], ["0x0A", "0xBEEF", "0x01020304", "0xABCDEF", "-67"])
    }

    /// The forms the tree writes itself (a decimal length, "Name (0x0E)") read as the model's
    /// String text does, which filters and searches use.
    func testTreeFormsMatchFieldText() throws {
        let fields = [FieldCopy(definition: HCIFields.parameterLength, value: .u16(0x0264), form: .decimal),
                      FieldCopy(definition: HCIFields.event, value: .u8(0x0E), writtenDisplay: "Command Complete", form: .named),
                      FieldCopy(definition: HCIFields.opcode, value: .u16(0x0C03), writtenDisplay: "Reset", form: .named),
                      FieldCopy(definition: HCIFields.status, value: .u8(0), writtenDisplay: "Success (0x00)")]
        XCTAssertEqual(fields.map(Self.treeText), ["612", "Command Complete (0x0E)", "Reset (0x0C03)", "Success (0x00)"])
        XCTAssertEqual(fields.map(Self.treeText), fields.map(\.text))
    }

    /// The field as the tree writes it, stored in a layer as a decoder stores it.
    static func treeText(_ copy: FieldCopy) -> String {
        var layer = Layer(kind: .placeholder, range: 0 ..< 0, source: .frame, showsDirection: false, keepsDisplays: true)
        layer.append(copy)
        var out = OutputBuffer(capacity: 8) // small: writing past it grows it
        defer { out.deallocate() }
        withUnsafePointer(to: layer.fields[0]) { field in layer.fieldBytes.withUnsafeBufferPointer { TreeRenderer.appendText(of: field, in: $0, to: &out) } }
        return out.withBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// A media payload of 608 bytes is not 1,800 characters of tree: its first 32 bytes and
    /// its length; 64 bytes still print whole.
    func testTreeShortensLongPayloads() throws {
        let lines = [Self.treeText(FieldCopy(definition: DataFields.payload, value: .bytes([UInt8](repeating: 0xAB, count: 64)[...]))),
                     Self.treeText(FieldCopy(definition: DataFields.payload, value: .bytes((0 ..< 608).map { UInt8(truncatingIfNeeded: $0) }[...])))]
        XCTAssertEqual(lines[0], Array(repeating: "AB", count: 64).joined(separator: " "))
        XCTAssertEqual(lines[1], (0 ..< 32).map { Hex.bytes([UInt8($0)][...]) }.joined(separator: " ") + " … (608 bytes)")
    }

    func testHexText() {
        XCTAssertEqual(Hex.format(UInt16(0x00AB), width: 4), "0x00AB")
        XCTAssertEqual(Hex.format(UInt64.max, width: 16), "0xFFFFFFFFFFFFFFFF")
        XCTAssertEqual(Hex.bytes([0x01, 0xAB, 0xFF][...]), "01 AB FF")
        XCTAssertEqual(Hex.bytes([UInt8]([0x01, 0xAB]), separator: ""), "01AB")
        XCTAssertEqual(Hex.bytes([UInt8]([0x01, 0xAB, 0x02]), separator: ", "), "01, AB, 02")
        XCTAssertEqual(Hex.bytes([UInt8]()[...]), "")
        XCTAssertEqual(BDAddr("00:1A:7D:DA:71:13").description, "00:1A:7D:DA:71:13")
        XCTAssertEqual(BDAddr(littleEndian: [0x13, 0x71, 0xDA, 0x7D, 0x1A, 0x00][...]).description, "00:1A:7D:DA:71:13")
    }

    /// The time column caches the local date of the last second: crossing a second, a minute
    /// and a day must still print the right time.
    func testTimeCacheAcrossSeconds() {
        setenv("TZ", "UTC", 1)
        tzset()
        var clock = TimeFormatter(mode: .abs)
        let midnight: Int64 = 1_557_359_999_000_000 // 2019-05-08 23:59:59 UTC
        XCTAssertEqual(clock.format(midnight + 998_000), "May 08 23:59:59.998")
        XCTAssertEqual(clock.format(midnight + 999_999), "May 08 23:59:59.999")
        XCTAssertEqual(clock.format(midnight + 1_000_000), "May 09 00:00:00.000")
        XCTAssertEqual(clock.format(midnight + 1_000_001), "May 09 00:00:00.000")
        XCTAssertEqual(clock.format(midnight - 60_000_000), "May 08 23:58:59.000")
        XCTAssertEqual(Microseconds.secondsText(-1_500_000), "-1.500000")
        XCTAssertEqual(Microseconds.secondsText(0), "0.000000")
    }

    /// The block hex formatter (stack buffer, one copy) writes what the byte-by-byte one does,
    /// across its 256-byte chunks too.
    func testBlockHexMatchesBytewiseHex() {
        for count in [0, 1, 16, 255, 256, 257, 600] {
            let bytes = (0 ..< count).map { UInt8(truncatingIfNeeded: $0 * 37) }[...]
            var block: [UInt8] = [], bytewise = FixedBytes()
            Hex.append(bytes: bytes, to: &block)
            Hex.append(bytes: bytes, to: &bytewise)
            XCTAssertEqual(block, bytewise.bytes, "\(count) bytes")
        }
        var preview = SummaryText()
        preview += "\(preview: (0 ..< 20).map { UInt8($0) }[...])"
        XCTAssertEqual(preview.description, "00 01 02 03 04 05 06 07 08 09 0A 0B 0C 0D 0E 0F …")
    }
}

/// An ASCIIOutput that takes the generic, byte-by-byte path.
struct FixedBytes: ASCIIOutput {
    var bytes: [UInt8] = []
    mutating func put(_ byte: UInt8) { bytes.append(byte) }
}
