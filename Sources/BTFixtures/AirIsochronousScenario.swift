import BTCapture

/// A sniffer's view of LE Audio on the air: a broadcast source advertising on LE Coded
/// (ADV_EXT_IND, AUX_ADV_IND with SyncInfo), its periodic advertising train (AUX_SYNC_IND with
/// BIGInfo in its ACAD and the BASE split over an AUX_CHAIN_IND), its two broadcast isochronous
/// streams carrying framed SDUs and the BIG's control PDUs; then a phone connecting to an
/// earbud, setting up a connected isochronous stream (LL_CIS_REQ/RSP/IND) and streaming over
/// it: unframed SDUs, null PDUs, a retransmission, the event closed with CIE, the stream ended.
public enum AirIsochronousScenario {
    public static let source: [UInt8] = [0x10, 0x20, 0x30, 0x40, 0x50, 0xD0]     // D0:50:40:30:20:10, random static
    public static let phone: [UInt8] = [0x01, 0x32, 0x54, 0x76, 0x98, 0xF0]      // F0:98:76:54:32:01, public
    public static let earbud: [UInt8] = [0x77, 0x66, 0x55, 0x44, 0x33, 0xC2]     // C2:33:44:55:66:77, random static
    public static let trainAccessAddress: UInt32 = 0x3D5A_7E91
    public static let trainCRCInit: UInt32 = 0x5B_1C2D
    public static let seedAccessAddress: UInt32 = 0x71A2_B3C4
    /// The two streams' access addresses (btlog does not derive them from the seed: the radio
    /// header marks BIS packets).
    public static let bisAccessAddresses: [UInt32] = [0x4C6D_1E2F, 0x5B7C_2D3E]
    public static let connectionAccessAddress: UInt32 = 0x4A3B_2C1D
    public static let connectionCRCInit: UInt32 = 0x11_2233
    public static let cisAccessAddress: UInt32 = 0x5E6F_7A8B
    static let advertising: UInt32 = 0x8E89_BED6

    /// BIGInfo (33 octets): offset 20 × 30 µs, ISO interval 10 ms, 2 BIS, NSE 4, BN 1,
    /// sub-interval 2.5 ms, BIS spacing 5 ms, IRC 2, Max_PDU 44, the seed, SDU interval 10 ms,
    /// Max_SDU 40, BaseCRCInit, all channels on LE 2M, payload count 1234, framed.
    static var bigInfo: [UInt8] {
        let first = UInt32(20) | 0 << 14 | UInt32(8) << 15 | UInt32(2) << 27
        let second = UInt32(4) | UInt32(1) << 5 | UInt32(2500) << 8
        let third = UInt32(5000) | UInt32(2) << 20 | UInt32(44) << 24
        let fourth = UInt32(10000) | UInt32(40) << 20
        let count: UInt64 = 1234 | 1 << 39
        return le32(first) + le32(second) + le32(third) + [0] + le32(seedAccessAddress) + le32(fourth) + le16(0x3C5D)
            + [0xFF, 0xFF, 0xFF, 0xFF, 0x1F | 1 << 5] + (0 ..< 5).map { UInt8(count >> UInt64(8 * $0) & 0xFF) }
    }

    /// `broadcast`: include the BIS packets (only a radio header marks them).
    public static func packets(start: Int64 = 1_720_000_000_000_000, broadcast: Bool = true) -> [AirPacket] {
        var out: [AirPacket] = []
        var clock = start
        func header(_ type: UInt8, _ payload: [UInt8], txAdd: Bool, rxAdd: Bool = false, chSel: Bool = false) -> [UInt8] {
            [type | (chSel ? 0x20 : 0) | (txAdd ? 0x40 : 0) | (rxAdd ? 0x80 : 0), UInt8(payload.count)] + payload
        }
        func send(_ channel: UInt8, _ accessAddress: UInt32, _ crcInit: UInt32, _ pdu: [UInt8], after: Int64, phy: UInt8 = 0, ci: UInt8 = 0,
                  rssi: Int8 = -62, centralToPeripheral: Bool? = nil, radioPDUType: UInt16? = nil, event: UInt16 = 0) {
            clock += after
            var packet = AirPacket(time: clock, channel: channel, rssi: rssi, centralToPeripheral: centralToPeripheral,
                                   accessAddress: accessAddress, crcInit: crcInit, pdu: pdu, eventCounter: event)
            packet.phy = phy
            packet.codingIndicator = ci
            packet.radioPDUType = radioPDUType
            out.append(packet)
        }
        // Extended advertising on LE Coded: ADV_EXT_IND (S=8) points at AUX_ADV_IND (S=2) on channel 12.
        let adi = le16(0x3000 | 0x0042)  // SID 3, DID 0x042
        send(37, advertising, 0x55_5555, header(0x07, [0x06, 0x18] + adi + [12, 0x40, 0x40], txAdd: true), after: 0, phy: 2, ci: 0) // AuxPtr: ch 12, 30 µs × 64, LE Coded
        let syncInfo = le16(40) + le16(80) + [0xFF, 0xFF, 0xFF, 0xFF, 0x1F | 4 << 5] + le32(trainAccessAddress)
            + [UInt8(trainCRCInit & 0xFF), UInt8(trainCRCInit >> 8 & 0xFF), UInt8(trainCRCInit >> 16)] + le16(17)
        let announcement: [UInt8] = [0x06, 0x16] + le16(0x1852) + [0x9A, 0x78, 0x56] + [0x0B, 0x30] + Array("btlog Cast".utf8)
        let extended: [UInt8] = [0x69] + source + adi + syncInfo + [0xF6]   // AdvA, ADI, SyncInfo, TxPower -10 dBm
        send(12, advertising, 0x55_5555, header(0x07, [UInt8(extended.count) | 0 << 6] + extended + announcement, txAdd: true),
             after: 1_920, phy: 2, ci: 1)
        // The periodic train: AUX_SYNC_IND with BIGInfo, its BASE continued in an AUX_CHAIN_IND.
        let base: [UInt8] = [0x40, 0x9C, 0x00, 0x01, 0x02, 0x06, 0x00, 0x00, 0x00, 0x00, 0x0A, 0x02, 0x01, 0x08, 0x02, 0x02, 0x01,
                             0x03, 0x04, 0x28, 0x00, 0x04, 0x03, 0x02, 0x04, 0x00, 0x01, 0x06, 0x05, 0x03, 0x01, 0x00, 0x00, 0x00,
                             0x02, 0x06, 0x05, 0x03, 0x02, 0x00, 0x00, 0x00]
        let baseAD: [UInt8] = [UInt8(base.count + 3), 0x16] + le16(0x1851) + base
        let acad: [UInt8] = [UInt8(bigInfo.count + 1), 0x2C] + bigInfo
        let syncHeader: [UInt8] = [0x10] + [5, 0x20, 0x20] + acad   // AuxPtr: ch 5, 30 µs × 32, LE 2M
        send(5, trainAccessAddress, trainCRCInit, header(0x07, [UInt8(syncHeader.count)] + syncHeader + Array(baseAD.prefix(20)), txAdd: false),
             after: 40 * 30, phy: 1)
        send(5, trainAccessAddress, trainCRCInit, header(0x07, [0x00] + Array(baseAD.dropFirst(20)), txAdd: false), after: 960, phy: 1)
        // 100 ms later: AUX_SYNC_IND again, no chain this time.
        let plainSync: [UInt8] = [0x00] + acad
        send(21, trainAccessAddress, trainCRCInit, header(0x07, [UInt8(plainSync.count)] + plainSync, txAdd: false), after: 100_000, phy: 1)
        if broadcast {
            // The BIG: each BIS carries a framed SDU (one segment with its time offset) per
            // event, then the control subevent announces a channel map and, later, the end.
            for event in 0 ..< 2 {
                for (n, address) in bisAccessAddresses.enumerated() {
                    let sdu = (0 ..< 40).map { UInt8(($0 * 7 + n * 3 + event) & 0xFF) }
                    let segment: [UInt8] = [0x02, UInt8(3 + sdu.count)] + [0x10, 0x27, 0x00] + sdu   // SC 0, CMPLT 1, time offset 10000 µs
                    send(UInt8(3 + n * 11 + event), address, 0x3C5D_00 | UInt32(n + 1), [0x02, UInt8(segment.count)] + segment,
                         after: event == 0 && n == 0 ? 600 : 5_000, phy: 1, radioPDUType: 6)
                }
            }
            let control: [UInt8] = [0x00, 0xFF, 0xFF, 0xFF, 0xF0, 0x1F] + le16(6)
            send(30, seedAccessAddress ^ 0x0000_0101, 0x3C5D_00, [0x03 | 1 << 2 | 1 << 5, UInt8(control.count)] + control, after: 2_500, phy: 1,
                 radioPDUType: 6)
            let terminate: [UInt8] = [0x01, 0x13] + le16(9)
            send(31, seedAccessAddress ^ 0x0000_0101, 0x3C5D_00, [0x03 | 2 << 2 | 1 << 5, UInt8(terminate.count)] + terminate, after: 10_000,
                 phy: 1, radioPDUType: 6)
        }

        // A phone connects to an earbud (interval 7.5 ms) and sets up a CIS: CIG 1, CIS 1.
        let llData = le32(connectionAccessAddress) + [UInt8(connectionCRCInit & 0xFF), UInt8(connectionCRCInit >> 8 & 0xFF), UInt8(connectionCRCInit >> 16)]
            + [1] + le16(2) + le16(6) + le16(0) + le16(100) + [0xFF, 0xFF, 0xFF, 0xFF, 0x1F] + [9 | 5 << 5]
        send(38, advertising, 0x55_5555, header(0x00, earbud + [0x02, 0x01, 0x06], txAdd: true, chSel: true), after: 50_000, rssi: -50)
        send(38, advertising, 0x55_5555, header(0x05, phone + earbud + llData, txAdd: false, rxAdd: true, chSel: true), after: 300, rssi: -44)
        var sn: [UInt8] = [0, 0], nesn: [UInt8] = [0, 0]
        var event: UInt16 = 0
        var channel: UInt8 = 4
        clock += 1_250 + 2 * 1_250
        /// One connection event: the central's PDU and the peripheral's answer, each acknowledging the other.
        func exchange(_ central: [UInt8], llidC: UInt8 = 3, _ peripheral: [UInt8]?, llidP: UInt8 = 3) {
            for (side, body, llid) in [(0, central, llidC), (1, peripheral ?? [], peripheral == nil ? 1 : llidP)] {
                let pdu = [llid | nesn[side] << 2 | sn[side] << 3, UInt8(body.count)] + body
                send(channel, connectionAccessAddress, connectionCRCInit, pdu, after: side == 0 ? 0 : 150 + Int64(8 * (8 + body.count)),
                     rssi: side == 0 ? -44 : -52, centralToPeripheral: side == 0, event: event)
                sn[side] ^= 1
                nesn[1 - side] ^= 1
            }
            event += 1
            channel = UInt8((Int(channel) + 9) % 37)
            clock += 7_500 - 150 - Int64(8 * (8 + central.count))
        }
        let cisRequest: [UInt8] = [0x1F, 0x01, 0x01, 0x02, 0x02] + le16(40) + le16(40) + [0x10, 0x27, 0x00] + [0x10, 0x27, 0x00]
            + le16(40) + le16(40) + [0x02] + [0xC4, 0x09, 0x00] + [0x11] + [0x02, 0x02] + le16(8) + [0xF4, 0x01, 0x00] + [0xE8, 0x03, 0x00] + le16(4)
        exchange(cisRequest, [0x20, 0xF4, 0x01, 0x00, 0xE8, 0x03, 0x00] + le16(4))
        exchange([0x21] + le32(cisAccessAddress) + [0xF4, 0x01, 0x00] + [0x88, 0x13, 0x00] + [0x88, 0x13, 0x00] + le16(4), nil)
        // The CIS: every 10 ms the central sends an LC3 frame, the earbud answers with a null PDU.
        var cisSN: [UInt8] = [0, 0], cisNESN: [UInt8] = [0, 0]
        clock += 500
        func cis(_ fromCentral: Bool, _ payload: [UInt8], llid: UInt8 = 0, null: Bool = false, closes: Bool = false, lost: Bool = false) {
            let side = fromCentral ? 0 : 1
            let pdu = [llid | cisNESN[side] << 2 | cisSN[side] << 3 | (closes ? 0x10 : 0) | (null ? 0x40 : 0), UInt8(payload.count)] + payload
            send(17, cisAccessAddress, connectionCRCInit, pdu, after: fromCentral ? 10_000 : 150 + Int64(8 * (8 + 40)),
                 rssi: fromCentral ? -44 : -52, centralToPeripheral: fromCentral, radioPDUType: fromCentral ? 4 : 5)
            // A null PDU carries no new data: its SN does not advance, as the spec has it.
            if !null && !lost { cisSN[side] ^= 1 }
            if !lost { cisNESN[1 - side] ^= (null ? 0 : 1) }
        }
        for frame in 0 ..< 2 {
            let lc3 = (0 ..< 40).map { UInt8(($0 * 5 + frame * 11) & 0xFF) }
            cis(true, lc3, lost: frame == 1)
            cis(false, [], null: true, closes: true)
        }
        // The frame the earbud missed, sent again (same SN), the event closed with CIE.
        cis(true, (0 ..< 40).map { UInt8(($0 * 5 + 11) & 0xFF) }, closes: true)
        cis(false, [], null: true, closes: true)
        clock += 2_000
        exchange([0x22, 0x01, 0x01, 0x13], nil)
        exchange([0x02, 0x13], nil)
        return out
    }

    /// The scenario as a capture of `type` (BIS packets only where the radio header marks them).
    public static func frames(_ type: AirLinkType) -> [Frame] {
        packets(broadcast: type == .leLLWithRadioHeader).enumerated().map { $0.element.frame(type, number: $0.offset + 1) }
    }
}
