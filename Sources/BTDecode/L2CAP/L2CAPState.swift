import BTCapture

/// L2CAP state of a capture: PDUs being reassembled per link and direction, and the dynamic
/// channels opened by signaling (CID → PSM → protocol), so that data on a channel reaches
/// the decoder of the protocol its PSM names.
public struct L2CAPState: ProtocolState {
    public static var slot: Int { StateSlot.l2cap.rawValue }

    struct FlowKey: WordKey {
        var link: Session.LinkKey
        /// Host to controller.
        var sent: Bool

        var hashWord: UInt64 { UInt64(link.packed) << 1 | (sent ? 1 : 0) }
    }

    struct PendingPDU {
        var data: [UInt8]
        /// Header plus payload length, once the 2-byte length has arrived.
        var expected: Int?
        var fragments: Int
        var firstFrame: Int
    }

    /// A connection request waiting for its response, by link, who asked, and identifier.
    struct RequestKey: WordKey {
        var link: Session.LinkKey
        var requesterIsLocal: Bool
        var ident: UInt8

        var hashWord: UInt64 { UInt64(link.packed) << 9 | (requesterIsLocal ? 0x100 : 0) | UInt64(ident) }
    }

    struct PendingRequest {
        var psm: UInt16
        var sourceCIDs: [UInt16]
        var mode: L2CAPChannel.Mode
    }

    /// A Configuration Request, or a Credit Based Reconfigure Request, awaiting its response:
    /// what it proposed, for the channel (by the CID it names) or channels it named.
    struct PendingConfiguration {
        var cids: [UInt16]
        var options: L2CAPSignaling.Options
    }

    var reassembly: [FlowKey: PendingPDU] = [:]
    var requests: [RequestKey: PendingRequest] = [:]
    var configurations: [RequestKey: PendingConfiguration] = [:]
    public internal(set) var channels: [Session.LinkKey: [L2CAPChannel]] = [:]
    /// The tree's text for a CID and its PSM ("0x0052 (AVDTP)"), made once per pair rather than
    /// once per packet; bounded, as a capture has few channels.
    var displays: [UInt32: (cid: String, psm: String?)] = [:]

    public init() {}

    mutating func displays(cid: UInt16, psm: UInt16?, protocolName: String?) -> (cid: String, psm: String?) {
        let key = UInt32(psm ?? 0xFFFF) << 16 | UInt32(cid)
        if let known = displays[key] { return known }
        let made = (cid: protocolName.map { "\(Hex.u16(cid)) (\($0))" } ?? Hex.u16(cid),
                    psm: psm.map { "\(Hex.u16($0)) (\(L2CAPProtocols.name(psm: $0)))" })
        if displays.count >= 4096 { displays.removeAll(keepingCapacity: true) }
        displays[key] = made
        return made
    }

    /// The channel a PDU with this destination CID travels on: a PDU the host sends goes to
    /// the remote endpoint's CID; one it receives, to its own.
    public func channel(_ link: Session.LinkKey, cid: UInt16, sent: Bool) -> L2CAPChannel? {
        channels[link]?.first { (sent ? $0.remoteCID : $0.localCID) == cid }
    }

    mutating func update(_ link: Session.LinkKey, cid: UInt16, sent: Bool, _ change: (inout L2CAPChannel) -> Void) {
        guard let index = channels[link]?.firstIndex(where: { (sent ? $0.remoteCID : $0.localCID) == cid }) else { return }
        change(&channels[link]![index])
    }

    /// A request awaiting its response; bounded, as a garbled capture could send requests that
    /// are never answered.
    mutating func await(_ key: RequestKey, _ pending: PendingConfiguration) {
        if configurations.count >= 1024 { configurations.removeAll(keepingCapacity: true) }
        configurations[key] = pending
    }

    /// A channel connected: one still recorded with either of its CIDs (its disconnection not
    /// in the capture) is gone, so nothing of it (its mode, FCS, configuration) reaches the new one.
    mutating func open(_ link: Session.LinkKey, _ channel: L2CAPChannel) {
        channels[link, default: []].removeAll { $0.localCID == channel.localCID || $0.remoteCID == channel.remoteCID }
        channels[link, default: []].append(channel)
        // A Configuration Request the old channel left unanswered names the new one's CID: its
        // answer is not the new channel's.
        if !configurations.isEmpty {
            configurations = configurations.filter { key, pending in
                key.link != link || !pending.cids.contains(key.requesterIsLocal ? channel.remoteCID : channel.localCID)
            }
        }
    }

    mutating func remove(_ link: Session.LinkKey, localCID: UInt16) {
        channels[link]?.removeAll { $0.localCID == localCID }
    }

    /// The link is gone: report PDUs left incomplete and forget its channels.
    public mutating func close(_ link: Session.LinkKey) -> [String] {
        var messages: [String] = []
        for (key, pending) in reassembly where key.link == link {
            messages.append(Self.incompleteMessage(pending, key, at: "disconnection", naming: true))
            reassembly[key] = nil
        }
        channels[link] = nil
        requests = requests.filter { $0.key.link != link }
        configurations = configurations.filter { $0.key.link != link }
        return messages
    }

    public mutating func finish() -> [SessionReport] {
        let reports = reassembly.map { key, pending in
            SessionReport(frameNumber: pending.firstFrame, severity: .warning,
                          message: Self.incompleteMessage(pending, key, at: "the end of the capture", naming: false))
        }
        reassembly.removeAll()
        return reports
    }

    static func incompleteMessage(_ pending: PendingPDU, _ key: FlowKey, at moment: String, naming packet: Bool) -> String {
        let total = pending.expected.map { " of \($0)" } ?? ""
        return "L2CAP PDU \(key.sent ? "sent" : "received") on handle \(Hex.u16(key.link.handle))\(packet ? " started in packet \(pending.firstFrame)" : "") incomplete at \(moment): \(pending.data.count)\(total) bytes in \(pending.fragments) fragment\(pending.fragments == 1 ? "" : "s")"
    }
}

extension Session {
    public var l2cap: L2CAPState { _read { yield self[L2CAPState.self] } _modify { yield &self[L2CAPState.self] } }
}

/// A dynamic L2CAP channel: its two endpoints' CIDs, PSM and mode.
public struct L2CAPChannel: Equatable {
    public enum Mode: UInt8 {
        case basic = 0, retransmission = 1, flowControl = 2, enhancedRetransmission = 3, streaming = 4
        /// Not configuration values: the modes of LE and enhanced credit-based connections.
        case leCreditBased = 0x80, enhancedCreditBased = 0x81

        var name: String {
            switch self {
            case .basic: return "Basic"
            case .retransmission: return "Retransmission"
            case .flowControl: return "Flow Control"
            case .enhancedRetransmission: return "Enhanced Retransmission"
            case .streaming: return "Streaming"
            case .leCreditBased: return "LE Credit Based"
            case .enhancedCreditBased: return "Enhanced Credit Based"
            }
        }
        var isCreditBased: Bool { self == .leCreditBased || self == .enhancedCreditBased }
    }

    public var psm: UInt16
    public var localCID: UInt16
    public var remoteCID: UInt16
    /// The mode in force: the one a Configuration Response accepted, not merely requested.
    public var mode: Mode
    /// Whether ERTM/streaming frames end in a 2-byte FCS: the FCS is left out only when both
    /// sides' accepted requests asked for "No FCS" (Core Vol 3, Part A, 5.5).
    public var hasFCS: Bool { !(configured[true]?.noFCS == true && configured[false]?.noFCS == true) }
    /// What each side's accepted Configuration Request set (keyed by whether the local host
    /// asked): the MTU it receives, its flush timeout, its FCS wish; credit-based channels'
    /// MTU and MPS as a reconfiguration changed them.
    public var configured: [Bool: Configuration] = [:]

    public struct Configuration: Equatable {
        public var mtu: UInt16?
        public var mps: UInt16?
        public var flushTimeout: UInt16?
        public var noFCS = false
    }
    /// SDUs of credit-based channels being reassembled from K-frames, by direction (sent?).
    var sdu: [Bool: PendingSDU] = [:]

    struct PendingSDU: Equatable {
        var data: [UInt8]
        var expected: Int
    }

    public var protocolName: String { L2CAPProtocols.name(psm: psm) }

    public static func == (a: L2CAPChannel, b: L2CAPChannel) -> Bool {
        a.psm == b.psm && a.localCID == b.localCID && a.remoteCID == b.remoteCID && a.mode == b.mode && a.configured == b.configured
    }
}
