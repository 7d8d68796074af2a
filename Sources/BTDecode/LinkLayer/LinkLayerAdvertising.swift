import BTCapture

/// Advertising channel PDUs (Core Vol 6, Part B, 2.3): legacy advertising, scanning and
/// CONNECT_IND, which starts the connection its access address names; extended advertising
/// with its common extended header (2.3.4). Advertising data goes through the same AD
/// decoders as HCI's advertising reports.
enum LinkLayerAdvertising {
    static let pduNames: [UInt8: String] = [
        0: "ADV_IND", 1: "ADV_DIRECT_IND", 2: "ADV_NONCONN_IND", 3: "SCAN_REQ", 4: "SCAN_RSP", 5: "CONNECT_IND",
        6: "ADV_SCAN_IND", 7: "ADV_EXT_IND", 8: "AUX_CONNECT_RSP",
    ]

    static func addressType(random: Bool) -> String { random ? "Random" : "Public" }

    /// `train`: the access address of the periodic advertising train the PDU came on; nil on
    /// the advertising channels' access address.
    static func decode(_ c: inout ByteCursor, reception: AirReception, crcOK: Bool, train: UInt32? = nil, into layer: inout Layer,
                       packet: inout Packet, session: inout Session) throws {
        let headerStart = c.index
        let header = try c.u8()
        let length = try c.u8()
        let type = header & 0x0F
        let chSel = header & 0x20 != 0, txAdd = header & 0x40 != 0, rxAdd = header & 0x80 != 0
        // On a secondary channel (0-36) the same codes are the AUX_ PDUs; nil: the capture does not say.
        let onSecondary = reception.channel.map { $0 < 37 }
        let secondary = onSecondary ?? false
        var name = pduNames[type] ?? "Reserved PDU type \(type)"
        if secondary, type == 3 { name = "AUX_SCAN_REQ" }
        if secondary, type == 5 { name = "AUX_CONNECT_REQ" }
        layer.add(LinkLayerFields.advHeader, .u16(UInt16(header) | UInt16(length) << 8), at: layer.range(at: headerStart, count: 2))
        layer.add(LinkLayerFields.pduType, .u8(type), named: name, at: layer.range(at: headerStart))
        layer.add(LinkLayerFields.chSel, .bool(chSel), chSel ? "#2" : "#1", at: layer.range(at: headerStart))
        layer.add(LinkLayerFields.txAdd, .bool(txAdd), addressType(random: txAdd), at: layer.range(at: headerStart))
        layer.add(LinkLayerFields.rxAdd, .bool(rxAdd), addressType(random: rxAdd), at: layer.range(at: headerStart))
        layer.add(LinkLayerFields.advLength, .u8(length), inDecimal: true, at: layer.range(at: headerStart + 1))
        guard crcOK else {
            layer.summary.set("\(name) (damaged)")
            try layer.read(LinkLayerFields.payload, &c, bytes: c.remaining)
            return
        }
        if train != nil, type != 7 {
            layer.summary.set("\(name) on a periodic advertising train")
            try layer.read(LinkLayerFields.payload, &c, bytes: c.remaining)
            layer.addIssue(.warning, "A periodic advertising train carries only AUX_SYNC_IND and AUX_CHAIN_IND (PDU type 7), not \(name)")
            return
        }
        if pduNames[type] == nil {
            layer.summary.set("\(name)")
            try layer.read(LinkLayerFields.payload, &c, bytes: c.remaining)
            layer.addIssue(.warning, "Reserved advertising PDU type \(type)")
            return
        }
        switch type {
        case 0, 2, 6, 4:
            let address = try layer.read(LinkLayerFields.advertisingAddress, &c, as: BDAddr.self)
            layer.summary.set("\(name) - \(addressType(random: txAdd)) - \(address)")
            addData(c.rest(), name: type == 4 ? "Scan response" : "Advertising", into: &layer, session: &session)
            packet.peer = address
        case 1:
            let (address, addressAt) = try layer.reading(&c) { try $0.address() }
            let (target, targetAt) = try layer.reading(&c) { try $0.address() }
            layer.add(LinkLayerFields.advertisingAddress, .address(address), at: addressAt)
            layer.add(LinkLayerFields.targetAddress, .address(target), at: targetAt)
            layer.summary.set("\(name) - \(addressType(random: txAdd)) - \(address) → \(target)")
            packet.peer = address
        case 3:
            let (scanner, scannerAt) = try layer.reading(&c) { try $0.address() }
            let (address, addressAt) = try layer.reading(&c) { try $0.address() }
            layer.add(LinkLayerFields.scanningAddress, .address(scanner), at: scannerAt)
            layer.add(LinkLayerFields.advertisingAddress, .address(address), at: addressAt)
            layer.summary.set("\(name) - \(scanner) → \(address)")
            packet.peer = address
        case 5:
            try decodeConnect(&c, name: name, txAdd: txAdd, rxAdd: rxAdd, into: &layer, packet: &packet, session: &session)
        default: // 7, 8: the common extended advertising payload
            try decodeExtended(&c, name: name, type: type, secondary: onSecondary, train: train, txAdd: txAdd, into: &layer, packet: &packet,
                               session: &session)
        }
        if !c.isAtEnd {
            try layer.read(LinkLayerFields.payload, &c, bytes: c.remaining)
            layer.addIssue(.warning, "\(name) has bytes after its fields")
        }
    }

    /// The advertising data and its structures; `joined` when it is a chain's data put
    /// together from several PDUs (its bytes are not this packet's).
    static func addData(_ data: ArraySlice<UInt8>, name: String, joined: Bool = false, into layer: inout Layer, session: inout Session) {
        guard !data.isEmpty else { return }
        layer.add(AdvertisingFields.data, .bytes(data), at: joined ? nil : layer.range(at: data.startIndex, count: data.count))
        let names = session.names
        let digest = AdvertisingData.decode(data, into: &layer, names: names, described: session.options.described, ranged: !joined, memo: &session.advertisingMemo)
        if let deviceName = digest.name { layer.summary += " - \"\(deviceName)\"" }
    }

    /// CONNECT_IND (and AUX_CONNECT_REQ): the initiator, the advertiser, and the LLData that
    /// starts the connection: its access address, CRC init, first window, interval, latency,
    /// timeout, channel map, hop and sleep clock accuracy.
    static func decodeConnect(_ c: inout ByteCursor, name: String, txAdd: Bool, rxAdd: Bool, into layer: inout Layer,
                              packet: inout Packet, session: inout Session) throws {
        let (initiator, initiatorAt) = try layer.reading(&c) { try $0.address() }
        let (advertiser, advertiserAt) = try layer.reading(&c) { try $0.address() }
        layer.add(LinkLayerFields.initiatorAddress, .address(initiator), at: initiatorAt)
        layer.add(LinkLayerFields.advertisingAddress, .address(advertiser), at: advertiserAt)
        let start = c.index
        let accessAddress = try c.u32()
        let crcInit = try c.u24()
        let windowSize = try c.u8()
        let windowOffset = try c.u16()
        let interval = try c.u16()
        let latency = try c.u16()
        let timeout = try c.u16()
        let channelMap = try c.slice(5)
        let hopSCA = try c.u8()
        layer.add(LinkLayerFields.connAccessAddress, .u32(accessAddress), at: layer.range(at: start, count: 4))
        layer.add(LinkLayerFields.crcInit, .unsigned(UInt64(crcInit), width: 6), at: layer.range(at: start + 4, count: 3))
        layer.add(LinkLayerFields.windowSize, .u8(windowSize), Units.milliseconds(UInt16(windowSize), 1.25), at: layer.range(at: start + 7))
        layer.add(LinkLayerFields.windowOffset, .u16(windowOffset), Units.milliseconds(windowOffset, 1.25), at: layer.range(at: start + 8, count: 2))
        layer.add(LinkLayerFields.interval, .u16(interval), Units.milliseconds(interval, 1.25), at: layer.range(at: start + 10, count: 2))
        layer.add(LinkLayerFields.latency, .u16(latency), inDecimal: true, at: layer.range(at: start + 12, count: 2))
        layer.add(LinkLayerFields.timeout, .u16(timeout), Units.milliseconds(timeout, 10), at: layer.range(at: start + 14, count: 2))
        layer.add(LinkLayerFields.channelMap, .bytes(channelMap), LinkLayerControl.describeChannelMap(channelMap), at: layer.range(at: start + 16, count: 5))
        layer.add(LinkLayerFields.hop, .u8(hopSCA & 0x1F), inDecimal: true, at: layer.range(at: start + 21))
        layer.add(LinkLayerFields.sca, .u8(hopSCA >> 5), LinkLayerControl.scaName(hopSCA >> 5), at: layer.range(at: start + 21))
        layer.summary.set("\(name) - \(initiator) → \(advertiser) - Access Address \(hex: accessAddress) - Interval \(Units.milliseconds(interval, 1.25))")
        if interval < 6 || interval > 3200 { layer.addIssue(.warning, "Connection interval \(interval) is outside 6-3200 (7.5 ms-4 s)") }
        if timeout < 10 || timeout > 3200 { layer.addIssue(.warning, "Supervision timeout \(timeout) is outside 10-3200 (100 ms-32 s)") }
        if LinkLayerControl.usedChannels(channelMap) < 2 { layer.addIssue(.warning, "The channel map uses fewer than 2 data channels") }
        if hopSCA & 0x1F < 5 || hopSCA & 0x1F > 16 { layer.addIssue(.warning, "Hop increment \(hopSCA & 0x1F) is outside 5-16") }

        // A new connection: its own number, as an HCI handle, for L2CAP and what runs above it.
        var state = session.linkLayer
        state.connections[accessAddress] = nil
        var connection = state.connection(accessAddress)
        connection.crcInit = crcInit
        connection.central = initiator
        connection.peripheral = advertiser
        connection.peripheralAddressType = rxAdd ? 1 : 0
        connection.centralAddressType = txAdd ? 1 : 0
        connection.connectFrame = packet.frame.number
        state.connections[accessAddress] = connection
        session.linkLayer = state
        let link = Session.LinkKey(controller: packet.frame.controller, handle: connection.handle)
        session.connections[link] = Session.Connection(peer: advertiser, peerAddressType: rxAdd ? 1 : 0, isLE: true, role: 0)
        layer.add(LinkLayerFields.handle, .u16(connection.handle))
        packet.handle = connection.handle
        packet.peer = advertiser
    }

    /// ADV_EXT_IND, AUX_ADV_IND, AUX_SCAN_RSP, AUX_SYNC_IND, AUX_CHAIN_IND and AUX_CONNECT_RSP:
    /// the extended header's length and mode, its flags and each field they announce, then data.
    static func decodeExtended(_ c: inout ByteCursor, name: String, type: UInt8, secondary: Bool?, train: UInt32?, txAdd: Bool,
                               into layer: inout Layer, packet: inout Packet, session: inout Session) throws {
        let (first, firstAt) = try layer.reading(&c) { try $0.u8() }
        let headerLength = Int(first & 0x3F), mode = first >> 6
        let modeNames = ["Non-connectable, non-scannable", "Connectable", "Scannable", "Reserved"]
        layer.add(LinkLayerFields.extHeaderLength, .u8(UInt8(headerLength)), inDecimal: true, at: firstAt)
        layer.add(LinkLayerFields.advMode, .u8(mode), named: modeNames[Int(mode)], at: firstAt)
        var h = try c.cursor(headerLength)
        var address: BDAddr?, adi: UInt16?, sid: UInt8?, hasAuxPointer = false
        var sync: SyncInfo?
        var acad: (data: ArraySlice<UInt8>, at: Int)?
        var parts: [String] = []
        if headerLength > 0 {
            let flags = try layer.read(LinkLayerFields.extFlags, &h, as: UInt8.self)
            if flags & 0x01 != 0 {
                let (a, aAt) = try layer.reading(&h) { try $0.address() }
                address = a
                layer.add(LinkLayerFields.advertisingAddress, .address(a), at: aAt)
                parts.append("\(addressType(random: txAdd)) - \(a)")
                packet.peer = a
            }
            if flags & 0x02 != 0 {
                let target = try layer.read(LinkLayerFields.targetAddress, &h, as: BDAddr.self)
                parts.append("→ \(target)")
            }
            if flags & 0x04 != 0 {
                try layer.read(LinkLayerFields.cteInfo, &h, as: UInt8.self, display: { "Time \($0 & 0x1F) (\(Int($0 & 0x1F) * 8) µs), type \($0 >> 6)" })
            }
            if flags & 0x08 != 0 {
                let (value, valueAt) = try layer.reading(&h) { try $0.u16() }
                adi = value
                sid = UInt8(value >> 12)
                layer.add(LinkLayerFields.adiDID, .u16(value & 0x0FFF), at: valueAt)
                layer.add(LinkLayerFields.adiSID, .u16(value >> 12), inDecimal: true, at: valueAt.suffix(1))
                parts.append("SID \(value >> 12) DID \(value & 0x0FFF)")
            }
            if flags & 0x10 != 0 {
                let (channel, channelAt) = try layer.reading(&h) { try $0.u8() }
                let (word, wordAt) = try layer.reading(&h) { try $0.u16() }
                let units = channel & 0x80 != 0 ? 300 : 30
                layer.add(LinkLayerFields.auxChannel, .u8(channel & 0x3F), inDecimal: true, at: channelAt)
                layer.add(LinkLayerFields.auxOffset, .u16(word & 0x1FFF), "\(Int(word & 0x1FFF) * units) µs", at: wordAt)
                layer.add(LinkLayerFields.auxPHY, .u16(word >> 13), named: SnifferHeaders.phyName(UInt8(word >> 13)), at: wordAt.suffix(1))
                parts.append("aux on channel \(channel & 0x3F)")
                hasAuxPointer = true
            }
            if flags & 0x20 != 0 {
                let info = try SyncInfo.read(&h)
                info.add(to: &layer, names: LinkLayerFields.extendedSyncInfo)
                sync = info
                parts.append("periodic every \(Units.milliseconds(info.interval, 1.25)) on \(Hex.format(info.accessAddress, width: 8))")
            }
            if flags & 0x40 != 0 {
                try layer.read(LinkLayerFields.txPower, &h, as: Int8.self, display: { power in "\(power) dBm" })
            }
            if !h.isAtEnd {
                let at = h.index
                acad = (h.rest(), at)
            }
        }
        if let sync { sync.register(advertiser: address, sid: sid, session: &session) }
        var shown = name
        // Without a channel, data says it: ADV_EXT_IND on a primary channel carries none.
        if let train, var state = session.linkLayer.trains[train] {
            // On the train: AUX_SYNC_IND each interval, AUX_CHAIN_IND where the one before pointed on.
            shown = state.chainPending ? "AUX_CHAIN_IND" : "AUX_SYNC_IND"
            state.chainPending = hasAuxPointer
            session.linkLayer.trains[train] = state
            if address == nil, let advertiser = state.advertiser {
                packet.peer = advertiser
                parts.insert("\(advertiser)\(state.sid.map { " SID \($0)" } ?? "")", at: 0)
            }
        } else if type == 7 && (secondary ?? !c.isAtEnd) {
            switch (address != nil, adi != nil) {
            case (true, true): shown = "AUX_ADV_IND"
            case (true, false): shown = "AUX_SCAN_RSP"
            case (false, true): shown = "AUX_CHAIN_IND"
            case (false, false): shown = "AUX_SYNC_IND"
            }
        }
        layer.summary.set("\(shown)")
        for part in parts { layer.summary += " - \(part)" }
        if let acad { AdditionalControllerData.decode(acad.data, at: acad.at, into: &layer, session: &session) }
        addChainedData(c.rest(), shown: shown, chainKey: train.map { UInt64($0) } ?? adi.map { 1 << 32 | UInt64($0) },
                       continues: hasAuxPointer && shown != "ADV_EXT_IND", into: &layer, session: &session)
    }

    /// Advertising data too long for one PDU continues in AUX_CHAIN_INDs (Core Vol 6, Part B,
    /// 4.4.2.4): each piece is held, by the train or the ADI, until the PDU without an AuxPtr
    /// ends the chain, and the whole is decoded there.
    static func addChainedData(_ data: ArraySlice<UInt8>, shown: String, chainKey: UInt64?, continues: Bool, into layer: inout Layer,
                               session: inout Session) {
        var held: [UInt8]?
        if shown == "AUX_CHAIN_IND", let chainKey { held = session.linkLayer.chains.removeValue(forKey: chainKey) }
        if continues, let chainKey {
            // A few advertisers whose chains the sniffer lost must not grow this without end.
            if session.linkLayer.chains.count >= 256 { session.linkLayer.chains = [:] }
            session.linkLayer.chains[chainKey] = Array(((held ?? []) + data).prefix(4096))
            guard !data.isEmpty else { return }
            layer.add(AdvertisingFields.data, .bytes(data), "\(data.count) bytes, continued in an AUX_CHAIN_IND",
                      at: layer.range(at: data.startIndex, count: data.count))
            layer.summary += " - data continues"
            return
        }
        guard let held, !held.isEmpty else {
            addData(data, name: "Advertising", into: &layer, session: &session)
            return
        }
        layer.addIssue(.note, "Advertising data of \(held.count + data.count) bytes, \(held.count) of them from the PDUs before this one in the chain")
        addData((held + data)[...], name: "Advertising", joined: true, into: &layer, session: &session)
    }
}
