import BTCapture

/// The 24-bit CRC of the LE link layer (Core Vol 6, Part B, 3.1.1): polynomial
/// x^24 + x^10 + x^9 + x^6 + x^4 + x^3 + x + 1 over the PDU's bits in air order (least
/// significant bit of each byte first), the register preset with the CRC init, sent from its
/// highest position down, so each captured byte holds its 8 bits reversed.
enum LinkLayerCRC {
    static func compute(_ pdu: ArraySlice<UInt8>, initial: UInt32) -> UInt32 {
        var state = initial & 0xFF_FFFF
        for byte in pdu {
            var bits = byte
            for _ in 0 ..< 8 {
                let feedback = (state >> 23 ^ UInt32(bits)) & 1
                state = (state << 1) & 0xFF_FFFF
                if feedback != 0 { state ^= 0x00_065B }
                bits >>= 1
            }
        }
        return state
    }

    /// The register value 3 captured CRC bytes hold: sent from position 23 down, each byte's
    /// least significant bit first. This is the value people (and Wireshark's btle.crc) quote.
    static func value(captured bytes: ArraySlice<UInt8>) -> UInt32 {
        var value: UInt32 = 0
        for byte in bytes { value = value << 8 | UInt32(byte.bitReversed) }
        return value
    }
}

extension UInt8 {
    var bitReversed: UInt8 {
        var value = self, result: UInt8 = 0
        for _ in 0 ..< 8 {
            result = result << 1 | value & 1
            value >>= 1
        }
        return result
    }
}

/// Who sent the last packet of a connection or CIS, and when it ended on the air: a packet
/// whose sniffer does not say who sent it is the central's when it opens an event (the central
/// opens each), else the other side's, T_IFS (150 µs) after the one before.
struct EventRhythm {
    var lastDirection: Direction?
    var lastEnd: Int64?

    /// The sender of a packet of `length` payload bytes at `now`; a damaged packet is not
    /// trusted to set the rhythm.
    mutating func sender(reception: AirReception, now: Int64, length: Int, crcOK: Bool) -> Direction {
        var direction = reception.direction ?? .sent
        if reception.direction == nil, let lastDirection, let lastEnd,
           now - lastEnd <= 150 + 300 + LinkLayerDecoder.airTime(payload: length, phy: reception.phy) {
            direction = lastDirection == .sent ? .received : .sent
        }
        if crcOK {
            lastDirection = direction
            lastEnd = now + LinkLayerDecoder.airTime(payload: length, phy: reception.phy)
        }
        return direction
    }
}

/// What the link layer remembers across packets taken from the air: the connections by
/// access address, from their CONNECT_IND or, for a capture that starts mid-connection, from
/// their first data packet.
public struct LinkLayerState: ProtocolState {
    public static let slot = ProtocolCatalog.slot(of: LinkLayerState.self)

    public struct Connection {
        /// btlog's number for the link, used as an HCI handle is: L2CAP, ATT and the rest key
        /// their state by it.
        public var handle: UInt16
        public var crcInit: UInt32?
        public var central: BDAddr?
        public var peripheral: BDAddr?
        public var peripheralAddressType: UInt8 = 0
        /// The frame of its CONNECT_IND, if the capture has it.
        public var connectFrame: Int?
        var rhythm = EventRhythm()
        /// The last sequence number each side sent (central, peripheral), for retransmissions.
        var lastSN: [UInt8?] = [nil, nil]
        /// From the peripheral's LL_START_ENC_REQ until LL_PAUSE_ENC or the end of the link,
        /// payloads are encrypted.
        var encrypted = false
        /// The central's address type (CONNECT_IND's TxAdd), for legacy pairing's confirm values.
        var centralAddressType: UInt8 = 0
        /// What LL_ENC_REQ and LL_ENC_RSP exchanged, and the session once a key opened a packet.
        var exchange = LinkLayerEncryption.Exchange()
        var cipher: LinkLayerEncryption.Session?
        /// Where the key came from ("the STK of Just Works pairing", "--ltk"); nil: none found.
        var keySource: String?
        /// Each side's count of encrypted PDUs so far (the CCM nonce's packet counter).
        var counters: [UInt64] = [0, 0]
        /// Keys to try on the first encrypted packets (found once), and how many packets tried
        /// them: a damaged first packet does not leave the link undecrypted.
        var candidates: [(key: [UInt8], source: String)] = []
        var keyAttempts = 0
        /// The packet being decoded failed its MIC with the link's session key.
        var micFailed = false
        /// The CIG and CIS of the LL_CIS_REQ awaiting its LL_CIS_IND.
        var pendingCIS: (cig: UInt8, cis: UInt8)?
    }

    /// A periodic advertising train a SyncInfo announced: its AUX_SYNC_IND and AUX_CHAIN_IND
    /// come on its access address, with its CRC init.
    public struct PeriodicTrain {
        public var crcInit: UInt32
        public var advertiser: BDAddr?
        public var sid: UInt8?
        public var interval: UInt16 = 0
        /// The train's last PDU had an AuxPtr: the next one is its AUX_CHAIN_IND.
        var chainPending = false

        init(crcInit: UInt32) { self.crcInit = crcInit }
    }

    /// A connected isochronous stream, from the LL_CIS_IND that gave its access address.
    public struct IsochronousStream {
        /// btlog's number for it, as for a connection.
        public var handle: UInt16
        /// The ACL connection it was set up on.
        public var aclHandle: UInt16
        public var cigID: UInt8?
        public var cisID: UInt8?
        public var central: BDAddr?
        public var peripheral: BDAddr?
        var rhythm = EventRhythm()
        var lastSN: [UInt8?] = [nil, nil]
    }

    /// A broadcast isochronous group, from the BIGInfo a periodic train carried, by its seed
    /// access address.
    public struct BroadcastGroup {
        public var numBIS: UInt8
        public var framed: Bool
        public var encrypted: Bool
    }

    public internal(set) var connections: [UInt32: Connection] = [:]
    public internal(set) var trains: [UInt32: PeriodicTrain] = [:]
    public internal(set) var streams: [UInt32: IsochronousStream] = [:]
    public internal(set) var groups: [UInt32: BroadcastGroup] = [:]
    /// Advertising data of a chain not yet ended, by its train's access address or (1 << 32 | ADI).
    var chains: [UInt64: [UInt8]] = [:]
    var nextHandle: UInt16 = 1

    public init() {}

    /// The connection of this access address, made when first seen.
    mutating func connection(_ accessAddress: UInt32) -> Connection {
        if let known = connections[accessAddress] { return known }
        let made = Connection(handle: takeHandle())
        connections[accessAddress] = made
        return made
    }

    /// The next number for a link: connections and isochronous streams count together, as
    /// HCI handles do.
    mutating func takeHandle() -> UInt16 {
        defer { nextHandle = nextHandle == 0x0EFF ? 1 : nextHandle + 1 }
        return nextHandle
    }

    public mutating func close(_ link: Session.LinkKey) -> [String] { [] }
    public mutating func finish() -> [SessionReport] { [] }
}

extension Session {
    public var linkLayer: LinkLayerState {
        _read { yield self[LinkLayerState.self] }
        _modify { yield &self[LinkLayerState.self] }
    }
}
