import BTCapture

/// Where an L2CAP payload travels: the link, the direction, and the channel it is on.
public struct L2CAPContext {
    public var link: Session.LinkKey
    /// Host to controller.
    public var sent: Bool
    public var cid: UInt16
    public var channel: L2CAPChannel?
}

/// L2CAP over ACL (Core Vol 3, Part A): reassembly of ACL fragments per link and direction,
/// the basic header, and dispatch to signaling, the fixed channels and PSM-named protocols.
enum L2CAPDecoder {
    /// Its own signaling channels; the protocols above register their channels and PSMs.
    static let descriptor = ProtocolDescriptor(name: "L2CAP", fields: L2CAPFields.all, layers: [.l2cap, .l2capVendor], state: L2CAPState.self,
                                               registrations: [.fixedChannel(0x0001, "L2CAP Signaling", L2CAPSignaling.decode),
                                                               .fixedChannel(0x0005, "LE Signaling", L2CAPSignaling.decode)],
                                               valueNames: [(L2CAPFields.code, FieldValueNames.from(L2CAPSignaling.codeNames)),
                                                            (L2CAPFields.psm, FieldValueNames.from(L2CAPProtocols.psmNames)),
                                                            (L2CAPFields.infoType, FieldValueNames.from(L2CAPSignaling.infoTypes))],
                                               conversation: L2CAPFields.conversation)

    /// One ACL payload; `pb` is the ACL packet-boundary flag.
    static func receive(_ payload: ArraySlice<UInt8>, pb: UInt8, into packet: inout Packet, session: inout Session) throws {
        guard let handle = packet.handle else { return }
        let link = Session.LinkKey(controller: packet.frame.controller, handle: handle)
        let sent = packet.frame.direction == .sent
        let key = L2CAPState.FlowKey(link: link, sent: sent)
        // Offsets in the payload's own buffer: the frame, or the plaintext of a link-layer
        // packet btlog decrypted.
        let base = payload.startIndex - (packet.reassembledPDU?.startIndex ?? packet.frame.bytes.startIndex)

        // Not L2CAP: Android controllers put vendor debug data on the pseudo-handle 0x0EDC, and a
        // start on a handle no connection event announced whose basic header is shorter than what
        // follows is no PDU either. (A capture that begins mid-connection has consistent framing
        // and decodes as usual.)
        if packet.peer == nil { // no connection event announced this handle (DataDecoder looked it up)
            let declared = pb != 1 ? (try? ByteCursor(payload).peekU16()).map { Int($0) + 4 } : nil
            if handle == 0x0EDC || declared.map({ $0 < payload.count }) == true {
                var layer = packet.makeLayer(.l2capVendor, range: base ..< base + payload.count, showsDirection: true)
                layer.summary.set("\(payload.count) bytes on handle \(hex: handle) [\(preview: payload)]")
                layer.add(DataFields.payload, .bytes(payload), at: base ..< base + payload.count)
                layer.addIssue(.note, handle == 0x0EDC
                    ? "Handle 0x0EDC carries the controller vendor's debug data (Android): not L2CAP"
                    : "No connection event announced handle \(Hex.u16(handle)), and the L2CAP length \(declared! - 4) is shorter than the \(payload.count - 4) bytes that follow: not decoded as L2CAP")
                packet.append(consume layer)
                return
            }
        }

        if pb == 1 { // continuing fragment
            // Taken out of the map while it grows: appended to in place, not copied per fragment.
            guard var pending = session.l2cap.reassembly.removeValue(forKey: key) else {
                var layer = packet.makeLayer(.l2cap, summary: "Continuation fragment without a start", range: base ..< base + payload.count, showsDirection: true)
                layer.add(L2CAPFields.payload, .bytes(payload), at: base ..< base + payload.count)
                layer.addIssue(.error, "ACL continuation fragment without a start: \(payload.count) bytes dropped")
                packet.append(consume layer)
                return
            }
            pending.data.append(contentsOf: payload)
            pending.fragments += 1
            if pending.expected == nil, let length = try? ByteCursor(pending.data).peekU16() {
                pending.expected = Int(length) + 4
            }
            guard let expected = pending.expected, pending.data.count >= expected else {
                openFragmentLayer(pending, range: base ..< base + payload.count, &packet)
                session.l2cap.reassembly[key] = pending
                return
            }
            var issues: [Issue] = []
            if pending.data.count > expected {
                issues.append(Issue(severity: .error, message: "L2CAP length mismatch: header says \(expected - 4) bytes, fragments carry \(pending.data.count - 4)", layer: -1))
            }
            packet.reassembledPDU = pending.data[..<expected]
            try decodePDU(pending.data[..<expected], fragments: pending.fragments, link: link, sent: sent, issues: issues,
                          into: &packet, session: &session)
            return
        }

        // A start: 0 and 2 (non-flushable and flushable first fragments), 3 (a complete PDU).
        // Issues found before the L2CAP layer exists travel to it.
        var issues: [Issue] = []
        // Most of the time nothing is pending: no key hashed then (about 100 instructions a packet).
        if !session.l2cap.reassembly.isEmpty, let stale = session.l2cap.reassembly.removeValue(forKey: key) {
            let total = stale.expected.map { " of \($0)" } ?? ""
            issues.append(Issue(severity: .error, message: "New L2CAP PDU started before the one from packet \(stale.firstFrame) completed: \(stale.data.count)\(total) bytes lost", layer: -1))
        }
        // The basic header's length (plus the header), once its two bytes are here.
        let length = (try? ByteCursor(payload).peekU16()).map { Int($0) + 4 }
        if let length, payload.count >= length {
            if payload.count > length {
                issues.append(Issue(severity: .error, message: "L2CAP length mismatch: header says \(length - 4) bytes, ACL carries \(payload.count - 4)", layer: -1))
            }
            try decodePDU(payload.prefix(length), fragments: 1, link: link, sent: sent, issues: issues, into: &packet, session: &session)
            return
        }
        let pending = L2CAPState.PendingPDU(data: Array(payload), expected: length, fragments: 1, firstFrame: packet.frame.number)
        session.l2cap.reassembly[key] = pending
        let index = openFragmentLayer(pending, range: base ..< base + payload.count, &packet)
        if !issues.isEmpty { packet.layers[index].takeIssues(issues) }
    }

    /// The layer of a fragment of a PDU still being reassembled; returns its index.
    @discardableResult
    static func openFragmentLayer(_ pending: L2CAPState.PendingPDU, range: Range<Int>, _ packet: inout Packet) -> Int {
        let index = packet.openLayer(.l2cap, range: range, showsDirection: true)
        packet.layers.update(index) { layer in
            layer.summary += "Fragment \(pending.fragments) of an L2CAP PDU"
            if let expected = pending.expected { layer.summary += " - \(pending.data.count) of \(expected) bytes" }
            if pending.fragments > 1 { layer.summary += " (started in packet \(pending.firstFrame))" }
            layer.add(L2CAPFields.fragment, .u16(UInt16(clamping: pending.fragments)), String(pending.fragments))
        }
        return index
    }

    /// A whole L2CAP PDU: basic header, then the channel's protocol.
    static func decodePDU(_ pdu: ArraySlice<UInt8>, fragments: Int, link: Session.LinkKey, sent: Bool, issues: [Issue],
                          into packet: inout Packet, session: inout Session) throws {
        var c = ByteCursor(pdu)
        guard pdu.count >= 4 else { throw DecodeError.truncated(needed: 4, available: pdu.count, at: c.offset) }
        let index = packet.openLayer(.l2cap, over: c, showsDirection: true)
        let (length, cid, channel, protocolName) = try packet.layers.update(index) { layer in
            // Only when there are any: assigning an empty list still drops the reused layer's own.
            if !issues.isEmpty { layer.takeIssues(issues) }
            let length = try layer.read(L2CAPFields.length, &c, as: UInt16.self, inDecimal: true)
            let cidRange = layer.range(at: c.index, count: 2)
            let cid = try c.u16()
            let channel = cid >= 0x0040 ? session.l2cap.channel(link, cid: cid, sent: sent) : nil
            let protocolName = channel?.protocolName ?? L2CAPProtocols.fixedName(cid: cid)
            let displays = layer.keepsDisplays ? session.l2cap.displays(cid: cid, psm: channel?.psm, protocolName: protocolName) : nil
            layer.add(L2CAPFields.cid, .u16(cid), displays?.cid, at: cidRange)
            if let channel { layer.add(L2CAPFields.psm, .u16(channel.psm), displays?.psm) }
            if let protocolName { layer.add(L2CAPFields.channelProtocol, .text(protocolName)) }
            if fragments > 1 { layer.add(L2CAPFields.fragmentCount, .u16(UInt16(clamping: fragments)), "\(fragments) fragments") }
            return (length, cid, channel, protocolName)
        }
        let body = c.rest()
        func summary(_ text: inout SummaryText) {
            text += "Channel ID: \(hex: cid)"
            if let protocolName { text += " (\(protocolName))" }
            text += " Length: \(hex: length) (\(length)) [\(preview: body)]"
            if fragments > 1 { text += " - reassembled from \(fragments) fragments" }
        }
        // Made at the end, when it is known whether a view shows it, unless the channel's framing
        // (ERTM, streaming) adds to it on the way.
        let framed = channel.map { $0.mode != .basic } ?? false
        if framed { summary(&packet.layers[index].summary) }
        defer { packet.setSummaryIfShown(at: index, summary) }
        var context = L2CAPContext(link: link, sent: sent, cid: cid, channel: channel)
        var payload = ByteCursor(body)

        switch cid {
        case 0x0000:
            packet.addIssue(.error, "L2CAP PDU on the null CID 0x0000")
            addPayload(&payload, &packet)
        case 0x0002: // connectionless: a PSM before the payload
            let index = packet.layers.count - 1
            try packet.layers[index].read(L2CAPFields.psm, &payload, as: UInt16.self, display: { "\(Hex.u16($0)) (\(L2CAPProtocols.name(psm: $0)))" })
            addPayload(&payload, &packet)
        case ..<0x0040:
            if let decode = DissectorTables.fixedChannels[Int(cid)] {
                try decode(&payload, &packet, &session, context)
            } else {
                addPayload(&payload, &packet)
            }
        default:
            if channel == nil, !session.options.decodeAs.isEmpty, let rule = session.options.decodeAs.cids[cid],
               case .described(let described, let message) = rule.target {
                DescribedTarget(described: described, message: message).decode(&payload, into: &packet, session: &session, stream: .channel(cid, context))
                return
            }
            guard let found = channel ?? adopt(cid, body, link: link, sent: sent, &packet, &session) else {
                packet.addIssue(.note, "No channel with CID \(Hex.u16(cid)) was opened in this capture")
                addPayload(&payload, &packet)
                return
            }
            context.channel = found
            try decodeChannelData(&payload, channel: found, into: &packet, session: &session, context: context)
        }
    }

    /// A channel the capture never showed opening (it began mid-connection): taken as a decode-as
    /// rule says, or as RFCOMM when the PDU is one whole RFCOMM frame whose length and FCS check.
    /// Recorded for both directions under this CID, so the packets after it follow; the note
    /// says how it was decided.
    static func adopt(_ cid: UInt16, _ body: ArraySlice<UInt8>, link: Session.LinkKey, sent: Bool, _ packet: inout Packet,
                      _ session: inout Session) -> L2CAPChannel? {
        let psm: UInt16
        if let rule = session.options.decodeAs.cids[cid], case .builtIn(let rulePSM, let name) = rule.target {
            psm = rulePSM
            packet.addIssue(.note, "Channel \(Hex.u16(cid)) decoded as \(name) (decode-as '\(rule.description)'); the capture does not show it opened")
        } else if RFCOMMDecoder.isFrame(body) {
            psm = 0x0003
            packet.addIssue(.note, "Channel \(Hex.u16(cid)) carries RFCOMM, inferred from this frame (its length and FCS check); the capture does not show it opened")
        } else {
            return nil
        }
        let channel = L2CAPChannel(psm: psm, localCID: cid, remoteCID: cid, mode: .basic)
        session.l2cap.open(link, channel)
        return channel
    }

    /// Data on a dynamic channel: strip the mode's framing, then hand the SDU to the PSM's decoder.
    static func decodeChannelData(_ c: inout ByteCursor, channel: L2CAPChannel, into packet: inout Packet,
                                  session: inout Session, context: L2CAPContext) throws {
        let index = packet.layers.count - 1
        switch channel.mode {
        case .basic:
            try decodeSDU(&c, channel: channel, into: &packet, session: &session, context: context)
        case .leCreditBased, .enhancedCreditBased:
            // K-frames: the first of an SDU carries its length; later ones continue it.
            let direction = context.sent
            if var pending = channel.sdu[direction] {
                pending.data.append(contentsOf: c.rest())
                if pending.data.count >= pending.expected {
                    session.l2cap.update(context.link, cid: context.cid, sent: context.sent) { $0.sdu[direction] = nil }
                    if pending.data.count > pending.expected {
                        packet.addIssue(.error, "SDU length \(pending.expected) exceeded: K-frames carry \(pending.data.count) bytes")
                    }
                    packet.layers[index].summary += " - SDU complete (\(pending.expected) bytes)"
                    var sdu = ByteCursor(pending.data[...])
                    packet.reassembledPDU = pending.data[...]
                    // The SDU is its own buffer, not the frame the L2CAP layer reads: its payload has no range there.
                    try decodeSDU(&sdu, channel: channel, into: &packet, session: &session, context: context, reassembled: true)
                } else {
                    session.l2cap.update(context.link, cid: context.cid, sent: context.sent) { $0.sdu[direction] = pending }
                    packet.layers[index].summary += " - SDU continuation (\(pending.data.count) of \(pending.expected) bytes)"
                }
                return
            }
            let sduLength = try packet.layers[index].read(L2CAPFields.sduLength, &c, as: UInt16.self, inDecimal: true)
            if c.remaining < Int(sduLength) {
                let pending = L2CAPChannel.PendingSDU(data: Array(c.rest()), expected: Int(sduLength))
                session.l2cap.update(context.link, cid: context.cid, sent: context.sent) { $0.sdu[direction] = pending }
                packet.layers[index].summary += " - SDU start (\(pending.data.count) of \(sduLength) bytes)"
                return
            }
            if c.remaining > Int(sduLength) {
                packet.addIssue(.error, "SDU length \(sduLength) but the K-frame carries \(c.remaining) bytes")
            }
            try decodeSDU(&c, channel: channel, into: &packet, session: &session, context: context)
        case .enhancedRetransmission, .streaming, .retransmission, .flowControl:
            try decodeERTMFrame(&c, channel: channel, into: &packet, session: &session, context: context)
        }
    }

    /// ERTM and streaming frames (Core Vol 3, Part A, 3.3.2, enhanced control field).
    static func decodeERTMFrame(_ c: inout ByteCursor, channel: L2CAPChannel, into packet: inout Packet,
                                session: inout Session, context: L2CAPContext) throws {
        let index = packet.layers.count - 1
        let controlRange = packet.layers[index].range(at: c.index, count: 2)
        let control = try packet.layers[index].read(L2CAPFields.controlField, &c, as: UInt16.self)
        let reqSeq = UInt8(control >> 8 & 0x3F)
        if channel.hasFCS, c.remaining >= 2 {
            var fcs = try c.trailer(2)
            try packet.layers[index].read(L2CAPFields.fcsValue, &fcs, as: UInt16.self)
        }
        if control & 1 == 1 {
            let function = UInt8(control >> 2 & 0x3)
            let names = ["RR (Receiver Ready)", "REJ (Reject)", "RNR (Receiver Not Ready)", "SREJ (Selective Reject)"]
            packet.layers[index].add(L2CAPFields.supervisory, .u8(function), names[Int(function)], at: controlRange)
            packet.layers[index].add(L2CAPFields.reqSeq, .u8(reqSeq), inDecimal: true, at: controlRange)
            packet.layers[index].summary += " - S-frame \(names[Int(function)]) ReqSeq \(reqSeq)"
            return
        }
        let txSeq = UInt8(control >> 1 & 0x3F), sar = UInt8(control >> 14)
        let sarNames = ["Unsegmented", "Start", "End", "Continuation"]
        packet.layers[index].add(L2CAPFields.txSeq, .u8(txSeq), inDecimal: true, at: controlRange)
        packet.layers[index].add(L2CAPFields.reqSeq, .u8(reqSeq), inDecimal: true, at: controlRange)
        packet.layers[index].add(L2CAPFields.sar, .u8(sar), sarNames[Int(sar)], at: controlRange)
        packet.layers[index].summary += " - I-frame TxSeq \(txSeq) ReqSeq \(reqSeq) \(sarNames[Int(sar)])"
        if sar == 1 {
            try packet.layers[index].read(L2CAPFields.sduLength, &c, as: UInt16.self, inDecimal: true)
        }
        if sar == 0 {
            try decodeSDU(&c, channel: channel, into: &packet, session: &session, context: context)
        } else {
            addPayload(&c, &packet)
        }
    }

    static func decodeSDU(_ c: inout ByteCursor, channel: L2CAPChannel, into packet: inout Packet,
                          session: inout Session, context: L2CAPContext, reassembled: Bool = false) throws {
        if !session.options.decodeAs.isEmpty, let rule = session.options.decodeAs.psms[channel.psm] {
            switch rule.target {
            case .described(let described, let message):
                DescribedTarget(described: described, message: message).decode(&c, into: &packet, session: &session, stream: .channel(context.cid, context))
            case .builtIn(let psm, _):
                if let decode = DissectorTables.psm(psm) { try decode(&c, &packet, &session, context) } else { addPayload(&c, &packet, ranged: !reassembled) }
            }
        } else if !session.options.described.isEmpty, let target = session.options.described.channel(psm: channel.psm, creditBased: channel.mode.isCreditBased) {
            target.decode(&c, into: &packet, session: &session, stream: .channel(context.cid, context))
        } else if let decode = DissectorTables.psm(channel.psm) {
            try decode(&c, &packet, &session, context)
        } else {
            addPayload(&c, &packet, ranged: !reassembled)
        }
    }

    /// The rest as the top layer's payload, with its bytes unless they are in another buffer
    /// than the layer's (a reassembled SDU).
    static func addPayload(_ c: inout ByteCursor, _ packet: inout Packet, ranged: Bool = true) {
        guard !c.isAtEnd else { return }
        let index = packet.layers.count - 1
        if ranged {
            _ = try? packet.layers[index].read(L2CAPFields.payload, &c, bytes: c.remaining)
        } else {
            packet.layers[index].add(L2CAPFields.payload, .bytes(c.rest()))
        }
    }
}

/// Names by fixed CID and by PSM (Assigned Numbers, L2CAP PSM; Core Vol 3, Part A, 2.1): those
/// of the protocols btlog decodes come with their registrations (`.psm(0x0001, "SDP", decode)`);
/// the assigned ones no decoder registers are here.
public enum L2CAPProtocols {
    static let undecodedPSMs: [UInt16: String] = [
        0x0005: "TCS-BIN", 0x0007: "TCS-BIN-CORDLESS", 0x0015: "UPnP", 0x001D: "UDI C-Plane", 0x0021: "3DSP",
        0x0023: "IPSP", 0x0025: "OTS",
    ]
    static let undecodedCIDs: [UInt16: String] = [0x0002: "Connectionless", 0x0003: "AMP Manager", 0x003F: "AMP Test Manager"]

    /// The PSMs some registered protocol decodes (the fuzzer's channel target walks them).
    public static var decodedPSMs: [UInt16] { DissectorTables.psmTable.keys.sorted() }

    public static func name(psm: UInt16) -> String {
        if psm < 0x0100, let name = namesByPSM[Int(psm)] { return name }
        return psm >= 0x0080 && psm <= 0x00FF ? "LE Dynamic PSM \(Hex.u16(psm))" : "PSM \(Hex.u16(psm))"
    }
    /// Every named PSM by index (every assigned PSM is below 0x0100): read for every packet of a channel.
    static let namesByPSM: [String?] = (0 ..< 0x0100).map { DissectorTables.psmNames[UInt16($0)] ?? undecodedPSMs[UInt16($0)] }

    /// Every named PSM, decoded or not (what the filter language accepts for l2cap.psm).
    static var psmNames: [UInt16: String] { DissectorTables.psmNames.merging(undecodedPSMs) { decoded, _ in decoded } }

    static func fixedName(cid: UInt16) -> String? {
        cid < 0x0040 ? fixedNames[Int(cid)] : DissectorTables.fixedChannelNames[cid] ?? undecodedCIDs[cid]
    }
    /// The fixed channels' names by CID: asked for every PDU, so read without hashing.
    private static let fixedNames: [String?] = (0 ..< 0x0040).map { DissectorTables.fixedChannelNames[UInt16($0)] ?? undecodedCIDs[UInt16($0)] }
}

/// The layers this decoder makes.
extension LayerKind {
    public static let l2cap = LayerKind("L2CAP", protocol: "l2cap")
    public static let l2capVendor = LayerKind(named: "Vendor")
}
