import XCTest
import BTCapture
import BTDecode
@testable import BTRender
import BTQuery
import BTFixtures

/// A filter that can tell from a frame's kind that it will drop the packet has the decoder
/// write no summary for it (`ProtocolPlacement`, `FilterForesight`). The rule it rests on must
/// hold on every capture, and a filtered view must print what it printed without the shortcut.
final class ForesightTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func captures() throws -> [String] {
        let folder = fixtures.path
        let thirdParty = (try? FileManager.default.contentsOfDirectory(atPath: folder + "/third-party/crackle")) ?? []
        return try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
            .filter { name in [".btsnoop", ".pklg", ".pcap", ".pcapng", ".log"].contains { name.hasSuffix($0) } }
            + thirdParty.sorted().filter { $0.hasSuffix(".pcap") }.map { "third-party/crackle/" + $0 }
    }

    /// No `hci.*` field in data, no field of a protocol above L2CAP in an HCI command or event,
    /// in any packet of any capture in Fixtures (real ones from Android, iOS, the kernel's
    /// harness and crackle's air captures among them).
    func testThePlacementRuleHoldsOnEveryCapture() throws {
        var checked = 0, aboveL2CAP = 0, hci = 0
        for name in try Self.captures() {
            guard let reader = try? CaptureInput.open(Self.fixtures.appendingPathComponent(name).path) else { continue }
            let decoder = Decoder()
            while let frame = try reader.next() {
                let packet = decoder.decode(frame)
                if let violation = ProtocolPlacement.violation(in: packet) {
                    XCTFail("\(name) packet \(frame.number): \(violation)")
                }
                checked += 1
                for field in packet.layers.flatMap(\.fields) {
                    switch ProtocolPlacement.family(field.definition.protocolName) {
                    case .aboveL2CAP?: aboveL2CAP += 1
                    case .hciCommandsAndEvents?: hci += 1
                    case nil: break
                    }
                }
            }
        }
        XCTAssertGreaterThan(checked, 20_000)
        XCTAssertGreaterThan(aboveL2CAP, 10_000, "the captures hold protocols above L2CAP")
        XCTAssertGreaterThan(hci, 10_000, "and HCI commands and events")
    }

    func testForesightFollowsTheExpression() throws {
        let att = try PacketFilter("att.opcode == 0x1b")
        XCTAssertFalse(att.mayMatch(.event))
        XCTAssertFalse(att.mayMatch(.command))
        XCTAssertTrue(att.mayMatch(.aclData))
        XCTAssertTrue(att.mayMatch(.air(.leLL)))
        let hci = try PacketFilter("hci.opcode == 0x0c03")
        XCTAssertFalse(hci.mayMatch(.aclData))
        XCTAssertTrue(hci.mayMatch(.event))
        // A negation holds where its field cannot be; either side of an 'or' may match.
        XCTAssertTrue(try PacketFilter("not att").mayMatch(.event))
        XCTAssertFalse(try PacketFilter("not not att").mayMatch(.event))
        XCTAssertTrue(try PacketFilter("att or hci.event == 0x3e").mayMatch(.event))
        XCTAssertFalse(try PacketFilter("att or sdp").mayMatch(.event))
        XCTAssertTrue(try PacketFilter("smp").mayMatch(.event), "an HCI event names the SMP pairing method")
        XCTAssertFalse(try PacketFilter("att and hci.event == 0x3e").mayMatch(.event))
        XCTAssertFalse(try PacketFilter("att.handle != 3").mayMatch(.event), "!= needs the field")
        // Packet terms and other protocols' fields are not known before decoding.
        XCTAssertTrue(try PacketFilter("handle == 0x40").mayMatch(.event))
        XCTAssertTrue(try PacketFilter("adv.name contains \"x\"").mayMatch(.aclData))
        XCTAssertTrue(try PacketFilter("gatt.value contains \"x\"").mayMatch(.event), "GATT values are in advertising data too")
    }

    /// What a filtered table and tree print, and the Session behind them, are the same with the
    /// shortcut (a packet the filter will drop decoded with only the filter's fields, no summary,
    /// no display text) as when every packet is decoded whole and then filtered; and the
    /// shortcut was taken.
    func testAFilteredTablePrintsWhatItPrintedWithoutForesight() throws {
        setenv("TZ", "UTC", 1)
        tzset()
        let expressions = ["att.opcode == 0x1b", "hci.opcode == 0x0c03", "not att", "att or hci.event == 0x3e",
                           "!(hci.opcode == 0x0401) and l2cap", "smp.method || sdp", "hci.status != 0", "rfcomm or avdtp.signal"]
        var foreseen = 0
        for name in try Self.captures() {
            let path = Self.fixtures.appendingPathComponent(name).path
            guard let probe = try? CaptureInput.open(path) else { continue }
            var frames: [Frame] = []
            while let frame = try probe.next() { frames.append(frame) }
            for expression in expressions {
                let filter = try PacketFilter(expression)
                for frame in frames where !filter.mayMatch(frame.kind) { foreseen += 1 }
                // The same chain, once with the filter's foresight and once with a stage that
                // filters alike but foresees nothing (every packet decoded with summaries).
                // The table (a mask, summaries), then the tree (every field, display text).
                func run(_ stage: any PacketStage, tree: Bool) throws -> ([String], [String]) {
                    let decoder = Decoder(options: DecodeOptions(buildsDisplayText: tree))
                    decoder.session.keepFields(tree ? .all : TableRenderer.fieldsRead.union(filter.fieldsRead))
                    var pipeline = PacketPipeline(decoder: decoder, stages: [stage]) { _ in }
                    pipeline.oneThread = true
                    var sink = RowSink(tree: tree)
                    try pipeline.run(ArrayFrameReader(frames: frames, formatDescription: name, nativeFormat: .btsnoopMonitor), into: &sink)
                    return (sink.rows, pipeline.finish().map(\.message))
                }
                // The tree (slower) for the expressions of the two families.
                for tree in expression.hasPrefix("att.opcode") || expression.hasPrefix("hci.opcode") ? [false, true] : [false] {
                    let (rows, open) = try run(FilterStage(filter), tree: tree)
                    let (expected, expectedOpen) = try run(BlindFilterStage(filter: filter), tree: tree)
                    XCTAssertEqual(open, expectedOpen, "\(name), -f '\(expression)': what stayed open")
                    if rows != expected {
                        let at = zip(rows, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(rows.count, expected.count)
                        XCTFail("\(name), -f '\(expression)': \(rows.count) rows, \(expected.count) expected; first difference:\n\(rows[safe: at] ?? "none")\n\(expected[safe: at] ?? "none")")
                    }
                }
            }
        }
        XCTAssertGreaterThan(foreseen, 50_000, "the filters foresaw drops")
    }

    /// Filters as FilterStage does, foreseeing nothing.
    struct BlindFilterStage: PacketStage {
        let filter: PacketFilter
        var fieldsRead: FieldMask { filter.fieldsRead }
        mutating func process(_ packet: inout Packet, context: StageContext) -> StageVerdict {
            filter.matches(packet, context: context) ? .keep : .drop
        }
    }

    /// Each kept packet as the table's row or the tree's text.
    struct RowSink: PacketSink {
        let tree: Bool
        var table = TableRenderer(options: RenderOptions())
        var treeRenderer = TreeRenderer(options: RenderOptions())
        let scratch = OutputWriter.capturing()
        var rows: [String] = []

        init(tree: Bool) { self.tree = tree }

        mutating func consume(_ packet: Packet) throws {
            guard tree else { return rows.append(table.row(packet)) }
            try treeRenderer.render(packet, to: scratch)
            rows.append(scratch.drain { String(decoding: $0, as: UTF8.self) })
        }
    }
}

private extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
