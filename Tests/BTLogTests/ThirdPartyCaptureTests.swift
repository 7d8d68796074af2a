import XCTest
import Foundation

/// Captures no one on this project made (Fixtures/third-party/): what real sniffers and stacks
/// do that a generated scenario does not. crackle's own test captures (Ubertooth, PPI, no
/// direction flag, host timestamps that go backwards) with the results crackle prints for them
/// (`*.crackle.txt` beside each).
final class ThirdPartyCaptureTests: XCTestCase {
    func btlog(_ arguments: String...) throws -> Tool.Result { try Tool.run(Tool.btlog, arguments) }

    let numericPin = "Fixtures/third-party/crackle/numeric_pin.pcap"
    let knownLTK = "Fixtures/third-party/crackle/known_ltk.pcap"

    func lines(_ result: Tool.Result) -> [Substring] { result.out.split(separator: "\n") }

    /// crackle: "TK found: 461140", "Decrypted 55 packets", "LTK found: 9c0469262e521d1d40e095e7c542c5ec".
    func testNumericPinIsCrackedAsCrackleDoes() throws {
        let decrypted = try btlog("show", numericPin, "-f", "btle.decrypted", "--fields", "number")
        XCTAssertEqual(decrypted.status, 0, decrypted.err)
        XCTAssertGreaterThanOrEqual(lines(decrypted).count, 55)
        let found = try btlog("show", numericPin, "-f", "btle.key_source", "--fields", "btle.key_source")
        XCTAssertEqual(lines(found), ["STK of legacy pairing, TK 461140 (passkey search)"])
        let ltk = try btlog("show", numericPin, "-f", "smp.code == 0x06")
        XCTAssertTrue(ltk.out.contains("LTK 9C0469262E521D1D40E095E7C542C5EC"), ltk.out)
        let stats = try btlog("stats", numericPin)
        XCTAssertTrue(stats.out.contains("key: STK of legacy pairing, TK 461140 (passkey search)"), stats.out)
        // The distributed LTK opens the link when given, as crackle's -l would use it.
        XCTAssertTrue(try btlog("grep", "-c", "Read By Group Type Response", numericPin).out.hasPrefix("6"))
    }

    /// crackle -l 7f62c053f104a5bbe68b1d896a2ed49c: "Found 10 encrypted packets, Decrypted 7 packets".
    func testKnownLTKDecryptsWhatCrackleDecrypts() throws {
        let decrypted = try btlog("show", knownLTK, "--ltk", "7f62c053f104a5bbe68b1d896a2ed49c", "-f", "btle.decrypted", "--fields", "number")
        XCTAssertEqual(decrypted.status, 0, decrypted.err)
        XCTAssertGreaterThanOrEqual(lines(decrypted).count, 7)
        let stats = try btlog("stats", "--ltk", "7f62c053f104a5bbe68b1d896a2ed49c", knownLTK)
        XCTAssertTrue(stats.out.contains("key: LTK from --ltk"), stats.out)
        // Without the key: nothing decrypted, and diagnose says what to do.
        let none = try btlog("show", knownLTK, "-f", "btle.decrypted", "--fields", "number")
        XCTAssertEqual(none.out, "")
        let diagnose = try btlog("diagnose", knownLTK)
        XCTAssertTrue(diagnose.out.contains("--ltk"), diagnose.out)
    }

    /// Ubertooth says no direction; before btlog read the channel, nearly every data PDU was
    /// taken for the central's and each answer for a retransmission.
    func testDirectionsComeFromTheChannelsNotTheHostClock() throws {
        for capture in [numericPin, knownLTK] {
            let directions = lines(try btlog("show", capture, "-f", "btle.direction", "--fields", "btle.direction"))
            let central = directions.filter { $0 == "Central to Peripheral" }.count
            let peripheral = directions.filter { $0 == "Peripheral to Central" }.count
            XCTAssertGreaterThan(peripheral, directions.count / 3, capture)
            XCTAssertGreaterThan(central, directions.count / 3, capture)
            XCTAssertFalse(directions.contains("Unknown"), capture)
        }
        // The Pairing Response is the peripheral's, reassembled and decoded.
        let response = try btlog("show", numericPin, "-f", "smp.code == 0x02")
        XCTAssertTrue(response.out.contains("SMP Receive"), response.out)
        XCTAssertTrue(response.out.contains("Method: LE Legacy, Passkey Entry"), response.out)
        // Only a PDU that repeats its side's previous one byte for byte is a retransmission.
        let copies = try btlog("show", numericPin, "-f", "btle.retransmission", "--fields", "number")
        XCTAssertLessThanOrEqual(lines(copies).count, 4)
    }

    /// numeric_pin's packet 26: the peripheral's PDU reached Ubertooth damaged, but the
    /// central's next packet acknowledged it (NESN moved on) and the peripheral went on with a
    /// new one: decoded, marked, as neither tshark (which trusts every damaged packet) nor
    /// btlog before (which decoded none) showed it.
    func testADamagedPacketThePeerAcknowledgedIsDecoded() throws {
        let rows = lines(try btlog("show", numericPin, "-f", "btle.damaged_acknowledged", "--fields", "number,btle.damaged_acknowledged,frame.type"))
        XCTAssertEqual(rows.first, "26\t27\tATT Receive")
        let shown = try btlog("show", numericPin, "--packets", "26-26")
        XCTAssertTrue(shown.out.contains("damaged at the sniffer, acknowledged by the peer (packet 27)"), shown.out)
        // Those not acknowledged stay undecoded.
        let damaged = lines(try btlog("show", numericPin, "-f", "btle.crc_ok == 0 and not btle.damaged_acknowledged", "--fields", "frame.type"))
        XCTAssertFalse(damaged.isEmpty)
        XCTAssertTrue(damaged.allSatisfy { $0 == "LE LL" }, "\(damaged)")
    }
}
