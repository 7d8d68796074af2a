import XCTest
import Foundation
import BTRender

/// The writer of whole-report JSON documents (stats --json).
final class JSONWriterTests: XCTestCase {
    func testJSONWriterNumbersAndNesting() {
        XCTAssertEqual(JSONWriter.decimal(12.5, decimals: 3), "12.5")
        XCTAssertEqual(JSONWriter.decimal(3, decimals: 3), "3")
        XCTAssertEqual(JSONWriter.decimal(-0.1254, decimals: 3), "-0.125")
        XCTAssertEqual(JSONWriter.decimal(-0.0001, decimals: 3), "0")
        XCTAssertEqual(JSONWriter.decimal(1.0 / 3, decimals: 6), "0.333333")
        var json = JSONWriter()
        json.object { json in
            json.member("a", 1)
            json.key("b")
            json.array { json in
                json.string("x\"y")
                json.null()
                json.object { _ in }
            }
            json.member("c", nil as String?)
        }
        XCTAssertEqual(json.text, "{\n  \"a\": 1,\n  \"b\": [\n    \"x\\\"y\",\n    null,\n    {}\n  ],\n  \"c\": null\n}\n")
        let parsed = try? JSONSerialization.jsonObject(with: Data(json.bytes)) as? [String: Any]
        XCTAssertEqual(parsed?["a"] as? Int, 1)
    }
}
