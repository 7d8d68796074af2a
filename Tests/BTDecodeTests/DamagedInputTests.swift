import XCTest
import BTCapture
import BTDecode

/// Every fixture cut at every byte and with bytes flipped: readers and the decoder report
/// damage but never crash, and the records before a cut are all read.
final class DamagedInputTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    func decodeAll(_ bytes: [UInt8]) -> Int? {
        guard let reader = try? CaptureInput.open(bytes: bytes) else { return nil }
        let decoder = Decoder()
        var count = 0
        while let frame = try? reader.next() {
            _ = decoder.decode(frame)
            count += 1
        }
        return count
    }

    func testTruncationAtEveryOffset() throws {
        for name in ["wwdc-dual.btsnoop", "wwdc-dual.pklg", "wwdc-dual-be.pklg", "wwdc-dual-monitor.btsnoop",
                     "wwdc-dual-h5.btsnoop", "wwdc-dual.pcap", "wwdc-dual.pcapng", "wwdc-dual.btsnoop.gz",
                     "le-heart-rate.btsnoop", "bredr-l2cap.btsnoop"] {
            let bytes = [UInt8](try Data(contentsOf: Self.fixtures.appendingPathComponent(name)))
            let full = decodeAll(bytes)
            XCTAssertNotNil(full, name)
            var previous = 0
            for cut in stride(from: 0, to: bytes.count, by: name.hasSuffix(".gz") ? 1 : 3) {
                let count = decodeAll(Array(bytes.prefix(cut))) ?? 0
                XCTAssertGreaterThanOrEqual(count, previous - 1, "\(name) cut at \(cut)")
                XCTAssertLessThanOrEqual(count, full ?? 0)
                previous = max(previous, count)
            }
        }
    }

    func testCorruptedBytes() throws {
        var generator = SystemRandomNumberGenerator()
        for name in ["wwdc-dual.btsnoop", "wwdc-dual.pklg", "wwdc-dual-monitor.btsnoop", "wwdc-dual.pcap",
                     "le-heart-rate.btsnoop", "le-heart-rate.pklg", "bredr-l2cap.btsnoop"] {
            let bytes = [UInt8](try Data(contentsOf: Self.fixtures.appendingPathComponent(name)))
            for _ in 0 ..< 300 {
                var damaged = bytes
                for _ in 0 ..< 1 + Int.random(in: 0 ..< 8, using: &generator) {
                    let i = Int.random(in: 0 ..< damaged.count, using: &generator)
                    damaged[i] = [0x00, 0xFF, 0x7F, 0x80, UInt8.random(in: 0 ... 255, using: &generator)].randomElement()!
                }
                _ = decodeAll(damaged)
            }
        }
    }

    func testRandomHCIPackets() {
        var generator = SystemRandomNumberGenerator()
        let decoder = Decoder()
        let kinds: [FrameKind] = [.command, .event, .aclData, .scoData, .isoData, .syslog, .userLogging, .newIndex, .indexInfo, .note]
        for i in 0 ..< 20_000 {
            let length = Int.random(in: 0 ..< 40, using: &generator)
            var bytes = (0 ..< length).map { _ in UInt8.random(in: 0 ... 255, using: &generator) }
            if bytes.count > 2, i % 2 == 0 { bytes[0] = [0x0E, 0x0F, 0x3E, 0x03, 0x05, 0x08, 0x13].randomElement()! }
            _ = decoder.decode(Frame(number: i, timestamp: 0, kind: kinds[i % kinds.count], direction: .received, bytes: bytes))
        }
    }

    /// Record ends of a btsnoop file, walked here independently of the reader.
    static func btsnoopRecordEnds(_ bytes: [UInt8]) -> [Int] {
        var ends: [Int] = []
        var at = 16
        while at + 24 <= bytes.count {
            let included = Int(bytes[at + 4]) << 24 | Int(bytes[at + 5]) << 16 | Int(bytes[at + 6]) << 8 | Int(bytes[at + 7])
            guard at + 24 + included <= bytes.count else { break }
            at += 24 + included
            ends.append(at)
        }
        return ends
    }

    func readAll(_ bytes: [UInt8]) -> (frames: Int, warnings: [String])? {
        guard let reader = try? CaptureInput.open(bytes: bytes) else { return nil }
        var frames = 0
        while (try? reader.next()) ?? nil != nil { frames += 1 }
        return (frames, reader.warnings.map(\.message))
    }

    /// Cut at every byte (the kernel captures: every record boundary, the bytes either side of
    /// it and a thousand random offsets): exactly the records wholly before the cut are read,
    /// and a cut inside a record is named with its byte offset.
    func testEveryCompleteRecordBeforeACutIsRead() throws {
        var generator = SystemRandomNumberGenerator()
        for name in ["wwdc-dual.btsnoop", "wwdc-dual-monitor.btsnoop", "le-heart-rate.btsnoop", "bredr-l2cap.btsnoop",
                     "kernel-smp.btsnoop", "kernel-iso.btsnoop"] {
            let bytes = [UInt8](try Data(contentsOf: Self.fixtures.appendingPathComponent(name)))
            let ends = Self.btsnoopRecordEnds(bytes)
            XCTAssertEqual(ends.last, bytes.count, name)
            var cuts: Set<Int>
            if bytes.count < 10_000 {
                cuts = Set(16 ..< bytes.count)
            } else {
                cuts = Set(ends.prefix(300).flatMap { [$0 - 1, $0, $0 + 1] })
                for _ in 0 ..< 1000 { cuts.insert(Int.random(in: 16 ..< bytes.count, using: &generator)) }
            }
            // Each cut read on its own, both cores at once; checked in order below.
            let sorted = cuts.sorted()
            var results = [(frames: Int, warnings: [String])?](repeating: nil, count: sorted.count)
            let lock = NSLock()
            DispatchQueue.concurrentPerform(iterations: sorted.count) { index in
                let result = readAll(Array(bytes.prefix(sorted[index])))
                lock.lock()
                results[index] = result
                lock.unlock()
            }
            for (cut, read) in zip(sorted, results) {
                guard let result = read else { return XCTFail("\(name) cut at \(cut) did not open") }
                let whole = ends.prefix { $0 <= cut }.count
                XCTAssertEqual(result.frames, whole, "\(name) cut at \(cut)")
                let recordStart = ends.prefix { $0 <= cut }.last ?? 16
                if cut > recordStart {
                    XCTAssertTrue(result.warnings.contains { $0.contains("at byte \(recordStart)") },
                                  "\(name) cut at \(cut): \(result.warnings)")
                } else {
                    XCTAssertTrue(result.warnings.isEmpty, "\(name) cut at a record boundary \(cut): \(result.warnings)")
                }
            }
        }
    }

    /// Each record's length field set to 0, 1, the maximum and one past the end of the file:
    /// the records before it are read, the reader ends (or skips) with a warning, at once.
    func testLengthFieldsAtTheirLimits() throws {
        for name in ["wwdc-dual.btsnoop", "le-heart-rate.btsnoop"] {
            let bytes = [UInt8](try Data(contentsOf: Self.fixtures.appendingPathComponent(name)))
            let starts = [16] + Self.btsnoopRecordEnds(bytes).dropLast()
            for (index, start) in starts.enumerated() {
                for value in [UInt32(0), 1, .max, UInt32(bytes.count - start - 24 + 1)] {
                    var damaged = bytes
                    for field in [start, start + 4] {  // original and included length
                        damaged[field] = UInt8(value >> 24); damaged[field + 1] = UInt8(value >> 16 & 0xFF)
                        damaged[field + 2] = UInt8(value >> 8 & 0xFF); damaged[field + 3] = UInt8(value & 0xFF)
                    }
                    let started = Date()
                    guard let result = readAll(damaged) else { return XCTFail("\(name) record \(index) = \(value)") }
                    XCTAssertLessThan(Date().timeIntervalSince(started), 1)
                    XCTAssertGreaterThanOrEqual(result.frames, index, "\(name): records before \(index) are read")
                    if value > 1 { XCTAssertFalse(result.warnings.isEmpty, "\(name) record \(index) length \(value)") }
                }
            }
        }
    }
}
