import BTCapture

/// The report descriptor of the scenario's keyboard (HID 1.11, 6.2.2 items): report 1 a
/// keyboard (modifiers, a reserved byte, LEDs out, six keys), report 2 consumer controls
/// (volume up/down, mute, play/pause as bits), report 3 a mouse (three buttons, X, Y, wheel).
public enum KeyboardDescriptor {
    public static let bytes: [UInt8] = [
        0x05, 0x01, 0x09, 0x06, 0xA1, 0x01, 0x85, 0x01,             // Generic Desktop, Keyboard, Application, Report ID 1
        0x05, 0x07, 0x19, 0xE0, 0x29, 0xE7, 0x15, 0x00, 0x25, 0x01, // modifiers E0-E7, 0..1
        0x75, 0x01, 0x95, 0x08, 0x81, 0x02,                         // 8 × 1 bit, Input (Data, Variable)
        0x95, 0x01, 0x75, 0x08, 0x81, 0x01,                         // reserved byte, Input (Constant)
        0x95, 0x05, 0x75, 0x01, 0x05, 0x08, 0x19, 0x01, 0x29, 0x05, 0x91, 0x02, // 5 LEDs, Output (Variable)
        0x95, 0x01, 0x75, 0x03, 0x91, 0x01,                         // padding
        0x95, 0x06, 0x75, 0x08, 0x15, 0x00, 0x25, 0x65, 0x05, 0x07, 0x19, 0x00, 0x29, 0x65, 0x81, 0x00, // six keys, Array
        0xC0,
        0x05, 0x0C, 0x09, 0x01, 0xA1, 0x01, 0x85, 0x02,             // Consumer, Consumer Control, Application, Report ID 2
        0x15, 0x00, 0x25, 0x01, 0x09, 0xE9, 0x09, 0xEA, 0x09, 0xE2, 0x09, 0xCD,
        0x75, 0x01, 0x95, 0x04, 0x81, 0x02, 0x95, 0x04, 0x81, 0x01,
        0xC0,
        0x05, 0x01, 0x09, 0x02, 0xA1, 0x01, 0x85, 0x03,             // Generic Desktop, Mouse, Application, Report ID 3
        0x09, 0x01, 0xA1, 0x00,                                     // Pointer, Physical
        0x05, 0x09, 0x19, 0x01, 0x29, 0x03, 0x15, 0x00, 0x25, 0x01, 0x95, 0x03, 0x75, 0x01, 0x81, 0x02,
        0x95, 0x01, 0x75, 0x05, 0x81, 0x01,
        0x05, 0x01, 0x09, 0x30, 0x09, 0x31, 0x09, 0x38, 0x15, 0x81, 0x25, 0x7F, 0x75, 0x08, 0x95, 0x03, 0x81, 0x06, // X, Y, Wheel, Relative
        0xC0, 0xC0,
    ]
}

extension Scenarios {
    /// A laptop (the host) and a Bluetooth keyboard with a touch pad: SDP for the HID record
    /// (its report descriptor), the control and interrupt channels, Set/Get Protocol, Set Idle,
    /// a Get Report refused (invalid report ID), Set Report for the Caps Lock LED, typed keys,
    /// volume keys, mouse movement, a rollover error, suspend and resume, then Boot protocol
    /// with boot keyboard and mouse reports, and a virtual cable unplug.
    public static func hidSession() -> [Frame] {
        typealias E = DataElement
        let keyboard = "DC:2C:26:40:50:60"
        var link = ClassicLink.connect(to: keyboard, handle: 0x0015, at: demoStart + 15_000_000_000)

        let sdp: (local: UInt16, remote: UInt16) = (0x0040, 0x0040)
        link.open(psm: 0x0001, sdp)
        let search = E.sequence(E.uuid16(0x1124)) + be16(0x0400) + E.sequence(E.uint32(0x0000_FFFF)) + [0x00]
        link.send(sdp, [0x06] + be16(1) + be16(UInt16(search.count)) + search, sent: true)
        let record = E.sequence(E.sequence(
            E.attribute(0x0001, E.sequence(E.uuid16(0x1124)))
            + E.attribute(0x0004, E.sequence(E.sequence(E.uuid16(0x0100) + E.uint16(0x0011)) + E.sequence(E.uuid16(0x0011))))
            + E.attribute(0x0009, E.sequence(E.sequence(E.uuid16(0x1124) + E.uint16(0x0101))))
            + E.attribute(0x0100, E.text("Keyboard K380"))
            + E.attribute(0x0202, E.uint8(0xC0))                                         // HIDDeviceSubclass: combo keyboard/pointer
            + E.attribute(0x0206, E.sequence(E.sequence(E.uint8(0x22) + E.text(KeyboardDescriptor.bytes))))
            + E.attribute(0x020E, E.bool(true))))                                       // HIDBootDevice
        link.send(sdp, [0x07] + be16(1) + be16(UInt16(record.count + 3)) + be16(UInt16(record.count)) + record + [0x00], sent: false)
        link.close(sdp)

        let control: (local: UInt16, remote: UInt16) = (0x0041, 0x0051), interrupt: (local: UInt16, remote: UInt16) = (0x0042, 0x0052)
        link.open(psm: 0x0011, control)
        link.open(psm: 0x0013, interrupt)
        func request(_ bytes: [UInt8]) { link.send(control, bytes, sent: true) }
        func answer(_ bytes: [UInt8]) { link.send(control, bytes, sent: false) }
        func input(_ bytes: [UInt8]) { link.send(interrupt, [0xA1] + bytes, sent: false) }

        request([0x71]); answer([0x00])                                                 // Set Protocol: Report; Successful
        request([0x60]); answer([0xA0, 0x01])                                           // Get Protocol; Data: Report
        request([0x90, 0x00]); answer([0x00])                                           // Set Idle: infinite
        request([0x4B, 0x04] + le16(64)); answer([0x02])                                // Get Report feature 4: Invalid Report ID
        request([0x41, 0x01]); answer([0xA1, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]) // Get Report input 1
        request([0x52, 0x01, 0x02]); answer([0x00])                                     // Set Report output 1: Caps Lock
        // "Hi" with Shift, then released; volume up; the pointer moves and clicks.
        input([0x01, 0x02, 0x00, 0x0B, 0, 0, 0, 0, 0])
        input([0x01, 0x00, 0x00, 0x0C, 0, 0, 0, 0, 0])
        input([0x01, 0x00, 0x00, 0, 0, 0, 0, 0, 0])
        input([0x02, 0x01])
        input([0x02, 0x00])
        input([0x03, 0x00, 0x05, 0xFD, 0x00])
        input([0x03, 0x01, 0x00, 0x00, 0x00])
        input([0x03, 0x00, 0x00, 0x00, 0xFF])
        input([0x01, 0x00, 0x00, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01])                    // too many keys: Error Roll Over
        input([0x01, 0x05, 0x00, 0x4C, 0, 0, 0, 0, 0])                                  // Ctrl + Alt + Delete
        link.send(interrupt, [0xA2, 0x01, 0x00], sent: true)                            // Caps Lock off
        input([0x07, 0x00])                                                             // a report the descriptor does not have
        request([0x13]); request([0x14])                                                // Suspend, Exit Suspend
        // Boot protocol: the boot keyboard and mouse layouts.
        request([0x70]); answer([0x00])
        input([0x01, 0x20, 0x00, 0x04, 0, 0, 0, 0, 0])                                  // Right Shift + A
        input([0x02, 0x02, 0xF6, 0x0A])                                                 // right button, X -10, Y +10
        request([0x70]); answer([0x01])                                                 // again: Not Ready
        request([0x15])                                                                 // Virtual Cable Unplug
        link.close(interrupt)
        link.close(control)
        link.b.disconnectionComplete(handle: 0x0015, reason: 0x13)
        return link.b.frames
    }

    /// A phone (the host, PANU) joining a laptop's network access point over BNEP: setup,
    /// network-type and multicast filters (one refused), an ARP request and reply, an mDNS
    /// question over IPv4, an IPv6 neighbour solicitation and advertisement, a frame with an extension
    /// header carrying a filter, an unknown control type answered Command Not Understood, and
    /// the four Ethernet framings.
    public static func panSession() -> [Frame] {
        let laptop = "00:1B:DC:0F:AA:01", phone = "F0:99:B6:12:34:56"
        var link = ClassicLink.connect(to: laptop, handle: 0x0019, at: demoStart + 18_000_000_000)
        let bnep: (local: UInt16, remote: UInt16) = (0x0043, 0x0063)
        link.open(psm: 0x000F, bnep)
        func send(_ bytes: [UInt8], sent: Bool) { link.send(bnep, bytes, sent: sent) }
        let phoneMAC = Array(addressBytes(phone).reversed()), laptopMAC = Array(addressBytes(laptop).reversed())
        let broadcast = [UInt8](repeating: 0xFF, count: 6)

        send([0x01, 0x01, 0x02, 0x11, 0x16, 0x11, 0x15], sent: true)                  // Setup: PANU → NAP
        send([0x01, 0x02, 0x00, 0x00], sent: false)
        send([0x01, 0x03] + be16(8) + be16(0x0800) + be16(0x0806) + be16(0x86DD) + be16(0x86DD), sent: true)
        send([0x01, 0x04, 0x00, 0x00], sent: false)
        let multicast: [UInt8] = [0x01, 0x00, 0x5E, 0x00, 0x00, 0x00] + [0x01, 0x00, 0x5E, 0x7F, 0xFF, 0xFF]
            + [0x33, 0x33, 0x00, 0x00, 0x00, 0x00] + [0x33, 0x33, 0xFF, 0xFF, 0xFF, 0xFF]
        send([0x01, 0x05] + be16(UInt16(multicast.count)) + multicast, sent: true)
        send([0x01, 0x06, 0x00, 0x03], sent: false)                                    // Too Many Filters
        // ARP: who has 192.168.44.1? The laptop answers.
        let arpRequest = be16(1) + be16(0x0800) + [6, 4] + be16(1) + phoneMAC + [192, 168, 44, 20] + [0, 0, 0, 0, 0, 0] + [192, 168, 44, 1]
        send([0x00] + broadcast + phoneMAC + be16(0x0806) + arpRequest, sent: true)
        let arpReply = be16(1) + be16(0x0800) + [6, 4] + be16(2) + laptopMAC + [192, 168, 44, 1] + phoneMAC + [192, 168, 44, 20]
        send([0x02] + be16(0x0806) + arpReply, sent: false)
        // An mDNS question for AirPlay receivers, to the multicast group.
        let question: [UInt8] = [8] + Array("_airplay".utf8) + [4] + Array("_tcp".utf8) + [5] + Array("local".utf8) + [0] + be16(12) + be16(1)
        let dns = be16(0) + be16(0) + be16(1) + be16(0) + be16(0) + be16(0) + question
        let udp = be16(5353) + be16(5353) + be16(UInt16(8 + dns.count)) + be16(0) + dns
        send([0x04, 0x01, 0x00, 0x5E, 0x00, 0x00, 0xFB] + be16(0x0800) + Self.ipv4(protocol: 17, from: [192, 168, 44, 20], to: [224, 0, 0, 251], udp),
             sent: true)
        // IPv6 neighbour discovery: solicitation to the solicited-node group, advertisement back.
        let linkLocal: [UInt8] = [0xFE, 0x80, 0, 0, 0, 0, 0, 0, 0xF2, 0x99, 0xB6, 0xFF, 0xFE, 0x12, 0x34, 0x56]
        let target: [UInt8] = [0xFE, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x1B, 0xDC, 0xFF, 0xFE, 0x0F, 0xAA, 0x01]
        let group: [UInt8] = [0xFF, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0xFF, 0x0F, 0xAA, 0x01]
        let solicitation: [UInt8] = [135, 0, 0, 0, 0, 0, 0, 0] + target
        send([0x00, 0x33, 0x33, 0xFF, 0x0F, 0xAA, 0x01] + phoneMAC + be16(0x86DD) + Self.ipv6(next: 58, from: linkLocal, to: group, solicitation),
             sent: true)
        let advertisement: [UInt8] = [136, 0, 0, 0, 0x60, 0, 0, 0] + target
        send([0x03] + laptopMAC + be16(0x86DD) + Self.ipv6(next: 58, from: target, to: linkLocal, advertisement), sent: false)
        // A compressed frame whose extension header carries a network-type filter.
        let filter: [UInt8] = [0x03] + be16(4) + be16(0x86DD) + be16(0x86DD)
        send([0x82] + be16(0x0800) + [0x00, UInt8(filter.count)] + filter
             + Self.ipv4(protocol: 1, from: [192, 168, 44, 20], to: [192, 168, 44, 1], [8, 0, 0, 0, 0, 1, 0, 1]), sent: true)
        send([0x01, 0x07, 0x00], sent: false)                                           // an unknown control type
        send([0x01, 0x00, 0x07], sent: true)                                            // Command Not Understood
        link.close(bnep)
        link.disconnect()
        return link.b.frames
    }

    /// An IPv4 packet with a correct header checksum.
    static func ipv4(protocol proto: UInt8, from source: [UInt8], to destination: [UInt8], _ payload: [UInt8]) -> [UInt8] {
        var header: [UInt8] = [0x45, 0x00] + be16(UInt16(20 + payload.count)) + be16(0x1C46) + [0x40, 0x00, 64, proto, 0, 0] + source + destination
        var sum: UInt32 = 0
        for index in stride(from: 0, to: 20, by: 2) { sum += UInt32(header[index]) << 8 | UInt32(header[index + 1]) }
        while sum > 0xFFFF { sum = (sum & 0xFFFF) + (sum >> 16) }
        let checksum = ~UInt16(sum)
        header[10] = UInt8(checksum >> 8)
        header[11] = UInt8(checksum & 0xFF)
        return header + payload
    }

    static func ipv6(next: UInt8, from source: [UInt8], to destination: [UInt8], _ payload: [UInt8]) -> [UInt8] {
        [0x60, 0, 0, 0] + be16(UInt16(payload.count)) + [next, 255] + source + destination + payload
    }
}
