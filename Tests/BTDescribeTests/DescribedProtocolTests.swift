import XCTest
import BTCapture
import BTDecode
@testable import BTDescribe
@testable import BTFuzz
import BTQuery

/// Protocols described in files: the format's errors, every layout element on bytes worked out
/// by hand from the layouts' own definitions, the checksums' published check values, and the
/// RevCar capture (third-party) decoded with the description written from its author's notes.
final class DescribedProtocolTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func parse(_ text: String) throws -> DescribedProtocol { try ProtocolDescriptionReader.parse(text, source: "test.yaml") }

    func field(_ packet: Packet, _ name: String) -> FieldValue? {
        packet.layers.last?.fieldCopies.first { $0.definition.name == name }?.value
    }

    func fields(_ packet: Packet, _ name: String) -> [FieldValue] {
        packet.layers.last?.fieldCopies.filter { $0.definition.name == name }.map(\.value) ?? []
    }

    // MARK: The real capture

    /// The RevCar app's writes to FFE9 decoded with Examples/protocols/revcar.yaml: each drive
    /// command's speed, direction and turn are what revcar-cli's source builds them from
    /// (throttle = intensity | 0x20 for reverse; steering = 0x40 right or 0x60 left | intensity),
    /// worked out here from att.value's bytes, independently of the description.
    func testRevCarCaptureDecodesWithItsDescription() throws {
        var library = ProtocolLibrary()
        try library.load(file: Self.root.appendingPathComponent("Examples/protocols/revcar.yaml").path)
        var options = DecodeOptions()
        options.describe(library.protocols)
        let decoder = Decoder(options: options)
        let reader = try CaptureInput.open(Self.root.appendingPathComponent("Fixtures/third-party/revcar/btsnoop_hci.log").path)
        var drives = 0, fires = 0, events = 0
        while let frame = try reader.next() {
            let packet = decoder.decode(frame)
            guard let att = packet.layers.first(where: { $0.kind == .att }), let value = att.value(ATTFields.value),
                  case .bytes(let bytes) = value else { continue }
            let handle = att.integer(ATTFields.handle)
            if handle == 0x0017, bytes.first == 0x78, bytes.count == 3 {
                drives += 1
                let throttle = bytes[bytes.startIndex + 1], steering = bytes[bytes.startIndex + 2]
                XCTAssertEqual(packet.top?.name, "RevCar")
                XCTAssertEqual(field(packet, "revcar.drive.speed"), .unsigned(UInt64(throttle & 0x1F), width: 0))
                XCTAssertEqual(field(packet, "revcar.drive.direction"), .unsigned(UInt64(throttle >> 5 & 1), width: 0))
                XCTAssertEqual(field(packet, "revcar.drive.turn"), .unsigned(UInt64(steering >> 5 & 3), width: 0))
                XCTAssertTrue(packet.summary.hasPrefix("RevCar Drive - speed \(throttle & 0x1F) - direction \(throttle & 0x20 == 0 ? "forward" : "reverse")"), packet.summary)
                XCTAssertTrue(packet.top?.issues.isEmpty ?? false)
            } else if handle == 0x0017, bytes.starts(with: [0x95, 0x00, 0x04, 0x01]) {
                fires += 1
                XCTAssertEqual(packet.summary, "RevCar Fire - parameters 00 04 01")
            } else if handle == 0x0012 {
                events += 1
                XCTAssertEqual(field(packet, "revcar.event.code"), .unsigned(UInt64(bytes.first!), width: 2))
            }
        }
        XCTAssertEqual(drives, 47)
        XCTAssertEqual(fires, 1)
        XCTAssertEqual(events, 6)
    }

    /// Described fields are filter fields once registered, value names included.
    func testFiltersCompareDescribedFields() throws {
        var library = ProtocolLibrary()
        try library.load(file: Self.root.appendingPathComponent("Examples/protocols/revcar.yaml").path)
        FieldRegistry.register(library.protocols)
        XCTAssertNotNil(FieldRegistry.lookup("revcar.drive.speed"))
        XCTAssertTrue(FieldRegistry.protocols.contains("revcar"))
        let fast = try PacketFilter("revcar.drive.speed >= 30 && revcar.drive.turn == straight")
        let any = try PacketFilter("revcar")
        // A message alone: any of its fields.
        let drive = try PacketFilter("revcar.drive"), fire = try PacketFilter("revcar.fire")
        XCTAssertThrowsError(try PacketFilter("revcar.drive == 1"))
        XCTAssertThrowsError(try PacketFilter("revcar.nothing"))
        var drives = 0, fires = 0
        var options = DecodeOptions()
        options.describe(library.protocols)
        let decoder = Decoder(options: options)
        let reader = try CaptureInput.open(Self.root.appendingPathComponent("Fixtures/third-party/revcar/btsnoop_hci.log").path)
        var matched = 0, expected = 0, described = 0, carValues = 0
        while let frame = try reader.next() {
            let packet = decoder.decode(frame)
            let bytes = frame.bytes
            // ACL(4) L2CAP(4) ATT 52 17 00 78 throttle steering
            if bytes.count == 14, bytes[bytes.startIndex + 8 ..< bytes.startIndex + 12].elementsEqual([0x52, 0x17, 0x00, 0x78]),
               bytes[bytes.startIndex + 12] & 0x1F >= 30, bytes[bytes.startIndex + 13] & 0x60 == 0 { expected += 1 }
            if fast.matches(packet) { matched += 1 }
            // Every value written to FFE9 (0x0017) or notified on FFE4 (0x0012) is the car's.
            if let att = packet.layers.first(where: { $0.kind == .att }), [0x0017, 0x0012].contains(att.integer(ATTFields.handle)),
               [0x12, 0x52, 0x1B].contains(att.integer(ATTFields.opcode)) { carValues += 1 }
            if any.matches(packet) { described += 1 }
            if drive.matches(packet) { drives += 1 }
            if fire.matches(packet) { fires += 1 }
        }
        XCTAssertEqual(drives, 47)
        XCTAssertEqual(fires, 1)
        XCTAssertEqual(matched, expected)
        XCTAssertGreaterThan(matched, 20)
        XCTAssertEqual(described, carValues)
        XCTAssertEqual(carValues, 63)
        XCTAssertThrowsError(try PacketFilter("revcar.drive.turn == sideways"))
    }

    // MARK: Layouts

    static let heartRate = DescribedInput.descriptionSeeds[0]

    /// Heart Rate Measurement (GATT Specification Supplement 3.113): flags, then an 8- or
    /// 16-bit rate, energy expended when bit 3 is set, RR intervals in 1/1024 s when bit 4 is.
    func testOptionalPartsAndScaledArrays() throws {
        let hrm = try parse(Self.heartRate)
        // Flags 0x16: 8-bit rate, contact detected (0b11 in bits 1-2), RR present; 72 bpm; RR 1024/1024 s and 512/1024 s.
        var packet = hrm.decode([0x16, 72, 0x00, 0x04, 0x00, 0x02])
        XCTAssertEqual(field(packet, "hrm.measurement.heart_rate"), .unsigned(72, width: 0))
        XCTAssertEqual(field(packet, "hrm.measurement.contact"), .unsigned(3, width: 0))
        XCTAssertNil(field(packet, "hrm.measurement.energy"))
        XCTAssertEqual(fields(packet, "hrm.measurement.rr"), [.real(1.0), .real(0.5)])
        XCTAssertEqual(packet.summary, "Heart Rate Measurement Measurement - heart rate 72")
        XCTAssertTrue(packet.layers[0].issues.isEmpty)
        // Flags 0x09: 16-bit rate (300), energy 0x0102 kJ.
        packet = hrm.decode([0x09, 0x2C, 0x01, 0x02, 0x01])
        XCTAssertNil(field(packet, "hrm.measurement.heart_rate"))
        XCTAssertEqual(field(packet, "hrm.measurement.heart_rate16"), .unsigned(300, width: 0))
        XCTAssertEqual(field(packet, "hrm.measurement.energy"), .unsigned(258, width: 0))
        XCTAssertEqual(packet.layers[0].fieldCopies.first { $0.definition.name == "hrm.measurement.energy" }?.text, "258 kJ")
        // Truncated: the 16-bit rate needs 2 bytes.
        packet = hrm.decode([0x01, 0x2C])
        XCTAssertEqual(packet.layers[0].issues.map(\.message), ["Heart Rate Measurement Measurement: Heart rate16 needs 2 bytes, 1 left"])
    }

    func testIntegersFloatsAndStrings() throws {
        let described = try parse("""
        btlog-protocol: 1
        name: Sample
        gatt: [{characteristic: 6e400001-b5a3-f393-e0a9-e50e24dcca9e, message: all}]
        messages:
          all:
            fields:
              - {name: a, type: u16}
              - {name: b, type: u16be}
              - {name: c, type: s24}
              - {name: d, type: s8}
              - {name: t, type: sfloat, unit: °C}
              - {name: m, type: medfloat32}
              - {name: n, type: sfloat}
              - {name: f, type: f32be}
              - {name: s, type: string, until: nul}
              - {name: len, type: u8}
              - {name: blob, type: bytes, length: len}
              - {name: volts, type: u16, scale: 0.001, offset: 1, unit: V}
              - {name: rest, type: string}
        """)
        let bytes: [UInt8] = [0x34, 0x12, 0x12, 0x34, 0xFE, 0xFF, 0xFF, 0x80,
                              0x6E, 0xF1,             // SFLOAT 366 × 10^-1
                              0x6E, 0x01, 0x00, 0xFF, // FLOAT 366 × 10^-1
                              0xFF, 0x07,             // SFLOAT NaN
                              0x40, 0x49, 0x0F, 0xDB, // 3.1415927 (binary32, big-endian)
                              0x68, 0x69, 0x00, 0x02, 0xAA, 0xBB, 0xE8, 0x03, 0x6F, 0x6B]
        let packet = described.decode(bytes)
        XCTAssertEqual(field(packet, "sample.all.a"), .unsigned(0x1234, width: 0))
        XCTAssertEqual(field(packet, "sample.all.b"), .unsigned(0x1234, width: 0))
        XCTAssertEqual(field(packet, "sample.all.c"), .signed(-2))
        XCTAssertEqual(field(packet, "sample.all.d"), .signed(-128))
        XCTAssertEqual(field(packet, "sample.all.t"), .real(36.6))
        XCTAssertEqual(field(packet, "sample.all.m"), .real(36.6))
        if case .real(let nan)? = field(packet, "sample.all.n") { XCTAssertTrue(nan.isNaN) } else { XCTFail("NaN") }
        if case .real(let pi)? = field(packet, "sample.all.f") { XCTAssertEqual(pi, 3.1415927, accuracy: 1e-6) } else { XCTFail("f32") }
        XCTAssertEqual(field(packet, "sample.all.s"), .text("hi"))
        XCTAssertEqual(field(packet, "sample.all.blob"), .bytes([0xAA, 0xBB][...]))
        XCTAssertEqual(field(packet, "sample.all.volts"), .real(2.0))
        XCTAssertEqual(field(packet, "sample.all.rest"), .text("ok"))
        let layer = packet.layers[0]
        XCTAssertTrue(layer.issues.isEmpty, "\(layer.issues)")
        XCTAssertEqual(layer.fieldCopies.first { $0.definition.name == "sample.all.t" }?.text, "36.6 °C")
        XCTAssertEqual(layer.fieldCopies.first { $0.definition.name == "sample.all.n" }?.text, "NaN")
        // Each value's bytes: the NUL-terminated string covers its NUL.
        XCTAssertEqual(layer.fields.first { $0.definition.name == "sample.all.s" }?.range, 20 ..< 23)
        XCTAssertEqual(layer.fields.first { $0.definition.name == "sample.all.blob" }?.range, 24 ..< 26)
    }

    func testSwitchTLVAndChecksum() throws {
        let described = try parse(DescribedInput.descriptionSeeds[1])
        let frame = described.message("frame")!
        // sync, type 2 (reading), length, count 1, SFLOAT 36.6, FLOAT 36.6, f32 1.0 (BE), then CRC-16/CCITT-FALSE of all but the sync.
        var body: [UInt8] = [0xA5, 0x02, 0x0F, 0x01, 0xF1, 0x6E, 0xFF, 0x00, 0x01, 0x6E, 0x3F, 0x80, 0x00, 0x00]
        let crc = ChecksumAlgorithm.named("crc16-ccitt-false")!.compute(body.dropFirst())
        body += [UInt8(crc >> 8), UInt8(crc & 0xFF)]
        var packet = described.decode(body, message: frame)
        XCTAssertEqual(field(packet, "framed.reading.value"), .real(36.6))
        XCTAssertEqual(field(packet, "framed.reading.raw"), .real(36.6))
        XCTAssertEqual(field(packet, "framed.reading.pressure"), .real(1.0))
        XCTAssertEqual(field(packet, "framed.frame.checksum"), .unsigned(crc, width: 4))
        XCTAssertTrue(packet.layers[0].issues.isEmpty, "\(packet.layers[0].issues)")
        XCTAssertTrue(packet.summary.hasPrefix("Frame Reading - count 1"), packet.summary)
        body[3] ^= 0xFF // count 254: the reading runs out, and the checksum no longer matches
        packet = described.decode(body, message: frame)
        XCTAssertTrue(packet.layers[0].issues.contains { $0.severity == .error && $0.message.contains("is wrong: crc16-ccitt-false") },
                      "\(packet.layers[0].issues)")
        // Status: a string, a signed big-endian code, TLV items each laid out by its type's message.
        var status: [UInt8] = [0xA5, 0x01, 0x00, 0x6F, 0x6B, 0x00, 0xFE, 0xFF, 0x01, 0x04, 0x01, 0xF1, 0x6E, 0x00, 0x07, 0x01, 0x09]
        // The reading inside the TLV is cut at its 4-byte value: what it reads is what is there.
        let statusCRC = ChecksumAlgorithm.named("crc16-ccitt-false")!.compute(status.dropFirst())
        status += [UInt8(statusCRC >> 8), UInt8(statusCRC & 0xFF)]
        packet = described.decode(status, message: frame)
        XCTAssertEqual(field(packet, "framed.status.text"), .text("ok"))
        XCTAssertEqual(field(packet, "framed.status.code"), .signed(-2))
        XCTAssertEqual(fields(packet, "framed.status.items_type"), [.unsigned(1, width: 2), .unsigned(7, width: 2)])
        XCTAssertEqual(field(packet, "framed.reading.value"), .real(36.6))
        XCTAssertEqual(fields(packet, "framed.status.items_value"), [.bytes([0x09][...])])
        // Unknown message type: its bytes are data, with a note.
        packet = described.decode([0xA5, 0x09, 0x00, 0x01, 0x00, 0x00], message: frame)
        XCTAssertTrue(packet.layers[0].issues.contains { $0.message.contains("message type 9 (0x09) has no layout") })
    }

    /// The catalogue's check values: each algorithm over the ASCII bytes "123456789".
    func testChecksumsGiveTheirPublishedCheckValues() {
        for algorithm in ChecksumAlgorithm.all {
            XCTAssertEqual(algorithm.compute(Array("123456789".utf8)), algorithm.check, algorithm.name)
        }
        XCTAssertEqual(ChecksumAlgorithm.named("crc16-modbus")?.check, 0x4B37)
        XCTAssertEqual(ChecksumAlgorithm.named("crc32")?.check, 0xCBF4_3926)
    }

    /// A message that selects itself stops at the nesting limit with an error, not a crash.
    func testSelfSelectionStopsAtTheNestingLimit() throws {
        let described = try parse("""
        btlog-protocol: 1
        name: Loop
        gatt: [{characteristic: FFF0, message: a}]
        messages:
          a:
            fields:
              - {name: kind, type: u8, count: 0}
              - switch: kind
                cases: {0: a}
        """)
        let packet = described.decode([1, 2, 3])
        XCTAssertTrue(packet.layers[0].issues.contains { $0.message.contains("nested deeper than 32") })
    }

    /// A protocol whose message selects itself is freed when the last reference goes (the
    /// fuzzer's leak checker found the cycle), and its fields, made again by a second reading,
    /// are the same definitions (interned: never freed, never duplicated).
    func testProtocolsAreFreedAndTheirFieldsInterned() throws {
        let text = """
        btlog-protocol: 1
        name: Loop
        gatt: [{characteristic: FFF0, message: a}]
        messages:
          a:
            fields:
              - {name: kind, type: u8}
              - switch: kind
                cases: {0: a}
        """
        weak var message: DescribedMessage?
        var first: [FieldDefinition] = []
        do {
            let described = try parse(text)
            message = described.message("a")
            first = described.fields
            XCTAssertNotNil(message)
        }
        XCTAssertNil(message, "the protocol and its self-selecting message are freed")
        XCTAssertEqual(try parse(text).fields.map(\.id), first.map(\.id))
        // A description that fails after its messages were made frees them too.
        XCTAssertThrowsError(try parse(text + "\n  b:\n    fields: [{name: x, type: u99}]\n"))
    }

    // MARK: Errors

    func assertError(_ text: String, _ line: Int, _ column: Int, _ fragment: String, file: StaticString = #filePath, line testLine: UInt = #line) {
        XCTAssertThrowsError(try parse(text), file: file, line: testLine) { error in
            guard let error = error as? DescriptionError else { return XCTFail("\(error)", file: file, line: testLine) }
            XCTAssertEqual(error.line, line, error.description, file: file, line: testLine)
            XCTAssertEqual(error.column, column, error.description, file: file, line: testLine)
            XCTAssertTrue(error.message.contains(fragment), error.description, file: file, line: testLine)
            XCTAssertTrue(error.description.hasPrefix("test.yaml:\(line):\(column): "), error.description, file: file, line: testLine)
        }
    }

    func testErrorsNameLineColumnAndWhatWasExpected() {
        let head = "btlog-protocol: 1\nname: X\ngatt: [{characteristic: FFF0, message: m}]\n"
        assertError("name: X\n", 1, 1, "starts with 'btlog-protocol: 1'")
        assertError("btlog-protocol: 2\nname: X\n", 1, 17, "not a version this btlog reads")
        assertError(head + "messages:\n  m:\n    fields:\n      - {name: a, type: u12}\n", 7, 25, "unknown type 'u12'")
        assertError(head + "messages:\n  m:\n    fields:\n      - {name: a, type: u8, count: b}\n", 7, 36, "'b' is not an integer field read before")
        assertError(head + "messages:\n  m:\n    fields:\n      - {name: a, type: u8}\n      - {name: a, type: u8}\n", 8, 16, "two fields named 'a'")
        assertError(head + "messages:\n  m:\n    fields:\n      - {name: a, type: u8, colour: red}\n", 7, 29, "unknown key 'colour'")
        assertError(head + "messages:\n  m:\n    fields:\n      - {name: a, type: u8\n", 8, 1, "not valid YAML")
        assertError("btlog-protocol: 1\nname: X\ngatt: [{characteristic: FFF0, message: n}]\nmessages:\n  m:\n    fields: []\n", 3, 40, "no message 'n'")
        assertError("btlog-protocol: 1\nname: ATT\ngatt: [{characteristic: FFF0, message: m}]\nmessages:\n  m:\n    fields: []\n", 2, 7, "a protocol btlog decodes itself")
        assertError(head + "messages:\n  m:\n    checksum: {type: crc7}\n    fields: []\n", 6, 22, "unknown checksum 'crc7'")
        // Summaries, decimals, short names, one value in two optional parts, inline.
        assertError(head + "messages:\n  m:\n    fields: [{name: a, type: u8}]\n    summary: [\"{b} bpm\"]\n", 7, 15, "no field 'b'")
        assertError(head + "messages:\n  m:\n    fields: [{name: a, type: u8}]\n    summary: [\"{a bpm\"]\n", 7, 15, "'{' without '}'")
        assertError(head + "messages:\n  m:\n    fields: [{name: a, type: u8, decimals: 2}]\n", 6, 44, "'decimals' applies to real values")
        assertError(head + "field-names: short\nmessages:\n  m:\n    fields: [{name: a, type: u8}]\n  n:\n    fields: [{name: a, type: u8}]\n", 6, 3,
                    "two fields are named 'x.a'")
        assertError(head + "messages:\n  m:\n    fields:\n      - {name: f, type: u8}\n      - {name: a, type: u8, if: f}\n      - {name: a, type: bytes, if: f}\n",
                    9, 16, "two fields named 'a' that differ")
        assertError("btlog-protocol: 1\nname: X\ninline: true\nl2cap: [{psm: 0x1001, message: m}]\nmessages:\n  m:\n    fields: []\n", 3, 9, "has no ATT layer")
    }

    /// A value read in either of two optional parts (a u16 or a u8 as a flag says) is one
    /// field; a summary's templates show values without their units, and only when read.
    func testOneValueInTwoOptionalPartsAndSummaryTemplates() throws {
        let described = try parse("""
        btlog-protocol: 1
        name: Meter
        field-names: short
        gatt: [{characteristic: FFF0, message: reading}]
        messages:
          reading:
            fields:
              - {name: flags, type: u8}
              - {name: level, type: u16, unit: mV, if: "flags & 0x01"}
              - {name: level, type: u8, unit: mV, if: "flags & 0x01 == 0"}
              - {name: ratio, type: u16, scale: 0.001, decimals: 2, if: "flags & 0x02"}
            summary:
              - "{level} mV"
              - {text: charging, if: "flags & 0x04"}
              - "ratio {ratio}"
              - level
        """)
        XCTAssertEqual(described.fields.map(\.name), ["meter.data", "meter.flags", "meter.level", "meter.ratio"])
        XCTAssertEqual(described.decode([0x01, 0x2C, 0x01]).summary, "Meter Reading - 300 mV - level 300 mV")
        XCTAssertEqual(described.decode([0x06, 0x2C, 0x34, 0x12]).summary, "Meter Reading - 44 mV - charging - ratio 4.66 - level 44 mV")
        let packet = described.decode([0x02, 0x05, 0x35, 0x12])
        XCTAssertEqual(packet.layers[0].value(described.fields[3]), .real(4.661))
        XCTAssertEqual(packet.layers[0].fieldCopies.first { $0.definition == described.fields[3] }?.text, "4.66")
    }

    func testTwoDescriptionsClaimingOneCharacteristicIsAnErrorNamingBoth() throws {
        let one = try ProtocolDescriptionReader.parse("btlog-protocol: 1\nname: One\ngatt: [{characteristic: FFE9, message: m}]\nmessages:\n  m:\n    fields: []\n", source: "one.yaml")
        let two = try ProtocolDescriptionReader.parse("btlog-protocol: 1\nname: Two\ngatt:\n  - {characteristic: FFE9, message: m}\nmessages:\n  m:\n    fields: []\n", source: "two.yaml")
        var set = DescribedProtocols()
        try set.add(one)
        XCTAssertThrowsError(try set.add(two)) { error in
            XCTAssertEqual("\(error)", "two.yaml:4:5: characteristic FFE9 is claimed by both two and one (one.yaml:3:8)")
        }
    }

    // MARK: Fuzz targets

    /// The two fuzz targets over generated inputs: every generated description compiles, and
    /// no payload or mutated description traps.
    func testFuzzTargetsHoldOnGeneratedInputs() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func random() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        for _ in 0 ..< 400 {
            let recipe = (0 ..< Int(random() % 48)).map { _ in random() }
            let payload = (0 ..< Int(random() % 64)).map { _ in random() }
            FuzzTarget.described.run([UInt8(recipe.count)] + recipe + payload)
        }
        for seed in DescribedInput.descriptionSeeds {
            let bytes = Array(seed.utf8)
            for cut in stride(from: 0, to: bytes.count, by: 7) { FuzzTarget.description.run(Array(bytes[..<cut])) }
            for index in stride(from: 0, to: bytes.count, by: 5) {
                var mutated = bytes
                mutated[index] = random()
                FuzzTarget.description.run(mutated)
            }
        }
    }
}

/// A line-based text protocol over an RFCOMM serial port, on a capture that begins in the
/// middle of the connection: Happy Leaf's ELM327 session (third-party, Apache-2.0).
final class DescribedTextTests: XCTestCase {
    static let capture = DescribedProtocolTests.root.appendingPathComponent("Fixtures/third-party/happyleaf/btsnoop_hci.log").path

    func decodeAll(rules: [String] = []) throws -> [Packet] {
        var library = ProtocolLibrary()
        try library.load(file: DescribedProtocolTests.root.appendingPathComponent("Examples/protocols/elm327.yaml").path)
        var options = DecodeOptions()
        options.describe(library.protocols)
        for rule in rules { options.decode(as: try library.rule(rule)) }
        let decoder = Decoder(options: options)
        let reader = try CaptureInput.open(Self.capture)
        var packets: [Packet] = []
        while let frame = try reader.next() { packets.append(decoder.decode(frame)) }
        return packets
    }

    func value(_ packet: Packet, _ name: String) -> FieldValue? {
        packet.layers.last?.fieldCopies.first { $0.definition.name == name }?.value
    }

    /// The channels are recognised as RFCOMM by their frames; the adapter's replies, sent a few
    /// characters per frame, are joined into lines; the requests' hex groups are numbers. Counted
    /// against the raw bytes: the frames that carry "022101\r", and "NO DATA\r" in the joined
    /// text of what the adapter sent.
    func testELM327LinesFromAStreamInPieces() throws {
        let packets = try decodeAll()
        var requests = 0, rawRequests = 0, noData = 0
        var received: [UInt8] = []
        var notes: [String] = []
        for packet in packets {
            notes += packet.issues.filter { $0.message.contains("carries RFCOMM, inferred") }.map(\.message)
            if ByteSearch.contains(packet.frame.bytes, Array("022101\r".utf8)) { rawRequests += 1 }
            if let rfcomm = packet.layers.first(where: { $0.kind == .rfcomm }), packet.frame.direction == .received,
               case .bytes(let info)? = rfcomm.value(RFCOMMFields.payload) { received += info }
            if value(packet, "elm327.session.service") == .unsigned(0x21, width: 0), value(packet, "elm327.session.pid") == .unsigned(1, width: 0) {
                requests += 1
                XCTAssertEqual(packet.summary, "ELM327 Request - length 0x02 - service 0x21 - pid 0x01")
            }
            if value(packet, "elm327.session.status") == .text("NO DATA") { noData += 1 }
        }
        XCTAssertEqual(requests, rawRequests)
        XCTAssertEqual(requests, 146)
        var count = 0, search = received[...]
        let needle = Array("NO DATA\r".utf8)
        while let at = search.firstRange(of: needle) { count += 1; search = search[at.upperBound...] }
        XCTAssertEqual(noData, count)
        XCTAssertGreaterThan(noData, 300)
        XCTAssertEqual(notes, ["Channel 0x0055 carries RFCOMM, inferred from this frame (its length and FCS check); the capture does not show it opened",
                               "Channel 0x004F carries RFCOMM, inferred from this frame (its length and FCS check); the capture does not show it opened"])
        // The reply "NO DATA" arrived as NO, " ", D, ATA, CR CR >: the packet with the CR has the line.
        XCTAssertEqual(packets[2].summary, "ELM327 Partial line - line \"NO\"")
        XCTAssertEqual(packets[5].summary, "ELM327 Partial line - line \"NO DATA\" (continued)")
        XCTAssertEqual(packets[6].summary, "ELM327 Status - status NO DATA")
        XCTAssertNil(packets[6].layers.last?.fields.first { $0.definition.name == "elm327.session.line" }?.range, "a line joined from several packets has no bytes of one")
    }

    /// A decode-as rule says what the capture does not; the note names the rule.
    func testDecodeAsRuleTakesPrecedenceOverInference() throws {
        let packets = try decodeAll(rules: ["l2cap.cid == 0x004F: rfcomm"])
        let notes = packets.flatMap(\.issues).map(\.message).filter { $0.contains("Channel 0x004F") }
        XCTAssertEqual(notes, ["Channel 0x004F decoded as RFCOMM (decode-as 'l2cap.cid == 0x004F: rfcomm'); the capture does not show it opened"])
        XCTAssertThrowsError(try DecodeAsRule.parse("l2cap.cid = 0x55: rfcomm", described: []))
        XCTAssertThrowsError(try DecodeAsRule.parse("l2cap.cid == 0x0001: rfcomm", described: []))
        XCTAssertThrowsError(try DecodeAsRule.parse("l2cap.cid == 0x0055: nothing", described: [])) { error in
            XCTAssertTrue("\(error)".contains("known: "), "\(error)")
        }
        XCTAssertThrowsError(try DecodeAsRule.parse("rfcomm.channel == 3: rfcomm", described: []))
        XCTAssertNoThrow(try DecodeAsRule.parse("l2cap.psm == 0x1001: avdtp", described: []))
    }

    /// Text rules' fields on a payload of their own, and an expression that does not compile is
    /// an error at its place.
    func testTextRulesAndTheirErrors() throws {
        let described = try ProtocolDescriptionReader.parse("""
        btlog-protocol: 1
        name: AT
        gatt: [{characteristic: 6e400003-b5a3-f393-e0a9-e50e24dcca9e, message: uart}]
        messages:
          uart:
            fields:
              - text: line
                rules:
                  - {name: Level, match: '^\\+LEVEL: (?<level>-?[0-9]+)$', decimal: [level]}
        """, source: "at.yaml")
        let packet = described.decode(Array("+LEVEL: -42\r\nOTHER\r\n".utf8))
        let fields = packet.layers[0].fieldCopies
        XCTAssertEqual(fields.filter { $0.definition.name == "at.uart.line" }.map(\.value), [.text("+LEVEL: -42"), .text("OTHER")])
        XCTAssertEqual(fields.first { $0.definition.name == "at.uart.level" }?.value, .signed(-42))
        XCTAssertEqual(fields.first { $0.definition.name == "at.uart.level" }?.range, 8 ..< 11)
        XCTAssertThrowsError(try ProtocolDescriptionReader.parse("""
        btlog-protocol: 1
        name: AT
        gatt: [{characteristic: FFF1, message: uart}]
        messages:
          uart:
            fields:
              - text: line
                rules: [{name: Bad, match: '^(?<open'}]
        """, source: "bad.yaml")) { error in
            XCTAssertTrue("\(error)".hasPrefix("bad.yaml:8:36: not a valid regular expression"), "\(error)")
        }
    }
}
