import XCTest
@testable import BTCapture
import BTFixtures

/// Containers, round trips and the committed fixtures.
final class FixtureTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures").path

    func read(_ reader: FrameReader) throws -> [Frame] {
        var frames: [Frame] = []
        while let frame = try reader.next() { frames.append(frame) }
        return frames
    }

    func fixture(_ name: String) -> String { FixtureTests.fixtures + "/" + name }

    /// Same packets, whatever stored them: compares what every format keeps.
    func assertSamePackets(_ a: [Frame], _ b: [Frame], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.count, b.count, file: file, line: line)
        for (x, y) in zip(a, b) {
            XCTAssertEqual(x.kind, y.kind, "packet \(x.number)", file: file, line: line)
            XCTAssertEqual(x.direction, y.direction, "packet \(x.number)", file: file, line: line)
            XCTAssertEqual(Array(x.bytes), Array(y.bytes), "packet \(x.number)", file: file, line: line)
            XCTAssertEqual(x.timestamp, y.timestamp, "packet \(x.number)", file: file, line: line)
        }
    }

    func testRoundTripEveryWriter() throws {
        for (format, frames) in Scenarios.everyWriterFormat() {
            let bytes = try FixtureContainers.encode(frames, as: format)
            let back = try read(try CaptureInput.open(bytes: bytes))
            XCTAssertEqual(back, frames, "\(format)")
        }
    }

    func testBTSnoopRewriteIsByteIdentical() throws {
        for name in ["wwdc-dual.btsnoop", "wwdc-dual-hci.btsnoop", "wwdc-dual-monitor.btsnoop"] {
            let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture(name))))
            let reader = try CaptureInput.open(fixture(name))
            let sink = MemorySink()
            let writer = try CaptureWriters.make(reader.nativeFormat, sink: sink)
            while let frame = try reader.next() { try writer.write(frame) }
            try writer.close()
            XCTAssertEqual(sink.bytes, original, name)
        }
    }

    func testEveryFixtureFormatHoldsTheSamePackets() throws {
        let reference = try read(try CaptureInput.open(fixture("wwdc-dual.btsnoop")))
        for name in ["wwdc-dual.pcap", "wwdc-dual.btsnoop.gz", "wwdc-dual-hci.btsnoop", "bugreport-btsnooz.txt",
                     "bugreport-demo.zip"] {
            assertSamePackets(try read(try CaptureInput.open(fixture(name))), reference)
        }
        for name in ["wwdc-dual-h5.btsnoop", "wwdc-dual-bcsp.btsnoop"] {
            let hci = try read(try CaptureInput.open(fixture(name))).filter { $0.kind.isHCI }
            XCTAssertEqual(hci.map { Array($0.bytes) }, reference.map { Array($0.bytes) }, name)
            XCTAssertEqual(hci.map(\.kind), reference.map(\.kind), name)
        }
        let pklg = try read(try CaptureInput.open(fixture("wwdc-dual.pklg")))
        let bigEndian = try read(try CaptureInput.open(fixture("wwdc-dual-be.pklg")))
        assertSamePackets(pklg, bigEndian)
        assertSamePackets(pklg.filter { $0.kind.isHCI }, reference)
    }

    func testSysdiagnoseReadsNewestOrChosenMember() throws {
        let newest = try CaptureInput.open(fixture("sysdiagnose_demo.tar.gz"))
        XCTAssertTrue(newest.warnings.first?.message.contains("holds 2 packet log") ?? false)
        XCTAssertEqual(try read(newest).count, Scenarios.wwdcDual().count)
        let older = try CaptureInput.open(fixture("sysdiagnose_demo.tar.gz"),
                                          options: InputOptions(member: "bluetoothd-hci-2019_05_08-22_10_00.pklg"))
        XCTAssertEqual(try read(older).count, 12)
        XCTAssertThrowsError(try CaptureInput.open(fixture("sysdiagnose_demo.tar.gz"), options: InputOptions(member: "nope.pklg")))
    }

    func testSysdiagnoseFolder() throws {
        let folder = NSTemporaryDirectory() + "btlog-sysdiagnose-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder + "/logs/Bluetooth", withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.copyItem(atPath: fixture("wwdc-dual.pklg"), toPath: folder + "/logs/Bluetooth/hci.pklg")
        XCTAssertEqual(try read(try CaptureInput.open(folder)).count, Scenarios.wwdcDual().count)
        let empty = NSTemporaryDirectory() + "btlog-empty-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: empty) }
        XCTAssertThrowsError(try CaptureInput.open(empty)) { XCTAssertTrue("\($0)".contains("no PacketLogger file")) }
    }

    func testBugreportZipListsLogsNewestFirst() throws {
        let reader = try CaptureInput.open(fixture("bugreport-demo.zip"))
        XCTAssertTrue(reader.warnings.first?.message.contains("reading the newest, FS/data/misc/bluetooth/logs/btsnoop_hci.log ") ?? false,
                      reader.warnings.first?.message ?? "")
        let last = try CaptureInput.open(fixture("bugreport-demo.zip"), options: InputOptions(member: "btsnoop_hci.log.last"))
        XCTAssertEqual(try read(last).count, 12)
    }

    func testStandardInputStyleStreamOfPcap() throws {
        // A pcap arriving through a pipe (no file path) is fed to libpcap as it arrives.
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture("wwdc-dual.pcapng"))))
        let streamed = try read(try CaptureInput.open(stream: MemoryStream(bytes), name: "<stdin>", plainFile: nil,
                                                      options: InputOptions(), depth: 0))
        let fromFile = try read(try CaptureInput.open(fixture("wwdc-dual.pcapng")))
        let inMemory = try read(try CaptureInput.open(bytes: bytes))
        XCTAssertEqual(streamed, fromFile)
        XCTAssertEqual(inMemory, fromFile)
    }

    /// btlog's zip reader against an archive Python's zipfile writes: a ZIP64 local header, stored and
    /// deflated members, a member in a folder, a data descriptor (streamed writing).
    func testZipWrittenByAnotherImplementation() throws {
        guard let python = ["/usr/bin/python3", "/usr/local/bin/python3"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw XCTSkip("python3 is not installed")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("btlog-zip-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let zipPath = folder + "/report.zip"
        let script = """
        import sys, zipfile
        log = open(sys.argv[1], 'rb').read()
        with zipfile.ZipFile(sys.argv[2], 'w') as z:
            z.writestr('bugreport-x.txt', 'no btsnooz here\\n', compress_type=zipfile.ZIP_DEFLATED)
            newest = zipfile.ZipInfo('FS/data/misc/bluetooth/logs/btsnoop_hci.log', (2019, 5, 8, 23, 5, 0))
            newest.compress_type = zipfile.ZIP_DEFLATED
            with z.open(newest, 'w', force_zip64=True) as f:
                f.write(log)
            info = zipfile.ZipInfo('FS/data/misc/bluetooth/logs/btsnoop_hci.log.last', (2019, 5, 8, 22, 0, 0))
            info.compress_type = zipfile.ZIP_STORED
            z.writestr(info, log[:16])
        """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script, fixture("wwdc-dual.btsnoop"), zipPath]
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        let expected = try read(try CaptureInput.open(fixture("wwdc-dual.btsnoop")))
        let reader = try CaptureInput.open(zipPath)
        XCTAssertEqual(try read(reader), expected)
        XCTAssertTrue(reader.warnings.first?.message.contains("reading the newest, FS/data/misc/bluetooth/logs/btsnoop_hci.log ") ?? false,
                      "\(reader.warnings)")
        let older = try CaptureInput.open(zipPath, options: InputOptions(member: "btsnoop_hci.log.last"))
        XCTAssertEqual(try read(older).count, 0)
        // The directory's entries as btlog read them.
        let archive = try ZipArchive(path: zipPath, name: "report.zip")
        XCTAssertEqual(archive.members.map(\.name), ["bugreport-x.txt", "FS/data/misc/bluetooth/logs/btsnoop_hci.log",
                                                      "FS/data/misc/bluetooth/logs/btsnoop_hci.log.last"])
        XCTAssertEqual(archive.members.map(\.method), [8, 8, 0])
        XCTAssertEqual(archive.members[1].uncompressedSize, UInt64(try Data(contentsOf: URL(fileURLWithPath: fixture("wwdc-dual.btsnoop"))).count))
        XCTAssertEqual(archive.members[1].modified, 1_557_356_700)

        // 65,536 members need the ZIP64 end-of-central-directory record (the 16-bit count is full).
        let bigPath = folder + "/many.zip"
        let many = Process()
        many.executableURL = URL(fileURLWithPath: python)
        many.arguments = ["-c", """
        import sys, zipfile
        with zipfile.ZipFile(sys.argv[2], 'w') as z:
            for i in range(65535):
                z.writestr('dumpstate/%05d.txt' % i, '')
            z.writestr('FS/data/misc/bluetooth/logs/btsnoop_hci.log', open(sys.argv[1], 'rb').read())
        """, fixture("wwdc-dual.btsnoop"), bigPath]
        try many.run()
        many.waitUntilExit()
        XCTAssertEqual(many.terminationStatus, 0)
        let big = try ZipArchive(path: bigPath, name: "many.zip")
        XCTAssertEqual(big.members.count, 65_536)
        XCTAssertEqual(try read(try CaptureInput.open(bigPath)), expected)

        // Zips nested inside zips (as a zip that contains itself would be): three levels are
        // read, a fourth is refused instead of recursing.
        let nest = Process()
        nest.executableURL = URL(fileURLWithPath: python)
        nest.arguments = ["-c", """
        import io, sys, zipfile
        data = open(sys.argv[1], 'rb').read()
        for level in range(1, 5):
            buffer = io.BytesIO()
            with zipfile.ZipFile(buffer, 'w') as z:
                z.writestr('FS/data/misc/bluetooth/logs/btsnoop_hci.log', data)
            data = buffer.getvalue()
            open('%s/nested-%d.zip' % (sys.argv[2], level), 'wb').write(data)
        """, fixture("wwdc-dual.btsnoop"), folder]
        try nest.run()
        nest.waitUntilExit()
        XCTAssertEqual(try read(try CaptureInput.open(folder + "/nested-3.zip")), expected)
        XCTAssertThrowsError(try CaptureInput.open(folder + "/nested-4.zip")) { error in
            XCTAssertTrue("\(error)".hasSuffix("compressed or archived more than three times over"), "\(error)")
        }
    }
}
