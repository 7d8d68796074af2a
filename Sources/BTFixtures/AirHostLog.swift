import BTCapture
import BTDecode

/// The hosts' HCI logs of a link a sniffer captured, written from the sniffer's own PDUs: for
/// merging a real air capture with the log of one of its ends where no such log was published
/// (crackle's known_ltk.pcap). The central's host logs the connection, the key it gives its
/// controller, each PDU it sends `sendLead` before the air carries it and each it receives
/// `receiveLag` after, on a clock `offset` ahead of the sniffer's. LE Connection Complete
/// comes 1.25 ms after CONNECT_IND, LE Enable Encryption 10 ms before LL_ENC_REQ. What the
/// sniffer missed or took damaged is filled in where the air shows it happened.
public enum AirHostLog {
    public struct AirPDU {
        public var number: Int
        public var time: Int64
        public var fromCentral: Bool
        public var bytes: [UInt8]
    }

    /// The L2CAP PDUs an air capture carries whole, decrypted with `keys`.
    public static func pdus(air path: String, keys: [[UInt8]]) throws -> [AirPDU] {
        var options = DecodeOptions()
        options.linkLayerKeys = keys
        let decoder = Decoder(options: options)
        let reader = try CaptureInput.open(path)
        var pdus: [AirPDU] = []
        while let frame = try reader.next() {
            let packet = decoder.decode(frame)
            guard let layer = packet.layers.last(where: { $0.kind == .l2cap }), let bytes = packet.bytes(of: layer),
                  packet.frame.direction != .none else { continue }
            pdus.append(AirPDU(number: frame.number, time: frame.timestamp, fromCentral: packet.frame.direction == .sent, bytes: Array(bytes)))
        }
        return pdus
    }

    /// crackle's known_ltk.pcap: its key (as crackle's test gives it), the Rand and EDIV of its
    /// LL_ENC_REQ, the peripheral's address, when CONNECT_IND and LL_ENC_REQ went.
    public static let knownLTK: [UInt8] = [0x7F, 0x62, 0xC0, 0x53, 0xF1, 0x04, 0xA5, 0xBB, 0xE6, 0x8B, 0x1D, 0x89, 0x6A, 0x2E, 0xD4, 0x9C]
    static let knownRand: [UInt8] = [0x0F, 0x15, 0xE3, 0x86, 0xF5, 0x4B, 0x40, 0x07], knownEDIV: [UInt8] = [0xE8, 0xCD]
    static let knownPeripheral: [UInt8] = [0xE8, 0xDD, 0x6E, 0xE5, 0xC5, 0x78]
    /// CONNECT_IND's interval (67.5 ms), latency (0) and timeout (420 ms), as HCI gives them.
    static let knownParameters: [UInt8] = [0x36, 0x00, 0x00, 0x00, 0x2A, 0x00]
    static let knownConnect: Int64 = 1_360_876_483_980_000, knownEncryption: Int64 = 1_360_876_486_506_000

    public static let offset: Int64 = 3_600_500_000
    public static let sendLead: Int64 = 2_000, receiveLag: Int64 = 1_000

    /// The central's address (CONNECT_IND's InitA), as HCI carries it, and when the
    /// peripheral's controller saw the central's LL_START_ENC_RSP (just before its own, #91).
    static let knownCentral: [UInt8] = [0x3E, 0x0B, 0xE1, 0x8E, 0x3E, 0x08]
    static let knownEncryptionAnswered: Int64 = 1_360_876_486_843_000
    /// The peripheral's clock: 1,234.25 s behind the sniffer's.
    public static let peripheralOffset: Int64 = -1_234_250_000

    /// The peripheral's log of the same link (handle 0x0002): LE Connection Complete (its peer
    /// the central), LE Long Term Key Request and its Reply with the key, Encryption Change,
    /// each PDU it received 1 ms after the air carried it and each it sent 2 ms before,
    /// the answers the sniffer missed among them.
    public static func peripheralLog(_ pdus: [AirPDU]) -> [Frame] {
        let at = { (time: Int64) in time + peripheralOffset }
        var frames = [
            Frame(timestamp: at(knownConnect + 2_000), kind: .event, direction: .received,
                  bytes: [0x3E, 0x13, 0x01, 0x00, 0x02, 0x00, 0x01, 0x00] + knownCentral + knownParameters + [0x00]),
            Frame(timestamp: at(knownEncryption + 1_000), kind: .event, direction: .received,
                  bytes: [0x3E, 0x0D, 0x05, 0x02, 0x00] + knownRand + knownEDIV),
            Frame(timestamp: at(knownEncryption + 1_400), kind: .command, direction: .sent,
                  bytes: [0x1A, 0x20, 0x12, 0x02, 0x00] + knownLTK.reversed()),
            Frame(timestamp: at(knownEncryption + 1_600), kind: .event, direction: .received,
                  bytes: [0x0E, 0x06, 0x01, 0x1A, 0x20, 0x00, 0x02, 0x00]),
            Frame(timestamp: at(knownEncryptionAnswered + 1_000), kind: .event, direction: .received,
                  bytes: [0x08, 0x04, 0x00, 0x02, 0x00, 0x01]),
        ]
        func acl(_ bytes: [UInt8], at time: Int64, sent: Bool) -> Frame {
            let length = UInt16(truncatingIfNeeded: bytes.count)
            return Frame(timestamp: time, kind: .aclData, direction: sent ? .sent : .received,
                         bytes: [0x02, sent ? 0x00 : 0x20, UInt8(length & 0xFF), UInt8(length >> 8)] + bytes)
        }
        for pdu in pdus {
            frames.append(acl(pdu.bytes, at: at(pdu.time + (pdu.fromCentral ? receiveLag : -sendLead)), sent: !pdu.fromCentral))
        }
        if let answer = pdus.first(where: { !$0.fromCentral }) {
            for time in knownDamagedAnswers { frames.append(acl(answer.bytes, at: at(time - sendLead), sent: true)) }
        }
        frames.sort { $0.timestamp < $1.timestamp }
        for index in frames.indices { frames[index].number = index + 1 }
        return frames
    }

    /// The sniffer took one Read By Type Response whole; the peripheral's other answers it
    /// took damaged (25-byte encrypted packets whose CRC failed) or not at all. The central's
    /// host received them all: the same response, at these air times.
    static let knownDamagedAnswers: [Int64] = [1_360_876_491_029_000, 1_360_876_491_568_000, 1_360_876_492_919_000]
    /// LL_START_ENC_RSP from the peripheral (#91): the central's controller reports Encryption Change.
    static let knownEncryptionStarted: Int64 = 1_360_876_486_844_000

    /// The central's log of known_ltk.pcap's link: LE Connection Complete (handle 0x0040), LE
    /// Enable Encryption with the key (unless `withKey` is false) and its Command Status,
    /// Encryption Change, every PDU the air carried as ACL data, and the answers the sniffer
    /// missed.
    public static func centralLog(_ pdus: [AirPDU], withKey: Bool = true) -> [Frame] {
        var frames = [
            Frame(timestamp: knownConnect + 1_250 + offset, kind: .event, direction: .received,
                  bytes: [0x3E, 0x13, 0x01, 0x00, 0x40, 0x00, 0x00, 0x00] + knownPeripheral + knownParameters + [0x00]),
        ]
        if withKey {
            frames.append(Frame(timestamp: knownEncryption - 10_000 + offset, kind: .command, direction: .sent,
                                bytes: [0x19, 0x20, 0x1C, 0x40, 0x00] + knownRand + knownEDIV + knownLTK.reversed()))
            frames.append(Frame(timestamp: knownEncryption - 9_800 + offset, kind: .event, direction: .received,
                                bytes: [0x0F, 0x04, 0x00, 0x01, 0x19, 0x20]))
            frames.append(Frame(timestamp: knownEncryptionStarted + 1_000 + offset, kind: .event, direction: .received,
                                bytes: [0x08, 0x04, 0x00, 0x40, 0x00, 0x01]))
        }
        func acl(_ bytes: [UInt8], at time: Int64, sent: Bool) -> Frame {
            let length = UInt16(truncatingIfNeeded: bytes.count)
            return Frame(timestamp: time, kind: .aclData, direction: sent ? .sent : .received,
                         bytes: [0x40, sent ? 0x00 : 0x20, UInt8(length & 0xFF), UInt8(length >> 8)] + bytes)
        }
        for pdu in pdus {
            frames.append(acl(pdu.bytes, at: pdu.time + offset + (pdu.fromCentral ? -sendLead : receiveLag), sent: pdu.fromCentral))
        }
        if let answer = pdus.first(where: { !$0.fromCentral }) {
            for time in knownDamagedAnswers { frames.append(acl(answer.bytes, at: time + offset + receiveLag, sent: false)) }
        }
        frames.sort { $0.timestamp < $1.timestamp }
        for index in frames.indices { frames[index].number = index + 1 }
        return frames
    }
}
