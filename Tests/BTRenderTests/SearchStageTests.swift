import XCTest
import BTCapture
import BTDecode
import BTQuery
import BTFixtures
@testable import BTRender

/// `show -e` prints a kept packet from the text it searched when that text stood alone, and
/// renders it again otherwise: either way the output is what the view prints of the kept
/// packets alone.
final class SearchStageTests: XCTestCase {
    func testPrintedTextIsTheViewsOfTheKeptPackets() throws {
        // hci0 first; an hci1 packet the search drops, later ones kept: from there rows name
        // their controller in the search's rendering, not in the view's until it sees hci1.
        var b = PacketBuilder(start: 1_557_356_668_000_000)
        b.leConnectionComplete(handle: 0x0040, role: 0, peerType: 0, peer: "C0:FF:EE:12:34:56")
        b.att(handle: 0x0040, [0x0A, 0x03, 0x00], sent: true)
        b.controller = 1
        b.disconnectionComplete(handle: 0x0041, reason: 0x13)
        b.controller = 0
        b.att(handle: 0x0040, [0x0B, 0x41], sent: false)
        b.controller = 1
        b.leConnectionComplete(handle: 0x0042, role: 0, peerType: 0, peer: "C0:FF:EE:12:34:57")
        b.att(handle: 0x0042, [0x0A, 0x05, 0x00], sent: true)

        for mode in [RenderMode.table, .tree] {
            for time in [TimeFormatter.Mode.abs, .rel] {
                var options = RenderOptions()
                options.time = time
                let pattern = try TextPattern("Read|Connection Complete")
                var stage = SearchStage(search: TextSearch(pattern: pattern), renderer: mode.makeRenderer(options), options: options,
                                        printing: options)
                let shared = OutputWriter.capturing(), fresh = OutputWriter.capturing()
                var sink = RenderingSink(mode.makeRenderer(options), out: shared)
                var reference = mode.makeRenderer(options)
                var handedOver = 0
                let decoder = Decoder()
                for frame in b.frames {
                    var packet = decoder.decode(frame)
                    guard stage.process(&packet, context: StageContext()) == .keep else { continue }
                    if !packet.renderedText.isEmpty { handedOver += 1 }
                    try sink.consume(packet)
                    try reference.render(packet, to: fresh)
                }
                let printed = shared.drain { String(decoding: $0, as: UTF8.self) }
                let expected = fresh.drain { String(decoding: $0, as: UTF8.self) }
                XCTAssertEqual(printed, expected, "\(mode) \(time)")
                XCTAssertEqual(printed.components(separatedBy: "\n").filter { $0.contains("{hci1}") }.count, 2, "\(mode) \(time)")
                // Absolute times: the rows before hci1 are handed over; relative ones never.
                XCTAssertEqual(handedOver, time == .abs ? 2 : 0, "\(mode) \(time)")
            }
        }
    }
}
