import XCTest
import BTCapture
@testable import BTDecode
import BTFixtures

/// The packet's layer storage (`LayerStack`): layers opened in place, made as values and
/// appended (into the hole their spare left), made and dropped, taken off the top, the packet
/// reset for the next frame and copied by a keeper, in random orders, always reading as a
/// plain list of what was added would.
final class LayerStackTests: XCTestCase {
    /// What one layer should hold: its kind, the one field's value, and its issues' messages.
    private struct Expected: Equatable {
        var kind: LayerKind
        var mark: UInt16
        var issues: [String]
    }

    private static let kinds: [LayerKind] = [.acl, .l2cap, .att, .hciEvent, .sco]

    private func contents(_ packet: Packet, file: StaticString = #filePath, line: UInt = #line) -> [Expected] {
        packet.layers.indices.map { index in
            let layer = packet.layers[index]
            for issue in layer.issues { XCTAssertEqual(issue.layer, index, "an issue knows its layer", file: file, line: line) }
            var mark: UInt16 = 0xFFFF
            if case .unsigned(let value, _)? = layer.value(DataFields.aclHandle) { mark = UInt16(truncatingIfNeeded: value) }
            return Expected(kind: layer.kind, mark: mark, issues: layer.issues.map(\.message))
        }
    }

    func testRandomOperationsReadAsAPlainList() {
        var generator = SplitMix64(state: 0x1A7E_5AC4) // seeded: a failing order is the same on every run
        for round in 0 ..< 500 {
            var packet = Packet(frame: Frame(timestamp: 0, kind: .aclData, direction: .sent, bytes: [1, 2, 3, 4]))
            var model: [Expected] = []
            var kept: [(Packet, [Expected])] = []
            var mark: UInt16 = 0
            for step in 0 ..< 60 {
                mark &+= 1
                let kind = Self.kinds[Int.random(in: 0 ..< Self.kinds.count, using: &generator)]
                let withIssue = Bool.random(using: &generator)
                switch Int.random(in: 0 ..< 7, using: &generator) {
                case 0, 1: // opened in place
                    let index = packet.openLayer(kind, range: 0 ..< 4)
                    XCTAssertEqual(index, model.count)
                    packet.layers.update(index) { layer in
                        layer.add(DataFields.aclHandle, .u16(mark))
                        if withIssue { layer.addIssue(.warning, "issue \(mark)") }
                    }
                    model.append(Expected(kind: kind, mark: mark, issues: withIssue ? ["issue \(mark)"] : []))
                case 2: // made as a value, then appended
                    var layer = packet.makeLayer(kind, range: 0 ..< 4)
                    layer.add(DataFields.aclHandle, .u16(mark))
                    if withIssue { layer.addIssue(.error, "issue \(mark)") }
                    packet.append(layer)
                    model.append(Expected(kind: kind, mark: mark, issues: withIssue ? ["issue \(mark)"] : []))
                case 3: // made and dropped (a decoder that threw before appending it)
                    var layer = packet.makeLayer(kind, range: 0 ..< 4)
                    layer.add(DataFields.aclHandle, .u16(mark))
                    _ = consume layer
                case 4: // the top taken off, and put back or not (L2CAP signaling reopens its layer)
                    guard !packet.layers.isEmpty else { continue }
                    var top = packet.layers.removeLast()
                    var expected = model.removeLast()
                    if Bool.random(using: &generator) {
                        top.addIssue(.note, "reopened \(mark)")
                        expected.issues.append("reopened \(mark)")
                        packet.append(top)
                        model.append(expected)
                    }
                case 5: // the next frame
                    packet.reset(for: Frame(timestamp: 0, kind: .event, direction: .received, bytes: [0x0E, 0]))
                    model = []
                default: // a keeper's copy
                    kept.append((packet, model))
                }
                XCTAssertEqual(contents(packet), model, "round \(round), step \(step)")
                // Issues on layers opened in place reach the packet when decoding is done.
                packet.noteIssuesOfOpenedLayers()
                if !model.allSatisfy(\.issues.isEmpty) { XCTAssertNotNil(packet.worstSeverity, "round \(round), step \(step)") }
            }
            for (copy, expected) in kept { XCTAssertEqual(contents(copy), expected, "a kept copy is not written over (round \(round))") }
        }
    }

    /// A layer opened where the previous packet had one keeps nothing of it but its storage.
    func testAnOpenedLayerKeepsNothingOfTheSpare() {
        var packet = Packet(frame: Frame(timestamp: 0, kind: .aclData, direction: .sent, bytes: [1, 2, 3, 4]))
        var index = packet.openLayer(.att, range: 0 ..< 4, showsDirection: true)
        packet.layers.update(index) { layer in
            layer.add(DataFields.aclHandle, .u16(7))
            layer.summary.set("old summary")
            layer.addIssue(.error, "old issue")
        }
        packet.noteIssuesOfOpenedLayers()
        XCTAssertEqual(packet.worstSeverity, .error)
        packet.reset(for: Frame(timestamp: 0, kind: .aclData, direction: .received, bytes: [5, 6]))
        XCTAssertNil(packet.worstSeverity)
        XCTAssertTrue(packet.layers.isEmpty)
        index = packet.openLayer(.l2cap, range: 0 ..< 2)
        XCTAssertEqual(index, 0)
        XCTAssertEqual(packet.layers[0].kind, .l2cap)
        XCTAssertTrue(packet.layers[0].fields.isEmpty)
        XCTAssertTrue(packet.layers[0].issues.isEmpty)
        XCTAssertTrue(packet.layers[0].summary.isEmpty)
        XCTAssertFalse(packet.layers[0].showsDirection)
        XCTAssertEqual(packet.layers[0].range, 0 ..< 2)
    }
}

