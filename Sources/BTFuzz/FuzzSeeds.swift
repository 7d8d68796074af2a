import BTCapture
import BTDecode
import BTDescribe
import BTFixtures
import BTQuery
import Foundation

/// Seed corpora for every target, built from the fixture scenarios (and the capture files in a
/// fixtures folder, when given), so each fuzzer starts from valid files of its format and
/// mutates from there.
public enum FuzzSeeds {
    /// Writes FOLDER/TARGET/NAME for every target; returns the number of seeds written.
    @discardableResult
    public static func write(to folder: String, fixtures: String?) throws -> Int {
        var written = 0
        func save(_ target: FuzzTarget, _ name: String, _ bytes: [UInt8]) throws {
            let directory = (folder as NSString).appendingPathComponent(target.rawValue)
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: (directory as NSString).appendingPathComponent(name)))
            written += 1
        }

        let dual = Scenarios.wwdcDual()
        let hciOnly = dual.filter { $0.kind.isHCI }
        let monitor = Scenarios.monitorSession()
        let heartRate = Scenarios.heartRateSession()
        let classic = Scenarios.classicL2CAPSession()
        var le: [Frame] = []
        BenchmarkSessions.leSession(packets: 400) { le += $0 }
        var audio: [Frame] = []
        BenchmarkSessions.audioSession(packets: 300) { audio += $0 }

        for (name, bytes) in LiteralInput.seeds { try save(.literal, name, bytes) }
        for (index, expression) in FilterInput.seeds.enumerated() { try save(.filter, "expression-\(index).txt", Array(expression.utf8)) }
        var notes = NotesDocument(capture: "le-heart-rate.btsnoop")
        for (index, frame) in heartRate.prefix(40).enumerated() where index % 7 == 0 {
            notes.notes[frame.number] = PacketNote(packet: frame.number, fingerprint: PacketFingerprint(frame),
                                                   comment: index % 2 == 0 ? "note \"\(index)\"\n" : nil, flagged: index % 3 == 0)
        }
        try save(.notes, "notes.json", [UInt8](notes.serialized()))
        try save(.notes, "empty.json", [UInt8](NotesDocument(capture: "").serialized()))
        // Profiles above GATT: each value the Apple and LE Audio scenarios carry to a profile, in order.
        var records: [(characteristic: BTUUID, opcode: UInt8, value: ArraySlice<UInt8>)] = []
        let profileDecoder = Decoder()
        for frame in Scenarios.appleSession() + Scenarios.leAudioSession() {
            let packet = profileDecoder.decode(frame)
            guard let att = packet.layers.first(where: { $0.kind == .att }), packet.layers.last?.kind != .att,
                  case .uuid(let characteristic)? = att.value(GATTFields.characteristic),
                  case .unsigned(let opcode, _)? = att.value(ATTFields.opcode) else { continue }
            let value: ArraySlice<UInt8>
            if opcode == 0x01, case .unsigned(let code, _)? = att.value(ATTFields.error) {
                value = [UInt8(code)]
            } else if case .bytes(let bytes)? = att.value(ATTFields.value) {
                value = bytes
            } else { continue }
            records.append((characteristic, UInt8(opcode), value))
        }
        for (index, chunk) in stride(from: 0, to: records.count, by: 8).enumerated() {
            try save(.gattValue, "profiles-\(index).bin", GATTValueInput.encode(Array(records[chunk ..< min(chunk + 8, records.count)])))
        }
        // HID: the scenario keyboard's descriptor with a report of each of its kinds.
        for (index, report) in [[UInt8]]([[0x01, 0x02, 0x00, 0x0B, 0, 0, 0, 0, 0], [0x02, 0x01], [0x03, 0x01, 0x05, 0xFD, 0xFF], [0x01, 0x02]])
            .enumerated() {
            try save(.hidDescriptor, "keyboard-\(index).bin", HIDReportInput.encode(descriptor: KeyboardDescriptor.bytes, report: report))
        }

        // Channel protocols: what each PSM's channel carried in the audio session, the classic
        // scenario and the fixture files, per protocol and direction as it came.
        var channelFrames = audio + classic
        if let fixtures {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: fixtures)) ?? [] where name.hasSuffix(".btsnoop") {
                guard let reader = try? CaptureInput.open((fixtures as NSString).appendingPathComponent(name)) else { continue }
                while let frame = try? reader.next() { channelFrames.append(frame) }
            }
        }
        for (psm, sdus) in ChannelSDUs.collect(channelFrames) {
            for (index, chunk) in stride(from: 0, to: sdus.count, by: 24).enumerated() {
                guard let seed = ChannelInput.encode(psm: psm, Array(sdus[chunk ..< min(chunk + 24, sdus.count)])) else { continue }
                try save(.channel, String(format: "psm-%04x-%02d.bin", psm, index), seed)
                if index >= 8 { break }
            }
        }

        // Readers: every format btlog writes, small enough for libFuzzer's length limit.
        try save(.btsnoop, "h4.btsnoop", try FixtureContainers.encode(hciOnly, as: .btsnoopH4))
        try save(.btsnoop, "hci.btsnoop", try FixtureContainers.encode(hciOnly.filter { $0.kind != .scoData }, as: .btsnoopHCI))
        try save(.btsnoop, "monitor.btsnoop", try FixtureContainers.encode(monitor, as: .btsnoopMonitor))
        try save(.btsnoop, "h5.btsnoop", FixtureContainers.linkFramed(hciOnly, bcsp: false))
        try save(.btsnoop, "bcsp.btsnoop", FixtureContainers.linkFramed(hciOnly, bcsp: true))
        // The serial monitor protocol: the monitor session as a board sends it (its timestamps
        // in 100 µs units, a drop counter now and then), read 1 and 64 bytes at a time, and with noise.
        let boardStart = monitor.first?.timestamp ?? 0
        var board: [UInt8] = []
        for (index, frame) in monitor.enumerated() {
            guard let opcode = MonitorOpcode.opcode(for: frame.kind, direction: frame.direction) else { continue }
            let time = UInt32(truncatingIfNeeded: max(0, frame.timestamp - boardStart) / 100)
            board += SerialMonitor.encode(opcode: opcode, payload: Array(frame.bytes), timestamp: index % 3 == 0 ? nil : time,
                                          drops: index % 17 == 0 ? [(.eventDrops, 1)] : [])
        }
        board = Array(board.prefix(60_000))
        // What adb prints: device lists in every state adb names, and a phone's settings.
        try save(.adbOutput, "devices.txt", [0] + Array("""
            * daemon not running; starting now at tcp:5037
            * daemon started successfully
            List of devices attached
            21111FCN20000W         device usb:1-1 product:panther model:Pixel_7 device:panther transport_id:2
            R5CT1234	unauthorized usb:1-2 transport_id:3
            emulator-5554          offline transport_id:1
            0123456789ABCDEF       no permissions (user in plugdev group; are your udev rules wrong?); see [http://developer.android.com/tools/device.html] usb:1-3

            """.utf8))
        try save(.adbOutput, "getprop.txt", [1] + Array("""
            [ro.build.type]: [userdebug]
            [ro.product.model]: [Pixel 7]
            [ro.build.version.release]: [14]
            [persist.bluetooth.btsnooplogmode]: [filtered]
            [persist.bluetooth.snooplogfilter.headers.enabled]: [true]
            [persist.bluetooth.snooplogfilter.profiles.pbap]: [magic]
            [btlog.clock]: [1764700000 +0530]

            """.utf8))
        // An iPhone's packet logger service: each big-endian record after its 2-byte length.
        let loggerRecords = FixtureFiles.bigEndianPacketLogger(dual)
        var served: [UInt8] = []
        var position = 0
        while position + 4 <= loggerRecords.count {
            var length = 4
            length += loggerRecords[position ..< position + 4].reduce(0) { $0 << 8 | Int($1) }
            guard length <= 0xFFFF, position + length <= loggerRecords.count else { break }
            served += [UInt8(length & 0xFF), UInt8(length >> 8)]
            served += loggerRecords[position ..< position + length]
            position += length
        }
        try save(.iosPacketLogger, "service-1.bin", [0] + served)
        try save(.iosPacketLogger, "service-61.bin", [60] + served)
        try save(.serialMonitor, "board-1.bin", [0] + board)
        try save(.serialMonitor, "board-64.bin", [63] + board)
        try save(.serialMonitor, "board-noise.bin", [7] + Array(board.prefix(4_000)) + [0xFF, 0x03, 0x02, 0x00, 0x00, 0x00, 0x55] + Array(board.dropFirst(4_000).prefix(4_000)))
        // A tapped UART's wires: the monitor session's packets each side sent, as H4, with noise.
        for (selector, sent) in [(UInt8(0), true), (UInt8(1), false), (UInt8(0x7E), true), (UInt8(0x81), false)] {
            var wire: [UInt8] = []
            for (index, frame) in monitor.enumerated() where (frame.direction == .sent) == sent {
                guard let type = H4.indicator(for: frame.kind) else { continue }
                if index % 11 == 0 { wire += [0xFF, 0x00, 0x02] }
                wire += [type] + frame.bytes
            }
            try save(.h4Wire, "wire-\(selector).bin", [selector] + Array(wire.prefix(60_000)))
        }
        try save(.pklg, "le.pklg", [0] + (try FixtureContainers.encode(dual, as: .pklg)))
        try save(.pklg, "be.pklg", [1] + FixtureFiles.bigEndianPacketLogger(dual))
        try save(.pklg, "heart-rate.pklg", [0] + (try FixtureContainers.encode(heartRate, as: .pklg)))
        try save(.pcap, "h4.pcap", try FixtureContainers.encode(hciOnly, as: .pcapH4))
        try save(.pcap, "monitor.pcap", try FixtureContainers.encode(monitor, as: .pcapMonitor))
        try save(.pcap, "monitor.pcapng", try FixtureContainers.encode(monitor, as: .pcapng))
        try save(.gzip, "btsnoop.gz", FixtureContainers.gzip(try FixtureContainers.encode(hciOnly, as: .btsnoopH4)))
        try save(.gzip, "pcapng.gz", FixtureContainers.gzip(try FixtureContainers.encode(monitor, as: .pcapng)))
        let sysdiagnose = FixtureContainers.tar([
            ("sysdiagnose/logs/Bluetooth/bluetoothd-hci-older.pklg", 1_557_353_400,
             try FixtureContainers.encode(Array(dual.prefix(6)), as: .pklg)),
            ("sysdiagnose/logs/Bluetooth/bluetoothd-hci-latest.pklg", 1_557_356_700,
             try FixtureContainers.encode(Array(dual.prefix(20)), as: .pklg)),
            ("sysdiagnose/summaries/readme.txt", 1_557_356_700, Array("not a capture\n".utf8)),
        ])
        try save(.tar, "sysdiagnose.tar", sysdiagnose)
        try save(.gzip, "sysdiagnose.tar.gz", FixtureContainers.gzip(sysdiagnose))
        let report = "== dumpstate\nDUMP OF SERVICE bluetooth_manager:\n" + FixtureContainers.btsnoozSection(hciOnly) + "\n== end\n"
        try save(.btsnooz, "bugreport.txt", Array(report.utf8))
        let zipURL = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("btlog-seed-\(getpid()).zip")
        try FixtureContainers.zip([
            ("bugreport.txt", Date(timeIntervalSince1970: 1_557_356_700), Array(report.utf8)),
            ("FS/data/misc/bluetooth/logs/btsnoop_hci.log", Date(timeIntervalSince1970: 1_557_356_700),
             try FixtureContainers.encode(Array(hciOnly.prefix(20)), as: .btsnoopH4)),
        ], to: zipURL)
        try save(.zip, "bugreport.zip", [UInt8](try Data(contentsOf: zipURL)))
        try? FileManager.default.removeItem(at: zipURL)

        // Described protocols: whole descriptions, and generated ones over payloads.
        try save(.description, "elm327.yaml", Array(DescribedInput.elm327Seed.utf8))
        for (index, text) in DescribedInput.descriptionSeeds.enumerated() { try save(.description, "description-\(index).yaml", Array(text.utf8)) }
        for (name, text) in ShippedProtocols.texts { try save(.description, "shipped-" + name, Array(text.utf8)) }
        for (index, bytes) in DescribedInput.describedSeeds.enumerated() { try save(.described, "described-\(index).bin", bytes) }

        // btlog diff: the scenario pairs' first runs, in windows that keep a connection's set-up.
        for (index, pair) in DiffPairs.all.enumerated() {
            let frames = pair.frames()
            for start in stride(from: 0, to: frames.count, by: 40) {
                try save(.diff, "\(pair.name)-\(start).bin", DiffFuzzInput.encode(every: UInt8(truncatingIfNeeded: index + start), Array(frames[start ..< min(start + 60, frames.count)])))
            }
        }

        // btlog merge: windows of the kernel's two hosts (each end a controller of its own).
        if let fixtures, let reader = try? CaptureInput.open((fixtures as NSString).appendingPathComponent("kernel-two-hosts.btsnoop")) {
            var frames: [Frame] = []
            while let frame = try? reader.next() { frames.append(frame) }
            for (index, start) in stride(from: 0, to: frames.count, by: 400).enumerated() {
                let window = Array(frames[start ..< min(start + 400, frames.count)])
                try save(.merge, "two-hosts-\(start).bin", MergeFuzzInput.encode(clock: UInt8(truncatingIfNeeded: index &* 37), window))
            }
        }

        // btlog merge with a sniffer: crackle's known_ltk.pcap and the central's log written from
        // it, interleaved in the order of the air's clock (the merge's synthetic times follow
        // it); the air's PPI frames on controller 3, a source of their own.
        if let fixtures, let hostReader = try? CaptureInput.open((fixtures as NSString).appendingPathComponent("known-ltk-central.btsnoop")),
           let airReader = try? CaptureInput.open((fixtures as NSString).appendingPathComponent("third-party/crackle/known_ltk.pcap")) {
            var timed: [(time: Int64, frame: Frame)] = []
            while let frame = try? hostReader.next() { timed.append((frame.timestamp - AirHostLog.offset, frame)) }
            while let frame = try? airReader.next() { timed.append((frame.timestamp, frame)) }
            let frames = timed.sorted { $0.time < $1.time }.map(\.frame)
            for (index, start) in stride(from: 0, to: frames.count, by: 100).enumerated() {
                let window = Array(frames[max(0, start - 20) ..< min(start + 120, frames.count)])
                try save(.merge, "known-ltk-air-\(start).bin", MergeFuzzInput.encode(clock: UInt8(truncatingIfNeeded: index &* 53), window))
            }
        }

        // Vendor HCI: runs of each vendor fixture's session under its manufacturer, and under none.
        for (name, company, frames) in [("android", UInt16(0x000F), Scenarios.androidVendorSession().frames),
                                         ("broadcom", UInt16(0x000F), Scenarios.broadcomFirmwareSession().frames),
                                         ("intel", UInt16(0x0002), Scenarios.intelBootSession().frames)] {
            for start in stride(from: 0, to: frames.count, by: 12) {
                let run = Array(frames[start ..< min(start + 16, frames.count)])
                try save(.vendor, "\(name)-\(start).bin", VendorInput.encode(company: company, version: 0x0104, run))
                if start % 24 == 0 { try save(.vendor, "\(name)-\(start)-unnamed.bin", VendorInput.encode(company: nil, version: 0x0098, run)) }
            }
        }

        // The decoder: runs of consecutive packets, so a seed holds a request and its
        // response, or every fragment of a PDU.
        var sessions: [(String, [Frame])] = [("wwdc", dual), ("monitor", monitor), ("heart-rate", heartRate),
                                             ("classic", classic), ("le", le), ("audio", audio)]
        if let fixtures {
            for name in ((try? FileManager.default.contentsOfDirectory(atPath: fixtures)) ?? []).sorted()
            where name.hasSuffix(".btsnoop") || name.hasSuffix(".pklg") {
                let path = (fixtures as NSString).appendingPathComponent(name)
                let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
                if bytes.count <= 16 << 10 {
                    let target: FuzzTarget = name.hasSuffix(".pklg") ? .pklg : .btsnoop
                    try save(target, "fixture-\(name)", target == .pklg ? [0] + bytes : bytes)
                }
                guard let reader = try? CaptureInput.open(bytes: bytes) else { continue }
                var frames: [Frame] = []
                while let frame = try? reader.next() { frames.append(frame) }
                sessions.append((name, frames))
            }
        }
        // Whole capture files for the capture target: every fixture small enough, and the
        // third-party captures (real sniffers' record headers and timestamps).
        if let fixtures {
            let third = (fixtures as NSString).appendingPathComponent("third-party")
            let sources = ((try? FileManager.default.contentsOfDirectory(atPath: third)) ?? []).sorted()
            let folders = [fixtures] + sources.map { (third as NSString).appendingPathComponent($0) }
            for folder in folders {
                let prefix = folder == fixtures ? "" : (folder as NSString).lastPathComponent + "-"
                for name in ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
                where [".btsnoop", ".pklg", ".pcap", ".pcapng", ".log"].contains(where: { name.hasSuffix($0) }) {
                    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: (folder as NSString).appendingPathComponent(name))))
                    if bytes.count <= 64 << 10 { try save(.capture, "file-\(prefix)\(name)", bytes) }
                }
            }
        }
        for (name, frames) in sessions {
            // At most 60 runs per session, spread over all of it (a kernel fixture's testers
            // differ from start to end).
            let runLength = 24
            for start in stride(from: 0, to: frames.count, by: max(runLength, frames.count / 60)) {
                let run = Array(frames[start ..< min(start + runLength, frames.count)])
                try save(.decoder, "\(name)-\(start).bin", DecoderInput.encode(run))
                // Redaction reads the same packets; a third of the runs is enough to seed it.
                if start / max(runLength, frames.count / 60) % 3 == 0 {
                    try save(.redact, "\(name)-\(start).bin", DecoderInput.encode(run))
                }
                // The browser over the longer runs too, with key scripts a user would press.
                if start / max(runLength, frames.count / 60) % 3 == 2 {
                    let long = Array(frames[start ..< min(start + 3 * runLength, frames.count)])
                    let script = ["jjjG\nkk-+\tjj", "fatt.op\t\n", "/ack\nnnN:10\n", "AOEHTDcgGjjjc", "fhat{0x1 \njj\tc?x"][(start / max(runLength, frames.count / 60)) % 5]
                    try save(.browse, "\(name)-\(start).bin", BrowseInput.encode(keys: script, frames: long))
                }
                // Statistics follow links over longer runs: a third of them, three runs long.
                if start / max(runLength, frames.count / 60) % 3 == 1 {
                    try save(.stats, "\(name)-\(start).bin", DecoderInput.encode(Array(frames[start ..< min(start + 3 * runLength, frames.count)])))
                }
            }
        }
        try save(.keys, "keys.txt", Array("# bonded sensor\n7A1F3C55900BE26418D72B9E41C603F8\n0x4c:68:38:41:39:f5:74:d8:36:bc:f3:4e:9d:fb:01:bf  # sample\n\n".utf8))
        try save(.keys, "bad.txt", Array("7A1F3C55900BE26418D72B9E41C603\nzz\n".utf8))
        // Air captures: the scenario in each link type, in runs that keep a CONNECT_IND with
        // the data PDUs after it.
        for type in AirLinkType.allCases where type.isLE {
            let frames = AirScenario.frames(type)
            for start in stride(from: 0, to: frames.count, by: 16) {
                try save(.air, "air-\(type.rawValue)-\(start).bin", AirInput.encode(Array(frames[(start == 0 ? 0 : start - 8) ..< min(start + 24, frames.count)])))
            }
        }
        // Periodic trains, BIGInfo, BIS and CIS packets, LE Coded.
        for type in [AirLinkType.leLLWithRadioHeader, .nordicBLE] {
            try save(.air, "air-iso-\(type.rawValue).bin", AirInput.encode(AirIsochronousScenario.frames(type)))
        }
        // Real sniffers' records (Ubertooth's PPI from crackle's captures), in runs as above.
        if let fixtures {
            let folder = (fixtures as NSString).appendingPathComponent("third-party/crackle")
            for name in ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted() where name.hasSuffix(".pcap") {
                guard let reader = try? CaptureInput.open((folder as NSString).appendingPathComponent(name)) else { continue }
                var frames: [Frame] = []
                while let frame = try? reader.next() { frames.append(frame) }
                for start in stride(from: 0, to: frames.count, by: 32) {
                    try save(.air, "third-party-\(name)-\(start).bin", AirInput.encode(Array(frames[(start == 0 ? 0 : start - 8) ..< min(start + 40, frames.count)])))
                }
            }
        }
        // BR/EDR baseband: ID, FHS, POLL/NULL, LMP, L2CAP fragments, SCO/eSCO, damaged packets.
        try save(.air, "air-bredr.bin", AirInput.encode(BasebandScenario.frames()))
        return written
    }
}

/// The SDUs of decoded channel protocols in some frames, by PSM, in capture order.
enum ChannelSDUs {
    static func collect(_ frames: [Frame]) -> [(UInt16, [(received: Bool, bytes: ArraySlice<UInt8>)])] {
        let decoded = Set(L2CAPProtocols.decodedPSMs)
        var byPSM: [UInt16: [(received: Bool, bytes: ArraySlice<UInt8>)]] = [:]
        let decoder = Decoder()
        for frame in frames {
            let packet = decoder.decode(frame)
            guard let index = packet.layers.firstIndex(where: { $0.kind == .l2cap }), index + 1 < packet.layers.count,
                  case .unsigned(let psm, _)? = packet.layers[index].value(L2CAPFields.psm),
                  decoded.contains(UInt16(psm)), let sdu = packet.bytes(of: packet.layers[index + 1]) else { continue }
            byPSM[UInt16(psm), default: []].append((frame.direction == .received, sdu))
        }
        return byPSM.sorted { $0.key < $1.key }
    }
}
