import XCTest
@testable import BTCapture
import BTFixtures

/// Readers on bytes laid out by hand from each format's description, not from btlog's writers.
final class ReaderTests: XCTestCase {
    func readAll(_ bytes: [UInt8], options: InputOptions = InputOptions()) throws -> ([Frame], [CaptureWarning], FrameReader) {
        let reader = try CaptureInput.open(bytes: bytes, options: options)
        var frames: [Frame] = []
        while let frame = try reader.next() { frames.append(frame) }
        return (frames, reader.warnings, reader)
    }

    // "btsnoop\0", version 1, datalink.
    func btsnoopHeader(_ datalink: UInt32) -> [UInt8] {
        [0x62, 0x74, 0x73, 0x6E, 0x6F, 0x6F, 0x70, 0x00, 0, 0, 0, 1] + be32(datalink)
    }

    // One record: original length, included length, flags, drops, 64-bit timestamp (µs since 0 AD).
    func btsnoopRecord(_ data: [UInt8], flags: UInt32, drops: UInt32 = 0, unixMicros: Int64) -> [UInt8] {
        let stamp = UInt64(unixMicros + 0x00DC_DDB3_0F2F_8000)
        return be32(UInt32(data.count)) + be32(UInt32(data.count)) + be32(flags) + be32(drops)
            + be32(UInt32(stamp >> 32)) + be32(UInt32(stamp & 0xFFFF_FFFF)) + data
    }

    func testBTSnoopUART() throws {
        // HCI Reset (01 03 0C 00) sent, then its Command Complete (04 0E 04 01 03 0C 00) received.
        let file = btsnoopHeader(1002)
            + btsnoopRecord([0x01, 0x03, 0x0C, 0x00], flags: 2, unixMicros: 1_557_356_679_824_000)
            + btsnoopRecord([0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00], flags: 3, drops: 2, unixMicros: 1_557_356_679_825_500)
        let (frames, warnings, reader) = try readAll(file)
        XCTAssertEqual(warnings.count, 0)
        XCTAssertEqual(reader.nativeFormat, .btsnoopH4)
        XCTAssertEqual(frames.count, 2)
        XCTAssertEqual(frames[0].kind, .command)
        XCTAssertEqual(frames[0].direction, .sent)
        XCTAssertEqual(Array(frames[0].bytes), [0x03, 0x0C, 0x00])
        XCTAssertEqual(frames[0].timestamp, 1_557_356_679_824_000)
        XCTAssertEqual(frames[1].kind, .event)
        XCTAssertEqual(frames[1].direction, .received)
        XCTAssertEqual(frames[1].drops, 2)
        XCTAssertEqual(frames[1].number, 2)
        XCTAssertEqual(frames[1].originalLength, 6)
    }

    func testBTSnoopHCIDatalinkTakesTypeFromFlags() throws {
        // 1001: flags bit 1 = command/event, bit 0 = received.
        let file = btsnoopHeader(1001)
            + btsnoopRecord([0x03, 0x0C, 0x00], flags: 2, unixMicros: 0)
            + btsnoopRecord([0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00], flags: 3, unixMicros: 1)
            + btsnoopRecord([0x44, 0x20, 0x01, 0x00, 0xAA], flags: 1, unixMicros: 2)
        let (frames, _, _) = try readAll(file)
        XCTAssertEqual(frames.map(\.kind), [.command, .event, .aclData])
        XCTAssertEqual(frames.map(\.direction), [.sent, .received, .received])
    }

    func testBTSnoopMonitorCarriesIndexAndOpcode() throws {
        // 2001: flags = controller index << 16 | monitor opcode. Opcode 3 = event, 12 = system note.
        let file = btsnoopHeader(2001)
            + btsnoopRecord([0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00], flags: 0x0001_0003, unixMicros: 5)
            + btsnoopRecord(Array("hello".utf8) + [0], flags: 0xFFFF_000C, unixMicros: 6)
            + btsnoopRecord([0x02, 0x00, 0x05, 0x00, 0xAA], flags: 0x0000_0005, unixMicros: 7)
        let (frames, _, reader) = try readAll(file)
        XCTAssertEqual(reader.nativeFormat, .btsnoopMonitor)
        XCTAssertEqual(frames[0].controller, 1)
        XCTAssertEqual(frames[0].kind, .event)
        XCTAssertEqual(frames[1].kind, .note)
        XCTAssertEqual(frames[1].controller, 0xFFFF)
        XCTAssertEqual(frames[2].kind, .aclData)
        XCTAssertEqual(frames[2].direction, .received)
    }

    func testBTSnoopTruncatedLastRecordKeepsEarlierRecords() throws {
        let whole = btsnoopHeader(1002) + btsnoopRecord([0x01, 0x03, 0x0C, 0x00], flags: 2, unixMicros: 0)
        let second = btsnoopRecord([0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00], flags: 3, unixMicros: 1)
        for cut in 1 ..< second.count {
            let (frames, warnings, _) = try readAll(whole + second.prefix(cut))
            XCTAssertEqual(frames.count, 1, "cut at \(cut)")
            XCTAssertEqual(warnings.count, 1)
            XCTAssertTrue(warnings[0].message.contains("byte 44"), warnings[0].message)
        }
    }

    func testBTSnoopHeaderErrors() {
        XCTAssertThrowsError(try readAll(btsnoopHeader(1002).prefix(12).map { $0 })) { error in
            XCTAssertTrue("\(error)".contains("cut short"), "\(error)")
        }
        XCTAssertThrowsError(try readAll(btsnoopHeader(9999))) { error in
            XCTAssertTrue("\(error)".contains("unsupported btsnoop datalink 9999"), "\(error)")
        }
        var v2 = btsnoopHeader(1002)
        v2[11] = 2
        XCTAssertThrowsError(try readAll(v2)) { XCTAssertTrue("\($0)".contains("version 2")) }
    }

    func testImpossibleLengthDoesNotAllocate() throws {
        // A record claiming 4 GB in a 60-byte file: a warning, no allocation, no crash.
        var record = btsnoopRecord([0x01, 0x03, 0x0C, 0x00], flags: 2, unixMicros: 0)
        record.replaceSubrange(4 ..< 8, with: [0xFF, 0xFF, 0xFF, 0xF0])
        let (frames, warnings, _) = try readAll(btsnoopHeader(1002) + record)
        XCTAssertEqual(frames.count, 0)
        XCTAssertTrue(warnings.first?.message.contains("claims") ?? false)
    }

    // PacketLogger: length (of what follows it), seconds, microseconds, type, payload.
    func pklgRecord(_ type: UInt8, _ payload: [UInt8], seconds: UInt32, micros: UInt32, littleEndian: Bool) -> [UInt8] {
        let length = UInt32(9 + payload.count)
        let header = littleEndian ? le32(length) + le32(seconds) + le32(micros) : be32(length) + be32(seconds) + be32(micros)
        return header + [type] + payload
    }

    func testPacketLoggerBothByteOrders() throws {
        for littleEndian in [true, false] {
            let file = pklgRecord(0x00, [0x03, 0x0C, 0x00], seconds: 1_557_356_679, micros: 824_000, littleEndian: littleEndian)
                + pklgRecord(0x01, [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00], seconds: 1_557_356_679, micros: 825_000, littleEndian: littleEndian)
                + pklgRecord(0x03, [0x44, 0x20, 0x01, 0x00, 0xAA], seconds: 1_557_356_680, micros: 0, littleEndian: littleEndian)
                + pklgRecord(0xFC, Array("note".utf8), seconds: 1_557_356_680, micros: 1, littleEndian: littleEndian)
            let (frames, warnings, reader) = try readAll(file)
            XCTAssertEqual((reader as? PacketLoggerReader)?.littleEndian, littleEndian)
            XCTAssertTrue(warnings.isEmpty)
            XCTAssertEqual(frames.map(\.kind), [.command, .event, .aclData, .note])
            XCTAssertEqual(frames.map(\.direction), [.sent, .received, .received, .none])
            XCTAssertEqual(frames[0].timestamp, 1_557_356_679_824_000)
            XCTAssertEqual(Array(frames[3].bytes), Array("note".utf8))
            XCTAssertEqual(frames[3].controller, Frame.systemController)
        }
    }

    func testPacketLoggerRecordTypesAndLongRecords() throws {
        // Every non-HCI type is its own kind; a 2,000-byte record (btmon 5.66 stops at 1,490) is read.
        let types: [(UInt8, FrameKind)] = [(0xF7, .syslog), (0xF8, .kernel), (0xF9, .kernelDebug), (0xFA, .error),
                                           (0xFB, .power), (0xFC, .note), (0xFD, .config), (0xFE, .newController),
                                           (0x08, .scoData), (0x09, .scoData), (0x0A, .lmp), (0x0B, .lmp)]
        var file: [UInt8] = []
        for (i, entry) in types.enumerated() {
            file += pklgRecord(entry.0, [0x41, 0x00], seconds: 100, micros: UInt32(i), littleEndian: true)
        }
        file += pklgRecord(0x02, le16(0x0044 | 0x2000) + le16(1996) + [UInt8](repeating: 0x55, count: 1996),
                           seconds: 101, micros: 0, littleEndian: true)
        let (frames, warnings, _) = try readAll(file)
        XCTAssertTrue(warnings.isEmpty)
        XCTAssertEqual(frames.prefix(types.count).map(\.kind), types.map(\.1))
        XCTAssertEqual(frames.last?.bytes.count, 2000)
    }

    func testPacketLoggerUTCOffset() throws {
        let file = pklgRecord(0x00, [0x03, 0x0C, 0x00], seconds: 7200, micros: 5, littleEndian: true)
        let (frames, _, _) = try readAll(file, options: InputOptions(pklgUTCOffset: 2 * 3600 * 1_000_000))
        XCTAssertEqual(frames[0].timestamp, 5)
    }

    func testPacketLoggerTruncated() throws {
        let first = pklgRecord(0x00, [0x03, 0x0C, 0x00], seconds: 1, micros: 0, littleEndian: true)
        let second = pklgRecord(0x01, [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00], seconds: 1, micros: 1, littleEndian: true)
        let (frames, warnings, _) = try readAll(first + first + second.dropLast(2))
        XCTAssertEqual(frames.count, 2)
        XCTAssertTrue(warnings[0].message.contains("byte 32"), warnings[0].message)
    }

    func writeTemporary(_ bytes: [UInt8], suffix: String = "") throws -> String {
        let path = NSTemporaryDirectory() + "btlog-test-\(UUID().uuidString)\(suffix)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    func pcapFile(linkType: UInt32, records: [[UInt8]]) -> [UInt8] {
        // Little-endian pcap: magic, 2.4, zone, sigfigs, snaplen, link type; records ts_sec, ts_usec, incl, orig.
        var out = le32(0xA1B2_C3D4) + le16(2) + le16(4) + le32(0) + le32(0) + le32(65535) + le32(linkType)
        for (i, data) in records.enumerated() {
            out += le32(1_557_356_679) + le32(UInt32(i)) + le32(UInt32(data.count)) + le32(UInt32(data.count)) + data
        }
        return out
    }

    func testPcapH4WithDirection() throws {
        let file = pcapFile(linkType: 201, records: [
            be32(0) + [0x01, 0x03, 0x0C, 0x00],
            be32(1) + [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00],
        ])
        for viaPath in [true, false] {
            let reader = viaPath ? try CaptureInput.open(try writeTemporary(file)) : try CaptureInput.open(bytes: file)
            var frames: [Frame] = []
            while let frame = try reader.next() { frames.append(frame) }
            XCTAssertEqual(frames.map(\.kind), [.command, .event])
            XCTAssertEqual(frames.map(\.direction), [.sent, .received])
            XCTAssertEqual(frames[1].timestamp, 1_557_356_679_000_001)
            XCTAssertEqual(Array(frames[0].bytes), [0x03, 0x0C, 0x00])
        }
    }

    func testStreamedPcapReportsCorruptCompressionAndStopsEarlyQuietly() throws {
        let records = (0 ..< 40_000).map { _ in be32(0) + [0x01, 0x03, 0x0C, 0x00] }
        let file = pcapFile(linkType: 201, records: records)
        // Cut the gzip short: the frames before the damage are read and the warning says why it ended.
        let cut = Array(FixtureContainers.gzip(file).dropLast(40))
        let (frames, warnings, _) = try readAll(cut)
        XCTAssertGreaterThan(frames.count, 30_000)
        XCTAssertTrue(warnings.first?.message.contains("compressed data ends early") ?? false, "\(warnings)")
        // A reader dropped after one record ends the copying thread without a SIGPIPE.
        do {
            let reader = try CaptureInput.open(bytes: file)
            XCTAssertNotNil(try reader.next())
        }
        Thread.sleep(forTimeInterval: 0.2)
    }

    func testPcapMonitorHeaderIsBigEndian() throws {
        let file = pcapFile(linkType: 254, records: [be16(2) + be16(3) + [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]])
        let (frames, _, _) = try readAll(file)
        XCTAssertEqual(frames[0].controller, 2)
        XCTAssertEqual(frames[0].kind, .event)
    }

    func testPcapUnsupportedLinkTypeIsNamed() throws {
        let file = pcapFile(linkType: 1, records: [[0x00]])
        XCTAssertThrowsError(try readAll(file)) { error in
            XCTAssertTrue("\(error)".contains("unsupported link type 1 (EN10MB)"), "\(error)")
            XCTAssertTrue("\(error)".contains("255 (BR/EDR baseband)"), "\(error)")
        }
        // BR/EDR baseband from the air is read, its record whole.
        let (frames, _, _) = try readAll(pcapFile(linkType: 255, records: [[0x00, 0x01]]))
        XCTAssertEqual(frames.map(\.kind), [.air(.bredrBB)])
        XCTAssertEqual(frames.first.map { Array($0.bytes) }, [0x00, 0x01])
    }

    func testNotACapture() {
        XCTAssertThrowsError(try readAll([0x50, 0x4B, 0x05, 0x06, 0x00, 0x01, 0x02, 0xFF, 0xFE])) { error in
            XCTAssertTrue("\(error)".contains("not a btsnoop, PacketLogger or pcap file (first bytes 50 4b 05 06 00 01 02 ff)"), "\(error)")
        }
        XCTAssertThrowsError(try readAll([])) { XCTAssertTrue("\($0)".contains("empty file")) }
        XCTAssertThrowsError(try readAll([UInt8](repeating: 0, count: 5000))) { XCTAssertTrue("\($0)".contains("not a btsnoop")) }
        XCTAssertThrowsError(try readAll(Array("just some words\n".utf8))) { XCTAssertTrue("\($0)".contains("btsnooz")) }
    }

    func testGzipIsTransparent() throws {
        let file = btsnoopHeader(1002) + btsnoopRecord([0x01, 0x03, 0x0C, 0x00], flags: 2, unixMicros: 0)
        let (frames, _, _) = try readAll(FixtureContainers.gzip(file))
        XCTAssertEqual(frames.count, 1)
        let truncated = Array(FixtureContainers.gzip(file).dropLast(12))
        XCTAssertThrowsError(try readAll(truncated))
    }

    func testH5LinkPacketsMapToHCI() throws {
        // SLIP-framed H5 packet: header [seq 0 reliable, type 1 (command) | len 3 << 4, len high 0, checksum].
        let header: [UInt8] = [0x80, 0x31, 0x00, ~(0x80 &+ 0x31)]
        let packet: [UInt8] = [0xC0] + header + [0x03, 0x0C, 0x00] + [0xC0]
        let ack: [UInt8] = [0xC0, 0x08, 0x00, 0x00, 0xF7, 0xC0]
        let file = btsnoopHeader(1004) + btsnoopRecord(packet, flags: 0, unixMicros: 0) + btsnoopRecord(ack, flags: 0, unixMicros: 1)
        let (frames, _, _) = try readAll(file)
        XCTAssertEqual(frames[0].kind, .command)
        XCTAssertEqual(Array(frames[0].bytes), [0x03, 0x0C, 0x00])
        XCTAssertEqual(frames[1].kind, .linkControl)
    }

    func testBtsnoozVersion1() throws {
        // Version 1, last time 1,000,000 µs, then zlib of one record: length 4 (type + 3 bytes),
        // delta 0, type 0x20 (command sent), 03 0C 00.
        let records: [UInt8] = le16(4) + le32(0) + [0x20, 0x03, 0x0C, 0x00]
        let blob: [UInt8] = [0x01] + le32(1_000_000) + le32(0) + FixtureContainers.zlibCompress(records)
        let text = "header\n--- BEGIN:BTSNOOP_LOG_SUMMARY (x bytes in) ---\n" + Data(blob).base64EncodedString()
            + "\n--- END:BTSNOOP_LOG_SUMMARY ---\n"
        let (frames, _, _) = try readAll(Array(text.utf8))
        XCTAssertEqual(frames.count, 1)
        XCTAssertEqual(frames[0].kind, .command)
        XCTAssertEqual(frames[0].timestamp, 1_000_000)
        XCTAssertEqual(Array(frames[0].bytes), [0x03, 0x0C, 0x00])
    }
}
