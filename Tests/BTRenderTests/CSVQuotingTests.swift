import XCTest
import BTCapture
@testable import BTRender

/// CSV's quoting test, eight bytes at a time, against the byte-by-byte rule of RFC 4180.
final class CSVQuotingTests: XCTestCase {
    static let special: Set<UInt8> = [UInt8(ascii: ","), UInt8(ascii: "\""), 0x0A, 0x0D]

    func needsQuotes(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { CSVRenderer.needsQuotes($0) }
    }

    /// Every byte value alone, and at every position of cells of 0-40 bytes among neighbours
    /// one bit away from a special byte (0x2D, 0xAC, 0x0B...): the word test must neither miss
    /// nor invent one.
    func testEveryByteAtEveryPosition() {
        for byte in UInt8.min ... UInt8.max {
            XCTAssertEqual(needsQuotes([byte]), Self.special.contains(byte), "byte \(byte)")
        }
        let near: [UInt8] = [0x2D, 0x2B, 0xAC, 0x23, 0xA2, 0x0B, 0x8A, 0x0C, 0x8D, 0x20, 0x00, 0xFF, 0x01]
        for length in 0 ... 40 {
            let background = (0 ..< length).map { near[$0 % near.count] }
            XCTAssertFalse(needsQuotes(background), "length \(length)")
            for position in 0 ..< length {
                for byte in Self.special {
                    var cell = background
                    cell[position] = byte
                    XCTAssertTrue(needsQuotes(cell), "\(byte) at \(position) of \(length)")
                }
            }
        }
    }

    /// Random cells, judged as the reference judges them.
    func testRandomCells() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0 ..< 20_000 {
            let length = Int.random(in: 0 ... 70, using: &generator)
            // Mostly printable text, now and then a special byte, as summaries are.
            let cell = (0 ..< length).map { _ in
                Int.random(in: 0 ..< 200, using: &generator) == 0 ? Self.special.randomElement()! : UInt8.random(in: 0x20 ... 0x7E)
            }
            XCTAssertEqual(needsQuotes(cell), cell.contains { Self.special.contains($0) })
        }
    }

    /// The cell is quoted in place, its quotes doubled; what came before it is untouched.
    func testQuoteCellInPlace() {
        var out = OutputBuffer(capacity: 8)
        defer { out.deallocate() }
        for byte in Array("12,".utf8) { out.put(byte) }
        let start = out.count
        for byte in Array("Value: \"a,b\" and more text past eight".utf8) { out.put(byte) }
        CSVRenderer.quoteCell(from: start, in: &out)
        XCTAssertEqual(out.withBytes { String(decoding: $0, as: UTF8.self) }, "12,\"Value: \"\"a,b\"\" and more text past eight\"")
        let plain = out.count
        for byte in Array("no specials here at all".utf8) { out.put(byte) }
        CSVRenderer.quoteCell(from: plain, in: &out)
        XCTAssertEqual(out.count, plain + 23)
    }
}
