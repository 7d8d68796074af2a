import XCTest
import BTCapture
import BTDecode
@testable import BTQuery
import BTFixtures

/// A sniffer's capture as a merge's third end: crackle's known_ltk.pcap (a real Ubertooth
/// capture of an encrypted LE link) beside the central host's HCI log of the same link. The
/// host's log is written from the air capture's own PDUs (no host log of that session exists),
/// on a clock 3,600.5 s ahead, each send logged 2 ms before the air carried it and each
/// reception 1 ms after; it also holds the LE Enable Encryption that gave the controller the
/// link's key, as a central's host logs it. The merge must find the key there, decrypt the
/// air with it, match the PDUs and recover the clock. (`AirHostLog` writes the log;
/// Fixtures/known-ltk-central.btsnoop is the same file, for the command line.)
final class AirMergeTests: XCTestCase {
    static let air = MergeTests.fixtures.appendingPathComponent("third-party/crackle/known_ltk.pcap").path
    static let ltk = AirHostLog.knownLTK
    static let offset = AirHostLog.offset
    static let sendLead = AirHostLog.sendLead, receiveLag = AirHostLog.receiveLag

    static func airPDUs() throws -> [AirHostLog.AirPDU] { try AirHostLog.pdus(air: air, keys: [ltk]) }

    static func centralLog(_ pdus: [AirHostLog.AirPDU], withKey: Bool = true) -> [Frame] { AirHostLog.centralLog(pdus, withKey: withKey) }

    static func airInput() -> MergeInput {
        MergeInput(name: "known_ltk.pcap") { try CaptureInput.open(air) }
    }

    func testTheAirCapturesPDUsAreReal() throws {
        // What the capture holds, so that the checks below stand on it: Read By Type Requests
        // from the central (sent again while the responses were lost), one response.
        let pdus = try Self.airPDUs()
        XCTAssertEqual(pdus.filter(\.fromCentral).count, 4)
        XCTAssertEqual(pdus.filter { !$0.fromCentral }.count, 1)
        XCTAssertEqual(pdus.first?.bytes.prefix(5), [0x07, 0x00, 0x04, 0x00, 0x08], "ATT Read By Type Request on CID 4")
    }

    func testTheHostsKeyAlignsTheAirAndTheLinkHasThreeNames() throws {
        let host = Self.centralLog(try Self.airPDUs())
        let inputs = [MergeTests.input("central.btsnoop", host), Self.airInput()]
        let alignments = try MergePlan.align(inputs)
        XCTAssertEqual(alignments.map(\.basis), [.reference, .matched], alignments.map(\.summary).joined(separator: "\n"))
        let fit = try XCTUnwrap(alignments[1].fit)
        // The air's clock against the host's: 3,600.5 s behind, less half the difference of the
        // two ways' latencies (2 ms out, 1 ms back: 0.5 ms).
        XCTAssertEqual(fit.offset, -Double(Self.offset) + 500, accuracy: 1_000, alignments[1].summary)
        XCTAssertEqual(fit.latency ?? 0, 1_500, accuracy: 300, "half of 2 ms + 1 ms")
        // Five PDUs, and the link's events: LE Connection Complete and CONNECT_IND, LE Enable
        // Encryption and LL_ENC_REQ (the same Rand and EDIV).
        XCTAssertEqual(fit.matched, 7, alignments[1].summary)
        XCTAssertEqual(fit.events, 2, "of them, the connection and the start of encryption")
        XCTAssertTrue(alignments[1].summary.contains("5 matched PDUs and 2 link events"), alignments[1].summary)
        XCTAssertEqual(alignments[0].revealedKeys, [Self.ltk.reversed()])
        let link = try XCTUnwrap(fit.links.first)
        XCTAssertEqual(link.reference.handle, 0x0040)
        XCTAssertEqual(link.otherAccessAddress, 0x5065_4CA7, "the access address CONNECT_IND gave")
        XCTAssertTrue(alignments[1].linkLines.first?.contains("central.btsnoop hci0 handle 0x0040 = known_ltk.pcap access address 0x50654CA7: 5 PDUs, 2 link events") == true,
                      alignments[1].linkLines.joined(separator: "\n"))

        // Merged: every air copy of a PDU names the host's end, with the latency between them.
        let reader = try MergePlan.reader(inputs, alignments)
        var frames: [Frame] = []
        while let frame = try reader.next() { frames.append(frame) }
        let airCopies = frames.filter { $0.kind.isAir && $0.origin?.match != nil }
        XCTAssertEqual(airCopies.count, 7)
        XCTAssertEqual(Set(airCopies.map { frames[$0.origin!.match!.number - 1].kind }), [.aclData, .command, .event])
        for copy in airCopies {
            let match = try XCTUnwrap(copy.origin?.match)
            let hostEnd = frames[match.number - 1]
            XCTAssertEqual(hostEnd.origin?.source, 1)
            XCTAssertEqual(match.handle, 0x0040)
            // The host's command or send comes first, its event or reception after the air.
            let sent = hostEnd.kind == .command || hostEnd.kind == .aclData && hostEnd.direction == .sent
            let expected = hostEnd.kind == .command ? 10_000 : hostEnd.kind == .event ? 1_250 : sent ? Self.sendLead : Self.receiveLag
            XCTAssertEqual(match.isSender, !sent, "#\(copy.number)")
            XCTAssertEqual(Double(match.latency), Double(expected), accuracy: 1_000, "#\(copy.number)")
            // The host's end names the air copy back (no other host's log is merged).
            XCTAssertEqual(hostEnd.origin?.match?.number, copy.number)
        }
    }

    func testTheAirAsTheReference() throws {
        let host = Self.centralLog(try Self.airPDUs())
        let alignments = try MergePlan.align([Self.airInput(), MergeTests.input("central.btsnoop", host)])
        XCTAssertEqual(alignments.map(\.basis), [.reference, .matched], alignments.map(\.summary).joined(separator: "\n"))
        XCTAssertEqual(try XCTUnwrap(alignments[1].fit).offset, Double(Self.offset) - 500, accuracy: 1_000, alignments[1].summary)
        XCTAssertEqual(alignments[1].fit?.links.first?.referenceAccessAddress, 0x5065_4CA7)
    }

    func testWithoutTheKeyTheEncryptedAirMatchesNothing() throws {
        let host = Self.centralLog(try Self.airPDUs(), withKey: false)
        let alignments = try MergePlan.align([MergeTests.input("central.btsnoop", host), Self.airInput()])
        XCTAssertEqual(alignments.map(\.basis), [.reference, .timestamps])
        XCTAssertTrue(alignments[1].summary.contains("no PDU matched central.btsnoop's"), alignments[1].summary)
    }
}

extension AirMergeTests {
    /// The committed fixture is what the generator writes (btlog-fixtures regenerates it).
    func testTheCommittedCentralLogIsTheGenerators() throws {
        let committed = try Array(Data(contentsOf: MergeTests.fixtures.appendingPathComponent("known-ltk-central.btsnoop")))
        XCTAssertEqual(committed, try FixtureContainers.encode(Self.centralLog(try Self.airPDUs()), as: .btsnoopH4))
    }
}

extension AirMergeTests {
    /// A link's events pair across two hosts' logs as PDUs do, each end in its own words: LE
    /// Enable Encryption at the central's host and LE Long Term Key Request at the peripheral's
    /// carry the same Rand and EDIV; HCI Disconnect at one and Disconnection Complete at the
    /// other the same reason (the asking end's own Disconnection Complete, 0x16, pairs with
    /// nothing). Layouts from Core Vol 4, Part E, 7.8.24, 7.7.65.5, 7.1.6 and 7.7.5.
    func testTheLinksEventsPairAcrossHosts() throws {
        let rand: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8], ediv: [UInt8] = [0x34, 0x12]
        let shift: Int64 = 100_000_000
        let central = [
            Frame(number: 1, timestamp: 1_000_000, kind: .command, direction: .sent,
                  bytes: [0x19, 0x20, 0x1C, 0x40, 0x00] + rand + ediv + [UInt8](repeating: 0xAA, count: 16)),
            Frame(number: 2, timestamp: 9_000_000, kind: .command, direction: .sent, bytes: [0x06, 0x04, 0x03, 0x40, 0x00, 0x13]),
            Frame(number: 3, timestamp: 9_100_000, kind: .event, direction: .received, bytes: [0x05, 0x04, 0x00, 0x40, 0x00, 0x16]),
        ]
        let peripheral = [
            Frame(number: 1, timestamp: 1_030_000 + shift, kind: .event, direction: .received,
                  bytes: [0x3E, 0x0D, 0x05, 0x01, 0x00] + rand + ediv),
            Frame(number: 2, timestamp: 9_060_000 + shift, kind: .event, direction: .received, bytes: [0x05, 0x04, 0x00, 0x01, 0x00, 0x13]),
        ]
        let inputs = [MergeTests.input("central", central), MergeTests.input("peripheral", peripheral)]
        let alignments = try MergePlan.align(inputs)
        XCTAssertEqual(alignments.map(\.basis), [.reference, .matched], alignments[1].summary)
        let fit = try XCTUnwrap(alignments[1].fit)
        XCTAssertEqual(fit.matched, 2)
        // One way only: the offset holds the events' delay (30 ms, 60 ms: their median 45 ms).
        XCTAssertEqual(fit.offset, Double(shift) + 45_000, accuracy: 1_000, alignments[1].summary)
        XCTAssertEqual(fit.links.map { "\($0.reference.handle)-\($0.other.handle)" }, ["64-1"])
        let reader = try MergePlan.reader(inputs, alignments)
        var frames: [Frame] = []
        while let frame = try reader.next() { frames.append(frame) }
        let matched = frames.filter { $0.origin?.match != nil }.map { "\($0.origin!.name) #\($0.origin!.number) ↔ #\($0.origin!.match!.number)" }
        XCTAssertEqual(matched.count, 4, "\(matched)")
        XCTAssertNil(frames.first { $0.origin?.name == "central" && $0.origin?.number == 3 }?.origin?.match, "0x16 pairs with nothing")
    }
}

extension AirMergeTests {
    /// Phone, board and sniffer: both ends' logs and the air, three clocks. The hosts' PDUs
    /// pair with each other (the air never displaces that), each air copy names the host that
    /// sent it, and the link has its three names.
    func testBothEndsAndTheAir() throws {
        let pdus = try Self.airPDUs()
        let inputs = [MergeTests.input("central.btsnoop", Self.centralLog(pdus)), Self.airInput(),
                      MergeTests.input("peripheral.btsnoop", AirHostLog.peripheralLog(pdus))]
        let alignments = try MergePlan.align(inputs)
        XCTAssertEqual(alignments.map(\.basis), [.reference, .matched, .matched], alignments.map(\.summary).joined(separator: "\n"))
        // Against the central's clock: the air 3,600.5 s behind, the peripheral 4,834.75 s
        // (each within the half-difference of its two ways' latencies).
        XCTAssertEqual(try XCTUnwrap(alignments[1].fit).offset, -Double(Self.offset), accuracy: 1_000, alignments[1].summary)
        XCTAssertEqual(try XCTUnwrap(alignments[2].fit).offset, Double(AirHostLog.peripheralOffset - Self.offset), accuracy: 2_000, alignments[2].summary)
        XCTAssertEqual(alignments[2].fit?.links.first.map { "\($0.reference.handle)=\($0.other.handle)" }, "64=2")
        XCTAssertEqual(alignments[1].fit?.links.first?.otherAccessAddress, 0x5065_4CA7)
        // The central's log and the peripheral's each hold the key: the air decrypts either way.
        XCTAssertEqual(Set(alignments.flatMap(\.revealedKeys)), [Self.ltk.reversed()])

        let reader = try MergePlan.reader(inputs, alignments)
        var frames: [Frame] = []
        while let frame = try reader.next() { frames.append(frame) }
        func source(_ frame: Frame) -> Int { frame.origin?.source ?? 0 }
        // Every request the central sent: the peripheral's reception names it and it names the
        // reception (not the air copy); the air copy names the central's send.
        let requests = frames.filter { source($0) == 1 && $0.kind == .aclData && $0.direction == .sent }
        XCTAssertEqual(requests.count, 4)
        for request in requests {
            let match = try XCTUnwrap(request.origin?.match, "#\(request.number)")
            XCTAssertEqual(match.source, 3, "#\(request.number) names the peripheral's reception")
            XCTAssertEqual(frames[match.number - 1].origin?.match?.number, request.number)
            XCTAssertEqual(Double(match.latency), Double(Self.sendLead + Self.receiveLag), accuracy: 1_500)
            let copy = frames.first { source($0) == 2 && $0.origin?.match?.number == request.number }
            XCTAssertNotNil(copy, "the air's copy of #\(request.number) names it")
        }
        // The peripheral's four answers reach the central, the sniffer's one copy among them.
        let answers = frames.filter { source($0) == 3 && $0.kind == .aclData && $0.direction == .sent }
        XCTAssertEqual(answers.count, 4)
        XCTAssertEqual(answers.filter { $0.origin?.match?.source == 1 }.count, 4)
        // The air's copies the peripheral explains: the one response the sniffer took whole (the
        // peripheral sent it) and CONNECT_IND (its host heard of it last).
        let namedByPeripheral = frames.filter { source($0) == 2 && $0.origin?.match?.source == 3 }.map { frames[$0.origin!.match!.number - 1] }
        XCTAssertEqual(namedByPeripheral.map(\.kind), [.event, .aclData])
        // LL_ENC_REQ names the central's LE Enable Encryption; the peripheral's LE Long Term Key
        // Request pairs with that command, host to host.
        let request = try XCTUnwrap(frames.first { source($0) == 3 && $0.kind == .event && $0.bytes.prefix(3) == [0x3E, 0x0D, 0x05] })
        XCTAssertEqual(frames[request.origin!.match!.number - 1].kind, .command)
        XCTAssertEqual(frames[request.origin!.match!.number - 1].origin?.source, 1)
    }
}
