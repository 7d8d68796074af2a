import BTCapture

/// A sniffer following a BR/EDR piconet (LINKTYPE_BLUETOOTH_BREDR_BB, as Ubertooth writes it):
/// an inquiry ID packet, a headset's FHS answering it, the phone's POLL and the headset's NULL,
/// an LMP PDU, L2CAP echo requests (one whole, one in two fragments, one on 2 Mb/s EDR), a
/// 3-DH5, voice on SCO (HV3) and eSCO (2-EV3), a payload received with a bad CRC and a header
/// received with a bad HEC.
public enum BasebandScenario {
    /// The phone's LAP: the piconet's access code.
    public static let piconetLAP: UInt32 = 0x76_5432
    public static let headset: [UInt8] = [0x6B, 0x5A, 0x4C, 0x2A, 0x1B, 0x00]   // 00:1B:2A:4C:5A:6B

    /// The phone's UAP (its address 00:1A:7D:76:54:32): the sniffer is told it, and so checks
    /// (and btlog computes) each HEC and CRC with it.
    public static let piconetUAP: UInt8 = 0x7D

    struct Record {
        var rf: UInt8, signal: Int8 = -48, transport: UInt8, rate: UInt8 = 0, lap: UInt32 = piconetLAP
        var ltAddr: UInt8 = 1, type: UInt8 = 0, arqn: UInt8 = 1, seqn: UInt8 = 0
        /// Payload header and payload; the CRC is computed when the record is written.
        var payload: [UInt8]? = nil
        var hecGood = true, crcGood = true
        /// The sniffer decrypted the payload (Wireshark 4.0 decodes no payload without this flag).
        var decrypted = false

        var isInquiry: Bool { lap & 0xFF_FFC0 == 0x9E_8B00 }
        var hasCRC: Bool { payload != nil && !(transport == 1 && (5 ... 8).contains(type)) && type != 9 }

        var bytes: [UInt8] {
            let isID = transport == 0xFF
            // As Ubertooth's libbtbb writes them: dewhitened, signal and noise valid, reference
            // LAP and UAP valid, payload present; it leaves the HEC and CRC checks to the reader.
            var flags: UInt16 = 0x0001 | 0x0002 | 0x0004 | 0x0010 | 0x0080
            if payload != nil { flags |= 0x0020 }
            if decrypted {
                // As a sniffer that decrypts and checks would write it.
                flags |= 0x0008
                if !isID { flags |= 0x0100 | (hecGood ? 0x0200 : 0) }
                if hasCRC, hecGood { flags |= 0x0400 | (crcGood ? 0x0800 : 0) }
            }
            let initial = isInquiry ? 0 : piconetUAP
            var header: UInt32 = 0
            if !isID {
                let bits = UInt32(ltAddr) | UInt32(type) << 3 | 1 << 7 | UInt32(arqn) << 8 | UInt32(seqn) << 9
                header = bits | UInt32(airCheck(bits: (0 ..< 10).map { bits >> UInt32($0) & 1 == 1 }, initial: UInt32(initial), width: 8,
                                                  taps: [1, 2, 5, 7]) ^ (hecGood ? 0 : 0x21)) << 10
            }
            let transportRate: UInt8 = isID ? 0xFF : transport << 4 | rate
            var body = payload ?? []
            if hasCRC {
                let crc = UInt16(airCheck(bits: airBits(body), initial: UInt32(initial), width: 16, taps: [5, 12])) ^ (crcGood ? 0 : 0x0F0F)
                body += le16(crc)
            }
            return [rf, UInt8(bitPattern: signal), UInt8(bitPattern: -90), 0, transportRate, 0] + le16(0) + le32(lap)
                + [UInt8(piconetLAP & 0xFF), UInt8(piconetLAP >> 8 & 0xFF), UInt8(piconetLAP >> 16), piconetUAP] + le32(header) + le16(flags)
                + body
        }
    }

    /// FHS's 144 bits from bit 0: parity, LAP, EIR, reserved, SR, SP, UAP, NAP, class, LT_ADDR, CLK27-2, page scan mode.
    static func fhs(lap: UInt32, uap: UInt8, nap: UInt16, classOfDevice: UInt32, ltAddr: UInt8, clock: UInt32) -> [UInt8] {
        var bits: [Bool] = []
        func put(_ value: UInt64, _ count: Int) { for bit in 0 ..< count { bits.append(value >> UInt64(bit) & 1 == 1) } }
        put(0x2_3456_789A, 34); put(UInt64(lap), 24); put(1, 1); put(0, 1); put(1, 2); put(2, 2)
        put(UInt64(uap), 8); put(UInt64(nap), 16); put(UInt64(classOfDevice), 24); put(UInt64(ltAddr), 3); put(UInt64(clock), 26); put(0, 3)
        return (0 ..< 18).map { byte in (0 ..< 8).reduce(UInt8(0)) { $0 | (bits[byte * 8 + $1] ? 1 << UInt8($1) : 0) } }
    }

    static func acl(llid: UInt8, _ data: [UInt8], oneByteHeader: Bool) -> [UInt8] {
        let header: [UInt8] = oneByteHeader ? [llid | 1 << 2 | UInt8(data.count) << 3] : le16(UInt16(llid) | 1 << 2 | UInt16(data.count) << 3)
        return header + data
    }

    static func l2cap(_ cid: UInt16, _ payload: [UInt8]) -> [UInt8] { le16(UInt16(payload.count)) + le16(cid) + payload }

    /// `decrypted`: flag every payload decrypted and its HEC and CRC checked, the only way
    /// Wireshark 4.0 decodes BR/EDR payloads (the differential test's copy).
    public static func frames(start: Int64 = 1_730_000_000_000_000, decrypted: Bool = false) -> [Frame] {
        let echo = l2cap(0x0001, [0x08, 0x01] + le16(4) + Array("ping".utf8))
        let long = l2cap(0x0001, [0x08, 0x02] + le16(16) + Array("btlog baseband!!".utf8))
        let records: [Record] = [
            Record(rf: 20, transport: 0xFF, lap: 0x9E_8B33),
            Record(rf: 20, signal: -55, transport: 0, lap: 0x9E_8B33, ltAddr: 0, type: 2, arqn: 0,
                   payload: fhs(lap: 0x4C_5A6B, uap: 0x2A, nap: 0x001B, classOfDevice: 0x24_0404, ltAddr: 0, clock: 0x12_3456)),
            Record(rf: 33, transport: 3, type: 1, arqn: 0),
            Record(rf: 34, signal: -55, transport: 3, type: 0),
            Record(rf: 41, transport: 3, type: 3, payload: acl(llid: 3, [39 << 1] + [0xBF, 0xFE, 0xCF, 0xFE, 0xDB, 0xFF, 0x7B, 0x87], oneByteHeader: true)),
            Record(rf: 42, transport: 3, type: 4, seqn: 1, payload: acl(llid: 2, echo, oneByteHeader: true)),
            Record(rf: 43, signal: -55, transport: 3, rate: 1, type: 4, payload: acl(llid: 2, l2cap(0x0001, [0x09, 0x01] + le16(4) + Array("ping".utf8)), oneByteHeader: false)),
            Record(rf: 50, transport: 3, type: 3, payload: acl(llid: 2, Array(long.prefix(14)), oneByteHeader: true)),
            Record(rf: 51, transport: 3, type: 3, seqn: 1, payload: acl(llid: 1, Array(long.dropFirst(14)), oneByteHeader: true)),
            Record(rf: 60, transport: 3, rate: 2, type: 15, payload: acl(llid: 2, l2cap(0x0040, (0 ..< 300).map { UInt8($0 & 0xFF) }), oneByteHeader: false)),
            Record(rf: 61, transport: 1, type: 7, payload: (0 ..< 30).map { UInt8(0x55 ^ $0) }),
            Record(rf: 62, transport: 2, rate: 1, type: 6, payload: (0 ..< 60).map { UInt8(0xAA ^ $0) }),
            Record(rf: 70, transport: 3, type: 4, payload: acl(llid: 2, echo, oneByteHeader: true), crcGood: false),
            Record(rf: 71, transport: 3, type: 4, payload: acl(llid: 2, echo, oneByteHeader: true), hecGood: false),
        ]
        return records.enumerated().map { index, original in
            var record = original
            record.decrypted = decrypted
            return Frame(number: index + 1, timestamp: start + Int64(index) * 625, kind: .air(.bredrBB), direction: .none, bytes: record.bytes[...])
        }
    }
}
