import XCTest
import Foundation
import BTCapture
import BTFixtures

/// `export --redact`: a capture holding every kind of key and pairing value btlog decodes, at
/// known bytes, exported in every format; the check that finds each secret in the plain export
/// must find none in the redacted one, whose addresses are consistent pseudonyms and which
/// still decodes packet for packet.
final class RedactionTests: XCTestCase {
    /// 16 distinctive bytes from a xorshift generator seeded by n: no zero, no key a shift of another.
    static func key(_ n: Int) -> [UInt8] {
        var state = UInt64(0x9E37_79B9_7F4A_7C15) &* UInt64(n + 1)
        return (0 ..< 16).map { _ in
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return UInt8(truncatingIfNeeded: state >> 24) | 0x01
        }
    }

    static let lePeer = "C4:11:22:33:44:55", classicPeer = "00:1B:DC:01:02:03"
    static let rand: UInt64 = 0x7E5D_4C3B_2A19_0817, ediv: UInt16 = 0xBEEF, passkey: UInt32 = 0x0009_87A3

    /// Every secret, by name, as the bytes that travel.
    static var secrets: [(name: String, bytes: [UInt8])] {
        [("ltk", key(1)), ("irk", key(2)), ("csrk", key(3)), ("confirm", key(4)), ("random", key(5)), ("dhkey check", key(6)),
         ("public key x", key(7) + key(8)), ("public key y", key(9) + key(10)), ("link key", key(11)), ("notified link key", key(12)),
         ("pin", Array("83791246".utf8)), ("hci ltk", key(13)), ("att value", key(14))]
    }

    static func capture() -> [Frame] {
        var b = PacketBuilder(start: 1_700_000_000_000_000)
        // An advertising report naming the peer, and the peer's address again inside its data
        // (LE Bluetooth Device Address, AD type 0x1B), where no decoder gives it a field.
        b.leAdvertisingReport(eventType: 0, addressType: 1, address: lePeer, data: [0x08, 0x1B] + addressBytes(lePeer) + [0x01], rssi: -60)
        b.leConnectionComplete(handle: 0x0040, role: 0, peerType: 1, peer: lePeer)
        func smp(_ pdu: [UInt8], sent: Bool) { b.l2cap(handle: 0x0040, cid: 0x0006, pdu, sent: sent, fragment: 27) }
        smp([0x01, 0x03, 0x00, 0x0D, 0x10, 0x07, 0x07], sent: true)
        smp([0x02, 0x03, 0x00, 0x0D, 0x10, 0x07, 0x07], sent: false)
        smp([0x0C] + key(7) + key(8) + key(9) + key(10), sent: true)      // 65 bytes: three ACL fragments
        smp([0x03] + key(4), sent: false)
        smp([0x04] + key(5), sent: true)
        smp([0x0D] + key(6), sent: true)
        b.command(0x2019, le16(0x0040) + le32(UInt32(rand & 0xFFFF_FFFF)) + le32(UInt32(rand >> 32)) + le16(ediv) + key(13))
        b.commandStatus(0x2019)
        smp([0x06] + key(1), sent: false)
        smp([0x07] + le16(ediv) + le32(UInt32(rand & 0xFFFF_FFFF)) + le32(UInt32(rand >> 32)), sent: false)
        smp([0x08] + key(2), sent: false)
        smp([0x09, 0x01] + addressBytes(lePeer), sent: false)
        smp([0x0A] + key(3), sent: false)
        b.event(0x3E, [0x05] + le16(0x0040) + le32(UInt32(rand & 0xFFFF_FFFF)) + le32(UInt32(rand >> 32)) + le16(ediv))
        b.command(0x201A, le16(0x0040) + key(13))
        b.commandComplete(0x201A, [0x00] + le16(0x0040))
        b.att(handle: 0x0040, [0x12, 0x2A, 0x00] + key(14), sent: true)
        // BR/EDR: link keys, a PIN, a passkey.
        b.connectionComplete(handle: 0x000B, peer: classicPeer)
        b.event(0x17, addressBytes(classicPeer))                                          // Link Key Request
        b.command(0x040B, addressBytes(classicPeer) + key(11))                            // Link Key Request Reply
        b.commandComplete(0x040B, [0x00] + addressBytes(classicPeer))
        b.event(0x16, addressBytes(classicPeer))                                          // PIN Code Request
        b.command(0x040D, addressBytes(classicPeer) + [0x08] + Array("83791246".utf8) + [UInt8](repeating: 0, count: 8))
        b.event(0x3B, addressBytes(classicPeer) + le32(passkey))                          // User Passkey Notification
        b.event(0x18, addressBytes(classicPeer) + key(12) + [0x05])                       // Link Key Notification
        b.note(.note, "bonded with \(classicPeer) and \(lePeer.lowercased())")
        b.disconnectionComplete(handle: 0x000B, reason: 0x13)
        return b.drain()
    }

    /// Every way an output may show `bytes`: the bytes themselves, or their hex in any case and
    /// spacing; checked on 4-byte windows so a key cut by a hex dump's line end is still found.
    static func reveals(_ output: [UInt8], _ secret: [UInt8]) -> Bool {
        let windows = stride(from: 0, through: max(0, secret.count - 4), by: 2).map { Array(secret[$0 ..< min($0 + 4, secret.count)]) }
        let text = String(decoding: output, as: UTF8.self).uppercased().filter { $0.isHexDigit }
        return windows.contains { window in
            output.firstRange(of: window) != nil || text.contains(window.map { String(format: "%02X", $0) }.joined())
        }
    }

    static func revealsInteger(_ output: [UInt8], _ value: UInt64, width: Int) -> Bool {
        let text = String(decoding: output, as: UTF8.self).uppercased()
        let little = (0 ..< width).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
        return output.firstRange(of: little) != nil || text.contains(String(value)) || text.contains(String(value, radix: 16).uppercased())
    }

    func testNoSecretSurvivesInAnyFormat() throws {
        let capture = ExportTests.temporary("secrets.btsnoop")
        try Data(FixtureContainers.encode(Self.capture(), as: .btsnoopMonitor)).write(to: URL(fileURLWithPath: capture))
        let formats: [[String]] = [["--format", "jsonl"], ["--format", "json"], ["--format", "csv", "--fields", "number,address,summary,bytes"],
                                   ["--format", "text", "-V", "-x"], ["--format", "hex"], ["--format", "btsnoop"], ["--format", "pklg"],
                                   ["--format", "pcap"], ["--format", "pcapng"]]
        for format in formats {
            let plainPath = ExportTests.temporary("plain.out"), redactedPath = ExportTests.temporary("redacted.out")
            XCTAssertEqual(try Tool.run(Tool.btlog, ["export", capture, "-o", plainPath] + format).status, 0)
            let result = try Tool.run(Tool.btlog, ["export", capture, "-o", redactedPath, "--redact-values"] + format)
            XCTAssertEqual(result.status, 0, result.err)
            let plain = try [UInt8](Data(contentsOf: URL(fileURLWithPath: plainPath)))
            let redacted = try [UInt8](Data(contentsOf: URL(fileURLWithPath: redactedPath)))
            let textual = !["btsnoop", "pklg", "pcap", "pcapng"].contains(format[1])
            for secret in Self.secrets {
                // CSV shows bytes and summaries: every key is in the bytes column.
                XCTAssertTrue(Self.reveals(plain, secret.bytes), "the check does not find \(secret.name) in plain \(format)")
                XCTAssertFalse(Self.reveals(redacted, secret.bytes), "\(secret.name) survives --redact in \(format)")
            }
            for (name, value, width) in [("rand", Self.rand, 8), ("passkey", UInt64(Self.passkey), 4)] {
                if !textual || format[1] == "jsonl" { XCTAssertTrue(Self.revealsInteger(plain, value, width: width), "\(name) not found in plain \(format)") }
                XCTAssertFalse(Self.revealsInteger(redacted, value, width: width), "\(name) survives --redact in \(format)")
            }
            for peer in [Self.lePeer, Self.classicPeer] {
                let bytes = Array(addressBytes(peer).reversed())
                XCTAssertTrue(Self.reveals(plain, Array(bytes.reversed())) || plain.firstRange(of: Array(peer.utf8)) != nil, "\(peer) not in plain \(format)")
                XCTAssertNil(redacted.firstRange(of: Array(bytes.reversed())), "\(peer) survives in \(format)")
                XCTAssertNil(redacted.firstRange(of: bytes), "\(peer) survives in \(format)")
                XCTAssertFalse(String(decoding: redacted, as: UTF8.self).uppercased().contains(peer), "\(peer) survives as text in \(format)")
                XCTAssertFalse(Self.reveals(redacted, Array(bytes.reversed())), "\(peer)'s bytes survive as hex in \(format)")
            }
        }
    }

    /// The redacted capture decodes as the original does, packet for packet; each device keeps
    /// one pseudonym across packets and layers, locally administered and of the same LE kind.
    func testRedactedCaptureDecodesWithConsistentPseudonyms() throws {
        let capture = ExportTests.temporary("secrets2.btsnoop"), redacted = ExportTests.temporary("redacted2.btsnoop")
        try Data(FixtureContainers.encode(Self.capture(), as: .btsnoopMonitor)).write(to: URL(fileURLWithPath: capture))
        XCTAssertEqual(try Tool.run(Tool.btlog, ["export", capture, "--redact", "-o", redacted]).status, 0)
        let columns = ["show", "--fields", "number,type,length,smp.code,hci.opcode,hci.event,att.opcode,issues"]
        XCTAssertEqual(try Tool.run(Tool.btlog, columns + [redacted]).out, try Tool.run(Tool.btlog, columns + [capture]).out)
        let addresses = try Tool.run(Tool.btlog, ["show", redacted, "--fields", "number,hci.address,adv.address,smp.address"]).out
        let seen = Set(addresses.split(whereSeparator: { $0 == "\t" || $0 == "\n" || $0 == "," }).filter { $0.contains(":") })
        XCTAssertEqual(seen, ["C2:00:00:00:00:01", "02:00:00:00:00:02"], addresses)
        // The note names both devices by their pseudonyms; --redact alone keeps ATT values.
        let note = try Tool.run(Tool.btlog, ["show", redacted, "-f", "note", "--fields", "note.text"]).out
        XCTAssertEqual(note, "bonded with 02:00:00:00:00:02 and C2:00:00:00:00:01\n")
        let value = try Tool.run(Tool.btlog, ["show", redacted, "-f", "att", "--fields", "att.value"]).out
        XCTAssertEqual(value, Self.key(14).map { String(format: "%02X", $0) }.joined() + "\n")
    }
}
