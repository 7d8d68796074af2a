import BTCapture

/// The SCO/eSCO and ISO links of a capture, learnt from the HCI traffic that sets them up, so
/// that their data packets name what they carry: an SCO link's peer, air mode and (through its
/// ACL link) the codec HFP chose; a CIS's ACL link and CIG, a BIS's BIG; and each ISO stream's
/// last packet sequence number, to find what was lost.
public struct SynchronousLinksState: ProtocolState {
    public static let slot = ProtocolCatalog.slot(of: SynchronousLinksState.self)

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
/// the raw parameters (these are rare packets), beside the table-driven decode of their fields.
enum SynchronousLinks {
    static func learn(event code: UInt8, _ parameters: ArraySlice<UInt8>, controller: UInt16, _ session: inout Session) {
        var c = ByteCursor(parameters)
        func key(_ handle: UInt16) -> Session.LinkKey { .init(controller: controller, handle: handle & 0x0FFF) }
        switch code {
        case 0x2C: // Synchronous Connection Complete
            guard let status = try? c.u8(), status == 0, let handle = try? c.u16(), let address = try? c.slice(6),
                  let linkType = try? c.u8(), (try? c.slice(6)) != nil, let airMode = try? c.u8() else { return }
            let peer = BDAddr(littleEndian: address)
            session.synchronousLinks.sco[key(handle)] = .init(peer: peer, eSCO: linkType == 2, airMode: airMode, acl: aclHandle(to: peer, controller, session))
        case 0x03: // Connection Complete for an SCO link (link type 0)
            guard let status = try? c.u8(), status == 0, let handle = try? c.u16(), let address = try? c.slice(6),
                  let linkType = try? c.u8(), linkType == 0 else { return }
            let peer = BDAddr(littleEndian: address)
            session.synchronousLinks.sco[key(handle)] = .init(peer: peer, eSCO: false, airMode: 2, acl: aclHandle(to: peer, controller, session))
        case 0x3E:
            guard let subevent = try? c.u8() else { return }
            switch subevent {
            case 0x19: // CIS Established
                guard let status = try? c.u8(), status == 0, let handle = try? c.u16() else { return }
                if session.synchronousLinks.iso[key(handle)] == nil { session.synchronousLinks.iso[key(handle)] = .init() }
            case 0x1A: // CIS Request: the peripheral learns the pairing of ACL and CIS
                guard let acl = try? c.u16(), let cis = try? c.u16(), let cig = try? c.u8(), let cisID = try? c.u8() else { return }
                session.synchronousLinks.iso[key(cis)] = .init(acl: acl & 0x0FFF, cig: cig, cis: cisID)
            case 0x1B, 0x1D: // Create BIG Complete, BIG Sync Established
                guard let status = try? c.u8(), status == 0, let big = try? c.u8() else { return }
                let skip = subevent == 0x1B ? 3 + 3 + 1 + 1 + 1 + 1 + 1 + 2 + 2 : 3 + 1 + 1 + 1 + 1 + 2 + 2
                guard (try? c.slice(skip)) != nil, let count = try? c.u8() else { return }
                for index in 0 ..< Int(count) {
                    guard let handle = try? c.u16() else { return }
                    session.synchronousLinks.iso[key(handle)] = .init(big: big, bis: index + 1)
                }
            default:
                break
            }
        default:
            break
        }
    }

    static func aclHandle(to peer: BDAddr, _ controller: UInt16, _ session: Session) -> UInt16? {
        session.connections.first { $0.key.controller == controller && !$0.value.isLE && $0.value.peer == peer
            && session.synchronousLinks.sco[$0.key] == nil }?.key.handle
    }

    static func learn(command opcode: UInt16, _ parameters: ArraySlice<UInt8>, controller: UInt16, _ session: inout Session) {
        guard opcode == 0x2064 else { return } // LE Create CIS: CIS handle, ACL handle pairs
        var c = ByteCursor(parameters)
        guard let count = try? c.u8() else { return }
        for _ in 0 ..< count {
            guard let cis = try? c.u16(), let acl = try? c.u16() else { return }
            let key = Session.LinkKey(controller: controller, handle: cis & 0x0FFF)
            var link = session.synchronousLinks.iso[key] ?? .init()
            link.acl = acl & 0x0FFF
            session.synchronousLinks.iso[key] = link
        }
    }

    /// LE Set CIG Parameters' return: the CIS handles of the CIG.
    static func learn(return opcode: UInt16, _ parameters: ArraySlice<UInt8>, controller: UInt16, _ session: inout Session) {
        guard opcode == 0x2062 || opcode == 0x2063 else { return }
        var c = ByteCursor(parameters)
        guard let status = try? c.u8(), status == 0, let cig = try? c.u8(), let count = try? c.u8() else { return }
        for _ in 0 ..< count {
            guard let handle = try? c.u16() else { return }
            let key = Session.LinkKey(controller: controller, handle: handle & 0x0FFF)
            var link = session.synchronousLinks.iso[key] ?? .init()
            link.cig = cig
            session.synchronousLinks.iso[key] = link
        }
    }
}
