import XCTest
import BTCapture
import BTDecode
@testable import BTFixtures

/// The benchmark's captures (btlog-fixtures bench) must be what they claim: exactly the packet
/// count asked for, the same bytes on every run, and packets that decode without errors other
/// than the protocol errors the sessions contain on purpose.
final class BenchmarkSessionTests: XCTestCase {
    func frames(_ session: (Int, ([Frame]) throws -> Void) throws -> Void, _ count: Int) rethrows -> [Frame] {
        var frames: [Frame] = []
        try session(count) { frames += $0 }
        return frames
    }

    func testCountsNumberingAndDeterminism() throws {
        for count in [0, 1, 4095, 4096, 4097, 12_345] {
            let le = try frames(BenchmarkSessions.leSession, count)
            XCTAssertEqual(le.count, count)
            XCTAssertEqual(le.map(\.number), Array(stride(from: 1, through: count, by: 1)))
        }
        XCTAssertEqual(try frames(BenchmarkSessions.audioSession, 5000), try frames(BenchmarkSessions.audioSession, 5000))
        XCTAssertEqual(try frames(BenchmarkSessions.leSession, 5000), try frames(BenchmarkSessions.leSession, 5000))
    }

    func testSessionsDecodeCleanly() throws {
        for (name, session, count) in [("le", BenchmarkSessions.leSession, 40_000), ("audio", BenchmarkSessions.audioSession, 20_000)] {
            let decoder = Decoder()
            var kinds: [String: Int] = [:]
            for frame in try frames(session, count) {
                let packet = decoder.decode(frame)
                kinds[packet.top?.name ?? "?", default: 0] += 1
                for issue in packet.issues where issue.severity == .error {
                    // The only errors are the refused reads the LE session makes on purpose.
                    XCTAssertTrue(issue.message.hasPrefix("ATT error: Read Not Permitted"), "\(name) #\(frame.number): \(issue.message)")
                }
            }
            if name == "le" {
                XCTAssertGreaterThan(kinds["ATT", default: 0], count / 4)
                XCTAssertGreaterThan(kinds["SMP", default: 0], 10)
                XCTAssertGreaterThan(kinds["HCI Event", default: 0], count / 4)
            } else {
                // Media on the AVDTP media channel, decoded as RTP and SBC, is most of the session.
                XCTAssertGreaterThan(kinds["A2DP Data", default: 0], count / 2)
                XCTAssertGreaterThan(kinds["A2DP Control", default: 0], 8)
                XCTAssertGreaterThan(kinds["HFP", default: 0], 10)
                XCTAssertGreaterThan(kinds["SDP", default: 0], 1)
            }
        }
    }

    /// RFCOMM's FCS as 3GPP TS 07.10 defines it: the SABM on DLCI 0 (address 0x03, control
    /// 0x3F, length 0x01) carries 0x1C and the UA (control 0x73) 0xD7, as every RFCOMM
    /// session opens.
    func testRFCOMMFrameCheck() {
        XCTAssertEqual(AudioSession.fcs([0x03, 0x3F, 0x01]), 0x1C)
        XCTAssertEqual(AudioSession.fcs([0x03, 0x73, 0x01]), 0xD7)
    }
}
