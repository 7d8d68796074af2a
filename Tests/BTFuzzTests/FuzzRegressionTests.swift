import XCTest
import BTCapture
import BTDecode
@testable import BTFuzz

/// Every input a fuzzer found a crash or hang with (Tests/BTFuzzTests/Inputs/TARGET/) runs again
/// through its target, and what each one broke is asserted directly.
final class FuzzRegressionTests: XCTestCase {
    static let inputs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Inputs")

    func bytes(_ target: String, _ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: Self.inputs.appendingPathComponent(target).appendingPathComponent(name)))
    }

    func testEveryCheckedInInputRuns() throws {
        var ran = 0
        for target in FuzzTarget.allCases {
            let folder = Self.inputs.appendingPathComponent(target.rawValue)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            for name in names.sorted() {
                let started = Date()
                target.run(try bytes(target.rawValue, name))
                // A bound that catches a hang, not a measurement: the numeric-pin capture tries
                // every passkey of its legacy pairing (a million AES rounds, 6 s in a debug build
                // alone, over 10 s on a CI machine running the other tests beside it).
                XCTAssertLessThan(Date().timeIntervalSince(started), 40, "\(target.rawValue)/\(name) took too long")
                ran += 1
            }
        }
        XCTAssertGreaterThanOrEqual(ran, 2)
    }

    /// Scripts/fuzz.sh (and so CI's smoke run) runs every target: the merge target, added
    /// without it, had gone unfuzzed by CI.
    func testTheFuzzScriptRunsEveryTarget() throws {
        let script = try String(contentsOf: Self.inputs.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Scripts/fuzz.sh"), encoding: .utf8)
        let line = try XCTUnwrap(script.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("targets=(btsnoop") })
        let listed = line.split(separator: "(")[1].split(separator: ")")[0].split(separator: " ").map(String.init)
        XCTAssertEqual(Set(listed), Set(FuzzTarget.allCases.map(\.rawValue)))
    }

    /// The serial monitor and H4 wire targets on a real capture as a board and a tap would
    /// send it, whole and with bytes changed: their own checks (every frame fits, the bytes add
    /// up) hold at every read size.
    func testSerialAndWireTargetsOnARealCapture() throws {
        let fixture = Self.inputs.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/kernel-pairing.btsnoop")
        let reader = try CaptureInput.open(fixture.path)
        var board: [UInt8] = [], host: [UInt8] = [], controller: [UInt8] = []
        while let frame = try reader.next() {
            if let opcode = MonitorOpcode.opcode(for: frame.kind, direction: frame.direction) {
                board += SerialMonitor.encode(opcode: opcode, payload: Array(frame.bytes), timestamp: UInt32(frame.number * 7))
            }
            if let type = H4.indicator(for: frame.kind) {
                if frame.direction == .sent { host += [type] + frame.bytes } else { controller += [type] + frame.bytes }
            }
        }
        var generator = SystemRandomNumberGenerator()
        for selector in [UInt8(0), 1, 6, 7, 0x3F, 0xFE, 0xFF] {
            for (target, bytes) in [(FuzzTarget.serialMonitor, board), (.h4Wire, selector & 1 == 0 ? host : controller)] {
                var seed = [selector] + bytes
                target.run(seed)
                for _ in 0 ..< 40 { seed[Int.random(in: 1 ..< seed.count, using: &generator)] = UInt8.random(in: 0 ... 255, using: &generator) }
                target.run(seed)
            }
        }
    }

    /// The merge target on its seeds (windows of the kernel's two hosts) and on those seeds
    /// with bytes changed: every frame once, every match naming its other end (the target's
    /// own preconditions), under clocks of every shape the clock byte makes.
    func testMergeTargetOnTheTwoHosts() throws {
        let fixture = Self.inputs.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/kernel-two-hosts.btsnoop")
        let reader = try CaptureInput.open(fixture.path)
        var frames: [Frame] = []
        while let frame = try reader.next() { frames.append(frame) }
        var generator = SystemRandomNumberGenerator()
        for (index, start) in stride(from: 0, to: frames.count, by: 700).enumerated() {
            let window = Array(frames[start ..< min(start + 400, frames.count)])
            for clock in [UInt8(index), 0x3F, 0x80, 0xC1, 0xFF] {
                var seed = MergeFuzzInput.encode(clock: clock, window)
                FuzzTarget.merge.run(seed)
                for _ in 0 ..< 20 { seed[Int.random(in: 1 ..< seed.count, using: &generator)] = UInt8.random(in: 0 ... 255, using: &generator) }
                FuzzTarget.merge.run(seed)
            }
        }
    }

    /// The merge target with a sniffer's source: crackle's known_ltk.pcap (as control commands
    /// on controller 3, which the target reads back as PPI air frames) beside the central's log,
    /// interleaved by the air's clock as the seeds are, under clocks of every shape and with
    /// bytes changed. The air's copies name host ends; the target's preconditions hold.
    func testMergeTargetWithTheAir() throws {
        let fixtures = Self.inputs.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures")
        var timed: [(time: Int64, frame: Frame)] = []
        let host = try CaptureInput.open(fixtures.appendingPathComponent("known-ltk-central.btsnoop").path)
        while let frame = try host.next() { timed.append((frame.timestamp - 3_600_500_000, frame)) }  // its clock: AirHostLog.offset ahead
        let air = try CaptureInput.open(fixtures.appendingPathComponent("third-party/crackle/known_ltk.pcap").path)
        while let frame = try air.next() { timed.append((frame.timestamp, frame)) }
        let frames = timed.sorted { $0.time < $1.time }.map(\.frame)
        var generator = SystemRandomNumberGenerator()
        for clock in [UInt8(0), 0x05, 0x3F, 0x80, 0xC1, 0xFF] {
            var seed = MergeFuzzInput.encode(clock: clock, frames)
            FuzzTarget.merge.run(seed)
            for _ in 0 ..< 3 {
                for _ in 0 ..< 30 { seed[Int.random(in: 1 ..< seed.count, using: &generator)] = UInt8.random(in: 0 ... 255, using: &generator) }
                FuzzTarget.merge.run(seed)
            }
        }
    }

    /// Text containment through Foundation's String.contains trapped on a needle holding a NUL
    /// ("\u{FFFD}" against "\u{FFFD}\0") and answered true for "ab" containing "ab\0". Field
    /// values (and the table's issue check) now search UTF-8 bytes.
    func testTextContainmentWithNUL() throws {
        XCTAssertEqual(try bytes("literal", "foundation-contains-nul.txt"), [0xCC, 0xF9, 0x00, 0xFC, 0x00])
        XCTAssertFalse(FieldValue.text("\u{FFFD}").contains(.text("\u{FFFD}\u{0}")))
        XCTAssertFalse(FieldValue.text("ab").contains(.text("ab\u{0}")))
        XCTAssertTrue(FieldValue.text("a\u{0}b").contains(.text("\u{0}b")))
        XCTAssertTrue(ByteSearch.contains("Heart Rate", "Rate"))
        XCTAssertFalse(ByteSearch.contains("Rat", "Rate"))
        XCTAssertTrue(ByteSearch.contains([1, 2, 1, 2, 3][...], [1, 2, 3]))
        // In place and through a copy (a collection with no contiguous storage) alike: at the
        // ends, a needle as long as the haystack, longer, and a near miss at the very end.
        let haystack: [UInt8] = Array("xxHeart Rate".utf8)
        for (needle, expected) in [("Rate", true), ("xxH", true), ("xxHeart Rate", true), ("xxHeart Rate!", false), ("Ratf", false), ("", true)] {
            XCTAssertEqual(ByteSearch.contains(haystack[2...], needle.utf8), expected && needle != "xxH" && needle != "xxHeart Rate", needle)
            XCTAssertEqual(ByteSearch.contains(haystack.lazy.map { $0 }, needle.utf8.lazy.map { $0 }), expected, needle)
            XCTAssertEqual(ByteSearch.contains(haystack, Array(needle.utf8)), expected, needle)
        }
    }

    /// A pcapng timestamp of 2^64-1 units: libpcap hands it over as seconds that overflowed
    /// the microsecond arithmetic (a trap). Now clamped; the packets are all read.
    func testHugePcapNGTimestampIsClamped() throws {
        let reader = try CaptureInput.open(bytes: try bytes("pcap", "timestamp-overflow.pcapng"))
        var frames: [Frame] = []
        while let frame = try reader.next() { frames.append(frame) }
        XCTAssertFalse(frames.isEmpty)
        XCTAssertEqual(Microseconds.combine(seconds: .max / 10, micros: 5), .max)
        XCTAssertEqual(Microseconds.combine(seconds: .min / 10, micros: 0), .min)
        XCTAssertEqual(Microseconds.combine(seconds: 1_700_000_000, micros: 250), 1_700_000_000_000_250)
    }

    /// A damaged bugreport zip on which the zip library btlog used looped for ever (its inflate
    /// loop never ends when the data stops short of the end of the deflate stream, and reads
    /// past its buffer). btlog's own reader checks the member's local header and range first.
    func testZipMemberThatNeverEndsIsAnError() throws {
        let started = Date()
        XCTAssertThrowsError(try {
            let reader = try CaptureInput.open(bytes: try bytes("zip", "deflate-never-ends.zip"))
            while try reader.next() != nil {}
        }()) { error in
            XCTAssertEqual("\(error)", "<memory>: a zip file that cannot be read (local header of FS/data/misc/bluetooth/logs/btsnoop_hci.log missing)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
    }

    /// Found in review, not by the short fuzz runs: a GNU base-256 size just under Int64.max
    /// overflowed when rounded up to whole 512-byte blocks (a trap). Sizes above 2^62 are now
    /// a corrupt header.
    func testTarSizeNearInt64MaxIsACorruptHeader() throws {
        XCTAssertThrowsError(try CaptureInput.open(bytes: try bytes("tar", "size-overflow.tar"))) { error in
            XCTAssertEqual("\(error)", "<memory>: tar header at byte 0 is corrupt")
        }
    }

    func testDecoderInputRoundTrip() {
        let frames = [
            Frame(number: 1, timestamp: 0, kind: .command, direction: .sent, bytes: [0x03, 0x0C, 0x00]),
            Frame(number: 2, timestamp: 0, kind: .aclData, direction: .received, controller: 2, bytes: [0x40, 0x20, 0x00, 0x00]),
        ]
        let decoded = DecoderInput.frames(from: DecoderInput.encode(frames))
        XCTAssertEqual(decoded.map(\.kind), [.command, .aclData])
        XCTAssertEqual(decoded.map(\.direction), [.sent, .received])
        XCTAssertEqual(decoded.map(\.controller), [0, 2])
        XCTAssertEqual(decoded.map { Array($0.bytes) }, frames.map { Array($0.bytes) })
        // A length past the end takes what is there.
        XCTAssertEqual(DecoderInput.frames(from: [0x01, 0xFF, 0xFF, 0x0E]).map { Array($0.bytes) }, [[0x0E]])
    }

    /// A report descriptor whose array field's logical minimum is above a value the report
    /// holds: the value selected usage index -1, and reading the usage list there trapped.
    func testHIDArrayValueBelowLogicalMinimum() throws {
        let input = try bytes("hid-descriptor", "array-index-below-logical-minimum.bin")
        XCTAssertNotNil(HIDReportInput.read(descriptor: input[2 ..< 2 + Int(input[0])], report: input[(2 + Int(input[0]))...]))
        // Logical minimum 5, usages 0x04 and 0x05 listed one by one, a value of 1: nothing selected.
        let descriptor: [UInt8] = [0x05, 0x07, 0x15, 0x05, 0x25, 0x06, 0x09, 0x04, 0x09, 0x05, 0x75, 0x08, 0x95, 0x01, 0x81, 0x00]
        XCTAssertEqual(HIDReportInput.read(descriptor: descriptor[...], report: [0x01][...]), [])
        XCTAssertEqual(HIDReportInput.read(descriptor: descriptor[...], report: [0x06][...]), ["B"])
    }

    /// The gatt-value harness reaches the profiles: its discovery declares their
    /// characteristics, so a Notification Source value decodes as ANCS, an Entity Update as AMS.
    func testGATTValueInputReachesTheProfiles() throws {
        let source = try XCTUnwrap(BTUUID("9FBF120D-6301-42D9-8C58-25E699A21DBD"))
        let update = try XCTUnwrap(BTUUID("2F7CABCE-808D-411F-9A0C-BB92BA96C102"))
        let input = GATTValueInput.encode([(source, 0x1B, [0x00, 0x02, 0x01, 0x01, 0x12, 0x00, 0x00, 0x00]),
                                           (update, 0x1B, [0x02, 0x02, 0x00, 0x41]), (update, 0x01, [0xA0])])
        let decoder = Decoder()
        let packets = GATTValueInput.frames(from: input).map { decoder.decode($0) }
        XCTAssertEqual(packets.compactMap { $0.layers.last?.name }.filter { $0 != "ATT" && $0.hasPrefix("A") }, ["ANCS", "AMS", "AMS", "AMS"], "the error record writes, then answers")
        XCTAssertEqual(packets.last?.summary, "Error: Invalid State")
    }
}
