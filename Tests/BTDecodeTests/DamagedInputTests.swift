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
}
