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

    /// The connection as one host names its peer (the address the air carried), with the
    /// interval, latency and timeout in their units.
    static func connection(peer: BDAddr, interval: UInt16, latency: UInt16, timeout: UInt16) -> PDUFingerprint {
        fingerprint(.connection, peer.packed, UInt64(interval) << 32 | UInt64(latency) << 16 | UInt64(timeout))
    }

    static func encryption(rand: UInt64, ediv: UInt16) -> PDUFingerprint { fingerprint(.encryption, rand, UInt64(ediv)) }

    static func termination(reason: UInt8) -> PDUFingerprint { fingerprint(.termination, UInt64(reason), 0) }

    /// The event's values under its tag, hashed as a PDU's bytes are (a tag no L2CAP header
    /// starts with keeps them apart from every PDU).
    private static func fingerprint(_ tag: LinkEvent, _ first: UInt64, _ second: UInt64) -> PDUFingerprint {
        var hash = PDUFingerprinter.seed
        for word in [0xEEEE_0000 | UInt64(tag.rawValue), first, second] {
            for shift in stride(from: 0, to: 64, by: 8) { hash = (hash ^ (word >> UInt64(shift) & 0xFF)) &* 0x0000_0100_0000_01B3 }
        }
        return PDUFingerprint(value: PDUFingerprinter.finish(hash))
    }

    /// The event a host's command or event frame logs, as a fingerprint.
    static func logged(_ frame: Frame) -> (fingerprint: PDUFingerprint, handle: UInt16, sent: Bool, event: LinkEvent?)? {
        var c = ByteCursor(frame.bytes)
        if frame.kind == .command {
            guard let opcode = try? c.u16(), (try? c.skip(1)) != nil, let handle = (try? c.u16()).map({ $0 & 0x0FFF }) else { return nil }
            switch opcode {
            case 0x2019:   // LE Enable Encryption: handle, Rand, EDIV, key
                guard let rand = try? c.u64(), let ediv = try? c.u16() else { return nil }
                return (encryption(rand: rand, ediv: ediv), handle, true, .encryption)
            case 0x0406:   // Disconnect: handle, reason
                guard let reason = try? c.u8() else { return nil }
                return (termination(reason: reason), handle, true, .termination)
            default:
                return nil
            }
        }
        guard let code = try? c.u8(), (try? c.skip(1)) != nil else { return nil }
        switch code {
        case 0x05:   // Disconnection Complete: status, handle, reason
            guard (try? c.u8()) == 0, let handle = try? c.u16(), let reason = try? c.u8(),
                  // The end that asked (Connection Terminated By Local Host) saw no reason arrive.
                  reason != 0x16 else { return nil }
            return (termination(reason: reason), handle & 0x0FFF, false, .termination)
        case 0x3E:
            guard let subevent = try? c.u8() else { return nil }
            switch subevent {
            case 0x01, 0x0A, 0x29:
                // LE (Enhanced) Connection Complete: status, handle, role, peer address type,
                // peer address; the enhanced ones then the local and the peer's resolvable
                // private address, which is what the air carried when it is not zero.
                guard (try? c.u8()) == 0, let handle = try? c.u16(), (try? c.skip(2)) != nil, var peer = try? c.address() else { return nil }
                if subevent != 0x01 {
                    guard (try? c.skip(6)) != nil, let rpa = try? c.address() else { return nil }
                    if rpa.packed != 0 { peer = rpa }
                }
                guard let interval = try? c.u16(), let latency = try? c.u16(), let timeout = try? c.u16() else { return nil }
                return (connection(peer: peer, interval: interval, latency: latency, timeout: timeout), handle & 0x0FFF, false, .connection)
            case 0x05:   // LE Long Term Key Request: handle, Rand, EDIV
                guard let handle = try? c.u16(), let rand = try? c.u64(), let ediv = try? c.u16() else { return nil }
                return (encryption(rand: rand, ediv: ediv), handle & 0x0FFF, false, .encryption)
            default:
                return nil
            }
        default:
            return nil
        }
    }

    /// The long-term key of LE Enable Encryption (handle, Rand, EDIV, key) or LE Long Term Key
    /// Request Reply (handle, key), as the command carries it.
    static func revealedKey(_ frame: Frame) -> [UInt8]? {
        guard frame.kind == .command else { return nil }
        var c = ByteCursor(frame.bytes)
        guard let opcode = try? c.u16(), opcode == 0x2019 || opcode == 0x201A, (try? c.skip(3)) != nil,
              (try? c.skip(opcode == 0x2019 ? 10 : 0)) != nil, let key = try? c.slice(16) else { return nil }
        return Array(key)
    }
}

/// Identity resolving keys SMP distributes, as a host's log carries them: Identity Information
/// (the key), then Identity Address Information on the same link and way (the address). Read
/// from an ACL start fragment holding the whole SMP PDU, as links send these (21 octets with
/// the L2CAP header): no reassembly, so a key split across fragments is left to the decoder,
/// which learns it when it reaches it.
struct IdentityKeyScan {
    private var awaitingAddress: [PDUFingerprinter.Key: Int] = [:]
    private(set) var found = KeysAhead()

    mutating func feed(_ frame: Frame) {
        guard frame.kind == .aclData, frame.direction != .none, !frame.isTruncated else { return }
        var c = ByteCursor(frame.bytes)
        guard let word = try? c.u16(), (word >> 12) & 0x3 != 0x1, (try? c.skip(2)) != nil,
              let length = try? c.u16(), let channel = try? c.u16(),
              channel == 0x0006 || channel == 0x0007,   // LE's Security Manager, BR/EDR's
              let code = try? c.u8() else { return }
        let link = PDUFingerprinter.Key(controller: frame.controller, handle: word & 0x0FFF, sent: frame.direction == .sent)
        switch code {
        case 0x08:   // Identity Information: the key, least significant octet first
            guard length == 17, let irk = try? c.slice(16) else { return }
            let key = Array(irk.reversed())
            found.add(KeysAhead(identityKeys: [.init(irk: key, address: nil)]))
            // Bounded as the keys are: a flood of links that never send the address is forgotten.
            if awaitingAddress.count >= 4_096 { awaitingAddress.removeAll() }
            awaitingAddress[link] = found.identityKeys.firstIndex { $0.irk == key }
        case 0x09:   // Identity Address Information: the address type, the address
            guard length == 8, (try? c.skip(1)) != nil, let address = try? c.address(),
                  let index = awaitingAddress.removeValue(forKey: link) else { return }
            if found.identityKeys[index].address == nil { found.identityKeys[index].address = address }
        default:
            break
        }
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
    private var identityKeyScan = IdentityKeyScan()
    /// Long-term keys the host handed its controller (LE Enable Encryption, LE Long Term Key
    /// Request Reply), as the commands carry them.
    public private(set) var revealedKeys: [[UInt8]] = []

    /// Identity resolving keys SMP distributed: in a host's log, or on the air where its
    /// decoder read the SMP (a key known for the encrypted link).
    public var identityKeys: KeysAhead {
        var keys = identityKeyScan.found
        if let air { keys.add(air.identityKeys) }
        return keys
    }

    private let gathersKeys: Bool

    /// `gathersKeys`: whether to look for the keys a host's log reveals (the alignment's
    /// reading does; the merged reader, which already has them, does not).
    public init(keys: [[UInt8]] = [], gathersKeys: Bool = true) {
        self.keys = keys
        self.gathersKeys = gathersKeys
    }

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
        if gathersKeys {
            if let key = LinkEvent.revealedKey(frame), !revealedKeys.contains(key), revealedKeys.count < 256 { revealedKeys.append(key) }
            identityKeyScan.feed(frame)
        }
        guard let pdu = hci.feed(frame) else { return }
        body(LoggedPDU(fingerprint: pdu.fingerprint, handle: pdu.handle, sent: pdu.sent, air: false, accessAddress: nil, event: pdu.event))
    }
}
