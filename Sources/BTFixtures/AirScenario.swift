import BTCapture
import BTDecode

/// One packet as a sniffer takes it from the air: when, on which channel, how strong, who sent
/// it (nil on advertising channels), and the link-layer PDU with its access address.
public struct AirPacket {
    public var time: Int64
    public var channel: UInt8
    public var rssi: Int8
    public var centralToPeripheral: Bool?
    public var accessAddress: UInt32
    public var crcInit: UInt32
    /// Header and payload; the CRC is computed when the packet is written.
    public var pdu: [UInt8]
    public var eventCounter: UInt16 = 0
    /// Written with a CRC that does not match (and the sniffer's header saying so).
    public var damaged = false
    /// The sniffer's header says the link is encrypted (nRF Sniffer's flag).
    public var encrypted = false
    /// The sniffer has the link's key and authenticated the packet (nRF Sniffer's MIC flag); a
    /// sniffer without the key leaves the flag clear on every encrypted packet.
    public var snifferHasKey = true
    /// 0 LE 1M, 1 LE 2M, 2 LE Coded (then `codingIndicator` follows the access address in
    /// the captures whose header says the PHY).
    public var phy: UInt8 = 0
    public var codingIndicator: UInt8 = 0
    /// The radio header's PDU type, where it is not the data direction's (4/5 CIS, 6 BIS).
    public var radioPDUType: UInt16?

    /// Access address, PDU, then the CRC as sent: the LFSR of Core Vol 6, Part B, 3.1.1 (taps
    /// 1, 3, 4, 6, 9, 10) over the PDU's bits in air order; tshark checks it.
    public var linkLayerBytes: [UInt8] {
        let crc = airCheck(bits: airBits(pdu), initial: crcInit, width: 24, taps: [1, 3, 4, 6, 9, 10]) ^ (damaged ? 0x5A00 : 0)
        return le32(accessAddress) + pdu + [UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc >> 16)]
    }

    /// The link-layer packet as a capture that says the PHY holds it: LE Coded's coding
    /// indicator between the access address and the PDU (outside the CRC).
    var linkLayerBytesWithCodingIndicator: [UInt8] {
        let bytes = linkLayerBytes
        guard phy == 2 else { return bytes }
        return Array(bytes[0 ..< 4]) + [codingIndicator] + bytes[4...]
    }

    /// LINKTYPE_BLUETOOTH_LE_LL_WITH_PHDR's 10-byte header: RF channel, signal and noise power,
    /// offenses, reference access address, flags (dewhitened, signal, noise and reference
    /// valid, the PDU type with the direction, CRC checked and its verdict, PHY).
    public var radioHeader: [UInt8] {
        let rf: UInt8 = channel == 37 ? 0 : channel == 38 ? 12 : channel == 39 ? 39 : channel <= 10 ? channel + 1 : channel + 2
        var flags: UInt16 = 0x0001 | 0x0002 | 0x0004 | 0x0010 | 0x0400
        if !damaged { flags |= 0x0800 }
        if let radioPDUType { flags |= radioPDUType << 7 } else if let centralToPeripheral { flags |= (centralToPeripheral ? 2 : 3) << 7 }
        flags |= UInt16(phy) << 14
        return [rf, UInt8(bitPattern: rssi), UInt8(bitPattern: -95), 0] + le32(accessAddress) + le16(flags)
    }

    /// PPI as Ubertooth writes it: version 0, no flags, the header's length, DLT_USER0 (147),
    /// then its BTLE field (type 30006): version, frequency in MHz, clock, RSSI max/min/average/count.
    public var ppiHeader: [UInt8] {
        let rf: UInt16 = channel == 37 ? 0 : channel == 38 ? 12 : channel == 39 ? 39 : UInt16(channel <= 10 ? channel + 1 : channel + 2)
        let field: [UInt8] = [0] + le16(2402 + 2 * rf) + [0] + le32(UInt32(truncatingIfNeeded: time * 10))
            + [UInt8(bitPattern: rssi + 2), UInt8(bitPattern: rssi - 2), UInt8(bitPattern: rssi), 4]
        return [0, 0] + le16(UInt16(8 + 4 + field.count)) + le32(147) + le16(30006) + le16(UInt16(field.count)) + field
    }

    /// NORDIC_BLE, protocol version 3: board, payload length, version, counter, packet ID, then
    /// the packet header (length 10, flags, channel, RSSI magnitude, event counter, timestamp).
    public func nordicHeader(counter: UInt16, payloadLength: Int) -> [UInt8] {
        var flags: UInt8 = damaged ? 0 : 0x01
        if centralToPeripheral == true { flags |= 0x02 }
        if encrypted { flags |= 0x04 | (snifferHasKey ? 0x08 : 0) }
        flags |= phy << 4
        let id: UInt8 = accessAddress == 0x8E89_BED6 ? 0x02 : 0x06
        return [0x00] + le16(UInt16(10 + payloadLength)) + [0x03] + le16(counter) + [id]
            + [10, flags, channel, UInt8(-Int(rssi))] + le16(eventCounter) + le32(UInt32(truncatingIfNeeded: time % 4_000_000_000))
    }

    /// The record of this packet in a capture of `type`, as a Frame.
    public func frame(_ type: AirLinkType, number: Int) -> Frame {
        let ll = linkLayerBytes
        let bytes: [UInt8]
        switch type {
        case .leLL: bytes = ll
        case .leLLWithRadioHeader: bytes = radioHeader + linkLayerBytesWithCodingIndicator
        case .nordicBLE:
            let coded = linkLayerBytesWithCodingIndicator
            bytes = nordicHeader(counter: UInt16(truncatingIfNeeded: number), payloadLength: coded.count) + coded
        case .ppi: bytes = ppiHeader + ll
        case .bredrBB: preconditionFailure("an LE packet has no BR/EDR baseband record (BasebandScenario writes those)")
        }
        return Frame(number: number, timestamp: time, kind: .air(type), direction: .none, bytes: bytes)
    }
}

/// A sniffer's view of a phone finding a heart-rate sensor and connecting to it: advertising
/// on the three primary channels, active scanning, extended advertising, CONNECT_IND, the LL
/// control procedures a connection starts with, GATT discovery with a response split over two
/// link-layer fragments, a retransmission, a damaged packet, legacy pairing, and encryption.
public enum AirScenario {
    public static let sensor: [UInt8] = [0x5A, 0x4C, 0x3B, 0x2A, 0x19, 0xC8]     // C8:19:2A:3B:4C:5A, random static
    public static let phone: [UInt8] = [0x01, 0x32, 0x54, 0x76, 0x98, 0xF0]      // F0:98:76:54:32:01, public
    public static let beacon: [UInt8] = [0x66, 0x55, 0x44, 0x33, 0x22, 0xE1]     // E1:22:33:44:55:66, random
    public static let accessAddress: UInt32 = 0x50_654C_9A
    public static let crcInit: UInt32 = 0x3A_5B6C
    /// The second connection, after bonding.
    public static let reconnectAccessAddress: UInt32 = 0x6B_4E2F_13
    public static let reconnectCRCInit: UInt32 = 0x1C_2D3E
    /// The LTK the sensor distributes while pairing (most significant octet first).
    public static let sensorLTK: [UInt8] = [0x7A, 0x1F, 0x3C, 0x55, 0x90, 0x0B, 0xE2, 0x64, 0x18, 0xD7, 0x2B, 0x9E, 0x41, 0xC6, 0x03, 0xF8]
    public static let sensorEDIV: UInt16 = 0x5A3C
    public static let sensorRand: [UInt8] = [0x21, 0x43, 0x65, 0x87, 0xA9, 0xCB, 0xED, 0x0F]
    static let advertising: UInt32 = 0x8E89_BED6

    /// Both sides' sequence numbers, as the link layer keeps them (Core Vol 6, Part B, 4.5.9).
    struct Acknowledgement {
        var sn: [UInt8] = [0, 0], nesn: [UInt8] = [0, 0]
    }

    /// `passkey`: pair with passkey entry (the phone types what the sensor shows) instead of Just Works.
    public static func packets(start: Int64 = 1_700_000_000_000_000, passkey: UInt32? = nil) -> [AirPacket] {
        var out: [AirPacket] = []
        var clock = start
        func adv(_ channel: UInt8, _ pdu: [UInt8], after: Int64 = 400, rssi: Int8 = -58) {
            clock += after
            out.append(AirPacket(time: clock, channel: channel, rssi: rssi, centralToPeripheral: nil, accessAddress: advertising,
                                 crcInit: 0x55_5555, pdu: pdu))
        }
        func header(_ type: UInt8, _ payload: [UInt8], txAdd: Bool, rxAdd: Bool = false, chSel: Bool = false) -> [UInt8] {
            [type | (chSel ? 0x20 : 0) | (txAdd ? 0x40 : 0) | (rxAdd ? 0x80 : 0), UInt8(payload.count)] + payload
        }
        let advData: [UInt8] = [0x02, 0x01, 0x06, 0x03, 0x03, 0x0D, 0x18, 0x0A, 0x09] + Array("btlog Air".utf8)
        for (n, channel) in [37, 38, 39].enumerated() {
            adv(UInt8(channel), header(0x00, sensor + advData, txAdd: true, chSel: true), after: n == 0 ? 0 : 400)
        }
        // Active scanning on channel 37 of the next event.
        adv(37, header(0x00, sensor + advData, txAdd: true, chSel: true), after: 100_000)
        adv(37, header(0x03, phone + sensor, txAdd: false, rxAdd: true), after: 300, rssi: -41)
        adv(37, header(0x04, sensor + [0x05, 0xFF, 0x59, 0x00, 0x01, 0x02], txAdd: true), after: 250)
        // A beacon nearby, and an extended advertiser: ADV_EXT_IND pointing at AUX_ADV_IND on channel 9.
        adv(38, header(0x02, beacon + [0x02, 0x01, 0x04, 0x07, 0xFF, 0x4C, 0x00, 0x10, 0x02, 0x0B, 0x1C], txAdd: true), after: 3_000, rssi: -77)
        let adi = le16(0x1000 | 0x0123)
        adv(39, header(0x07, [0x06, 0x18] + adi + [0x09, 0x20, 0x00], txAdd: true), after: 2_000, rssi: -70) // ADI, AuxPtr ch 9, 30 µs units, offset 0x20, LE 1M
        out[out.count - 1].phy = 0
        clock += 1_200
        out.append(AirPacket(time: clock, channel: 9, rssi: -70, centralToPeripheral: nil, accessAddress: advertising, crcInit: 0x55_5555,
                             pdu: header(0x07, [0x0A, 0x49] + beacon + adi + [0xF8] + [0x02, 0x01, 0x06, 0x04, 0x09] + Array("Ext".utf8), txAdd: true)))
        // The phone connects: interval 30 ms, all channels, hop 7, 31-50 ppm.
        adv(37, header(0x00, sensor + advData, txAdd: true, chSel: true), after: 97_000)
        let llData = le32(accessAddress) + [UInt8(crcInit & 0xFF), UInt8(crcInit >> 8 & 0xFF), UInt8(crcInit >> 16)]
            + [2] + le16(5) + le16(24) + le16(0) + le16(72) + [0xFF, 0xFF, 0xFF, 0xFF, 0x1F] + [7 | 5 << 5]
        adv(37, header(0x05, phone + sensor + llData, txAdd: false, rxAdd: true, chSel: true), after: 300, rssi: -41)

        // The connection: events every 30 ms; in each the central sends first, the peripheral
        // answers 150 µs after the central's packet ends.
        var ack = Acknowledgement()
        var event: UInt16 = 0
        var eventStart = clock + 1_250 + 5 * 1_250
        var lastEnd = eventStart
        var channel: UInt8 = 7
        var linkAccessAddress = accessAddress, linkCRCInit = crcInit
        // Once encryption starts: the key, what LL_ENC_REQ/RSP exchanged, each side's packet count.
        var key: [UInt8]?
        var skdC = [UInt8](), ivC = [UInt8](), skdP = [UInt8](), ivP = [UInt8]()
        var counters: [UInt64] = [0, 0]
        func airTime(_ pdu: [UInt8]) -> Int64 { Int64(1 + 4 + pdu.count + 3) * 8 }
        /// A data PDU from one side; `lost`: the other side did not receive it (so does not acknowledge it).
        func data(_ fromCentral: Bool, llid: UInt8, _ payload: [UInt8], more: Bool = false, lost: Bool = false, damaged: Bool = false,
                  newEvent: Bool = false) {
            let side = fromCentral ? 0 : 1, other = 1 - side
            if newEvent {
                event += 1
                eventStart += 30_000
                channel = UInt8((Int(channel) + 7) % 37)
                lastEnd = eventStart - 150
            }
            let headerByte = llid | ack.nesn[side] << 2 | ack.sn[side] << 3 | (more ? 0x10 : 0)
            var sealed = payload
            if let key, !payload.isEmpty {
                sealed = LESecurity.seal(payload, header: headerByte, counter: counters[side], fromCentral: fromCentral, ltk: key,
                                         skdC: skdC, ivC: ivC, skdP: skdP, ivP: ivP)
                counters[side] += 1
            }
            let pdu = [headerByte, UInt8(sealed.count)] + sealed
            let time = lastEnd + 150
            out.append(AirPacket(time: time, channel: channel, rssi: fromCentral ? -41 : -58, centralToPeripheral: fromCentral,
                                 accessAddress: linkAccessAddress, crcInit: linkCRCInit, pdu: pdu, eventCounter: event, damaged: damaged,
                                 encrypted: key != nil && !payload.isEmpty))
            lastEnd = time + airTime(pdu)
            guard !lost, !damaged else { return }
            // The receiver takes new data and acknowledges; the sender learns its last one arrived.
            if pdu[0] >> 3 & 1 == ack.nesn[other] { ack.nesn[other] ^= 1 }
            if pdu[0] >> 2 & 1 != ack.sn[other] { ack.sn[other] ^= 1 }
        }
        func control(_ fromCentral: Bool, _ body: [UInt8], newEvent: Bool = false) { data(fromCentral, llid: 3, body, newEvent: newEvent) }
        func empty(_ fromCentral: Bool, newEvent: Bool = false) { data(fromCentral, llid: 1, [], newEvent: newEvent) }
        func exchange(_ central: [UInt8], _ peripheral: [UInt8]?) {
            control(true, central, newEvent: true)
            if let peripheral { control(false, peripheral) } else { empty(false) }
        }
        func l2cap(_ cid: UInt16, _ payload: [UInt8]) -> [UInt8] { le16(UInt16(payload.count)) + le16(cid) + payload }

        empty(true, newEvent: false)
        empty(false)
        exchange([0x0C, 0x0C] + le16(0x0059) + le16(0x1234), [0x0C, 0x0D] + le16(0x000F) + le16(0x4321))
        exchange([0x08] + le32(0x0000_41FF) + le32(0), [0x09] + le32(0x0000_0109) + le32(0))
        exchange([0x14] + le16(251) + le16(2120) + le16(251) + le16(2120), [0x15] + le16(27) + le16(328) + le16(27) + le16(328))
        exchange([0x16, 0x03, 0x03], [0x17, 0x01, 0x01])
        exchange([0x18, 0x00, 0x00] + le16(event + 8), nil)
        // A connection parameters request the peripheral refuses, and a procedure it does not know.
        exchange([0x0F] + le16(12) + le16(24) + le16(0) + le16(72) + [0] + le16(event) + [UInt8](repeating: 0xFF, count: 12),
                 [0x11, 0x0F, 0x1A])
        exchange([0x1D, 0x05], [0x07, 0x1D])
        exchange([0x00, 0x02] + le16(3) + le16(40) + le16(0) + le16(100) + le16(event + 8), nil)
        exchange([0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0x1F] + le16(event + 8), nil)
        exchange([0x12], [0x13])
        // Procedures of Core 5.1-5.3: constant tone extension, periodic sync transfer, a
        // connected isochronous stream set up and ended, power control, subrating, channel
        // classification.
        exchange([0x1A, 0x14 | 1 << 6], [0x1B])
        let syncInfo = le16(0x0123) + le16(80) + [0xFF, 0xFF, 0xFF, 0xFF, 0x1F] + le32(0x2A4C_6E81) + [0x11, 0x22, 0x33] + le16(7)
        exchange([0x1C] + le16(0x0001) + syncInfo + le16(event + 1) + le16(5) + [0x03 | 0x10 | 5 << 5] + [0x01] + beacon + le16(event + 1), nil)
        let cisRequest: [UInt8] = [0x1F, 0x1C, 0x01, 0x02, 0x02] + le16(0x8000 | 120) + le16(120) + [0x10, 0x27, 0x00] + [0x10, 0x27, 0x00]
            + le16(120) + le16(120) + [0x02] + [0x88, 0x13, 0x00] + [0x11] + [0x02, 0x02] + le16(8) + [0x00, 0x04, 0x00] + [0x00, 0x08, 0x00] + le16(event + 3)
        exchange(cisRequest, [0x20, 0x00, 0x05, 0x00, 0x00, 0x07, 0x00] + le16(event + 2))
        exchange([0x21] + le32(0x7C3A_9E15) + [0x00, 0x06, 0x00] + [0x40, 0x1F, 0x00] + [0x20, 0x0F, 0x00] + le16(event + 3), nil)
        exchange([0x22, 0x1C, 0x01, 0x13], nil)
        exchange([0x23, 0x01, 0x04, 0x08], [0x24, 0x00, 0x02, 0x06, 0x0A])
        exchange([0x27] + le16(4) + le16(event + 2) + le16(0) + le16(1) + le16(300), nil)
        exchange([0x28, 0x01, 0x05, 0x0A], [0x29] + [0x55, 0x55, 0xD5, 0xFF, 0x55, 0x55, 0x55, 0x55, 0x55, 0x15])
        // GATT: MTU exchange, then primary services; the response is longer than 27 bytes and
        // goes in two fragments, the peripheral setting More Data on the first.
        data(true, llid: 2, l2cap(0x0004, [0x02] + le16(247)), newEvent: true)
        data(false, llid: 2, l2cap(0x0004, [0x03] + le16(23)))
        data(true, llid: 2, l2cap(0x0004, [0x10] + le16(0x0001) + le16(0xFFFF) + le16(0x2800)), newEvent: true)
        let services: [UInt8] = [0x11, 0x06] + le16(0x0001) + le16(0x0007) + le16(0x1800) + le16(0x0008) + le16(0x000B) + le16(0x1801)
            + le16(0x000C) + le16(0x0011) + le16(0x180D) + le16(0x0012) + le16(0x0014) + le16(0x180F)
        let servicesResponse = l2cap(0x0004, services)
        data(false, llid: 2, Array(servicesResponse.prefix(27)), more: true)
        empty(true)
        data(false, llid: 1, Array(servicesResponse.dropFirst(27)))
        // A notification the central does not acknowledge, sent again in the next event.
        data(true, llid: 2, l2cap(0x0004, [0x12] + le16(0x0010) + [0x01, 0x00]), newEvent: true)
        data(false, llid: 2, l2cap(0x0004, [0x13]))
        empty(true, newEvent: true)
        data(false, llid: 2, l2cap(0x0004, [0x1B] + le16(0x0013) + [0x16, 0x48]), lost: true)
        empty(true, newEvent: true)
        data(false, llid: 2, l2cap(0x0004, [0x1B] + le16(0x0013) + [0x16, 0x48]))
        // A packet received damaged: neither side takes it, so both send their last packet again.
        empty(true, newEvent: true)
        data(false, llid: 2, l2cap(0x0004, [0x1B] + le16(0x0013) + [0x16, 0x4A]), damaged: true)
        empty(true, newEvent: true)
        data(false, llid: 2, l2cap(0x0004, [0x1B] + le16(0x0013) + [0x16, 0x4A]))
        // Legacy pairing, Just Works (TK 0), with real confirm values, then encryption with the
        // STK (Rand and EDIV zero); both sides distribute an LTK over the encrypted link.
        let request: [UInt8] = passkey == nil ? [0x01, 0x03, 0x00, 0x01, 0x10, 0x01, 0x01] : [0x01, 0x02, 0x00, 0x05, 0x10, 0x01, 0x01]
        let response: [UInt8] = passkey == nil ? [0x02, 0x03, 0x00, 0x01, 0x10, 0x01, 0x01] : [0x02, 0x00, 0x00, 0x05, 0x10, 0x01, 0x01]
        let temporaryKey = passkey ?? 0
        let centralRandom = (0 ..< 16).map { UInt8($0 * 13 & 0xFF) }, peripheralRandom = (0 ..< 16).map { UInt8($0 * 17 & 0xFF) }
        func confirm(_ random: [UInt8]) -> [UInt8] {
            LESecurity.confirm(temporaryKey: temporaryKey, random: random, request: request, response: response,
                               initiator: phone, initiatorType: 0, responder: sensor, responderType: 1)
        }
        data(true, llid: 2, l2cap(0x0006, request), newEvent: true)
        data(false, llid: 2, l2cap(0x0006, response))
        data(true, llid: 2, l2cap(0x0006, [0x03] + confirm(centralRandom)), newEvent: true)
        data(false, llid: 2, l2cap(0x0006, [0x03] + confirm(peripheralRandom)))
        data(true, llid: 2, l2cap(0x0006, [0x04] + centralRandom), newEvent: true)
        data(false, llid: 2, l2cap(0x0006, [0x04] + peripheralRandom))
        func startEncryption(rand: [UInt8], ediv: UInt16, ltk: [UInt8]) {
            skdC = [0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88]; ivC = le32(0xDEAD_BEEF)
            skdP = [0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF, 0x00]; ivP = le32(0xCAFE_F00D)
            exchange([0x03] + rand + le16(ediv) + skdC + ivC, [0x04] + skdP + ivP)
            empty(true, newEvent: true)
            control(false, [0x05])
            key = ltk
            counters = [0, 0]
            control(true, [0x06], newEvent: true)
            control(false, [0x06])
        }
        startEncryption(rand: [UInt8](repeating: 0, count: 8), ediv: 0,
                        ltk: LESecurity.shortTermKey(temporaryKey: temporaryKey, initiatorRandom: centralRandom, responderRandom: peripheralRandom))
        empty(true, newEvent: true)
        data(false, llid: 2, l2cap(0x0006, [0x06] + Array(sensorLTK.reversed())))
        empty(true, newEvent: true)
        data(false, llid: 2, l2cap(0x0006, [0x07] + le16(sensorEDIV) + sensorRand))
        data(true, llid: 2, l2cap(0x0006, [0x06] + (0 ..< 16).map { UInt8(0xF0 - $0) }), newEvent: true)
        empty(false)
        data(true, llid: 2, l2cap(0x0006, [0x07] + le16(0x1234) + [1, 2, 3, 4, 5, 6, 7, 8]), newEvent: true)
        empty(false)
        data(true, llid: 2, l2cap(0x0004, [0x0A] + le16(0x0013)), newEvent: true)
        data(false, llid: 2, l2cap(0x0004, [0x0B, 0x64]))
        control(true, [0x02, 0x13], newEvent: true)
        empty(false)

        // A second connection a few seconds later: the phone encrypts at once with the LTK the
        // sensor distributed, which btlog learnt from the first connection's decrypted pairing.
        key = nil
        ack = Acknowledgement()
        clock = eventStart + 3_000_000
        adv(38, header(0x00, sensor + advData, txAdd: true, chSel: true))
        let reconnect = le32(reconnectAccessAddress) + [UInt8(reconnectCRCInit & 0xFF), UInt8(reconnectCRCInit >> 8 & 0xFF), UInt8(reconnectCRCInit >> 16)]
            + [2] + le16(3) + le16(24) + le16(0) + le16(72) + [0xFF, 0xFF, 0xFF, 0xFF, 0x1F] + [9 | 5 << 5]
        adv(38, header(0x05, phone + sensor + reconnect, txAdd: false, rxAdd: true, chSel: true), after: 300, rssi: -41)
        linkAccessAddress = reconnectAccessAddress
        linkCRCInit = reconnectCRCInit
        event = 0
        eventStart = clock + 1_250 + 3 * 1_250
        lastEnd = eventStart - 150
        empty(true)
        empty(false)
        startEncryption(rand: sensorRand, ediv: sensorEDIV, ltk: sensorLTK)
        empty(true, newEvent: true)
        data(false, llid: 2, l2cap(0x0004, [0x1B] + le16(0x0013) + [0x63]))
        control(true, [0x02, 0x13], newEvent: true)
        empty(false)
        return out
    }

    /// The scenario as a capture of `type`. `missingConfirms`: the sniffer missed both Pairing
    /// Confirm PDUs (the link went on as it did: the two packets are only absent from the capture).
    /// `secureConnections`: the Pairing Request and Response ask for LE Secure Connections
    /// (AuthReq bit 3), as two SC devices would; the rest is as captured, so no key decrypts it,
    /// and an nRF Sniffer, without the key, leaves its MIC flag clear on every encrypted packet.
    public static func frames(_ type: AirLinkType, passkey: UInt32? = nil, missingConfirms: Bool = false,
                              secureConnections: Bool = false) -> [Frame] {
        var kept = packets(passkey: passkey)
        // Header, L2CAP length and CID 0x0006, then SMP's code.
        func isSMP(_ pdu: [UInt8], _ codes: Set<UInt8>) -> Bool {
            pdu.count > 9 && pdu[0] & 0x03 == 2 && pdu[4] == 0x06 && pdu[5] == 0x00 && codes.contains(pdu[6])
        }
        if missingConfirms { kept.removeAll { isSMP($0.pdu, [0x03]) } }
        if secureConnections {
            for index in kept.indices where isSMP(kept[index].pdu, [0x01, 0x02]) { kept[index].pdu[9] |= 0x08 }
            for index in kept.indices { kept[index].snifferHasKey = false }
        }
        return kept.enumerated().map { $0.element.frame(type, number: $0.offset + 1) }
    }
}
