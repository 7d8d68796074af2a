import XCTest
import BTCapture
import BTDecode
@testable import BTRender
import BTQuery

final class RenderTests: XCTestCase {
    func testTimeModes() {
        setenv("TZ", "UTC", 1)
        tzset()
        var abs = TimeFormatter(mode: .abs)
        // 2019-05-08 23:04:39.824 UTC
        XCTAssertEqual(abs.format(1_557_356_679_824_999), "May 08 23:04:39.824")
        var rel = TimeFormatter(mode: .rel)
        XCTAssertEqual(rel.format(10_000_000), "0.000000")
        XCTAssertEqual(rel.format(12_500_001), "2.500001")
        var delta = TimeFormatter(mode: .delta)
        _ = delta.format(5)
        XCTAssertEqual(delta.format(1_000_010), "1.000005")
        var epoch = TimeFormatter(mode: .epoch)
        XCTAssertEqual(epoch.format(1_557_356_679_824_123), "1557356679.824123")
    }

    func testHexDumpLine() {
        // The ACL packet from PacketLogger's hierarchical view.
        let bytes: [UInt8] = [0x44, 0x00, 0x0B, 0x00, 0x07, 0x00, 0x04, 0x00, 0x08, 0x18, 0x00, 0xFF, 0xFF, 0x03, 0x28]
        XCTAssertEqual(HexDump.lines(bytes[...]), ["00000000: 4400 0B00 0700 0400 0818 00FF FF03 28    D.............("])
    }

    func testTableRowColumns() {
        setenv("TZ", "UTC", 1)
        tzset()
        let frame = Frame(number: 7, timestamp: 1_557_356_679_825_000, kind: .event, direction: .received,
                          bytes: [0x3E, 0x0F, 0x02, 0x01, 0x00, 0x01, 0xAB, 0xC0, 0x6D, 0x97, 0x18, 0x24, 0x03, 0x02, 0x01, 0x1A, 0xBD])
        var table = TableRenderer(options: RenderOptions())
        XCTAssertEqual(table.row(Decoder().decode(frame)),
                       "     7  May 08 23:04:39.825  HCI Event               24:18:97:6D:C0:AB  LE - Advertising Report - 1 Report - Normal - Random - 24:18:97:6D:C0:AB -67 dBm")
        var narrow = RenderOptions()
        narrow.width = 40
        var cut = TableRenderer(options: narrow)
        XCTAssertEqual(cut.row(Decoder().decode(frame)).count, 40)
    }

    func testColourOnlyWhenEnabled() {
        let style = Style(enabled: true)
        XCTAssertEqual(style.paint("x", Style.red), "\u{1B}[31mx\u{1B}[0m")
        XCTAssertEqual(Style(enabled: false).paint("x", Style.red), "x")
    }
}

/// Timestamps come from files unchecked: any 64-bit value must print, count and write back.
final class ExtremeTimestampTests: XCTestCase {
    func testExtremeTimestampsRenderCountAndWrite() throws {
        let stamps: [Int64] = [.min, .min + 1, -1, 0, 999_999, .max - 1, .max]
        var statistics = BTQuery.CaptureStatistics()
        let decoder = Decoder()
        for mode in TimeFormatter.Mode.allCases {
            var options = RenderOptions()
            options.time = mode
            var table = TableRenderer(options: options)
            for stamp in stamps {
                let packet = decoder.decode(Frame(number: 1, timestamp: stamp, kind: .command, direction: .sent, bytes: [0x03, 0x0C, 0x00]))
                XCTAssertTrue(table.row(packet).contains("Reset"))
                statistics.add(packet)
            }
        }
        XCTAssertTrue(statistics.statusLine.hasSuffix(" s"))
        for format in CaptureFileFormat.allCases {
            let writer = try CaptureWriters.make(format, sink: MemorySink())
            for stamp in stamps {
                try writer.write(Frame(number: 1, timestamp: stamp, kind: .command, direction: .sent, bytes: [0x03, 0x0C, 0x00]))
            }
        }
        var abs = TimeFormatter(mode: .abs)
        setenv("TZ", "UTC", 1)
        tzset()
        XCTAssertEqual(abs.format(-1), "Dec 31 23:59:59.999")
    }
}

/// Corrupted captures go all the way through: read, decode, count and print (table and tree).
final class DamagedRenderingTests: XCTestCase {
    func testCorruptedFixturesRender() throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures")
        let devNull = open("/dev/null", O_WRONLY)
        defer { close(devNull) }
        let out = OutputWriter(fd: devNull)
        var generator = SystemRandomNumberGenerator()
        var options = RenderOptions()
        options.hex = true
        for name in ["wwdc-dual.btsnoop", "wwdc-dual.pklg", "wwdc-dual-monitor.btsnoop", "wwdc-dual.pcap"] {
            let bytes = [UInt8](try Data(contentsOf: fixtures.appendingPathComponent(name)))
            for _ in 0 ..< 150 {
                var damaged = bytes
                for _ in 0 ... Int.random(in: 0 ..< 8, using: &generator) {
                    damaged[Int.random(in: 0 ..< damaged.count, using: &generator)] = UInt8.random(in: 0 ... 255, using: &generator)
                }
                guard let reader = try? CaptureInput.open(bytes: damaged) else { continue }
                let decoder = Decoder()
                var table = TableRenderer(options: options), tree = TreeRenderer(options: options)
                var statistics = CaptureStatistics()
                while let frame = try? reader.next() {
                    let packet = decoder.decode(frame)
                    try table.render(packet, to: out)
                    try tree.render(packet, to: out)
                    statistics.add(packet)
                }
                try table.finish(statistics, to: out)
            }
        }
    }
}

/// The table's Type column holds every label a packet can have: rows never shift right.
final class TypeColumnTests: XCTestCase {
    func testEveryTypeLabelFitsTheColumn() throws {
        // Every record kind's own label, with either direction where a kind shows one.
        let kinds: [FrameKind] = [.command, .event, .aclData, .scoData, .isoData, .vendorDiagnostic, .lmp, .note, .userLogging, .syslog,
                                  .kernel, .kernelDebug, .error, .power, .config, .newController, .newIndex, .deleteIndex, .openIndex,
                                  .closeIndex, .indexInfo, .controlOpen, .controlClose, .controlCommand, .controlEvent, .linkControl,
                                  .unrecognized(0x99)] + AirLinkType.allCases.map { .air($0) }
        /// The label as the table writes it, in columns, checked against `typeLabel`.
        func columns(_ packet: Packet) -> Int {
            var written: [UInt8] = []
            let columns = packet.writeTypeLabel(to: &written)
            XCTAssertEqual(String(decoding: written, as: UTF8.self), packet.typeLabel)
            return columns
        }
        for kind in kinds {
            let packet = Decoder().decode(Frame(timestamp: 0, kind: kind, direction: .received, bytes: []))
            XCTAssertLessThanOrEqual(columns(packet), TableRenderer.typeWidth, "\(kind): \(packet.typeName)")
        }
        // Every label the fixtures' packets carry, decoded as show decodes them.
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures")
        var labels: [String: Int] = [:]
        let thirdParty = fixtures.appendingPathComponent("third-party/crackle")
        let files = try FileManager.default.contentsOfDirectory(atPath: fixtures.path).map { fixtures.appendingPathComponent($0) }
            + (try FileManager.default.contentsOfDirectory(atPath: thirdParty.path)).map { thirdParty.appendingPathComponent($0) }
        for file in files
        where [".btsnoop", ".pklg", ".pcap", ".pcapng"].contains(where: { file.path.hasSuffix($0) }) && file.lastPathComponent != "le-air-no-confirms.pcap" {
            let reader = try CaptureInput.open(bytes: [UInt8](try Data(contentsOf: file)))
            let decoder = Decoder()
            while let frame = try reader.next() {
                let packet = decoder.decode(frame)
                if labels[packet.typeLabel] == nil { labels[packet.typeLabel] = columns(packet) }
            }
        }
        for (label, width) in labels { XCTAssertLessThanOrEqual(width, TableRenderer.typeWidth, label) }
        // Each layer name that shows a direction, with the longer suffix (ASCII: a byte a column).
        for layer in ["Vendor", "RFCOMM", "L2CAP", "AVRCP", "AVCTP", "HFP", "SMP", "ATT"] {
            XCTAssertLessThanOrEqual((layer + " Receive").utf8.count, TableRenderer.typeWidth, layer)
        }
    }
}
