import BTCapture

/// The capture sessions the fixtures are made from.
public enum Scenarios {
    /// 2019-05-08 23:04:28 UTC, the day of PacketLogger's WWDC 2019 demo.
    public static let demoStart: Int64 = 1_557_356_668_000_000
    public static let mac = "00:09:A7:24:26:38"
    public static let phoneController = "F0:99:B6:12:34:56"

    /// Modelled on the WWDC 2019 "What's New in Core Bluetooth" demo: an iPhone and a Mac,
    /// A2DP signaling on BR/EDR handle 0x000B, LE ATT discovery on handle 0x0044, interleaved
    /// advertising reports, and the notes and syslog lines iOS interleaves.
    public static func wwdcDual(includeSystemRecords: Bool = true) -> [Frame] {
        var b = PacketBuilder(start: demoStart)
        if includeSystemRecords {
            b.note(.newController, "Controller attached: Apple Bluetooth (UART)")
            b.syslog(pid: 87, level: 0, process: "bluetoothd", sender: "bluetoothd", subsystem: "com.apple.bluetooth",
                     category: "Server", message: "Power state is ON")
            b.note(.power, "Bluetooth power on")
        }
        b.exchange(0x0C03)                                              // Reset
        b.exchange(0x1009, returns: [0x00] + addressBytes(phoneController)) // Read BD ADDR
        b.exchange(0x1001, returns: [0x00, 0x0B, 0x00, 0x00, 0x0B, 0x4C, 0x00, 0x00, 0x00]) // Read Local Version
        b.exchange(0x0C13, Array("iPhone".utf8) + [UInt8](repeating: 0, count: 248 - 6)) // Write Local Name
        b.exchange(0x0C1A, [0x03])                                      // Write Scan Enable

        // BR/EDR: the Mac connects for A2DP.
        b.command(0x0405, addressBytes(mac) + [0x18, 0xCC, 0x02, 0x00, 0x00, 0x00, 0x01])
        b.commandStatus(0x0405)
        b.connectionComplete(handle: 0x000B, peer: mac)
        // L2CAP Connection Request for AVDTP (PSM 0x0019) and its response.
        b.l2cap(handle: 0x000B, cid: 0x0001, [0x02, 0x01, 0x04, 0x00, 0x19, 0x00, 0x40, 0x00], sent: true)
        b.l2cap(handle: 0x000B, cid: 0x0001, [0x03, 0x01, 0x08, 0x00, 0x41, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00], sent: false)
        // AVDTP on the new channel: Discover, its accept, Get All Capabilities, Set Configuration, Delay Report.
        b.l2cap(handle: 0x000B, cid: 0x0041, [0x00, 0x01], sent: true)
        b.l2cap(handle: 0x000B, cid: 0x0040, [0x02, 0x01, 0x04, 0x08, 0x08, 0x08], sent: false)
        b.l2cap(handle: 0x000B, cid: 0x0041, [0x10, 0x0C, 0x04], sent: true)
        b.l2cap(handle: 0x000B, cid: 0x0040, [0x12, 0x0C, 0x01, 0x00, 0x07, 0x06, 0x00, 0x00, 0xFF, 0xFF, 0x02, 0x35, 0x08, 0x00], sent: false)
        b.l2cap(handle: 0x000B, cid: 0x0041, [0x20, 0x03, 0x04, 0x04, 0x01, 0x00, 0x07, 0x06, 0x00, 0x00, 0x21, 0x15, 0x02, 0x35], sent: true)
        b.l2cap(handle: 0x000B, cid: 0x0040, [0x22, 0x03], sent: false)
        b.l2cap(handle: 0x000B, cid: 0x0041, [0x30, 0x0D, 0x04, 0x05, 0xDC], sent: true)
        b.completedPackets(handle: 0x000B, count: 4)

        // LE: advertising reports from several devices, then the Mac connects over LE.
        b.exchange(0x200B, [0x01, 0x10, 0x00, 0x10, 0x00, 0x00, 0x00])
        b.exchange(0x200C, [0x01, 0x01])
        b.leAdvertisingReport(eventType: 0, addressType: 1, address: "24:18:97:6D:C0:AB",
                              data: [0x02, 0x01, 0x1A, 0x0A, 0xFF, 0x4C, 0x00, 0x10, 0x05, 0x0B, 0x1C, 0x6E, 0x2F, 0x9A], rssi: -67)
        b.leAdvertisingReport(eventType: 0, addressType: 0, address: "00:DB:70:00:75:5A",
                              data: [0x02, 0x01, 0x06, 0x03, 0x03, 0x0D, 0x18, 0x07, 0x09, 0x48, 0x52, 0x4D, 0x2D, 0x30, 0x31], rssi: -67)
        b.leAdvertisingReport(eventType: 3, addressType: 1, address: "5D:1A:3C:88:02:E4",
                              data: [0x02, 0x01, 0x1A, 0x05, 0xFF, 0x06, 0x00, 0x01, 0x09], rssi: -81)
        b.exchange(0x200C, [0x00, 0x00])
        b.command(0x200D, [0x60, 0x00, 0x30, 0x00, 0x00, 0x00] + addressBytes(mac) + [0x00, 0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0x48, 0x00, 0x00, 0x00, 0x00, 0x00])
        b.commandStatus(0x200D)
        b.leConnectionComplete(handle: 0x0044, role: 0, peerType: 0, peer: mac)
        // ATT discovery.
        b.att(handle: 0x0044, [0x02, 0x64, 0x00], sent: false)                       // Exchange MTU Request, 100
        b.att(handle: 0x0044, [0x03, 0xB9, 0x00], sent: true)                        // Exchange MTU Response, 185
        b.att(handle: 0x0044, [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28], sent: false) // Read By Group Type Request
        b.att(handle: 0x0044, [0x11, 0x06, 0x01, 0x00, 0x07, 0x00, 0x00, 0x18, 0x08, 0x00, 0x0B, 0x00, 0x01, 0x18], sent: true)
        b.leAdvertisingReport(eventType: 0, addressType: 1, address: "24:18:97:6D:C0:AB",
                              data: [0x02, 0x01, 0x1A, 0x0A, 0xFF, 0x4C, 0x00, 0x10, 0x05, 0x0B, 0x1C, 0x6E, 0x2F, 0x9A], rssi: -66)
        b.att(handle: 0x0044, [0x08, 0x08, 0x00, 0x0B, 0x00, 0x03, 0x28], sent: false) // Read By Type Request, characteristics
        b.att(handle: 0x0044, [0x09, 0x07, 0x09, 0x00, 0x20, 0x0A, 0x00, 0x05, 0x2A], sent: true)
        b.att(handle: 0x0044, [0x04, 0x0B, 0x00, 0x0B, 0x00], sent: false)           // Find Information Request
        b.att(handle: 0x0044, [0x05, 0x01, 0x0B, 0x00, 0x02, 0x29], sent: true)      // Find Information Response: CCCD
        b.att(handle: 0x0044, [0x12, 0x0B, 0x00, 0x02, 0x00], sent: false)           // Write Request, indications on
        b.att(handle: 0x0044, [0x13], sent: true)                                    // Write Response
        b.att(handle: 0x0044, [0x08, 0x16, 0x00, 0x17, 0x00, 0x03, 0x28], sent: true) // Read By Type Request
        b.att(handle: 0x0044, [0x01, 0x08, 0x16, 0x00, 0x0A], sent: false)           // Error Response: Attribute Not Found
        b.leAdvertisingReport(eventType: 0, addressType: 0, address: "00:DB:70:00:75:5A",
                              data: [0x02, 0x01, 0x06, 0x03, 0x03, 0x0D, 0x18], rssi: -67)
        // A 63-byte notification split over three ACL fragments (27-byte LE buffers).
        b.l2cap(handle: 0x0044, cid: 0x0004, [0x1B, 0x0A, 0x00] + (0 ..< 60).map { UInt8($0) }, sent: false, fragment: 27)
        b.completedPackets(handle: 0x0044, count: 6)
        if includeSystemRecords {
            b.note(.note, "Capture marker: discovery done")
        }
        b.command(0x0406, le16(0x0044) + [0x13])
        b.commandStatus(0x0406)
        b.disconnectionComplete(handle: 0x0044, reason: 0x16)
        b.command(0x0406, le16(0x000B) + [0x13])
        b.commandStatus(0x0406)
        b.disconnectionComplete(handle: 0x000B, reason: 0x16)
        return b.frames
    }

    /// The Linux monitor version: controller index frames around the same traffic on hci0, and
    /// a second controller (hci1) that appears and goes away.
    public static func monitorSession() -> [Frame] {
        var frames: [Frame] = []
        let newIndex = [0x00, 0x01] + addressBytes(phoneController) + Array("hci0".utf8) + [0, 0, 0, 0]
        frames.append(Frame(timestamp: demoStart, kind: .newIndex, direction: .none, controller: 0, bytes: newIndex))
        frames.append(Frame(timestamp: demoStart + 10, kind: .openIndex, direction: .none, controller: 0, bytes: []))
        frames.append(Frame(timestamp: demoStart + 20, kind: .indexInfo, direction: .none, controller: 0,
                            bytes: addressBytes(phoneController) + le16(0x000F)))
        let second = [0x00, 0x00] + addressBytes("00:AA:01:00:00:01") + Array("hci1".utf8) + [0, 0, 0, 0]
        frames.append(Frame(timestamp: demoStart + 30, kind: .newIndex, direction: .none, controller: 1, bytes: second))
        frames.append(contentsOf: wwdcDual(includeSystemRecords: false))
        frames.append(Frame(timestamp: demoStart + 900_000, kind: .note, direction: .none,
                            controller: Frame.systemController, bytes: Array("Bluetooth subsystem version 2.22".utf8) + [0]))
        let logging = [0x06, 0x0B] + Array("bluetoothd".utf8) + [0] + Array("Bluetooth daemon 5.66".utf8) + [0]
        frames.append(Frame(timestamp: demoStart + 900_100, kind: .userLogging, direction: .none,
                            controller: Frame.systemController, bytes: logging))
        frames.append(Frame(timestamp: demoStart + 950_000, kind: .deleteIndex, direction: .none, controller: 1, bytes: []))
        return renumbered(frames)
    }

    /// Each format btlog writes, with the scenario that uses what it can hold: HCI packets for
    /// H4 and HCI datalinks, the monitor session for monitor ones, everything for PacketLogger.
    public static func everyWriterFormat() -> [(CaptureFileFormat, [Frame])] {
        let dual = wwdcDual()
        let monitor = monitorSession()
        let hciOnly = renumbered(dual.filter { $0.kind.isHCI })
        return [(.btsnoopH4, hciOnly), (.btsnoopHCI, hciOnly), (.btsnoopMonitor, monitor), (.pklg, dual),
                (.pcapH4, hciOnly), (.pcapMonitor, monitor), (.pcapng, monitor)]
    }

    public static func renumbered(_ frames: [Frame]) -> [Frame] {
        frames.enumerated().map { index, frame in
            var copy = frame
            copy.number = index + 1
            return copy
        }
    }
}
