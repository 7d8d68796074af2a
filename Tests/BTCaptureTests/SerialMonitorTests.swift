import XCTest
@testable import BTCapture
import BTFixtures

/// The BlueZ monitor protocol over a serial line (btmon -d's input, Zephyr's and NimBLE's
/// output): every opcode with and without extended headers, bytes arriving a few at a time,
/// noise between frames, the board's clock and drop counters, and a real capture re-encoded.
final class SerialMonitorTests: XCTestCase {
    /// Hands out its bytes in the chunks given (a serial line delivers what has arrived).
    final class ChunkStream: ByteStream {
        var chunks: [[UInt8]]
        init(_ chunks: [[UInt8]]) { self.chunks = chunks.filter { !$0.isEmpty } }
        func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
            guard !chunks.isEmpty else { return 0 }
            let n = min(buffer.count, chunks[0].count)
            for i in 0 ..< n { buffer[i] = chunks[0][i] }
            chunks[0].removeFirst(n)
            if chunks[0].isEmpty { chunks.removeFirst() }
            return n
        }
    }

    static let arrival: Int64 = 1_700_000_000_000_000

    static func read(_ chunks: [[UInt8]]) throws -> (frames: [Frame], reader: SerialMonitorReader) {
        let reader = SerialMonitorReader(BufferedReader(ChunkStream(chunks), chunkSize: 64), name: "line", arrival: { arrival })
        var frames: [Frame] = []
        while let frame = try reader.next() { frames.append(frame) }
        return (frames, reader)
    }

    static let payloads = SerialMonitorSamples.payloads

    func testEveryOpcodeWithAndWithoutExtendedHeadersAByteAtATime() throws {
        var stream: [UInt8] = []
        var expected: [(opcode: UInt16, payload: [UInt8], time: Int64)] = []
        var boardTime: UInt32 = 123_456   // 12.3456 s since the board started
        for opcode in UInt16(0) ... SerialMonitor.highestOpcode {
            let payload = try XCTUnwrap(Self.payloads[opcode], "opcode \(opcode)")
            stream += SerialMonitor.encode(opcode: opcode, payload: payload)
            expected.append((opcode, payload, Self.arrival))
            stream += SerialMonitor.encode(opcode: opcode, payload: payload, timestamp: boardTime)
            expected.append((opcode, payload, Self.arrival + Int64(boardTime - 123_456) * 100))
            boardTime += 37
        }
        // One byte per read: every frame is cut at every place a read can cut it.
        let (frames, reader) = try Self.read(stream.map { [$0] })
        XCTAssertEqual(frames.count, expected.count)
        for (frame, want) in zip(frames, expected) {
            let (kind, direction) = MonitorOpcode.kind(for: want.opcode)
            XCTAssertEqual(frame.kind, kind, "opcode \(want.opcode)")
            XCTAssertEqual(frame.direction, direction)
            XCTAssertEqual(Array(frame.bytes), want.payload, "opcode \(want.opcode)")
            XCTAssertEqual(frame.timestamp, want.time, "opcode \(want.opcode)")
            XCTAssertEqual(frame.controller, 0, "the line has no index: hci0, as btmon records it")
        }
        XCTAssertEqual(frames.map(\.number), Array(1 ... frames.count))
        XCTAssertTrue(reader.warnings.isEmpty, "\(reader.warnings)")
        XCTAssertEqual(reader.skippedBytes, 0)
    }

    func testSplitAtEveryByteBoundary() throws {
        let stream = SerialMonitor.encode(opcode: 2, payload: Self.payloads[2]!, timestamp: 10)
            + SerialMonitor.encode(opcode: 3, payload: Self.payloads[3]!, timestamp: 25, drops: [(.eventDrops, 0)])
            + SerialMonitor.encode(opcode: 13, payload: Self.payloads[13]!)
        let whole = try Self.read([stream]).frames
        XCTAssertEqual(whole.count, 3)
        for cut in 0 ... stream.count {
            let split = try Self.read([Array(stream[..<cut]), Array(stream[cut...])]).frames
            XCTAssertEqual(split, whole, "cut at byte \(cut)")
        }
        XCTAssertEqual(whole[1].timestamp - whole[0].timestamp, 1_500, "15 units of 100 µs")
    }

    /// Noise before, between and after frames: bytes that look like a header (a plausible
    /// length and opcode) whose payload's own length disagrees, and random bytes. Every frame
    /// is found, each stretch of noise is counted, and a frame cut off at the end is reported.
    func testNoiseBetweenFramesIsSkippedAndCounted() throws {
        for seed in UInt64(1) ... 30 { try checkNoise(seed: seed) }
    }

    func checkNoise(seed: UInt64) throws {
        var generator = SplitMix64(state: seed)
        let frames = (0 ..< 40).map { i -> [UInt8] in
            let opcode: UInt16 = [2, 3, 4, 5, 12][i % 5]
            return SerialMonitor.encode(opcode: opcode, payload: Self.payloads[opcode]!, timestamp: UInt32(i * 10))
        }
        var stream: [UInt8] = [], noise = 0
        // A header announcing a 255-byte command whose parameter length says otherwise.
        let falseHeader: [UInt8] = [0x03, 0x01, 0x02, 0x00, 0x00, 0x00, 0x03, 0x0C, 0x05]
        for (i, frame) in frames.enumerated() {
            let garbage: [UInt8] = i % 3 == 0 ? falseHeader : (0 ..< Int(generator.next() % 40)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            stream += garbage + frame
            noise += garbage.count
        }
        stream += [0x20, 0x00, 0x03, 0x00]   // a frame's start, cut off
        let (read, reader) = try Self.read(stream.map { [$0] })
        XCTAssertEqual(read.map { Array($0.bytes) }, frames.map { Array($0.dropFirst(SerialMonitor.headerSize + 5)) }, "seed \(seed)")
        XCTAssertEqual(reader.skippedBytes, noise + 4, "seed \(seed)")
        let messages = reader.warnings.map(\.message)
        XCTAssertTrue(messages.contains { $0.contains("9 bytes that were no monitor frame skipped before frame 1") }, "\(messages)")
        XCTAssertEqual(messages.last, "line: the line ended inside a frame: its last 4 bytes were not a whole frame")
    }

    /// The board's clock: 100 µs units from its start, wrapping at 2^32 (4.97 days); frames
    /// keep counting on across the wrap. Drop counters add up and are reported where they come.
    func testBoardClockWrapsAndDropsAreCounted() throws {
        let stream = SerialMonitor.encode(opcode: 3, payload: Self.payloads[3]!, timestamp: UInt32.max - 9)
            + SerialMonitor.encode(opcode: 3, payload: Self.payloads[3]!, timestamp: 5, drops: [(.eventDrops, 2), (.aclReceivedDrops, 1)])
            + SerialMonitor.encode(opcode: 2, payload: Self.payloads[2]!, drops: [(.commandDrops, 4)])
        let (frames, reader) = try Self.read([stream])
        XCTAssertEqual(frames.map(\.timestamp), [Self.arrival, Self.arrival + 1_500, Self.arrival])
        XCTAssertEqual(frames.map(\.drops), [0, 3, 7])
        XCTAssertEqual(reader.drops, 7)
        XCTAssertEqual(reader.warnings.map(\.message), [
            "line: the board dropped 3 frames before frame 2 (events 2, ACL received 1)",
            "line: the board dropped 4 frames before frame 3 (commands 4)",
        ])
    }

    /// Only noise (a line at the wrong speed): told at 256 bytes, then at 4,096.
    func testALineOfNoiseIsNoticedBeforeAnyFrame() throws {
        var generator = SplitMix64(state: 3)
        let noise = (0 ..< 5_000).map { _ in UInt8(0x80 | UInt8(truncatingIfNeeded: generator.next())) }
        let reader = SerialMonitorReader(BufferedReader(ChunkStream([noise]), chunkSize: 64), name: "line", arrival: { Self.arrival })
        var noticed: [Int] = []
        reader.noticeNoise = { noticed.append($0) }
        XCTAssertNil(try reader.next())
        XCTAssertEqual(noticed, [256, 4_096])
        XCTAssertEqual(reader.skippedBytes, 5_000)
    }

    /// A real capture (the kernel's l2cap-tester run) written as a board would write it, its
    /// times as the board's clock: read back, every frame as the btsnoop file holds it (times
    /// to the protocol's 100 µs), the frames of no controller on hci0 as the line has no index.
    func testAKernelCaptureReEncodedReadsAsItsBtsnoopFile() throws {
        for name in ["kernel-l2cap.btsnoop", "kernel-smp.btsnoop", "kernel-pairing.btsnoop"] {
            try checkReEncoded(FixtureTests.fixtures + "/" + name)
        }
    }

    func checkReEncoded(_ path: String) throws {
        let original = try CaptureInput.open(path)
        var frames: [Frame] = []
        while let frame = try original.next() { frames.append(frame) }
        // The monitor's frames are not quite in time order: the board's clock starts at the earliest.
        let start = try XCTUnwrap(frames.map(\.timestamp).min())
        let first = (frames[0].timestamp - start) / 100
        var stream: [UInt8] = []
        for frame in frames {
            let opcode = try XCTUnwrap(MonitorOpcode.opcode(for: frame.kind, direction: frame.direction))
            stream += SerialMonitor.encode(opcode: opcode, payload: Array(frame.bytes), timestamp: UInt32((frame.timestamp - start) / 100))
        }
        // Reads of 61 bytes: frames cut everywhere.
        let chunks = stride(from: 0, to: stream.count, by: 61).map { Array(stream[$0 ..< min($0 + 61, stream.count)]) }
        let (read, reader) = try Self.read(chunks)
        XCTAssertTrue(reader.warnings.isEmpty, "\(path): \(reader.warnings.prefix(3))")
        XCTAssertEqual(read.count, frames.count, path)
        for (got, want) in zip(read, frames) {
            XCTAssertEqual(got.kind, want.kind, "#\(want.number)")
            XCTAssertEqual(got.direction, want.direction, "#\(want.number)")
            XCTAssertEqual(got.bytes, want.bytes, "#\(want.number)")
            XCTAssertEqual(got.timestamp - Self.arrival, ((want.timestamp - start) / 100 - first) * 100, "#\(want.number)")
        }
    }
}
