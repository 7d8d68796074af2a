import XCTest
@testable import BTQuery

/// The arithmetic under `btlog stats`, against values worked by hand.
final class StatisticsTests: XCTestCase {
    func testMedianAndPercentileByNearestRank() {
        var d = Distribution()
        for v in [7, 1, 3, 9, 5] as [Int64] { d.add(v) }
        XCTAssertEqual(d.median, 5)
        XCTAssertEqual(d.percentile(0.95), 9) // rank ceil(4.75) = 5
        XCTAssertEqual(d.percentile(0.5), 5)  // rank ceil(2.5) = 3
        d.add(11)
        XCTAssertEqual(d.median, 6)           // (5 + 7) / 2
        XCTAssertEqual(d.percentile(0.95), 11) // rank ceil(5.7) = 6
        XCTAssertEqual(d.percentile(0.5), 5)  // rank 3
        XCTAssertEqual(d.minimum, 1)
        XCTAssertEqual(d.maximum, 11)
        XCTAssertEqual(d.mean, 6)
        XCTAssertNil(Distribution().median)
    }

    /// Past the exact limit the samples fold into buckets: the answers stay within 1 %.
    func testFoldedDistributionStaysWithinOnePercent() {
        var d = Distribution()
        let count = Distribution.exactLimit * 2
        for i in 0 ..< count { d.add(Int64(1000 + i)) } // 1000 ... 1000 + count - 1
        let median = (Double(1000 + count / 2 - 1) + Double(1000 + count / 2)) / 2
        XCTAssertEqual(d.median!, median, accuracy: median * 0.01)
        let p95 = Double(1000 + Int((0.95 * Double(count)).rounded(.up)) - 1)
        XCTAssertEqual(Double(d.percentile(0.95)!), p95, accuracy: p95 * 0.01)
        XCTAssertEqual(d.minimum, 1000)
        XCTAssertEqual(d.maximum, Int64(1000 + count - 1))
        // Negative values (RSSI) fold too.
        var rssi = Distribution()
        for i in 0 ..< count { rssi.add(Int64(-40 - i % 60)) }
        XCTAssertEqual(rssi.minimum, -99)
        XCTAssertEqual(rssi.maximum, -40)
        XCTAssertEqual(rssi.median!, -69.5, accuracy: 1)
    }

    func testBucketsRoundTrip() {
        for value: Int64 in [0, 1, 255, 256, 257, 1000, 65_535, 1 << 40, -1, -300, .max] {
            let middle = Distribution.middle(of: Distribution.bucket(of: value))
            XCTAssertEqual(Double(middle), Double(value), accuracy: max(1, abs(Double(value)) * 0.008), "\(value)")
        }
    }

    func testIEEERegistryLines() throws {
        XCTAssertEqual(VendorNames.entry(ArraySlice("MA-L,F0D5BF,Intel Corporate,Lot 8 Jalan".utf8))?.1, "Intel Corporate")
        XCTAssertEqual(VendorNames.entry(ArraySlice("MA-L,00095B,\"Netgear, Inc\",\"350 East\"\r".utf8))?.1, "Netgear, Inc")
        XCTAssertEqual(VendorNames.entry(ArraySlice("MA-L,00095B,\"A \"\"quoted\"\" name\",x".utf8))?.0, 0x00095B)
        XCTAssertEqual(VendorNames.entry(ArraySlice("MA-L,00095B,\"A \"\"quoted\"\" name\",x".utf8))?.1, "A \"quoted\" name")
        XCTAssertNil(VendorNames.entry(ArraySlice("Registry,Assignment,Organization Name,Organization Address".utf8)))
        XCTAssertNil(VendorNames.entry(ArraySlice("MA-M,00095B1,Short,x".utf8)))
        XCTAssertNil(VendorNames.entry(ArraySlice("".utf8)))
    }
}
