import XCTest
import BTCapture
import BTDecode

final class GATTNameSourceTests: XCTestCase {
    func temporary(_ name: String, _ text: String) throws -> String {
        let folder = NSTemporaryDirectory() + "btlog-names-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/" + name
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return folder
    }

    func testUUIDDefinitionsFile() throws {
        let folder = try temporary("uuids.json", """
        {"uuid16bitServiceDefinitions": {"FFF0": {"name": "Acme Control"}},
         "uuid128bitCharacteristicDefinitions": {"0000ABCD4B1A47348AD8F7C27720C394": {"name": "Acme Level", "format": "TEXT"}}}
        """)
        var names = UUIDNames.standard
        XCTAssertEqual(try GATTNameSources.loadUUIDNames(path: folder + "/uuids.json", into: &names), 2)
        XCTAssertEqual(names.name(BTUUID(UInt16(0xFFF0))), "Acme Control")
        XCTAssertEqual(names.name(BTUUID("0000ABCD-4B1A-4734-8AD8-F7C27720C394")!), "Acme Level")
        // Labels (the tree's and JSON's) from this run's names first, then the standard ones.
        XCTAssertEqual(names.labelled(BTUUID(UInt16(0xFFF0))), "FFF0 (Acme Control)")
        XCTAssertEqual(names.labelled(BTUUID(UInt16(0x180D))), "180D (Heart Rate)")
        XCTAssertEqual(UUIDNames.standard.labelled(BTUUID(UInt16(0x2800))), "2800 (Primary Service)")
        XCTAssertEqual(UUIDNames.standard.labelled(BTUUID(UInt16(0xFFF0))), "FFF0")
        // The names belong to this run's value: the standard table and other decoders are untouched.
        XCTAssertNil(UUIDNames.standard.name(BTUUID(UInt16(0xFFF0))))
        let bad = try temporary("bad.json", "{\"uuid16bitServiceDefinitions\": {\"XYZ\": {\"name\": \"x\"}}}")
        XCTAssertThrowsError(try GATTNameSources.loadUUIDNames(path: bad + "/bad.json", into: &names))
        XCTAssertThrowsError(try GATTNameSources.loadUUIDNames(path: bad + "/missing.json", into: &names))

        // Two decoders at once, one with the names and one without: each names what it knows.
        let named = Decoder(options: DecodeOptions(uuidNames: names)), plain = Decoder()
        let frames = [
            Frame(number: 1, timestamp: 0, kind: .event, direction: .received, bytes:
                [0x3E, 0x13, 0x01, 0x00, 0x40, 0x00, 0x00, 0x01, 0x56, 0x34, 0x12, 0xEE, 0xFF, 0xC0, 0x18, 0x00, 0x00, 0x00, 0x48, 0x00, 0x00]),
            // Read By Group Type Request for primary services (0x2800) ...
            Frame(number: 2, timestamp: 0, kind: .aclData, direction: .sent, bytes:
                [0x40, 0x00, 0x0B, 0x00, 0x07, 0x00, 0x04, 0x00, 0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28]),
            // ... answered with one service FFF0 at 0x0001-0x0005.
            Frame(number: 3, timestamp: 0, kind: .aclData, direction: .received, bytes:
                [0x40, 0x20, 0x0C, 0x00, 0x08, 0x00, 0x04, 0x00, 0x11, 0x06, 0x01, 0x00, 0x05, 0x00, 0xF0, 0xFF]),
        ]
        var summaries: [String] = [], plainSummaries: [String] = []
        for frame in frames {
            summaries.append(named.decode(frame).summary)
            plainSummaries.append(plain.decode(frame).summary)
        }
        XCTAssertEqual(summaries.last, "Read By Group Type Response - Acme Control (0x0001-0x0005)")
        XCTAssertEqual(plainSummaries.last, "Read By Group Type Response - FFF0 (0x0001-0x0005)")
    }

    func testBlueZCacheNamesHandlesWithoutDiscovery() throws {
        let folder = try temporary("F0:99:B6:12:34:56/cache/C0:FF:EE:12:34:56", """
        [General]
        Name=HRM-01

        [Attributes]
        0x0001=2800:0x0005:180d
        0x0002=2803:0x0003:0x10:2a37
        0x0004=2902
        0x0006=2800:0x0008:6e400001-b5a3-f393-e0a9-e50e24dcca9e
        0x0007=2803:0x0008:0x04:6e400002-b5a3-f393-e0a9-e50e24dcca9e
        garbage line
        """)
        let databases = try GATTNameSources.loadBlueZCache(folder: folder)
        XCTAssertEqual(databases.keys.map(\.description), ["C0:FF:EE:12:34:56"])
        let database = try XCTUnwrap(databases[BDAddr("C0:FF:EE:12:34:56")])
        XCTAssertEqual(database.name(of: 0x0003, names: .standard), "Heart Rate Measurement")
        XCTAssertEqual(database.name(of: 0x0004, names: .standard), "Heart Rate Measurement - Configuration")
        XCTAssertEqual(database.name(of: 0x0008, names: .standard), "UART RX Characteristic")

        let decoder = Decoder(options: DecodeOptions(gattCache: databases))
        _ = decoder.decode(Frame(number: 1, timestamp: 0, kind: .event, direction: .received, bytes:
            [0x3E, 0x13, 0x01, 0x00, 0x40, 0x00, 0x00, 0x01, 0x56, 0x34, 0x12, 0xEE, 0xFF, 0xC0, 0x18, 0x00, 0x00, 0x00, 0x48, 0x00, 0x00]))
        let notification = decoder.decode(Frame(number: 2, timestamp: 0, kind: .aclData, direction: .received, bytes:
            [0x40, 0x20, 0x09, 0x00, 0x05, 0x00, 0x04, 0x00, 0x1B, 0x03, 0x00, 0x00, 0x48]))
        XCTAssertEqual(notification.summary, "Handle Value Notification - Handle: 0x0003 - Heart Rate Measurement - 72 bpm")
        XCTAssertThrowsError(try GATTNameSources.loadBlueZCache(folder: folder + "/nowhere"))
    }
}
