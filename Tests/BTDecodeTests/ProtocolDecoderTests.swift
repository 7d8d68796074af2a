import XCTest
import BTCapture
import BTDecode

/// L2CAP, ATT/GATT, SMP and advertising data on bytes laid out from the Core specification.
final class ProtocolDecoderTests: XCTestCase {
    var decoder = Decoder()
    var number = 0

    override func setUp() {
        decoder = Decoder()
        number = 0
        setUpConnection()
    }

    func setUpConnection() {
        // LE Connection Complete: handle 0x0040, central, random peer C0:FF:EE:12:34:56.
        _ = feed(.event, .received, [0x3E, 0x13, 0x01, 0x00, 0x40, 0x00, 0x00, 0x01, 0x56, 0x34, 0x12, 0xEE, 0xFF, 0xC0,
                                     0x18, 0x00, 0x00, 0x00, 0x48, 0x00, 0x00])
    }

    @discardableResult
    func feed(_ kind: FrameKind, _ direction: Direction, _ bytes: [UInt8], at millis: Int64? = nil) -> Packet {
        number += 1
        let time = (millis ?? Int64(number)) * 1000
        return decoder.decode(Frame(number: number, timestamp: time, kind: kind, direction: direction, bytes: bytes))
    }

    /// One ACL packet on handle 0x0040 with the given boundary flag and payload.
    @discardableResult
    func acl(_ payload: [UInt8], pb: UInt8 = 2, sent: Bool, at millis: Int64? = nil) -> Packet {
        feed(.aclData, sent ? .sent : .received, [0x40, 0x00 | pb << 4, UInt8(payload.count), 0x00] + payload, at: millis)
    }

    /// A whole L2CAP basic frame on `cid`.
    @discardableResult
    func l2cap(_ cid: UInt16, _ payload: [UInt8], sent: Bool, at millis: Int64? = nil) -> Packet {
        acl([UInt8(payload.count), 0x00, UInt8(cid & 0xFF), UInt8(cid >> 8)] + payload, sent: sent, at: millis)
    }

    func values(_ packet: Packet, _ field: FieldDefinition) -> [String] {
        packet.layers.flatMap { $0.fieldCopies.filter { $0.definition == field }.map(\.value.text) }
    }

    // MARK: L2CAP

    func testReassemblyAcrossFragmentsDecodesOnceOnTheLastOne() {
        // Handle Value Notification (0x1B) of handle 0x000E with 10 value bytes: L2CAP length 13.
        let pdu: [UInt8] = [0x0D, 0x00, 0x04, 0x00, 0x1B, 0x0E, 0x00] + Array(0 ..< 10)
        let first = acl(Array(pdu.prefix(8)), pb: 2, sent: false)
        XCTAssertEqual(first.typeLabel, "L2CAP Receive")
        XCTAssertEqual(first.summary, "Fragment 1 of an L2CAP PDU - 8 of 17 bytes")
        XCTAssertTrue(values(first, ATTFields.opcode).isEmpty)
        let second = acl(Array(pdu.dropFirst(8)), pb: 1, sent: false)
        XCTAssertEqual(second.typeLabel, "ATT Receive")
        XCTAssertEqual(values(second, ATTFields.opcode), ["0x1B"])
        XCTAssertEqual(values(second, ATTFields.handle), ["0x000E"])
        XCTAssertEqual(values(second, L2CAPFields.fragmentCount), ["0x0002"])
        XCTAssertEqual(second.reassembledPDU.map(Array.init), pdu)
        XCTAssertTrue(second.issues.isEmpty, "\(second.issues)")
    }

    func testBrokenFramingBecomesIssues() {
        let orphan = acl([0xDE, 0xAD], pb: 1, sent: false)
        XCTAssertTrue(orphan.hasError)
        XCTAssertEqual(orphan.summary, "Continuation fragment without a start")
        acl([0x14, 0x00, 0x04, 0x00, 0x1B], pb: 2, sent: false)                  // wants 20 bytes
        let restart = l2cap(0x0004, [0x02, 0x17, 0x00], sent: false)           // a new start
        XCTAssertTrue(restart.issues.contains { $0.message.hasPrefix("New L2CAP PDU started before the one from packet") })
        XCTAssertEqual(restart.summary, "Exchange MTU Request - MTU: 23")
        // Longer than the header says: decoded, and the mismatch reported.
        let long = acl([0x01, 0x00, 0x04, 0x00, 0x13, 0xFF], sent: false)
        XCTAssertTrue(long.issues.contains { $0.message.contains("length mismatch") })
        // A PDU left open is reported at the end.
        acl([0x14, 0x00, 0x06, 0x00, 0x01], pb: 2, sent: true)
        // The end of the capture reports it, and the MTU request the host never answered.
        let reports = decoder.finish().map(\.message)
        XCTAssertEqual(reports, ["Exchange MTU Request never answered (end of capture)",
                                 "L2CAP PDU sent on handle 0x0040 incomplete at the end of the capture: 5 of 24 bytes in 1 fragment"])
    }

    func testSignalingOpensChannelsThatLaterDataFollows() {
        // BR/EDR-style Connection Request (code 2, ident 1) for PSM 0x001F, source CID 0x0041;
        // the response gives destination 0x0051. Then ATT over the dynamic channel.
        l2cap(0x0001, [0x02, 0x01, 0x04, 0x00, 0x1F, 0x00, 0x41, 0x00], sent: true)
        let response = l2cap(0x0001, [0x03, 0x01, 0x08, 0x00, 0x51, 0x00, 0x41, 0x00, 0x00, 0x00, 0x00, 0x00], sent: false)
        XCTAssertEqual(response.summary, "Connection Response - Destination CID: 0x0051 - Source CID: 0x0041 - Result: Connection successful - ATT")
        let read = l2cap(0x0051, [0x0A, 0x03, 0x00], sent: true)
        XCTAssertEqual(read.typeLabel, "ATT Send")
        XCTAssertEqual(values(read, L2CAPFields.psm), ["0x001F"])
        let answer = l2cap(0x0041, [0x0B, 0x41], sent: false)
        XCTAssertEqual(values(answer, ATTFields.requestIn), [String(read.frame.number)])
        // Connection Parameter Update Request (0x12): 7.5-15 ms, latency 0, 2 s.
        let update = l2cap(0x0005, [0x12, 0x02, 0x08, 0x00, 0x06, 0x00, 0x0C, 0x00, 0x00, 0x00, 0xC8, 0x00], sent: false)
        XCTAssertEqual(update.summary, "Connection Parameter Update Request - Interval: 7.5 ms-15 ms - Latency: 0 - Timeout: 2000 ms")
        // A short command: length 8 promised, 2 present.
        let short = l2cap(0x0005, [0x13, 0x03, 0x08, 0x00, 0x00, 0x00], sent: true)
        XCTAssertTrue(short.hasError)
    }

    // MARK: ATT and GATT

    func testDiscoveryNamesLaterHandles() {
        // The four packets btmon 5.66 crashes on, then a notification of the value they found.
        l2cap(0x0004, [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28], sent: true, at: 10)
        let services = l2cap(0x0004, [0x11, 0x06, 0x01, 0x00, 0x05, 0x00, 0x0D, 0x18], sent: false, at: 40)
        XCTAssertEqual(services.summary, "Read By Group Type Response - Heart Rate (0x0001-0x0005)")
        XCTAssertEqual(values(services, ATTFields.responseTime), ["30"])
        l2cap(0x0004, [0x08, 0x01, 0x00, 0x05, 0x00, 0x03, 0x28], sent: true)
        // Characteristic at 0x0002: Notify (0x10), value handle 0x0003, Heart Rate Measurement 0x2A37.
        l2cap(0x0004, [0x09, 0x07, 0x02, 0x00, 0x10, 0x03, 0x00, 0x37, 0x2A], sent: false)
        l2cap(0x0004, [0x04, 0x04, 0x00, 0x05, 0x00], sent: true)
        l2cap(0x0004, [0x05, 0x01, 0x04, 0x00, 0x02, 0x29], sent: false)
        let write = l2cap(0x0004, [0x12, 0x04, 0x00, 0x01, 0x00], sent: true)
        XCTAssertEqual(write.summary, "Write Request - Handle: 0x0004 - Heart Rate Measurement - Configuration - Notification")
        XCTAssertEqual(values(write, GATTFields.cccd), ["0x0001"])
        // Flags 0x01: 16-bit value 0x0102 = 258 bpm.
        let note = l2cap(0x0004, [0x1B, 0x03, 0x00, 0x01, 0x02, 0x01], sent: false)
        XCTAssertEqual(note.summary, "Handle Value Notification - Handle: 0x0003 - Heart Rate Measurement - 258 bpm")
        XCTAssertEqual(values(note, GATTFields.characteristic), ["2A37"])
        XCTAssertEqual(values(note, GATTFields.service), ["180D"])
    }

    /// A client that walks the database with Find Information and reads each declaration (as
    /// some stacks do) teaches the database as much as Read By Type would; a vendor service
    /// whose name ends in "Service" is not named "… Service Service".
    func testDeclarationsReadOneByOneAndServiceNames() {
        // Primary service 0x0010-0x0013: Nordic UART (6E400001-B5A3-F393-E0A9-E50E24DCCA9E, little-endian).
        let uart: [UInt8] = [0x9E, 0xCA, 0xDC, 0x24, 0x0E, 0xE5, 0xA9, 0xE0, 0x93, 0xF3, 0xA3, 0xB5, 0x01, 0x00, 0x40, 0x6E]
        l2cap(0x0004, [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28], sent: true)
        l2cap(0x0004, [0x11, 0x14, 0x10, 0x00, 0x13, 0x00] + uart, sent: false)
        l2cap(0x0004, [0x04, 0x10, 0x00, 0x13, 0x00], sent: true)
        let types = l2cap(0x0004, [0x05, 0x01, 0x10, 0x00, 0x00, 0x28, 0x11, 0x00, 0x03, 0x28, 0x12, 0x00, 0x37, 0x2A, 0x13, 0x00, 0x02, 0x29],
                          sent: false)
        XCTAssertEqual(types.summary, "Find Information Response - 0x0010: Nordic UART Service, 0x0011: Characteristic, 0x0012: Heart Rate Measurement, 0x0013: Configuration")
        // Read the declaration at 0x0011: Notify, value handle 0x0012, Heart Rate Measurement.
        l2cap(0x0004, [0x0A, 0x11, 0x00], sent: true)
        let read = l2cap(0x0004, [0x0B, 0x10, 0x12, 0x00, 0x37, 0x2A], sent: false)
        XCTAssertEqual(read.summary, "Read Response - Handle: 0x0011 - Characteristic Declaration - Heart Rate Measurement (0x0012: Notify)")
        XCTAssertEqual(values(read, ATTFields.valueHandle), ["0x0012"])
        let note = l2cap(0x0004, [0x1B, 0x12, 0x00, 0x00, 0x48], sent: false)
        XCTAssertEqual(note.summary, "Handle Value Notification - Handle: 0x0012 - Heart Rate Measurement - 72 bpm")
        let cccd = l2cap(0x0004, [0x12, 0x13, 0x00, 0x01, 0x00], sent: true)
        XCTAssertEqual(cccd.summary, "Write Request - Handle: 0x0013 - Heart Rate Measurement - Configuration - Notification")
        let service = l2cap(0x0004, [0x0A, 0x10, 0x00], sent: true)
        XCTAssertEqual(service.summary, "Read Request - Handle: 0x0010 - Nordic UART Service")
    }

    /// A handle is resolved once and the answer kept (GATTDatabase.naming) until discovery
    /// changes the database: a descriptor named before its characteristic's declaration was
    /// read is named after it once it has been. Last values are kept only when asked for.
    func testHandleNamesFollowDiscoveryAndLastValuesAreKeptOnlyWhenAsked() {
        for keeps in [false, true] {
            decoder = Decoder(options: DecodeOptions(keepsLastValues: keeps))
            number = 0
            setUpConnection()
            l2cap(0x0004, [0x04, 0x10, 0x00, 0x13, 0x00], sent: true)
            l2cap(0x0004, [0x05, 0x01, 0x11, 0x00, 0x03, 0x28, 0x12, 0x00, 0x37, 0x2A, 0x13, 0x00, 0x02, 0x29], sent: false)
            let before = l2cap(0x0004, [0x12, 0x13, 0x00, 0x01, 0x00], sent: true)
            XCTAssertEqual(before.summary, "Write Request - Handle: 0x0013 - Configuration - Notification")
            XCTAssertEqual(values(before, GATTFields.characteristic), [])
            l2cap(0x0004, [0x13], sent: false)
            l2cap(0x0004, [0x0A, 0x11, 0x00], sent: true)
            l2cap(0x0004, [0x0B, 0x10, 0x12, 0x00, 0x37, 0x2A], sent: false)
            let after = l2cap(0x0004, [0x12, 0x13, 0x00, 0x00, 0x00], sent: true)
            XCTAssertEqual(after.summary, "Write Request - Handle: 0x0013 - Heart Rate Measurement - Configuration - Disabled")
            XCTAssertEqual(values(after, GATTFields.characteristic), ["2A37"])
            l2cap(0x0004, [0x13], sent: false)
            l2cap(0x0004, [0x1B, 0x12, 0x00, 0x00, 0x48], sent: false)
            let database = decoder.session.gatt.databases.values.first
            XCTAssertEqual(database?.attributes[0x0012]?.lastValue, keeps ? [0x00, 0x48] : nil)
            XCTAssertEqual(database?.attributes[0x0013]?.lastValue, keeps ? [0x00, 0x00] : nil, "a write counts once answered")
        }
    }

    func testErrorsAndUnansweredRequests() {
        l2cap(0x0004, [0x0A, 0x11, 0x00], sent: true)
        let error = l2cap(0x0004, [0x01, 0x0A, 0x11, 0x00, 0x05], sent: false)
        XCTAssertEqual(values(error, ATTFields.error), ["0x05"])
        XCTAssertTrue(error.summary.hasSuffix("Error Code: Insufficient Authentication (0x05)"))
        XCTAssertTrue(error.hasWarning)
        // Attribute Not Found ending a discovery is only a note.
        l2cap(0x0004, [0x08, 0x20, 0x00, 0xFF, 0xFF, 0x03, 0x28], sent: true)
        let done = l2cap(0x0004, [0x01, 0x08, 0x20, 0x00, 0x0A], sent: false)
        XCTAssertFalse(done.hasError || done.hasWarning)
        // A request, then another before the answer, then the link drops.
        l2cap(0x0004, [0x0A, 0x03, 0x00], sent: true)
        let second = l2cap(0x0004, [0x0A, 0x05, 0x00], sent: true)
        XCTAssertTrue(second.issues.contains { $0.message.hasPrefix("Request sent before Read Request in packet") })
        let gone = feed(.event, .received, [0x05, 0x04, 0x00, 0x40, 0x00, 0x13])
        XCTAssertEqual(gone.issues.map(\.message), ["Read Request in packet \(second.frame.number) never answered (link disconnected)"])
    }

    func testMalformedATTNeverCrashes() {
        for bytes: [UInt8] in [[], [0x01], [0x01, 0x0A], [0x05, 0x02, 0x01], [0x09, 0x00], [0x09, 0x07, 0x01],
                               [0x11, 0x06, 0x01, 0x00], [0x10, 0x01, 0x00], [0xD2, 0x03, 0x00, 0x01], [0x23, 0x03, 0x00, 0xFF, 0xFF]] {
            let packet = l2cap(0x0004, bytes, sent: false)
            XCTAssertEqual(packet.top?.name, "ATT", "\(bytes)")
            XCTAssertTrue(packet.hasError, "every one of these is malformed: \(bytes)")
        }
    }

    // MARK: SMP

    func testSecureConnectionsMethodAndFailure() {
        // Pairing Request: KeyboardDisplay, no OOB, AuthReq 0x2D (bonding, MITM, SC, CT2), 16, keys 0x0B/0x0B.
        let request = l2cap(0x0006, [0x01, 0x04, 0x00, 0x2D, 0x10, 0x0B, 0x0B], sent: true)
        XCTAssertEqual(request.summary, "Pairing Request - KeyboardDisplay - Bonding, MITM, SC, CT2 - Key Size: 16")
        XCTAssertEqual(values(request, SMPFields.secureConnections), ["1"])
        // Pairing Response: DisplayYesNo with MITM and SC → Numeric Comparison (Core Vol 3, Part H, Table 2.8).
        let response = l2cap(0x0006, [0x02, 0x01, 0x00, 0x0D, 0x10, 0x0B, 0x0B], sent: false)
        XCTAssertEqual(values(response, SMPFields.method), ["LE Secure Connections, Numeric Comparison"])
        let failed = l2cap(0x0006, [0x05, 0x0B], sent: false)
        XCTAssertEqual(failed.summary, "Pairing Failed - Reason: DHKey Check Failed (0x0B)")
        XCTAssertTrue(failed.hasError)
        let short = l2cap(0x0006, [0x03, 0x01, 0x02], sent: true)      // Confirm needs 16 bytes
        XCTAssertTrue(short.hasError)
    }

    func testPairingMethodTable() {
        typealias F = (UInt8, UInt8, UInt8)
        func method(_ i: F, _ r: F) -> String {
            SMPDecoderProbe.method(initiator: i, responder: r)
        }
        // Legacy: no MITM → Just Works; KeyboardOnly × DisplayOnly with MITM → Passkey Entry.
        XCTAssertEqual(method((2, 0, 0x01), (0, 0, 0x01)), "LE Legacy, Just Works")
        XCTAssertEqual(method((2, 0, 0x05), (0, 0, 0x01)), "LE Legacy, Passkey Entry")
        // Legacy OOB needs both flags; SC OOB needs one.
        XCTAssertEqual(method((3, 1, 0x01), (3, 0, 0x01)), "LE Legacy, Just Works")
        XCTAssertEqual(method((3, 1, 0x09), (3, 0, 0x09)), "LE Secure Connections, Out of Band")
        XCTAssertEqual(method((1, 0, 0x0D), (1, 0, 0x0D)), "LE Secure Connections, Numeric Comparison")
        XCTAssertEqual(method((1, 0, 0x05), (1, 0, 0x05)), "LE Legacy, Just Works")
        XCTAssertEqual(method((4, 0, 0x0D), (3, 0, 0x0D)), "LE Secure Connections, Just Works")
    }

    // MARK: Advertising data

    func testAdvertisingDataTypes() {
        // Flags 0x06, 16-bit UUIDs 180D, name "HR", Apple manufacturer data 01 02, TX power -4.
        let data: [UInt8] = [0x02, 0x01, 0x06, 0x03, 0x03, 0x0D, 0x18, 0x03, 0x09, 0x48, 0x52, 0x05, 0xFF, 0x4C, 0x00, 0x01, 0x02, 0x02, 0x0A, 0xFC]
        let report: [UInt8] = [0x02, 0x01, 0x00, 0x01] + [0x56, 0x34, 0x12, 0xEE, 0xFF, 0xC0] + [UInt8(data.count)] + data + [0xC4]
        let packet = feed(.event, .received, [0x3E, UInt8(report.count)] + report)
        XCTAssertEqual(packet.summary, "LE - Advertising Report - 1 Report - Normal - Random - C0:FF:EE:12:34:56 -60 dBm - \"HR\"")
        XCTAssertEqual(values(packet, AdvertisingFields.uuid), ["180D"])
        XCTAssertEqual(values(packet, AdvertisingFields.company), ["0x004C"])
        XCTAssertEqual(values(packet, AdvertisingFields.txPower), ["-4"])
        XCTAssertEqual(values(packet, AdvertisingFields.adType), ["0x01", "0x03", "0x09", "0xFF", "0x0A"])
        XCTAssertTrue(packet.layers[0].fieldCopies.contains { $0.text == "Apple, Inc. (0x004C)" })
        // An AD structure running past the end is a warning, not a crash.
        let bad: [UInt8] = [0x02, 0x01, 0x00, 0x01] + [0x56, 0x34, 0x12, 0xEE, 0xFF, 0xC0] + [0x03, 0x09, 0x09, 0x41, 0xC4]
        let broken = feed(.event, .received, [0x3E, UInt8(bad.count)] + bad)
        XCTAssertTrue(broken.hasWarning)
    }

    func testHCIParameterLayouts() {
        // LE Set Scan Parameters: active, 0x0060 (60 ms), 0x0030 (30 ms), random, filter 0.
        let scan = feed(.command, .sent, [0x0B, 0x20, 0x07, 0x01, 0x60, 0x00, 0x30, 0x00, 0x01, 0x00])
        XCTAssertEqual(scan.summary, "LE Set Scan Parameters - Active - LE Scan Interval: 60 ms - LE Scan Window: 30 ms")
        // Data Length Change: handle 0x0040, 251/2120 each way.
        let change = feed(.event, .received, [0x3E, 0x0B, 0x07, 0x40, 0x00, 0xFB, 0x00, 0x48, 0x08, 0xFB, 0x00, 0x48, 0x08])
        XCTAssertEqual(change.summary, "LE - Data Length Change - Handle: 0x0040 - Max TX Octets: 251 - Max RX Octets: 251")
        XCTAssertEqual(change.peer?.description, "C0:FF:EE:12:34:56")
        // Read RSSI return: status 0, handle 0x0040, -70 dBm.
        let rssi = feed(.event, .received, [0x0E, 0x07, 0x01, 0x05, 0x14, 0x00, 0x40, 0x00, 0xBA])
        XCTAssertEqual(rssi.summary, "Command Complete: Read RSSI - Handle: 0x0040 - RSSI: -70 dBm")
        // A page timeout is a warning; a disallowed command an error.
        XCTAssertTrue(feed(.event, .received, [0x03, 0x0B, 0x04, 0x0B, 0x00, 1, 2, 3, 4, 5, 6, 0x01, 0x00]).hasWarning)
        XCTAssertTrue(feed(.event, .received, [0x0F, 0x04, 0x0C, 0x01, 0x0D, 0x20]).hasError)
        // Truncated parameters are an error and decoding goes on.
        XCTAssertTrue(feed(.command, .sent, [0x0B, 0x20, 0x07, 0x01, 0x60]).hasError)
    }
}
