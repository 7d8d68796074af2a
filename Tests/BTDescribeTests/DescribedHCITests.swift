import XCTest
import BTCapture
import BTDecode
@testable import BTDescribe
import BTQuery

/// Vendor HCI commands and the vendor event described in a file: the bytes are laid out here by
/// hand from the Core specification's packet formats (Vol 4, Part E, 5.4.1 command: opcode,
/// length, parameters; 5.4.4 event: code, length, parameters; 7.7.14 Command Complete: number
/// of packets, opcode, return parameters; 7.7.15 Command Status), and on the Broadcom and Intel
/// fixtures, whose undocumented opcode and event a description names.
final class DescribedHCITests: XCTestCase {
    static let description = """
    btlog-protocol: 1
    name: Acme Coex
    key: coex
    hci:
      - command: 0xFCAA
        name: Acme Set Coex Mode
        message: mode
        returns: mode_status
      - command: 0xFC4C
        name: Acme Write RAM
      - event: 0xFF
        prefix: "42"
        message: trace
    messages:
      mode:
        fields:
          - {name: mode, type: u8, values: {0: off, 1: wlan-priority, 2: bt-priority}}
          - {name: window, type: u16, unit: slots}
      mode_status:
        fields:
          - {name: active, type: u8, values: {0: off, 1: wlan-priority, 2: bt-priority}}
      trace:
        fields:
          - {name: code, type: u8}
          - {name: level, type: u8}
          - {name: text, type: string, length: rest}
    """

    func decoder(_ text: String = description) throws -> Decoder {
        var library = ProtocolLibrary()
        try library.add(try ProtocolDescriptionReader.parse(text, source: "coex.yaml"))
        FieldRegistry.register(library.protocols)
        var options = DecodeOptions()
        options.describe(library.protocols)
        return Decoder(options: options)
    }

    func values(_ packet: Packet, _ name: String) -> [String] {
        packet.layers.flatMap(\.fieldCopies).filter { $0.definition.name == name }.map(\.text)
    }

    func testCommandItsCompleteAndStatusByTheDescription() throws {
        let decoder = try decoder()
        // Set Coex Mode: opcode 0xFCAA little-endian, 3 bytes: mode 2, window 0x0120 = 288.
        let command = decoder.decode(Frame(number: 1, timestamp: 0, kind: .command, direction: .sent, bytes: [0xAA, 0xFC, 0x03, 0x02, 0x20, 0x01]))
        XCTAssertEqual(command.layers.map(\.summary.description), ["Acme Set Coex Mode", "Acme Coex Mode - mode bt-priority - window 288 slots"])
        XCTAssertEqual(values(command, "hci.opcode"), ["Acme Set Coex Mode (0xFCAA)"])
        XCTAssertEqual(values(command, "coex.mode.window"), ["288 slots"])
        XCTAssertEqual(command.layers[1].fields.map { $0.range! }, [3 ..< 4, 4 ..< 6])
        XCTAssertTrue(command.issues.isEmpty, "\(command.issues)")

        // Command Complete: 1 packet, opcode, status 0, active 1.
        let complete = decoder.decode(Frame(number: 2, timestamp: 1, kind: .event, direction: .received, bytes: [0x0E, 0x05, 0x01, 0xAA, 0xFC, 0x00, 0x01]))
        XCTAssertEqual(complete.layers.map(\.summary.description), ["Command Complete: Acme Set Coex Mode", "Acme Coex Mode status - active wlan-priority"])
        XCTAssertEqual(values(complete, "hci.status"), ["Success (0x00)"])
        XCTAssertEqual(complete.layers[1].fields.map { $0.range! }, [6 ..< 7])

        // A failed one: the status says so, and its bytes are no return parameters.
        let failed = decoder.decode(Frame(number: 3, timestamp: 2, kind: .event, direction: .received, bytes: [0x0E, 0x05, 0x01, 0xAA, 0xFC, 0x0C, 0x07]))
        XCTAssertEqual(failed.layers.map(\.kind), [.hciEvent])
        XCTAssertEqual(values(failed, "hci.parameters"), ["07"])
        XCTAssertTrue(values(failed, "hci.status")[0].contains("0x0C"))

        // Command Status names it too.
        let status = decoder.decode(Frame(number: 4, timestamp: 3, kind: .event, direction: .received, bytes: [0x0F, 0x04, 0x00, 0x01, 0xAA, 0xFC]))
        XCTAssertTrue(status.summary.contains("Acme Set Coex Mode"), status.summary)

        // A command named but not laid out: its name, and its parameters as bytes.
        let named = decoder.decode(Frame(number: 5, timestamp: 4, kind: .command, direction: .sent, bytes: [0x4C, 0xFC, 0x02, 0x12, 0x34]))
        XCTAssertEqual(named.layers.map(\.summary.description), ["Acme Write RAM"])
        XCTAssertEqual(values(named, "hci.parameters"), ["12 34"])

        // 0xFC4C is also Broadcom's firmware download (Write RAM): the controller is still taken
        // to be Broadcom's from it, so an opcode the file does not name is Broadcom's (0xFC01,
        // Write BD ADDR), untouched by the description.
        XCTAssertTrue(named.issues.contains { $0.message.contains("taken to be Broadcom") }, "\(named.issues)")
        let other = decoder.decode(Frame(number: 6, timestamp: 5, kind: .command, direction: .sent, bytes: [0x01, 0xFC, 0x06, 1, 2, 3, 4, 5, 6]))
        XCTAssertEqual(other.summary.prefix(13), "Write BD ADDR")
        XCTAssertFalse(other.layers.contains { $0.fields.contains { $0.definition.name.hasPrefix("coex.") } })
    }

    func testVendorEventByItsPrefix() throws {
        let decoder = try decoder()
        // Vendor event 0xFF, 5 bytes: 0x42 (the prefix, the code), level 3, "ok!".
        let event = decoder.decode(Frame(number: 1, timestamp: 0, kind: .event, direction: .received, bytes: [0xFF, 0x05, 0x42, 0x03, 0x6F, 0x6B, 0x21]))
        XCTAssertEqual(event.layers.map(\.kind).count, 2)
        XCTAssertEqual(event.summary, "Acme Coex Trace - code 66 - level 3 - text \"ok!\"")
        XCTAssertEqual(values(event, "coex.trace.text"), ["ok!"])
        XCTAssertEqual(event.layers[1].fields.map { $0.range! }, [2 ..< 3, 3 ..< 4, 4 ..< 7])
        // Another prefix stays the vendor's (unknown here: bytes on the HCI layer).
        let other = decoder.decode(Frame(number: 2, timestamp: 1, kind: .event, direction: .received, bytes: [0xFF, 0x02, 0x43, 0x00]))
        XCTAssertEqual(other.layers.map(\.kind), [.hciEvent])
        XCTAssertEqual(values(other, "hci.parameters"), ["43 00"])
    }

    /// The Broadcom fixture's undocumented 0xFCAA and the Intel fixture's undocumented event
    /// 0x42: named and laid out by the description, with the filter, and a description wins
    /// over btlog's own table (0xFC4C is Broadcom's Write RAM; the file renames it).
    func testFixturesUndocumentedOpcodeAndEvent() throws {
        let root = DescribedProtocolTests.root.appendingPathComponent("Fixtures")
        func decodeAll(_ file: String) throws -> [Packet] {
            let decoder = try decoder()
            let reader = try CaptureInput.open(root.appendingPathComponent(file).path)
            var packets: [Packet] = []
            while let frame = try reader.next() { packets.append(decoder.decode(frame)) }
            return packets
        }
        let broadcom = try decodeAll("broadcom-firmware.btsnoop")
        let undocumented = broadcom.filter { $0.frame.bytes.starts(with: [0xAA, 0xFC]) }
        XCTAssertEqual(undocumented.count, 1)
        XCTAssertEqual(undocumented[0].layers.map(\.summary.description)[0], "Acme Set Coex Mode")
        // Its first parameter byte is the mode, read from the frame itself.
        let mode = Array(undocumented[0].frame.bytes)[3]
        XCTAssertEqual(undocumented[0].layers[1].fieldCopies.first?.value.integer, Int(mode))
        let writeRAM = broadcom.filter { $0.frame.bytes.starts(with: [0x4C, 0xFC]) }
        XCTAssertEqual(writeRAM.count, 12)
        XCTAssertTrue(writeRAM.allSatisfy { $0.summary == "Acme Write RAM" })

        let filter = try PacketFilter("coex.mode.mode")
        XCTAssertEqual(broadcom.filter { filter.matches($0) }.count, 1)

        let intel = try decodeAll("intel-boot.btsnoop")
        let traces = intel.filter { Array($0.frame.bytes).starts(with: [0xFF]) && Array($0.frame.bytes).dropFirst(2).first == 0x42 }
        XCTAssertEqual(traces.count, 1)
        XCTAssertEqual(traces[0].layers.last?.fieldCopies.first?.value.integer, 0x42)
        // Intel's own events (0x01, fatal exception) are still Intel's.
        XCTAssertTrue(intel.contains { $0.summary.hasPrefix("Fatal Exception") })
    }

    func testErrorsAndConflicts() throws {
        func assertError(_ hci: String, _ expected: String, line: UInt = #line) {
            let text = "btlog-protocol: 1\nname: X\nhci:\n\(hci)\nmessages:\n  m:\n    fields: [{name: a, type: u8}]\n"
            XCTAssertThrowsError(try ProtocolDescriptionReader.parse(text, source: "x.yaml"), line: line) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(error)", line: line)
            }
        }
        assertError("  - {command: 0x0C03, name: Reset, message: m}", "0x0C03 is not a vendor command")
        assertError("  - {command: 0xFC01, message: m}", "needs its 'name'")
        assertError("  - {event: 0x3E, message: m}", "only the vendor event, 0xFF")
        assertError("  - {event: 0xFF}", "'message'")
        assertError("  - {message: m}", "needs 'command'")
        assertError("  - {command: 0xFC01, name: A, message: n}", "no message 'n'")

        func parse(_ name: String, _ hci: String) throws -> DescribedProtocol {
            try ProtocolDescriptionReader.parse("btlog-protocol: 1\nname: \(name)\nhci:\n\(hci)\nmessages:\n  m:\n    fields: []\n", source: "\(name).yaml")
        }
        var set = DescribedProtocols()
        try set.add(try parse("one", "  - {command: 0xFC01, name: A, message: m}\n  - {event: 0xFF, prefix: '01 02', message: m}"))
        XCTAssertThrowsError(try set.add(try parse("two", "  - {command: 0xFC01, name: B}"))) { error in
            XCTAssertEqual("\(error)", "two.yaml:4:5: HCI command 0xFC01 is named by both two and one (one.yaml:4:5)")
        }
        XCTAssertThrowsError(try set.add(try parse("three", "  - {event: 0xFF, prefix: '01', message: m}"))) { error in
            XCTAssertTrue("\(error)".contains("overlaps HCI vendor event starting 01 02, claimed by one"), "\(error)")
        }
        XCTAssertNoThrow(try set.add(try parse("four", "  - {event: 0xFF, prefix: '02', message: m}")))
    }
}
