import BTCapture

/// Vendor HCI traffic laid out byte by byte from the layouts their owners publish (AOSP for
/// Android's extensions and the Bluetooth Quality Report; BlueZ/Linux for Broadcom's and
/// Intel's), so tests check btlog's reading against what was built, and tshark reads the same.
extension Scenarios {
    /// The common part of a BQR v6 link-quality report (85 bytes with the report ID).
    public static func bqrCommon(id: UInt8, handle: UInt16, packetType: UInt8 = 25, role: UInt8 = 0, txPower: Int8 = 4,
                                 rssi: Int8, snr: Int8, unusedChannels: UInt8, unideal: UInt8 = 0, lsto: UInt16 = 8000,
                                 clock: UInt32 = 0x0012_3456, retransmissions: UInt32, noRX: UInt32 = 0, nak: UInt32 = 0,
                                 flowOff: UInt32 = 0, overflow: UInt32 = 0, underflow: UInt32 = 0, peer: String,
                                 txTotal: UInt32 = 0, txUnacked: UInt32 = 0, txFlushed: UInt32 = 0, crcErrors: UInt32 = 0,
                                 version: Int = 6) -> [UInt8] {
        var bytes: [UInt8] = [id, packetType] + le16(handle) + [role, UInt8(bitPattern: txPower), UInt8(bitPattern: rssi),
                                                                 UInt8(bitPattern: snr), unusedChannels, unideal]
        bytes += le16(lsto) + le32(clock) + le32(retransmissions) + le32(noRX) + le32(nak) + le32(clock &- 40)
        bytes += le32(flowOff) + le32(clock &- 80) + le32(overflow) + le32(underflow)
        if version >= 5 { bytes += addressBytes(peer) + [0] }
        if version >= 4 { bytes += le32(txTotal) + le32(txUnacked) + le32(txFlushed) + le32(0) + le32(crcErrors) + le32(0) }
        if version >= 6 { bytes += le32(0) + le16(0) }
        return bytes
    }

    /// An Android phone (Broadcom controller) that reads the vendor capabilities, configures
    /// BQR, sets up APCF filters, batch scan and multi-advertising, then streams to a headset
    /// whose link degrades: quality reports with falling RSSI and rising retransmissions, A2DP
    /// choppy, approaching LSTO, a supervision timeout, and a reconnection that fails (Page
    /// Timeout) with its Connect Fail report. `marks` names the packets tests check.
    public static func androidVendorSession() -> (frames: [Frame], marks: [String: Int]) {
        var b = PacketBuilder(start: demoStart + 14_400_000_000)
        var marks: [String: Int] = [:]
        func mark(_ name: String) { marks[name] = b.frames.count }
        let headset = "00:1B:66:AA:BB:CC", tag = "C8:FD:19:00:11:22"

        b.exchange(0x0C03)
        b.exchange(0x1001, returns: [0x00, 0x09] + le16(0x1234) + [0x09] + le16(0x000F) + le16(0x4321)); mark("localVersion")
        b.exchange(0x1009, returns: [0x00] + addressBytes(phoneController))
        // LE Get Vendor Capabilities: 5 advertising instances, RPA offload, 1024 scan results,
        // 32 IRKs, APCF with 16 filters, energy info, version 0x0104, 32 tracked advertisers,
        // extended scan, debug logging, address offload, A2DP offload SBC|AAC, BQR, DAB.
        b.command(0xFD53)
        b.commandComplete(0xFD53, [0x00, 5, 1] + le16(1024) + [32, 1, 16, 1] + le16(0x0104) + le16(32) + [1, 1, 1]
            + le32(0x0000_0003) + [1] + le32(0)); mark("capabilities")
        b.command(0xFD5E, [0x00] + le32(0x0000_008F) + le16(1000) + le32(0) + le32(0)); mark("bqrConfig")
        b.commandComplete(0xFD5E, [0x00] + le32(0x0000_008F) + le32(0) + le32(0))
        // APCF: enable, filter 1 on the Heart Rate service, filter 2 on a broadcaster, 3 on Apple data.
        b.exchange(0xFD57, [0x00, 0x01], returns: [0x00, 0x00, 0x01])
        b.command(0xFD57, [0x01, 0x00, 0x01] + le16(0x0004) + le16(0x0000) + [0x00, UInt8(bitPattern: -70), 0x01]
            + le16(500) + [3, UInt8(bitPattern: -90)] + le16(3000) + le16(8)); mark("apcfParameters")
        b.commandComplete(0xFD57, [0x00, 0x01, 0x00, 15])
        b.command(0xFD57, [0x03, 0x00, 0x01] + le16(0x180D) + le16(0xFFFF)); mark("apcfServiceUUID")
        b.commandComplete(0xFD57, [0x00, 0x03, 0x00, 14])
        b.command(0xFD57, [0x02, 0x00, 0x02] + addressBytes(tag) + [0x01]); mark("apcfAddress")
        b.commandComplete(0xFD57, [0x00, 0x02, 0x00, 13])
        b.command(0xFD57, [0x06, 0x00, 0x03] + le16(0x004C) + [0x12, 0x19] + [0xFF, 0xFF, 0xFF, 0x00]); mark("apcfManufacturer")
        b.commandComplete(0xFD57, [0x00, 0x06, 0x00, 12])
        b.command(0xFD57, [0x05, 0x00, 0x04] + Array("Polar H10".utf8))
        b.commandComplete(0xFD57, [0x00, 0x05, 0x00, 11])
        // Batch scan: storage, full-mode parameters (window 1.28 s, then interval 5.12 s), enable.
        b.exchange(0xFD56, [0x02, 50, 50, 95], returns: [0x00, 0x02])
        b.command(0xFD56, [0x03, 0x02] + le32(2048) + le32(8192) + [0x00, 0x00]); mark("batchScanParameters")
        b.commandComplete(0xFD56, [0x00, 0x03])
        b.exchange(0xFD56, [0x01, 0x01], returns: [0x00, 0x01])
        b.event(0xFF, [0x54]); mark("batchThreshold")
        b.command(0xFD56, [0x04, 0x02]); mark("batchRead")
        // Two full records: the heart-rate strap (its service UUID and name) and the tag.
        let strap: [UInt8] = [0x02, 0x01, 0x06, 0x03, 0x03, 0x0D, 0x18], strapName: [UInt8] = [0x0A, 0x09] + Array("Polar H10".utf8)
        b.commandComplete(0xFD56, [0x00, 0x04, 0x02, 0x02]
            + addressBytes("A0:9E:1A:12:34:56") + [0x00, UInt8(bitPattern: 4), UInt8(bitPattern: -61)] + le16(0x0123)
            + [UInt8(strap.count)] + strap + [UInt8(strapName.count)] + strapName
            + addressBytes(tag) + [0x01, UInt8(bitPattern: 0), UInt8(bitPattern: -77)] + le16(0x0130) + [0x03, 0x02, 0x01, 0x04, 0x00])
        mark("batchResults")
        // Multi-advertising instance 1: parameters, data, enable.
        b.command(0xFD54, [0x01] + le16(160) + le16(240) + [0x00, 0x01] + addressBytes("7A:11:22:33:44:55") + [0x00]
            + [UInt8](repeating: 0, count: 6) + [0x07, 0x00, 0x01, UInt8(bitPattern: -7)]); mark("multiAdvParameters")
        b.commandComplete(0xFD54, [0x00, 0x01])
        let advertising: [UInt8] = [0x02, 0x01, 0x06, 0x03, 0x03, 0x0D, 0x18, 0x06, 0x09] + Array("Pixel".utf8)
        b.command(0xFD54, [0x02, UInt8(advertising.count)] + advertising + [UInt8](repeating: 0, count: 31 - advertising.count) + [0x01])
        mark("multiAdvData")
        b.commandComplete(0xFD54, [0x00, 0x02])
        b.exchange(0xFD54, [0x05, 0x01, 0x01], returns: [0x00, 0x05])
        b.command(0xFD59); mark("energyInfo")
        b.commandComplete(0xFD59, [0x00] + le32(120_000) + le32(340_000) + le32(9_500_000) + le32(75_000))
        b.exchange(0xFD5A, [0x01] + le32(96) + le32(48) + [0x01, 0x00], returns: [0x00])
        // The tag is found by APCF filter 2.
        b.event(0xFF, [0x56, 0x02, 0x01, 0x00] + addressBytes(tag) + [0x00]); mark("tracking")

        // The headset: an ACL link whose quality falls.
        b.connectionComplete(handle: 0x000B, peer: headset)
        b.command(0xFD5D, [0x01] + le32(0x0000_0001) + le16(200) + [0x00, 0x00] + le32(44_100) + [0x01, 0x02] + le32(328_000)
            + le16(0x000B) + le16(0x0041) + le16(1005) + [UInt8](repeating: 0, count: 32)); mark("a2dpOffload")
        b.commandComplete(0xFD5D, [0x00, 0x01])
        let series: [(rssi: Int8, snr: Int8, unused: UInt8, retx: UInt32)] = [
            (-58, 30, 10, 2), (-63, 27, 12, 5), (-71, 22, 20, 14), (-79, 16, 31, 40), (-86, 9, 42, 118), (-91, 4, 51, 260),
        ]
        for (i, q) in series.enumerated() {
            b.advance(1_000_000)
            b.event(0xFF, [0x58] + bqrCommon(id: 0x01, handle: 0x000B, rssi: q.rssi, snr: q.snr, unusedChannels: q.unused,
                                             retransmissions: q.retx, nak: q.retx / 2, peer: headset, txTotal: 900 + UInt32(i) * 40,
                                             txUnacked: q.retx / 3, txFlushed: q.retx / 10))
            mark("monitor\(i)")
        }
        b.event(0xFF, [0x58] + bqrCommon(id: 0x03, handle: 0x000B, rssi: -90, snr: 5, unusedChannels: 50, retransmissions: 240, peer: headset)
            + le32(0x0012_3000) + le32(0x0012_3100) + le16(7) + le16(3) + le16(1) + [12, 4]); mark("a2dpChoppy")
        b.event(0xFF, [0x58] + bqrCommon(id: 0x04, handle: 0x000B, rssi: -90, snr: 5, unusedChannels: 50, retransmissions: 240, peer: headset)
            + le16(5) + [12, 2, 3] + le16(100) + le16(2) + le16(1) + le16(4) + le16(0) + le16(0) + le16(0) + le16(0)
            + le16(6) + le16(1) + le16(3) + le16(20) + le16(18) + le16(77)); mark("scoChoppy")
        b.advance(2_000_000)
        b.event(0xFF, [0x58] + bqrCommon(id: 0x02, handle: 0x000B, rssi: -93, snr: 2, unusedChannels: 55, retransmissions: 300, peer: headset)
            + [0x81] + le32(0x0000_00FF) + le32(1200) + le16(3) + le16(9) + le16(14) + le32(0x0013_0000) + le32(0x0012_F000)); mark("approachingLSTO")
        b.advance(3_000_000)
        b.disconnectionComplete(handle: 0x000B, reason: 0x08); mark("supervisionTimeout")
        // The phone tries again; the page times out.
        b.command(0x0405, addressBytes(headset) + le16(0xCC18) + [0x01, 0x00] + le16(0) + [0x01])
        b.commandStatus(0x0405)
        b.advance(5_120_000)
        b.event(0xFF, [0x58] + bqrCommon(id: 0x08, handle: 0x0000, rssi: 0, snr: 0, unusedChannels: 0, retransmissions: 0, peer: headset)
            + [0x04]); mark("connectFail")
        b.connectionComplete(handle: 0x0000, peer: headset, status: 0x04)
        b.event(0xFF, [0x55, 0x01, 0x00] + le16(0x0040)); mark("multiAdvStateChange")
        return (b.frames, marks)
    }

    /// A Broadcom controller's start: its version, the minidriver, the firmware written to RAM
    /// in blocks and launched, then the vendor set-up Android's and BlueZ's loaders send.
    public static func broadcomFirmwareSession() -> (frames: [Frame], marks: [String: Int]) {
        var b = PacketBuilder(start: demoStart + 18_000_000_000)
        var marks: [String: Int] = [:]
        func mark(_ name: String) { marks[name] = b.frames.count }
        b.exchange(0x0C03)
        b.exchange(0x1001, returns: [0x00, 0x06] + le16(0x1000) + [0x06] + le16(0x000F) + le16(0x2209))
        b.command(0xFC79)
        b.commandComplete(0xFC79, [0x00, 0x4E, 0x02] + le16(0x0100) + le16(0x0215)); mark("verboseVersion")
        b.command(0xFC18, le16(0x0000) + le32(3_000_000)); mark("baudRate")
        b.commandComplete(0xFC18)
        b.command(0xFC2E); mark("minidriver")
        b.commandComplete(0xFC2E)
        var address: UInt32 = 0x0021_0000
        for block in 0 ..< 12 {
            let data = (0 ..< 240).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ block) }
            b.command(0xFC4C, le32(address) + data, after: 300)
            if block == 0 { mark("firstWriteRAM") }
            b.commandComplete(0xFC4C, after: 200)
            address += 240
        }
        b.command(0xFC4E, le32(0xFFFF_FFFF)); mark("launchRAM")
        b.commandComplete(0xFC4E)
        b.advance(250_000)
        b.exchange(0x0C03)
        b.exchange(0x1001, returns: [0x00, 0x08] + le16(0x1001) + [0x08] + le16(0x000F) + le16(0x420E))
        b.command(0xFC01, addressBytes("43:29:B1:55:01:00")); mark("writeAddress")
        b.commandComplete(0xFC01)
        b.command(0xFC27, [0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]); mark("sleepMode")
        b.commandComplete(0xFC27)
        b.command(0xFC1C, [0x00, 0x04, 0x00, 0x01, 0x01]); mark("scoPCM")
        b.commandComplete(0xFC1C)
        b.exchange(0xFC1E, [0x00, 0x00, 0x03, 0x03, 0x00])
        b.command(0xFC7E, [0x01] + le16(0x0002)); mark("enableWBS")
        b.commandComplete(0xFC7E)
        b.exchange(0xFC6D, [0x01, 0x01, 0x01, 0x02])
        b.exchange(0xFC45, [0x01])
        b.command(0xFC5A)
        b.commandComplete(0xFC5A, [0x00] + le16(0x0A5C) + le16(0x21E8)); mark("vidPID")
        b.exchange(0xFCAA, [0x01, 0x02])
        mark("undocumented")
        return (b.frames, marks)
    }

    /// An Intel controller's boot: its version in the bootloader, the secure boot parameters,
    /// the firmware sent by secure send (header, signature, public key, data), the reset that
    /// boots it, its bootup event, and the DDC and trace set-up after.
    public static func intelBootSession() -> (frames: [Frame], marks: [String: Int]) {
        var b = PacketBuilder(start: demoStart + 21_600_000_000)
        var marks: [String: Int] = [:]
        func mark(_ name: String) { marks[name] = b.frames.count }
        b.exchange(0x1001, returns: [0x00, 0x08] + le16(0x0100) + [0x08] + le16(0x0002) + le16(0x0100))
        b.command(0xFC05)
        b.commandComplete(0xFC05, [0x00, 0x37, 0x0B, 0x10, 0x06, 0x01, 0x02, 0x20, 0x15, 0x00]); mark("bootloaderVersion")
        b.command(0xFC0D)
        b.commandComplete(0xFC0D, [0x00, 0x00, 0x00, 0x00] + le16(0x0010) + [0x01, 0x00, 0x01, 0x00, 0x00, 0x00]
            + addressBytes("A0:88:B4:01:02:03") + [0x01, 0x01, 0x14, 0x00, 0x00]); mark("bootParams")
        for (type, count) in [(UInt8(0x00), 128), (0x03, 240), (0x02, 240), (0x01, 240), (0x01, 240), (0x01, 120)] {
            b.command(0xFC09, [type] + (0 ..< count - 1).map { UInt8(truncatingIfNeeded: $0 * 13) }, after: 300)
            if type == 0x00 { mark("secureSendInit") }
            b.commandComplete(0xFC09, after: 200)
        }
        b.event(0xFF, [0x06, 0x00] + le16(0xFC09) + [0x00]); mark("secureSendResult")
        b.command(0xFC01, [0x00, 0x01, 0x00, 0x01] + le32(0x0002_0000)); mark("reset")
        b.advance(600_000)
        b.event(0xFF, [0x02, 0x00, 0x01, 0x01, 0x02, 0x02, 0x02]); mark("bootup")
        b.command(0xFC05)
        b.commandComplete(0xFC05, [0x00, 0x37, 0x0B, 0x10, 0x23, 0x10, 0x27, 0x19, 0x21, 0x03]); mark("operationalVersion")
        b.command(0xFC8B, [0x03] + le16(0x0144) + [0x02, 0x04] + le16(0x0123) + [0x01, 0x00])
        b.commandComplete(0xFC8B, [0x00] + le16(0x0144)); mark("ddcConfig")
        b.exchange(0xFC52, le32(0x0000_0087) + le32(0))
        b.exchange(0xFC11, [0x01, 0x00])
        b.command(0xFC43, [0x01, 0x01, 0x01]); mark("traces")
        b.commandComplete(0xFC43)
        b.exchange(0xFC11, [0x00, 0x02])
        b.event(0xFF, [0x01] + le16(0x0312) + [0x05, 0x02]); mark("fatalException")
        b.event(0xFF, [0x42, 0x01, 0x02]); mark("undocumentedEvent")
        return (b.frames, marks)
    }
}
