import XCTest
@testable import BTCapture
import BTFixtures

/// A UART tapped on both wires: each wire's bytes as H4, found among noise. Real captures split
/// by direction (an Android phone's snoop log of a car's OBD adapter, the kernel's two hosts
/// bonding) are the traffic; seeded noise goes between packets.
final class H4WireTests: XCTestCase {
    static func frames(_ path: String) throws -> [Frame] {
        let reader = try CaptureInput.open(FixtureTests.fixtures + "/" + path)
        var frames: [Frame] = []
        while let frame = try reader.next() { frames.append(frame) }
        return frames.filter { H4.indicator(for: $0.kind) != nil }
    }

    /// What a UART's framing errors and line breaks read as: bytes of all ones or all zeros at
    /// the ends (a start bit seen late or a stop bit missed), never an H4 type octet.
    static let lineNoise: [UInt8] = [0x00, 0xFF, 0xFE, 0xFC, 0xF8, 0xF0, 0xE0, 0xC0, 0x80]

    /// One wire's bytes: the packets its side sent, with noise (seeded: line noise, or any
    /// bytes at all) before every few packets.
    static func wire(_ frames: [Frame], _ wire: H4WireReader.Wire, seed: UInt64, every: Int, anyBytes: Bool = false)
        -> (bytes: [UInt8], packets: [Frame], noise: Int) {
        var generator = SplitMix64(state: seed)
        let packets = frames.filter { ($0.direction == .sent) == (wire == .host) }
        var bytes: [UInt8] = [], noise = 0
        for (index, frame) in packets.enumerated() {
            if index % every == 0 {
                let garbage = (0 ..< 1 + Int(generator.next() % 8)).map { _ in
                    anyBytes ? UInt8(truncatingIfNeeded: generator.next()) : lineNoise[Int(generator.next() % UInt64(lineNoise.count))]
                }
                bytes += garbage
                noise += garbage.count
            }
            bytes += [H4.indicator(for: frame.kind)!] + frame.bytes
        }
        return (bytes, packets, noise)
    }

    static func read(_ bytes: [UInt8], _ wire: H4WireReader.Wire, chunk: Int) throws -> (frames: [Frame], reader: H4WireReader) {
        let chunks = stride(from: 0, to: bytes.count, by: chunk).map { Array(bytes[$0 ..< min($0 + chunk, bytes.count)]) }
        let reader = H4WireReader(BufferedReader(SerialMonitorTests.ChunkStream(chunks), chunkSize: 4096), name: "tap", wire: wire, arrival: { 7 })
        var frames: [Frame] = []
        while let frame = try reader.next() { frames.append(frame) }
        return (frames, reader)
    }

    func check(_ fixture: String, chunk: Int, every: Int, seeds: ClosedRange<UInt64>) throws {
        let frames = try Self.frames(fixture)
        for seed in seeds {
            for wire in [H4WireReader.Wire.host, .controller] {
                let (bytes, packets, noise) = Self.wire(frames, wire, seed: seed, every: every)
                let (read, reader) = try Self.read(bytes, wire, chunk: chunk)
                XCTAssertEqual(read.count, packets.count, "\(fixture) \(wire) seed \(seed)")
                XCTAssertEqual(reader.skippedBytes, noise, "\(fixture) \(wire) seed \(seed)")
                for (got, want) in zip(read, packets) where got.bytes != want.bytes || got.kind != want.kind || got.direction != want.direction {
                    XCTFail("\(fixture) \(wire) seed \(seed): #\(got.number) is \(got.kind) \(Array(got.bytes.prefix(12))), not \(want.kind) \(Array(want.bytes.prefix(12))) (original #\(want.number))")
                    break
                }
            }
        }
    }

    /// 30,378 records of a real phone: line noise before every 25th packet, 61 bytes a read.
    func testARealPhonesTrafficIsFoundAmongLineNoise() throws {
        try check("third-party/happyleaf/btsnoop_hci.log", chunk: 61, every: 25, seeds: 1 ... 3)
    }

    /// Noise of any bytes can start a packet the tap cannot tell from a real one (a type octet,
    /// a plausible header, and its end on a real packet's start): what that costs, measured. Of
    /// the phone's packets, with 1-8 random bytes before every 25th (about 1,200 bursts a wire),
    /// at least 99.8% come out as they were, in order, and at most 1 in 5,000 is invented.
    func testAnyNoiseCostsLittle() throws {
        let frames = try Self.frames("third-party/happyleaf/btsnoop_hci.log")
        var lost = 0, invented = 0, total = 0
        for seed in UInt64(1) ... 4 {
            for wire in [H4WireReader.Wire.host, .controller] {
                let (bytes, packets, _) = Self.wire(frames, wire, seed: seed, every: 25, anyBytes: true)
                let read = try Self.read(bytes, wire, chunk: 61).frames
                // Matched in order: a read packet equal to the next original ones (skipping lost ones).
                var next = 0
                for got in read {
                    if let found = packets[next...].prefix(8).firstIndex(where: { $0.bytes == got.bytes && $0.kind == got.kind }) {
                        lost += found - next
                        next = found + 1
                    } else {
                        invented += 1
                    }
                }
                lost += packets.count - next
                total += packets.count
            }
        }
        print("H4 tap under any-byte noise: \(lost) of \(total) packets lost, \(invented) invented")
        XCTAssertLessThanOrEqual(Double(lost), Double(total) * 0.002, "\(lost) of \(total) lost")
        XCTAssertLessThanOrEqual(Double(invented), Double(total) / 5_000, "\(invented) of \(total) invented")
    }

    /// The kernel's hosts bonding (SMP, LE credit-based data, mgmt-driven commands), a byte a read.
    func testTwoKernelHostsAByteAtATime() throws {
        try check("kernel-pairing.btsnoop", chunk: 1, every: 5, seeds: 1 ... 5)
    }

    /// A packet cut off at the end is reported; types the other wire carries are noise here.
    func testTheWiresCarryTheirOwnTypesAndACutPacketIsSaid() throws {
        let reset: [UInt8] = [0x01, 0x03, 0x0C, 0x00]
        let status: [UInt8] = [0x04, 0x0F, 0x04, 0x00, 0x01, 0x05, 0x04]   // Command Status for Create Connection
        let (host, hostReader) = try Self.read(status + reset + [0x02, 0x40, 0x20, 0x09], .host, chunk: 3)
        XCTAssertEqual(host.map { Array($0.bytes) }, [[0x03, 0x0C, 0x00]])
        XCTAssertEqual(host.first?.direction, .sent)
        XCTAssertEqual(hostReader.warnings.map(\.message), [
            "tap: 7 bytes that were no H4 packet skipped before packet 1",
            "tap: the host wire ended inside a packet: its last 4 bytes were not a whole packet",
        ])
        let complete: [UInt8] = [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]
        let (controller, _) = try Self.read(reset + complete, .controller, chunk: 2)
        XCTAssertEqual(controller.map { Array($0.bytes) }, [[0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]])
        XCTAssertEqual(controller.first?.timestamp, 7, "the arrival clock")
    }
}
