import XCTest
import BTCapture
import BTDecode
import BTQuery
import BTBrowse

/// A scan of the browser's capture keeps exactly the packets `btlog show` keeps with the same
/// filter, quick filters and count, on every fixture, though it decodes them again run by run
/// from saved Sessions on a thread of its own.
final class MatchScanTests: XCTestCase {
    /// Filters on plain fields, on what state gives (names learnt from GATT discovery, response
    /// times, channels), on issues and on time.
    static let expressions = [
        "att", "hci.event == 0x0e", "att.opcode in {0x1b 0x1d}", "att.name", "att.response_time > 5",
        "l2cap.psm == 0x0019", "error or warning", "reltime > 1", "btle.control_opcode", "not hci.opcode and not hci.event",
        "sdp.service_class", "rfcomm", "rtp.sequence", "smp.code == 0x03",
    ]

    /// The stage chains compared: each filter, quick filters, and a filter with a count.
    func stageChains() throws -> [(String, () throws -> [any PacketStage])] {
        var chains: [(String, () throws -> [any PacketStage])] = Self.expressions.map { expression in
            (expression, { [FilterStage(try PacketFilter(expression))] })
        }
        var quick = QuickFilters()
        quick.hidden = [.adv, .nocp]
        quick.types = ["acl", "event"]
        chains.append(("--hide adv,nocp --type acl,event", { [FilterStage(try XCTUnwrap(try quick.filter()))] }))
        chains.append(("-f att -c 3", { [FilterStage(try PacketFilter("att")), PacketSelection(count: 3)] }))
        return chains
    }

    func testAScanKeepsWhatTheFilterKeeps() throws {
        let tests = PacketIndexTests.self
        var compared = 0, kept = 0
        for path in try tests.captures() {
            let name = (path as NSString).lastPathComponent
            let index = try tests.firstPass(path, interval: 16)
            // The largest captures (long stretches of one kind of traffic) with the first chain
            // only: the suite's time goes on variety, not on length.
            let large = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0) > 200_000
            // One run's options for every chain's `show`: a passkey found once is not searched
            // again (numeric_pin.pcap's takes seconds in a debug build).
            let options = DecodeOptions(buildsDisplayText: false)
            for (label, makeStages) in try stageChains().prefix(large ? 1 : .max) {
                var numbers = NumberSink()
                var pipeline = PacketPipeline(decoder: Decoder(options: options), stages: try makeStages(),
                                              onWarning: { _ in })
                try pipeline.run(try CaptureInput.open(path), into: &numbers)

                let scan = MatchScan(index: index, stages: try makeStages())
                scan.start()
                scan.wait()
                XCTAssertTrue(scan.isFinished)
                XCTAssertEqual(scan.matches.map { Int($0) + 1 }, numbers.numbers, "\(label) on \(name)")
                compared += 1
                kept += numbers.numbers.count
            }
        }
        XCTAssertGreaterThan(kept, 5_000, "the filters keep packets, not only nothing (\(compared) runs)")
    }

    /// A cancelled scan stops, keeping what it found: the start of what a whole scan finds.
    func testCancelKeepsAPrefix() throws {
        let tests = PacketIndexTests.self
        let path = PacketIndexTests.root.appendingPathComponent("Fixtures/kernel-l2cap.btsnoop").path
        let index = try tests.firstPass(path, interval: 8)
        let whole = MatchScan(index: index, stages: [FilterStage(try PacketFilter("l2cap"))])
        whole.run()
        XCTAssertEqual(whole.scanned, index.count)
        XCTAssertGreaterThan(whole.matchCount, 100)

        let cancelled = MatchScan(index: index, stages: [FilterStage(try PacketFilter("l2cap"))])
        cancelled.start()
        cancelled.cancel()
        cancelled.wait()
        XCTAssertLessThanOrEqual(cancelled.scanned, index.count)
        XCTAssertEqual(cancelled.matches, Array(whole.matches.prefix(cancelled.matchCount)))
        // Started again after a cancel, it stays stopped: a new filter is a new scan.
        cancelled.start()
        cancelled.wait()
        XCTAssertEqual(cancelled.matches, Array(whole.matches.prefix(cancelled.matchCount)))
    }

    /// Packets recorded after a scan finished are scanned when it is started again (a followed
    /// capture), continuing where it stopped.
    func testAScanContinuesOverPacketsRecordedLater() throws {
        let path = PacketIndexTests.root.appendingPathComponent("Fixtures/kernel-l2cap.btsnoop").path
        let reader = try CaptureInput.open(path)
        var frames: [Frame] = []
        while let frame = try reader.next() { frames.append(frame) }
        let decoder = Decoder(options: DecodeOptions(buildsDisplayText: false))
        let index = PacketIndex(decoder: decoder, interval: 32)
        func feed(_ part: ArraySlice<Frame>) {
            for frame in part {
                index.record(frame)
                index.noteDecoded(decoder.decode(frame))
            }
        }
        let half = frames.count / 2
        feed(frames[..<half])
        let scan = MatchScan(index: index, stages: [FilterStage(try PacketFilter("l2cap"))])
        scan.start()
        scan.wait()
        XCTAssertEqual(scan.scanned, half)
        feed(frames[half...])
        scan.start()
        scan.wait()
        XCTAssertEqual(scan.scanned, frames.count)

        let whole = MatchScan(index: index, stages: [FilterStage(try PacketFilter("l2cap"))])
        whole.run()
        XCTAssertEqual(scan.matches, whole.matches)
    }
}

struct NumberSink: PacketSink {
    var numbers: [Int] = []
    mutating func consume(_ packet: Packet) throws { numbers.append(packet.frame.number) }
}
