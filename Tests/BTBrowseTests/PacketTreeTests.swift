import XCTest
import BTCapture
import BTDecode
import BTQuery
import BTRender
import BTFixtures
import BTBrowse

/// The tree pane: the lines of `show -V`, a line at a time, each knowing its bytes.
final class PacketTreeTests: XCTestCase {
    /// Every packet of every fixture (the first 1,500 of the largest): the tree's lines, unfolded, are `show -V`'s lines for the
    /// packet (its layers, fields and issues, in its order) without their indentation and arrow.
    func testTheTreeIsTheLinesShowPrints() throws {
        var packets = 0
        for path in try PacketIndexTests.captures() {
            let index = try PacketIndexTests.firstPass(path, interval: 256)
            var renderer = TreeRenderer(options: RenderOptions())
            let out = OutputWriter(fd: -1, capacity: 1 << 26)
            for position in 0 ..< min(index.count, 1500) {
                let packet = try XCTUnwrap(index.packet(at: position))
                try renderer.render(packet, to: out)
                let printed = out.drain { String(decoding: $0, as: UTF8.self) }.split(separator: "\n", omittingEmptySubsequences: false)
                    .dropFirst() // the table row
                    .map { $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: " ▼ ", with: " ") }
                    .filter { !$0.isEmpty }
                let tree = PacketTree(packet, collapsed: [])
                XCTAssertEqual(tree.lines.filter { $0.kind != .comment }.map { $0.text.trimmingCharacters(in: .whitespaces) }, printed.filter { !$0.hasPrefix("Comment: ") },
                               "\((path as NSString).lastPathComponent) packet \(position + 1)")
                // Every range a line names lies within the bytes it names.
                for line in tree.lines {
                    if let range = line.bytes {
                        XCTAssertLessThanOrEqual(range.upperBound, tree.bytes(of: line.source).count,
                                                 "\((path as NSString).lastPathComponent) packet \(position + 1): \(line.text)")
                        XCTAssertGreaterThanOrEqual(range.lowerBound, 0)
                    }
                }
                packets += 1
            }
        }
        XCTAssertGreaterThan(packets, 8_000)
    }

    /// A field's bytes are the bytes the protocol puts it in: the ATT Read Request of
    /// le-heart-rate.btsnoop (packet 138) reads handle 0x0003, little-endian after the opcode
    /// 0x0A, behind the 4-byte ACL and 4-byte L2CAP headers.
    func testAFieldHighlightsItsBytes() throws {
        let index = try PacketIndexTests.firstPass(PacketIndexTests.root.appendingPathComponent("Fixtures/le-heart-rate.btsnoop").path, interval: 16)
        let packet = try XCTUnwrap(index.packet(at: 137))
        XCTAssertEqual(packet.top?.name, "ATT")
        let tree = PacketTree(packet, collapsed: [])
        let handle = try XCTUnwrap(tree.lines.first { $0.layerName == "ATT" && $0.text.hasPrefix("Handle: ") })
        let range = try XCTUnwrap(handle.bytes)
        XCTAssertEqual(handle.source, .frame)
        XCTAssertEqual(Array(tree.frameBytes[range]), [0x03, 0x00])
        XCTAssertEqual(range, 9 ..< 11)
        let opcode = try XCTUnwrap(tree.lines.first { $0.layerName == "ATT" && $0.text.hasPrefix("Opcode: ") })
        XCTAssertEqual(opcode.bytes.map { Array(tree.frameBytes[$0]) }, [0x0A])
        // The ACL header's handle: 12 bits of the first two bytes.
        let acl = try XCTUnwrap(tree.lines.first { $0.layerName == "ACL" && $0.text.hasPrefix("Handle: ") })
        XCTAssertEqual(acl.bytes, 0 ..< 2)
        // The layer's header covers the layer: ATT is the last 3 bytes of the frame.
        let layer = try XCTUnwrap(tree.lines.first { $0.layerName == "ATT" && $0.kind == .layer(expanded: true) })
        XCTAssertEqual(layer.bytes, 8 ..< 11)
    }

    /// A folded layer stays folded on the next packet of its kind; the selection stays on the
    /// line of the same layer and label.
    func testFoldingIsRememberedAcrossPackets() throws {
        let index = try PacketIndexTests.firstPass(PacketIndexTests.root.appendingPathComponent("Fixtures/le-heart-rate.btsnoop").path, interval: 16)
        let request = try XCTUnwrap(index.packet(at: 137)), response = try XCTUnwrap(index.packet(at: 138))
        var state = TreeState()
        state.height = 5
        state.show(request, at: 137)
        XCTAssertEqual(state.selectedLine?.layerName, "ATT")
        let l2cap = try XCTUnwrap(state.tree.lines.firstIndex { $0.layerName == "L2CAP" })
        state.select(line: l2cap)
        state.toggle(request)
        XCTAssertEqual(state.selectedLine?.kind, .layer(expanded: false))
        XCTAssertFalse(state.tree.lines.contains { $0.layerName == "L2CAP" && $0.kind == .field })
        XCTAssertTrue(state.tree.lines.contains { $0.layerName == "ATT" && $0.kind == .field })
        state.show(response, at: 138)
        XCTAssertFalse(state.tree.lines.contains { $0.layerName == "L2CAP" && $0.kind == .field }, "still folded")
        XCTAssertEqual(state.selectedLine?.layerName, "L2CAP")
        // A field of ATT selected, then the next packet: the same label is selected there.
        state.setAll(expanded: true, response)
        let value = try XCTUnwrap(state.tree.lines.firstIndex { $0.layerName == "ACL" && $0.text.hasPrefix("Handle:") })
        state.select(line: value)
        state.show(request, at: 137)
        XCTAssertEqual(state.selectedLine?.layerName, "ACL")
        XCTAssertTrue(state.selectedLine?.text.hasPrefix("Handle:") ?? false)
        XCTAssertGreaterThanOrEqual(state.selected, state.top)
        XCTAssertLessThan(state.selected, state.top + 5, "the selection is on screen")
        state.setAll(expanded: false, request)
        XCTAssertEqual(state.tree.lines.filter { $0.kind == .field }.count, 0)
        state.move(by: .max)
        state.move(by: .min)
        XCTAssertEqual(state.selected, 0)
    }
}
