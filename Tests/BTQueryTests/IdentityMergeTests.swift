import XCTest
import BTCapture
import BTDecode
@testable import BTQuery

/// Identity resolving keys found by the merge's alignment: a key one source shows resolves
/// private addresses in every source from the merge's first packet, not only from the packet
/// that shows the key.
final class IdentityMergeTests: XCTestCase {
    /// Core Vol 3, Part H, D.7: this IRK hashes prand 0x708194 to 0x0dfbaa.
    static let irk: [UInt8] = [0xEC, 0x02, 0x34, 0xA3, 0x57, 0xC8, 0xAD, 0x05, 0x34, 0x10, 0x10, 0xA6, 0x0A, 0x39, 0x7D, 0x9B]
    static let rpa: [UInt8] = [0xAA, 0xFB, 0x0D, 0x94, 0x81, 0x70]   // 70:81:94:0D:FB:AA, as HCI carries it
    static let identity: [UInt8] = [0x66, 0x55, 0x44, 0x33, 0x22, 0xC1]   // C1:22:33:44:55:66, static random

    /// The packets a pipeline keeps, as the verbs decode them.
    struct Collect: PacketSink {
        var packets: [(number: Int, source: Int?, identity: PrivateAddresses.Resolved?, smp: Bool)] = []
        mutating func consume(_ packet: Packet) throws {
            packets.append((packet.frame.number, packet.frame.origin?.source, packet.peerIdentity, packet.layers.contains { $0.kind == .smp }))
        }
    }

    static func decodeMerge(_ inputs: [MergeInput]) throws -> (Collect, MergedFrameReader) {
        let reader = try MergePlan.reader(inputs, try MergePlan.align(inputs))
        var sink = Collect()
        var pipeline = PacketPipeline(decoder: Decoder()) { _ in }
        try pipeline.run(reader, into: &sink)
        return (sink, reader)
    }

    /// The phone scans the board advertising under a private address; the board's log (on
    /// another clock) shows the pairing's key distribution a minute later, its SMP Identity
    /// Information split from nothing (one ACL start fragment) and its Identity Address
    /// Information after it. The phone's first packet already names the board.
    func testAHostLogsKeyResolvesTheOtherSourceFromTheStart() throws {
        func frame(_ number: Int, _ time: Int64, _ kind: FrameKind, _ direction: Direction, _ bytes: [UInt8]) -> Frame {
            Frame(number: number, timestamp: time, kind: kind, direction: direction, bytes: bytes)
        }
        // LE Advertising Report: one report, ADV_IND, random address, no data, RSSI -64.
        let report = [0x3E, 12, 0x02, 1, 0x00, 0x01] + Self.rpa + [0, 0xC0]
        let phone = (1 ... 3).map { frame($0, Int64($0) * 1_000_000, .event, .received, report) }
        // SMP on handle 0x0041, the board sending: Identity Information (key least significant
        // octet first), Identity Address Information (static random).
        let smpIdentity = [0x41, 0x20, 21, 0, 17, 0, 0x06, 0x00, 0x08] + Self.irk.reversed()
        let smpAddress = [0x41, 0x20, 12, 0, 8, 0, 0x06, 0x00, 0x09, 0x01] + Self.identity
        let board = [frame(1, 500_000_000, .aclData, .sent, smpIdentity), frame(2, 500_000_100, .aclData, .sent, smpAddress)]
        let inputs = [MergeTests.input("phone", phone), MergeTests.input("board", board)]

        let alignments = try MergePlan.align(inputs)
        XCTAssertEqual(alignments[0].identityKeys, KeysAhead())
        XCTAssertEqual(alignments[1].identityKeys.identityKeys.map(\.irk), [Self.irk])
        XCTAssertEqual(alignments[1].identityKeys.identityKeys.map(\.address), [BDAddr(littleEndian: Self.identity[...])])

        let (merged, reader) = try Self.decodeMerge(inputs)
        XCTAssertEqual(reader.keysAhead.identityKeys.count, 1)
        // Nothing matched: the board stays on its own clock, after the phone's packets.
        XCTAssertEqual(merged.packets.map(\.source), [1, 1, 1, 2, 2])
        for packet in merged.packets.prefix(3) {
            XCTAssertEqual(packet.identity?.address?.description, "C1:22:33:44:55:66", "phone #\(packet.number)")
            XCTAssertEqual(packet.identity?.keyFrame, PrivateAddresses.foundAhead, "the key's packet not reached yet")
        }
        XCTAssertEqual(merged.packets[3].smp, true)

        // Without the merge, the phone's log alone resolves nothing.
        var alone = Collect()
        var pipeline = PacketPipeline(decoder: Decoder()) { _ in }
        try pipeline.run(ArrayFrameReader(frames: phone, formatDescription: "phone", nativeFormat: .btsnoopMonitor), into: &alone)
        XCTAssertTrue(alone.packets.allSatisfy { $0.identity == nil })
    }

    /// A real capture: crackle's numeric_pin.pcap, whose peripheral advertises as
    /// 69:5B:FB:2C:3F:A7 and distributes its IRK in packet 177 (decrypted once the passkey is
    /// found). Read alone, its advertising resolves from #177 on (131 packets:
    /// PrivateAddressTests). Merged beside another capture, the alignment reads the key ahead:
    /// every packet from that address resolves, the first advertisements too, and once
    /// decoding reaches the key's packet the identity names it.
    func testARealSniffersKeyResolvesFromTheMergesFirstPacket() throws {
        let air = MergeTests.fixtures.appendingPathComponent("third-party/crackle/numeric_pin.pcap").path
        let other = MergeTests.fixtures.appendingPathComponent("kernel-two-hosts.btsnoop").path
        let inputs = [MergeInput(name: "numeric_pin.pcap") { try CaptureInput.open(air) },
                      MergeInput(name: "kernel-two-hosts.btsnoop") { try CaptureInput.open(other) }]
        let (merged, reader) = try Self.decodeMerge(inputs)
        XCTAssertEqual(reader.keysAhead.identityKeys.map { Hex.bytes($0.irk, separator: "") }, ["9C3E771E765220FD690B7E62E7452969"])
        let fromAir = merged.packets.filter { $0.source == 1 }
        let resolved = fromAir.filter { $0.identity != nil }
        XCTAssertGreaterThan(resolved.count, 131, "more than from the key's own packet on")
        // Before the key's packet (its own number 177), found ahead; from it on, credited to it.
        let keyPacket = try XCTUnwrap(fromAir.first { $0.smp && $0.identity?.keyFrame ?? 0 > 0 }?.identity?.keyFrame)
        for packet in resolved {
            if packet.number < keyPacket {
                XCTAssertEqual(packet.identity?.keyFrame, PrivateAddresses.foundAhead, "#\(packet.number)")
            } else {
                XCTAssertEqual(packet.identity?.keyFrame, keyPacket, "#\(packet.number)")
            }
        }
        XCTAssertLessThan(resolved.first!.number, keyPacket)
    }

    /// Two real hosts bonding (Fixtures/kernel-pairing.btsnoop: the kernel's SMP between
    /// btvirt's LE pair, driven over mgmt). The central (hci0) connects from a resolvable
    /// private address and, once the link is encrypted, distributes its IRK and identity
    /// address; the peripheral (hci1) sees the private address in LE Connection Complete
    /// first, and the key only after. Split into the two hosts' logs, the peripheral's on a
    /// clock an hour off, and merged: the peripheral's first connection resolves
    /// to the central's own public address (its Read BD ADDR in its own log) by the key the
    /// merge read ahead. The peripheral's log alone resolves only the reconnection.
    func testTwoKernelHostsPairingResolvesThePeripheralsFirstConnection() throws {
        let all = try MergeTests.frames("kernel-pairing.btsnoop")
        let central = MergeTests.host(all, controllers: [0])
        // A minute of traffic is too short to measure a drift against a millisecond's jitter
        // (MergeTests does that over four): here the clock is only an hour off.
        let peripheral = MergeTests.host(all, controllers: [1], offset: 3_600_500_000)
        // The central's public address, from its controller's Command Complete for Read BD
        // ADDR (event 0x0E, opcode 0x1009, status 0, the address least significant octet first).
        // Frame bytes are a slice of the capture's buffer: indexes from 0 need an array.
        func octets(_ frame: Frame) -> [UInt8] { Array(frame.bytes) }
        func isReadAddressComplete(_ b: [UInt8]) -> Bool { b.count == 12 && b[0] == 0x0E && b[3] == 0x09 && b[4] == 0x10 && b[5] == 0 }
        let readAddress = try XCTUnwrap(central.map(octets).first(where: isReadAddressComplete))
        let centralAddress = BDAddr(littleEndian: readAddress[6 ..< 12])
        // LE Connection Complete (LE Meta 0x3E, subevent 0x01, success) in the peripheral's log,
        // the central's address random (type 1).
        func isConnectionComplete(_ frame: Frame) -> Bool {
            let b = octets(frame)
            return frame.kind == .event && b.count >= 12 && b[0] == 0x3E && b[2] == 0x01 && b[3] == 0 && b[7] == 0x01
        }
        let connections = peripheral.filter(isConnectionComplete).map(\.number)
        XCTAssertEqual(connections.count, 2, "the pairing's connection and the reconnection")
        // SMP Identity Information (code 0x08) arriving at the peripheral.
        let keyFrame = try XCTUnwrap(peripheral.first { frame in
            let b = octets(frame)
            return frame.kind == .aclData && b.count == 25 && b[6] == 0x06 && b[8] == 0x08
        }?.number)
        XCTAssertTrue(connections[0] < keyFrame && keyFrame < connections[1])

        let inputs = [MergeTests.input("central", central), MergeTests.input("peripheral", peripheral)]
        let alignments = try MergePlan.align(inputs)
        XCTAssertEqual(alignments[1].basis, .matched, alignments[1].summary)
        let fit = try XCTUnwrap(alignments[1].fit)
        XCTAssertEqual(fit.offset, 3_600_500_000, accuracy: 5_000, alignments[1].summary)
        XCTAssertEqual(alignments[0].identityKeys.identityKeys.map(\.address), [centralAddress], "the central's log: the key it sent")
        XCTAssertEqual(alignments[1].identityKeys.identityKeys.map(\.address), [centralAddress], "the peripheral's log: the key it received")

        let (merged, _) = try Self.decodeMerge(inputs)
        let fromPeripheral = merged.packets.filter { $0.source == 2 }
        XCTAssertEqual(fromPeripheral.count, peripheral.count)
        // The merged numbers of the peripheral's packets, in its own order.
        let first = fromPeripheral[connections[0] - 1], second = fromPeripheral[connections[1] - 1]
        XCTAssertEqual(first.identity?.address?.description, centralAddress.description, "the first connection, by the key found ahead")
        XCTAssertEqual(first.identity?.keyFrame, PrivateAddresses.foundAhead)
        XCTAssertEqual(second.identity?.address?.description, centralAddress.description)
        XCTAssertGreaterThan(second.identity?.keyFrame ?? 0, 0, "the reconnection: by a key packet decoding has reached")

        var alone = Collect()
        var pipeline = PacketPipeline(decoder: Decoder()) { _ in }
        try pipeline.run(ArrayFrameReader(frames: peripheral, formatDescription: "peripheral", nativeFormat: .btsnoopMonitor), into: &alone)
        XCTAssertNil(alone.packets[connections[0] - 1].identity, "alone, the key comes later")
        XCTAssertEqual(alone.packets[connections[1] - 1].identity?.address?.description, centralAddress.description)
        XCTAssertEqual(alone.packets[connections[1] - 1].identity?.keyFrame, keyFrame)
    }
}
