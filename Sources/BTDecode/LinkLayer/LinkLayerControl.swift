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

    /// `inFrame`: the cursor reads the frame (not a decrypted payload), so fields get ranges.
    static func decode(_ c: inout ByteCursor, sent: Bool, inFrame: Bool = true, connection: inout LinkLayerState.Connection,
                       link: Session.LinkKey, into layer: inout Layer, session: inout Session) throws {
        let opcode = try c.u8()
        let name = opcodeNames[opcode] ?? "Unknown Control Opcode \(Hex.u8(opcode))"
        layer.add(LinkLayerFields.controlOpcode, .u8(opcode), named: name, at: inFrame ? layer.range(at: c.index - 1) : nil)
        layer.summary += "\(name)"
        func units(_ field: FieldDefinition, _ value: UInt16, _ unit: Double) {
            layer.add(field, .u16(value), Units.milliseconds(value, unit))
        }
        /// Power control's delta and transmit power, as its three PDUs carry them.
        func power() throws {
            let delta = try c.i8(), power = try c.i8()
            layer.add(LinkLayerFields.powerDelta, .signed(Int64(delta)), "\(delta) dB")
            layer.add(LinkLayerFields.powerTx, .signed(Int64(power)), "\(power) dBm")
            layer.summary += " - delta \(delta) dB, TX power \(power) dBm"
        }
        func error(_ code: UInt8) {
            layer.add(LinkLayerFields.errorCode, .u8(code), named: HCIErrorNames.name(code))
            layer.summary += " - \(HCIErrorNames.name(code)) (\(hex: code))"
        }
        switch opcode {
        case 0x00:
            let size = try c.u8(), offset = try c.u16(), interval = try c.u16(), latency = try c.u16(), timeout = try c.u16(), instant = try c.u16()
            layer.add(LinkLayerFields.windowSizeUpdate, .u8(size), Units.milliseconds(UInt16(size), 1.25))
            units(LinkLayerFields.windowOffsetUpdate, offset, 1.25)
            units(LinkLayerFields.intervalUpdate, interval, 1.25)
            layer.add(LinkLayerFields.latencyUpdate, .u16(latency), inDecimal: true)
            units(LinkLayerFields.timeoutUpdate, timeout, 10)
            layer.add(LinkLayerFields.instant, .u16(instant), inDecimal: true)
            layer.summary += " - Interval \(Units.milliseconds(interval, 1.25)), latency \(latency), timeout \(Units.milliseconds(timeout, 10)) at event \(instant)"
        case 0x01:
            let map = try c.slice(5), instant = try c.u16()
            layer.add(LinkLayerFields.channelMapUpdate, .bytes(map), describeChannelMap(map))
            layer.add(LinkLayerFields.instant, .u16(instant), inDecimal: true)
            layer.summary += " - \(describeChannelMap(map)) at event \(instant)"
            if usedChannels(map) < 2 { layer.addIssue(.warning, "The channel map uses fewer than 2 data channels") }
        case 0x02:
            let code = try c.u8()
            error(code)
            if let severity = HCIErrorNames.severity(ofDisconnectReason: code) {
                layer.addIssue(severity, "Link terminated: \(HCIErrorNames.name(code)) (\(Hex.u8(code)))")
            }
            session.closeLink(link, into: &layer)
            connection.encrypted = false
        case 0x03:
            let raw = Array(c.bytes[c.index...].prefix(22))
            let rand = try c.u64(), ediv = try c.u16(), skd = try c.u64(), iv = try c.u32()
            connection.exchange = LinkLayerEncryption.Exchange(rand: Array(raw[0 ..< 8]), ediv: ediv, skdC: Array(raw[10 ..< 18]), ivC: Array(raw[18 ..< 22]))
            layer.add(LinkLayerFields.randomNumber, .unsigned(rand, width: 16))
            layer.add(LinkLayerFields.ediv, .u16(ediv))
            layer.add(LinkLayerFields.skdC, .unsigned(skd, width: 16))
            layer.add(LinkLayerFields.ivC, .u32(iv))
            layer.summary += " - EDIV \(hex: ediv)"
        case 0x04:
            let raw = Array(c.bytes[c.index...].prefix(12))
            let skd = try c.u64(), iv = try c.u32()
            connection.exchange.skdP = Array(raw[0 ..< 8])
            connection.exchange.ivP = Array(raw[8 ..< 12])
            layer.add(LinkLayerFields.skdP, .unsigned(skd, width: 16))
            layer.add(LinkLayerFields.ivP, .u32(iv))
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
            let type = try c.u8()
            layer.add(LinkLayerFields.unknownType, .u8(type), named: opcodeNames[type] ?? "Unknown")
            layer.summary += " - \(opcodeNames[type] ?? Hex.u8(type))"
            layer.addIssue(.warning, "The peer does not know \(opcodeNames[type] ?? Hex.u8(type))")
        case 0x08, 0x09, 0x0E:
            let features = try c.u64()
            layer.add(LinkLayerFields.featureSet, .unsigned(features, width: 16))
            var count = 0
            for bit in 0 ..< 64 where features & (1 << UInt64(bit)) != 0 {
                count += 1
                layer.add(LinkLayerFields.feature, .text(featureNames[safe: bit] ?? "Bit \(bit)"))
            }
            layer.summary += " - \(count) features"
        case 0x0C:
            let version = try c.u8(), company = try c.u16(), subversion = try c.u16()
            let versionName = HCIValueNames.coreVersions[safe: Int(version)].map { "Bluetooth \($0)" } ?? "Reserved"
            let companyName = AssignedNumbers.company(company) ?? "Unknown"
            layer.add(LinkLayerFields.versionNumber, .u8(version), named: versionName)
            layer.add(LinkLayerFields.companyID, .u16(company), named: companyName)
            layer.add(LinkLayerFields.subversionNumber, .u16(subversion))
            layer.summary += " - \(versionName) - \(companyName) - Subversion \(hex: subversion)"
        case 0x0D:
            let code = try c.u8()
            error(code)
            layer.addIssue(.warning, "Rejected: \(HCIErrorNames.name(code)) (\(Hex.u8(code)))")
        case 0x0F, 0x10:
            let min = try c.u16(), max = try c.u16(), latency = try c.u16(), timeout = try c.u16()
            let periodicity = try c.u8(), reference = try c.u16()
            units(LinkLayerFields.intervalMin, min, 1.25)
            units(LinkLayerFields.intervalMax, max, 1.25)
            layer.add(LinkLayerFields.latencyUpdate, .u16(latency), inDecimal: true)
            units(LinkLayerFields.timeoutUpdate, timeout, 10)
            layer.add(LinkLayerFields.preferredPeriodicity, .u8(periodicity), inDecimal: true)
            layer.add(LinkLayerFields.referenceEventCount, .u16(reference), inDecimal: true)
            for _ in 0 ..< 6 {
                let offset = try c.u16()
                layer.add(LinkLayerFields.offsets, .u16(offset), offset == 0xFFFF ? "None" : Units.milliseconds(offset, 1.25))
            }
            layer.summary += " - Interval \(Units.milliseconds(min, 1.25))-\(Units.milliseconds(max, 1.25)), latency \(latency), timeout \(Units.milliseconds(timeout, 10))"
        case 0x11:
            let rejected = try c.u8(), code = try c.u8()
            layer.add(LinkLayerFields.rejectOpcode, .u8(rejected), named: opcodeNames[rejected] ?? "Unknown")
            layer.summary += " - \(opcodeNames[rejected] ?? Hex.u8(rejected))"
            error(code)
            layer.addIssue(.warning, "\(opcodeNames[rejected] ?? Hex.u8(rejected)) rejected: \(HCIErrorNames.name(code)) (\(Hex.u8(code)))")
        case 0x14, 0x15:
            let rxOctets = try c.u16(), rxTime = try c.u16(), txOctets = try c.u16(), txTime = try c.u16()
            layer.add(LinkLayerFields.maxRxOctets, .u16(rxOctets), inDecimal: true)
            layer.add(LinkLayerFields.maxRxTime, .u16(rxTime), "\(rxTime) µs")
            layer.add(LinkLayerFields.maxTxOctets, .u16(txOctets), inDecimal: true)
            layer.add(LinkLayerFields.maxTxTime, .u16(txTime), "\(txTime) µs")
            layer.summary += " - RX \(rxOctets) bytes \(rxTime) µs, TX \(txOctets) bytes \(txTime) µs"
        case 0x16, 0x17:
            let tx = try c.u8(), rx = try c.u8()
            layer.add(LinkLayerFields.txPHYs, .u8(tx), phyBits(tx))
            layer.add(LinkLayerFields.rxPHYs, .u8(rx), phyBits(rx))
            layer.summary += " - TX \(phyBits(tx)), RX \(phyBits(rx))"
        case 0x18:
            let cToP = try c.u8(), pToC = try c.u8(), instant = try c.u16()
            layer.add(LinkLayerFields.phyCToP, .u8(cToP), cToP == 0 ? "Unchanged" : phyBits(cToP))
            layer.add(LinkLayerFields.phyPToC, .u8(pToC), pToC == 0 ? "Unchanged" : phyBits(pToC))
            if cToP == 0 && pToC == 0 {
                // Neither PHY changes: the procedure ends here and the instant is reserved.
                layer.summary += " - no change"
            } else {
                layer.add(LinkLayerFields.instant, .u16(instant), inDecimal: true)
                layer.summary += " - C→P \(cToP == 0 ? "unchanged" : phyBits(cToP)), P→C \(pToC == 0 ? "unchanged" : phyBits(pToC)) at event \(instant)"
            }
        case 0x19:
            let phys = try c.u8(), minimum = try c.u8()
            layer.add(LinkLayerFields.phys, .u8(phys), phyBits(phys))
            layer.add(LinkLayerFields.minUsedChannels, .u8(minimum), inDecimal: true)
            layer.summary += " - \(minimum) channels on \(phyBits(phys))"
        case 0x1D, 0x1E:
            let sca = try c.u8()
            layer.add(LinkLayerFields.controlSCA, .u8(sca), scaName(sca))
            layer.summary += " - \(scaName(sca))"
        case 0x1F:
            connection.pendingCIS = try decodeCISRequest(&c, into: &layer)
        case 0x20:
            let minimum = try c.u24(), maximum = try c.u24(), event = try c.u16()
            layer.add(LinkLayerFields.cisOffsetMin, .unsigned(UInt64(minimum), width: 0), "\(minimum) µs")
            layer.add(LinkLayerFields.cisOffsetMax, .unsigned(UInt64(maximum), width: 0), "\(maximum) µs")
            layer.add(LinkLayerFields.connEventCount, .u16(event), inDecimal: true)
        case 0x21:
            let address = try c.u32(), offset = try c.u24(), cigDelay = try c.u24(), cisDelay = try c.u24(), event = try c.u16()
            layer.add(LinkLayerFields.cisAccessAddress, .u32(address))
            layer.add(LinkLayerFields.cisOffset, .unsigned(UInt64(offset), width: 0), "\(offset) µs")
            layer.add(LinkLayerFields.cigSyncDelay, .unsigned(UInt64(cigDelay), width: 0), "\(cigDelay) µs")
            layer.add(LinkLayerFields.cisSyncDelay, .unsigned(UInt64(cisDelay), width: 0), "\(cisDelay) µs")
            layer.add(LinkLayerFields.connEventCount, .u16(event), inDecimal: true)
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
            let cig = try c.u8(), cis = try c.u8(), code = try c.u8()
            layer.add(LinkLayerFields.cigID, .u8(cig), inDecimal: true)
            layer.add(LinkLayerFields.cisID, .u8(cis), inDecimal: true)
            layer.summary += " - CIG \(cig) CIS \(cis)"
            error(code)
        case 0x23:
            layer.add(LinkLayerFields.powerPHY, .u8(try c.u8()))
            try power()
        case 0x24:
            layer.add(LinkLayerFields.powerFlags, .u8(try c.u8()))
            try power()
            let reduction = try c.u8()
            layer.add(LinkLayerFields.acceptableReduction, .u8(reduction), reduction == 0xFF ? "Not available" : "\(reduction) dB")
        case 0x25:
            layer.add(LinkLayerFields.powerPHY, .u8(try c.u8()))
            layer.add(LinkLayerFields.powerFlags, .u8(try c.u8()))
            try power()
        case 0x26:
            let minimum = try c.u16(), maximum = try c.u16(), latency = try c.u16(), continuation = try c.u16(), timeout = try c.u16()
            layer.add(LinkLayerFields.subrateFactorMin, .u16(minimum), inDecimal: true)
            layer.add(LinkLayerFields.subrateFactorMax, .u16(maximum), inDecimal: true)
            layer.add(LinkLayerFields.latencyUpdate, .u16(latency), inDecimal: true)
            layer.add(LinkLayerFields.continuationNumber, .u16(continuation), inDecimal: true)
            units(LinkLayerFields.timeoutUpdate, timeout, 10)
            layer.summary += " - factor \(minimum)-\(maximum)"
        case 0x27:
            let factor = try c.u16(), base = try c.u16(), latency = try c.u16(), continuation = try c.u16(), timeout = try c.u16()
            layer.add(LinkLayerFields.subrateFactor, .u16(factor), inDecimal: true)
            layer.add(LinkLayerFields.subrateBaseEvent, .u16(base), inDecimal: true)
            layer.add(LinkLayerFields.latencyUpdate, .u16(latency), inDecimal: true)
            layer.add(LinkLayerFields.continuationNumber, .u16(continuation), inDecimal: true)
            units(LinkLayerFields.timeoutUpdate, timeout, 10)
            layer.summary += " - factor \(factor) from event \(base)"
        case 0x1A:
            let cte = try c.u8()
            let types = ["AoA", "AoD, 1 µs slots", "AoD, 2 µs slots", "Reserved"]
            layer.add(LinkLayerFields.cteMinLength, .u8(cte & 0x1F), "\(Int(cte & 0x1F) * 8) µs")
            layer.add(LinkLayerFields.cteType, .u8(cte >> 6), named: types[Int(cte >> 6)])
            layer.summary += " - \(types[Int(cte >> 6)]), at least \(Int(cte & 0x1F) * 8) µs"
        case 0x1C:
            let id = try c.u16()
            let sync = try SyncInfo.read(&c)
            let event = try c.u16(), lastPA = try c.u16(), info = try c.u8(), phy = try c.u8()
            let advertiser = try c.address(), syncEvent = try c.u16()
            layer.add(LinkLayerFields.syncID, .u16(id))
            sync.add(to: &layer, names: LinkLayerFields.controlSyncInfo)
            layer.add(LinkLayerFields.syncConnEventCount, .u16(event), inDecimal: true)
            layer.add(LinkLayerFields.syncLastPAEventCounter, .u16(lastPA), inDecimal: true)
            layer.add(LinkLayerFields.syncSID, .u8(info & 0x0F), inDecimal: true)
            layer.add(LinkLayerFields.syncAType, .bool(info & 0x10 != 0), info & 0x10 != 0 ? "Random" : "Public")
            layer.add(LinkLayerFields.syncSCA, .u8(info >> 5), scaName(info >> 5))
            layer.add(LinkLayerFields.phys, .u8(phy), phyBits(phy))
            layer.add(LinkLayerFields.syncAdvA, .address(advertiser))
            layer.add(LinkLayerFields.syncSyncConnEventCount, .u16(syncEvent), inDecimal: true)
            layer.summary += " - \(advertiser) SID \(info & 0x0F) every \(Units.milliseconds(sync.interval, 1.25))"
            sync.register(advertiser: advertiser, sid: info & 0x0F, session: &session)
        case 0x28:
            let enable = try c.u8(), spacing = try c.u8(), delay = try c.u8()
            layer.add(LinkLayerFields.reportingEnable, .bool(enable != 0), enable != 0 ? "On" : "Off")
            layer.add(LinkLayerFields.reportingMinSpacing, .u8(spacing), "\(Int(spacing) * 200) ms")
            layer.add(LinkLayerFields.reportingMaxDelay, .u8(delay), "\(Int(delay) * 200) ms")
            layer.summary += enable != 0 ? " - on" : " - off"
        case 0x29:
            let classification = try c.slice(10)
            var bad = 0
            for channel in 0 ..< 37 where classification[classification.startIndex + channel / 4] >> UInt8(2 * (channel % 4)) & 3 == 3 { bad += 1 }
            layer.add(LinkLayerFields.channelClassification, .bytes(classification), "\(bad) of 37 channels bad")
            layer.summary += " - \(bad) channels bad"
        case 0x06, 0x0A, 0x0B, 0x12, 0x13, 0x1B:
            if opcode == 0x0A || opcode == 0x0B { connection.encrypted = false }
        default:
            if opcodeNames[opcode] == nil { layer.addIssue(.warning, "Unknown LL Control opcode \(Hex.u8(opcode))") }
            if !c.isAtEnd { layer.add(LinkLayerFields.controlData, .bytes(c.rest())) }
        }
        if !c.isAtEnd {
            layer.add(LinkLayerFields.controlData, .bytes(c.rest()))
            layer.addIssue(.warning, "\(name) has \(c.remaining) bytes after its parameters")
        }
    }

    /// LL_CIS_REQ: the stream's group and number, both directions' PHY, SDU and PDU sizes and
    /// intervals, subevents, burst numbers, flush timeouts, the ISO interval and offsets.
    static func decodeCISRequest(_ c: inout ByteCursor, into layer: inout Layer) throws -> (cig: UInt8, cis: UInt8) {
        let cig = try c.u8(), cis = try c.u8(), phyCToP = try c.u8(), phyPToC = try c.u8()
        let sduCToP = try c.u16(), sduPToC = try c.u16()
        let intervalCToP = try c.u24(), intervalPToC = try c.u24()
        let pduCToP = try c.u16(), pduPToC = try c.u16()
        let nse = try c.u8(), subInterval = try c.u24(), bn = try c.u8(), ftCToP = try c.u8(), ftPToC = try c.u8()
        let isoInterval = try c.u16(), offsetMin = try c.u24(), offsetMax = try c.u24(), event = try c.u16()
        layer.add(LinkLayerFields.cigID, .u8(cig), inDecimal: true)
        layer.add(LinkLayerFields.cisID, .u8(cis), inDecimal: true)
        layer.add(LinkLayerFields.phyCToP, .u8(phyCToP), phyBits(phyCToP))
        layer.add(LinkLayerFields.phyPToC, .u8(phyPToC), phyBits(phyPToC))
        layer.add(LinkLayerFields.maxSDUCToP, .u16(sduCToP & 0x0FFF), inDecimal: true)
        layer.add(LinkLayerFields.framed, .bool(sduCToP & 0x8000 != 0))
        layer.add(LinkLayerFields.maxSDUPToC, .u16(sduPToC & 0x0FFF), inDecimal: true)
        layer.add(LinkLayerFields.sduIntervalCToP, .unsigned(UInt64(intervalCToP & 0xF_FFFF), width: 0), "\(intervalCToP & 0xF_FFFF) µs")
        layer.add(LinkLayerFields.sduIntervalPToC, .unsigned(UInt64(intervalPToC & 0xF_FFFF), width: 0), "\(intervalPToC & 0xF_FFFF) µs")
        layer.add(LinkLayerFields.maxPDUCToP, .u16(pduCToP), inDecimal: true)
        layer.add(LinkLayerFields.maxPDUPToC, .u16(pduPToC), inDecimal: true)
        layer.add(LinkLayerFields.nse, .u8(nse), inDecimal: true)
        layer.add(LinkLayerFields.subInterval, .unsigned(UInt64(subInterval), width: 0), "\(subInterval) µs")
        layer.add(LinkLayerFields.bnCToP, .u8(bn & 0x0F), inDecimal: true)
        layer.add(LinkLayerFields.bnPToC, .u8(bn >> 4), inDecimal: true)
        layer.add(LinkLayerFields.ftCToP, .u8(ftCToP), inDecimal: true)
        layer.add(LinkLayerFields.ftPToC, .u8(ftPToC), inDecimal: true)
        layer.add(LinkLayerFields.isoInterval, .u16(isoInterval), Units.milliseconds(isoInterval, 1.25))
        layer.add(LinkLayerFields.cisOffsetMin, .unsigned(UInt64(offsetMin), width: 0), "\(offsetMin) µs")
        layer.add(LinkLayerFields.cisOffsetMax, .unsigned(UInt64(offsetMax), width: 0), "\(offsetMax) µs")
        layer.add(LinkLayerFields.connEventCount, .u16(event), inDecimal: true)
        layer.summary += " - CIG \(cig) CIS \(cis) - ISO interval \(Units.milliseconds(isoInterval, 1.25))"
        return (cig, cis)
    }
}
