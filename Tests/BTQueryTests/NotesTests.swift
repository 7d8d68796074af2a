import XCTest
import BTCapture
import Foundation
@testable import BTQuery

/// The notes file: what is written reads back the same, strings of every kind stay valid JSON,
/// and what is not a notes file is refused with a reason.
final class NotesTests: XCTestCase {
    func testRoundTripWithEveryKindOfString() throws {
        let hostile = "quote \" backslash \\ newline \n tab \t nul \u{0} bell \u{7} del \u{7F} ls \u{2028} é ⚑ 👍"
        var document = NotesDocument(capture: "odd \"name\".btsnoop")
        let print = PacketFingerprint(timestamp: 1_557_360_268_123_456, digest: 0x0123_4567_89AB_CDEF)
        document.notes[7] = PacketNote(packet: 7, fingerprint: print, comment: hostile, flagged: true)
        document.notes[3] = PacketNote(packet: 3, fingerprint: PacketFingerprint(timestamp: -5, digest: 0), comment: nil, flagged: true)
        let data = document.serialized()
        XCTAssertNoThrow(try JSONSerialization.jsonObject(with: data))
        XCTAssertEqual(try NotesDocument.parse(data), document)
        let text = String(decoding: data, as: UTF8.self)
        XCTAssertTrue(text.contains("\"bytes\": \"fnv1a64:0123456789abcdef\""), text)
        XCTAssertLessThan(text.range(of: "\"packet\": 3")!.lowerBound, text.range(of: "\"packet\": 7")!.lowerBound)
    }

    func testFingerprintIsFNV1aOfTheBytes() {
        // FNV-1a 64 reference values: "" and "a".
        XCTAssertEqual(PacketFingerprint(Frame(number: 1, timestamp: 0, kind: .command, direction: .sent, bytes: [])).digest, 0xCBF2_9CE4_8422_2325)
        XCTAssertEqual(PacketFingerprint(Frame(number: 1, timestamp: 0, kind: .command, direction: .sent, bytes: [0x61])).digest, 0xAF63_DC4C_8601_EC8C)
    }

    func testWhatIsNotANotesFileIsRefused() {
        let cases: [(String, String)] = [
            ("[1, 2]", "not a JSON object"), ("{\"format\": \"other\"}", "not a btlog notes file"),
            ("{\"format\": \"btlog-notes\", \"version\": 2, \"notes\": []}", "version 2"),
            ("{\"format\": \"btlog-notes\", \"version\": 1}", "no notes array"),
            ("{\"format\": \"btlog-notes\", \"version\": 1, \"notes\": [{\"packet\": 0}]}", "no packet number"),
            ("{\"format\": \"btlog-notes\", \"version\": 1, \"notes\": [{\"packet\": 2, \"time_us\": 1}]}", "no bytes fingerprint"),
            ("{\"format\": \"btlog-notes\", \"version\": 1, \"notes\": [{\"packet\": 2, \"time_us\": 1, \"bytes\": \"fnv1a64:0000000000000000\", \"comment\": 5}]}", "comment is not a string"),
            ("{\"format\": \"btlog-notes\", \"version\": 1, \"notes\": [{\"packet\": 2, \"time_us\": 1, \"bytes\": \"fnv1a64:0000000000000000\"}, {\"packet\": 2, \"time_us\": 1, \"bytes\": \"fnv1a64:0000000000000000\"}]}", "two notes on packet 2"),
            ("{\"format", "not JSON"),
        ]
        for (text, reason) in cases {
            XCTAssertThrowsError(try NotesDocument.parse(Data(text.utf8)), text) { error in
                XCTAssertTrue("\(error)".contains(reason), "\(text): \(error)")
            }
        }
    }
}
