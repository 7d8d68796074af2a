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
        json.beginObject()
        json.key("a")
        json.integer(1)
        json.key("b")
        json.beginArray()
        json.string("x\"y")
        json.null()
        json.beginObject()
        json.endObject()
        json.endArray()
        json.key("c")
        json.string(nil)
        json.endObject()
        XCTAssertEqual(json.text, "{\n  \"a\": 1,\n  \"b\": [\n    \"x\\\"y\",\n    null,\n    {}\n  ],\n  \"c\": null\n}\n")
        let parsed = try? JSONSerialization.jsonObject(with: Data(json.bytes)) as? [String: Any]
        XCTAssertEqual(parsed?["a"] as? Int, 1)
    }

    /// A Codable value through JSONWriterEncoder: members in declaration order and snake_case,
    /// nil as null, Omittable left out, FixedDecimal's digits, nested values and arrays, and
    /// members named by data after the declared ones.
    func testEncoderWritesTheDeclarationAsJSON() throws {
        struct Inner: Encodable { var maxTxOctets: Int; var p95: Double? }
        struct Items: Encodable {
            var names: [String]
            func encode(to encoder: Encoder) throws {
                var container = encoder.container(keyedBy: DynamicKey.self)
                for (index, name) in names.enumerated() { try container.encode(index, forKey: DynamicKey(name)) }
            }
        }
        struct Outer: Encodable {
            var schemaVersion: Int
            var missing: String?
            var absent: Omittable<Int>
            var present: Omittable<Int?>
            var durationS: FixedDecimal
            var ratio: Double
            var inner: [Inner]
            var items: Items
            var flag: Bool
        }
        let value = Outer(schemaVersion: 1, missing: nil, absent: Omittable(nil), present: Omittable(.some(nil)),
                          durationS: FixedDecimal(1.25, decimals: 6), ratio: 2.0 / 3, inner: [Inner(maxTxOctets: 251, p95: nil)],
                          items: Items(names: ["interval_ms", "role"]), flag: true)
        var json = JSONWriter()
        try JSONWriterEncoder().encode(value, into: &json)
        XCTAssertEqual(json.text, """
            {
              "schema_version": 1,
              "missing": null,
              "present": null,
              "duration_s": 1.25,
              "ratio": 0.667,
              "inner": [
                {
                  "max_tx_octets": 251,
                  "p95": null
                }
              ],
              "items": {
                "interval_ms": 0,
                "role": 1
              },
              "flag": true
            }

            """)
        XCTAssertEqual(JSONWriterEncoder.snakeCase("leSecureConnections"), "le_secure_connections")
        XCTAssertEqual(FixedDecimal.seconds(microseconds: 1_500_001).value, 1.500001)
    }
}
