import XCTest
import BTCapture
import BTDecode
import BTFixtures

/// The per-packet text path: summaries written through `SummaryPiece` read as the String
/// interpolation they replaced, and a Packet reused for frame after frame decodes each exactly
/// as a new one would, without touching copies kept of earlier packets.
final class PacketReuseTests: XCTestCase {
    func testSummaryPiecesReadAsStringInterpolation() {
        var text = SummaryText()
        let handle: UInt16 = 0x2A, code: UInt8 = 0x0B, cookie: UInt32 = 0xBEEF, rssi: Int8 = -67
        text += "Handle: \(hex: handle) - Code: \(hex: code) - Cookie: \(hex: cookie) - \(rssi) dBm - \(Int64.min)"
        XCTAssertEqual(text.description, "Handle: 0x002A - Code: 0x0B - Cookie: 0x0000BEEF - -67 dBm - -9223372036854775808")
        text.set("\(BDAddr(littleEndian: [0x38, 0x26, 0x24, 0xA7, 0x09, 0x00])) \(UInt64.max) \(1.5) \("é…" as Substring)")
        XCTAssertEqual(text.description, "00:09:A7:24:26:38 18446744073709551615 1.5 é…")

        let short: ArraySlice<UInt8> = [0x01, 0xAB, 0xFF]
        let long = ArraySlice((0 ..< 20).map(UInt8.init))
        text.set("[\(preview: short)] [\(preview: long)] [\(preview: [])]")
        XCTAssertEqual(text.description, "[01 AB FF] [00 01 02 03 04 05 06 07 08 09 0A 0B 0C 0D 0E 0F …] []")

        // Past the 128 bytes kept on the stack, the piece moves to the heap and loses nothing.
        let name = String(repeating: "Heart Rate Measurement ", count: 9)
        for prefix in ["", String(repeating: "x", count: 127), String(repeating: "y", count: 128)] {
            text.set("\(prefix)\(name)- \(hex: handle)")
            XCTAssertEqual(text.description, "\(prefix)\(name)- 0x002A", "after \(prefix.count) bytes")
        }
        // A hex value where the stack's 128 bytes end, just inside or across the edge.
        for length in 118 ... 128 {
            let prefix = String(repeating: "z", count: length)
            text.set("\(prefix)\(hex: handle)\(hex: cookie)")
            XCTAssertEqual(text.description, "\(prefix)0x002A0x0000BEEF", "after \(length) bytes")
        }
        // Written over in place: a shorter text after a longer one shows none of the longer's
        // bytes, and a copy taken before (a packet a sink keeps) is not written over.
        text.set("a summary longer than the next one")
        let kept = text
        text.set("short")
        text += " + more"
        XCTAssertEqual(text.description, "short + more")
        XCTAssertEqual(Array(text.bytes), Array("short + more".utf8))
        XCTAssertEqual(kept.description, "a summary longer than the next one")
        XCTAssertNotEqual(text, kept)
        text.set("a summary longer than the next one")
        XCTAssertEqual(text, kept)
        text.removeAll()
        XCTAssertTrue(text.isEmpty)
        text += "plain"
        text.append(" and appended")
        XCTAssertEqual(text.description, "plain and appended")
    }

    func testReusedPacketDecodesEveryFixtureAsANewOne() throws {
        for options in [DecodeOptions(), DecodeOptions(buildsDisplayText: false)] {
            for name in try fixtureNames() {
                let frames = try readFrames(name)
                let fresh = Decoder(options: options), reusing = Decoder(options: options)
                var reused: Packet?
                var kept: [(Packet, String)] = []
                for (index, frame) in frames.enumerated() {
                    let expected = dump(fresh.decode(frame))
                    if reused == nil { reused = reusing.decode(frame) } else { reusing.decode(frame, into: &reused!) }
                    XCTAssertEqual(dump(reused!), expected, "\(name) packet \(frame.number)")
                    // Every 7th packet is kept, as a sink holding packets would keep it.
                    if index % 7 == 0 { kept.append((reused!, expected)) }
                    // Every 3rd is let go of after use, as a sink's thread that is ahead does
                    // (PacketHandoff): the next frame decodes into it as into any other.
                    if index % 3 == 0 { reused!.releaseContents() }
                }
                for (packet, expected) in kept {
                    XCTAssertEqual(dump(packet), expected, "\(name): packet \(packet.frame.number) kept, then changed by reuse")
                }
            }
        }
    }

    private func dump(_ packet: Packet) -> String { PacketDump.text(of: packet) }

    private func fixtureNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: ModelTests.fixtures.path).sorted()
            .filter { $0.hasSuffix(".btsnoop") || $0.hasSuffix(".pklg") }
    }

    private func readFrames(_ name: String) throws -> [Frame] {
        let reader = try CaptureInput.open(bytes: [UInt8](try Data(contentsOf: ModelTests.fixtures.appendingPathComponent(name))))
        var frames: [Frame] = []
        while let frame = try reader.next() { frames.append(frame) }
        return frames
    }
}
