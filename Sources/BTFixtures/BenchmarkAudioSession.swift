import BTCapture

extension BenchmarkSessions {
    /// A phone streaming music to a headset over BR/EDR: Secure Simple Pairing, SDP for the
    /// A2DP sink, HFP's service level connection over RFCOMM, AVDTP signaling (discover,
    /// capabilities, SBC configuration, open, start, suspend), AVRCP over AVCTP, then SBC media
    /// packets of five frames each with Number Of Completed Packets, volume changes, indicator
    /// updates and pauses.
    public static func audioSession(packets: Int, emit: ([Frame]) throws -> Void) rethrows {
        var session = AudioSession(start: Scenarios.demoStart + 10_800_000_000)
        try stream(packets: packets, emit: emit) { session.step() } drain: { session.b.drain() }
    }
}

struct AudioSession {
    var b: PacketBuilder
    var random = SplitMix64(state: 0x6132_6470_0000_0001)
    let handle: UInt16 = 0x000B
    let headset = "00:1A:7D:DA:71:13"
    var identifier: UInt8 = 0
    var avdtpLabel: UInt8 = 0
    var avctpLabel: UInt8 = 0
    var sequence: UInt16 = 0x2A10
    var rtpTime: UInt32 = 0x0001_0000
    var unacknowledged = 0
    var connected = false
    var streaming = false
    var mediaSinceStart = 0
    var volume: UInt8 = 0x40

    // Channel identifiers: the phone's (source) and the headset's (destination) end.
    static let sdp: (local: UInt16, remote: UInt16) = (0x0040, 0x0050)
    static let signaling: (local: UInt16, remote: UInt16) = (0x0041, 0x0051)
    static let media: (local: UInt16, remote: UInt16) = (0x0042, 0x0052)
    static let avctp: (local: UInt16, remote: UInt16) = (0x0043, 0x0053)
    static let rfcomm: (local: UInt16, remote: UInt16) = (0x0044, 0x0054)
    /// HFP's RFCOMM server channel 1 on the headset: DLCI 2.
    static let hfpDLCI: UInt8 = 2

    init(start: Int64) {
        b = PacketBuilder(start: start)
        b.exchange(0x0C03)                                                      // Reset
        b.exchange(0x1009, returns: [0x00] + addressBytes(Scenarios.phoneController))
        b.exchange(0x1005, returns: [0x00, 0xFD, 0x03, 0x40, 0x08, 0x00, 0x08, 0x00]) // Read Buffer Size: 1021 × 8
        b.exchange(0x0C56, [0x01])                                              // Write Simple Pairing Mode
        b.exchange(0x0C24, [0x0C, 0x02, 0x5A])                                  // Write Class Of Device: phone
        b.exchange(0x0C1A, [0x03])                                              // Write Scan Enable
    }

    mutating func step() {
        if !connected { connect(); return }
        if !streaming { start(); return }
        let roll = random.below(1000)
        switch roll {
        case 0 ..< 690:
            mediaPacket()
        case 690 ..< 960:
            if unacknowledged > 0 {
                b.completedPackets(handle: handle, count: UInt16(unacknowledged))
                unacknowledged = 0
            } else {
                mediaPacket()
            }
        case 960 ..< 975: // the headset's volume buttons: AVRCP notification, then a new registration
            volume = UInt8(random.below(0x80))
            avrcpVendor(ctype: 0x0D, pdu: 0x31, [0x0D, volume], sent: false)    // CHANGED: Volume Changed
            avrcpVendor(ctype: 0x03, pdu: 0x31, [0x0D, 0x00, 0x00, 0x00, 0x00], sent: true) // NOTIFY again
            avrcpVendor(ctype: 0x0F, pdu: 0x31, [0x0D, volume], sent: false)    // INTERIM
        case 975 ..< 985: // the phone's signal and battery indicators
            rfcommAT("\r\n+CIEV: \(random.below(2) == 0 ? 5 : 7),\(random.below(6))\r\n", sent: true)
        case 985 ..< 995: // Android polls the link quality
            b.command(0x1405, le16(handle))                                     // Read RSSI
            b.commandComplete(0x1405, [0x00] + le16(handle) + [UInt8(bitPattern: Int8(-random.below(20)))])
        default:
            if mediaSinceStart > 20_000 { pause() } else { mediaPacket() }
        }
    }

    // MARK: Link, pairing and channels

    mutating func connect() {
        connected = true
        b.command(0x0405, addressBytes(headset) + [0x18, 0xCC, 0x02, 0x00, 0x00, 0x00, 0x01]) // Create Connection
        b.commandStatus(0x0405)
        b.connectionComplete(handle: handle, peer: headset)
        b.command(0x041B, le16(handle))                                         // Read Remote Supported Features
        b.commandStatus(0x041B)
        b.event(0x0B, [0x00] + le16(handle) + [0xBF, 0xFE, 0xCF, 0xFE, 0xDB, 0xFF, 0x7B, 0x87])
        b.command(0x0419, addressBytes(headset) + [0x02, 0x00, 0x00, 0x00])     // Remote Name Request
        b.commandStatus(0x0419)
        let name = Array("WH-1000XM4".utf8)
        b.event(0x07, [0x00] + addressBytes(headset) + name + [UInt8](repeating: 0, count: 248 - name.count))

        // Secure Simple Pairing, numeric comparison.
        b.command(0x0411, le16(handle))                                         // Authentication Requested
        b.commandStatus(0x0411)
        b.event(0x17, addressBytes(headset))                                    // Link Key Request
        b.command(0x040C, addressBytes(headset))                                // Link Key Request Negative Reply
        b.commandComplete(0x040C, [0x00] + addressBytes(headset))
        b.event(0x31, addressBytes(headset))                                    // IO Capability Request
        b.command(0x042B, addressBytes(headset) + [0x01, 0x00, 0x03])           // IO Capability Request Reply
        b.commandComplete(0x042B, [0x00] + addressBytes(headset))
        b.event(0x32, addressBytes(headset) + [0x03, 0x00, 0x02])               // IO Capability Response
        b.event(0x33, addressBytes(headset) + le32(UInt32(random.below(1_000_000)))) // User Confirmation Request
        b.command(0x042C, addressBytes(headset))                                // User Confirmation Request Reply
        b.commandComplete(0x042C, [0x00] + addressBytes(headset))
        b.event(0x36, [0x00] + addressBytes(headset))                           // Simple Pairing Complete
        b.event(0x18, addressBytes(headset) + random.bytes(16) + [0x08])        // Link Key Notification: P-256 authenticated
        b.event(0x06, [0x00] + le16(handle))                                    // Authentication Complete
        b.command(0x0413, le16(handle) + [0x01])                                // Set Connection Encryption
        b.commandStatus(0x0413)
        b.event(0x08, [0x00] + le16(handle) + [0x01])                           // Encryption Change

        // SDP: where is the A2DP sink?
        openChannel(psm: 0x0001, Self.sdp)
        let search: [UInt8] = [0x06, 0x00, 0x01, 0x00, 0x0F,
                               0x35, 0x03, 0x19, 0x11, 0x0B,                    // ServiceSearchPattern: Audio Sink
                               0x01, 0xF0,                                      // maximum attribute bytes
                               0x35, 0x05, 0x0A, 0x00, 0x00, 0xFF, 0xFF,        // AttributeIDList: 0x0000-0xFFFF
                               0x00]
        channel(Self.sdp, search, sent: true)
        func sequence(_ content: [UInt8]) -> [UInt8] { [0x35, UInt8(content.count)] + content }
        let record = sequence(sequence(
            [0x09, 0x00, 0x00, 0x0A, 0x00, 0x01, 0x00, 0x01]                    // ServiceRecordHandle
            + [0x09, 0x00, 0x01] + sequence([0x19, 0x11, 0x0B])                 // ServiceClassIDList: Audio Sink
            + [0x09, 0x00, 0x04] + sequence(                                    // ProtocolDescriptorList
                sequence([0x19, 0x01, 0x00, 0x09, 0x00, 0x19])                  //   L2CAP, PSM AVDTP
                + sequence([0x19, 0x00, 0x19, 0x09, 0x01, 0x03]))               //   AVDTP 1.3
            + [0x09, 0x00, 0x09] + sequence(sequence([0x19, 0x11, 0x0D, 0x09, 0x01, 0x03])) // Advanced Audio 1.3
            + [0x09, 0x03, 0x11, 0x09, 0x00, 0x01]))                            // SupportedFeatures: headphone
        channel(Self.sdp, [0x07, 0x00, 0x01] + be16(UInt16(record.count + 3)) + be16(UInt16(record.count)) + record + [0x00],
                sent: false)
        closeChannel(Self.sdp)

        // HFP service level connection over RFCOMM.
        openChannel(psm: 0x0003, Self.rfcomm)
        rfcommFrame(dlci: 0, control: 0x3F, [], sent: true)                      // SABM
        rfcommFrame(dlci: 0, control: 0x73, [], sent: false)                     // UA
        let pn: [UInt8] = [Self.hfpDLCI, 0xF0, 0x07, 0x00] + le16(667) + [0x00, 0x07]
        rfcommFrame(dlci: 0, control: 0xEF, [0x83, 0x11] + pn, sent: true)       // PN command
        rfcommFrame(dlci: 0, control: 0xEF, [0x81, 0x11] + [Self.hfpDLCI, 0xE0, 0x07, 0x00] + le16(667) + [0x00, 0x07],
                    sent: false)                                                 // PN response
        rfcommFrame(dlci: Self.hfpDLCI, control: 0x3F, [], sent: true)
        rfcommFrame(dlci: Self.hfpDLCI, control: 0x73, [], sent: false)
        rfcommFrame(dlci: 0, control: 0xEF, [0xE3, 0x05, Self.hfpDLCI << 2 | 0x03, 0x8D], sent: true) // MSC
        rfcommFrame(dlci: 0, control: 0xEF, [0xE3, 0x05, Self.hfpDLCI << 2 | 0x03, 0x8D], sent: false)
        rfcommFrame(dlci: 0, control: 0xEF, [0xE1, 0x05, Self.hfpDLCI << 2 | 0x03, 0x8D], sent: true)
        rfcommFrame(dlci: 0, control: 0xEF, [0xE1, 0x05, Self.hfpDLCI << 2 | 0x03, 0x8D], sent: false)
        for (command, response) in [
            ("AT+BRSF=959\r", "\r\n+BRSF: 871\r\n\r\nOK\r\n"),
            ("AT+CIND=?\r", "\r\n+CIND: (\"call\",(0,1)),(\"callsetup\",(0-3)),(\"service\",(0-1)),(\"signal\",(0-5)),(\"roam\",(0,1)),(\"battchg\",(0-5)),(\"callheld\",(0-2))\r\n\r\nOK\r\n"),
            ("AT+CIND?\r", "\r\n+CIND: 0,0,1,4,0,5,0\r\n\r\nOK\r\n"),
            ("AT+CMER=3,0,0,1\r", "\r\nOK\r\n"),
            ("AT+CHLD=?\r", "\r\n+CHLD: (0,1,2,3)\r\n\r\nOK\r\n"),
            ("AT+CLIP=1\r", "\r\nOK\r\n"),
            ("AT+VGS=9\r", "\r\nOK\r\n"),
        ] {
            rfcommAT(command, sent: false)
            rfcommAT(response, sent: true)
        }

        // AVRCP: the headset registers for volume changes.
        openChannel(psm: 0x0017, Self.avctp)
        avrcpVendor(ctype: 0x01, pdu: 0x10, [0x03], sent: true)                 // GetCapabilities: events
        avrcpVendor(ctype: 0x0C, pdu: 0x10, [0x03, 0x03, 0x01, 0x02, 0x0D], sent: false)
        avrcpVendor(ctype: 0x03, pdu: 0x31, [0x0D, 0x00, 0x00, 0x00, 0x00], sent: true)
        avrcpVendor(ctype: 0x0F, pdu: 0x31, [0x0D, volume], sent: false)

        // AVDTP: find the SBC sink, configure it, open the media channel.
        openChannel(psm: 0x0019, Self.signaling)
        avdtp([0x01], sent: true)                                               // Discover
        avdtp([0x01, 0x04, 0x08], sent: false, response: true)                  // SEID 1, audio sink
        avdtp([0x0C, 0x04], sent: true)                                         // Get All Capabilities
        avdtp([0x0C, 0x01, 0x00, 0x07, 0x06, 0x00, 0x00, 0xFF, 0xFF, 0x02, 0x35, 0x08, 0x00], sent: false, response: true)
        avdtp([0x03, 0x04, 0x04, 0x01, 0x00, 0x07, 0x06, 0x00, 0x00, 0x21, 0x15, 0x02, 0x35], sent: true) // Set Configuration
        avdtp([0x03], sent: false, response: true)
        avdtp([0x06, 0x04], sent: true)                                         // Open
        avdtp([0x06], sent: false, response: true)
        openChannel(psm: 0x0019, Self.media)
    }

    mutating func start() {
        streaming = true
        mediaSinceStart = 0
        avrcpPassThrough(0x44, sent: false)                                     // PLAY from the headset
        avdtp([0x07, 0x04], sent: true)                                         // Start
        avdtp([0x07], sent: false, response: true)
    }

    mutating func pause() {
        streaming = false
        avrcpPassThrough(0x46, sent: false)                                     // PAUSE
        avdtp([0x09, 0x04], sent: true)                                         // Suspend
        avdtp([0x09], sent: false, response: true)
    }

    // MARK: Packets

    /// RTP, the SBC media payload header, five SBC frames (44.1 kHz, 16 blocks, joint stereo,
    /// 8 subbands, bitpool 53: 119 bytes each).
    mutating func mediaPacket() {
        var payload: [UInt8] = [0x80, 0x60] + be16(sequence) + be32(rtpTime) + be32(1) + [0x05]
        for _ in 0 ..< 5 { payload += [0x9C, 0xBD, 0x35, UInt8(truncatingIfNeeded: random.next())] + random.bytes(115) }
        sequence &+= 1
        rtpTime &+= 640
        mediaSinceStart += 1
        channel(Self.media, payload, sent: true, after: 2900)
    }

    mutating func channel(_ cid: (local: UInt16, remote: UInt16), _ payload: [UInt8], sent: Bool, after: Int64 = 1500) {
        b.l2cap(handle: handle, cid: sent ? cid.remote : cid.local, payload, sent: sent, fragment: 1021, after: after)
        if sent { unacknowledged += 1 }
    }

    mutating func signal(_ code: UInt8, _ data: [UInt8], sent: Bool, reply: Bool = false) {
        if !reply { identifier = identifier == 0xFF ? 1 : identifier + 1 }
        b.l2cap(handle: handle, cid: 0x0001, [code, identifier] + le16(UInt16(data.count)) + data, sent: sent)
        if sent { unacknowledged += 1 }
    }

    /// Connection and configuration of a channel the phone opens (MTU 672 both ways).
    mutating func openChannel(psm: UInt16, _ cid: (local: UInt16, remote: UInt16)) {
        signal(0x02, le16(psm) + le16(cid.local), sent: true)
        signal(0x03, le16(cid.remote) + le16(cid.local) + [0, 0, 0, 0], sent: false, reply: true)
        signal(0x04, le16(cid.remote) + [0x00, 0x00, 0x01, 0x02] + le16(672), sent: true)
        signal(0x05, le16(cid.local) + [0, 0, 0, 0], sent: false, reply: true)
        signal(0x04, le16(cid.local) + [0x00, 0x00, 0x01, 0x02] + le16(672), sent: false)
        signal(0x05, le16(cid.remote) + [0, 0, 0, 0], sent: true, reply: true)
    }

    mutating func closeChannel(_ cid: (local: UInt16, remote: UInt16)) {
        signal(0x06, le16(cid.remote) + le16(cid.local), sent: true)
        signal(0x07, le16(cid.remote) + le16(cid.local), sent: false, reply: true)
    }

    /// AVDTP single packet: transaction label, packet type 0, message type command (0) or
    /// response accept (2).
    mutating func avdtp(_ body: [UInt8], sent: Bool, response: Bool = false) {
        if !response { avdtpLabel = (avdtpLabel + 1) & 0x0F }
        channel(Self.signaling, [avdtpLabel << 4 | (response ? 0x02 : 0x00)] + body, sent: sent)
    }

    /// AVCTP single packet carrying an AV/C frame for the A/V Remote Control profile (0x110E).
    mutating func avctp(_ avc: [UInt8], sent: Bool, response: Bool) {
        if !response { avctpLabel = (avctpLabel + 1) & 0x0F }
        channel(Self.avctp, [avctpLabel << 4 | (response ? 0x02 : 0x00), 0x11, 0x0E] + avc, sent: sent)
    }

    /// AVRCP vendor-dependent PDU (Bluetooth SIG company 0x001958) on the panel subunit.
    mutating func avrcpVendor(ctype: UInt8, pdu: UInt8, _ parameters: [UInt8], sent: Bool) {
        avctp([ctype, 0x48, 0x00, 0x00, 0x19, 0x58, pdu, 0x00] + be16(UInt16(parameters.count)) + parameters,
              sent: sent, response: ctype >= 0x08)
    }

    /// A PASS THROUGH press and release, each accepted.
    mutating func avrcpPassThrough(_ operation: UInt8, sent: Bool) {
        for state: UInt8 in [0x00, 0x80] {
            avctp([0x00, 0x48, 0x7C, operation | state, 0x00], sent: sent, response: false)
            avctp([0x09, 0x48, 0x7C, operation | state, 0x00], sent: !sent, response: true)
        }
    }

    /// An RFCOMM frame on the phone-initiated session. C/R is 1 on the initiator's commands
    /// and the responder's responses (the only ones here), and on the initiator's UIH frames.
    mutating func rfcommFrame(dlci: UInt8, control: UInt8, _ information: [UInt8], sent: Bool, credits: UInt8? = nil) {
        let isUIH = control & 0xEF == 0xEF
        let commandResponse: UInt8 = isUIH ? (sent ? 1 : 0) : 1
        let address = dlci << 2 | commandResponse << 1 | 0x01
        let length: [UInt8] = information.count <= 127
            ? [UInt8(information.count) << 1 | 1]
            : [UInt8(information.count & 0x7F) << 1, UInt8(information.count >> 7)]
        // UIH frames check only address and control; the others include the length.
        let covered = isUIH ? [address, control] : [address, control] + length
        let frame = [address, control] + length + (credits.map { [$0] } ?? []) + information + [Self.fcs(covered)]
        channel(Self.rfcomm, frame, sent: sent)
    }

    /// An AT command or result on the HFP channel, with one credit given back.
    mutating func rfcommAT(_ text: String, sent: Bool) {
        rfcommFrame(dlci: Self.hfpDLCI, control: 0xFF, Array(text.utf8), sent: sent, credits: 1)
    }

    /// RFCOMM's frame check sequence (3GPP TS 07.10): CRC-8 with the reversed polynomial 0xE0,
    /// initial value 0xFF, sent as its one's complement.
    static func fcs(_ bytes: [UInt8]) -> UInt8 {
        var crc: UInt8 = 0xFF
        for byte in bytes {
            crc ^= byte
            for _ in 0 ..< 8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xE0 : crc >> 1 }
        }
        return 0xFF - crc
    }
}
