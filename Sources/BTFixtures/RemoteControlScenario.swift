import BTCapture

/// AVCTP and AVRCP frames as a controller and target write them (AVCTP 1.4, AVRCP 1.6).
struct RemoteControl {
    var link: ClassicLink
    let control: (local: UInt16, remote: UInt16)
    let browsing: (local: UInt16, remote: UInt16)
    var label: UInt8 = 0

    /// One AVCTP single packet for A/V Remote Control (0x110E); a command takes a new label.
    mutating func avctp(_ message: [UInt8], sent: Bool, response: Bool, browse: Bool = false, pid: UInt16 = 0x110E, ipid: Bool = false) {
        if !response { label = (label + 1) & 0x0F }
        link.send(browse ? browsing : control, [label << 4 | (response ? 0x02 : 0x00) | (ipid ? 0x01 : 0x00)] + be16(pid) + message, sent: sent)
    }

    /// A message split into AVCTP start, continue and end packets of at most `size` bytes.
    mutating func avctpFragmented(_ message: [UInt8], size: Int, sent: Bool, response: Bool) {
        if !response { label = (label + 1) & 0x0F }
        let pieces = stride(from: 0, to: message.count, by: size).map { Array(message[$0 ..< min($0 + size, message.count)]) }
        for (index, piece) in pieces.enumerated() {
            let type: UInt8 = index == 0 ? 1 : index == pieces.count - 1 ? 3 : 2
            let header = label << 4 | type << 2 | (response ? 0x02 : 0x00)
            let head: [UInt8] = index == 0 ? [header, UInt8(pieces.count)] + be16(0x110E) : [header]
            link.send(control, head + piece, sent: sent)
        }
    }

    /// An AV/C vendor-dependent frame on the panel subunit with a Bluetooth SIG AVRCP PDU.
    static func vendor(ctype: UInt8, pdu: UInt8, _ parameters: [UInt8], packetType: UInt8 = 0) -> [UInt8] {
        [ctype, 0x48, 0x00, 0x00, 0x19, 0x58, pdu, packetType] + be16(UInt16(parameters.count)) + parameters
    }

    /// The controller (the host) asks; the target answers with `ctype`.
    mutating func vendorExchange(pdu: UInt8, command ctype: UInt8 = 0x01, _ parameters: [UInt8], answer: UInt8, _ response: [UInt8]) {
        avctp(Self.vendor(ctype: ctype, pdu: pdu, parameters), sent: true, response: false)
        avctp(Self.vendor(ctype: answer, pdu: pdu, response), sent: false, response: true)
    }

    /// A pass through press and release from the controller, each answered with `answer`.
    mutating func press(_ operation: UInt8, data: [UInt8] = [], answer: UInt8 = 0x09) {
        for state: UInt8 in [0x00, 0x80] {
            avctp([0x00, 0x48, 0x7C, operation | state, UInt8(data.count)] + data, sent: true, response: false)
            avctp([answer, 0x48, 0x7C, operation | state, UInt8(data.count)] + data, sent: false, response: true)
        }
    }

    /// A browsing PDU: ID, parameter length, parameters.
    mutating func browse(_ pdu: UInt8, _ parameters: [UInt8], sent: Bool) {
        avctp([pdu] + be16(UInt16(parameters.count)) + parameters, sent: sent, response: !sent, browse: true)
    }

    /// A UTF-8 attribute value entry (ID, character set, length, value).
    static func attribute(_ id: UInt32, _ value: String) -> [UInt8] {
        be32(id) + be16(0x006A) + be16(UInt16(value.utf8.count)) + Array(value.utf8)
    }

    static func name(_ text: String) -> [UInt8] { be16(0x006A) + be16(UInt16(text.utf8.count)) + Array(text.utf8) }
}

extension Scenarios {
    /// A car head unit (the host, AVRCP controller) driving a phone's media player (the
    /// target): unit and subunit info, capabilities, notifications (play status, track,
    /// volume) with their changes, pass through play/pause/volume/next group and one the
    /// phone does not implement, now-playing attributes sent in three parts the controller
    /// asks for, play status, absolute volume, player settings, a rejected command, a message
    /// AVCTP fragments, a profile the phone does not have (IPID), and the browsing channel:
    /// set browsed player, folder items of each kind, change path, item attributes, totals,
    /// search and a general reject.
    public static func remoteControlSession() -> [Frame] {
        let phone = "3C:22:FB:10:20:30"
        var link = ClassicLink.connect(to: phone, handle: 0x0011, at: demoStart + 12_000_000_000)
        let control: (local: UInt16, remote: UInt16) = (0x0045, 0x0071), browsing: (local: UInt16, remote: UInt16) = (0x0046, 0x0072)
        link.open(psm: 0x0017, control)
        link.open(psm: 0x001B, browsing)
        var rc = RemoteControl(link: link, control: control, browsing: browsing)

        rc.avctp([0x01, 0xFF, 0x30, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], sent: true, response: false)           // Unit Info
        rc.avctp([0x0C, 0xFF, 0x30, 0x07, 0x48, 0x00, 0x19, 0x58], sent: false, response: true)
        rc.avctp([0x01, 0xFF, 0x31, 0x07, 0xFF, 0xFF, 0xFF, 0xFF], sent: true, response: false)           // Subunit Info
        rc.avctp([0x0C, 0xFF, 0x31, 0x07, 0x48, 0xFF, 0xFF, 0xFF], sent: false, response: true)
        rc.vendorExchange(pdu: 0x10, [0x02], answer: 0x0C, [0x02, 0x01, 0x00, 0x19, 0x58])                // company IDs
        rc.vendorExchange(pdu: 0x10, [0x03], answer: 0x0C, [0x03, 0x05, 0x01, 0x02, 0x05, 0x08, 0x0D])    // events
        // Notifications: interim now, changed later.
        rc.vendorExchange(pdu: 0x31, command: 0x03, [0x01, 0, 0, 0, 0], answer: 0x0F, [0x01, 0x02])       // paused
        rc.vendorExchange(pdu: 0x31, command: 0x03, [0x02, 0, 0, 0, 0], answer: 0x0F, [0x02] + [UInt8](repeating: 0, count: 8))
        rc.vendorExchange(pdu: 0x31, command: 0x03, [0x05, 0, 0, 0, 5], answer: 0x0F, [0x05] + be32(63_000))
        rc.vendorExchange(pdu: 0x31, command: 0x03, [0x0D, 0, 0, 0, 0], answer: 0x0F, [0x0D, 0x40])
        // Play: the phone starts, and says so.
        rc.press(0x44)
        rc.avctp(RemoteControl.vendor(ctype: 0x0D, pdu: 0x31, [0x01, 0x01]), sent: false, response: true)
        rc.avctp(RemoteControl.vendor(ctype: 0x0D, pdu: 0x31, [0x02] + [UInt8](repeating: 0, count: 8)), sent: false, response: true)
        // Now playing, all attributes: the answer comes in three parts.
        rc.avctp(RemoteControl.vendor(ctype: 0x01, pdu: 0x20, [UInt8](repeating: 0, count: 8) + [0x00]), sent: true, response: false)
        let attributes = RemoteControl.attribute(0x1, "Gymnopédie No. 1 (Lent et douloureux)")
            + RemoteControl.attribute(0x2, "Erik Satie") + RemoteControl.attribute(0x3, "Trois Gymnopédies")
            + RemoteControl.attribute(0x4, "1") + RemoteControl.attribute(0x5, "3") + RemoteControl.attribute(0x6, "Classical")
            + RemoteControl.attribute(0x7, "185000")
        let all = [0x07] + attributes
        let parts = [Array(all[0 ..< 40]), Array(all[40 ..< 80]), Array(all[80...])]
        rc.avctp(RemoteControl.vendor(ctype: 0x0C, pdu: 0x20, parts[0], packetType: 1), sent: false, response: true)
        rc.avctp(RemoteControl.vendor(ctype: 0x00, pdu: 0x40, [0x20]), sent: true, response: false)       // Request Continuing Response
        rc.avctp(RemoteControl.vendor(ctype: 0x0C, pdu: 0x20, parts[1], packetType: 2), sent: false, response: true)
        rc.avctp(RemoteControl.vendor(ctype: 0x00, pdu: 0x40, [0x20]), sent: true, response: false)
        rc.avctp(RemoteControl.vendor(ctype: 0x0C, pdu: 0x20, parts[2], packetType: 3), sent: false, response: true)
        rc.vendorExchange(pdu: 0x30, [], answer: 0x0C, be32(185_000) + be32(1_500) + [0x01])
        // Volume: the head unit sets it; the phone's own change arrives as a notification.
        rc.vendorExchange(pdu: 0x50, command: 0x00, [0x64], answer: 0x09, [0x64])
        rc.avctp(RemoteControl.vendor(ctype: 0x0D, pdu: 0x31, [0x0D, 0x50]), sent: false, response: true)
        rc.vendorExchange(pdu: 0x31, command: 0x03, [0x0D, 0, 0, 0, 0], answer: 0x0F, [0x0D, 0x50])
        rc.press(0x41)
        rc.press(0x7E, data: [0x00, 0x19, 0x58, 0x00, 0x00])                                               // Next Group
        rc.press(0x4A, answer: 0x08)                                                                       // Eject: not implemented
        // Player settings: list, read, set repeat all.
        rc.vendorExchange(pdu: 0x11, [], answer: 0x0C, [0x02, 0x02, 0x03])
        rc.vendorExchange(pdu: 0x13, [0x02, 0x02, 0x03], answer: 0x0C, [0x02, 0x02, 0x01, 0x03, 0x01])
        rc.vendorExchange(pdu: 0x14, command: 0x00, [0x01, 0x02, 0x03], answer: 0x09, [])
        rc.vendorExchange(pdu: 0x31, command: 0x03, [0x07, 0, 0, 0, 0], answer: 0x0A, [0x01])              // rejected: invalid parameter
        rc.vendorExchange(pdu: 0x18, command: 0x00, [0x01], answer: 0x09, [])
        // A message longer than the channel's MTU, fragmented by AVCTP: a long character set list.
        let charsets = (0 ..< 300).flatMap { _ in be16(0x006A) }
        rc.avctpFragmented(RemoteControl.vendor(ctype: 0x00, pdu: 0x17, [0xFF] + Array(charsets[0 ..< 510])), size: 200, sent: true, response: false)
        rc.avctp(RemoteControl.vendor(ctype: 0x09, pdu: 0x17, []), sent: false, response: true)
        // A profile the phone does not serve on this channel.
        rc.avctp([0x01, 0x48, 0x00], sent: true, response: false, pid: 0x1200)
        rc.avctp([], sent: false, response: true, pid: 0x1200, ipid: true)

        // Browsing.
        rc.browse(0x71, [0x00] + be32(0) + be32(9) + [0x00], sent: true)                                  // players
        let player = be16(1) + [0x01] + be32(0) + [0x02] + [UInt8](repeating: 0xFF, count: 16) + RemoteControl.name("Music")
        rc.browse(0x71, [0x04] + be16(7) + be16(1) + [0x01] + be16(UInt16(player.count)) + player, sent: false)
        rc.browse(0x70, be16(1), sent: true)
        rc.browse(0x70, [0x04] + be16(7) + be32(2) + be16(0x006A) + [0x01] + be16(4) + Array("root".utf8), sent: false)
        rc.browse(0x71, [0x01] + be32(0) + be32(9) + [0xFF], sent: true)                                  // the root folder
        let folder = be64(0x11) + [0x02, 0x01] + RemoteControl.name("Playlists")
        let song = be64(0x21) + [0x00] + RemoteControl.name("Gnossienne No. 1") + [0x01] + RemoteControl.attribute(0x2, "Erik Satie")
        rc.browse(0x71, [0x04] + be16(7) + be16(2) + [0x02] + be16(UInt16(folder.count)) + folder + [0x03] + be16(UInt16(song.count)) + song,
                  sent: false)
        rc.browse(0x72, be16(7) + [0x01] + be64(0x11), sent: true)
        rc.browse(0x72, [0x04] + be32(12), sent: false)
        rc.browse(0x73, [0x01] + be64(0x21) + be16(7) + [0x02] + be32(0x1) + be32(0x7), sent: true)
        rc.browse(0x73, [0x04, 0x02] + RemoteControl.attribute(0x1, "Gnossienne No. 1") + RemoteControl.attribute(0x7, "221000"), sent: false)
        rc.browse(0x75, [0x03], sent: true)
        rc.browse(0x75, [0x04] + be16(7) + be32(3), sent: false)
        rc.browse(0x80, be16(0x006A) + be16(5) + Array("Satie".utf8), sent: true)
        rc.browse(0x80, [0x0F], sent: false)                                                              // search not supported
        rc.browse(0x85, [], sent: true)                                                                   // not a PDU
        rc.browse(0xA0, [0x00], sent: false)
        rc.press(0x46)

        link = rc.link
        link.close(browsing)
        link.close(control)
        link.disconnect()
        return link.b.frames
    }
}

extension Scenarios {
    /// A phone asks a headset for Enhanced Retransmission Mode on the AVCTP channel; the
    /// headset refuses ("unacceptable parameters", counter-proposing Basic), the phone asks
    /// again for Basic and both sides accept: the channel runs in Basic mode, and its AVRCP
    /// frames carry no ERTM control field (a real Android-to-headset capture did this).
    public static func refusedERTMSession() -> [Frame] {
        let headset = "00:1B:66:A1:B2:C3"
        var link = ClassicLink.connect(to: headset, handle: 0x0042, at: demoStart + 20_000_000_000)
        let control: (local: UInt16, remote: UInt16) = (0x0050, 0x0041)
        link.open(psm: 0x0017, control)
        // Mode option: ERTM, TxWindow 10, MaxTransmit 3, retransmission 2000 ms, monitor 12000 ms, MPS 1009.
        let ertm: [UInt8] = [0x04, 0x09, 0x03, 0x0A, 0x03] + le16(2000) + le16(12000) + le16(1009)
        let basic: [UInt8] = [0x04, 0x09, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]
        let mtu: [UInt8] = [0x01, 0x02] + le16(895)
        link.signal(0x04, le16(control.remote) + le16(0) + mtu + ertm + [0x05, 0x01, 0x00], sent: true)
        link.signal(0x05, le16(control.local) + le16(0) + le16(0x0001) + basic, sent: false, reply: true)
        link.signal(0x04, le16(control.remote) + le16(0) + mtu, sent: true)
        link.signal(0x05, le16(control.local) + le16(0) + le16(0x0000), sent: false, reply: true)
        link.signal(0x04, le16(control.local) + le16(0) + [0x01, 0x02] + le16(672), sent: false)
        link.signal(0x05, le16(control.remote) + le16(0) + le16(0x0000), sent: true, reply: true)
        var rc = RemoteControl(link: link, control: control, browsing: (0, 0))
        rc.vendorExchange(pdu: 0x10, [0x03], answer: 0x0C, [0x03, 0x03, 0x01, 0x02, 0x0D])                // events
        rc.vendorExchange(pdu: 0x31, command: 0x03, [0x01, 0, 0, 0, 0], answer: 0x0F, [0x01, 0x00])       // stopped
        rc.vendorExchange(pdu: 0x31, command: 0x03, [0x0D, 0, 0, 0, 0], answer: 0x0F, [0x0D, 0x3C])
        rc.press(0x44)
        rc.avctp(RemoteControl.vendor(ctype: 0x0D, pdu: 0x31, [0x01, 0x01]), sent: false, response: true)
        rc.link.disconnect()
        return rc.link.b.drain()
    }
}
