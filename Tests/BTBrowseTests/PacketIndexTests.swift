import XCTest
import BTCapture
import BTDecode
import BTQuery
import BTFixtures
import BTBrowse

/// The browser's capture: any packet decoded again from the nearest saved Session reads exactly
/// as the first pass decoded it, whatever order packets are opened in, whichever view the first
/// pass decoded for (the table's, without display text) and whichever the packet is opened
/// for (the tree's, with it).
final class PacketIndexTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every fixture, the air captures among them (whose link layer looks ahead at the next
    /// packets), and the third-party captures.
    static func captures() throws -> [String] {
        let fixtures = Self.root.appendingPathComponent("Fixtures").path
        let names = try FileManager.default.contentsOfDirectory(atPath: fixtures).sorted()
            .filter { [".btsnoop", ".pklg", ".pcap", ".pcapng"].contains(where: $0.hasSuffix) }
        let crackle = fixtures + "/third-party/crackle"
        let thirdParty = try FileManager.default.contentsOfDirectory(atPath: crackle).sorted().filter { $0.hasSuffix(".pcap") }
        return names.map { fixtures + "/" + $0 } + thirdParty.map { crackle + "/" + $0 }
    }

    func testAnyPacketOpensAsTheFirstPassDecodedIt() throws {
        var opened = 0
        for path in try Self.captures() {
            // What a sequential decode with display text (`show -V`) makes of each packet.
            let expected = try Self.decodeSequentially(path, buildsDisplayText: true)
            // The browser's first pass decodes for the list, without display text.
            let index = try Self.firstPass(path, interval: 7)
            let name = (path as NSString).lastPathComponent
            XCTAssertEqual(index.count, expected.dumps.count, name)

            // Every packet on its own, from the end backwards (each from its saved Session).
            for position in (0 ..< index.count).reversed() {
                let packet = try XCTUnwrap(index.packet(at: position), "\(name) packet \(position + 1)")
                XCTAssertEqual(PacketDump.text(of: packet), expected.dumps[position], "\(name) packet \(position + 1)")
                XCTAssertEqual(index.severity(at: position), expected.severities[position], "\(name) packet \(position + 1)")
                opened += 1
            }
            // A run of them across several saved Sessions, in one decode.
            let run = index.count / 3 ..< index.count
            var runDumps: [String] = []
            index.decode(run, buildsDisplayText: true) { runDumps.append(PacketDump.text(of: $0)) }
            XCTAssertEqual(runDumps, Array(expected.dumps[run]), name)
            // Frames read back as they were read.
            XCTAssertEqual(index.frame(at: 0)?.number, 1, name)
            XCTAssertNil(index.frame(at: index.count), name)
        }
        XCTAssertGreaterThan(opened, 10_000)
    }

    /// The list's decode (no display text) from a saved Session matches a first pass without it.
    func testTheListDecodesWithoutDisplayText() throws {
        let path = Self.root.appendingPathComponent("Fixtures/kernel-l2cap.btsnoop").path
        let expected = try Self.decodeSequentially(path, buildsDisplayText: false)
        let index = try Self.firstPass(path, interval: 64)
        var dumps: [String] = []
        XCTAssertGreaterThan(expected.dumps.count, 600)
        index.decode(100 ..< 300, buildsDisplayText: false) { dumps.append(PacketDump.text(of: $0)) }
        XCTAssertEqual(dumps, Array(expected.dumps[100 ..< 300]))
    }

    /// Every packet of the capture at `path` decoded in order, as `show` decodes it.
    static func decodeSequentially(_ path: String, buildsDisplayText: Bool) throws -> DumpSink {
        var dumps = DumpSink()
        var pipeline = PacketPipeline(decoder: Decoder(options: DecodeOptions(buildsDisplayText: buildsDisplayText)), onWarning: { _ in })
        try pipeline.run(try CaptureInput.open(path), into: &dumps)
        return dumps
    }

    /// The browser's first pass over the capture at `path`: decoded for the list, without
    /// display text, its frames and Sessions kept by the index the pipeline's tap feeds.
    static func firstPass(_ path: String, interval: Int) throws -> PacketIndex {
        let decoder = Decoder(options: DecodeOptions(buildsDisplayText: false))
        let index = PacketIndex(decoder: decoder, interval: interval)
        var pipeline = PacketPipeline(decoder: decoder, onWarning: { _ in })
        pipeline.tap = { index.record($0) }
        var noting = IndexSink(index: index)
        try pipeline.run(try CaptureInput.open(path), into: &noting)
        return index
    }

    /// Out of range asks get nothing, never a trap.
    func testOutOfRangeReadsNothing() throws {
        let decoder = Decoder()
        let index = PacketIndex(decoder: decoder, interval: 4)
        XCTAssertNil(index.packet(at: 0))
        XCTAssertNil(index.packet(at: .max))
        XCTAssertNil(index.packet(at: .min))
        XCTAssertNil(index.frame(at: -1))
        XCTAssertNil(index.severity(at: 5))
        index.record(Frame(number: 1, timestamp: 0, kind: .command, direction: .sent, bytes: [0x03, 0x0C, 0x00]))
        // Recorded but not yet noted (or dropped before the sink): no issue shown.
        XCTAssertNil(index.severity(at: 0))
        let decoded = decoder.decode(try XCTUnwrap(index.frame(at: 0)))
        index.noteDecoded(decoded)
        XCTAssertEqual(index.severity(at: 0), decoded.worstSeverity)
        XCTAssertEqual(index.packet(at: 0)?.top?.name, "HCI Command")
        var seen = 0
        index.decode(0 ..< 50, buildsDisplayText: true) { _ in seen += 1 }
        XCTAssertEqual(seen, 1)
        index.decode(-3 ..< 2, buildsDisplayText: true) { _ in seen += 1 }
        XCTAssertEqual(seen, 1)
    }
}

struct DumpSink: PacketSink {
    var dumps: [String] = []
    var severities: [Issue.Severity?] = []
    mutating func consume(_ packet: Packet) throws {
        dumps.append(PacketDump.text(of: packet))
        severities.append(packet.worstSeverity)
    }
}

struct IndexSink: PacketSink {
    let index: PacketIndex
    mutating func consume(_ packet: Packet) throws { index.noteDecoded(packet) }
}

/// A merge in the browser: the frames it keeps give back their source and their match, so the
/// list has its Source column and the tree its Merge lines, and the filter finds merge.latency.
final class MergedFrameStoreTests: XCTestCase {
    func testOriginsComeBack() throws {
        var store = FrameStore()
        var plain = Frame(number: 1, timestamp: 10, kind: .command, direction: .sent, bytes: [0x03, 0x0C, 0x00])
        store.append(plain)
        XCTAssertNil(store.sourceColumnWidth, "one capture: no Source column")
        plain.number = 2
        plain.origin = FrameOrigin(source: 2, name: "a-rather-long-board-name.btsnoop", number: 77, controller: 1, sourceTime: 3_600_000_010,
                                   match: FrameMatch(source: 1, sourceName: "phone.btsnoop", number: 1, controller: 0, handle: 0x40,
                                                     latency: 1_234, isSender: false))
        store.append(plain)
        var other = plain
        other.number = 3
        other.origin = FrameOrigin(source: 1, name: "phone.btsnoop", number: 5, controller: 0, sourceTime: 12)
        store.append(other)
        XCTAssertNil(store.frame(at: 0)?.origin)
        XCTAssertEqual(store.frame(at: 1)?.origin, plain.origin)
        XCTAssertEqual(store.frame(at: 2)?.origin, other.origin)
        XCTAssertEqual(store.sourceColumnWidth, "a-rather-long-board-name.btsnoop".count)
        let tree = PacketTree(Decoder().decode(try XCTUnwrap(store.frame(at: 1))), collapsed: [])
        let merge = tree.lines.filter { $0.kind == .origin }.map(\.text)
        XCTAssertEqual(merge.first, "Merge        a-rather-long-board-name.btsnoop #77, sent by phone.btsnoop #1 1.234 ms before")
        XCTAssertTrue(merge.contains("Latency: 1.234 ms"), "\(merge)")
    }
}
