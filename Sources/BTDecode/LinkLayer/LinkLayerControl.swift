import BTCapture

/// LL Control PDUs (Core Vol 6, Part B, 2.4.2): every procedure's PDU by name with its
/// parameters; the ones that change the link (encryption, termination) change its state.
enum LinkLayerControl {
    static let opcodeNames: [UInt8: String] = [
        0x00: "LL_CONNECTION_UPDATE_IND", 0x01: "LL_CHANNEL_MAP_IND", 0x02: "LL_TERMINATE_IND", 0x03: "LL_ENC_REQ",
        0x04: "LL_ENC_RSP", 0x05: "LL_START_ENC_REQ", 0x06: "LL_START_ENC_RSP", 0x07: "LL_UNKNOWN_RSP",
        0x08: "LL_FEATURE_REQ", 0x09: "LL_FEATURE_RSP", 0x0A: "LL_PAUSE_ENC_REQ", 0x0B: "LL_PAUSE_ENC_RSP",
        0x0C: "LL_VERSION_IND", 0x0D: "LL_REJECT_IND", 0x0E: "LL_PERIPHERAL_FEATURE_REQ", 0x0F: "LL_CONNECTION_PARAM_REQ",
        0x10: "LL_CONNECTION_PARAM_RSP", 0x11: "LL_REJECT_EXT_IND", 0x12: "LL_PING_REQ", 0x13: "LL_PING_RSP",
        0x14: "LL_LENGTH_REQ", 0x15: "LL_LENGTH_RSP", 0x16: "LL_PHY_REQ", 0x17: "LL_PHY_RSP", 0x18: "LL_PHY_UPDATE_IND",
        0x19: "LL_MIN_USED_CHANNELS_IND", 0x1A: "LL_CTE_REQ", 0x1B: "LL_CTE_RSP", 0x1C: "LL_PERIODIC_SYNC_IND",
        0x1D: "LL_CLOCK_ACCURACY_REQ", 0x1E: "LL_CLOCK_ACCURACY_RSP", 0x1F: "LL_CIS_REQ", 0x20: "LL_CIS_RSP",
        0x21: "LL_CIS_IND", 0x22: "LL_CIS_TERMINATE_IND", 0x23: "LL_POWER_CONTROL_REQ", 0x24: "LL_POWER_CONTROL_RSP",
        0x25: "LL_POWER_CHANGE_IND", 0x26: "LL_SUBRATE_REQ", 0x27: "LL_SUBRATE_IND", 0x28: "LL_CHANNEL_REPORTING_IND",
        0x29: "LL_CHANNEL_STATUS_IND",
    ]

    /// LE feature bits (Core Vol 6, Part B, 4.6).
    static let featureNames = [
        "LE Encryption", "Connection Parameters Request Procedure", "Extended Reject Indication",
        "Peripheral-initiated Features Exchange", "LE Ping", "LE Data Packet Length Extension", "LL Privacy",
        "Extended Scanner Filter Policies", "LE 2M PHY", "Stable Modulation Index - Transmitter",
        "Stable Modulation Index - Receiver", "LE Coded PHY", "LE Extended Advertising", "LE Periodic Advertising",
        "Channel Selection Algorithm #2", "LE Power Class 1", "Minimum Number of Used Channels Procedure",
        "Connection CTE Request", "Connection CTE Response", "Connectionless CTE Transmitter", "Connectionless CTE Receiver",
        "Antenna Switching During CTE Transmission (AoD)", "Antenna Switching During CTE Reception (AoA)",
        "Receiving Constant Tone Extensions", "Periodic Advertising Sync Transfer - Sender",
        "Periodic Advertising Sync Transfer - Recipient", "Sleep Clock Accuracy Updates", "Remote Public Key Validation",
        "Connected Isochronous Stream - Central", "Connected Isochronous Stream - Peripheral", "Isochronous Broadcaster",
        "Synchronized Receiver", "Connected Isochronous Stream (Host Support)", "LE Power Control Request",
        "LE Power Control Request", "LE Path Loss Monitoring", "Periodic Advertising ADI support", "Connection Subrating",
        "Connection Subrating (Host Support)", "Channel Classification",
    ]

    static let scaNames = ["251-500 ppm", "151-250 ppm", "101-150 ppm", "76-100 ppm", "51-75 ppm", "31-50 ppm", "21-30 ppm", "0-20 ppm"]
    static func scaName(_ code: UInt8) -> String { scaNames[safe: Int(code)] ?? "Reserved" }

    static func usedChannels(_ map: ArraySlice<UInt8>) -> Int {
        var count = 0
        for (i, byte) in map.enumerated() { count += (i == 4 ? byte & 0x1F : byte).nonzeroBitCount }
        return count
    }

    static func describeChannelMap(_ map: ArraySlice<UInt8>) -> String {
        let used = usedChannels(map)
        return used == 37 ? "All 37 data channels" : "\(used) of 37 data channels"
    }

    static func phyBits(_ bits: UInt8) -> String {
        var names: [String] = []
        if bits & 1 != 0 { names.append("LE 1M") }
        if bits & 2 != 0 { names.append("LE 2M") }
        if bits & 4 != 0 { names.append("LE Coded") }
        return names.isEmpty ? "None" : names.joined(separator: ", ")
    }

    /// `inFrame`: the cursor reads the frame, not a decrypted payload: only then are the
    /// bytes the fields are read from the layer's own, so only then do they keep their ranges.
    static func decode(_ c: inout ByteCursor, sent: Bool, inFrame: Bool = true, connection: inout LinkLayerState.Connection,
                       link: Session.LinkKey, into layer: inout Layer, session: inout Session) throws {
        let firstField = layer.fields.count
        defer { if !inFrame { layer.forgetRanges(from: firstField) } }
        let opcode = try layer.read(LinkLayerFields.controlOpcode, &c, as: UInt8.self, named: { opcodeNames[$0] ?? "Unknown Control Opcode \(Hex.u8($0))" })
        let name = opcodeNames[opcode] ?? "Unknown Control Opcode \(Hex.u8(opcode))"
        layer.summary += "\(name)"
        func units(_ field: FieldDefinition, _ unit: Double) throws -> UInt16 {
            try layer.read(field, &c, as: UInt16.self, display: { Units.milliseconds($0, unit) })
        }
        @discardableResult func decimal<T: FieldReadable>(_ field: FieldDefinition, as type: T.Type) throws -> T { try layer.read(field, &c, inDecimal: true) }
        func phys(_ field: FieldDefinition, unchangedWhenZero: Bool = false) throws -> UInt8 {
            try layer.read(field, &c, as: UInt8.self, display: { unchangedWhenZero && $0 == 0 ? "Unchanged" : phyBits($0) })
        }
        /// Power control's delta and transmit power, as its three PDUs carry them.
        func power() throws {
            let delta = try layer.read(LinkLayerFields.powerDelta, &c, as: Int8.self, display: { "\($0) dB" })
            let power = try layer.read(LinkLayerFields.powerTx, &c, as: Int8.self, display: { "\($0) dBm" })
            layer.summary += " - delta \(delta) dB, TX power \(power) dBm"
        }
        func error() throws -> UInt8 {
            let code = try layer.read(LinkLayerFields.errorCode, &c, as: UInt8.self, named: { HCIErrorNames.name($0) })
            layer.summary += " - \(HCIErrorNames.name(code)) (\(hex: code))"
            return code
        }
        switch opcode {
        case 0x00:
            _ = try layer.read(LinkLayerFields.windowSizeUpdate, &c, as: UInt8.self, display: { Units.milliseconds(UInt16($0), 1.25) })
            _ = try units(LinkLayerFields.windowOffsetUpdate, 1.25)
            let interval = try units(LinkLayerFields.intervalUpdate, 1.25)
            let latency = try decimal(LinkLayerFields.latencyUpdate, as: UInt16.self)
            let timeout = try units(LinkLayerFields.timeoutUpdate, 10)
            let instant = try decimal(LinkLayerFields.instant, as: UInt16.self)
            layer.summary += " - Interval \(Units.milliseconds(interval, 1.25)), latency \(latency), timeout \(Units.milliseconds(timeout, 10)) at event \(instant)"
        case 0x01:
            let map = try layer.read(LinkLayerFields.channelMapUpdate, &c, bytes: 5, display: { describeChannelMap($0) })
            let instant = try decimal(LinkLayerFields.instant, as: UInt16.self)
            layer.summary += " - \(describeChannelMap(map)) at event \(instant)"
            if usedChannels(map) < 2 { layer.addIssue(.warning, "The channel map uses fewer than 2 data channels") }
        case 0x02:
            let code = try error()
            if let severity = HCIErrorNames.severity(ofDisconnectReason: code) {
                layer.addIssue(severity, "Link terminated: \(HCIErrorNames.name(code)) (\(Hex.u8(code)))")
            }
            session.closeLink(link, into: &layer)
            connection.encrypted = false
        case 0x03:
            let raw = Array(c.bytes[c.index...].prefix(22))
            _ = try layer.read(LinkLayerFields.randomNumber, &c, as: UInt64.self)
            let ediv = try layer.read(LinkLayerFields.ediv, &c, as: UInt16.self)
            _ = try layer.read(LinkLayerFields.skdC, &c, as: UInt64.self)
            _ = try layer.read(LinkLayerFields.ivC, &c, as: UInt32.self)
            connection.exchange = LinkLayerEncryption.Exchange(rand: Array(raw[0 ..< 8]), ediv: ediv, skdC: Array(raw[10 ..< 18]), ivC: Array(raw[18 ..< 22]))
            layer.summary += " - EDIV \(hex: ediv)"
        case 0x04:
            let raw = Array(c.bytes[c.index...].prefix(12))
            _ = try layer.read(LinkLayerFields.skdP, &c, as: UInt64.self)
            _ = try layer.read(LinkLayerFields.ivP, &c, as: UInt32.self)
            connection.exchange.skdP = Array(raw[0 ..< 8])
            connection.exchange.ivP = Array(raw[8 ..< 12])
        case 0x05:
            // Sent by the peripheral in the clear; everything after it is encrypted, the
            // central's LL_START_ENC_RSP first, each side counting its packets from 0.
            connection.encrypted = true
            connection.counters = SidePair(0, 0)
            connection.cipher = nil
            connection.keySource = nil
            connection.keyAttempts = 0
            connection.candidates = []
        case 0x07:
            let type = try layer.read(LinkLayerFields.unknownType, &c, as: UInt8.self, named: { opcodeNames[$0] ?? "Unknown" })
            layer.summary += " - \(opcodeNames[type] ?? Hex.u8(type))"
            layer.addIssue(.warning, "The peer does not know \(opcodeNames[type] ?? Hex.u8(type))")
        case 0x08, 0x09, 0x0E:
            let (features, featuresAt) = try layer.reading(&c) { try $0.u64() }
            layer.add(LinkLayerFields.featureSet, .unsigned(features, width: 16), at: featuresAt)
            var count = 0
            for bit in 0 ..< 64 where features & (1 << UInt64(bit)) != 0 {
                count += 1
                // Each feature is a bit of the set: its octet is its bytes.
                layer.add(LinkLayerFields.feature, .text(featureNames[safe: bit] ?? "Bit \(bit)"), at: featuresAt.dropFirst(bit / 8).prefix(1))
            }
            layer.summary += " - \(count) features"
        case 0x0C:
            let version = try layer.read(LinkLayerFields.versionNumber, &c, as: UInt8.self, named: versionName)
            let company = try layer.read(LinkLayerFields.companyID, &c, as: UInt16.self, named: { AssignedNumbers.company($0) ?? "Unknown" })
            let subversion = try layer.read(LinkLayerFields.subversionNumber, &c, as: UInt16.self)
            layer.summary += " - \(versionName(version)) - \(AssignedNumbers.company(company) ?? "Unknown") - Subversion \(hex: subversion)"
        case 0x0D:
            let code = try error()
            layer.addIssue(.warning, "Rejected: \(HCIErrorNames.name(code)) (\(Hex.u8(code)))")
        case 0x0F, 0x10:
            let min = try units(LinkLayerFields.intervalMin, 1.25)
            let max = try units(LinkLayerFields.intervalMax, 1.25)
            let latency = try decimal(LinkLayerFields.latencyUpdate, as: UInt16.self)
            let timeout = try units(LinkLayerFields.timeoutUpdate, 10)
            _ = try decimal(LinkLayerFields.preferredPeriodicity, as: UInt8.self)
            _ = try decimal(LinkLayerFields.referenceEventCount, as: UInt16.self)
            for _ in 0 ..< 6 {
                _ = try layer.read(LinkLayerFields.offsets, &c, as: UInt16.self, display: { $0 == 0xFFFF ? "None" : Units.milliseconds($0, 1.25) })
            }
            layer.summary += " - Interval \(Units.milliseconds(min, 1.25))-\(Units.milliseconds(max, 1.25)), latency \(latency), timeout \(Units.milliseconds(timeout, 10))"
        case 0x11:
            let rejected = try layer.read(LinkLayerFields.rejectOpcode, &c, as: UInt8.self, named: { opcodeNames[$0] ?? "Unknown" })
            layer.summary += " - \(opcodeNames[rejected] ?? Hex.u8(rejected))"
            let code = try error()
            layer.addIssue(.warning, "\(opcodeNames[rejected] ?? Hex.u8(rejected)) rejected: \(HCIErrorNames.name(code)) (\(Hex.u8(code)))")
        case 0x14, 0x15:
            let rxOctets = try decimal(LinkLayerFields.maxRxOctets, as: UInt16.self)
            let rxTime = try layer.read(LinkLayerFields.maxRxTime, &c, as: UInt16.self, display: { "\($0) µs" })
            let txOctets = try decimal(LinkLayerFields.maxTxOctets, as: UInt16.self)
            let txTime = try layer.read(LinkLayerFields.maxTxTime, &c, as: UInt16.self, display: { "\($0) µs" })
            layer.summary += " - RX \(rxOctets) bytes \(rxTime) µs, TX \(txOctets) bytes \(txTime) µs"
        case 0x16, 0x17:
            let tx = try phys(LinkLayerFields.txPHYs), rx = try phys(LinkLayerFields.rxPHYs)
            layer.summary += " - TX \(phyBits(tx)), RX \(phyBits(rx))"
        case 0x18:
            let cToP = try phys(LinkLayerFields.phyCToP, unchangedWhenZero: true)
            let pToC = try phys(LinkLayerFields.phyPToC, unchangedWhenZero: true)
            if cToP == 0 && pToC == 0 {
                // Neither PHY changes: the procedure ends here and the instant is reserved.
                try c.skip(2)
                layer.summary += " - no change"
            } else {
                let instant = try decimal(LinkLayerFields.instant, as: UInt16.self)
                layer.summary += " - C→P \(cToP == 0 ? "unchanged" : phyBits(cToP)), P→C \(pToC == 0 ? "unchanged" : phyBits(pToC)) at event \(instant)"
            }
        case 0x19:
            let phys = try phys(LinkLayerFields.phys)
            let minimum = try decimal(LinkLayerFields.minUsedChannels, as: UInt8.self)
            layer.summary += " - \(minimum) channels on \(phyBits(phys))"
        case 0x1D, 0x1E:
            let sca = try layer.read(LinkLayerFields.controlSCA, &c, as: UInt8.self, display: { scaName($0) })
            layer.summary += " - \(scaName(sca))"
        case 0x1F:
            connection.pendingCIS = try decodeCISRequest(&c, into: &layer)
        case 0x20:
            try layer.readMicroseconds(LinkLayerFields.cisOffsetMin, &c)
            try layer.readMicroseconds(LinkLayerFields.cisOffsetMax, &c)
            _ = try decimal(LinkLayerFields.connEventCount, as: UInt16.self)
        case 0x21:
            let address = try layer.read(LinkLayerFields.cisAccessAddress, &c, as: UInt32.self)
            try layer.readMicroseconds(LinkLayerFields.cisOffset, &c)
            try layer.readMicroseconds(LinkLayerFields.cigSyncDelay, &c)
            try layer.readMicroseconds(LinkLayerFields.cisSyncDelay, &c)
            _ = try decimal(LinkLayerFields.connEventCount, as: UInt16.self)
            layer.summary += " - Access Address \(hex: address)"
            // The stream's packets come on this access address from here on.
            var stream = LinkLayerState.IsochronousStream(handle: session.linkLayer.streams[address]?.handle ?? session.linkLayer.takeHandle(),
                                                          aclHandle: connection.handle)
            stream.cigID = connection.pendingCIS?.cig
            stream.cisID = connection.pendingCIS?.cis
            stream.central = connection.central
            stream.peripheral = connection.peripheral
            if session.linkLayer.streams.count >= 4096 { session.linkLayer.streams = [:] }
            session.linkLayer.streams[address] = stream
        case 0x22:
            let cig = try decimal(LinkLayerFields.cigID, as: UInt8.self), cis = try decimal(LinkLayerFields.cisID, as: UInt8.self)
            layer.summary += " - CIG \(cig) CIS \(cis)"
            _ = try error()
        case 0x23:
            try layer.read(LinkLayerFields.powerPHY, &c, as: UInt8.self)
            try power()
        case 0x24:
            try layer.read(LinkLayerFields.powerFlags, &c, as: UInt8.self)
            try power()
            try layer.read(LinkLayerFields.acceptableReduction, &c, as: UInt8.self, display: { $0 == 0xFF ? "Not available" : "\($0) dB" })
        case 0x25:
            try layer.read(LinkLayerFields.powerPHY, &c, as: UInt8.self)
            try layer.read(LinkLayerFields.powerFlags, &c, as: UInt8.self)
            try power()
        case 0x26:
            let minimum = try decimal(LinkLayerFields.subrateFactorMin, as: UInt16.self)
            let maximum = try decimal(LinkLayerFields.subrateFactorMax, as: UInt16.self)
            _ = try decimal(LinkLayerFields.latencyUpdate, as: UInt16.self)
            _ = try decimal(LinkLayerFields.continuationNumber, as: UInt16.self)
            _ = try units(LinkLayerFields.timeoutUpdate, 10)
            layer.summary += " - factor \(minimum)-\(maximum)"
        case 0x27:
            let factor = try decimal(LinkLayerFields.subrateFactor, as: UInt16.self)
            let base = try decimal(LinkLayerFields.subrateBaseEvent, as: UInt16.self)
            _ = try decimal(LinkLayerFields.latencyUpdate, as: UInt16.self)
            _ = try decimal(LinkLayerFields.continuationNumber, as: UInt16.self)
            _ = try units(LinkLayerFields.timeoutUpdate, 10)
            layer.summary += " - factor \(factor) from event \(base)"
        case 0x1A:
            let (cte, cteAt) = try layer.reading(&c) { try $0.u8() }
            let types = ["AoA", "AoD, 1 µs slots", "AoD, 2 µs slots", "Reserved"]
            layer.addBits(LinkLayerFields.cteMinLength, .u8(cte & 0x1F), "\(Int(cte & 0x1F) * 8) µs", of: c, width: 1)
            layer.add(LinkLayerFields.cteType, .u8(cte >> 6), named: types[Int(cte >> 6)], at: cteAt)
            layer.summary += " - \(types[Int(cte >> 6)]), at least \(Int(cte & 0x1F) * 8) µs"
        case 0x1C:
            try layer.read(LinkLayerFields.syncID, &c, as: UInt16.self)
            let sync = try SyncInfo.read(&c)
            sync.add(to: &layer, names: LinkLayerFields.controlSyncInfo)
            _ = try decimal(LinkLayerFields.syncConnEventCount, as: UInt16.self)
            _ = try decimal(LinkLayerFields.syncLastPAEventCounter, as: UInt16.self)
            let (info, infoAt) = try layer.reading(&c) { try $0.u8() }
            layer.add(LinkLayerFields.syncSID, .u8(info & 0x0F), inDecimal: true, at: infoAt)
            layer.addBits(LinkLayerFields.syncAType, .bool(info & 0x10 != 0), info & 0x10 != 0 ? "Random" : "Public", of: c, width: 1)
            layer.addBits(LinkLayerFields.syncSCA, .u8(info >> 5), scaName(info >> 5), of: c, width: 1)
            _ = try phys(LinkLayerFields.phys)
            let advertiser = try layer.read(LinkLayerFields.syncAdvA, &c, as: BDAddr.self)
            _ = try decimal(LinkLayerFields.syncSyncConnEventCount, as: UInt16.self)
            layer.summary += " - \(advertiser) SID \(info & 0x0F) every \(Units.milliseconds(sync.interval, 1.25))"
            sync.register(advertiser: advertiser, sid: info & 0x0F, session: &session)
        case 0x28:
            let (enable, enableRange) = try layer.reading(&c) { try $0.u8() }
            layer.add(LinkLayerFields.reportingEnable, .bool(enable != 0), enable != 0 ? "On" : "Off", at: enableRange)
            try layer.read(LinkLayerFields.reportingMinSpacing, &c, as: UInt8.self, display: { "\(Int($0) * 200) ms" })
            try layer.read(LinkLayerFields.reportingMaxDelay, &c, as: UInt8.self, display: { "\(Int($0) * 200) ms" })
            layer.summary += enable != 0 ? " - on" : " - off"
        case 0x29:
            let classification = try layer.read(LinkLayerFields.channelClassification, &c, bytes: 10, display: { "\(badChannels($0)) of 37 channels bad" })
            layer.summary += " - \(badChannels(classification)) channels bad"
        case 0x06, 0x0A, 0x0B, 0x12, 0x13, 0x1B:
            if opcode == 0x0A || opcode == 0x0B { connection.encrypted = false }
        default:
            if opcodeNames[opcode] == nil { layer.addIssue(.warning, "Unknown LL Control opcode \(Hex.u8(opcode))") }
            if !c.isAtEnd { try layer.read(LinkLayerFields.controlData, &c, bytes: c.remaining) }
        }
        if !c.isAtEnd {
            let extra = c.remaining
            try layer.read(LinkLayerFields.controlData, &c, bytes: extra)
            layer.addIssue(.warning, "\(name) has \(extra) bytes after its parameters")
        }
    }

    static func versionName(_ version: UInt8) -> String {
        HCIValueNames.coreVersion(UInt64(version)) ?? "Reserved"
    }

    /// Channels a channel classification (2 bits each) says are bad.
    static func badChannels(_ classification: ArraySlice<UInt8>) -> Int {
        var bad = 0
        for channel in 0 ..< 37 where classification[classification.startIndex + channel / 4] >> UInt8(2 * (channel % 4)) & 3 == 3 { bad += 1 }
        return bad
    }

    /// LL_CIS_REQ: the stream's group and number, both directions' PHY, SDU and PDU sizes and
    /// intervals, subevents, burst numbers, flush timeouts, the ISO interval and offsets.
    static func decodeCISRequest(_ c: inout ByteCursor, into layer: inout Layer) throws -> (cig: UInt8, cis: UInt8) {
        @discardableResult func decimal<T: FieldReadable>(_ field: FieldDefinition, as type: T.Type) throws -> T { try layer.read(field, &c, inDecimal: true) }
        let cig = try decimal(LinkLayerFields.cigID, as: UInt8.self), cis = try decimal(LinkLayerFields.cisID, as: UInt8.self)
        try layer.read(LinkLayerFields.phyCToP, &c, as: UInt8.self, display: { phyBits($0) })
        try layer.read(LinkLayerFields.phyPToC, &c, as: UInt8.self, display: { phyBits($0) })
        let (sduCToP, sduCToPRange) = try layer.reading(&c) { try $0.u16() }
        layer.add(LinkLayerFields.maxSDUCToP, .u16(sduCToP & 0x0FFF), inDecimal: true, at: sduCToPRange)
        layer.add(LinkLayerFields.framed, .bool(sduCToP & 0x8000 != 0), at: sduCToPRange)
        let (sduPToC, sduPToCRange) = try layer.reading(&c) { try $0.u16() }
        layer.add(LinkLayerFields.maxSDUPToC, .u16(sduPToC & 0x0FFF), inDecimal: true, at: sduPToCRange)
        try layer.readMicroseconds(LinkLayerFields.sduIntervalCToP, &c, mask: 0xF_FFFF)
        try layer.readMicroseconds(LinkLayerFields.sduIntervalPToC, &c, mask: 0xF_FFFF)
        try decimal(LinkLayerFields.maxPDUCToP, as: UInt16.self)
        try decimal(LinkLayerFields.maxPDUPToC, as: UInt16.self)
        try decimal(LinkLayerFields.nse, as: UInt8.self)
        try layer.readMicroseconds(LinkLayerFields.subInterval, &c)
        let (bn, bnAt) = try layer.reading(&c) { try $0.u8() }
        layer.add(LinkLayerFields.bnCToP, .u8(bn & 0x0F), inDecimal: true, at: bnAt)
        layer.add(LinkLayerFields.bnPToC, .u8(bn >> 4), inDecimal: true, at: bnAt)
        try decimal(LinkLayerFields.ftCToP, as: UInt8.self)
        try decimal(LinkLayerFields.ftPToC, as: UInt8.self)
        let isoInterval = try layer.read(LinkLayerFields.isoInterval, &c, as: UInt16.self, display: { Units.milliseconds($0, 1.25) })
        try layer.readMicroseconds(LinkLayerFields.cisOffsetMin, &c)
        try layer.readMicroseconds(LinkLayerFields.cisOffsetMax, &c)
        try decimal(LinkLayerFields.connEventCount, as: UInt16.self)
        layer.summary += " - CIG \(cig) CIS \(cis) - ISO interval \(Units.milliseconds(isoInterval, 1.25))"
        return (cig, cis)
    }
}

extension Layer {
    /// A 24-bit count of microseconds (CIS offsets and sync delays; SDU intervals masked to
    /// their 20 bits), with its bytes.
    @discardableResult
    fileprivate mutating func readMicroseconds(_ field: FieldDefinition, _ c: inout ByteCursor, mask: UInt32 = 0xFF_FFFF) throws -> UInt32 {
        let (value, range) = try reading(&c) { try $0.u24() & mask }
        add(field, .unsigned(UInt64(value), width: 0), "\(value) µs", at: range)
        return value
    }
}
