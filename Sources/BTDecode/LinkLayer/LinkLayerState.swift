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

    /// Whether a PDU arrived intact: the sniffer's verdict stands; without one, the CRC is
    /// computed where its init is known; nil where neither can say.
    static func verdict(sniffer: Bool?, pdu: ArraySlice<UInt8>, crc: UInt32?, initial: UInt32?) -> Bool? {
        if let sniffer { return sniffer }
        guard let crc, let initial else { return nil }
        return compute(pdu, initial: initial) == crc
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

/// Who sent each packet of a connection or CIS whose sniffer does not say (Ubertooth): the
/// central opens every connection event, on a data channel of its own, and the sides then take
/// turns, T_IFS (150 µs) apart. So a packet on another channel than the one before opens an event
/// and is the central's; the next ones on the same channel alternate. Where the capture has no
/// channel, a gap longer than T_IFS after the previous packet opens an event, measured on the
/// sniffer's own clock where it has one (Ubertooth's PPI), else on the capture's timestamps, and
/// only while those run forward: a host's arrival times can jitter and go backwards, and a
/// direction read from them would be a guess. Where nothing tells, the sender is unknown (nil).
struct EventRhythm {
    var lastDirection: Direction?
    var lastChannel: UInt8?
    /// The sniffer's clock at the last packet (100 ns units, wrapping at 32 bits).
    var lastClock: UInt32?
    /// The capture's time at the last packet, and when (by that time) it ended on the air.
    var lastTime: Int64?
    var lastEnd: Int64?

    /// Within a connection event the sides answer each other after T_IFS; anything longer than
    /// this (a 3 ms silence) is the next event, 7.5 ms or more after the last one opened.
    static let eventGap: Int64 = 3_000

    /// The sender of a packet of `length` payload bytes at `now`, or nil where it cannot be told.
    /// A damaged packet still took its turn when the channel says so; by timing alone it is not
    /// trusted to set the rhythm (its length may be wrong).
    mutating func sender(reception: AirReception, now: Int64, length: Int, crcOK: Bool) -> Direction? {
        defer {
            if reception.channel != nil || crcOK {
                lastChannel = reception.channel
                lastClock = reception.clock
                lastTime = now
                lastEnd = now.saturatingAdd(LinkLayerDecoder.airTime(payload: length, phy: reception.phy))
            }
        }
        if let direction = reception.direction {
            lastDirection = direction
            return direction
        }
        let opens = opensEvent(reception: reception, now: now, length: length)
        let direction: Direction?
        switch opens {
        case true?: direction = .sent
        case false?: direction = lastDirection.map { $0 == .sent ? .received : .sent }
        case nil: direction = nil
        }
        if reception.channel != nil || crcOK { lastDirection = direction }
        return direction
    }

    /// Whether a packet of `length` payload bytes opens a connection event: nil when nothing can tell.
    private func opensEvent(reception: AirReception, now: Int64, length: Int) -> Bool? {
        // The sniffer's clock: microseconds since the last packet began (modulo its 32-bit wrap).
        let clockGap: Int64? = reception.clock.flatMap { clock in lastClock.map { Int64((clock &- $0) / 10) } }
        // The capture's time, only while it runs forward.
        let timeGap: Int64? = lastTime.flatMap { now >= $0 ? now.saturatingSubtract($0) : nil }
        if let channel = reception.channel {
            guard let lastChannel, channel == lastChannel else { return true }
            // The same channel: the same event, unless a silence as long as an event's spacing
            // came between (channel selection #2 may pick one channel twice in a row).
            return (clockGap ?? timeGap).map { $0 > Self.eventGap } ?? false
        }
        guard let lastTime, let lastEnd else { return true }
        // An answer comes T_IFS after the packet before ended; 300 µs more for the sniffer's slack.
        let answerWithin = 150 + 300 + LinkLayerDecoder.airTime(payload: length, phy: reception.phy)
        if let clockGap { return clockGap > lastEnd.saturatingSubtract(lastTime).saturatingAdd(answerWithin) }
        guard timeGap != nil else { return nil }
        return now.saturatingSubtract(lastEnd) > answerWithin
    }
}

/// A value for each side of a link, indexed as the decoder numbers them (0 the central, 1 the
/// peripheral): two stored values, where an array would be copied and reallocated each time a
/// connection, copied out of the state per packet, changes it.
struct SidePair<Value> {
    var central: Value, peripheral: Value

    init(_ central: Value, _ peripheral: Value) {
        self.central = central
        self.peripheral = peripheral
    }

    subscript(side: Int) -> Value {
        get { side == 0 ? central : peripheral }
        set { if side == 0 { central = newValue } else { peripheral = newValue } }
    }
}

/// The last PDU each sender of a link sent (central, peripheral, a sender not told apart),
/// as its SN, LLID, length and a digest of its payload: enough to tell a copy sent again, with
/// no bytes held or allocated per packet.
struct LastPDUs {
    struct Mark: Equatable {
        var header: UInt8
        var length: Int
        var digest: Int
    }

    private var central: Mark?, peripheral: Mark?, unknown: Mark?

    /// Whether this PDU repeats its side's previous one, which it then becomes. The NESN may
    /// move on between two copies (the sender acknowledges meanwhile): the SN, the LLID and the
    /// payload are what repeat.
    mutating func isRepeat(sn: UInt8, llid: UInt8, payload: ArraySlice<UInt8>, side: Int) -> Bool {
        var hasher = Hasher()
        payload.withUnsafeBytes { hasher.combine(bytes: $0) }
        let mark = Mark(header: sn | llid << 1, length: payload.count, digest: hasher.finalize())
        switch side {
        case 0: defer { central = mark }; return central == mark
        case 1: defer { peripheral = mark }; return peripheral == mark
        default: defer { unknown = mark }; return unknown == mark
        }
    }
}

/// What the link layer remembers across packets taken from the air: the connections by
/// access address, from their CONNECT_IND or, for a capture that starts mid-connection, from
/// their first data packet.
public struct LinkLayerState: ProtocolState {
    public static var slot: Int { StateSlot.linkLayer.rawValue }

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
        /// The last PDU each side sent, for retransmissions.
        var lastPDU = LastPDUs()
        /// The NESN of each side's last packet received intact (central, peripheral): what it
        /// expected next.
        var lastNESN = SidePair<UInt8?>(nil, nil)
        /// Whether the sniffer got any packet from each side since the other side's last intact
        /// one: a side whose NESN moves on acknowledged a packet, and if the sniffer heard none,
        /// it missed it.
        var heardSince = SidePair<Bool>(false, false)
        /// Packets of each side found missing by the other side's acknowledgements and not yet
        /// matched by that side's packet counter (so one missed packet is counted once).
        var missedUnconfirmed = SidePair<Int>(0, 0)
        /// Packets of this link the sniffer missed so far.
        var missedTotal = 0
        /// The sniffer authenticated a packet of this link itself (its MIC flag set): a flag left
        /// clear later is a failed check, not a sniffer without the key.
        var snifferAuthenticated = false
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
        var counters = SidePair<UInt64>(0, 0)
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
        var lastPDU = LastPDUs()
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
