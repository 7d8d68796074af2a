import BTCapture

/// What a sniffer's header says about a packet it took from the air. Anything it does not say
/// is nil, and the link layer works it out (the CRC, the direction) where it can.
struct AirReception {
    /// LE channel index, 0-39.
    var channel: UInt8?
    var rssi: Int8?
    /// Central to peripheral is `.sent`, peripheral to central `.received`.
    var direction: Direction?
    /// Whether the sniffer found the CRC good; nil when it did not check.
    var crcValid: Bool?
    var micValid: Bool?
    /// The sniffer says the link is encrypted (nRF Sniffer) or decrypted the payload itself.
    var encrypted = false
    var decrypted = false
    /// 0 LE 1M, 1 LE 2M, 2 LE Coded.
    var phy: UInt8?
    /// The radio header says the packet belongs to a connected or broadcast isochronous stream.
    enum Isochronous { case connected, broadcast }
    var isochronous: Isochronous?
    /// The sniffer's own clock at the packet, in 100 ns units (Ubertooth's PPI field): what it
    /// measured on the air, unlike a host's arrival time.
    var clock: UInt32?
}

/// The headers sniffers put in front of the link-layer packet: Nordic's nRF Sniffer (link
/// type 272) and the LE radio header (link type 256), each decoded as a layer of its own.
enum SnifferHeaders {
    static let nordicDescriptor = ProtocolDescriptor(name: "nRF Sniffer", fields: SnifferHeaderFields.nordic, layers: [.nordicSniffer])
    static let radioDescriptor = ProtocolDescriptor(name: "LE Radio", fields: SnifferHeaderFields.radio, layers: [.leRadio])
    static let ppiDescriptor = ProtocolDescriptor(name: "PPI", fields: SnifferHeaderFields.ppi, layers: [.ppi])

    /// The header of an LE air capture's link type, as a layer of its own, and what it says
    /// (nothing for the bare link layer).
    static func decode(_ c: inout ByteCursor, type: AirLinkType, into packet: inout Packet) throws -> AirReception {
        switch type {
        case .leLL: return AirReception()
        case .leLLWithRadioHeader: return try decodeRadio(&c, into: &packet)
        case .nordicBLE: return try decodeNordic(&c, into: &packet)
        case .ppi: return try decodePPI(&c, into: &packet)
        case .bredrBB: throw DecodeError.malformed("a BR/EDR baseband packet is not an LE link-layer packet")
        }
    }

    /// PPI (link type 192): version, flags, header length, the data link after it, then fields
    /// of type and length; Ubertooth writes DLT_USER0 (147) for the LE link layer and its BTLE
    /// field (type 30006: version, channel, clock, RSSI maximum, minimum, average, count).
    static func decodePPI(_ c: inout ByteCursor, into packet: inout Packet) throws -> AirReception {
        var layer = packet.makeLayer(.ppi, over: c)
        defer { packet.append(taking: &layer) }
        let start = c.index
        let version = try c.u8(), flags = try c.u8(), length = try c.u16(), dlt = try c.u32()
        layer.add(SnifferHeaderFields.ppiVersion, .u8(version), inDecimal: true, at: layer.range(at: start))
        layer.add(SnifferHeaderFields.ppiFlags, .u8(flags), at: layer.range(at: start + 1))
        layer.add(SnifferHeaderFields.ppiLength, .u16(length), inDecimal: true, at: layer.range(at: start + 2, count: 2))
        layer.add(SnifferHeaderFields.ppiDLT, .u32(dlt), dlt == 147 ? "147 (DLT_USER0: Bluetooth LE link layer)" : "\(dlt)",
                  at: layer.range(at: start + 4, count: 4))
        guard Int(length) >= 8 else { throw DecodeError.malformed("PPI header length \(length) is shorter than the header's 8 bytes") }
        var fields = try c.cursor(Int(length) - 8)
        var reception = AirReception()
        layer.summary.set("DLT \(dlt)")
        while fields.remaining >= 4 {
            let type = try layer.read(SnifferHeaderFields.ppiFieldType, &fields, as: UInt16.self,
                                  named: { $0 == 30006 ? "Ubertooth BTLE" : "Unknown" })
            let size = try layer.read(SnifferHeaderFields.ppiFieldLength, &fields, as: UInt16.self, inDecimal: true)
            var data = try fields.cursor(Int(size))
            if type == 30006, data.remaining >= 12 {
                try data.skip(1)
                let channel = try layer.read(SnifferHeaderFields.ppiBTLEChannel, &data, as: UInt16.self,
                                             display: { $0 >= 2402 ? "\($0) MHz" : "RF channel \($0)" })
                try data.skip(1)
                let clock = try layer.read(SnifferHeaderFields.ppiBTLEClock, &data, as: UInt32.self, inDecimal: true)
                func readRSSI(_ definition: FieldDefinition) throws -> Int8 {
                    let (value, range) = try layer.reading(&data) { try $0.i8() }
                    layer.add(definition, .signed(Int64(value)), "\(value) dBm", at: range)
                    return value
                }
                _ = try readRSSI(SnifferHeaderFields.ppiBTLERSSIMax)
                _ = try readRSSI(SnifferHeaderFields.ppiBTLERSSIMin)
                let average = try readRSSI(SnifferHeaderFields.ppiBTLERSSIAvg)
                let count = try layer.read(SnifferHeaderFields.ppiBTLERSSICount, &data, as: UInt8.self, inDecimal: true)
                // The frequency in MHz, or an RF channel: either gives the channel index.
                let rf = channel >= 2402 ? (channel - 2402) / 2 : channel
                reception.channel = rf <= 39 ? channelIndex(rfChannel: UInt8(rf)) : nil
                reception.clock = clock
                // A count of 0: the sniffer took no RSSI samples, and its values mean nothing.
                if count > 0 { reception.rssi = average }
                if layer.keepsDisplays { layer.summary.set("Ubertooth, \(channel >= 2402 ? "\(channel) MHz" : "RF channel \(channel)"), \(average) dBm") }
            }
            // 32-bit aligned fields: skip the padding.
            if flags & 1 != 0, size % 4 != 0 { try fields.skip(min(fields.remaining, 4 - Int(size % 4))) }
        }
        guard dlt == 147 || dlt == 251 else {
            throw DecodeError.malformed("PPI carries data link \(dlt): btlog reads 147 (Ubertooth's LE link layer) and 251")
        }
        return reception
    }

    static let phyNames = ["LE 1M", "LE 2M", "LE Coded"]

    static func phyName(_ phy: UInt8) -> String { phyNames[safe: Int(phy)] ?? "Reserved" }

    /// The LE channel index of an RF channel (2402 + 2n MHz): advertising channels 37, 38 and 39
    /// sit at RF channels 0, 12 and 39, data channels fill the rest in order.
    static func channelIndex(rfChannel rf: UInt8) -> UInt8? {
        switch rf {
        case 0: return 37
        case 12: return 38
        case 39: return 39
        case 1 ... 11: return rf - 1
        case 13 ... 38: return rf - 2
        default: return nil
        }
    }

    /// nRF Sniffer for Bluetooth LE, protocol versions 2 and 3: board, a 6-byte header (payload
    /// length, protocol version, packet counter, packet ID), then the packet header (its length,
    /// flags, channel, RSSI, event counter, time) before the link-layer packet.
    static func decodeNordic(_ c: inout ByteCursor, into packet: inout Packet) throws -> AirReception {
        var layer = packet.makeLayer(.nordicSniffer, over: c)
        defer { packet.append(taking: &layer) }
        let start = c.index
        let board = try c.u8()
        layer.add(SnifferHeaderFields.boardID, .u8(board), inDecimal: true, at: layer.range(at: start))
        let payloadLength = try c.u16()
        let version = try c.u8()
        let counter = try c.u16()
        let id = try c.u8()
        layer.add(SnifferHeaderFields.payloadLength, .u16(payloadLength), inDecimal: true, at: layer.range(at: start + 1, count: 2))
        layer.add(SnifferHeaderFields.protocolVersion, .u8(version), inDecimal: true, at: layer.range(at: start + 3))
        layer.add(SnifferHeaderFields.packetCounter, .u16(counter), inDecimal: true, at: layer.range(at: start + 4, count: 2))
        layer.add(SnifferHeaderFields.packetID, .u8(id), named: id == 0x02 ? "Advertising PDU" : id == 0x06 ? "Packet" : "Unknown",
                  at: layer.range(at: start + 6))
        guard version == 2 || version == 3 else {
            layer.summary.set("Protocol version \(version)")
            throw DecodeError.malformed("nRF Sniffer protocol version \(version): btlog reads versions 2 and 3")
        }
        if Int(payloadLength) != c.remaining {
            layer.addIssue(.warning, "nRF Sniffer payload length \(payloadLength) but \(c.remaining) bytes follow the header")
        }
        let headerStart = c.index
        let packetLength = try c.u8()
        let flags = try c.u8()
        let channel = try c.u8()
        let rssiMagnitude = try c.u8()
        let eventCounter = try c.u16()
        let time = try c.u32()
        // Longer headers of later firmware: skip what this layout does not know.
        if packetLength > 10 { try c.skip(Int(packetLength) - 10) }
        var reception = AirReception()
        reception.channel = channel
        reception.rssi = Int8(truncatingIfNeeded: -Int(rssiMagnitude))
        reception.crcValid = flags & 0x01 != 0
        reception.encrypted = channel < 37 && flags & 0x04 != 0
        if reception.encrypted { reception.micValid = flags & 0x08 != 0 }
        reception.phy = flags >> 4 & 0x7
        layer.add(SnifferHeaderFields.packetLength, .u8(packetLength), inDecimal: true, at: layer.range(at: headerStart))
        layer.add(SnifferHeaderFields.flags, .u8(flags), at: layer.range(at: headerStart + 1))
        let flagsRange = layer.range(at: headerStart + 1)
        layer.add(SnifferHeaderFields.crcOK, .bool(flags & 0x01 != 0), flags & 0x01 != 0 ? "OK" : "Incorrect", at: flagsRange)
        // On advertising channels bits 1-3 say other things (the advertising PDU's own meanings,
        // an address the sniffer resolved): only a data PDU's are read as direction, encryption, MIC.
        if channel < 37 {
            layer.add(SnifferHeaderFields.direction, .bool(flags & 0x02 != 0), flags & 0x02 != 0 ? "Central → Peripheral" : "Peripheral → Central", at: flagsRange)
            layer.add(SnifferHeaderFields.encrypted, .bool(flags & 0x04 != 0), flags & 0x04 != 0 ? "Yes" : "No", at: flagsRange)
            layer.add(SnifferHeaderFields.micOK, .bool(flags & 0x08 != 0), flags & 0x08 != 0 ? "OK" : reception.encrypted ? "Incorrect" : "Not relevant", at: flagsRange)
        }
        layer.add(SnifferHeaderFields.phy, .u8(reception.phy!), named: phyName(reception.phy!), at: flagsRange)
        layer.add(SnifferHeaderFields.channel, .u8(channel), inDecimal: true, at: layer.range(at: headerStart + 2))
        layer.add(SnifferHeaderFields.rssi, .signed(Int64(reception.rssi!)), "\(reception.rssi!) dBm", at: layer.range(at: headerStart + 3))
        layer.add(SnifferHeaderFields.eventCounter, .u16(eventCounter), inDecimal: true, at: layer.range(at: headerStart + 4, count: 2))
        layer.add(version == 2 ? SnifferHeaderFields.deltaTime : SnifferHeaderFields.time, .u32(time), "\(time) µs",
                  at: layer.range(at: headerStart + 6, count: 4))
        if channel < 37 {
            // On data channels the flag says who sent it; on advertising channels it means
            // something else (the sniffer's own use), so it is not read there.
            reception.direction = flags & 0x02 != 0 ? .sent : .received
        }
        if layer.keepsDisplays {
            layer.summary.set("Channel \(channel), \(reception.rssi!) dBm, \(phyName(reception.phy!)), event \(eventCounter)\(flags & 0x01 != 0 ? "" : ", CRC bad")")
        }
        return reception
    }

    /// The LE radio header of link type 256: RF channel, signal and noise power, access address
    /// offenses, reference access address, and flags saying which of them are valid, whether the
    /// CRC and MIC were checked and passed, the PDU type and the PHY.
    static func decodeRadio(_ c: inout ByteCursor, into packet: inout Packet) throws -> AirReception {
        var layer = packet.makeLayer(.leRadio, over: c)
        defer { packet.append(taking: &layer) }
        let start = c.index
        let rf = try c.u8()
        let signal = try c.i8()
        let noise = try c.i8()
        let offenses = try c.u8()
        let reference = try c.u32()
        let flags = try c.u16()
        var reception = AirReception()
        reception.channel = channelIndex(rfChannel: rf)
        let frequency = 2402 + 2 * Int(rf)
        layer.add(SnifferHeaderFields.rfChannel, .u8(rf), "\(rf) (\(frequency) MHz\(reception.channel.map { ", channel index \($0)" } ?? ""))",
                  at: layer.range(at: start))
        if flags & 0x0002 != 0 {
            reception.rssi = signal
            layer.add(SnifferHeaderFields.signal, .signed(Int64(signal)), "\(signal) dBm", at: layer.range(at: start + 1))
        }
        if flags & 0x0004 != 0 { layer.add(SnifferHeaderFields.noise, .signed(Int64(noise)), "\(noise) dBm", at: layer.range(at: start + 2)) }
        if flags & 0x0020 != 0 { layer.add(SnifferHeaderFields.offenses, .u8(offenses), inDecimal: true, at: layer.range(at: start + 3)) }
        if flags & 0x0010 != 0 { layer.add(SnifferHeaderFields.referenceAccessAddress, .u32(reference), at: layer.range(at: start + 4, count: 4)) }
        let flagsRange = layer.range(at: start + 8, count: 2)
        layer.add(SnifferHeaderFields.rfFlags, .u16(flags), at: flagsRange)
        let pduType = flags >> 7 & 0x7
        let pduNames = ["Advertising or Data (direction unknown)", "Auxiliary Advertising", "Data, Central to Peripheral",
                        "Data, Peripheral to Central", "Connected Isochronous, Central to Peripheral",
                        "Connected Isochronous, Peripheral to Central", "Broadcast Isochronous", "Reserved"]
        layer.add(SnifferHeaderFields.pduType, .u16(pduType), named: pduNames[Int(pduType)], at: flagsRange)
        if flags & 0x0400 != 0 {
            reception.crcValid = flags & 0x0800 != 0
            layer.add(SnifferHeaderFields.crcChecked, .bool(true), "Yes", at: flagsRange)
            layer.add(SnifferHeaderFields.crcValid, .bool(flags & 0x0800 != 0), flags & 0x0800 != 0 ? "Yes" : "No", at: flagsRange)
        }
        if flags & 0x1000 != 0 {
            reception.micValid = flags & 0x2000 != 0
            layer.add(SnifferHeaderFields.micChecked, .bool(true), "Yes", at: flagsRange)
            layer.add(SnifferHeaderFields.micValid, .bool(flags & 0x2000 != 0), flags & 0x2000 != 0 ? "Yes" : "No", at: flagsRange)
        }
        if flags & 0x0008 != 0 {
            reception.decrypted = true
            layer.add(SnifferHeaderFields.decrypted, .bool(true), "Yes", at: flagsRange)
        }
        let phy = UInt8(flags >> 14)
        reception.phy = phy
        layer.add(SnifferHeaderFields.rfPHY, .u16(UInt16(phy)), named: phyName(phy), at: flagsRange)
        switch pduType {
        case 2, 4: reception.direction = .sent
        case 3, 5: reception.direction = .received
        default: break
        }
        switch pduType {
        case 4, 5: reception.isochronous = .connected
        case 6: reception.isochronous = .broadcast
        default: break
        }
        if flags & 0x0001 == 0 { layer.addIssue(.warning, "The radio header says the packet was not dewhitened") }
        if layer.keepsDisplays {
            var text = "RF channel \(rf) (\(frequency) MHz)"
            if let rssi = reception.rssi { text += ", \(rssi) dBm" }
            text += ", \(phyName(phy))"
            if reception.crcValid == false { text += ", CRC bad" }
            layer.summary.set("\(text)")
        }
        return reception
    }
}

/// The layers this decoder makes.
extension LayerKind {
    public static let ppi = LayerKind("PPI", protocol: "ppi")
    public static let nordicSniffer = LayerKind("nRF Sniffer", protocol: "nordic_ble")
    public static let leRadio = LayerKind("LE Radio", protocol: "btle_rf")
}
