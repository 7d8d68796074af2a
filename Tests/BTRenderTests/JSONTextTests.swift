import XCTest
import Foundation
import BTCapture
@testable import BTRender

/// The JSON writer's escaping and times, checked against Foundation's JSON parser and libc's gmtime.
final class JSONTextTests: XCTestCase {
    func json(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        bytes.withUnsafeBufferPointer { JSONText.appendString(utf8: $0, to: &out) }
        return String(decoding: out, as: UTF8.self)
    }

    /// The string Foundation reads from a JSON string literal (it throws on invalid JSON).
    func parsed(_ text: String) throws -> String? {
        (try JSONSerialization.jsonObject(with: Data("[\(text)]".utf8)) as? [String])?.first
    }

    func testEscapesAndInvalidUTF8() throws {
        // Quote, backslash, the short escapes, another control character, DEL (allowed as is).
        XCTAssertEqual(json(Array("a\"b\\c\n\r\t\u{8}\u{C}\u{1}\u{1F}\u{7F}".utf8)), #""a\"b\\c\n\r\t\b\f\u0001\u001F\#u{7F}""#)
        // Valid multi-byte sequences pass; each byte of an invalid one becomes U+FFFD: a lone
        // continuation byte, a truncated 2-byte lead, an overlong form, a UTF-16 surrogate,
        // a code point past U+10FFFF, a 4-byte sequence cut at the end.
        let cases: [([UInt8], String)] = [
            (Array("é✓😀".utf8), "é✓😀"),
            ([0x80], "\u{FFFD}"),
            ([0xC3, 0x28], "\u{FFFD}("),
            ([0xC0, 0xAF], "\u{FFFD}\u{FFFD}"),
            ([0xED, 0xA0, 0x80], "\u{FFFD}\u{FFFD}\u{FFFD}"),
            ([0xF4, 0x90, 0x80, 0x80], "\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}"),
            ([0x41, 0xF0, 0x9F, 0x98], "A\u{FFFD}\u{FFFD}\u{FFFD}"),
        ]
        for (bytes, expected) in cases {
            let text = json(bytes)
            XCTAssertEqual(try parsed(text), expected, "\(bytes) wrote \(text)")
        }
        // Every single byte and every pair of bytes makes a JSON string Foundation parses.
        for a in 0 ... 255 {
            for b in stride(from: 0, through: 255, by: 3) {
                XCTAssertNotNil(try parsed(json([UInt8(a), UInt8(b)])), "\(a) \(b)")
            }
        }
    }

    /// Long strings take the eight-bytes-at-a-time path: whatever the mix, valid text reads
    /// back as itself, and any bytes make valid JSON.
    func testLongStringsReadBackExactly() throws {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["a", "Z", " ", "\"", "\\", "\n", "\u{1}", "\u{7F}", "é", "✓", "😀", "0123456789abcdef"]
        for _ in 0 ..< 3000 {
            let text = (0 ..< Int.random(in: 0 ... 40, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            XCTAssertEqual(try parsed(json(Array(text.utf8))), text)
            let noise = (0 ..< Int.random(in: 0 ... 64, using: &generator)).map { _ in UInt8.random(in: 0 ... 255, using: &generator) }
            XCTAssertNotNil(try parsed(json(noise)), "\(noise)")
        }
    }

    func testUTCTimesAgreeWithGmtime() {
        var formatter = UTCTimeFormatter()
        XCTAssertEqual(formatter.format(1_557_356_679_824_123), "2019-05-08T23:04:39.824123Z")
        XCTAssertEqual(formatter.format(0), "1970-01-01T00:00:00.000000Z")
        XCTAssertEqual(formatter.format(-1), "1969-12-31T23:59:59.999999Z")
        XCTAssertEqual(formatter.format(951_782_400_000_000), "2000-02-29T00:00:00.000000Z")
        // Every day for 200 years either side of 1970, at a second that varies, against gmtime_r.
        var seconds: Int64 = -200 * 365 * 86_400
        while seconds < 400 * 365 * 86_400 {
            var t = time_t(seconds)
            var parts = tm()
            gmtime_r(&t, &parts)
            let expected = String(format: "%04d-%02d-%02dT%02d:%02d:%02d.000007Z", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                                  Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
            XCTAssertEqual(formatter.format(seconds * 1_000_000 + 7), expected)
            seconds += 86_400 + 3_607
        }
    }
}
