import XCTest
import Foundation
import BTCapture
import BTFixtures
@testable import BTDecode

/// The advertising data memo repeats what decoding made of the same bytes: every repeat must
/// read exactly as decoding those bytes afresh, at its own place in its own packet, under its
/// own view.
final class AdvertisingDataMemoTests: XCTestCase {
    /// (fields kept, display text): the tree, JSON, the table, a filter on one field.
    private let views: [(FieldMask, Bool)] = [
        (.all, true), (.all, false),
        (FieldMask.only([HCIFields.opcode], summaries: true), false),
        (FieldMask.only([AdvertisingFields.name, AdvertisingFields.company]), false),
        (FieldMask.only([AdvertisingFields.flags]), true),
    ]

    func testRepeatsReadAsFreshDecodingOnRealAndHostileData() throws {
        let payloads = try realPayloads() + hostilePayloads()
        XCTAssertGreaterThan(payloads.count, 20, "the fixtures' advertising data")
        for payload in payloads {
            for (mask, displays) in views {
                for ranged in [true, false] {
                    for layerWasEmpty in [true, false] {
                        var memo = AdvertisingDataMemo()
                        // The first decodes and remembers; the later ones, at other places in
                        // their packets, repeat.
                        for padding in [0, 7, 3, 40] {
                            let context = "\(Hex.bytes(payload[...])) view \(mask.keepsAll) \(displays) ranged \(ranged) empty \(layerWasEmpty) padding \(padding)"
                            var fresh = layer(padding: padding, payload, mask, displays, layerWasEmpty)
                            let freshDigest = AdvertisingData.decode(data(of: fresh.1, padding), into: &fresh.0, names: .standard, ranged: ranged)
                            var repeated = layer(padding: padding, payload, mask, displays, layerWasEmpty)
                            let repeatedDigest = AdvertisingData.decode(data(of: repeated.1, padding), into: &repeated.0, names: .standard,
                                                                        ranged: ranged, memo: &memo)
                            XCTAssertEqual(dump(repeated.0), dump(fresh.0), context)
                            XCTAssertEqual(repeatedDigest.name, freshDigest.name, context)
                        }
                        // And it was a repeat: the memo answers for these bytes under this view.
                        var probe = layer(padding: 0, payload, mask, displays, layerWasEmpty)
                        let key = AdvertisingDataMemo.Key(bytes: payload[...], ranged: ranged, layerWasEmpty: layerWasEmpty)
                        XCTAssertNotNil(memo.replay(key, into: &probe.0, shift: 0))
                    }
                }
            }
        }
    }

    func testAnotherViewStartsOverAndTheMemoStaysSmall() throws {
        var memo = AdvertisingDataMemo()
        let payload: [UInt8] = [0x02, 0x01, 0x06, 0x05, 0x09, 0x61, 0x62, 0x63, 0x64]
        var tree = layer(padding: 0, payload, .all, true, true)
        _ = AdvertisingData.decode(tree.1[...], into: &tree.0, names: .standard, memo: &memo)
        let key = AdvertisingDataMemo.Key(bytes: payload[...], ranged: true, layerWasEmpty: true)
        var table = layer(padding: 0, payload, FieldMask.only([HCIFields.opcode], summaries: true), false, true)
        XCTAssertNil(memo.replay(key, into: &table.0, shift: 0), "decoded for the tree, not repeated for the table")
        XCTAssertEqual(table.0.fields.count, 0)

        // Hundreds of advertisers: the memo starts over rather than grow.
        for index in 0 ..< 3 * AdvertisingDataMemo.capacity {
            let name = Array("device \(index)".utf8)
            let data = [UInt8(name.count + 1), 0x09] + name
            var next = layer(padding: 0, data, .all, true, true)
            _ = AdvertisingData.decode(next.1[...], into: &next.0, names: .standard, memo: &memo)
            XCTAssertLessThanOrEqual(memo.count, AdvertisingDataMemo.capacity)
        }
        // Data longer than a legacy or single extended PDU's is decoded, never kept.
        let long: [UInt8] = [0x02, 0x01, 0x06] + Array(repeating: 0x00, count: AdvertisingDataMemo.longestData)
        var longLayer = layer(padding: 0, long, .all, true, true)
        let before = memo.count
        _ = AdvertisingData.decode(longLayer.1[...], into: &longLayer.0, names: .standard, memo: &memo)
        XCTAssertEqual(memo.count, before)
    }

    // MARK: Helpers

    /// A layer over `padding` bytes then the payload, as a report's layer is over its event,
    /// with a field already added unless `empty`; and the bytes it lies over.
    private func layer(padding: Int, _ payload: [UInt8], _ mask: FieldMask, _ displays: Bool, _ empty: Bool) -> (Layer, [UInt8]) {
        let bytes = [UInt8](repeating: 0xEE, count: padding) + payload
        let frame = Frame(timestamp: 0, kind: .event, direction: .received, bytes: bytes)
        var packet = Packet(frame: frame, buildsDisplayText: displays, keptFields: mask)
        var layer = packet.makeLayer(.hciEvent, over: ByteCursor(frame.bytes))
        if !empty { layer.add(AdvertisingFields.rssi, .signed(-60), "-60 dBm", at: 0 ..< 1) }
        return (layer, bytes)
    }

    private func data(of bytes: [UInt8], _ padding: Int) -> ArraySlice<UInt8> { bytes[padding...] }

    private func dump(_ layer: Layer) -> String {
        var out = ""
        for field in layer.fieldCopies {
            out += "\(field.definition.name)=\(field.value.text) \(field.display ?? "") \(field.range.map { "\($0)" } ?? "")\n"
        }
        for issue in layer.issues { out += "! \(issue.severity) \(issue.message)\n" }
        return out
    }

    /// Every advertising data the fixtures carry, once each (HCI reports, and the air's PDUs).
    private func realPayloads() throws -> [[UInt8]] {
        var seen = Set<[UInt8]>()
        let names = try FileManager.default.contentsOfDirectory(atPath: ModelTests.fixtures.path).sorted()
            .filter { $0.hasSuffix(".btsnoop") || $0.hasSuffix(".pklg") || $0.hasSuffix(".pcap") }
        for name in names {
            let reader = try CaptureInput.open(bytes: [UInt8](try Data(contentsOf: ModelTests.fixtures.appendingPathComponent(name))))
            let decoder = Decoder(options: DecodeOptions())
            while let frame = try reader.next() {
                for layer in decoder.decode(frame).layers {
                    for field in layer.fieldCopies where field.definition == AdvertisingFields.data {
                        if case .bytes(let bytes) = field.value { seen.insert(Array(bytes)) }
                    }
                }
            }
        }
        return seen.sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// Data that makes issues: a structure running past the end, bytes after a zero length,
    /// a short Flags, unexpected bytes after TX Power, an unknown type, Apple's short messages.
    private func hostilePayloads() -> [[UInt8]] {
        [[0x05, 0x09, 0x41], [0x02, 0x01, 0x06, 0x00, 0x00, 0x01], [0x01, 0x01], [0x03, 0x0A, 0xC5, 0x01],
         [0x03, 0xEE, 0x01, 0x02], [0x04, 0xFF, 0x4C, 0x00, 0x10], [0x06, 0xFF, 0x4C, 0x00, 0x02, 0x15, 0x01],
         [0x03, 0x03, 0x0D], [], [0x00]]
    }
}
