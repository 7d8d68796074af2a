import XCTest
import BTCapture
import BTDecode
@testable import BTQuery

final class QueryTests: XCTestCase {
    func testRangeParsing() {
        XCTAssertEqual(PacketSelection.parseRange("10-20"), 10 ... 20)
        XCTAssertEqual(PacketSelection.parseRange("10-"), 10 ... Int.max)
        XCTAssertEqual(PacketSelection.parseRange("-20"), 1 ... 20)
        XCTAssertEqual(PacketSelection.parseRange("7"), 7 ... 7)
        for bad in ["", "0", "20-10", "a-b", "1-2-3", "-"] { XCTAssertNil(PacketSelection.parseRange(bad), bad) }
    }

    func testSelectionStopsEarly() {
        let selection = PacketSelection(range: 3 ... 5, count: nil)
        XCTAssertFalse(selection.includes(number: 2))
        XCTAssertTrue(selection.includes(number: 3))
        XCTAssertTrue(selection.isExhausted(afterNumber: 5, shown: 3))
        XCTAssertTrue(PacketSelection(count: 2).isExhausted(afterNumber: 9, shown: 2))
    }

    func testStatusLineCounts() {
        let decoder = Decoder()
        var statistics = CaptureStatistics()
        let frames = [
            Frame(number: 1, timestamp: 1_000_000, kind: .command, direction: .sent, bytes: [0x03, 0x0C, 0x00]),
            Frame(number: 2, timestamp: 1_000_400, kind: .event, direction: .received, bytes: [0x0F, 0x04, 0x0C, 0x01, 0x0D, 0x20]),
            Frame(number: 3, timestamp: 1_443_000, kind: .aclData, direction: .sent, bytes: [0x44, 0x20, 0x00, 0x00]),
            Frame(number: 4, timestamp: 1_443_000, kind: .note, direction: .none, bytes: Array("x".utf8)),
        ]
        for frame in frames { statistics.add(decoder.decode(frame)) }
        XCTAssertEqual(statistics.statusLine, "4 packets (1 error) · 1 HCI command · 1 event · 1 ACL · 0 SCO · 1 other · 0.443 s")
    }
}
