import BTCapture

/// Resolvable private addresses (Core Vol 6, Part B, 1.3.2.2): the top two bits 0b01, a 22-bit
/// random part (prand), and a 24-bit hash of it under the device's identity resolving key,
/// ah(IRK, prand) = e(IRK, 0…0 ‖ prand) mod 2^24 (Vol 3, Part H, 2.2.2). A device that gave its
/// IRK (SMP Identity Information, in any merged source; `--irk`) is known under every address
/// it takes: each packet whose peer's address resolves names the device's identity.
public struct PrivateAddresses: Sendable {
    public struct Identity: Sendable, Equatable {
        /// Most significant octet first, as the specification and `btlog keys` write it.
        public var irk: [UInt8]
        /// The identity address (SMP Identity Address Information, or given with the key);
        /// nil where the capture never showed it.
        public var address: BDAddr?
        /// The packet that showed the key (0: given on the command line; `foundAhead`: a
        /// merged capture shows it in a packet not decoded yet).
        public var frame: Int
    }

    public private(set) var identities: [Identity] = []
    private var ciphers: [AES128] = []
    /// Addresses looked at: the identity each resolved to (its index), or -1. Bounded: the
    /// addresses one capture shows are few, a flood of random ones is forgotten.
    private var resolved: [BDAddr: Int] = [:]
    static let mostRemembered = 4_096
    static let mostKeys = KeysAhead.mostIdentityKeys
    /// The frame of a key a merge found ahead: until its packet is decoded, it has none.
    public static let foundAhead = -1

    public init() {}

    public var isEmpty: Bool { identities.isEmpty }

    /// What a packet whose peer resolved carries: the identity address (nil where never shown)
    /// and the packet that showed the key.
    public struct Resolved: Sendable, Equatable {
        public var address: BDAddr?
        public var keyFrame: Int
    }

    /// A key learnt; the same key again keeps its first packet (and gains an address it lacked),
    /// but a key found ahead takes the packet that shows it when decoding reaches it.
    @discardableResult
    mutating func learn(irk: [UInt8], address: BDAddr? = nil, frame: Int) -> Int {
        guard irk.count == 16 else { return -1 }
        if let index = identities.firstIndex(where: { $0.irk == irk }) {
            if identities[index].address == nil, let address { identities[index].address = address }
            if identities[index].frame == Self.foundAhead, frame > 0 { identities[index].frame = frame }
            return index
        }
        // Each new address is tried against every key: a capture that floods keys must not make
        // that cost grow without end (a real one shows a few).
        guard identities.count < Self.mostKeys else { return -1 }
        identities.append(Identity(irk: irk, address: address, frame: frame))
        ciphers.append(AES128(key: irk))
        // Addresses that resolved to nothing may resolve now.
        resolved = resolved.filter { $0.value >= 0 }
        return identities.count - 1
    }

    /// The identity address of a key learnt (Identity Address Information follows Identity
    /// Information).
    mutating func identify(_ index: Int, as address: BDAddr) {
        guard identities.indices.contains(index) else { return }
        identities[index].address = address
    }

    /// Whether an address has the form of a resolvable private one (the top two bits 0b01).
    /// The address type is not always at hand: a public address of that form resolves only if
    /// a known key happens to hash its low 24 bits, one chance in 16 million per key.
    public static func isResolvable(_ address: BDAddr) -> Bool { address.bytes.0 & 0xC0 == 0x40 }

    /// The device whose key resolves `address`, if any.
    public mutating func resolve(_ address: BDAddr) -> Identity? {
        guard !identities.isEmpty, Self.isResolvable(address) else { return nil }
        if let index = resolved[address] { return index >= 0 ? identities[index] : nil }
        // The top 24 bits are prand (its two highest 0b01), the low 24 the hash.
        let prand = UInt32(truncatingIfNeeded: address.packed >> 24), hash = UInt32(truncatingIfNeeded: address.packed & 0xFF_FFFF)
        let index = ciphers.firstIndex { Self.hash($0, prand: prand) == hash } ?? -1
        if resolved.count >= Self.mostRemembered { resolved.removeAll(keepingCapacity: true) }
        resolved[address] = index
        return index >= 0 ? identities[index] : nil
    }

    /// ah: the low 24 bits of e(IRK, r'), r' the prand in the block's last three octets.
    static func hash(_ cipher: AES128, prand: UInt32) -> UInt32 {
        cipher.encrypt((0, 0, 0, prand & 0xFF_FFFF)).3 & 0xFF_FFFF
    }

    /// ah for a key and a prand: the specification's sample data checks it.
    public static func hash(irk: [UInt8], prand: UInt32) -> UInt32 {
        hash(AES128(key: irk), prand: prand)
    }
}
