import BTCapture

/// A key a capture shows in plain text: an LTK, IRK or CSRK distributed over SMP (which a host
/// logs unencrypted), an LTK a host gives its controller, a BR/EDR link key. What `btlog keys`
/// lists, and the LTKs it writes for `--keys`.
public struct RevealedKey: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case ltk = "LTK", irk = "IRK", csrk = "CSRK", linkKey = "Link key"
    }

    public var kind: Kind
    /// Most significant octet first (as the specifications, btmon and `--ltk` quote an LTK),
    /// except a link key, which is as HCI carries it (least significant first), as BlueZ and
    /// Android store it.
    public var key: [UInt8]
    /// Where it showed: the packet, its controller and link.
    public var frame: Int
    public var controller: UInt16
    public var handle: UInt16?
    /// The device the key is shared with (the link's peer), or whose identity it is (an IRK).
    public var address: BDAddr?
    /// How it showed: "SMP Encryption Information, sent", "LE Long Term Key Request Reply".
    public var how: String
    /// An LTK's EDIV and Rand (0 and 0: LE Secure Connections, or a log that began later).
    public var ediv: UInt16?
    public var rand: UInt64?
}

/// The keys a capture revealed, each once (the same key given again, by the same means, for
/// the same device, is not listed twice): bounded by the distinct keys, not the packets. Kept in
/// logs the Session's copies share (`SharedLog`): a capture that encrypts each reconnection with
/// a new key grows them for as long as it lasts.
public struct RevealedKeys: Sendable {
    private var log = SharedLog<RevealedKey>()
    /// The identity addresses that followed IRKs: which key (its index in `log`), and the address.
    private var identities = SharedLog<(key: Int, address: BDAddr)>()

    /// Every key, in the order shown, each IRK with the identity address that followed it.
    public var keys: [RevealedKey] {
        var keys = log.elements
        for identity in identities.elements where keys.indices.contains(identity.key) {
            keys[identity.key].address = identity.address
        }
        return keys
    }

    mutating func add(_ key: RevealedKey) {
        var identity = Array(key.kind.rawValue.utf8) + key.key + Array(key.how.utf8)
        if let address = key.address { identity += address.littleEndianBytes }
        log.append(key, unlessSeen: identity)
    }

    /// The last IRK of a link, given the identity address that follows it (SMP sends Identity
    /// Address Information right after Identity Information).
    mutating func identify(irkOf handle: UInt16?, controller: UInt16, as address: BDAddr) {
        guard let index = log.lastIndex(where: { $0.kind == .irk && $0.handle == handle && $0.controller == controller }) else { return }
        identities.append((index, address))
    }
}

extension Session {
    /// Every key the capture showed so far, in order.
    public var revealedKeys: [RevealedKey] { smp.revealed.keys }
}
