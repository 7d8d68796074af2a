import BTCapture

/// SDP data elements as a server writes them (Core Vol 3, Part B, 3), for the scenarios.
enum DataElement {
    static func uint8(_ v: UInt8) -> [UInt8] { [0x08, v] }
    static func uint16(_ v: UInt16) -> [UInt8] { [0x09] + be16(v) }
    static func uint32(_ v: UInt32) -> [UInt8] { [0x0A] + be32(v) }
    static func uuid16(_ v: UInt16) -> [UInt8] { [0x19] + be16(v) }
    static func bool(_ v: Bool) -> [UInt8] { [0x28, v ? 1 : 0] }
    static func text(_ s: String) -> [UInt8] { text(Array(s.utf8)) }
    static func text(_ bytes: [UInt8]) -> [UInt8] { [0x25, UInt8(bytes.count)] + bytes }
    static func sequence(_ content: [UInt8]) -> [UInt8] {
        content.count < 256 ? [0x35, UInt8(content.count)] + content : [0x36] + be16(UInt16(content.count)) + content
    }
    /// An attribute ID and its value, as a record lists them.
    static func attribute(_ id: UInt16, _ value: [UInt8]) -> [UInt8] { uint16(id) + value }
}

/// One BR/EDR link of a scenario: L2CAP channels the host opens, RFCOMM frames on one of them.
struct ClassicLink {
    var b: PacketBuilder
    let handle: UInt16
    var identifier: UInt8 = 0

    /// The host connects to `peer` at `start`: Create Connection, Command Status, Connection Complete.
    static func connect(to peer: String, handle: UInt16, at start: Int64) -> ClassicLink {
        var link = ClassicLink(b: PacketBuilder(start: start), handle: handle)
        link.b.command(0x0405, addressBytes(peer) + [0x18, 0xCC, 0x02, 0x00, 0x00, 0x00, 0x01])
        link.b.commandStatus(0x0405)
        link.b.connectionComplete(handle: handle, peer: peer)
        return link
    }

    /// The host ends the link: Disconnect (remote user terminated), Command Status, Disconnection Complete.
    mutating func disconnect() {
        b.command(0x0406, le16(handle) + [0x13])
        b.commandStatus(0x0406)
        b.disconnectionComplete(handle: handle, reason: 0x16)
    }

    mutating func signal(_ code: UInt8, _ data: [UInt8], sent: Bool, reply: Bool = false) {
        if !reply { identifier = identifier == 0xFF ? 1 : identifier + 1 }
        b.l2cap(handle: handle, cid: 0x0001, [code, identifier] + le16(UInt16(data.count)) + data, sent: sent)
    }

    /// The host connects `psm` from its CID `local`; the peer answers with `remote`.
    mutating func open(psm: UInt16, _ cid: (local: UInt16, remote: UInt16)) {
        signal(0x02, le16(psm) + le16(cid.local), sent: true)
        signal(0x03, le16(cid.remote) + le16(cid.local) + [0, 0, 0, 0], sent: false, reply: true)
    }

    mutating func close(_ cid: (local: UInt16, remote: UInt16)) {
        signal(0x06, le16(cid.remote) + le16(cid.local), sent: true)
        signal(0x07, le16(cid.remote) + le16(cid.local), sent: false, reply: true)
    }

    /// SDP on its own channel: the host's Service Search Attribute for `service`, the peer's
    /// answer of one record holding `attributes` (DataElement.attribute lists), then the channel closed.
    mutating func findService(_ service: UInt16, attributes: [UInt8], sdp: (local: UInt16, remote: UInt16)) {
        typealias E = DataElement
        open(psm: 0x0001, sdp)
        let search = E.sequence(E.uuid16(service)) + be16(0x0200) + E.sequence(E.uint32(0x0000_FFFF)) + [0x00]
        send(sdp, [0x06] + be16(1) + be16(UInt16(search.count)) + search, sent: true)
        let record = E.sequence(E.sequence(attributes))
        send(sdp, [0x07] + be16(1) + be16(UInt16(record.count + 3)) + be16(UInt16(record.count)) + record + [0x00], sent: false)
        close(sdp)
    }

    mutating func send(_ cid: (local: UInt16, remote: UInt16), _ payload: [UInt8], sent: Bool) {
        b.l2cap(handle: handle, cid: sent ? cid.remote : cid.local, payload, sent: sent, fragment: 1021, after: 1500)
    }

    /// An RFCOMM frame on `cid`: the host started the session, so its commands carry C/R 1.
    mutating func rfcomm(_ cid: (local: UInt16, remote: UInt16), dlci: UInt8, control: UInt8, _ information: [UInt8],
                         sent: Bool, credits: UInt8? = nil, commandResponse: UInt8? = nil, badFCS: Bool = false) {
        let isUIH = control & 0xEF == 0xEF
        let cr = commandResponse ?? (isUIH ? (sent ? 1 : 0) : (control & 0xEF == 0x2F || control & 0xEF == 0x43) == sent ? 1 : 0)
        let address = dlci << 2 | cr << 1 | 0x01
        let length: [UInt8] = information.count <= 127
            ? [UInt8(information.count) << 1 | 1]
            : [UInt8(information.count & 0x7F) << 1, UInt8(information.count >> 7)]
        let covered = isUIH ? [address, control] : [address, control] + length
        let fcs = AudioSession.fcs(covered) ^ (badFCS ? 0x5A : 0)
        send(cid, [address, control] + length + (credits.map { [$0] } ?? []) + information + [fcs], sent: sent)
    }
}

extension Scenarios {
    /// A phone (the host) finding and connecting a car kit's hands-free unit: SDP (Service
    /// Search, a Service Attribute response split over three continuation responses, a Service
    /// Search Attribute for PnP Information, an error for a bad record handle), then RFCOMM on
    /// the server channel SDP named: multiplexer start-up (PN with credit-based flow, MSC), the
    /// HFP service level connection's AT commands with one split across two frames, mSBC audio
    /// over eSCO (H2 frames, one lost, one partially lost), RPN, RLS,
    /// Test, an NSC for an unknown command, a frame with a bad FCS, a refused channel (DM), and
    /// the shutdown.
    public static func handsfreeSession() -> [Frame] {
        typealias E = DataElement
        let carKit = "00:0D:18:A1:B2:C3"
        var link = ClassicLink.connect(to: carKit, handle: 0x000D, at: demoStart + 9_000_000_000)

        // SDP
        let sdp: (local: UInt16, remote: UInt16) = (0x0040, 0x0060)
        link.open(psm: 0x0001, sdp)
        func sdpPDU(_ id: UInt8, _ transaction: UInt16, _ parameters: [UInt8], sent: Bool) {
            link.send(sdp, [id] + be16(transaction) + be16(UInt16(parameters.count)) + parameters, sent: sent)
        }
        // Service Search: Handsfree, at most 10 records; one handle back.
        sdpPDU(0x02, 1, E.sequence(E.uuid16(0x111E)) + be16(10) + [0x00], sent: true)
        sdpPDU(0x03, 1, be16(1) + be16(1) + be32(0x0001_0005) + [0x00], sent: false)
        // Service Attribute for that record, 32 bytes at a time: three responses.
        let record = E.sequence(
            E.attribute(0x0000, E.uint32(0x0001_0005))
            + E.attribute(0x0001, E.sequence(E.uuid16(0x111E) + E.uuid16(0x1203)))
            + E.attribute(0x0004, E.sequence(E.sequence(E.uuid16(0x0100)) + E.sequence(E.uuid16(0x0003) + E.uint8(3))))
            + E.attribute(0x0005, E.sequence(E.uuid16(0x1002)))
            + E.attribute(0x0009, E.sequence(E.sequence(E.uuid16(0x111E) + E.uint16(0x0108))))
            + E.attribute(0x0100, E.text("Hands-Free unit"))
            + E.attribute(0x0311, E.uint16(0x003F)))
        let request = be32(0x0001_0005) + be16(32) + E.sequence(E.uint32(0x0000_FFFF))
        var offset = 0, transaction: UInt16 = 2
        while offset < record.count {
            let part = Array(record[offset ..< min(offset + 32, record.count)])
            let continuation: [UInt8] = offset == 0 ? [0x00] : [0x02] + be16(UInt16(offset))
            sdpPDU(0x04, transaction, request + continuation, sent: true)
            offset += part.count
            let more: [UInt8] = offset < record.count ? [0x02] + be16(UInt16(offset)) : [0x00]
            sdpPDU(0x05, transaction, be16(UInt16(part.count)) + part + more, sent: false)
            transaction += 1
        }
        // Service Search Attribute: PnP Information, the Device ID attributes and the class list.
        sdpPDU(0x06, 5, E.sequence(E.uuid16(0x1200)) + be16(0x0200) + E.sequence(E.uint16(0x0001) + E.uint32(0x0200_0205)) + [0x00],
               sent: true)
        let pnp = E.sequence(E.sequence(
            E.attribute(0x0001, E.sequence(E.uuid16(0x1200)))
            + E.attribute(0x0200, E.uint16(0x0103)) + E.attribute(0x0201, E.uint16(0x001D))
            + E.attribute(0x0202, E.uint16(0x1200)) + E.attribute(0x0203, E.uint16(0x0152))
            + E.attribute(0x0204, E.bool(true)) + E.attribute(0x0205, E.uint16(0x0001))))
        sdpPDU(0x07, 5, be16(UInt16(pnp.count)) + pnp + [0x00], sent: false)
        // A handle the server does not have.
        sdpPDU(0x04, 6, be32(0x0001_FFFF) + be16(0x0200) + E.sequence(E.uint16(0x0100)) + [0x00], sent: true)
        sdpPDU(0x01, 6, be16(0x0002), sent: false)
        link.close(sdp)

        // RFCOMM to server channel 3 (DLCI 6), which SDP said is Handsfree.
        let rfcomm: (local: UInt16, remote: UInt16) = (0x0041, 0x0061)
        let dlci: UInt8 = 6
        link.open(psm: 0x0003, rfcomm)
        link.rfcomm(rfcomm, dlci: 0, control: 0x3F, [], sent: true)                                   // SABM
        link.rfcomm(rfcomm, dlci: 0, control: 0x73, [], sent: false)                                  // UA
        link.rfcomm(rfcomm, dlci: 0, control: 0xEF, [0x83, 0x11, dlci, 0xF0, 0x07, 0x00] + le16(667) + [0x00, 0x07], sent: true)
        link.rfcomm(rfcomm, dlci: 0, control: 0xEF, [0x81, 0x11, dlci, 0xE0, 0x07, 0x00] + le16(667) + [0x00, 0x07], sent: false)
        link.rfcomm(rfcomm, dlci: dlci, control: 0x3F, [], sent: true)
        link.rfcomm(rfcomm, dlci: dlci, control: 0x73, [], sent: false)
        link.rfcomm(rfcomm, dlci: 0, control: 0xEF, [0xE3, 0x05, dlci << 2 | 0x03, 0x8D], sent: true)  // MSC command
        link.rfcomm(rfcomm, dlci: 0, control: 0xEF, [0xE1, 0x05, dlci << 2 | 0x03, 0x8D], sent: false) // MSC response
        link.rfcomm(rfcomm, dlci: 0, control: 0xEF, [0xE3, 0x05, dlci << 2 | 0x03, 0x8D], sent: false)
        link.rfcomm(rfcomm, dlci: 0, control: 0xEF, [0xE1, 0x05, dlci << 2 | 0x03, 0x8D], sent: true)
        func at(_ text: String, sent: Bool, credits: UInt8? = 1) {
            link.rfcomm(rfcomm, dlci: dlci, control: credits == nil ? 0xEF : 0xFF, Array(text.utf8), sent: sent, credits: credits)
        }
        // The car kit (hands-free) sends commands; the phone (audio gateway) answers.
        at("AT+BRSF=1023\r", sent: false)
        at("\r\n+BRSF: 3839\r\n", sent: true)
        at("\r\nOK\r\n", sent: true, credits: nil)
        at("AT+BAC=1,2,3\r", sent: false, credits: nil)
        at("\r\nOK\r\n", sent: true, credits: nil)
        at("AT+CI", sent: false, credits: nil)                                                     // split in two frames
        at("ND=?\r", sent: false, credits: nil)
        at("\r\n+CIND: (\"service\",(0,1)),(\"call\",(0,1)),(\"callsetup\",(0-3)),(\"callheld\",(0-2)),(\"signal\",(0-5)),(\"roam\",(0,1)),(\"battchg\",(0-5))\r\n\r\nOK\r\n",
           sent: true, credits: nil)
        at("AT+CIND?\r", sent: false, credits: nil)
        at("\r\n+CIND: 1,0,0,0,4,0,5\r\n\r\nOK\r\n", sent: true, credits: nil)
        at("AT+CMER=3,0,0,1\r", sent: false, credits: nil)
        at("\r\nOK\r\n", sent: true, credits: nil)
        at("\r\n+BCS: 2\r\n", sent: true, credits: nil)
        at("AT+BCS=2\r", sent: false, credits: nil)
        at("\r\nOK\r\n", sent: true, credits: nil)
        // The audio link for mSBC: eSCO, transparent air mode, 60-byte packets each holding one
        // H2-framed mSBC frame; the car kit's side loses one frame and reports one partially lost.
        link.b.command(0x0428, le16(0x000D) + le32(8000) + le32(8000) + le16(0x000D) + le16(0x0063) + [0x02] + le16(0x0380))
        link.b.commandStatus(0x0428)
        link.b.event(0x2C, [0x00] + le16(0x0101) + addressBytes(carKit) + [0x02, 0x0C, 0x04] + le16(60) + le16(60) + [0x03])
        let h2: [UInt8] = [0x08, 0x38, 0xC8, 0xF8]
        for (index, (sent, sequence, status)) in [(true, 0, 0), (false, 0, 0), (true, 1, 0), (false, 1, 0), (true, 2, 0), (false, 3, 0),
                                                  (true, 3, 0), (false, 0, 3), (true, 0, 0), (false, 1, 0)].enumerated() {
            let frame = [0x01, h2[sequence], 0xAD, 0x00, 0x00] + (0 ..< 54).map { UInt8(truncatingIfNeeded: $0 * 7 + index) } + [0x00]
            link.b.add(.scoData, sent ? .sent : .received, le16(0x0101 | UInt16(status) << 12) + [UInt8(frame.count)] + frame, after: 3750)
        }
        link.b.command(0x0406, le16(0x0101) + [0x13])                                         // the eSCO link ends
        link.b.commandStatus(0x0406)
        link.b.disconnectionComplete(handle: 0x0101, reason: 0x16)
        // Port settings: the car kit asks, the phone sets 115200 8N1; a line status error.
        link.rfcomm(rfcomm, dlci: 0, control: 0xEF, [0x93, 0x03, dlci << 2 | 0x03], sent: false)
        link.rfcomm(rfcomm, dlci: 0, control: 0xEF, [0x91, 0x11, dlci << 2 | 0x03, 0x07, 0x03, 0x00, 0x11, 0x13, 0xFF, 0x3F], sent: true)
        link.rfcomm(rfcomm, dlci: 0, control: 0xEF, [0x53, 0x05, dlci << 2 | 0x03, 0x05], sent: false)  // RLS: parity error
        link.rfcomm(rfcomm, dlci: 0, control: 0xEF, [0x51, 0x05, dlci << 2 | 0x03, 0x05], sent: true)
        link.rfcomm(rfcomm, dlci: 0, control: 0xEF, [0x23, 0x09, 0x74, 0x65, 0x73, 0x74], sent: true)  // Test "test"
        link.rfcomm(rfcomm, dlci: 0, control: 0xEF, [0x21, 0x09, 0x74, 0x65, 0x73, 0x74], sent: false)
        link.rfcomm(rfcomm, dlci: 0, control: 0xEF, [0x43, 0x01], sent: true)                         // PSC command
        link.rfcomm(rfcomm, dlci: 0, control: 0xEF, [0x11, 0x03, 0x43], sent: false)                  // NSC: PSC not supported
        at("AT+VGS=12\r", sent: false, credits: nil)
        link.rfcomm(rfcomm, dlci: dlci, control: 0xEF, Array("\r\nOK\r\n".utf8), sent: true, badFCS: true)
        // Channel 5 is not a server on the car kit.
        link.rfcomm(rfcomm, dlci: 10, control: 0x3F, [], sent: true)
        link.rfcomm(rfcomm, dlci: 10, control: 0x1F, [], sent: false)                                 // DM with F
        link.rfcomm(rfcomm, dlci: dlci, control: 0x53, [], sent: true)                                // DISC
        link.rfcomm(rfcomm, dlci: dlci, control: 0x73, [], sent: false)
        link.rfcomm(rfcomm, dlci: 0, control: 0x53, [], sent: true)
        link.rfcomm(rfcomm, dlci: 0, control: 0x73, [], sent: false)
        link.close(rfcomm)
        link.disconnect()
        return link.b.frames
    }
}
