import XCTest
import BTCapture
import BTDecode
import BTAnalysis
import BTRender

/// `btlog plot`'s SVG: the labels of links that come and go close together do not overlap.
final class FieldPlotTests: XCTestCase {
    /// A link up, down 0.1 s later and another up 0.1 s after that, in a 100 s capture: the
    /// three labels take two rows (a third has no room and is left to its line), and no two
    /// labels in one row are closer than a label's width.
    func testLinkLabelsCloseTogetherTakeRowsAndDoNotOverlap() throws {
        let decoder = Decoder()
        var series = FieldSeries(fields: [])
        // LE Connection Complete (Core Vol 4, Part E, 7.7.65.1): status 0, handle, role,
        // address type, address, interval, latency, timeout, clock accuracy.
        func connected(_ handle: UInt8) -> [UInt8] { [0x3E, 0x13, 0x01, 0x00, handle, 0x00, 0x00, 0x00, 1, 2, 3, 4, 5, 6, 0x18, 0x00, 0x00, 0x00, 0x48, 0x00, 0x00] }
        // Disconnection Complete (7.7.5): status 0, handle, reason 0x08 (connection timeout).
        func disconnected(_ handle: UInt8) -> [UInt8] { [0x05, 0x04, 0x00, handle, 0x00, 0x08] }
        let events: [(Int64, [UInt8])] = [(0, connected(0x40)), (100_000, disconnected(0x40)), (200_000, connected(0x41)),
                                          (300_000, disconnected(0x41)), (100_000_000, [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])]
        for (number, (time, bytes)) in events.enumerated() {
            try series.consume(decoder.decode(Frame(number: number + 1, timestamp: time, kind: .event, direction: .received, bytes: bytes)))
        }
        XCTAssertEqual(series.links.count, 4)
        let svg = FieldPlot(series, title: "links").svg
        // Each label: its x and y, from the SVG text.
        let labels = svg.components(separatedBy: "\n").filter { $0.contains("▲ 0x") || $0.contains("▼ 0x") }.map { line -> (x: Double, y: Double) in
            func attribute(_ name: String) -> Double {
                let start = line.range(of: "\(name)=\"")!.upperBound
                return Double(line[start...].prefix { $0 != "\"" })!
            }
            return (attribute("x"), attribute("y"))
        }
        XCTAssertEqual(labels.count, 2, svg)
        XCTAssertEqual(Set(labels.map(\.y)).count, 2, "two rows")
        for row in Set(labels.map(\.y)) {
            let xs = labels.filter { $0.y == row }.map(\.x).sorted()
            for (a, b) in zip(xs, xs.dropFirst()) { XCTAssertGreaterThanOrEqual(b - a, 50) }
        }
        // Every link keeps its line.
        XCTAssertEqual(svg.components(separatedBy: "stroke-dasharray=\"4 3\"").count - 1, 4)
    }
}
