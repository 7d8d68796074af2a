import XCTest
@testable import BTAnalysis
import BTAnalysis
import BTQuery
import BTCapture
import BTDecode
import BTFixtures

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

    /// Values with a bucket of their own (RSSI) move to the histogram early and lose nothing;
    /// a wider value arriving before the exact limit takes them back out: under the limit every
    /// answer is the sorted samples' own, whatever the order and mix.
    func testEarlyFoldingIsExactUnderTheLimit() {
        func exact(_ samples: [Int64]) -> (median: Double, p95: Int64, p50: Int64) {
            let sorted = samples.sorted(), n = sorted.count
            let median = n % 2 == 1 ? Double(sorted[n / 2]) : (Double(sorted[n / 2 - 1]) + Double(sorted[n / 2])) / 2
            func rank(_ share: Double) -> Int64 { sorted[min(n, max(1, Int((share * Double(n)).rounded(.up)))) - 1] }
            return (median, rank(0.95), rank(0.5))
        }
        var generator = SystemRandomNumberGenerator()
        let rssiOnly = (0 ..< 5_000).map { _ in Int64.random(in: -100 ... -30, using: &generator) }
        let widerLater = rssiOnly + [5_000, 123_456] + (0 ..< 3_000).map { _ in Int64.random(in: -255 ... 255, using: &generator) }
        let widerAtTheLimit = Array(repeating: Int64(-60), count: Distribution.exactLimit) + [70_000, -61]
        for samples in [rssiOnly, widerLater, widerAtTheLimit, Array(rssiOnly.prefix(Distribution.compactAfter))] {
            var d = Distribution()
            for value in samples { d.add(value) }
            let reference = exact(samples)
            XCTAssertEqual(d.count, samples.count)
            XCTAssertEqual(d.median, reference.median, "\(samples.count) samples")
            XCTAssertEqual(d.percentile(0.95), reference.p95)
            XCTAssertEqual(d.percentile(0.5), reference.p50)
            XCTAssertEqual(d.minimum, samples.min())
            XCTAssertEqual(d.maximum, samples.max())
        }
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

/// The throughput ceiling against figures worked by hand from the model's definition
/// (LEThroughputCeiling: air times per PHY, T_IFS 150 µs, whole exchanges per event).
final class ThroughputCeilingTests: XCTestCase {
    typealias C = LEThroughputCeiling

    func testAirTimes() {
        XCTAssertEqual(C.airTime(octets: 27, phy: .le1M, encrypted: false), 296)   // (1+4+2+27+3) × 8
        XCTAssertEqual(C.airTime(octets: 0, phy: .le1M, encrypted: true), 80)      // empty PDUs carry no MIC
        XCTAssertEqual(C.airTime(octets: 251, phy: .le1M, encrypted: true), 2120)  // (1+4+2+251+4+3) × 8
        XCTAssertEqual(C.airTime(octets: 251, phy: .le2M, encrypted: false), 1048) // (2+4+2+251+3) × 4
        XCTAssertEqual(C.airTime(octets: 0, phy: .le2M, encrypted: false), 44)
        XCTAssertEqual(C.airTime(octets: 27, phy: .leCoded, encrypted: false), 2448) // 80+256+16+24 + (2+27+3) × 64 + 24
        XCTAssertEqual(C.airTime(octets: 0, phy: .leCoded, encrypted: false), 720)
    }

    /// 25 ms, LE 1M, data length 27, MTU 23, notifications: exchanges of 296+150+80+150 = 676 µs,
    /// 36 in 25 ms, 20 bytes each: 20 × 8 × 36 / 25 = 230.4 kbps. MTU 247 with data length 251:
    /// exchanges of 2088+150+80+150 = 2468 µs, 10 per event, 244 × 8 × 10 / 25 = 780.8 kbps.
    func testMTU23Notifications() {
        let c = C(interval: 20, phy: .le1M, dataLength: 27, mtu: 23, transfer: .notifications)
        XCTAssertEqual(c.exchangeTime, 676)
        XCTAssertEqual(c.exchangesPerEvent, 36)
        XCTAssertEqual(c.fragments, 1)
        XCTAssertEqual(c.kbps, 230.4, accuracy: 1e-9)
        XCTAssertEqual(c.firstLimit?.parameter, "mtu")
        XCTAssertEqual(c.firstLimit?.kbps ?? 0, 780.8, accuracy: 1e-9)
        XCTAssertEqual(c.firstLimit?.sentence,
                       "MTU 23: each notification carries 20 bytes; MTU 247 with data length 251 would allow about 780.8 kbps at this interval")
        // The classic figure: 30 ms, 44 exchanges, 234.7 kbps.
        XCTAssertEqual(C(interval: 24, phy: .le1M, dataLength: 27, mtu: 23, transfer: .notifications).kbps, 7040.0 / 30, accuracy: 1e-9)
    }

    /// 10 ms, LE 2M, 251, MTU 247, writes without response: 1048+150+44+150 = 1392 µs, 7 per
    /// event: 244 × 8 × 7 / 10 = 1366.4 kbps, and nothing within reach raises it.
    func testAtTheCeiling() {
        let c = C(interval: 8, phy: .le2M, dataLength: 251, mtu: 247, transfer: .writeCommands)
        XCTAssertEqual(c.exchangesPerEvent, 7)
        XCTAssertEqual(c.kbps, 1366.4, accuracy: 1e-9)
        XCTAssertNil(c.firstLimit)
    }

    /// 50 ms, LE 1M, 27, MTU 185, write requests: 189 bytes in 7 LL packets, 73 exchanges per
    /// event, so a write and its response take 2 events: 182 × 8 / 100 = 14.56 kbps. Without
    /// response: 182 × 8 × 73 / (7 × 50) = 303.68; at 7.5 ms: 11 exchanges, still 2 events,
    /// 182 × 8 / 15 = 97.07; MTU 247 and 251: 244 × 8 / 100 = 19.52.
    func testWriteRequests() {
        let c = C(interval: 40, phy: .le1M, dataLength: 27, mtu: 185, transfer: .writeRequests)
        XCTAssertEqual(c.fragments, 7)
        XCTAssertEqual(c.exchangesPerEvent, 73)
        XCTAssertEqual(c.eventsPerTransaction, 2)
        XCTAssertEqual(c.kbps, 14.56, accuracy: 1e-9)
        XCTAssertEqual(c.limits.map(\.parameter), ["transfer", "interval", "mtu"])
        XCTAssertEqual(c.limits.map(\.kbps)[0], 303.68, accuracy: 1e-9)
        XCTAssertEqual(c.limits.map(\.kbps)[1], 1456.0 / 15, accuracy: 1e-9)
        XCTAssertEqual(c.limits.map(\.kbps)[2], 19.52, accuracy: 1e-9)
        XCTAssertEqual(c.firstLimit?.sentence,
                       "Write Requests wait for their response: one write every 2 connection events; Write Without Response would allow about 303.7 kbps at this interval")
    }

    /// 40 ms, LE Coded, 27, MTU 23: 2448+150+720+150 = 3468 µs, 11 per event, 20 × 8 × 11 / 40 =
    /// 44 kbps. LE 2M: 152+150+44+150 = 496 µs, 80 per event, 320 kbps; MTU 247 and 251 on
    /// Coded: 16784+150+720+150 = 17804 µs, 2 per event, 244 × 8 × 2 / 40 = 97.6 kbps.
    func testCodedPHY() {
        let c = C(interval: 32, phy: .leCoded, dataLength: 27, mtu: 23, transfer: .notifications)
        XCTAssertEqual(c.exchangeTime, 3468)
        XCTAssertEqual(c.kbps, 44, accuracy: 1e-9)
        XCTAssertEqual(c.limits.map(\.parameter), ["phy", "mtu"])
        XCTAssertEqual(c.limits[0].kbps, 320, accuracy: 1e-9)
        XCTAssertEqual(c.limits[1].kbps, 97.6, accuracy: 1e-9)
        XCTAssertEqual(c.firstLimit?.sentence, "LE Coded PHY (long range): LE 2M would allow about 320 kbps at this interval")
    }

    /// An interval outside 7.5 ms to 4 s (a fuzzer found 0 on a damaged LE Connection Complete,
    /// which made the ceiling infinite and its formatting trap) is held to the nearest allowed
    /// one: 0 models 7.5 ms, whose write-request ceiling is 182 × 8 / 15 (see above).
    func testIntervalOutsideTheSpecificationIsHeldToItsRange() {
        let zero = C(interval: 0, phy: .le1M, dataLength: 27, mtu: 185, transfer: .writeRequests)
        XCTAssertEqual(zero.interval, 6)
        XCTAssertEqual(zero.kbps, 1456.0 / 15, accuracy: 1e-9)
        XCTAssertEqual(C(interval: 0xFFFF, phy: .le1M, dataLength: 27, mtu: 23, transfer: .notifications).interval, 3200)
        XCTAssertEqual(C.format(.infinity), "unbounded")
        XCTAssertEqual(C.format(.nan), "?")
    }

    /// A credit-based channel, MPS 247, LE 2M, 251, 20 ms: 251-byte PDUs, 14 per event, 247 × 8 ×
    /// 14 / 20 = 1383.2 kbps. Data length 27 instead: 10 LL packets per K-frame of 251 bytes.
    func testCreditBasedChannel() {
        let c = C(interval: 16, phy: .le2M, dataLength: 251, mtu: 23, transfer: .creditBased(mps: 247))
        XCTAssertEqual(c.kbps, 1383.2, accuracy: 1e-9)
        XCTAssertNil(c.firstLimit)
        let short = C(interval: 16, phy: .le2M, dataLength: 27, mtu: 23, transfer: .creditBased(mps: 247))
        XCTAssertEqual(short.fragments, 10)
        XCTAssertEqual(short.firstLimit?.parameter, "data_length")
    }
}

/// `btlog stats` over a capture taken from the air: CONNECT_IND opens the connection, LL
/// Control procedures change it, LL_TERMINATE_IND ends it, advertisers count as devices.
final class AirStatisticsTests: XCTestCase {
    func testTheAirScenarioConnections() throws {
        let decoder = Decoder()
        var collector = StatisticsCollector()
        for frame in AirScenario.frames(.nordicBLE) { try collector.consume(decoder.decode(frame)) }
        let report = collector.finish()
        XCTAssertEqual(report.totals.air, report.totals.packets)
        XCTAssertTrue(report.controllers.isEmpty, "a sniffer is no controller")
        XCTAssertEqual(report.connections.count, 2)
        let first = report.connections[0]
        XCTAssertEqual(first.address, BDAddr("C8:19:2A:3B:4C:5A"))
        XCTAssertEqual(first.transport, .le)
        XCTAssertEqual(first.role, .central)
        XCTAssertEqual(first.parameters.interval, 40, "LL_CONNECTION_UPDATE_IND's 50 ms, in 1.25 ms units")
        XCTAssertEqual(first.parameters.supervisionTimeout, 100)
        XCTAssertEqual(first.parameters.maxTxOctets, 27, "the peripheral's LL_LENGTH_RSP takes 27")
        XCTAssertEqual(first.parameters.encrypted, true)
        XCTAssertEqual(first.disconnectReason, 0x13)
        XCTAssertEqual(first.timeline.map(\.event).prefix(2), ["CONNECT_IND", "LL_LENGTH_REQ"])
        XCTAssertGreaterThan(first.bytesSent, 0)
        XCTAssertEqual(report.connections[1].disconnectReason, 0x13)
        let sensor = try XCTUnwrap(report.devices.first { $0.address == BDAddr("C8:19:2A:3B:4C:5A") })
        XCTAssertEqual(sensor.name, "btlog Air")
        XCTAssertEqual(sensor.advertisingReports, 7, "six ADV_IND and a SCAN_RSP; the scan request is the phone's")
        XCTAssertEqual(report.att.opcodes[0x1B], 3)
    }

    /// `btlog diagnose` over links from the air: the scenario as captured, then damaged on
    /// purpose (packets with bad CRCs, packets sent again, a ciphertext altered so its MIC
    /// fails, and a capture without LL_ENC_REQ so no key applies). What the sniffer took badly
    /// or had no key for is the capture's gap; what the devices did is a problem.
    func testDiagnosisOfLinksFromTheAir() throws {
        func diagnose(_ packets: [AirPacket]) throws -> (CaptureReport, [Problem], [CaptureGap]) {
            let decoder = Decoder()
            var collector = StatisticsCollector()
            for (index, packet) in packets.enumerated() { try collector.consume(decoder.decode(packet.frame(.nordicBLE, number: index + 1))) }
            let report = collector.finish()
            return (report, Diagnosis.problems(in: report), Diagnosis.completeness(in: report))
        }
        let original = AirScenario.packets()
        let (clean, cleanProblems, cleanGaps) = try diagnose(original)
        let quality = try XCTUnwrap(clean.connections[0].air)
        XCTAssertEqual(quality.badCRC, 1, "the scenario's one damaged packet")
        XCTAssertEqual(quality.retransmissions, 1)
        XCTAssertEqual(quality.micFailures + quality.undecrypted, 0, "every encrypted packet decrypted")
        XCTAssertEqual(quality.missed, 0, "the sniffer heard every packet")
        XCTAssertFalse(cleanProblems.contains { $0.category == .radio }, "one in a hundred is no problem")
        XCTAssertEqual(cleanProblems.filter { $0.summary.contains("LL_CONNECTION_PARAM_REQ") }.count, 1, "the refused parameters request")
        XCTAssertEqual(cleanGaps, [])

        // Damaged: every fourth data PDU of the first link received with a bad CRC, and sent again after.
        var noisy: [AirPacket] = []
        for (index, packet) in original.enumerated() {
            guard packet.accessAddress == AirScenario.accessAddress, index % 4 == 0, !packet.encrypted, packet.pdu[1] > 0 else {
                noisy.append(packet)
                continue
            }
            var damaged = packet
            damaged.damaged = true
            noisy.append(damaged)
            var again = packet
            again.time += 5
            noisy.append(packet)
            noisy.append(again)
        }
        let (_, noisyProblems, noisyGaps) = try diagnose(noisy)
        let radio = noisyProblems.filter { $0.category == .radio }
        XCTAssertEqual(radio.map(\.summary).filter { $0.contains("sent again, not acknowledged") }.count, 1, "\(noisyProblems.map(\.summary))")
        XCTAssertEqual(radio.count, 1, "the sniffer's bad copies are no problem of the link")
        XCTAssertTrue(noisyGaps.contains { $0.kind == .damagedAtSniffer && $0.handle == 1 }, "\(noisyGaps.map(\.summary))")

        // A ciphertext altered after the link's key was found: its MIC fails, and the link goes
        // on, so it is the sniffer's copy; ended for it (LL_TERMINATE_IND, MIC Failure), the
        // devices' failure.
        var altered = original
        let encrypted = altered.indices.filter { altered[$0].encrypted }
        altered[encrypted[4]].pdu[3] ^= 0x40
        let (alteredReport, alteredProblems, alteredGaps) = try diagnose(altered)
        XCTAssertEqual(alteredReport.connections[0].air?.micFailures, 1)
        XCTAssertFalse(alteredProblems.contains { $0.summary.contains("MIC") }, "\(alteredProblems.map(\.summary))")
        let copy = try XCTUnwrap(alteredGaps.first { $0.kind == .notAuthenticated })
        XCTAssertEqual(copy.frames, [encrypted[4] + 1])
        XCTAssertEqual(copy.handle, 1)
        // The same packets on a link the devices then ended for MIC Failure: theirs, an error,
        // said once with its packets (not a second time as a disconnection).
        var report = alteredReport
        report.connections[0].disconnectReason = 0x3D
        let failures = Diagnosis.problems(in: report).filter { $0.handle == 1 && ($0.category == .encryption || $0.category == .disconnection) }
        XCTAssertEqual(failures.map(\.severity), [.error], "\(failures.map(\.summary))")
        XCTAssertTrue(failures[0].summary.hasPrefix("MIC failure: 1 encrypted packet did not authenticate, then the link ended for it (MIC Failure, 0x3D)"), failures[0].summary)
        XCTAssertEqual(failures[0].frames, [encrypted[4] + 1, report.connections[0].endFrame!])
        XCTAssertFalse(Diagnosis.completeness(in: report).contains { $0.kind == .notAuthenticated })

        // Without LL_ENC_REQ no session key can be made: the encrypted packets stay sealed, the
        // capture's gap on both links.
        let unkeyed = original.filter { !($0.pdu[0] & 0x03 == 3 && $0.pdu.count > 2 && $0.pdu[2] == 0x03) }
        let (_, unkeyedProblems, unkeyedGaps) = try diagnose(unkeyed)
        XCTAssertFalse(unkeyedProblems.contains { $0.category == .encryption })
        let sealed = unkeyedGaps.filter { $0.kind == .noKey }
        XCTAssertEqual(sealed.count, 2, "both links")
        XCTAssertEqual(sealed.first?.handle, 1)
    }

    /// Records a capture cut short (a snap length, a filtered snoop log) and records its tool
    /// dropped are the capture's gaps, with the bytes left out.
    func testTruncatedAndDroppedRecordsAreGaps() throws {
        let frames = Scenarios.heartRateSession()
        let decoder = Decoder()
        var collector = StatisticsCollector()
        var cut: [Int] = []
        for (index, original) in frames.enumerated() {
            // Android's filtered snoop mode keeps the headers of ACL packets, not their payloads.
            let keep = original.kind == .aclData && original.bytes.count > 12 ? 12 : original.bytes.count
            if keep < original.bytes.count { cut.append(index + 1) }
            let frame = Frame(number: index + 1, timestamp: original.timestamp, kind: original.kind, direction: original.direction,
                              bytes: original.bytes.prefix(keep), originalLength: original.bytes.count)
            try collector.consume(decoder.decode(frame))
        }
        let gaps = Diagnosis.completeness(in: collector.finish())
        let truncated = try XCTUnwrap(gaps.first { $0.kind == .truncatedRecords })
        XCTAssertEqual(truncated.count, cut.count)
        XCTAssertEqual(truncated.frames, Array(cut.prefix(20)))
        XCTAssertTrue(truncated.summary.hasPrefix("\(cut.count) records cut short by the capture"), truncated.summary)
        XCTAssertTrue(truncated.advice.contains("filtered"), truncated.advice)
    }

    /// A BR/EDR baseband capture: the L2CAP its ACL payloads carry counts for the piconet link.
    func testBasebandLinks() throws {
        let decoder = Decoder()
        var collector = StatisticsCollector()
        for frame in BasebandScenario.frames() { try collector.consume(decoder.decode(frame)) }
        let report = collector.finish()
        XCTAssertEqual(report.totals.baseband, 14)
        XCTAssertEqual(report.totals.air, 0)
        XCTAssertEqual(report.connections.count, 1)
        XCTAssertEqual(report.connections.first?.transport, .bredr)
        // Echo request and response, the first fragment and the PDU reassembled at the second (as
        // HCI ACL counts them), the 3-DH5's PDU; not the damaged DH1, nor LMP, voice or FHS.
        XCTAssertEqual(report.connections.first?.bytesReceived, 12 + 12 + 14 + 24 + 304)
    }

    /// A capture that joins a connection after its CONNECT_IND: the link is LE, its start and
    /// parameters unknown, not made up from its first packet.
    func testAConnectionJoinedMidway() throws {
        let decoder = Decoder()
        var collector = StatisticsCollector()
        let packets = AirScenario.packets()
        let joined = try XCTUnwrap(packets.firstIndex { $0.accessAddress == AirScenario.accessAddress && $0.pdu[1] > 0 && $0.pdu[0] & 3 == 2 })
        for (index, packet) in packets[joined...].enumerated() where packet.accessAddress == AirScenario.accessAddress {
            try collector.consume(decoder.decode(packet.frame(.nordicBLE, number: index + 1)))
        }
        let report = collector.finish()
        let link = try XCTUnwrap(report.connections.first)
        XCTAssertEqual(link.transport, .le)
        XCTAssertNil(link.start)
        XCTAssertNil(link.parameters.interval)
        XCTAssertGreaterThan(link.air?.dataPDUs ?? 0, 20)
    }
}

/// ATT transactions in `stats` are the decoder's: a response closes the request its
/// `att.request_in` names, so requests and indications waiting on one link stay apart.
final class ATTTransactionStatisticsTests: XCTestCase {
    func testRequestsAndIndicationsOfOneSideWaitApart() throws {
        var b = PacketBuilder(start: 1_557_356_668_000_000)
        b.leConnectionComplete(handle: 0x0040, role: 0, peerType: 0, peer: "C0:FF:EE:12:34:56")
        // The local side reads as a client, then indicates as a server before the answer.
        b.att(handle: 0x0040, [0x0A, 0x03, 0x00], sent: true)                 // Read Request, handle 3
        b.att(handle: 0x0040, [0x1D, 0x09, 0x00, 0x01], sent: true, after: 2000) // Handle Value Indication
        b.att(handle: 0x0040, [0x0B, 0x41, 0x42], sent: false, after: 8000)   // Read Response, 10 ms after the request
        b.att(handle: 0x0040, [0x1E], sent: false, after: 4000)               // Confirmation
        // A second request before the first is answered replaces it (the decoder stops waiting too).
        b.att(handle: 0x0040, [0x0A, 0x05, 0x00], sent: true)
        b.att(handle: 0x0040, [0x0A, 0x07, 0x00], sent: true, after: 3000)
        b.att(handle: 0x0040, [0x0B, 0x43], sent: false, after: 5000)
        let decoder = Decoder()
        var collector = StatisticsCollector()
        for frame in b.frames { try collector.consume(decoder.decode(frame)) }
        let report = collector.finish()
        XCTAssertEqual(report.att.unanswered.map(\.frame), [6])
        XCTAssertEqual(report.att.unanswered.first?.end, .superseded)
        XCTAssertEqual(report.att.unanswered.first?.waited, 3000)
        // Latency counts the reads (10 ms and 5 ms), not the indication's confirmation.
        XCTAssertEqual(report.att.latency.count, 2)
        XCTAssertEqual(report.att.latencyByRequest[0x0A]?.maximum, 10_000)
        XCTAssertEqual(report.att.latencyByRequest[0x0A]?.minimum, 5000)
        let reads = report.characteristics.filter { $0.reads > 0 }.map(\.handle).sorted()
        XCTAssertEqual(reads, [0x0003, 0x0007], "each Read Response counts for the handle its request named")
    }
}

/// `--redact`'s pseudonyms: the addresses that mean none stay as they are and spend no number.
final class AddressPseudonymTests: XCTestCase {
    func testNoAddressKeepsItselfAndRealOnesCountFromOne() {
        let pseudonyms = AddressPseudonyms()
        XCTAssertEqual(pseudonyms.pseudonym(for: BDAddr("00:00:00:00:00:00")), BDAddr("00:00:00:00:00:00"))
        XCTAssertEqual(pseudonyms.pseudonym(for: BDAddr("FF:FF:FF:FF:FF:FF")), BDAddr("FF:FF:FF:FF:FF:FF"))
        XCTAssertEqual(pseudonyms.pseudonym(for: BDAddr("C0:FF:EE:12:34:56")), BDAddr("C2:00:00:00:00:01"))
        XCTAssertEqual(pseudonyms.pseudonym(for: BDAddr("C0:FF:EE:12:34:56")), BDAddr("C2:00:00:00:00:01"))
        XCTAssertEqual(pseudonyms.all.count, 1)
    }
}

/// Link quality from Android's Bluetooth Quality Reports: the samples on the link their handle
/// names, the connect failure, and the diagnosis rules over them, against what the scenario built.
final class LinkQualityTests: XCTestCase {
    func report() throws -> (CaptureReport, [String: Int]) {
        let (frames, marks) = Scenarios.androidVendorSession()
        let decoder = Decoder()
        var collector = StatisticsCollector()
        for frame in frames { try collector.consume(decoder.decode(frame)) }
        return (collector.finish(), marks)
    }

    func testSamplesFollowTheReports() throws {
        let (report, marks) = try report()
        let link = try XCTUnwrap(report.connections.first { $0.handle == 0x000B })
        XCTAssertEqual(link.quality.map(\.frame), (0 ..< 6).map { marks["monitor\($0)"]! }
                       + [marks["a2dpChoppy"]!, marks["scoChoppy"]!, marks["approachingLSTO"]!])
        XCTAssertEqual(link.quality.prefix(6).map(\.rssi), [-58, -63, -71, -79, -86, -91])
        XCTAssertEqual(link.quality.prefix(6).map(\.retransmissions), [2, 5, 14, 40, 118, 260])
        // v6 reports count the packets sent: 260 of 1100 were sent again.
        XCTAssertEqual(link.quality[5].retransmissionRate!, 260.0 / 1100.0, accuracy: 1e-9)
        XCTAssertEqual(link.quality[6].glitches, 7)
        XCTAssertEqual(link.quality[6].coexistenceDenials, 4, "3 TX and 1 RX denials")
        XCTAssertEqual(link.quality[7].detail, "Transparent (mSBC)")
        XCTAssertEqual(report.connectFailures, [ConnectFailure(frame: marks["connectFail"]!, time: report.connectFailures.first?.time ?? 0,
                                                               controller: 0, address: BDAddr("00:1B:66:AA:BB:CC"), reason: 0x04)])
    }

    func testDiagnosisOverTheReports() throws {
        let (report, marks) = try report()
        let problems = Diagnosis.problems(in: report)
        func find(_ text: String) -> Problem? { problems.first { $0.summary.contains(text) } }
        let lsto = try XCTUnwrap(find("approached its supervision timeout"))
        XCTAssertEqual(lsto.severity, .error, "the link was then lost to a supervision timeout")
        XCTAssertEqual(lsto.frames, [marks["approachingLSTO"]!, marks["supervisionTimeout"]!])
        let weak = try XCTUnwrap(find("Weak signal"))
        XCTAssertEqual(weak.frames, [marks["monitor4"]!, marks["monitor5"]!, marks["a2dpChoppy"]!, marks["scoChoppy"]!, marks["approachingLSTO"]!],
                       "the reports below -85 dBm")
        let retransmissions = try XCTUnwrap(find("Retransmissions above 10%"))
        XCTAssertEqual(retransmissions.frames, [marks["monitor4"]!, marks["monitor5"]!], "118/1060 and 260/1100 are above 10%, 40/1020 is not")
        let a2dp = try XCTUnwrap(find("A2DP audio choppy"))
        XCTAssertTrue(a2dp.summary.contains("coexistence denied the radio 4 times"), a2dp.summary)
        XCTAssertEqual(a2dp.category, .audio)
        XCTAssertNotNil(find("SCO voice choppy"))
        let failed = try XCTUnwrap(find("Connection failed (quality report): Page Timeout (0x04)"))
        XCTAssertEqual(failed.frames, [marks["connectFail"]!])
    }
}
