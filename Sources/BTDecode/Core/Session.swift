import BTCapture

/// State that spans packets, fed in capture order: the controllers and connections every
/// protocol shares, and each registered protocol's own state (L2CAP reassembly and channels,
/// ATT transactions, the GATT databases, pairing), defined beside its decoder.
public struct Session {
    /// One ACL/LE link on one controller.
    public struct LinkKey: WordKey, Sendable {
        public var controller: UInt16
        public var handle: UInt16
        public init(controller: UInt16, handle: UInt16) {
            self.controller = controller
            self.handle = handle
        }

        /// Both in one word: several maps are looked up by link for every packet.
        @inlinable public var packed: UInt32 { UInt32(controller) << 16 | UInt32(handle) }
        public var hashWord: UInt64 { UInt64(packed) }
    }

    public struct Connection {
        public var peer: BDAddr
        public var peerAddressType: UInt8
        public var isLE: Bool
        public var role: UInt8
    }

    public var connections: [LinkKey: Connection] = [:]
    /// Links data was seen on that no Connection Complete (or synchronous link set-up) made,
    /// as in a capture that began after it, so that a controller's Reset or removal ends them
    /// too; those it made are in `connections` (and the synchronous links' own state).
    var linksSeen: Set<LinkKey> = []
    /// The link of the last data packet: consecutive packets of one link add it once.
    var lastLinkSeen: LinkKey?
    /// Controller index → its own address, from Read BD ADDR or the monitor's New Index.
    public var controllerAddresses: [UInt16: BDAddr] = [:]
    /// Controllers the monitor's index frames announced, by index (deleted ones removed).
    public var controllers: [UInt16: ControllerInfo] = [:]
    /// Every registered protocol's own state (`session.l2cap`, `session.att`... are defined
    /// beside each protocol's decoder).
    var states = ProtocolStates()
    /// Advertising data decoded before: a memo, not state (no view sees it).
    var advertisingMemo = AdvertisingDataMemo()
    /// Issues found after their packet was shown: PDUs and requests left open at the end.
    public var pendingReports: [SessionReport] = []
    /// How this session's decoder decodes (display text, names, caches).
    public private(set) var options: DecodeOptions
    /// The frames after the one being decoded, where the reader can show them without waiting
    /// (`upcoming(1)` is the next; nil past the end, or when reading is live): what lets the
    /// link layer see whether the peer acknowledged a packet the sniffer received damaged.
    public var upcoming: ((Int) -> Frame?)?

    /// Identity resolving keys learnt (SMP Identity Information) or given (`--irk`), and the
    /// addresses they resolve.
    public var privateAddresses = PrivateAddresses()

    public init(options: DecodeOptions = DecodeOptions()) {
        self.options = options
        for given in options.identityKeys { privateAddresses.learn(irk: given.irk, address: given.address, frame: 0) }
        for ahead in options.identityKeysAhead.identityKeys {
            privateAddresses.learn(irk: ahead.irk, address: ahead.address, frame: PrivateAddresses.foundAhead)
        }
    }

    /// Keys the reader found ahead of its frames (a merge's other sources): known from here on,
    /// and to every decoder made from these options (the browser's, decoding a packet again).
    public mutating func adopt(_ keys: KeysAhead) {
        guard !keys.isEmpty else { return }
        options.identityKeysAhead.add(keys)
        for ahead in keys.identityKeys { privateAddresses.learn(irk: ahead.irk, address: ahead.address, frame: PrivateAddresses.foundAhead) }
    }

    /// A registered protocol's state, read in place and changed in place (`session.att` and the
    /// like are named shorthands for this, beside each protocol).
    public subscript<State: ProtocolState>(_ type: State.Type) -> State {
        _read { yield states.peek(type).value }
        _modify {
            let box = states.box(type)
            yield &box.value
        }
    }

    /// Whether the packets decoded from here on build their display text. What a session keeps
    /// is the same either way (decoders keep values, never text), so a session saved while
    /// decoding for the table decodes a packet's tree from there.
    public mutating func buildDisplayText(_ builds: Bool) { options.buildsDisplayText = builds }

    /// Which fields the packets decoded from here on keep. What a session keeps is the same
    /// whatever the mask: decoders keep state from the values they read.
    public mutating func keepFields(_ mask: FieldMask) { options.keptFields = mask }

    /// The run's UUID names (assigned numbers and `--uuids`).
    public var names: UUIDNames { options.uuidNames }

    public func connection(controller: UInt16, handle: UInt16) -> Connection? {
        connections[LinkKey(controller: controller, handle: handle)]
    }

    /// A link ended (Disconnection Complete): what was still open on it becomes issues on
    /// the disconnection packet.
    mutating func closeLink(_ link: LinkKey, into layer: inout Layer) {
        endLinkState(link, into: &layer)
        connections[link] = nil
        linksSeen.remove(link)
        if lastLinkSeen == link { lastLinkSeen = nil }
    }

    /// Data on `link`: remembered, so that the end of its controller ends it.
    @inline(__always)
    mutating func sawData(on link: LinkKey) {
        guard lastLinkSeen != link else { return }
        lastLinkSeen = link
        linksSeen.insert(link)
    }

    /// A controller reset (Reset completed) or gone (its index closed or removed): every link it
    /// had ends at once, as on a disconnection, so that no link's channels, modes, pending
    /// requests or reassembly reach the links it makes next on the same handles.
    mutating func endController(_ controller: UInt16, by cause: String, into layer: inout Layer) {
        let links = linksSeen.union(connections.keys).union(synchronousLinks.sco.keys).union(synchronousLinks.iso.keys)
            .filter { $0.controller == controller }.sorted { $0.handle < $1.handle }
        guard !links.isEmpty else { return }
        for link in links {
            endLinkState(link, into: &layer)
            connections[link] = nil
            linksSeen.remove(link)
        }
        lastLinkSeen = nil
        let handles = links.map { Hex.u16($0.handle) }.joined(separator: ", ")
        layer.addIssue(.note, "\(cause): \(links.count == 1 ? "the link of hci\(controller) ends" : "the \(links.count) links of hci\(controller) end") here (\(handles))")
    }

    /// A link completed on a handle: what an earlier link on the same handle left (its
    /// disconnection never seen, as when the controller was reset or its index removed) ends
    /// here, reported as on a disconnection, so that the new link starts with nothing of it.
    mutating func openLink(_ link: LinkKey, into layer: inout Layer) {
        endLinkState(link, into: &layer)
    }

    /// Every protocol's state of a link ends; what was open becomes warnings on `layer`.
    private mutating func endLinkState(_ link: LinkKey, into layer: inout Layer) {
        for message in states.close(link) { layer.addIssue(.warning, message) }
    }

    /// The end of the capture: everything still open, for the caller to report.
    public mutating func finish() -> [SessionReport] {
        var reports = pendingReports
        pendingReports.removeAll()
        reports += states.finish()
        return reports.sorted { $0.frameNumber < $1.frameNumber }
    }
}

/// Something found about an earlier packet once later ones (or the end) were seen.
public struct SessionReport: Equatable {
    public var frameNumber: Int
    public var severity: Issue.Severity
    public var message: String
}
