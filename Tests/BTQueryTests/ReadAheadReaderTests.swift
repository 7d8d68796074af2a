import XCTest
import BTCapture
@testable import BTQuery

/// The reader a merge is read through on a thread of its own: its consumer must see what the
/// reader itself gives, at the same places (frames, warnings, a failure, the end).
final class ReadAheadReaderTests: XCTestCase {
    /// Gives `count` frames; a warning while reading each frame in `warnAt` (and at the end
    /// when `count` is in it), and fails instead of giving frame `failAt`.
    final class ScriptedReader: FrameReader {
        let count: Int
        let warnAt: Set<Int>
        let failAt: Int?
        var given = 0
        var warnings: [CaptureWarning] = []
        var formatDescription: String { "scripted" }
        var nativeFormat: CaptureFileFormat { .pcapng }

        init(count: Int, warnAt: Set<Int> = [], failAt: Int? = nil, warningsAtOpen: [String] = []) {
            self.count = count
            self.warnAt = warnAt
            self.failAt = failAt
            warnings = warningsAtOpen.map(CaptureWarning.init)
        }

        func next() throws -> Frame? {
            let number = given + 1
            if warnAt.contains(number) { warnings.append(CaptureWarning("warning at \(number)")) }
            if number == failAt { throw CaptureError("damaged at \(number)") }
            guard number <= count else { return nil }
            given = number
            return Frame(number: number, timestamp: Int64(number), kind: .aclData, direction: .sent, bytes: [UInt8(number & 0xFF)])
        }
    }

    /// What a consumer sees reading to the end the way the pipeline does (the warnings drained
    /// after each frame), as text.
    func transcript(_ reader: FrameReader) -> [String] {
        var seen: [String] = []
        func drain() {
            for warning in reader.warnings { seen.append("! " + warning.message) }
            reader.warnings.removeAll()
        }
        drain()
        do {
            while let frame = try reader.next() {
                drain()
                seen.append("frame \(frame.number) \(frame.bytes.first ?? 0)")
            }
            drain()
            seen.append("end")
        } catch {
            drain()
            seen.append("error: \((error as? CaptureError)?.message ?? "\(error)")")
        }
        return seen
    }

    func testSameFramesWarningsAndEndAsTheReaderItself() {
        // Across several batches (256 frames each), a warning on a batch's first and last frame
        // and at the end.
        let count = 3 * ReadAheadReader.batchSize + 17
        let warnAt: Set<Int> = [1, 2, 256, 257, 512, 700, count + 1]
        let direct = transcript(ScriptedReader(count: count, warnAt: warnAt, warningsAtOpen: ["opened with damage"]))
        let ahead = ReadAheadReader(ScriptedReader(count: count, warnAt: warnAt, warningsAtOpen: ["opened with damage"]))
        XCTAssertEqual(transcript(ahead), direct)
        ahead.stop()
        XCTAssertEqual(direct.first, "! opened with damage")
        XCTAssertEqual(direct.filter { $0.hasPrefix("frame") }.count, count)
        XCTAssertEqual(direct.suffix(2), ["! warning at \(count + 1)", "end"])
    }

    func testAFailureComesAfterTheFramesBeforeIt() {
        for failAt in [1, 100, ReadAheadReader.batchSize, ReadAheadReader.batchSize + 1] {
            let direct = transcript(ScriptedReader(count: 1000, warnAt: [failAt], failAt: failAt))
            let ahead = ReadAheadReader(ScriptedReader(count: 1000, warnAt: [failAt], failAt: failAt))
            XCTAssertEqual(transcript(ahead), direct, "failing at \(failAt)")
            XCTAssertEqual(direct.last, "error: damaged at \(failAt)")
            XCTAssertEqual(direct.filter { $0.hasPrefix("frame") }.count, failAt - 1)
        }
    }

    func testStoppingEarlyLetsGoOfTheReader() throws {
        let base = ScriptedReader(count: 100_000)
        let ahead = ReadAheadReader(base, batches: 2)
        for expected in 1 ... 10 { XCTAssertEqual(try ahead.next()?.number, expected) }
        ahead.stop()
        // The thread read at most its batches ahead, and has stopped: the reader is the
        // caller's again.
        let read = base.given
        XCTAssertLessThanOrEqual(read, 3 * ReadAheadReader.batchSize)
        XCTAssertEqual(try base.next()?.number, read + 1)
        // Stopping one never started, or twice, returns.
        ReadAheadReader(ScriptedReader(count: 1)).stop()
        ahead.stop()
    }

    func testAMergeReadsTheSameThroughIt() throws {
        // The kernel harness's two hosts, the board's clock an hour ahead and 50 ppm fast.
        let all = try MergeTests.frames("kernel-two-hosts.btsnoop")
        let inputs = [MergeTests.input("phone", MergeTests.host(all, controllers: [0, 2])),
                      MergeTests.input("board", MergeTests.host(all, controllers: [1, 3], offset: 3_600_500_000, ppm: 50))]
        let direct = try MergePlan.reader(inputs, try MergePlan.align(inputs))
        let ahead = ReadAheadReader(try MergePlan.reader(inputs, try MergePlan.align(inputs)))
        var directFrames: [Frame] = [], aheadFrames: [Frame] = []
        while let frame = try direct.next() { directFrames.append(frame) }
        while let frame = try ahead.next() { aheadFrames.append(frame) }
        ahead.stop()
        XCTAssertFalse(directFrames.isEmpty)
        XCTAssertEqual(aheadFrames.map(\.number), directFrames.map(\.number))
        XCTAssertEqual(aheadFrames.map(\.origin?.match?.number), directFrames.map(\.origin?.match?.number))
        XCTAssertTrue(directFrames.contains { $0.origin?.match != nil })
    }

    func testParallelMapKeepsOrderAndFailures() {
        let results = ParallelMap.run(count: 9, threads: 3) { index -> Int in
            if index == 4 { throw CaptureError("four") }
            return index * index
        }
        XCTAssertEqual(results.count, 9)
        for (index, result) in results.enumerated() {
            switch result {
            case .success(let value): XCTAssertEqual(value, index * index)
            case .failure(let error): XCTAssertEqual(index, 4); XCTAssertEqual((error as? CaptureError)?.message, "four")
            }
        }
    }
}
