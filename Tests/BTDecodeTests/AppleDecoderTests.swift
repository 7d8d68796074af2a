import XCTest
import BTCapture
@testable import BTDecode

/// ANCS and AMS on bytes laid out from Apple's specifications (Wireshark 4.0 decodes neither,
/// so there is no reference tool to compare with), and Apple's advertising messages.
final class AppleDecoderTests: XCTestCase {
    var decoder = Decoder()
    var number = 0
    static let link: UInt16 = 0x0048

    @discardableResult
    func feed(_ kind: FrameKind, _ direction: Direction, _ bytes: [UInt8]) -> Packet {
        number += 1
        return decoder.decode(Frame(number: number, timestamp: Int64(number) * 1000, kind: kind, direction: direction, bytes: bytes))
    }

    @discardableResult
    func att(_ pdu: [UInt8], sent: Bool) -> Packet {
        let l2cap = [UInt8(pdu.count & 0xFF), UInt8(pdu.count >> 8), 0x04, 0x00] + pdu
        return feed(.aclData, sent ? .sent : .received, [0x48, 0x20, UInt8(l2cap.count & 0xFF), UInt8(l2cap.count >> 8)] + l2cap)
    }

    /// A 128-bit UUID in the order it is written.
    static func bigEndian(_ text: String) -> [UInt8] {
        let hex = Array(text.filter { $0 != "-" })
        return stride(from: 0, to: hex.count, by: 2).map { UInt8(String(hex[$0 ..< $0 + 2]), radix: 16)! }
    }

    /// A 128-bit UUID as ATT carries it (little-endian).
    static func uuid(_ text: String) -> [UInt8] { bigEndian(text).reversed() }

    func values(_ packet: Packet, _ field: FieldDefinition) -> [String] {
        packet.layers.flatMap { $0.fieldCopies.filter { $0.definition == field }.map(\.value.text) }
    }

    /// An LE link to an iPhone whose discovery showed ANCS's three characteristics (value
    /// handles 0x0022 Notification Source, 0x0025 Control Point, 0x0027 Data Source) and
    /// AMS's (0x0032 Remote Command, 0x0035 Entity Update, 0x0038 Entity Attribute).
    override func setUp() {
        decoder = Decoder()
        number = 0
        feed(.event, .received, [0x3E, 0x13, 0x01, 0x00, 0x48, 0x00, 0x00, 0x00, 0x33, 0x22, 0x11, 0xE6, 0xF7, 0x5C, 0x18, 0x00, 0x00, 0x00,
                                 0x48, 0x00, 0x00])
        att([0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28], sent: true)
        att([0x11, 0x14, 0x20, 0x00, 0x28, 0x00] + Self.uuid("7905F431-B5CE-4E99-A40F-4B1E122D00D0"), sent: false)
        for (declaration, properties, uuid) in [(0x21, 0x10, "9FBF120D-6301-42D9-8C58-25E699A21DBD"), (0x24, 0x08, "69D1D8F3-45E1-49A8-9821-9BBDFDAAD9D9"),
                                                (0x26, 0x10, "22EAC6E9-24D6-4BB5-BE44-B36ACE7C7BFB"), (0x31, 0x18, "9B3C81D8-57B1-4A8A-B8DF-0E56F7CA51C2"),
                                                (0x34, 0x18, "2F7CABCE-808D-411F-9A0C-BB92BA96C102"), (0x37, 0x0A, "C6B2F38C-23AB-46D8-A6AB-A3A870BBD5D7")] {
            att([0x08, UInt8(declaration), 0x00, 0x40, 0x00, 0x03, 0x28], sent: true)
            att([0x09, 0x15, UInt8(declaration), 0x00, UInt8(properties), UInt8(declaration + 1), 0x00] + Self.uuid(uuid), sent: false)
        }
    }

    func testNotificationSource() {
        // EventID Added, EventFlags Important, CategoryID Incoming Call, CategoryCount 1, NotificationUID 0x12.
        let added = att([0x1B, 0x22, 0x00, 0x00, 0x02, 0x01, 0x01, 0x12, 0x00, 0x00, 0x00], sent: false)
        XCTAssertEqual(added.typeLabel, "ANCS Receive")
        XCTAssertEqual(added.summary, "Notification Added - Incoming Call (1 in category) - UID 0x00000012 - Important")
        XCTAssertEqual(values(added, ANCSFields.event), ["0x00"])
        XCTAssertEqual(values(added, ANCSFields.category), ["1"])
        XCTAssertEqual(values(added, ANCSFields.uid), ["0x00000012"])
        XCTAssertEqual(added.layers.map(\.name).suffix(2), ["ATT", "ANCS"])
        let removed = att([0x1B, 0x22, 0x00, 0x02, 0x18, 0x0B, 0x00, 0x07, 0x00, 0x00, 0x00], sent: false)
        XCTAssertEqual(removed.summary, "Notification Removed - Entertainment (0 in category) - UID 0x00000007 - Positive Action, Negative Action")
        // Cut short: malformed, not a crash.
        XCTAssertEqual(att([0x1B, 0x22, 0x00, 0x00, 0x02], sent: false).worstSeverity, .error)
    }

    /// Get Notification Attributes, then its answer over three notifications: the answer is
    /// complete when every attribute asked for has come (ANCS, "Retrieving Notification Attributes").
    func testDataSourceAnswerIsJoined() {
        let ask = att([0x12, 0x25, 0x00, 0x00, 0x12, 0x00, 0x00, 0x00, 0x00, 0x01, 0x20, 0x00, 0x03, 0x40, 0x00], sent: true)
        XCTAssertEqual(ask.summary, "Get Notification Attributes - UID 0x00000012 - App Identifier, Title (32), Message (64)")
        XCTAssertEqual(values(ask, ANCSFields.maxLength), ["32", "64"])
        let answer: [UInt8] = [0x00, 0x12, 0x00, 0x00, 0x00, 0x00, 0x09, 0x00] + Array("com.x.app".utf8)
            + [0x01, 0x05, 0x00] + Array("Hello".utf8) + [0x03, 0x0B, 0x00] + Array("How are you".utf8)
        let first = att([0x1B, 0x27, 0x00] + answer[0 ..< 10], sent: false)
        XCTAssertEqual(first.summary, "Data Source: part 1 of an answer, more to come")
        // Ends exactly after Title: parseable, but Message has not come yet.
        let second = att([0x1B, 0x27, 0x00] + answer[10 ..< 25], sent: false)
        XCTAssertEqual(second.summary, "Data Source: part 2 of an answer, more to come")
        let last = att([0x1B, 0x27, 0x00] + answer[25...], sent: false)
        XCTAssertEqual(last.summary,
                       "Get Notification Attributes Answer - UID 0x00000012 - App Identifier \"com.x.app\" - Title \"Hello\" - Message \"How are you\" (joined from 3 notifications)")
        XCTAssertEqual(values(last, ANCSFields.value), ["com.x.app", "Hello", "How are you"])
        XCTAssertNil(last.worstSeverity)
    }

    func testControlPointCommandsAndErrors() {
        let action = att([0x12, 0x25, 0x00, 0x02, 0x12, 0x00, 0x00, 0x00, 0x01], sent: true)
        XCTAssertEqual(action.summary, "Perform Notification Action - UID 0x00000012 - Negative")
        let app = att([0x12, 0x25, 0x00, 0x01] + Array("com.apple.mobilephone".utf8) + [0x00, 0x00], sent: true)
        XCTAssertEqual(app.summary, "Get App Attributes - com.apple.mobilephone")
        XCTAssertEqual(values(app, ANCSFields.appIdentifier), ["com.apple.mobilephone"])
        // An identifier without its NUL is malformed.
        XCTAssertEqual(att([0x12, 0x25, 0x00, 0x01, 0x41, 0x42], sent: true).worstSeverity, .error)
        // Error Response to a Control Point write: ANCS's own code, named, an error.
        let refused = att([0x01, 0x12, 0x25, 0x00, 0xA1], sent: false)
        XCTAssertEqual(refused.summary, "Error: Invalid Command")
        XCTAssertEqual(values(refused, ANCSFields.error), ["0xA1"])
        XCTAssertEqual(refused.worstSeverity, .error)
        XCTAssertEqual(refused.issues.count, 1, "the ATT layer leaves the error to ANCS")
    }

    func testAMSEntitiesAndCommands() {
        let supported = att([0x1B, 0x32, 0x00, 0x00, 0x01, 0x02, 0x0B], sent: false)
        XCTAssertEqual(supported.summary, "Supported Commands: Play, Pause, Toggle Play/Pause, Like Track")
        let command = att([0x12, 0x32, 0x00, 0x03], sent: true)
        XCTAssertEqual(command.summary, "Remote Command: Next Track")
        XCTAssertEqual(values(command, AMSFields.command), ["3"])
        // Entity Update notification: Player, PlaybackInfo "1,1.0,12.5"; Track Duration; a truncated Title.
        XCTAssertEqual(att([0x1B, 0x35, 0x00, 0x00, 0x01, 0x00] + Array("1,1.0,12.5".utf8), sent: false).summary,
                       "Entity Update: Player Playback Info = Playing, rate 1.0, 12.5 s elapsed")
        XCTAssertEqual(att([0x1B, 0x35, 0x00, 0x02, 0x03, 0x00] + Array("245.1".utf8), sent: false).summary,
                       "Entity Update: Track Duration = 4:05")
        let title = att([0x1B, 0x35, 0x00, 0x02, 0x02, 0x01] + Array("A very long".utf8), sent: false)
        XCTAssertEqual(title.summary, "Entity Update: Track Title = \"A very long\" (truncated)")
        XCTAssertEqual(values(title, AMSFields.truncated), ["1"])
        XCTAssertEqual(att([0x12, 0x35, 0x00, 0x01, 0x00, 0x01], sent: true).summary, "Entity Update: subscribe to Queue Index, Count")
        XCTAssertEqual(att([0x01, 0x12, 0x32, 0x00, 0xA0], sent: false).summary, "Error: Invalid State")
    }

    func testContinuityMessages() {
        var layer = Layer(kind: LayerKind(named: "Advertising Data"), range: 0 ..< 0, source: .frame, showsDirection: false, keepsDisplays: true)
        // Nearby Info (action 7: active user) then an iBeacon in one manufacturer data.
        let data: [UInt8] = [0x10, 0x02, 0x07, 0x00, 0x02, 0x15] + Self.bigEndian("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")
            + [0x00, 0x01, 0x00, 0x02, 0xC5]
        XCTAssertEqual(AppleAdvertising.decode(data[...], &layer),
                       "Nearby Info: Active User - 2 bytes; iBeacon E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 Major: 1 Minor: 2 Measured Power: -59 dBm")
        XCTAssertEqual(layer.fieldCopies.filter { $0.definition == AppleFields.type }.map(\.value.text), ["0x10", "0x02"])
        XCTAssertEqual(layer.fieldCopies.first { $0.definition == AppleFields.major }?.value.text, "1")
        // A type nobody has documented: named by number, bytes kept, nothing guessed.
        var other = Layer(kind: LayerKind(named: "Advertising Data"), range: 0 ..< 0, source: .frame, showsDirection: false, keepsDisplays: true)
        XCTAssertEqual(AppleAdvertising.decode([0x16, 0x02, 0xAB, 0xCD][...], &other), "Type 0x16 (2 bytes)")
        XCTAssertEqual(other.fieldCopies.first { $0.definition == AppleFields.data }?.value.text, "ABCD")
        XCTAssertTrue(other.issues.isEmpty)
        // A length past the end.
        var cut = Layer(kind: LayerKind(named: "Advertising Data"), range: 0 ..< 0, source: .frame, showsDirection: false, keepsDisplays: true)
        _ = AppleAdvertising.decode([0x07, 0x19, 0x01, 0x0E][...], &cut)
        XCTAssertEqual(cut.issues.count, 1)
    }
}

/// ByteNames answers as the dictionary it replaces did: every code named, every other nil.
final class ByteNamesTests: XCTestCase {
    func testEveryCodeAsADictionaryWouldAnswer() {
        let pairs: [(UInt8, String)] = [(0x00, "zero"), (0x01, "Flags"), (0x7F, "middle"), (0xFF, "Manufacturer Specific Data")]
        let names: ByteNames = [0x00: "zero", 0x01: "Flags", 0x7F: "middle", 0xFF: "Manufacturer Specific Data"]
        let reference = Dictionary(uniqueKeysWithValues: pairs)
        for code in UInt8.min ... UInt8.max { XCTAssertEqual(names[code], reference[code], "code \(code)") }
        // The tables in use, through their readers: AD type names, Apple message types.
        XCTAssertEqual(AdvertisingData.typeNames[0xFF], "Manufacturer Specific Data")
        XCTAssertNil(AdvertisingData.typeNames[0xFE])
        XCTAssertEqual(AppleAdvertising.types[0x02], "iBeacon")
    }
}
