import BTCapture
import BTDecode

/// What both ends of a link see alike: an L2CAP PDU, whole. The host that sends it logs it in
/// ACL fragments going to its controller; the other host logs it arriving from its own, in
/// fragments its controller chose, under another handle, but with the same header (the
/// channel ID is the receiver's, at both ends) and payload. A PDU is known by a 64-bit hash of
/// those bytes, taken as the fragments arrive (nothing is copied).
public struct PDUFingerprint: Hashable, Sendable {
    public var value: UInt64
}

/// Reassembles the ACL fragments of one capture far enough to fingerprint each L2CAP PDU:
/// per controller, handle and direction, the hash so far and the bytes still to come. It
/// reads the ACL and L2CAP headers and nothing else, so the merge costs far less than decoding.
public struct PDUFingerprinter {
    struct Key: Hashable {
        var controller: UInt16
        var handle: UInt16
        var sent: Bool
    }

    struct Partial {
        var hash: UInt64
        var remaining: Int
    }

    private var partial: [Key: Partial] = [:]

    public init() {}

    /// A PDU this frame completes: its fingerprint, the link's handle and whether the host
    /// sent it. Frames of other kinds, fragments that do not complete a PDU and fragments with
    /// no start are nil.
    public mutating func feed(_ frame: Frame) -> (fingerprint: PDUFingerprint, handle: UInt16, sent: Bool, event: LinkEvent?)? {
        if frame.kind == .command || frame.kind == .event { return LinkEvent.logged(frame) }
        guard frame.kind == .aclData, frame.direction != .none, !frame.isTruncated else { return nil }
        var c = ByteCursor(frame.bytes)
        guard let word = try? c.u16(), let declared = try? c.u16() else { return nil }
        let handle = word & 0x0FFF, boundary = (word >> 12) & 0x3
        let payload = c.rest().prefix(Int(declared))
        let sent = frame.direction == .sent
        let key = Key(controller: frame.controller, handle: handle, sent: sent)
        var state: Partial
        if boundary == 0x1 {
            // A continuation: of the PDU begun on this link, if its start was seen.
            guard let begun = partial[key] else { return nil }
            state = begun
        } else {
            var header = ByteCursor(payload)
            guard payload.count >= 4, let length = try? header.u16() else { partial[key] = nil; return nil }
            state = Partial(hash: Self.seed, remaining: Int(length) + 4)
        }
        let taken = payload.prefix(state.remaining)
        state.hash = Self.mix(state.hash, taken)
        state.remaining -= taken.count
        if state.remaining > 0 {
            partial[key] = state
            return nil
        }
        partial[key] = nil
        return (PDUFingerprint(value: Self.finish(state.hash)), handle, sent, nil)
    }

    static let seed: UInt64 = 0xCBF2_9CE4_8422_2325

    /// FNV-1a over the bytes, then a final avalanche so that the low bits (which the anchor
    /// sampling keeps by) depend on every byte.
    static func mix(_ hash: UInt64, _ bytes: ArraySlice<UInt8>) -> UInt64 {
        var h = hash
        for byte in bytes { h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return h
    }

    /// A fingerprint of a link's event rather than a PDU: a tag byte, then the event's values.
    static func event(_ tag: LinkEvent, _ bytes: [UInt8]) -> PDUFingerprint {
        PDUFingerprint(value: finish(mix(mix(seed, [0xEE, tag.rawValue]), bytes[...])))
    }

    static func finish(_ hash: UInt64) -> UInt64 {
        var z = hash
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// What both ends of a link and the air see of its life besides PDUs, each end in its own
/// words: the connection (LE Connection Complete at each host, CONNECT_IND on the air: the
/// peer's address as each host names it, the interval, latency and timeout), the start of
/// encryption (LE Enable Encryption at the central's host, LL_ENC_REQ on the air, LE Long Term
/// Key Request at the peripheral's host: the Rand and EDIV), and the end (HCI Disconnect at one
/// host, LL_TERMINATE_IND on the air, Disconnection Complete at the other: the reason). Each is
/// fingerprinted from those values, so they align clocks as PDUs do; the command is a send,
/// the event a reception.
public enum LinkEvent: UInt8 {
    case connection = 1, encryption, termination

    /// The event a host's command or event frame logs, as a fingerprint.
    static func logged(_ frame: Frame) -> (fingerprint: PDUFingerprint, handle: UInt16, sent: Bool, event: LinkEvent?)? {
        let b = frame.bytes
        guard b.count >= 3 else { return nil }
        let s = b.startIndex
        func u16(_ at: Int) -> UInt16 { UInt16(b[s + at]) | UInt16(b[s + at + 1]) << 8 }
        func bytes(_ at: Int, _ count: Int) -> [UInt8] { Array(b[s + at ..< s + at + count]) }
        if frame.kind == .command {
            switch u16(0) {
            case 0x2019 where b.count >= 3 + 12:   // LE Enable Encryption: handle, Rand, EDIV
                return (PDUFingerprinter.event(.encryption, bytes(5, 10)), u16(3) & 0x0FFF, true, .encryption)
            case 0x0406 where b.count >= 3 + 3:    // Disconnect: handle, reason
                return (PDUFingerprinter.event(.termination, [b[s + 5]]), u16(3) & 0x0FFF, true, .termination)
            default:
                return nil
            }
        }
        switch b[s] {
        case 0x05 where b.count >= 2 + 4 && b[s + 2] == 0:   // Disconnection Complete: status, handle, reason
            // The end that asked (Connection Terminated By Local Host) saw no reason arrive.
            guard b[s + 5] != 0x16 else { return nil }
            return (PDUFingerprinter.event(.termination, [b[s + 5]]), u16(3) & 0x0FFF, false, .termination)
        case 0x3E where b.count >= 3:
            switch b[s + 2] {
            case 0x01 where b.count >= 3 + 18 && b[s + 3] == 0:   // LE Connection Complete
                return (connection(peer: bytes(8, 6), parameters: bytes(14, 6)), u16(4) & 0x0FFF, false, .connection)
            case 0x0A where b.count >= 3 + 30 && b[s + 3] == 0, 0x29 where b.count >= 3 + 30 && b[s + 3] == 0:
                // Enhanced: the peer's resolvable private address is what the air carried.
                let rpa = bytes(20, 6), peer = rpa.allSatisfy({ $0 == 0 }) ? bytes(8, 6) : rpa
                return (connection(peer: peer, parameters: bytes(26, 6)), u16(4) & 0x0FFF, false, .connection)
            case 0x05 where b.count >= 3 + 12:   // LE Long Term Key Request: handle, Rand, EDIV
                return (PDUFingerprinter.event(.encryption, bytes(5, 10)), u16(3) & 0x0FFF, false, .encryption)
            default:
                return nil
            }
        default:
            return nil
        }
    }

    /// `peer`: the address as HCI carries it (least significant octet first); `parameters`: the
    /// interval, latency and timeout, little-endian.
    static func connection(peer: [UInt8], parameters: [UInt8]) -> PDUFingerprint {
        PDUFingerprinter.event(.connection, peer + parameters)
    }
}

/// A PDU one end of a link logged: a host's send or reception, or the air's copy.
public struct LoggedPDU {
    public var fingerprint: PDUFingerprint
    /// The connection handle (a host's), or the link's number (the air's).
    public var handle: UInt16
    /// The host sent it; for the air, the central did.
    public var sent: Bool
    /// A sniffer took it from the air.
    public var air: Bool
    public var accessAddress: UInt32?
    /// A link's event rather than a PDU.
    public var event: LinkEvent?
}

/// A capture's PDUs, whatever took it: a host's log is fingerprinted from its ACL headers, an
/// air capture through its link layer (the first air frame makes that decoder, with the keys
/// known so far: an encrypted link's PDUs are matched in plaintext where a host gave its
/// controller the key). A host's log also gives up those keys as it goes (`revealedKeys`).
public struct SourceFingerprinter {
    private var hci = PDUFingerprinter()
    private var air: AirPDUFingerprinter?
    private let keys: [[UInt8]]
    /// Long-term keys the host handed its controller (LE Enable Encryption, LE Long Term Key
    /// Request Reply), as the commands carry them.
    public private(set) var revealedKeys: [[UInt8]] = []

    public init(keys: [[UInt8]] = []) { self.keys = keys }

    /// Each PDU (or link event) the frame completes: one at most from a host's log, two from
    /// an air capture's CONNECT_IND.
    public mutating func feed(_ frame: Frame, _ body: (LoggedPDU) -> Void) {
        if frame.kind.isAir {
            if air == nil {
                var options = DecodeOptions()
                options.linkLayerKeys = keys
                air = AirPDUFingerprinter(options: options)
            }
            air!.feed(frame) { pdu in
                body(LoggedPDU(fingerprint: pdu.fingerprint, handle: pdu.link, sent: pdu.fromCentral ?? true, air: true,
                               accessAddress: pdu.accessAddress, event: pdu.event))
            }
            return
        }
        if frame.kind == .command { noteKey(frame.bytes) }
        guard let pdu = hci.feed(frame) else { return }
        body(LoggedPDU(fingerprint: pdu.fingerprint, handle: pdu.handle, sent: pdu.sent, air: false, accessAddress: nil, event: pdu.event))
    }

    /// The key of LE Enable Encryption (opcode 0x2019: handle, Rand, EDIV, key) or LE Long
    /// Term Key Request Reply (0x201A: handle, key).
    private mutating func noteKey(_ bytes: ArraySlice<UInt8>) {
        guard bytes.count >= 3, revealedKeys.count < 256 else { return }
        let opcode = UInt16(bytes[bytes.startIndex]) | UInt16(bytes[bytes.startIndex + 1]) << 8
        let offset: Int
        switch opcode {
        case 0x2019: offset = 3 + 2 + 8 + 2
        case 0x201A: offset = 3 + 2
        default: return
        }
        guard bytes.count >= offset + 16 else { return }
        let key = Array(bytes[bytes.startIndex + offset ..< bytes.startIndex + offset + 16])
        if !revealedKeys.contains(key) { revealedKeys.append(key) }
    }
}
