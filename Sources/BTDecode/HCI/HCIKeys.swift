import BTCapture

/// The long-term keys a host hands its controller over HCI, kept for the link layer: an air
/// capture of the same link read with this log (`--merge`) decrypts with them. The fields are
/// the layouts' own; these row decoders read the parameters for the Session from a copy of the
/// cursor (what a view keeps of the fields must not change what the Session learns), then the
/// layout into the layer.
enum HCIKeys {
    /// LE Enable Encryption (the central's host): the key with its Rand and EDIV.
    static func enableEncryption(_ layout: [HCIParam]?, _ c: inout ByteCursor, _ layer: inout Layer,
                                 _ row: inout HCIPacketContext, _ session: inout Session) throws {
        guard let layout else { return }
        var copy = c
        _ = try HCIParameterReader.read(layout, &c, &layer, &row, session)
        guard let handle = try? copy.u16(), let rand = try? copy.u64(), let ediv = try? copy.u16(), let ltk = try? copy.slice(16) else { return }
        session.smp.hostKeys.append((Array(ltk), ediv, rand, row.frameNumber, "LE Enable Encryption"))
        reveal(ltk: ltk, ediv: ediv, rand: rand, handle: Int(handle & 0x0FFF), how: "LE Enable Encryption", row, &session)
    }

    /// LE Long Term Key Request (the peripheral's controller asks): its Rand and EDIV wait for the reply.
    static func longTermKeyRequest(_ layout: [HCIParam]?, _ c: inout ByteCursor, _ layer: inout Layer,
                                   _ row: inout HCIPacketContext, _ session: inout Session) throws {
        guard let layout else { return }
        var copy = c
        _ = try HCIParameterReader.read(layout, &c, &layer, &row, session)
        guard let handle = try? copy.u16(), let rand = try? copy.u64(), let ediv = try? copy.u16() else { return }
        let link = Session.LinkKey(controller: row.controller, handle: handle & 0x0FFF)
        session.smp.keyRequests[link] = (rand, ediv)
    }

    /// LE Long Term Key Request Reply (the peripheral's host answers): the key, with the Rand
    /// and EDIV of the request on that link (0 and 0, LE Secure Connections, when the log
    /// began after the request).
    static func longTermKeyRequestReply(_ layout: [HCIParam]?, _ c: inout ByteCursor, _ layer: inout Layer,
                                        _ row: inout HCIPacketContext, _ session: inout Session) throws {
        guard let layout else { return }
        var copy = c
        _ = try HCIParameterReader.read(layout, &c, &layer, &row, session)
        guard let handle = try? copy.u16(), let ltk = try? copy.slice(16) else { return }
        let link = Session.LinkKey(controller: row.controller, handle: handle & 0x0FFF)
        let request = session.smp.keyRequests.removeValue(forKey: link) ?? (0, 0)
        session.smp.hostKeys.append((Array(ltk), request.ediv, request.rand, row.frameNumber, "LE Long Term Key Request Reply"))
        reveal(ltk: ltk, ediv: request.ediv, rand: request.rand, handle: Int(handle & 0x0FFF), how: "LE Long Term Key Request Reply", row, &session)
    }

    static func reveal(ltk: ArraySlice<UInt8>, ediv: UInt16, rand: UInt64, handle: Int?, how: String, _ row: HCIPacketContext, _ session: inout Session) {
        let handle = handle.map { UInt16(truncatingIfNeeded: $0) }
        let peer = handle.flatMap { session.connection(controller: row.controller, handle: $0)?.peer }
        session.smp.revealed.add(RevealedKey(kind: .ltk, key: ltk.reversed(), frame: row.frameNumber, controller: row.controller,
                                             handle: handle, address: peer, how: how, ediv: ediv, rand: rand))
    }

    /// Link Key Notification (the controller's new BR/EDR key) and Link Key Request Reply (the
    /// host's stored one): listed, though no HCI packet is encrypted with it.
    static func linkKeyNotification(_ layout: [HCIParam]?, _ c: inout ByteCursor, _ layer: inout Layer,
                                    _ row: inout HCIPacketContext, _ session: inout Session) throws {
        try linkKey(layout, &c, &layer, &row, &session, how: "Link Key Notification")
    }

    static func linkKeyRequestReply(_ layout: [HCIParam]?, _ c: inout ByteCursor, _ layer: inout Layer,
                                    _ row: inout HCIPacketContext, _ session: inout Session) throws {
        try linkKey(layout, &c, &layer, &row, &session, how: "Link Key Request Reply")
    }

    private static func linkKey(_ layout: [HCIParam]?, _ c: inout ByteCursor, _ layer: inout Layer,
                                _ row: inout HCIPacketContext, _ session: inout Session, how: String) throws {
        guard let layout else { return }
        var copy = c
        _ = try HCIParameterReader.read(layout, &c, &layer, &row, session)
        guard let address = try? copy.address(), let key = try? copy.slice(16) else { return }
        var text = how
        if let type = try? copy.u8() { text += ", type \(Hex.u8(type))" }
        session.smp.revealed.add(RevealedKey(kind: .linkKey, key: Array(key), frame: row.frameNumber, controller: row.controller,
                                             handle: nil, address: address, how: text))
    }
}
