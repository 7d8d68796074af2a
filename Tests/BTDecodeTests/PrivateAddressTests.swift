import XCTest
import BTCapture
@testable import BTDecode

/// Resolvable private addresses: ah() against the Core specification's sample data, and a
/// real capture's advertiser resolved by the IRK it distributed.
final class PrivateAddressTests: XCTestCase {
    /// Core Vol 3, Part H, Appendix D.7 (ah random address hash function): IRK
    /// ec0234a357c8ad05341010a60a397d9b, prand 0x708194, ah 0x0dfbaa.
    func testTheSpecificationsSample() {
        let irk: [UInt8] = [0xEC, 0x02, 0x34, 0xA3, 0x57, 0xC8, 0xAD, 0x05, 0x34, 0x10, 0x10, 0xA6, 0x0A, 0x39, 0x7D, 0x9B]
        XCTAssertEqual(PrivateAddresses.hash(irk: irk, prand: 0x70_8194), 0x0D_FBAA)
        var addresses = PrivateAddresses()
        addresses.learn(irk: irk, frame: 9)
        let rpa = BDAddr(littleEndian: [0xAA, 0xFB, 0x0D, 0x94, 0x81, 0x70])
        XCTAssertEqual(addresses.resolve(rpa)?.frame, 9)
        // One bit of the hash off, and a static random address (top bits 0b11) of the same
        // low bits: neither resolves.
        XCTAssertNil(addresses.resolve(BDAddr(littleEndian: [0xAB, 0xFB, 0x0D, 0x94, 0x81, 0x70])))
        XCTAssertNil(addresses.resolve(BDAddr(littleEndian: [0xAA, 0xFB, 0x0D, 0x94, 0x81, 0xF0])))
    }

    /// crackle's numeric_pin.pcap: the peripheral advertises as 69:5B:FB:2C:3F:A7 and, after
    /// pairing, distributes its IRK (Identity Information, #177); the sniffer missed its
    /// Identity Address Information. The key resolves the address it advertised under (openssl
    /// agrees: AES-128 of 00…00695BFB under 9C3E…2969 ends in 2C3FA7), from #177 on.
    func testARealAdvertiserResolvesByTheKeyItGave() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/third-party/crackle/numeric_pin.pcap").path
        let reader = try CaptureInput.open(path)
        let decoder = Decoder()
        var resolved: [Int] = []
        while let frame = try reader.next() {
            let packet = decoder.decode(frame)
            if let identity = packet.peerIdentity {
                XCTAssertEqual(identity.keyFrame, 177)
                XCTAssertNil(identity.address, "the sniffer missed Identity Address Information")
                XCTAssertEqual(packet.peer?.description, "69:5B:FB:2C:3F:A7")
                resolved.append(frame.number)
            }
        }
        XCTAssertEqual(resolved.first, 177, "resolved from the key's own packet on")
        XCTAssertEqual(resolved.count, 131)
        XCTAssertEqual(decoder.session.privateAddresses.identities.map { Hex.bytes($0.irk, separator: "") }, ["9C3E771E765220FD690B7E62E7452969"])
    }
}
