import BTCapture

/// SyncInfo (Core Vol 6, Part B, 2.3.4.6): where a periodic advertising train runs, as
/// AUX_ADV_IND's extended header and LL_PERIODIC_SYNC_IND carry it. Its access address and
/// CRC init are what the train's AUX_SYNC_IND and AUX_CHAIN_IND are sent with.
struct SyncInfo {
    var offset: UInt16, offsetUnits300: Bool, offsetAdjust: Bool, interval: UInt16
    var channelMap: ArraySlice<UInt8>, sca: UInt8, accessAddress: UInt32, crcInit: UInt32, eventCounter: UInt16
    /// Where the 18 octets start in the layer's buffer.
    var start: Int

    static let length = 18

    static func read(_ c: inout ByteCursor) throws -> SyncInfo {
        let start = c.index
        var s = try c.cursor(length)
        let word = try s.u16(), interval = try s.u16()
        let map = try s.slice(5)
        let accessAddress = try s.u32(), crcInit = try s.u24(), counter = try s.u16()
        return SyncInfo(offset: word & 0x1FFF, offsetUnits300: word & 0x2000 != 0, offsetAdjust: word & 0x4000 != 0, interval: interval,
                        channelMap: map, sca: map[map.startIndex + 4] >> 5, accessAddress: accessAddress, crcInit: crcInit,
                        eventCounter: counter, start: start)
    }

    /// The channel map without the SCA in its top 3 bits (made for the tree only).
    var usedChannels: ArraySlice<UInt8> {
        var map = channelMap
        map[map.startIndex + 4] &= 0x1F
        return map
    }

    /// The field names of one carrier: the extended header's or LL_PERIODIC_SYNC_IND's.
    struct Names {
        var offset, units, adjust, interval, channelMap, sca, accessAddress, crcInit, eventCounter: FieldDefinition
    }

    func add(to layer: inout Layer, names: Names) {
        let unitsText = offsetUnits300 ? "300 µs" : "30 µs"
        layer.add(names.offset, .u16(offset), "\(offset) (\(Int(offset) * (offsetUnits300 ? 300 : 30) + (offsetAdjust ? 2_457_600 : 0)) µs)",
                  at: layer.range(at: start, count: 2))
        layer.add(names.units, .bool(offsetUnits300), unitsText, at: layer.range(at: start + 1))
        layer.add(names.adjust, .bool(offsetAdjust), offsetAdjust ? "Add 2.4576 s" : "None", at: layer.range(at: start + 1))
        layer.add(names.interval, .u16(interval), Units.milliseconds(interval, 1.25), at: layer.range(at: start + 2, count: 2))
        layer.add(names.channelMap, .bytes(channelMap), LinkLayerControl.describeChannelMap(usedChannels), at: layer.range(at: start + 4, count: 5))
        layer.add(names.sca, .u8(sca), LinkLayerControl.scaName(sca), at: layer.range(at: start + 8))
        layer.add(names.accessAddress, .u32(accessAddress), at: layer.range(at: start + 9, count: 4))
        layer.add(names.crcInit, .unsigned(UInt64(crcInit), width: 6), at: layer.range(at: start + 13, count: 3))
        layer.add(names.eventCounter, .u16(eventCounter), inDecimal: true, at: layer.range(at: start + 16, count: 2))
    }

    /// The train starts (or is learnt again): its packets are advertising PDUs from here on.
    func register(advertiser: BDAddr?, sid: UInt8?, session: inout Session) {
        // Trains announced by damaged or garbled packets must not grow this without end.
        if session.linkLayer.trains.count >= 4096, session.linkLayer.trains[accessAddress] == nil { session.linkLayer.trains = [:] }
        var train = session.linkLayer.trains[accessAddress] ?? LinkLayerState.PeriodicTrain(crcInit: crcInit)
        train.crcInit = crcInit
        train.interval = interval
        if let advertiser { train.advertiser = advertiser }
        if let sid { train.sid = sid }
        session.linkLayer.trains[accessAddress] = train
    }
}

/// The Additional Controller Advertising Data of an extended header: AD structures the
/// controller adds, BIGInfo (a broadcast isochronous group's parameters, in AUX_SYNC_IND) and
/// the Channel Map Update Indication of a periodic train.
enum AdditionalControllerData {
    static func decode(_ data: ArraySlice<UInt8>, at start: Int, into layer: inout Layer, session: inout Session) {
        layer.add(LinkLayerFields.acad, .bytes(data), at: layer.range(at: start, count: data.count))
        var c = ByteCursor(data)
        while c.remaining >= 2 {
            let length = Int(c.bytes[c.index])
            guard length > 0 else { return }
            guard let structure = try? c.cursor(length + 1) else {
                layer.addIssue(.warning, "ACAD structure of \(length) bytes runs past the extended header")
                return
            }
            var s = structure
            _ = try? s.u8()
            let type = (try? s.u8()) ?? 0
            let bodyStart = s.index
            do {
                switch type {
                case 0x2C: try decodeBIGInfo(&s, at: bodyStart, into: &layer, session: &session)
                case 0x28:
                    try layer.read(LinkLayerFields.channelMapUpdate, &s, bytes: 5, display: { LinkLayerControl.describeChannelMap($0) })
                    let instant = try layer.read(LinkLayerFields.instant, &s, as: UInt16.self, inDecimal: true)
                    layer.summary += " - channel map update at event \(instant)"
                default:
                    layer.add(LinkLayerFields.acadType, .u8(type), named: AdvertisingData.typeNames[type] ?? "Unknown",
                              at: layer.range(at: bodyStart - 1))
                }
            } catch {
                layer.addIssue(.warning, "ACAD \(AdvertisingData.typeNames[type] ?? "structure 0x\(Hex.u8(type))") is cut short")
            }
        }
    }

    /// BIGInfo (Core Vol 6, Part B, the BIG's announcement in ACAD): 33 octets, 57 when the group is encrypted.
    static func decodeBIGInfo(_ c: inout ByteCursor, at start: Int, into layer: inout Layer, session: inout Session) throws {
        let encrypted = c.remaining >= 57
        let first = try c.u32(), second = try c.u32(), third = try c.u32()
        try c.skip(1)
        let seed = try c.u32(), fourth = try c.u32(), baseCRCInit = try c.u16()
        let mapPHY = try c.slice(5), countFraming = try c.slice(5)
        let f = BIGInfoFields.self
        let offset = first & 0x3FFF, offsetUnits = first >> 14 & 1, isoInterval = UInt16(first >> 15 & 0xFFF), numBIS = UInt8(first >> 27)
        layer.add(f.offset, .u16(UInt16(offset)), "\(offset) (\(Int(offset) * (offsetUnits != 0 ? 300 : 30)) µs)", at: layer.range(at: start, count: 4))
        // Fields packed in a 32-bit word share its bytes.
        let word1 = layer.range(at: start, count: 4), word2 = layer.range(at: start + 4, count: 4)
        let word3 = layer.range(at: start + 8, count: 4), word4 = layer.range(at: start + 17, count: 4)
        layer.add(f.offsetUnits, .bool(offsetUnits != 0), offsetUnits != 0 ? "300 µs" : "30 µs", at: word1)
        layer.add(f.isoInterval, .u16(isoInterval), Units.milliseconds(isoInterval, 1.25), at: word1)
        layer.add(f.numBIS, .u8(numBIS), inDecimal: true, at: word1)
        layer.add(f.nse, .u8(UInt8(second & 0x1F)), inDecimal: true, at: word2)
        layer.add(f.bn, .u8(UInt8(second >> 5 & 0x7)), inDecimal: true, at: word2)
        layer.add(f.subInterval, .u32(second >> 8 & 0xF_FFFF), "\(second >> 8 & 0xF_FFFF) µs", at: word2)
        layer.add(f.pto, .u8(UInt8(second >> 28)), inDecimal: true, at: word2)
        layer.add(f.bisSpacing, .u32(third & 0xF_FFFF), "\(third & 0xF_FFFF) µs", at: word3)
        layer.add(f.irc, .u8(UInt8(third >> 20 & 0xF)), inDecimal: true, at: word3)
        layer.add(f.maxPDU, .u8(UInt8(third >> 24)), inDecimal: true, at: word3)
        layer.add(f.seedAccessAddress, .u32(seed), at: layer.range(at: start + 13, count: 4))
        layer.add(f.sduInterval, .u32(fourth & 0xF_FFFF), "\(fourth & 0xF_FFFF) µs", at: word4)
        layer.add(f.maxSDU, .u16(UInt16(fourth >> 20)), inDecimal: true, at: word4)
        layer.add(f.baseCRCInit, .u16(baseCRCInit), at: layer.range(at: start + 21, count: 2))
        var map = mapPHY
        let phy = map[map.startIndex + 4] >> 5
        map[map.startIndex + 4] &= 0x1F
        layer.add(f.channelMap, .bytes(map), LinkLayerControl.describeChannelMap(map), at: layer.range(at: start + 23, count: 5))
        layer.add(f.phy, .u8(phy), named: SnifferHeaders.phyName(phy), at: layer.range(at: start + 27))
        var payloadCount: UInt64 = 0
        for byte in countFraming.reversed() { payloadCount = payloadCount << 8 | UInt64(byte) }
        let framed = payloadCount >> 39 != 0
        layer.add(f.payloadCount, .unsigned(payloadCount & 0x7F_FFFF_FFFF, width: 10), inDecimal: true, at: layer.range(at: start + 28, count: 5))
        layer.add(f.framing, .bool(framed), framed ? "Framed" : "Unframed", at: layer.range(at: start + 32))
        // Told by the BIGInfo's length: its GIV and GSKD, or nothing, are its bytes.
        layer.add(f.encrypted, .bool(encrypted), encrypted ? "Yes" : "No", at: encrypted ? layer.range(at: c.index, count: 24) : nil)
        if encrypted {
            try layer.read(f.giv, &c, bytes: 8)
            try layer.read(f.gskd, &c, bytes: 16)
        }
        layer.summary += " - BIG of \(numBIS) BIS every \(Units.milliseconds(isoInterval, 1.25))\(encrypted ? ", encrypted" : "")"
        if session.linkLayer.groups.count >= 4096 { session.linkLayer.groups = [:] }
        session.linkLayer.groups[seed] = LinkLayerState.BroadcastGroup(numBIS: numBIS, framed: framed, encrypted: encrypted)
    }
}

/// BIGInfo's fields (btlog's names: Wireshark 4.0 reads ACAD as bytes).
public enum BIGInfoFields {
    static let f = FieldDefinition.maker("btle.biginfo")
    public static let offset = f("big_offset", "BIG_Offset", .uint16, "When the group's next event starts, in offset units")
    public static let offsetUnits = f("big_offset_units", "BIG_Offset_Units", .bool, "0: 30 µs, 1: 300 µs")
    public static let isoInterval = f("iso_interval", "ISO_Interval", .uint16, "1.25 ms units")
    public static let numBIS = f("num_bis", "Num_BIS", .uint8, "Streams in the group")
    public static let nse = f("nse", "NSE", .uint8, "Subevents per BIS event")
    public static let bn = f("bn", "BN", .uint8, "Burst number")
    public static let subInterval = f("sub_interval", "Sub_Interval", .uint32, "Microseconds")
    public static let pto = f("pto", "PTO", .uint8, "Pre-transmission offset")
    public static let bisSpacing = f("bis_spacing", "BIS_Spacing", .uint32, "Microseconds")
    public static let irc = f("irc", "IRC", .uint8, "Immediate repetition count")
    public static let maxPDU = f("max_pdu", "Max_PDU", .uint8, "Octets")
    public static let seedAccessAddress = f("seed_access_address", "SeedAccessAddress", .uint32, "The access addresses of the group's BIS derive from it")
    public static let sduInterval = f("sdu_interval", "SDU_Interval", .uint32, "Microseconds")
    public static let maxSDU = f("max_sdu", "Max_SDU", .uint16, "Octets")
    public static let baseCRCInit = f("base_crc_init", "BaseCRCInit", .uint16, "")
    public static let channelMap = f("channel_map", "Channel Map", .bytes, "37 bits")
    public static let phy = f("phy", "PHY", .uint8, "0 LE 1M, 1 LE 2M, 2 LE Coded")
    public static let payloadCount = f("bis_payload_count", "bisPayloadCount", .uint64, "")
    public static let framing = f("framing", "Framing", .bool, "Framed ISO PDUs")
    public static let encrypted = f("encrypted", "Encrypted", .bool, "The group is encrypted (GIV and GSKD follow)")
    public static let giv = f("giv", "GIV", .bytes, "Group initialization vector")
    public static let gskd = f("gskd", "GSKD", .bytes, "Group session key diversifier")

    public static let all = [offset, offsetUnits, isoInterval, numBIS, nse, bn, subInterval, pto, bisSpacing, irc, maxPDU,
                             seedAccessAddress, sduInterval, maxSDU, baseCRCInit, channelMap, phy, payloadCount, framing, encrypted, giv, gskd]
}
