import XCTest
import BTCapture
import BTDecode
@testable import BTDescribe

/// The SIG characteristics btlog ships as descriptions: they compile, they read as btlog's
/// own text did on every capture the project holds, and their fields are the values the
/// specification's layout gives.
final class ShippedProtocolTests: XCTestCase {
    static let root = DescribedProtocolTests.root

    func testEveryShippedDescriptionCompilesWithItsOwnKey() throws {
        var keys: Set<String> = []
        for (name, text) in ShippedProtocols.texts {
            let described = try ProtocolDescriptionReader.parse(text, source: name, shipped: true)
            XCTAssertTrue(described.isInline && described.isShipped, name)
            XCTAssertTrue(keys.insert(described.key).inserted, "\(name): key \(described.key) twice")
            // A user's file is refused such a key when read; the shipped ones are not asked (it
            // would build every built-in field at every start), so here.
            XCTAssertFalse(FieldRegistry.isBuiltIn(described.key), "\(name): \(described.key) is a built-in protocol")
            // Short names: <key>.<field>.
            for field in described.fields { XCTAssertEqual(field.name.split(separator: ".").count, 2, field.name) }
        }
        XCTAssertEqual(ShippedProtocols.compiled().count, ShippedProtocols.texts.count)
        var library = ProtocolLibrary()
        library.loadShipped()
        XCTAssertEqual(library.protocols.all.count, ShippedProtocols.texts.count)
        XCTAssertTrue(library.replaced.isEmpty, "\(library.replaced)")
    }

    /// A user's description of a characteristic a shipped one claims replaces the shipped one.
    func testAUsersDescriptionReplacesTheShippedOne() throws {
        var library = ProtocolLibrary()
        try library.add(try ProtocolDescriptionReader.parse("""
        btlog-protocol: 1
        name: My Strap
        gatt: [{characteristic: 2A37, message: m}]
        messages:
          m:
            fields: [{name: raw, type: bytes}]
        """, source: "strap.yaml"))
        library.loadShipped()
        XCTAssertEqual(library.replaced.map(\.source), [ShippedProtocols.sourcePrefix + "heart-rate.yaml"])
        XCTAssertTrue(library.replaced[0].reason.contains("characteristic 2A37"), library.replaced[0].reason)
        XCTAssertEqual(library.protocols.all.count, ShippedProtocols.texts.count)
    }

    /// Each shipped description on values worked out by hand from the GATT Specification
    /// Supplement's layouts (SFLOAT 0x0079: exponent 0, mantissa 121; FLOAT 0xFF000172:
    /// 370 × 10^-1; 1/1024 s and 1/256 m/s units; weight in 0.005 kg or 0.01 lb).
    func testEveryShippedDescriptionOnWorkedValues() throws {
        var library = ProtocolLibrary()
        library.loadShipped()
        func check(_ characteristic: UInt16, _ bytes: [UInt8], _ expected: String, fields: [String: FieldValue] = [:],
                   file: StaticString = #filePath, line: UInt = #line) {
            guard let described = library.protocols.all.first(where: { $0.selectors.contains { $0.key == .characteristic(BTUUID(characteristic)) } }),
                  let selector = described.selectors.first(where: { $0.key == .characteristic(BTUUID(characteristic)) }) else {
                return XCTFail("no shipped description of \(Hex.u16(characteristic))", file: file, line: line)
            }
            let packet = described.decode(bytes, message: selector.message)
            XCTAssertEqual(packet.summary, described.heading(selector.message.title) + " - " + expected, file: file, line: line)
            XCTAssertEqual(packet.layers[0].issues.map(\.message), [], file: file, line: line)
            for (name, value) in fields {
                let field = described.fields.first { $0.name == name }
                XCTAssertNotNil(field, name, file: file, line: line)
                XCTAssertEqual(field.flatMap { packet.layers[0].value($0) }, value, name, file: file, line: line)
            }
        }
        check(0x2A19, [0x55], "85%", fields: ["bas.level": .unsigned(85, width: 0)])
        check(0x2A37, [0x01, 0x2C, 0x01], "300 bpm", fields: ["hrs.heart_rate": .unsigned(300, width: 0), "hrs.rate_format": .unsigned(1, width: 0)])
        check(0x2A37, [0x1E, 0x48, 0x0A, 0x00, 0x00, 0x04, 0x00, 0x02], "72 bpm - Contact detected - Energy: 10 kJ - RR: 1.000, 0.500 s",
              fields: ["hrs.energy": .unsigned(10, width: 0), "hrs.contact": .unsigned(3, width: 0)])
        check(0x2A38, [0x01], "Chest")
        check(0x2A1C, [0x06, 0x72, 0x01, 0x00, 0xFF, 0xE6, 0x07, 0x0B, 0x1C, 0x0A, 0x1E, 0x00, 0x02], "37 °C - Body (general)",
              fields: ["hts.temperature": .real(37), "hts.time": .text("2022-11-28 10:30:00"), "hts.type": .unsigned(2, width: 2)])
        check(0x2A1E, [0x01, 0x8A, 0x03, 0x00, 0xFF], "90.6 °F")
        check(0x2A21, [0x3C, 0x00], "Every 60 s")
        check(0x2A35, [0x04, 0x79, 0x00, 0x51, 0x00, 0x6A, 0x00, 0x48, 0x00], "121/81 mmHg - MAP: 106 mmHg - Pulse: 72 bpm",
              fields: ["bps.systolic": .real(121), "bps.pulse_rate": .real(72)])
        check(0x2A35, [0x19, 0x79, 0x00, 0x51, 0x00, 0x6A, 0x00, 0x02, 0x03, 0x00], "121/81 kPa - MAP: 106 kPa - User 2",
              fields: ["bps.body_movement": .unsigned(1, width: 0), "bps.cuff_fit": .unsigned(1, width: 0)])
        check(0x2A18, [0x02, 0x01, 0x00, 0xE6, 0x07, 0x01, 0x02, 0x03, 0x04, 0x05, 0x5A, 0xB0, 0x11], "Sequence 1 - 0.0009 kg/L - capillary whole blood",
              fields: ["gls.sequence": .unsigned(1, width: 0), "gls.sample_location": .unsigned(1, width: 0), "gls.time": .text("2022-01-02 03:04:05")])
        check(0x2A5B, [0x03, 0x02, 0x01, 0x00, 0x00, 0x00, 0x04, 0x10, 0x00, 0x00, 0x02],
              "Wheel: 258 revolutions at 1.000 s - Crank: 16 revolutions at 0.500 s", fields: ["cscs.wheel_time": .real(1)])
        check(0x2A53, [0x06, 0x00, 0x03, 0xA0, 0xE8, 0x03, 0x00, 0x00], "3.00 m/s - 160 steps/min - Distance: 100 m - running",
              fields: ["rscs.speed": .real(3), "rscs.distance": .real(100)])
        check(0x2A9D, [0x00, 0x98, 0x3A], "75.000 kg", fields: ["wss.weight": .real(75)])
        check(0x2A9D, [0x0D, 0x4C, 0x1D, 0x07, 0xF2, 0x00, 0x44, 0x02], "75.00 lb - BMI 24.2 - User 7",
              fields: ["wss.height": .real(58), "wss.bmi": .real(24.2)])
        check(0x2A6E, [0x24, 0x09], "23.40 °C", fields: ["ess.temperature": .real(23.4)])
        check(0x2A6E, [0x38, 0xFF], "-2.00 °C")
        check(0x2A6F, [0x88, 0x13], "50.00%")
        check(0x2A6D, [0x02, 0x76, 0x0F, 0x00], "101325.0 Pa")
    }

    static func captures() -> [String] {
        let fixtures = root.appendingPathComponent("Fixtures")
        var paths: [String] = []
        let enumerator = FileManager.default.enumerator(atPath: fixtures.path)
        while let name = enumerator?.nextObject() as? String {
            let lower = name.lowercased()
            if [".btsnoop", ".pklg", ".pcap", ".pcapng", ".log", ".cfa"].contains(where: { lower.hasSuffix($0) }) { paths.append(fixtures.appendingPathComponent(name).path) }
        }
        return paths.sorted()
    }

    /// Heart Rate Measurement, Body Sensor Location and Battery Level read as btlog's Swift
    /// text decoder (GATTValues) reads them, on every capture: the shipped descriptions change
    /// One Date Time text (GATT Specification Supplement 3.70: year as a little-endian u16, month,
    /// day, hours, minutes, seconds; 0 for a year, month or day not known) for Current Time
    /// (0x2A2B: then the day of the week and 1/256 s) and for a description's datetime.
    func testDateTimeReadsTheSameInCurrentTimeAndDescriptions() throws {
        // 2022 = 0x07E6; November 28, 10:30:00; Monday (1); 128/256 s; adjust reason 0.
        let exact: [UInt8] = [0xE6, 0x07, 11, 28, 10, 30, 0, 1, 128, 0]
        XCTAssertEqual(GATTValues.describe(BTUUID(UInt16(0x2A2B)), exact[...]), "2022-11-28 10:30:00 Monday +128/256 s")
        let unknown: [UInt8] = [0, 0, 0, 0, 23, 59, 59, 0, 0, 0]
        XCTAssertEqual(GATTValues.describe(BTUUID(UInt16(0x2A2B)), unknown[...]), "unknown-unknown-unknown 23:59:59 +0/256 s")
        XCTAssertNil(GATTValues.describe(BTUUID(UInt16(0x2A2B)), exact[..<7]))
        let described = try ProtocolDescriptionReader.parse("""
        btlog-protocol: 1
        name: Clock
        gatt: [{characteristic: FFF0, message: time}]
        messages:
          time:
            fields: [{name: at, type: datetime}]
        """, source: "clock.yaml")
        for bytes in [exact, unknown] {
            let packet = described.decode(Array(bytes.prefix(7)))
            let text = try XCTUnwrap(packet.layers[0].fieldCopies.first { $0.definition.name == "clock.time.at" }?.text)
            XCTAssertTrue(GATTValues.describe(BTUUID(UInt16(0x2A2B)), bytes[...])!.hasPrefix(text), text)
        }
    }

    /// no summary but where btlog had no decoder (a value it showed as bytes).
    func testShippedSummariesReadAsTheBuiltInTextOnEveryCapture() throws {
        var library = ProtocolLibrary()
        library.loadShipped()
        var options = DecodeOptions()
        options.describe(library.protocols)
        var compared = 0, heartRates = 0
        for path in Self.captures() {
            guard let reader = try? CaptureInput.open(path) else { continue }
            let plain = Decoder(), described = Decoder(options: options)
            while let frame = try? reader.next() {
                let before = plain.decode(frame), after = described.decode(frame)
                compared += 1
                if after.summary != before.summary {
                    XCTAssertTrue(before.summary.contains(" - Value: "), "\(path) #\(frame.number): \(before.summary) became \(after.summary)")
                }
                if after.summary.contains("Heart Rate Measurement - "), after.summary.contains(" bpm") { heartRates += 1 }
            }
        }
        XCTAssertGreaterThan(compared, 10_000)
        XCTAssertGreaterThanOrEqual(heartRates, 4, "the fixtures carry four Heart Rate Measurements")
    }

    /// Every Heart Rate Measurement's fields against the Heart Rate Service's layout, computed
    /// here from the value's bytes: flags, an 8- or 16-bit rate, energy, RR intervals in 1/1024 s.
    func testHeartRateFieldsAreTheSpecificationsValues() throws {
        var library = ProtocolLibrary()
        library.loadShipped()
        var options = DecodeOptions()
        options.describe(library.protocols)
        let hrs = library.protocols.all.first { $0.key == "hrs" }!
        func field(_ name: String) -> FieldDefinition { hrs.fields.first { $0.name == "hrs." + name }! }
        var checked = 0, withRR = 0, wide = 0
        for path in Self.captures() {
            guard let reader = try? CaptureInput.open(path) else { continue }
            let decoder = Decoder(options: options)
            while let frame = try? reader.next() {
                let packet = decoder.decode(frame)
                guard let att = packet.layers.first(where: { $0.kind == .att }), let flags = att.integer(field("flags")),
                      case .bytes(let value)? = att.value(ATTFields.value) else { continue }
                let bytes = Array(value)
                XCTAssertEqual(Int(bytes[0]), flags)
                var index = 1
                func u16() -> Int? {
                    guard index + 2 <= bytes.count else { return nil }
                    defer { index += 2 }
                    return Int(bytes[index]) | Int(bytes[index + 1]) << 8
                }
                let rate: Int?
                if flags & 1 != 0 { rate = u16(); wide += 1 } else { rate = index < bytes.count ? Int(bytes[index]) : nil; index += 1 }
                XCTAssertEqual(att.integer(field("heart_rate")), rate, "\(path) #\(frame.number)")
                if flags & 0x08 != 0 { XCTAssertEqual(att.integer(field("energy")), u16()) } else { XCTAssertNil(att.value(field("energy"))) }
                var intervals: [Double] = []
                if flags & 0x10 != 0 { while let rr = u16() { intervals.append(Double(rr) / 1024) } }
                let decoded = att.fieldCopies.filter { $0.definition == field("rr") }.compactMap { field -> Double? in
                    if case .real(let v) = field.value { return v }
                    return nil
                }
                XCTAssertEqual(decoded, intervals, "\(path) #\(frame.number)")
                if !intervals.isEmpty { withRR += 1 }
                checked += 1
            }
        }
        XCTAssertGreaterThanOrEqual(checked, 4)
        XCTAssertGreaterThan(withRR, 0)
        _ = wide
    }

    /// The captures hold few measurements: every combination of flags, with values of every
    /// length up to twelve bytes (seeded), read by the description and by the Swift decoder
    /// must give the same text, wherever the Swift decoder gives one and the value has no
    /// bytes its flags do not account for.
    func testHeartRateReadsAsTheSwiftDecoderOnEveryFlagCombination() throws {
        var library = ProtocolLibrary()
        library.loadShipped()
        let hrs = library.protocols.all.first { $0.key == "hrs" }!
        var generator = Xorshift(state: 52)
        var compared = 0
        for flags in 0 ..< 32 {
            for length in 0 ... 12 {
                for _ in 0 ..< 8 {
                    let value = [UInt8(flags)] + (0 ..< length).map { _ in UInt8.random(in: 0 ... 255, using: &generator) }
                    guard let builtIn = GATTValues.describe(BTUUID(UInt16(0x2A37)), value[...]) else { continue }
                    let packet = hrs.decode(value, message: hrs.message("measurement"))
                    let prefix = "Heart Rate Measurement - "
                    XCTAssertTrue(packet.summary.hasPrefix(prefix), packet.summary)
                    // A byte the flags leave over (half an RR interval, or a value the flags
                    // say is absent) is an issue to the description, silence to the Swift code.
                    if packet.layers[0].issues.isEmpty {
                        XCTAssertEqual(String(packet.summary.dropFirst(prefix.count)), builtIn, "\(Hex.bytes(value[...]))")
                        compared += 1
                    } else {
                        XCTAssertTrue(packet.summary.dropFirst(prefix.count).hasPrefix(builtIn.prefix { $0 != "-" }), "\(Hex.bytes(value[...])): \(packet.summary)")
                    }
                }
            }
        }
        XCTAssertGreaterThan(compared, 500)
    }
}

/// A seeded generator: the same values every run.
struct Xorshift: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
}
