import BTCapture

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
    public mutating func feed(_ frame: Frame) -> (fingerprint: PDUFingerprint, handle: UInt16, sent: Bool)? {
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
        return (PDUFingerprint(value: Self.finish(state.hash)), handle, sent)
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
