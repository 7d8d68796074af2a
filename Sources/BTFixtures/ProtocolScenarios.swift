import BTCapture

/// Captures that exercise the decoders above HCI: an LE heart-rate sensor found, discovered,
/// paired and read (with the errors of real life), and BR/EDR L2CAP signaling in depth.
/// Every byte follows the Core specification's layouts; comments name the PDUs.
extension Scenarios {
    public static let sensor = "C0:FF:EE:12:34:56"
    public static let lock = "D4:3A:2C:11:22:33"

    static func uuid128(_ text: String) -> [UInt8] {
        let hex = text.filter { $0 != "-" }
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index ..< next], radix: 16)!)
            index = next
        }
        return bytes.reversed()
    }

    static let uartService = uuid128("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")
    static let uartRX = uuid128("6E400002-B5A3-F393-E0A9-E50E24DCCA9E")
    static let uartTX = uuid128("6E400003-B5A3-F393-E0A9-E50E24DCCA9E")

    /// What differs in another run of the heart-rate session (`btlog diff`'s scenario pairs):
    /// the defaults give the session the fixtures hold.
    public struct HeartRateRun: Sendable {
        /// The MTU the sensor answers the phone's Exchange MTU with.
        public var serverMTU: UInt16 = 65
        /// The sensor's Generic Access service has its Peripheral Preferred Connection Parameters.
        public var preferredParameters = true
        /// The sensor refuses the phone's DHKey check: pairing fails, the link stays unencrypted.
        public var pairingFails = false
        /// The sensor's and the beacon's random addresses (a new run may rotate them).
        public var sensorAddress = Scenarios.sensor
        public var beaconAddress = "6A:0B:1C:2D:3E:4F"
        /// Added to both connection handles (another controller numbers links otherwise).
        public var handleOffset: UInt16 = 0
        /// Added to every timestamp.
        public var timeShift: Int64 = 0

        public init() {}
    }

    /// A phone (local host, GATT client) and a heart-rate sensor on LE handle 0x0040 with
    /// 27-byte ACL buffers, so longer PDUs arrive in fragments; then a smart lock on 0x0041
    /// whose legacy pairing fails and whose link is still open when the capture ends.
    public static func heartRateSession(_ run: HeartRateRun = HeartRateRun()) -> [Frame] {
        var b = PacketBuilder(start: demoStart + 3_600_000_000 + run.timeShift)
        let hr: UInt16 = 0x0040 + run.handleOffset, lockLink: UInt16 = 0x0041 + run.handleOffset
        let sensor = run.sensorAddress
        func att(_ pdu: [UInt8], sent: Bool, on handle: UInt16 = hr) {
            b.l2cap(handle: handle, cid: 0x0004, pdu, sent: sent, fragment: 27)
        }
        func smp(_ pdu: [UInt8], sent: Bool, on handle: UInt16 = hr) {
            b.l2cap(handle: handle, cid: 0x0006, pdu, sent: sent, fragment: 27)
        }
        b.exchange(0x0C03)
        b.exchange(0x1009, returns: [0x00] + addressBytes(phoneController))
        // Scan, and advertising data with every common AD type.
        b.exchange(0x200B, [0x01, 0x60, 0x00, 0x30, 0x00, 0x01, 0x00])
        b.exchange(0x200C, [0x01, 0x01])
        b.leAdvertisingReport(eventType: 0, addressType: 1, address: sensor, data:
            [0x02, 0x01, 0x06]                                   // Flags: LE General Discoverable, BR/EDR not supported
            + [0x05, 0x03, 0x0D, 0x18, 0x0F, 0x18]               // Complete 16-bit UUIDs: Heart Rate, Battery
            + [0x03, 0x19, 0x41, 0x03]                           // Appearance 0x0341
            + [0x02, 0x0A, 0xF4]                                 // TX Power -12 dBm
            + [0x07, 0x09] + Array("HRM-01".utf8)                // Complete Local Name
            + [0x05, 0x16, 0x0F, 0x18, 0x57, 0x00], rssi: -58)   // Service Data: Battery 0x57 0x00
        b.leAdvertisingReport(eventType: 4, addressType: 1, address: sensor, data:
            [0x11, 0x07] + uartService                           // Complete 128-bit UUIDs: Nordic UART
            + [0x05, 0xFF, 0x59, 0x00, 0x01, 0x02], rssi: -59)   // Manufacturer Specific: Nordic, 01 02
        b.leAdvertisingReport(eventType: 3, addressType: 1, address: run.beaconAddress, data:
            [0x02, 0x01, 0x1A]
            + [0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15] + uuid128("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0").reversed() // big-endian here
            + [0x00, 0x01, 0x00, 0x02, 0xC5], rssi: -77)         // Apple iBeacon, major 1, minor 2, -59 dBm
        b.leAdvertisingReport(eventType: 0, addressType: 0, address: Scenarios.lock, data:
            [0x02, 0x01, 0x05, 0x08, 0x08] + Array("Lock-42".utf8)  // Shortened Local Name
            + [0x0A, 0x24, 0x17] + Array("//door.example".utf8).prefix(8) // URI
            + [0x03, 0x1A, 0x20, 0x03]                           // Advertising Interval 0x0320 (500 ms)
            + [0x02, 0x1C, 0x00], rssi: -70)                     // LE Role: peripheral only
        b.exchange(0x200C, [0x00, 0x00])

        // Connect to the sensor.
        b.command(0x200D, [0x60, 0x00, 0x30, 0x00, 0x00, 0x01] + addressBytes(sensor) + [0x00, 0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0x48, 0x00, 0x00, 0x00, 0x00, 0x00])
        b.commandStatus(0x200D)
        b.leConnectionComplete(handle: hr, role: 0, peerType: 1, peer: sensor)
        att([0x02, 0xF7, 0x00], sent: true)                                   // Exchange MTU Request 247
        att([0x03] + le16(run.serverMTU), sent: false)                        // Exchange MTU Response 65

        // Primary services.
        att([0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28], sent: true)
        att([0x11, 0x06, 0x01, 0x00, 0x07, 0x00, 0x00, 0x18, 0x08, 0x00, 0x0B, 0x00, 0x01, 0x18,
             0x0C, 0x00, 0x11, 0x00, 0x0D, 0x18, 0x12, 0x00, 0x15, 0x00, 0x0F, 0x18], sent: false)
        att([0x10, 0x16, 0x00, 0xFF, 0xFF, 0x00, 0x28], sent: true)
        att([0x11, 0x14, 0x16, 0x00, 0x1B, 0x00] + uartService, sent: false)
        att([0x10, 0x1C, 0x00, 0xFF, 0xFF, 0x00, 0x28], sent: true)
        att([0x11, 0x06, 0x1C, 0x00, 0x24, 0x00, 0x0A, 0x18], sent: false)
        att([0x10, 0x25, 0x00, 0xFF, 0xFF, 0x00, 0x28], sent: true)
        att([0x01, 0x10, 0x25, 0x00, 0x0A], sent: false)                      // Attribute Not Found: done

        // Characteristics, one Read By Type per service.
        func declaration(_ handle: UInt16, _ properties: UInt8, _ value: UInt16, _ uuid: [UInt8]) -> [UInt8] {
            le16(handle) + [properties] + le16(value) + uuid
        }
        att([0x08, 0x01, 0x00, 0x07, 0x00, 0x03, 0x28], sent: true)
        att([0x09, 0x07] + declaration(0x0002, 0x0A, 0x0003, [0x00, 0x2A]) + declaration(0x0004, 0x02, 0x0005, [0x01, 0x2A])
            + (run.preferredParameters ? declaration(0x0006, 0x02, 0x0007, [0x04, 0x2A]) : []), sent: false)
        att([0x08, 0x08, 0x00, 0x0B, 0x00, 0x03, 0x28], sent: true)
        att([0x09, 0x07] + declaration(0x0009, 0x20, 0x000A, [0x05, 0x2A]), sent: false)
        att([0x08, 0x0C, 0x00, 0x11, 0x00, 0x03, 0x28], sent: true)
        att([0x09, 0x07] + declaration(0x000D, 0x10, 0x000E, [0x37, 0x2A]) + declaration(0x0010, 0x02, 0x0011, [0x38, 0x2A]), sent: false)
        att([0x08, 0x12, 0x00, 0x15, 0x00, 0x03, 0x28], sent: true)
        att([0x09, 0x07] + declaration(0x0013, 0x12, 0x0014, [0x19, 0x2A]), sent: false)
        att([0x08, 0x16, 0x00, 0x1B, 0x00, 0x03, 0x28], sent: true)
        att([0x09, 0x15] + declaration(0x0017, 0x0C, 0x0018, uartRX) + declaration(0x0019, 0x10, 0x001A, uartTX), sent: false)
        att([0x08, 0x1C, 0x00, 0x24, 0x00, 0x03, 0x28], sent: true)
        att([0x09, 0x07] + declaration(0x001D, 0x02, 0x001E, [0x29, 0x2A]) + declaration(0x001F, 0x02, 0x0020, [0x24, 0x2A])
            + declaration(0x0021, 0x02, 0x0022, [0x26, 0x2A]) + declaration(0x0023, 0x02, 0x0024, [0x50, 0x2A]), sent: false)

        // Descriptors.
        for (cccd, _) in [(UInt16(0x000B), 0), (0x000F, 0), (0x0015, 0), (0x001B, 0)] {
            att([0x04] + le16(cccd) + le16(cccd), sent: true)
            att([0x05, 0x01] + le16(cccd) + [0x02, 0x29], sent: false)
        }

        // Reads of the well-known values.
        for (handle, value) in [(UInt16(0x0003), Array("HRM-01".utf8)), (0x0005, [0x41, 0x03]),
                                (0x0007, [0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0x90, 0x01]), (0x0014, [0x57]),
                                (0x001E, Array("Acme Sensors".utf8)), (0x0020, Array("HRM-01".utf8)),
                                (0x0022, Array("1.2.3".utf8)), (0x0024, [0x01, 0x59, 0x00, 0x01, 0x00, 0x00, 0x01])]
            where run.preferredParameters || handle != 0x0007 {
            att([0x0A] + le16(handle), sent: true)
            att([0x0B] + value, sent: false)
        }
        // Body Sensor Location needs encryption: the sensor says so, the phone pairs.
        att([0x0A, 0x11, 0x00], sent: true)
        att([0x01, 0x0A, 0x11, 0x00, 0x05], sent: false)                      // Insufficient Authentication

        // LE Secure Connections pairing, Numeric Comparison (KeyboardDisplay × DisplayYesNo, MITM).
        smp([0x01, 0x04, 0x00, 0x2D, 0x10, 0x0B, 0x0B], sent: true)           // Pairing Request
        smp([0x02, 0x01, 0x00, 0x0D, 0x10, 0x0B, 0x0B], sent: false)          // Pairing Response
        let keyX = (0 ..< 32).map { UInt8(0xA0 &+ $0) }, keyY = (0 ..< 32).map { UInt8(0x40 &+ $0) }
        smp([0x0C] + keyX + keyY, sent: true)                                 // Public Key: 65 bytes, 3 fragments
        smp([0x0C] + keyY + keyX, sent: false)
        smp([0x03] + [UInt8](repeating: 0x3C, count: 16), sent: false)        // Confirm (responder)
        smp([0x04] + [UInt8](repeating: 0x11, count: 16), sent: true)         // Random
        smp([0x04] + [UInt8](repeating: 0x22, count: 16), sent: false)
        smp([0x0D] + [UInt8](repeating: 0xD1, count: 16), sent: true)         // DHKey Check
        if run.pairingFails {
            smp([0x05, 0x0B], sent: false)                                    // Pairing Failed: DHKey Check Failed
            att([0x0A, 0x11, 0x00], sent: true)
            att([0x01, 0x0A, 0x11, 0x00, 0x05], sent: false)                  // Insufficient Authentication, again
        } else {
            smp([0x0D] + [UInt8](repeating: 0xD2, count: 16), sent: false)
            b.command(0x2019, le16(hr) + [UInt8](repeating: 0, count: 10) + [UInt8](repeating: 0x5A, count: 16)) // LE Enable Encryption
            b.commandStatus(0x2019)
            b.event(0x08, [0x00] + le16(hr) + [0x01])                         // Encryption Change: on
            smp([0x08] + [UInt8](repeating: 0x1B, count: 16), sent: false)    // Identity Information
            smp([0x09, 0x00] + addressBytes("00:1B:DC:0F:AA:01"), sent: false) // Identity Address Information
            smp([0x08] + [UInt8](repeating: 0x2B, count: 16), sent: true)
            smp([0x09, 0x00] + addressBytes(phoneController), sent: true)

            att([0x0A, 0x11, 0x00], sent: true)
            att([0x0B, 0x01], sent: false)                                    // Body Sensor Location: Chest
        }
        att([0x12, 0x0F, 0x00, 0x01, 0x00], sent: true)                       // CCCD: notifications on
        att([0x13], sent: false)
        att([0x12, 0x0B, 0x00, 0x02, 0x00], sent: true)                       // Service Changed CCCD: indications
        att([0x13], sent: false)
        att([0x1B, 0x0E, 0x00, 0x16, 0x48, 0x40, 0x03, 0x30, 0x03], sent: false) // HR 72 bpm, contact, RR 0.8125, 0.797
        att([0x1B, 0x0E, 0x00, 0x06, 0x49], sent: false)                      // HR 73 bpm
        att([0x1D, 0x0A, 0x00, 0x0C, 0x00, 0x11, 0x00], sent: false)          // Service Changed indication
        att([0x1E], sent: true)
        att([0x1B, 0x14, 0x00, 0x56], sent: false)                            // Battery 86%
        // A long UART notification (MTU 65) in three fragments, and a write command.
        att([0x1B, 0x1A, 0x00] + Array("the quick brown fox jumps over the lazy dog, twice!!".utf8), sent: false)
        att([0x52, 0x18, 0x00] + Array("hello".utf8), sent: true)
        // A long write of the Device Name: prepare, prepare, execute.
        att([0x16, 0x03, 0x00, 0x00, 0x00] + Array("Heart Rate ".utf8), sent: true)
        att([0x17, 0x03, 0x00, 0x00, 0x00] + Array("Heart Rate ".utf8), sent: false)
        att([0x16, 0x03, 0x00, 0x0B, 0x00] + Array("Monitor".utf8), sent: true)
        att([0x17, 0x03, 0x00, 0x0B, 0x00] + Array("Monitor".utf8), sent: false)
        att([0x18, 0x01], sent: true)
        att([0x19], sent: false)
        att([0x12, 0x03, 0x00, 0x41], sent: true)                             // Write Request: not permitted
        att([0x01, 0x12, 0x03, 0x00, 0x03], sent: false)

        // The sensor asks for a slower connection over LE signaling; the host agrees.
        b.l2cap(handle: hr, cid: 0x0005, [0x12, 0x01, 0x08, 0x00, 0x50, 0x00, 0xA0, 0x00, 0x00, 0x00, 0x2C, 0x01], sent: false)
        b.l2cap(handle: hr, cid: 0x0005, [0x13, 0x01, 0x02, 0x00, 0x00, 0x00], sent: true)
        b.command(0x2013, le16(hr) + [0x50, 0x00, 0xA0, 0x00, 0x00, 0x00, 0x2C, 0x01, 0x00, 0x00, 0x00, 0x00])
        b.commandStatus(0x2013)
        b.event(0x3E, [0x03, 0x00] + le16(hr) + [0xA0, 0x00, 0x00, 0x00, 0x2C, 0x01])

        // EATT: two enhanced credit-based channels, then a read over the first.
        b.l2cap(handle: hr, cid: 0x0005, [0x17, 0x02, 0x0C, 0x00, 0x27, 0x00, 0x40, 0x00, 0x40, 0x00, 0x05, 0x00, 0x41, 0x00, 0x42, 0x00], sent: true)
        b.l2cap(handle: hr, cid: 0x0005, [0x18, 0x02, 0x0C, 0x00, 0x40, 0x00, 0x40, 0x00, 0x05, 0x00, 0x00, 0x00, 0x80, 0x00, 0x81, 0x00], sent: false)
        b.l2cap(handle: hr, cid: 0x0080, [0x03, 0x00, 0x0A, 0x14, 0x00], sent: true, fragment: 27)   // SDU 3: Read Request 0x0014
        b.l2cap(handle: hr, cid: 0x0041, [0x02, 0x00, 0x0B, 0x55], sent: false, fragment: 27)        // SDU 2: Read Response 85%
        b.l2cap(handle: hr, cid: 0x0005, [0x16, 0x03, 0x04, 0x00, 0x41, 0x00, 0x01, 0x00], sent: false) // 1 more credit
        // An LE credit-based connection to an SPSM the sensor does not have.
        b.l2cap(handle: hr, cid: 0x0005, [0x14, 0x04, 0x0A, 0x00, 0x25, 0x00, 0x43, 0x00, 0x00, 0x02, 0x40, 0x00, 0x0A, 0x00], sent: true)
        b.l2cap(handle: hr, cid: 0x0005, [0x15, 0x04, 0x0A, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00], sent: false)
        att([0x0A, 0x14, 0x00], sent: true)                                   // never answered: the link drops
        b.completedPackets(handle: hr, count: 12)
        b.disconnectionComplete(handle: hr, reason: 0x08)                     // Connection Timeout

        // The lock: legacy pairing that fails, plus broken ACL framing.
        b.command(0x200D, [0x60, 0x00, 0x30, 0x00, 0x00, 0x00] + addressBytes(Scenarios.lock) + [0x00, 0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0x48, 0x00, 0x00, 0x00, 0x00, 0x00])
        b.commandStatus(0x200D)
        b.leConnectionComplete(handle: lockLink, role: 0, peerType: 0, peer: Scenarios.lock)
        smp([0x01, 0x03, 0x00, 0x01, 0x10, 0x01, 0x01], sent: true, on: lockLink) // NoInputNoOutput, bonding
        smp([0x02, 0x03, 0x00, 0x01, 0x10, 0x01, 0x01], sent: false, on: lockLink)
        smp([0x03] + [UInt8](repeating: 0x77, count: 16), sent: true, on: lockLink)
        smp([0x03] + [UInt8](repeating: 0x88, count: 16), sent: false, on: lockLink)
        smp([0x04] + [UInt8](repeating: 0x99, count: 16), sent: true, on: lockLink)
        smp([0x05, 0x04], sent: false, on: lockLink)                              // Pairing Failed: Confirm Value Failed
        // A continuation with no start, then a start overtaken by another start.
        b.add(.aclData, .received, le16(lockLink | 0x1000) + le16(4) + [0xDE, 0xAD, 0xBE, 0xEF])
        b.add(.aclData, .received, le16(lockLink | 0x2000) + le16(8) + le16(20) + le16(0x0004) + [0x1B, 0x1A, 0x00, 0x01])
        att([0x0A, 0x03, 0x00], sent: false, on: lockLink)                        // Read Request from the lock
        att([0x0B] + Array("Phone".utf8), sent: true, on: lockLink)
        att([0x0A, 0x05, 0x00], sent: true, on: lockLink)                         // never answered: capture ends
        b.add(.aclData, .received, le16(lockLink | 0x2000) + le16(6) + le16(40) + le16(0x0004) + [0x1B, 0x1A]) // never completed
        return b.frames
    }

    /// BR/EDR L2CAP signaling in depth on handle 0x000C: information exchange, a refused and a
    /// pending-then-successful connection, configuration with every option, ERTM frames,
    /// echo, ATT over BR/EDR (PSM 0x001F), command reject and disconnection.
    public static func classicL2CAPSession() -> [Frame] {
        var b = PacketBuilder(start: demoStart + 7_200_000_000)
        let link: UInt16 = 0x000C
        func signal(_ bytes: [UInt8], sent: Bool) { b.l2cap(handle: link, cid: 0x0001, bytes, sent: sent) }
        b.exchange(0x0C03)
        b.command(0x0405, addressBytes(mac) + [0x18, 0xCC, 0x02, 0x00, 0x00, 0x00, 0x01])
        b.commandStatus(0x0405)
        b.connectionComplete(handle: link, peer: mac)
        signal([0x0A, 0x01, 0x02, 0x00, 0x02, 0x00], sent: true)                                  // Information Request: features
        signal([0x0B, 0x01, 0x08, 0x00, 0x02, 0x00, 0x00, 0x00, 0xB8, 0x02, 0x00, 0x00], sent: false) // ERTM, streaming, FCS, fixed ch., ext window
        signal([0x0A, 0x02, 0x02, 0x00, 0x03, 0x00], sent: true)                                  // fixed channels
        signal([0x0B, 0x02, 0x0C, 0x00, 0x03, 0x00, 0x00, 0x00, 0x86, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00], sent: false)
        signal([0x02, 0x03, 0x04, 0x00, 0x11, 0x00, 0x40, 0x00], sent: true)                      // Connect HID Control
        signal([0x03, 0x03, 0x08, 0x00, 0x00, 0x00, 0x40, 0x00, 0x02, 0x00, 0x00, 0x00], sent: false) // refused: PSM not supported
        signal([0x02, 0x04, 0x04, 0x00, 0x01, 0x00, 0x41, 0x00], sent: true)                      // Connect SDP
        signal([0x03, 0x04, 0x08, 0x00, 0x50, 0x00, 0x41, 0x00, 0x01, 0x00, 0x01, 0x00], sent: false) // pending: authentication
        signal([0x03, 0x04, 0x08, 0x00, 0x50, 0x00, 0x41, 0x00, 0x00, 0x00, 0x00, 0x00], sent: false) // successful
        // Configuration: MTU, flush timeout, ERTM, no FCS in one request; MTU back.
        signal([0x04, 0x05, 0x1A, 0x00, 0x50, 0x00, 0x00, 0x00,
                0x01, 0x02, 0x00, 0x04, 0x02, 0x02, 0xFF, 0xFF,
                0x04, 0x09, 0x03, 0x0A, 0x03, 0xD0, 0x07, 0xE0, 0x2E, 0xF8, 0x03, 0x05, 0x01, 0x00], sent: true)
        signal([0x05, 0x05, 0x0A, 0x00, 0x41, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x04], sent: false)
        signal([0x04, 0x06, 0x12, 0x00, 0x41, 0x00, 0x00, 0x00, 0x04, 0x09, 0x03, 0x0A, 0x03, 0xD0, 0x07, 0xE0, 0x2E, 0xF8, 0x03,
                0x05, 0x01, 0x00], sent: false)
        signal([0x05, 0x06, 0x06, 0x00, 0x50, 0x00, 0x00, 0x00, 0x00, 0x00], sent: true)
        // ERTM on the SDP channel without FCS: an I-frame carrying an SDP request, an RR S-frame.
        b.l2cap(handle: link, cid: 0x0050, [0x00, 0x00, 0x06, 0x00, 0x01, 0x00, 0x0F, 0x35, 0x03, 0x19, 0x01, 0x00, 0xFF, 0xFF,
                                            0x35, 0x05, 0x0A, 0x00, 0x00, 0xFF, 0xFF, 0x00], sent: true)
        b.l2cap(handle: link, cid: 0x0041, [0x01, 0x01], sent: false)
        // Echo, an unknown command answered by Command Reject, two commands in one PDU.
        signal([0x08, 0x07, 0x04, 0x00, 0x62, 0x74, 0x6C, 0x67], sent: true)
        signal([0x09, 0x07, 0x04, 0x00, 0x62, 0x74, 0x6C, 0x67], sent: false)
        signal([0x2A, 0x08, 0x00, 0x00], sent: true)
        signal([0x01, 0x08, 0x02, 0x00, 0x00, 0x00], sent: false)
        // ATT over BR/EDR: connect PSM 0x001F, then a read.
        signal([0x02, 0x09, 0x04, 0x00, 0x1F, 0x00, 0x42, 0x00, 0x0A, 0x02, 0x02, 0x00, 0x03, 0x00], sent: true)
        signal([0x03, 0x09, 0x08, 0x00, 0x51, 0x00, 0x42, 0x00, 0x00, 0x00, 0x00, 0x00], sent: false)
        b.l2cap(handle: link, cid: 0x0051, [0x0A, 0x03, 0x00], sent: true)
        b.l2cap(handle: link, cid: 0x0042, [0x0B] + Array("MacBook".utf8), sent: false)
        // Disconnect the SDP channel, then the link.
        signal([0x06, 0x0A, 0x04, 0x00, 0x50, 0x00, 0x41, 0x00], sent: true)
        signal([0x07, 0x0A, 0x04, 0x00, 0x50, 0x00, 0x41, 0x00], sent: false)
        b.l2cap(handle: link, cid: 0x0041, [0x01, 0x01], sent: false)           // data on the closed channel
        b.command(0x0406, le16(link) + [0x13])
        b.commandStatus(0x0406)
        b.disconnectionComplete(handle: link, reason: 0x16)
        return b.frames
    }

    /// The four packets that crash btmon 5.66 (issue 3): LE Connection Complete, Read By
    /// Group Type Request, its response naming Heart Rate, then Read By Type Request.
    public static func btmonCrashTrace() -> [Frame] {
        var b = PacketBuilder(start: demoStart)
        b.leConnectionComplete(handle: 0x0040, role: 0, peerType: 1, peer: sensor)
        b.att(handle: 0x0040, [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28], sent: true)
        b.att(handle: 0x0040, [0x11, 0x06, 0x01, 0x00, 0x05, 0x00, 0x0D, 0x18], sent: false)
        b.att(handle: 0x0040, [0x08, 0x01, 0x00, 0x05, 0x00, 0x03, 0x28], sent: true)
        return b.frames
    }
}
