import XCTest
import BTCapture
import BTDecode
import BTFixtures

/// Decoding only the fields a view reads (`DecodeOptions.keptFields`): a packet decoded with a
/// mask has the same layers and issues as decoded whole, the same summaries if the mask keeps
/// them and none if not, and its fields are the
/// whole packet's, in order, with at least those the mask names (and each layer's first); and
/// the Session it leaves is the same, so a later packet decoded whole reads exactly as
/// without the mask.
final class FieldMaskTests: XCTestCase {
    func testAMaskKeepsItsFieldsAndEveryLayersFirst() {
        let opcode = FieldRegistry.lookup("att.opcode")!, handle = FieldRegistry.lookup("att.handle")!
        let mask = FieldMask.only([opcode])
        XCTAssertTrue(mask.keeps(opcode))
        XCTAssertFalse(mask.keeps(handle))
        XCTAssertTrue(FieldMask.all.keeps(handle))
        XCTAssertTrue(mask.union(.only([handle])).keeps(handle))
        XCTAssertEqual(mask.union(.all), .all)
        XCTAssertEqual(FieldMask.only([opcode]), mask, "interned: the same fields, the same mask")
        XCTAssertFalse(FieldMask.only([]).keeps(opcode))
        // Summaries: every field's mask has them, a view's only if it says so, a union if either has.
        XCTAssertTrue(FieldMask.all.keepsSummaries)
        XCTAssertFalse(mask.keepsSummaries)
        XCTAssertTrue(FieldMask.only([opcode], summaries: true).keepsSummaries)
        XCTAssertNotEqual(FieldMask.only([opcode], summaries: true), mask)
        XCTAssertEqual(mask.withSummaries, FieldMask.only([opcode], summaries: true))
        XCTAssertTrue(mask.union(.only([handle], summaries: true)).keepsSummaries)
        XCTAssertFalse(mask.union(.only([handle])).keepsSummaries)
    }

    func testMaskedPacketsAndTheSessionTheyLeaveAreTheUnmaskedOnes() throws {
        let folder = ModelTests.fixtures
        let thirdParty = (try? FileManager.default.contentsOfDirectory(atPath: folder.path + "/third-party/crackle")) ?? []
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
            .filter { name in [".btsnoop", ".pklg", ".pcap", ".pcapng"].contains { name.hasSuffix($0) } }
            + thirdParty.sorted().filter { $0.hasSuffix(".pcap") }.map { "third-party/crackle/" + $0 }
        XCTAssertGreaterThan(names.count, 30)
        // The table's mask, no field nor summary at all, and a filter's: each by turns with whole packets.
        let masks = [FieldMask.only([LinkLayerFields.channel, LinkLayerFields.rssi], summaries: true), .only([]),
                     .only([FieldRegistry.lookup("att.opcode")!, FieldRegistry.lookup("hci.status")!])]
        var masked = 0, dropped = 0, unsummarised = 0
        for name in names {
            let reader = try CaptureInput.open(folder.appendingPathComponent(name).path)
            let whole = Decoder(), partly = Decoder()
            var index = 0
            while let frame = try reader.next() {
                defer { index += 1 }
                let mask = index % 2 == 0 ? masks[(index / 2) % masks.count] : FieldMask.all
                partly.session.keepFields(mask)
                let expected = whole.decode(frame), got = partly.decode(frame)
                if mask.keepsAll {
                    XCTAssertEqual(PacketDump.text(of: got), PacketDump.text(of: expected), "\(name) packet \(frame.number): decoded whole after masked packets")
                    continue
                }
                masked += 1
                XCTAssertEqual(got.layers.map(\.name), expected.layers.map(\.name), "\(name) packet \(frame.number)")
                if mask.keepsSummaries {
                    XCTAssertEqual(got.summary, expected.summary, "\(name) packet \(frame.number)")
                } else {
                    XCTAssertEqual(got.layers.map(\.summary.description).joined(), "", "\(name) packet \(frame.number): no summary written")
                    unsummarised += 1
                }
                XCTAssertEqual(got.issues.map(\.message), expected.issues.map(\.message), "\(name) packet \(frame.number)")
                XCTAssertEqual(got.handle, expected.handle)
                XCTAssertEqual(got.peer, expected.peer)
                for (mine, theirs) in zip(got.layers, expected.layers) {
                    // What a layer keeps is a part of the whole layer's fields, in order, with
                    // every field the mask names (a decoder may keep more: a vendor's layer
                    // whose fields it reads back keeps them all).
                    var next = 0
                    for field in mine.fieldCopies {
                        while next < theirs.fieldCopies.count, !(theirs.fieldCopies[next].definition == field.definition && theirs.fieldCopies[next].value == field.value) { next += 1 }
                        XCTAssertLessThan(next, theirs.fields.count, "\(name) packet \(frame.number) \(theirs.name): \(field.definition.name) is not the whole layer's")
                        next += 1
                    }
                    let named = theirs.fields.enumerated().filter { $0.offset == 0 || mask.keeps($0.element.definition) }.map(\.element.definition.name)
                    let keptNames = mine.fields.map(\.definition.name)
                    for field in Set(named) {
                        XCTAssertEqual(keptNames.filter { $0 == field }.count, named.filter { $0 == field }.count, "\(name) packet \(frame.number) \(theirs.name): \(field)")
                    }
                    dropped += theirs.fields.count - mine.fields.count
                }
            }
        }
        XCTAssertGreaterThan(masked, 10_000)
        XCTAssertGreaterThan(dropped, 50_000, "the masks left fields out")
        XCTAssertGreaterThan(unsummarised, 5_000)
    }
}
