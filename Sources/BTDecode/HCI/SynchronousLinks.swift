import BTCapture

/// The SCO/eSCO and ISO links of a capture, learnt from the HCI traffic that sets them up, so
/// that their data packets name what they carry: an SCO link's peer, air mode and (through its
/// ACL link) the codec HFP chose; a CIS's ACL link and CIG, a BIS's BIG; and each ISO stream's
/// last packet sequence number, to find what was lost.
public struct SynchronousLinksState: ProtocolState {
    public static var slot: Int { StateSlot.synchronousLinks.rawValue }

    public struct SCOLink: Equatable {
        public var peer: BDAddr
        public var eSCO: Bool
        /// Synchronous Connection Complete's air mode: 0 µ-law, 1 A-law, 2 CVSD, 3 transparent.
        public var airMode: UInt8
        /// The ACL link to the same peer, whose HFP codec negotiation says what transparent data is.
        public var acl: UInt16?
    }

    public struct ISOLink: Equatable {
        /// A CIS's ACL link (from LE Create CIS or LE CIS Request).
        public var acl: UInt16?
        public var cig: UInt8?
        public var cis: UInt8?
        /// A BIS's BIG and its place among the BIG's BISes (1-based).
        public var big: UInt8?
        public var bis: Int?
    }

    struct FlowKey: WordKey {
        var link: Session.LinkKey
        var sent: Bool

        var hashWord: UInt64 { UInt64(link.packed) << 1 | (sent ? 1 : 0) }
    }

    public internal(set) var sco: [Session.LinkKey: SCOLink] = [:]
    public internal(set) var iso: [Session.LinkKey: ISOLink] = [:]
    var lastSequence: [FlowKey: UInt16] = [:]
    /// The last H2 sequence number (0-3) on each SCO link and direction.
    var lastH2: [FlowKey: Int] = [:]

    public init() {}

    public mutating func close(_ link: Session.LinkKey) -> [String] {
        sco[link] = nil
        iso[link] = nil
        lastSequence[FlowKey(link: link, sent: true)] = nil
        lastSequence[FlowKey(link: link, sent: false)] = nil
        lastH2[FlowKey(link: link, sent: true)] = nil
        lastH2[FlowKey(link: link, sent: false)] = nil
        return []
    }

    public mutating func finish() -> [SessionReport] { [] }
}

extension Session {
    public var synchronousLinks: SynchronousLinksState {
        _read { yield self[SynchronousLinksState.self] }
        _modify { yield &self[SynchronousLinksState.self] }
    }
}

/// What the setup commands and events say about synchronous and isochronous links. Read from
/// the raw parameters (these are rare packets), beside the table-driven decode of their fields;
/// each is called by its command's or event's row decoder, with the parameters after the code
/// (after the status, for a return).
enum SynchronousLinks {
    private static func key(_ handle: UInt16, _ controller: UInt16) -> Session.LinkKey {
        .init(controller: controller, handle: handle & 0x0FFF)
    }

    /// Synchronous Connection Complete: an SCO or eSCO link, its peer and air mode.
    static func synchronousConnectionComplete(_ parameters: ArraySlice<UInt8>, controller: UInt16, _ session: inout Session) {
        var c = ByteCursor(parameters)
        guard let status = try? c.u8(), status == 0, let handle = try? c.u16(), let address = try? c.slice(6),
              let linkType = try? c.u8(), (try? c.slice(6)) != nil, let airMode = try? c.u8() else { return }
        let peer = BDAddr(littleEndian: address)
        session.synchronousLinks.sco[key(handle, controller)] = .init(peer: peer, eSCO: linkType == 2, airMode: airMode,
                                                                      acl: aclHandle(to: peer, controller, session))
    }

    /// Connection Complete for an SCO link (link type 0): CVSD.
    static func connectionComplete(_ parameters: ArraySlice<UInt8>, controller: UInt16, _ session: inout Session) {
        var c = ByteCursor(parameters)
        guard let status = try? c.u8(), status == 0, let handle = try? c.u16(), let address = try? c.slice(6),
              let linkType = try? c.u8(), linkType == 0 else { return }
        let peer = BDAddr(littleEndian: address)
        session.synchronousLinks.sco[key(handle, controller)] = .init(peer: peer, eSCO: false, airMode: 2, acl: aclHandle(to: peer, controller, session))
    }

    /// LE CIS Established: the CIS is a link from now on, whatever set it up.
    static func cisEstablished(_ parameters: ArraySlice<UInt8>, controller: UInt16, _ session: inout Session) {
        var c = ByteCursor(parameters)
        guard let status = try? c.u8(), status == 0, let handle = try? c.u16() else { return }
        if session.synchronousLinks.iso[key(handle, controller)] == nil { session.synchronousLinks.iso[key(handle, controller)] = .init() }
    }

    /// LE CIS Request: the peripheral learns the pairing of ACL and CIS.
    static func cisRequest(_ parameters: ArraySlice<UInt8>, controller: UInt16, _ session: inout Session) {
        var c = ByteCursor(parameters)
        guard let acl = try? c.u16(), let cis = try? c.u16(), let cig = try? c.u8(), let cisID = try? c.u8() else { return }
        session.synchronousLinks.iso[key(cis, controller)] = .init(acl: acl & 0x0FFF, cig: cig, cis: cisID)
    }

    /// LE Create BIG Complete: the BIS handles of the BIG, in order.
    static func bigCreated(_ parameters: ArraySlice<UInt8>, controller: UInt16, _ session: inout Session) {
        learnBIG(parameters, skipping: 3 + 3 + 1 + 1 + 1 + 1 + 1 + 2 + 2, controller: controller, &session)
    }

    /// LE BIG Sync Established: the same, for a BIG this controller receives.
    static func bigSyncEstablished(_ parameters: ArraySlice<UInt8>, controller: UInt16, _ session: inout Session) {
        learnBIG(parameters, skipping: 3 + 1 + 1 + 1 + 1 + 2 + 2, controller: controller, &session)
    }

    /// Status and BIG handle, `skip` bytes of the BIG's parameters, then the count and the BIS handles.
    private static func learnBIG(_ parameters: ArraySlice<UInt8>, skipping skip: Int, controller: UInt16, _ session: inout Session) {
        var c = ByteCursor(parameters)
        guard let status = try? c.u8(), status == 0, let big = try? c.u8(), (try? c.slice(skip)) != nil, let count = try? c.u8() else { return }
        for index in 0 ..< Int(count) {
            guard let handle = try? c.u16() else { return }
            session.synchronousLinks.iso[key(handle, controller)] = .init(big: big, bis: index + 1)
        }
    }

    static func aclHandle(to peer: BDAddr, _ controller: UInt16, _ session: Session) -> UInt16? {
        session.connections.first { $0.key.controller == controller && !$0.value.isLE && $0.value.peer == peer
            && session.synchronousLinks.sco[$0.key] == nil }?.key.handle
    }

    /// LE Create CIS: CIS handle, ACL handle pairs.
    static func createCIS(_ parameters: ArraySlice<UInt8>, controller: UInt16, _ session: inout Session) {
        var c = ByteCursor(parameters)
        guard let count = try? c.u8() else { return }
        for _ in 0 ..< count {
            guard let cis = try? c.u16(), let acl = try? c.u16() else { return }
            var link = session.synchronousLinks.iso[key(cis, controller)] ?? .init()
            link.acl = acl & 0x0FFF
            session.synchronousLinks.iso[key(cis, controller)] = link
        }
    }

    /// LE Set CIG Parameters' successful return, after the status: the CIS handles of the CIG.
    static func cigParameters(_ parameters: ArraySlice<UInt8>, controller: UInt16, _ session: inout Session) {
        var c = ByteCursor(parameters)
        guard let cig = try? c.u8(), let count = try? c.u8() else { return }
        for _ in 0 ..< count {
            guard let handle = try? c.u16() else { return }
            var link = session.synchronousLinks.iso[key(handle, controller)] ?? .init()
            link.cig = cig
            session.synchronousLinks.iso[key(handle, controller)] = link
        }
    }
}
