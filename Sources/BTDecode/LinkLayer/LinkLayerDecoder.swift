import BTCapture

/// The LE link layer as a sniffer takes it from the air (Core Vol 6, Part B, 2): access
/// address, PDU header, payload and CRC. Advertising channel PDUs are decoded here and in
/// `LinkLayerAdvertising`; data channel PDUs carry LL Control procedures
/// (`LinkLayerControl`) or L2CAP fragments, which go to the same L2CAP decoder as HCI ACL data,
/// with the connection's number standing in for the HCI handle.
enum LinkLayerDecoder {
    static let descriptor = ProtocolDescriptor(name: "LE LL", fields: LinkLayerFields.all, layers: [.linkLayer], state: LinkLayerState.self,
                                               valueNames: [(LinkLayerFields.pduType, FieldValueNames.from(LinkLayerAdvertising.pduNames)),
                                                            (LinkLayerFields.controlOpcode, FieldValueNames.from(LinkLayerControl.opcodeNames)),
                                                            (LinkLayerFields.llid, FieldValueNames.from(llidNames))])

    static let advertisingAccessAddress: UInt32 = 0x8E89_BED6
    static let advertisingCRCInit: UInt32 = 0x55_5555
    static let llidNames: [UInt8: String] = [0: "Reserved", 1: "Continuation fragment or empty PDU", 2: "Start of an L2CAP message",
                                             3: "LL Control PDU"]

    /// A record of an air capture: its sniffer's header, then the link-layer packet.
    static func decode(_ c: inout ByteCursor, type: AirLinkType, into packet: inout Packet, session: inout Session) throws {
        let reception = try SnifferHeaders.decode(&c, type: type, into: &packet)
        try decodePacket(&c, reception: reception, into: &packet, session: &session)
    }

    /// Access address, header, payload, CRC.
    static func decodePacket(_ c: inout ByteCursor, reception: AirReception, into packet: inout Packet, session: inout Session) throws {
        var layer = packet.makeLayer(.linkLayer, over: c, showsDirection: false)
        var crcValue: UInt32?, crcOK: Bool?, crcAt = 0
        // A data PDU the sniffer received damaged but the peer's next packet acknowledged.
        var acknowledgedIn: Int?
        // The CRC comes last in the tree, as on the air; the layer goes on the packet before
        // the L2CAP it carries is decoded, and with whatever was read if the PDU is cut short.
        var appended = false
        func finishLayer() {
            appended = true
            if let crcValue { layer.add(LinkLayerFields.crc, .unsigned(UInt64(crcValue), width: 6), at: layer.range(at: crcAt, count: 3)) }
            if let crcOK {
                layer.add(LinkLayerFields.crcOK, .bool(crcOK), crcOK ? "Good" : "Bad", at: crcValue == nil ? nil : layer.range(at: crcAt, count: 3))
                if !crcOK, let acknowledgedIn {
                    layer.addIssue(.warning, "Bad CRC: damaged at the sniffer, acknowledged by the peer (packet \(acknowledgedIn)): decoded as received, its bytes may hold the sniffer's bit errors")
                } else if !crcOK {
                    layer.addIssue(.error, "Bad CRC: the packet was received damaged (not decoded further, not reassembled)")
                }
            }
            packet.append(taking: &layer)
        }
        defer { if !appended { finishLayer() } }
        let start = c.index
        let accessAddress = try c.u32()
        layer.add(LinkLayerFields.accessAddress, .u32(accessAddress), at: layer.range(at: start, count: 4))
        if let channel = reception.channel { layer.add(LinkLayerFields.channel, .u8(channel), inDecimal: true) }
        if let rssi = reception.rssi { layer.add(LinkLayerFields.rssi, .signed(Int64(rssi)), "\(rssi) dBm") }
        if reception.phy == 2 {
            // LE Coded: the coding indicator the sniffer keeps after the access address, outside the CRC.
            let (ciOctet, ciAt) = try layer.reading(&c) { try $0.u8() }
            let ci = ciOctet & 0x03
            layer.add(LinkLayerFields.codingIndicator, .u8(ci), named: ci == 0 ? "S=8" : ci == 1 ? "S=2" : "Reserved",
                      at: ciAt)
        }
        // The PDU is what the CRC covers: its header says its length, the CRC's 3 bytes follow.
        guard c.remaining >= 2 + 3 else {
            layer.summary.set("Access Address \(hex: accessAddress) - too short for a PDU")
            throw DecodeError.truncated(needed: 5, available: c.remaining, at: c.offset)
        }
        let pduStart = c.index
        let declared = Int(c.bytes[pduStart + 1])
        let pduLength = min(2 + declared, c.remaining - 3)
        if 2 + declared + 3 != c.remaining {
            layer.addIssue(.error, "The PDU header says \(declared) payload bytes, but \(c.remaining - 5) come before the 3-byte CRC")
        }
        let pdu = c.bytes[pduStart ..< pduStart + pduLength]
        var crcCursor = try c.trailer(c.remaining - pduLength)
        let crcBytes = try crcCursor.slice(min(3, crcCursor.remaining))
        crcAt = pduStart + pduLength
        if crcBytes.count == 3 { crcValue = LinkLayerCRC.value(captured: crcBytes) }

        let isAdvertising = accessAddress == advertisingAccessAddress
        let train = isAdvertising ? nil : session.linkLayer.trains[accessAddress]
        // A CIS's access address came in its LL_CIS_IND; a BIS's only the radio header marks.
        let isochronous: AirReception.Isochronous? = isAdvertising || train != nil ? nil
            : reception.isochronous ?? (session.linkLayer.streams[accessAddress] != nil ? .connected : nil)
        var crcInit: UInt32? = isAdvertising ? advertisingCRCInit : train?.crcInit
        if !isAdvertising, train == nil, isochronous == nil { crcInit = session.linkLayer.connections[accessAddress]?.crcInit }
        crcOK = LinkLayerCRC.verdict(sniffer: reception.crcValid, pdu: pdu, crc: pduLength == 2 + declared ? crcValue : nil, initial: crcInit)
        var pduCursor = ByteCursor(pdu)
        if isAdvertising || train != nil {
            try LinkLayerAdvertising.decode(&pduCursor, reception: reception, crcOK: crcOK != false, train: train != nil ? accessAddress : nil,
                                            into: &layer, packet: &packet, session: &session)
            return
        }
        switch isochronous {
        case .connected:
            try LinkLayerIsochronous.decodeCIS(&pduCursor, accessAddress: accessAddress, reception: reception, crcOK: crcOK != false,
                                               into: &layer, packet: &packet, session: &session)
            return
        case .broadcast:
            try LinkLayerIsochronous.decodeBIS(&pduCursor, accessAddress: accessAddress, reception: reception, crcOK: crcOK != false,
                                               into: &layer, packet: &packet)
            return
        case nil: break
        }
        let handoff = try decodeData(&pduCursor, accessAddress: accessAddress, reception: reception, crcOK: crcOK != false,
                                     complete: pduLength == 2 + declared, acknowledgedIn: &acknowledgedIn,
                                     into: &layer, packet: &packet, session: &session)
        finishLayer()
        if let handoff { try L2CAPDecoder.receive(handoff.payload, pb: handoff.pb, into: &packet, session: &session) }
    }

    /// A data or CIS PDU's sender on the packet: its direction (none where it cannot be told),
    /// the link's number as its handle, the peripheral as its peer, and the fields that say so.
    static func attribute(_ packet: inout Packet, _ layer: inout Layer, direction: Direction?, handle: UInt16, peripheral: BDAddr?) {
        packet.setAirDirection(direction ?? .none)
        packet.handle = handle
        packet.peer = peripheral
        layer.add(LinkLayerFields.handle, .u16(handle))
        layer.add(LinkLayerFields.direction, .text(directionName(direction)))
    }

    static func directionName(_ direction: Direction?) -> String {
        switch direction {
        case .sent?: return "Central to Peripheral"
        case .received?: return "Peripheral to Central"
        default: return "Unknown"
        }
    }

    /// The summary's first words: who sent it.
    static func arrow(_ direction: Direction?) -> String {
        switch direction {
        case .sent?: return "C→P"
        case .received?: return "P→C"
        default: return "C?P"
        }
    }

    /// An L2CAP fragment a data PDU carries: for the L2CAP decoder once the link layer's layer is on the packet.
    struct L2CAPHandoff {
        var payload: ArraySlice<UInt8>
        /// As HCI's packet boundary flag: 2 a start, 1 a continuation.
        var pb: UInt8
    }

    /// How long a packet of `payload` bytes is on the air, in microseconds (preamble, access
    /// address, header, payload, CRC; LE Coded at S=8).
    static func airTime(payload: Int, phy: UInt8?) -> Int64 {
        let bits = Int64(4 + 2 + payload + 3) * 8
        switch phy {
        case 1: return 8 + bits / 2
        case 2: return 80 + 256 + bits * 8
        default: return 8 + bits
        }
    }

    /// The plaintext of an encrypted payload, if btlog has the key: the first encrypted packets
    /// of a link (up to four, should one be damaged) pick the key whose MIC checks among the STK
    /// of a legacy pairing captured in full, LTKs the capture distributed and the LTKs given;
    /// later ones use it with each side's packet counter (a few counts ahead too, for packets
    /// the sniffer missed).
    static func decrypt(_ sealed: ArraySlice<UInt8>, header: UInt8, fromCentral: Bool, retransmitted: Bool, damaged: Bool = false, link: Session.LinkKey,
                        connection: inout LinkLayerState.Connection, into layer: inout Layer, session: Session) -> [UInt8]? {
        let side = fromCentral ? 0 : 1
        if connection.cipher == nil {
            guard connection.keyAttempts < 4 else { return nil }
            connection.keyAttempts += 1
            let first = connection.keyAttempts == 1
            guard connection.exchange.isComplete else {
                if first { layer.addIssue(.note, "Encrypted, but the capture lacks the LL_ENC_REQ/LL_ENC_RSP that set the session up: not decrypted") }
                return nil
            }
            if first { connection.candidates = keyCandidates(link: link, connection: connection, session: session) }
            for candidate in connection.candidates {
                let cipher = LinkLayerEncryption.session(ltk: candidate.key, exchange: connection.exchange)
                if let plain = LinkLayerEncryption.open(sealed, header: header, counter: connection.counters[side], fromCentral: fromCentral, session: cipher) {
                    connection.cipher = cipher
                    connection.keySource = candidate.source
                    connection.counters[side] += 1
                    connection.candidates = []
                    layer.addIssue(.note, "Decrypted with \(candidate.source)")
                    layer.add(LinkLayerFields.keySource, .text(candidate.source))
                    return plain
                }
            }
            // crackle's third way: the sniffer missed the confirm values, but a legacy pairing's
            // randoms and this packet's MIC tell the TK just as well.
            if first, let (tk, cipher) = searchTemporaryKey(sealed, header: header, fromCentral: fromCentral, link: link,
                                                            connection: connection, session: session),
               let plain = LinkLayerEncryption.open(sealed, header: header, counter: connection.counters[side], fromCentral: fromCentral, session: cipher) {
                connection.cipher = cipher
                connection.keySource = stkSource(tk, by: "search by MIC")
                connection.counters[side] += 1
                connection.candidates = []
                layer.addIssue(.note, "Decrypted with \(connection.keySource!)")
                layer.add(LinkLayerFields.keySource, .text(connection.keySource!))
                return plain
            }
            if first, session.smp.pairings[link]?.method?.hasPrefix("LE Secure Connections") == true {
                // The ECDH exchange keeps an LE Secure Connections key from anyone listening.
                layer.add(LinkLayerFields.secureConnections, .bool(true), "Yes: no sniffer can recover the key")
                layer.addIssue(.note, "Paired with LE Secure Connections: its key cannot be found from the air (ECDH); give the LTK with --ltk or --keys")
            } else if first {
                layer.addIssue(.note, connection.candidates.isEmpty
                    ? "Encrypted with a key btlog does not have: give the LTK with --ltk or --keys"
                    : "Encrypted with none of the keys btlog has: give the LTK with --ltk or --keys")
            }
            return nil
        }
        let cipher = connection.cipher!
        let counter = connection.counters[side]
        if retransmitted, counter > 0,
           let plain = LinkLayerEncryption.open(sealed, header: header, counter: counter - 1, fromCentral: fromCentral, session: cipher) {
            return plain
        }
        for skipped in UInt64(0) ..< 4 {
            if let plain = LinkLayerEncryption.open(sealed, header: header, counter: counter + skipped, fromCentral: fromCentral, session: cipher) {
                connection.counters[side] = counter + skipped + 1
                if skipped > 0 {
                    // Those the other side's acknowledgements showed already are counted once.
                    let unseen = max(0, Int(skipped) - connection.missedUnconfirmed[side])
                    if unseen > 0 { noteMissed(unseen, from: side, at: layer.range(at: sealed.startIndex, count: sealed.count), into: &layer, connection: &connection) }
                }
                connection.missedUnconfirmed[side] = 0
                return plain
            }
        }
        if damaged {
            // The peer took it, so it used up a count; the sniffer's copy has bit errors.
            connection.counters[side] = counter + 1
            layer.addIssue(.note, "Not decrypted: the sniffer's copy is damaged")
            return nil
        }
        layer.addIssue(.warning, "Not authenticated with the link's session key, which opened earlier packets: the sniffer's copy or its packet count is off, unless the devices end the link (MIC Failure, 0x3D)")
        connection.micFailed = true
        return nil
    }

    /// The keys an encrypted link may use, most likely first.
    static func keyCandidates(link: Session.LinkKey, connection: LinkLayerState.Connection, session: Session) -> [(key: [UInt8], source: String)] {
        var candidates: [(key: [UInt8], source: String)] = []
        if connection.exchange.usesSTK, var pairing = session.smp.legacy[link]?.pairing,
           let central = connection.central, let peripheral = connection.peripheral {
            pairing.initiator = central.littleEndianBytes
            pairing.responder = peripheral.littleEndianBytes
            pairing.initiatorType = connection.centralAddressType
            pairing.responderType = connection.peripheralAddressType
            let passkey = session.smp.pairings[link]?.method?.contains("Passkey") ?? false
            let searched = pairing.values + [passkey ? 1 : 0]
            if let tk = session.options.keySearches.result(for: searched, search: { pairing.findTemporaryKey(tryingPasskeys: passkey) }) {
                candidates.append((pairing.shortTermKey(temporaryKey: tk), stkSource(tk, by: "passkey search")))
            }
        }
        let rand = connection.exchange.rand.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        for known in session.smp.distributedKeys.elements where known.ediv == connection.exchange.ediv && known.rand == rand {
            candidates.append((known.ltk.reversed(), "LTK distributed in packet \(known.frame)"))
        }
        // A host's log read with the air capture: the key its host gave the controller.
        for known in session.smp.hostKeys.elements where known.ediv == connection.exchange.ediv && known.rand == rand {
            candidates.append((known.ltk.reversed(), "LTK the host gave its controller in packet \(known.frame) (\(known.command))"))
        }
        for key in session.options.linkLayerKeys {
            candidates.append((key, "LTK from --ltk"))
            candidates.append((key.reversed(), "LTK from --ltk, its octets reversed"))
        }
        return candidates
    }

    /// The TK of a legacy pairing whose confirm values the capture lacks, found by the MIC of
    /// the link's first encrypted packet: 0 (Just Works) first, then, unless the pairing was
    /// Just Works, every passkey (a million tries, a few seconds). A 4-octet MIC can match a
    /// wrong key once in 2^32 tries; the packets after it, which must decrypt too, would show it.
    static func searchTemporaryKey(_ sealed: ArraySlice<UInt8>, header: UInt8, fromCentral: Bool, link: Session.LinkKey,
                                   connection: LinkLayerState.Connection, session: Session) -> (UInt32, LinkLayerEncryption.Session)? {
        guard connection.exchange.usesSTK, let pairing = session.smp.legacy[link]?.pairing,
              pairing.initiatorRandom.count == 16, pairing.responderRandom.count == 16,
              pairing.initiatorConfirm.count != 16 || pairing.responderConfirm.count != 16 else { return nil }
        let method = session.smp.pairings[link]?.method ?? ""
        #if FUZZING
        let last: UInt32 = 999
        #else
        let last: UInt32 = 999_999
        #endif
        let highest: UInt32 = method.contains("Just Works") || method.contains("Out of Band") ? 0 : last
        for tk in UInt32(0) ... highest {
            let cipher = LinkLayerEncryption.session(ltk: pairing.shortTermKey(temporaryKey: tk), exchange: connection.exchange)
            if LinkLayerEncryption.open(sealed, header: header, counter: connection.counters[fromCentral ? 0 : 1],
                                        fromCentral: fromCentral, session: cipher) != nil {
                return (tk, cipher)
            }
        }
        return nil
    }

    /// Packets of `side` (0 central, 1 peripheral) the sniffer missed before this one: a field,
    /// a note, and the link's count.
    /// `range`: the bytes that show it (the header whose NESN moved on, or the sealed payload
    /// whose packet counter did).
    static func noteMissed(_ count: Int, from side: Int, at range: Range<Int>, into layer: inout Layer, connection: inout LinkLayerState.Connection) {
        connection.missedTotal += count
        let who = side == 0 ? "central" : "peripheral"
        layer.add(LinkLayerFields.missed, .count(count), "\(count) packet\(count == 1 ? "" : "s") from the \(who)", at: range)
        layer.addIssue(.note, "The sniffer missed \(count == 1 ? "a packet" : "\(count) packets") from the \(who) before this one")
    }

    /// The number of the packet that acknowledges a PDU the sniffer received damaged: the next
    /// intact packet of the same link (among the few that follow) comes from the other side,
    /// which had been expecting this sequence number and now expects the next. Nil when the
    /// frames after it are not at hand, or do not say so.
    static func acknowledgement(of sn: UInt8, from direction: Direction, accessAddress: UInt32, frame: Frame,
                                connection: LinkLayerState.Connection, session: Session) -> Int? {
        guard let upcoming = session.upcoming, case .air(let type) = frame.kind, type.isLE else { return nil }
        let other = direction == .sent ? 1 : 0
        guard connection.lastNESN[other] == sn else { return nil }
        var rhythm = connection.rhythm
        for distance in 1 ... 4 {
            guard let next = upcoming(distance), next.kind == frame.kind else { return nil }
            // The same sniffer header and CRC reading as decoding, into a packet thrown away.
            var scratch = Packet(frame: next, buildsDisplayText: false)
            var c = ByteCursor(next.bytes)
            let reception: AirReception
            do {
                reception = try SnifferHeaders.decode(&c, type: type, into: &scratch)
                guard try c.u32() == accessAddress else { continue }
                if reception.phy == 2 { _ = try c.u8() }
            } catch {
                return nil
            }
            guard c.remaining >= 5 else { return nil }
            let header = c.bytes[c.index], length = Int(c.bytes[c.index + 1])
            guard 2 + length + 3 == c.remaining else { return nil }
            let pduEnd = c.index + 2 + length
            guard LinkLayerCRC.verdict(sniffer: reception.crcValid, pdu: c.bytes[c.index ..< pduEnd],
                                       crc: LinkLayerCRC.value(captured: c.bytes[pduEnd...]), initial: connection.crcInit) == true else { return nil }
            let sender = rhythm.sender(reception: reception, now: next.timestamp, length: length, crcOK: true)
            guard let sender, sender != direction else { return nil }
            return header >> 2 & 1 == sn ^ 1 ? next.number : nil
        }
        return nil
    }

    /// How a legacy pairing's STK was found, as the note and stats name it: "STK of legacy
    /// pairing, Just Works" (TK 0), "STK of legacy pairing, TK 461140 (passkey search)".
    static func stkSource(_ tk: UInt32, by search: String) -> String {
        guard tk != 0 else { return "STK of legacy pairing, Just Works" }
        let digits = ASCII.string(capacity: 10) { ASCII.appendDecimal(UInt64(tk), width: 6, to: &$0) }
        return "STK of legacy pairing, TK \(digits) (\(search))"
    }

    /// A data channel PDU (Core Vol 6, Part B, 2.4): LLID, NESN, SN, MD, CP, length.
    static func decodeData(_ c: inout ByteCursor, accessAddress: UInt32, reception: AirReception, crcOK: Bool, complete: Bool,
                           acknowledgedIn: inout Int?,
                           into layer: inout Layer, packet: inout Packet, session: inout Session) throws -> L2CAPHandoff? {
        let headerStart = c.index
        let header = try c.u8()
        let length = try c.u8()
        let llid = header & 0x03, nesn = header >> 2 & 1, sn = header >> 3 & 1, md = header >> 4 & 1, cp = header >> 5 & 1
        var connection = session.linkLayer.connection(accessAddress)
        let link = Session.LinkKey(controller: packet.frame.controller, handle: connection.handle)

        let direction = connection.rhythm.sender(reception: reception, now: packet.frame.timestamp, length: Int(length), crcOK: crcOK)
        let sent = direction == .sent
        attribute(&packet, &layer, direction: direction, handle: connection.handle, peripheral: connection.peripheral)
        layer.add(LinkLayerFields.llid, .u8(llid), named: llidNames[llid]!, at: layer.range(at: headerStart))
        layer.add(LinkLayerFields.nesn, .u8(nesn), inDecimal: true, at: layer.range(at: headerStart))
        layer.add(LinkLayerFields.sn, .u8(sn), inDecimal: true, at: layer.range(at: headerStart))
        layer.add(LinkLayerFields.moreData, .bool(md != 0), md != 0 ? "Yes" : "No", at: layer.range(at: headerStart))
        layer.add(LinkLayerFields.dataLength, .u8(length), inDecimal: true, at: layer.range(at: headerStart + 1))
        if cp != 0 {
            layer.add(LinkLayerFields.ctePresent, .bool(true), "Present", at: layer.range(at: headerStart))
            try layer.read(LinkLayerFields.cteInfo, &c, as: UInt8.self, display: { "Time \($0 & 0x1F) (\(Int($0 & 0x1F) * 8) µs), type \($0 >> 6)" })
        }
        layer.summary.set("\(arrow(direction)) ")

        // A packet the sniffer missed, or took damaged and could not decode, may have held the
        // answer to a request still awaited on the link.
        let missedBefore = connection.missedTotal
        var unheard = false
        // A sender not told apart keeps a history of its own (side 2).
        let side = direction == .sent ? 0 : direction == .received ? 1 : 2
        defer {
            // This side's packets the other's acknowledgements showed missing came before this
            // one: its packet counter (read above, if encrypted) has had its say on them. An
            // empty PDU carries no counter, and leaves them to the next that does.
            if crcOK, side < 2, length > 0 { connection.missedUnconfirmed[side] = 0 }
            session.linkLayer.connections[accessAddress] = connection
            if unheard || connection.missedTotal != missedBefore { session.att.snifferMissed(on: link) }
        }
        if !crcOK, complete, length > 0, let direction,
           let by = acknowledgement(of: sn, from: direction, accessAddress: accessAddress, frame: packet.frame,
                                    connection: connection, session: session) {
            // The peer took it (the sniffer alone got a damaged copy): decoded, and reassembled.
            acknowledgedIn = by
            layer.add(LinkLayerFields.acknowledgedDamaged, .count(by), "Yes, by packet \(by)")
        }
        guard crcOK || acknowledgedIn != nil else {
            unheard = length > 0
            // The sniffer heard this side, damaged: the other's next acknowledgement is no gap.
            if side < 2 { connection.heardSince[side] = true }
            layer.summary += "Data PDU, LLID \(llid), \(length) bytes"
            try layer.read(LinkLayerFields.payload, &c, bytes: c.remaining)
            return nil
        }
        if side < 2 {
            let other = 1 - side
            if crcOK {
                // A NESN that moved on acknowledges a packet from the other side: if the sniffer
                // heard none since this side's previous packet, it missed it.
                if let previous = connection.lastNESN[side], previous != nesn, !connection.heardSince[other] {
                    connection.missedUnconfirmed[other] += 1
                    noteMissed(1, from: other, at: layer.range(at: headerStart), into: &layer, connection: &connection)
                }
                connection.lastNESN[side] = nesn
                connection.heardSince[other] = false
            }
            connection.heardSince[side] = true
        }
        // A copy sent again repeats its side's previous PDU byte for byte; the same SN alone is
        // not enough (a packet between was missed, or the sides were told apart wrongly).
        let retransmitted = length > 0 && connection.lastPDU.isRepeat(sn: sn, llid: llid, payload: c.bytes[c.index ..< c.index + c.remaining], side: side)

        if length == 0 {
            layer.summary += "Empty PDU - SN \(sn) NESN \(nesn)\(md != 0 ? " - MD" : "")"
            if llid != 1 { layer.addIssue(.warning, "An empty PDU with LLID \(llid)") }
            return nil
        }
        if retransmitted {
            layer.add(LinkLayerFields.retransmission, .bool(true), "Yes")
            layer.addIssue(.note, "Retransmission: the same sequence number as this side's previous packet (not acknowledged)")
        }
        var encrypted = (connection.encrypted || reception.encrypted) && !reception.decrypted
        if reception.encrypted, reception.micValid == true { connection.snifferAuthenticated = true }
        var source = c
        var inFrame = true
        if encrypted {
            layer.add(LinkLayerFields.encrypted, .bool(true), "Yes")
            guard c.remaining >= 4 else { throw DecodeError.malformed("An encrypted payload shorter than its 4-byte MIC") }
            let sealedStart = c.index, micStart = c.index + c.remaining - 4
            let sealed = c.rest()
            layer.add(LinkLayerFields.mic, .bytes(sealed.suffix(4)), at: layer.range(at: micStart, count: 4))
            if let plain = decrypt(sealed, header: header, fromCentral: sent, retransmitted: retransmitted, damaged: !crcOK, link: link,
                                   connection: &connection, into: &layer, session: session) {
                // Layers above read the plaintext: it becomes the packet's buffer for them.
                layer.add(LinkLayerFields.decrypted, .bool(true), "Yes, with \(connection.keySource ?? "the link's key")")
                layer.add(LinkLayerFields.micOK, .bool(true), "Good", at: layer.range(at: micStart, count: 4))
                packet.reassembledPDU = plain[...]
                source = ByteCursor(packet.reassembledPDU!)
                inFrame = false
                encrypted = false
            } else {
                layer.add(LinkLayerFields.encryptedPayload, .bytes(sealed.dropLast(4)), at: layer.range(at: sealedStart, count: sealed.count - 4))
                layer.summary += "Encrypted \(llid == 3 ? "LL Control PDU" : "data") - \(sealed.count - 4) bytes - SN \(sn) NESN \(nesn)"
                // A sniffer without the key leaves the flag clear on every packet of the link: only
                // on a link it authenticated before is a clear flag a failed check.
                let snifferFailed = reception.micValid == false && connection.snifferAuthenticated
                if snifferFailed {
                    layer.addIssue(.warning, "The sniffer could not authenticate this packet, though it did earlier ones of the link: its copy or its packet count is off, unless the devices end the link (MIC Failure, 0x3D)")
                }
                if snifferFailed || connection.micFailed {
                    layer.add(LinkLayerFields.micOK, .bool(false), "Bad", at: layer.range(at: micStart, count: 4))
                    connection.micFailed = false
                }
                return nil
            }
        }
        c = source
        switch llid {
        case 3:
            try LinkLayerControl.decode(&c, sent: sent, inFrame: inFrame, connection: &connection, link: link, into: &layer, session: &session)
            return nil
        case 1, 2:
            let payload = c.rest()
            if retransmitted { layer.summary += "Retransmitted " }
            layer.summary += "\(llid == 2 ? "L2CAP Start" : "L2CAP Continuation") - \(payload.count) bytes - SN \(sn) NESN \(nesn)"
            if retransmitted {
                // Its first copy went to L2CAP already.
                layer.add(LinkLayerFields.payload, .bytes(payload), at: inFrame ? layer.range(at: payload.startIndex, count: payload.count) : nil)
                return nil
            }
            return L2CAPHandoff(payload: payload, pb: llid == 2 ? 2 : 1)
        default:
            let payload = c.rest()
            layer.add(LinkLayerFields.payload, .bytes(payload), at: inFrame ? layer.range(at: payload.startIndex, count: payload.count) : nil)
            layer.summary += "Reserved LLID 0"
            layer.addIssue(.warning, "Data PDU with the reserved LLID 0")
            return nil
        }
    }
}

/// The layers this decoder makes.
extension LayerKind {
    public static let linkLayer = LayerKind("LE LL", protocol: "btle")
}
