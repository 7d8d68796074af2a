import XCTest
import BTCapture
import BTDecode
import BTFixtures
@testable import BTQuery

/// The filter language: the parser's precedence, every operator and type evaluated on decoded
/// packets of the heart-rate fixture (the expected packets found from the raw bytes, not from
/// the decoder), and every error message with its caret.
final class FilterTests: XCTestCase {
    static let frames = Scenarios.heartRateSession()
    static let packets: [Packet] = {
        let decoder = Decoder()
        return frames.map { decoder.decode($0) }
    }()

    /// The packet numbers a filter keeps, over the whole fixture.
    func numbers(_ expression: String) throws -> [Int] {
        let filter = try PacketFilter(expression)
        let context = StageContext(captureStart: Self.frames[0].timestamp)
        return Self.packets.filter { filter.matches($0, context: context) }.map(\.frame.number)
    }

    /// L2CAP PDUs reassembled from the ACL bytes by this test's own reading of the Core
    /// specification (Vol 4, Part E, 5.4.2: start and continuation fragments per handle), each
    /// at the packet that completed it: (number, CID, payload).
    static let l2capPDUs: [(number: Int, cid: UInt16, payload: [UInt8])] = {
        var pending: [UInt16: [UInt8]] = [:]
        var pdus: [(Int, UInt16, [UInt8])] = []
        for frame in frames where frame.kind == .aclData {
            let b = Array(frame.bytes)
            guard b.count >= 4 else { continue }
            let handle = UInt16(b[0]) | UInt16(b[1] & 0x0F) << 8
            let data = Array(b[4...])
            var buffer = (b[1] >> 4) & 0x3 == 0x1 ? (pending[handle] ?? []) + data : data
            pending[handle] = buffer
            guard buffer.count >= 4 else { continue }
            let length = Int(buffer[0]) | Int(buffer[1]) << 8
            if buffer.count >= length + 4 {
                buffer = Array(buffer[4 ..< 4 + length])
                pdus.append((frame.number, UInt16(pending[handle]![2]) | UInt16(pending[handle]![3]) << 8, buffer))
                pending[handle] = nil
            }
        }
        return pdus
    }()

    /// ATT PDUs (CID 0x0004): (number, opcode, parameters).
    static let attPDUs: [(number: Int, opcode: UInt8, first: [UInt8])] = l2capPDUs.compactMap { pdu in
        pdu.cid == 0x0004 && !pdu.payload.isEmpty ? (pdu.number, pdu.payload[0], Array(pdu.payload.dropFirst())) : nil
    }

    // MARK: Parsing

    func testPrecedenceAndGrouping() throws {
        func test(_ name: String) -> FilterExpression {
            let length = name.unicodeScalars.count
            return .test(FilterTest(quantifier: nil, name: name, nameSpan: 0 ..< length, relation: nil, span: 0 ..< length))
        }
        func shape(_ e: FilterExpression) -> String {
            switch e {
            case .and(let a, let b): return "(\(shape(a)) & \(shape(b)))"
            case .or(let a, let b): return "(\(shape(a)) | \(shape(b)))"
            case .not(let a): return "!\(shape(a))"
            case .test(let t): return t.name
            }
        }
        XCTAssertEqual(shape(try FilterParser.parse("a or b and c")), "(a | (b & c))")
        XCTAssertEqual(shape(try FilterParser.parse("a || b && c")), "(a | (b & c))")
        XCTAssertEqual(shape(try FilterParser.parse("not a and b")), "(!a & b)")
        XCTAssertEqual(shape(try FilterParser.parse("!(a or b) and c")), "(!(a | b) & c)")
        XCTAssertEqual(shape(try FilterParser.parse("a and b and c or d")), "(((a & b) & c) | d)")
        XCTAssertEqual(shape(try FilterParser.parse("not not a")), "!!a")
        XCTAssertEqual(shape(try FilterParser.parse("((a))")), "a")
        _ = test("a")
    }

    func testLexerReadsValuesWhole() throws {
        let words = try FilterLexer.tokens("att.value == 01:02:ff && x in {0x10..0x1f, 3} || a!=\"q \\\" r\"").map(\.kind)
        XCTAssertEqual(words, [.word("att.value"), .symbol(.equal), .word("01:02:ff"), .symbol(.and), .word("x"), .word("in"),
                               .symbol(.openBrace), .word("0x10"), .symbol(.range), .word("0x1f"), .symbol(.comma), .word("3"),
                               .symbol(.closeBrace), .symbol(.or), .word("a"), .symbol(.notEqual), .string("q \" r"), .end])
        XCTAssertEqual(try FilterLexer.tokens("a=1").map(\.kind), [.word("a"), .symbol(.equal), .word("1"), .end])
    }

    // MARK: Evaluation

    func testOpcodeComparisonsMatchTheBytes() throws {
        let writes = Self.attPDUs.filter { $0.opcode == 0x12 }.map(\.number)
        XCTAssertFalse(writes.isEmpty)
        XCTAssertEqual(try numbers("att.opcode == 0x12"), writes)
        XCTAssertEqual(try numbers("att.opcode == 18"), writes)
        XCTAssertEqual(try numbers("att.opcode == write_req"), writes)
        XCTAssertEqual(try numbers("att.opcode == write_request"), writes)
        XCTAssertEqual(try numbers("att.opcode == \"Write Request\""), writes)
        XCTAssertEqual(try numbers("att.opcode eq 0x12"), writes)
        let reads = Self.attPDUs.filter { (0x10 ... 0x11).contains($0.opcode) }.map(\.number)
        XCTAssertEqual(try numbers("att.opcode in {0x10..0x11}"), reads)
        XCTAssertEqual(try numbers("att.opcode in {0x10, 0x11}"), reads)
        XCTAssertEqual(try numbers("att.opcode >= 0x10 and att.opcode <= 0x11"), reads)
        XCTAssertEqual(try numbers("att.opcode > 0x0f && att.opcode < 0x12"), reads)
        let notifications = Self.attPDUs.filter { $0.opcode == 0x1B }.map(\.number)
        XCTAssertEqual(try numbers("att.opcode == 0x1b and att.handle == 0x000e"),
                       Self.attPDUs.filter { $0.opcode == 0x1B && $0.first.prefix(2) == [0x0E, 0x00] }.map(\.number))
        XCTAssertFalse(notifications.isEmpty)
    }

    func testExistenceNegationAndProtocols() throws {
        let all = Self.packets.map(\.frame.number)
        let att = try numbers("att")
        XCTAssertEqual(Set(try numbers("not att")), Set(all).subtracting(att))
        XCTAssertEqual(Set(try numbers("!att")), Set(all).subtracting(att))
        // ATT on the fixed channel, and on the enhanced ATT channel (PSM 0x0027) the capture opens.
        let eatt = try numbers("l2cap.psm == 0x0027 and l2cap.cid >= 0x0040")
        XCTAssertFalse(eatt.isEmpty)
        XCTAssertEqual(Set(att), Set(Self.attPDUs.map(\.number)).union(eatt.filter { n in Self.l2capPDUs.contains { $0.number == n } }))
        XCTAssertEqual(try numbers("smp"), Self.l2capPDUs.filter { $0.cid == 0x0006 }.map(\.number))
        XCTAssertEqual(try numbers("l2cap.cid == 0x0005"), Self.l2capPDUs.filter { $0.cid == 0x0005 }.map(\.number))
        let commands = Self.frames.filter { $0.kind == .command }.map(\.number)
        XCTAssertEqual(try numbers("hci.opcode"), commands)
        XCTAssertEqual(try numbers("hci.opcode and not hci.event"), commands)
    }

    func testWiresharkNotEqualAndQuantifiers() throws {
        // A Read By Group Type Response names several handles: 'any' finds one, 'all' needs every one.
        let groups = Self.attPDUs.filter { $0.opcode == 0x11 }.map(\.number)
        let first = try XCTUnwrap(groups.first)
        XCTAssertTrue(try numbers("att.opcode == 0x11 and att.handle == 0x0001").contains(first))
        XCTAssertFalse(try numbers("att.opcode == 0x11 and all att.handle == 0x0001").contains(first))
        XCTAssertTrue(try numbers("att.opcode == 0x11 and all att.handle <= 0x0015").contains(first))
        // != : the field is there and no value equals (so 0x0001 among several handles fails it).
        XCTAssertFalse(try numbers("att.opcode == 0x11 and att.handle != 0x0001").contains(first))
        XCTAssertTrue(try numbers("att.opcode == 0x11 and any att.handle != 0x0001").contains(first))
        // A packet without the field never passes a comparison, != included.
        XCTAssertTrue(Set(try numbers("att.handle != 0x0001")).isSubset(of: Set(try numbers("att.handle"))))
    }

    func testHCINamesStatusesAndAddresses() throws {
        let disconnections = Self.frames.filter { $0.kind == .event && $0.bytes.first == 0x05 }.map(\.number)
        XCTAssertFalse(disconnections.isEmpty)
        XCTAssertEqual(try numbers("hci.event == disconnection_complete"), disconnections)
        XCTAssertEqual(try numbers("hci.event == disc_compl"), disconnections)
        XCTAssertEqual(FieldValueNames.resolve("connection_timeout", for: HCIFields.status), .value(0x08))
        XCTAssertEqual(FieldValueNames.resolve("Connection Timeout", for: HCIFields.reason), .value(0x08))
        let scanEnable = Self.frames.filter { $0.kind == .command && Array($0.bytes.prefix(2)) == [0x0C, 0x20] }.map(\.number)
        XCTAssertEqual(try numbers("hci.opcode == 0x200c"), scanEnable)
        XCTAssertEqual(try numbers("hci.opcode == le_set_scan_enable"), scanEnable)
        let sensor = try numbers("address == \(Scenarios.sensor)")
        XCTAssertFalse(sensor.isEmpty)
        XCTAssertEqual(sensor, try numbers("address == \(Scenarios.sensor.lowercased())"))
        XCTAssertEqual(try numbers("handle == 0x40"), Self.packets.filter { $0.handle == 0x40 }.map(\.frame.number))
        XCTAssertEqual(try numbers("handle == 64"), try numbers("handle == 0x0040"))
    }

    func testBytesTextAndUUIDs() throws {
        // The CCCD write enabling notifications: value 01 00.
        let cccdWrites = Self.attPDUs.filter { $0.opcode == 0x12 && $0.first.dropFirst(2) == [0x01, 0x00] }.map(\.number)
        XCTAssertFalse(cccdWrites.isEmpty)
        XCTAssertEqual(try numbers("att.opcode == 0x12 and att.value == 01:00"), cccdWrites)
        XCTAssertEqual(try numbers("att.opcode == 0x12 and att.value == 0100"), cccdWrites)
        XCTAssertTrue(Set(cccdWrites).isSubset(of: Set(try numbers("att.value contains 01"))))
        // 16-bit and 128-bit forms of a UUID are one.
        let short = try numbers("att.uuid == 2800")
        XCTAssertFalse(short.isEmpty)
        XCTAssertEqual(short, try numbers("att.uuid == 0x2800"))
        XCTAssertEqual(short, try numbers("att.uuid == 00002800-0000-1000-8000-00805f9b34fb"))
        // Text: contains is case-sensitive, matches takes a regular expression ((?i) ignores case).
        XCTAssertFalse(try numbers("adv.name contains \"HRM\"").isEmpty)
        XCTAssertTrue(try numbers("adv.name contains \"hrm\"").isEmpty)
        XCTAssertEqual(try numbers("adv.name matches \"^HRM-[0-9]+$\""), try numbers("adv.name contains \"HRM\""))
        XCTAssertEqual(try numbers("adv.name matches \"(?i)^hrm\""), try numbers("adv.name ~ \"HRM\""))
    }

    func testPacketTerms() throws {
        let sent = Self.frames.filter { $0.direction == .sent }.map(\.number)
        XCTAssertEqual(try numbers("direction == sent"), sent)
        XCTAssertEqual(try numbers("direction == tx"), sent)
        XCTAssertEqual(try numbers("direction != sent"), Self.frames.filter { $0.direction == .received }.map(\.number))
        XCTAssertEqual(try numbers("number in {3..5 9}"), [3, 4, 5, 9])
        XCTAssertEqual(try numbers("number > 2 and number <= 4"), [3, 4])
        let start = Self.frames[0].timestamp
        let late = Self.frames.filter { $0.timestamp - start > 2_500_000 }.map(\.number)
        XCTAssertEqual(try numbers("reltime > 2.5"), late)
        // The capture's day in local time, the way the time column prints it.
        let first = Self.frames[0].timestamp
        var seconds = time_t(first / 1_000_000)
        var parts = tm()
        localtime_r(&seconds, &parts)
        let clock = String(format: "%02d:%02d:%02d", parts.tm_hour, parts.tm_min, parts.tm_sec)
        XCTAssertEqual(try numbers("time >= \"\(clock)\""), Self.frames.map(\.number))
        XCTAssertEqual(try numbers("time < \"\(clock)\""), [])
        XCTAssertEqual(try numbers("time >= \(first / 1_000_000 + 3)"), Self.frames.filter { $0.timestamp >= (first / 1_000_000 + 3) * 1_000_000 }.map(\.number))
        let errors = Self.packets.filter(\.hasError).map(\.frame.number)
        XCTAssertFalse(errors.isEmpty)
        XCTAssertEqual(try numbers("error"), errors)
        XCTAssertEqual(try numbers("error contains \"Attribute Not Found\""),
                       Self.packets.filter { $0.issues.contains { $0.severity == .error && $0.message.contains("Attribute Not Found") } }.map(\.frame.number))
        XCTAssertEqual(try numbers("flagged"), [])
        XCTAssertEqual(try numbers("controller == 0"), Self.packets.filter { $0.frame.controller == 0 }.map(\.frame.number))
    }

    func testQuickFilters() throws {
        var quick = QuickFilters()
        quick.types = ["cmd", "smp"]
        let filter = try XCTUnwrap(try quick.filter())
        let kept = Self.packets.filter { filter.matches($0) }.map(\.frame.number)
        XCTAssertEqual(Set(kept), Set(try numbers("hci.opcode or smp")))
        quick = QuickFilters()
        quick.hidden = [.adv]
        let hide = try XCTUnwrap(try quick.filter())
        XCTAssertEqual(Self.packets.filter { !hide.matches($0) }.map(\.frame.number), try numbers("hci.subevent == 0x02"))
        quick = QuickFilters()
        quick.handles = [0x41]
        quick.errorsOnly = true
        let both = try XCTUnwrap(try quick.filter())
        XCTAssertEqual(Self.packets.filter { both.matches($0) }.map(\.frame.number), try numbers("handle == 0x41 and error"))
        quick = QuickFilters()
        quick.types = ["nonsense"]
        XCTAssertThrowsError(try quick.filter())
    }

    // MARK: Errors

    /// `part`: the text the caret should underline (its first occurrence, or its last with `last`).
    func assertError(_ expression: String, _ message: String, at part: String, last: Bool = false,
                     file: StaticString = #filePath, line: UInt = #line) {
        let scalars = Array(expression.unicodeScalars), wanted = Array(part.unicodeScalars)
        let starts = scalars.indices.filter { Array(scalars[$0...].prefix(wanted.count)) == wanted }
        let start = (last ? starts.last : starts.first) ?? 0
        let caret = String(repeating: " ", count: start) + "^" + String(repeating: "~", count: max(1, wanted.count) - 1)
        XCTAssertThrowsError(try PacketFilter(expression), file: file, line: line) { error in
            guard let error = error as? FilterError else { return XCTFail("\(error)", file: file, line: line) }
            XCTAssertEqual(error.message, message, file: file, line: line)
            XCTAssertEqual(error.pointer, "  \(expression)\n  \(caret)", file: file, line: line)
        }
    }

    func testErrorsPointAtTheColumn() {
        assertError("att.opcod == 1", "unknown field 'att.opcod' (did you mean att.opcode?)", at: "att.opcod")
        assertError("att.handle contains \"x\"", "'contains' looks inside text and byte strings; att.handle is a 16-bit number",
                    at: "att.handle contains \"x\"")
        assertError("att.opcode == write_rq", "'write_rq' is not a value of att.opcode: give a number or a name ('btlog fields att.opcode --values' lists them)",
                    at: "write_rq")
        assertError("att.opcode == 300", "300 does not fit att.opcode, an 8-bit number", at: "300")
        assertError("att.handle == xyz", "att.handle takes a number (decimal or 0x hex), not 'xyz'", at: "xyz")
        assertError("(att and smp", "'(' at column 1 is not closed", at: "(")
        assertError("att and smp)", "')' without a matching '('", at: ")")
        assertError("att.opcode ==", "a value is missing after '=='", at: "=", last: true)
        assertError("att.opcode == 1 smp", "expected 'and', 'or' or the end of the filter, not 'smp'", at: "smp")
        assertError("adv.name matches \"(\"", "bad regular expression: missing closing parenthesis", at: "\"", last: true)
        assertError("", "the filter is empty", at: "")
        assertError("att.opcode in {0x12..0x10}", "the range runs backwards (0x12 is above 0x10)", at: "0x12..0x10")
        assertError("adv.name == \"x", "the string has no closing quote", at: "\"x")
        assertError("att == 1", "'att' is a protocol, which is there or not: compare one of its fields ('btlog fields att' lists them)", at: "att")
        assertError("att.value < 01", "'<' compares numbers and times; att.value is a byte string", at: "att.value < 01")
        assertError("att & smp", "unexpected '&': write && (or and)", at: "&")
        assertError("direction == up", "direction takes sent or received, not 'up'", at: "up")
        assertError("smp.code == pairing_r", "'pairing_r' could be pairing_request (0x01), pairing_response (0x02), pairing_random (0x04): say which",
                    at: "pairing_r")
        assertError("flagged == 1", "'flagged' stands alone: flagged, or not flagged", at: "flagged == 1")
        assertError("and att", "expected a field or protocol name before 'and'", at: "and")
        assertError("att.opcode in {1 2", "the set that starts here is not closed with '}'", at: "{")
        assertError("all att", "'all' and 'any' need a comparison after the field", at: "all att")
        assertError("att.uuid == zz", "att.uuid takes a UUID such as 180D or 0000180d-0000-1000-8000-00805f9b34fb, not 'zz'", at: "zz")
        assertError("reltime > soon", "reltime takes seconds since the first packet, such as 12.5, not 'soon'", at: "soon")
        assertError("time > \"25:00\"", "time takes a time such as \"23:04:39.8\", \"2019-05-08 23:04:39\" or seconds since the epoch, not '25:00'", at: "\"25:00\"")
    }

    func testErrorDescriptionIsWhatTheCommandPrints() {
        XCTAssertThrowsError(try PacketFilter("att.opcod == 1")) { error in
            XCTAssertEqual("\(error)", "filter: att.opcod == 1: unknown field 'att.opcod' (did you mean att.opcode?)\n  att.opcod == 1\n  ^~~~~~~~~")
        }
    }

    static func regexMessage(_ pattern: String) -> String {
        do { _ = try TextPattern(pattern); return "" } catch { return (error as! TextPattern.CompileError).message }
    }
}
