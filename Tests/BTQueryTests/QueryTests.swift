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

/// The packet chain: every frame decoded (state spans packets), the stages decide what reaches
/// the sink, and a stage that has seen its last packet ends the reading.
final class PipelineTests: XCTestCase {
    struct Collect: PacketSink {
        var numbers: [Int] = []
        mutating func consume(_ packet: Packet) throws { numbers.append(packet.frame.number) }
    }

    /// Keeps packets whose number is even: stands for a filter stage.
    struct EvenNumbers: PacketStage {
        var seen = 0
        mutating func process(_ packet: inout Packet, context: StageContext) -> StageVerdict {
            seen += 1
            return packet.frame.number % 2 == 0 ? .keep : .drop
        }
    }

    func frames(_ count: Int) -> ArrayFrameReader {
        let frames = (1 ... count).map { Frame(number: $0, timestamp: Int64($0) * 1000, kind: .command, direction: .sent, bytes: [0x03, 0x0C, 0x00]) }
        return ArrayFrameReader(frames: frames, formatDescription: "test", nativeFormat: .btsnoopH4)
    }

    func run(_ stages: [any PacketStage], _ count: Int = 10, tapped: inout [Int]) throws -> (Collect, PacketPipeline) {
        var pipeline = PacketPipeline(decoder: Decoder(), stages: stages) { _ in }
        var seen: [Int] = []
        pipeline.tap = { seen.append($0.number) }
        var sink = Collect()
        try pipeline.run(frames(count), into: &sink)
        tapped = seen
        return (sink, pipeline)
    }

    func testStagesDecideWhatReachesTheSink() throws {
        var tapped: [Int] = []
        let (all, allRun) = try run([], tapped: &tapped)
        XCTAssertEqual(all.numbers, Array(1 ... 10))
        XCTAssertTrue(allRun.readAll)
        XCTAssertEqual(allRun.statistics.packets, 10)

        let (range, rangeRun) = try run([PacketSelection(range: 3 ... 5)], tapped: &tapped)
        XCTAssertEqual(range.numbers, [3, 4, 5])
        XCTAssertFalse(rangeRun.readAll, "reading stops at the end of the range")
        XCTAssertEqual(tapped, [1, 2, 3, 4, 5], "the tap saw every frame read, and nothing after the stop")

        // A filter, then a count of what it kept: -c counts matching packets.
        let (counted, countedRun) = try run([EvenNumbers(), PacketSelection(count: 2)], tapped: &tapped)
        XCTAssertEqual(counted.numbers, [2, 4])
        XCTAssertEqual(countedRun.statistics.packets, 2)
        XCTAssertEqual(tapped, [1, 2, 3, 4])

        // A count first and a filter after: the count's last packet ends the reading even if dropped.
        let (dropped, droppedRun) = try run([PacketSelection(count: 3), EvenNumbers()], tapped: &tapped)
        XCTAssertEqual(dropped.numbers, [2])
        XCTAssertFalse(droppedRun.readAll)
        XCTAssertEqual(tapped, [1, 2, 3])
    }

    /// What stayed open is reported only when the whole input was read.
    func testFinishReportsOnlyAfterReadingEverything() throws {
        let decoder = Decoder()
        // An LE link, then a Read Request never answered.
        let frames = [
            Frame(number: 1, timestamp: 0, kind: .event, direction: .received, bytes:
                [0x3E, 0x13, 0x01, 0x00, 0x40, 0x00, 0x00, 0x01, 0x56, 0x34, 0x12, 0xEE, 0xFF, 0xC0, 0x18, 0x00, 0x00, 0x00, 0x48, 0x00, 0x00]),
            Frame(number: 2, timestamp: 0, kind: .aclData, direction: .sent, bytes: [0x40, 0x00, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x0A, 0x03, 0x00]),
        ]
        var pipeline = PacketPipeline(decoder: decoder) { _ in }
        var sink = Collect()
        try pipeline.run(ArrayFrameReader(frames: frames, formatDescription: "test", nativeFormat: .btsnoopH4), into: &sink)
        XCTAssertEqual(pipeline.finish().map(\.message), ["Read Request never answered (end of capture)"])

        var stopped = PacketPipeline(decoder: Decoder(), stages: [PacketSelection(count: 1)]) { _ in }
        try stopped.run(ArrayFrameReader(frames: frames, formatDescription: "test", nativeFormat: .btsnoopH4), into: &sink)
        XCTAssertEqual(stopped.finish(), [], "the rest was never read: nothing to say about it")
    }
}
