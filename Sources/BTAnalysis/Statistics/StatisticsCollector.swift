import BTCapture
import BTDecode
import BTQuery

/// `btlog stats`: the end of the packet chain that counts and follows what the kept packets
/// say, reading their fields by the registry's names, never their bytes. `finish(vendors:)`
/// gives the report.
///
/// Each concern is a tracker of its own (Trackers/): totals, devices, HCI commands, L2CAP
/// channels, ATT transactions, audio streams, air links. The collector routes each packet to
/// them and owns what they share: the connections, opened and closed here because closing a
/// link ends something in every tracker. Link events (HCI connection events, the air's link
/// layer) are in LinkEvents.swift and AirLinks.swift.
public struct StatisticsCollector: PacketSink {
    typealias LinkKey = Session.LinkKey

    var totals = TotalsTracker()
    var devices = DeviceTracker()
    var commands = CommandTracker()
    var channels = ChannelTracker()
    var att = ATTTracker()
    var audio = AudioTracker()
    var airLinks = AirLinkTracker()
    var values = ValueTracker()
    var merge = MergeTracker()
    var identities = IdentityTracker()
    var security = SecurityReport()
    var connectFailures: [ConnectFailure] = []
    /// Every link in order of appearance, and the index of each one still up.
    var connections: [ConnectionReport] = []
    var openConnections: [LinkKey: Int] = [:]
    /// BR/EDR: the role the local side will have, from Create Connection or Connection Request.
    var expectedRoles: [BDAddr: LinkRole] = [:]
    /// SCO, eSCO and CIS links: their disconnections are not ACL links ending.
    var synchronousLinks: Set<LinkKey> = []
    var file: String?
    /// Application bytes per connection and direction in time bins, when asked for.
    public private(set) var throughput: ThroughputSeries?

    public init(throughputInterval: Int64? = nil) {
        throughput = throughputInterval.map(ThroughputSeries.init(interval:))
    }

    /// Several captures into one report: each connection remembers its file.
    public mutating func beginFile(_ name: String) {
        closeAll()
        file = name
    }

    /// Following links, transactions and streams is a third of `stats`: worth the second core.
    public var runsOnItsOwnThread: Bool { true }

    /// What the decoder's Session learnt of the controllers (addresses, names) once a file ends.
    public mutating func endFile(session: Session) {
        totals.endFile(session: session)
    }

    public mutating func consume(_ packet: Packet) throws {
        totals.count(packet)
        values.see(packet)
        if packet.frame.origin != nil { merge.see(packet) }
        if packet.peerIdentity != nil { identities.see(packet) }
        throughput?.see(packet.frame.timestamp, frame: packet.frame.number)
        guard let first = packet.layers.first else { return }
        switch packet.frame.kind {
        case .event: event(first, packet)
        case .command: command(first, packet)
        case .aclData: data(packet, carrier: 0, length: first.integer(DataFields.aclLength) ?? max(0, packet.frame.bytes.count - 4))
        case .scoData: audio.synchronous(.sco, packet)
        case .isoData: audio.synchronous(.iso, packet)
        case .newIndex, .closeIndex, .deleteIndex: controllerGone(packet.frame)
        case .air: air(packet)
        default: break
        }
    }

    /// The report, sorted for reading: protocols and characteristics by activity, devices by
    /// packets, connections in order of appearance.
    /// `vendors` is asked for once, only when a device has a public address.
    public mutating func finish(vendors: () -> VendorNames? = { nil }) -> CaptureReport {
        closeAll()
        var report = CaptureReport()
        totals.report(into: &report)
        report.connections = connections
        report.devices = devices.report(connections: connections, vendors: vendors)
        (report.att, report.characteristics) = att.finish()
        (report.a2dpStreams, report.synchronousStreams, report.avdtpRejects) = (audio.a2dpStreams, audio.synchronousStreams, audio.rejects)
        report.hci = commands.finish()
        report.security = security
        report.connectFailures = connectFailures
        report.values = values.finish()
        report.sourceLinks = merge.finish()
        report.resolvedAddresses = identities.finish()
        return report
    }

    /// A controller reset, closed, removed or (re)announced: its commands will get no answer and
    /// its links are gone with it (they end here, with no reason given).
    mutating func controllerGone(_ frame: Frame) {
        commands.controllerGone(frame.controller)
        for (key, index) in openConnections where key.controller == frame.controller {
            connections[index].end = frame.timestamp
            connections[index].endFrame = frame.number
            close(key)
        }
        synchronousLinks = synchronousLinks.filter { $0.controller != frame.controller }
    }

    // MARK: Links

    /// The open link an event names by its handle (opened now when the capture began later).
    mutating func connection(_ layer: Layer, _ packet: Packet) -> Int? {
        guard let handle = layer.integer(HCIFields.handle) else { return nil }
        let key = LinkKey(controller: packet.frame.controller, handle: UInt16(truncatingIfNeeded: handle))
        return openConnections[key] ?? open(key, packet)
    }

    /// A new link in the report: from its Connection Complete (`transport` given: the packet
    /// made it), or from the first packet of a link made before the capture began (no
    /// transport; or `joined`: its transport known from how it was captured, its start and
    /// parameters not).
    mutating func open(_ key: LinkKey, _ packet: Packet, transport: Transport? = nil, joined: Bool = false, address: BDAddr? = nil,
                       type: UInt8? = nil) -> Int {
        if openConnections[key] != nil { close(key) }
        let time = packet.frame.timestamp
        let complete = transport != nil && !joined
        var connection = ConnectionReport(file: file, controller: key.controller, handle: key.handle, address: address ?? packet.peer,
                                          addressType: type, transport: transport, start: complete ? time : nil,
                                          startFrame: complete ? packet.frame.number : nil, firstSeen: time, lastSeen: time,
                                          firstFrame: packet.frame.number)
        if let address = connection.address { _ = devices.device(address, type: type, at: time) }
        if transport == .le, complete {
            connection.parameters.mtu = 23; connection.parameters.maxTxOctets = 27; connection.parameters.maxRxOctets = 27
            connection.parameters.txPHY = 1; connection.parameters.rxPHY = 1
        }
        connections.append(connection)
        openConnections[key] = connections.count - 1
        return connections.count - 1
    }

    /// A link ends: what each tracker still waits for on it ends with it.
    mutating func close(_ key: LinkKey) {
        guard let index = openConnections.removeValue(forKey: key) else { return }
        // A link still up when the capture ends waited until the capture's last packet.
        let end = connections[index].end ?? totals.lastTimestamp ?? connections[index].lastSeen
        att.close(key, at: end, disconnected: connections[index].end != nil)
        channels.close(key, &connections[index])
        audio.close(key)
        airLinks.close(key)
    }

    /// The end of a file: its links and its commands end with it.
    private mutating func closeAll() {
        for key in Array(openConnections.keys) { close(key) }
        commands.closeAll(end: totals.lastTimestamp ?? 0)
        expectedRoles.removeAll()
        synchronousLinks.removeAll()
        audio.closeAll()
        att.closeAll()
    }

    // MARK: ACL and what it carries

    /// A packet that carries L2CAP: HCI ACL data, or an LE data PDU taken from the air; the
    /// layer at `carrier` is the one under L2CAP, whose payload is `length` bytes.
    mutating func data(_ packet: Packet, carrier: Int, length: Int) {
        guard let handle = packet.handle else { return }
        let frame = packet.frame
        let key = LinkKey(controller: frame.controller, handle: handle)
        let index = openConnections[key] ?? open(key, packet)
        let sent = frame.direction == .sent
        connections[index].lastSeen = frame.timestamp
        if sent {
            connections[index].bytesSent += length
            connections[index].packetsSent += 1
        } else {
            connections[index].bytesReceived += length
            connections[index].packetsReceived += 1
        }
        if connections[index].address == nil, let peer = packet.peer {
            connections[index].address = peer
            _ = devices.device(peer, type: nil, at: frame.timestamp)
        }
        // The layers are read in place (a copy of a Layer retains each of its arrays).
        let l2cap = carrier + 1
        guard packet.layers.count > l2cap, packet.layers[l2cap].kind == .l2cap, packet.layers[l2cap].value(L2CAPFields.fragment) == nil,
              let cid = packet.layers[l2cap].integer(L2CAPFields.cid) else { return }
        if connections[index].transport == nil {
            if cid == 0x0004 || cid == 0x0005 || cid == 0x0006 { connections[index].transport = .le }
            if cid == 0x0001 { connections[index].transport = .bredr }
        }
        var application = 0
        if cid == 0x0001 || cid == 0x0005 {
            channels.signaling(packet.layers[l2cap], packet, &connections[index], key: key, sent: sent)
        } else if cid >= 0x0040 {
            ChannelTracker.useCredit(&connections[index], cid: cid, sent: sent, frame: frame.number)
        }
        var carriesATTOrMedia = false, mediaPayload = false
        for layerIndex in l2cap + 1 ..< packet.layers.count {
            switch packet.layers[layerIndex].kind {
            case .att:
                carriesATTOrMedia = true
                let (bytes, name) = att.consume(packet.layers[layerIndex], packet, &connections[index], key: key,
                                                cid: UInt16(truncatingIfNeeded: cid), sent: sent)
                application += bytes
                if let name, let address = connections[index].address { devices.name(name, for: address, at: frame.timestamp) }
            case .a2dpMedia:
                carriesATTOrMedia = true
                mediaPayload = true
                application += audio.media(packet.layers[layerIndex], packet, key: key, cid: UInt16(truncatingIfNeeded: cid), sent: sent,
                                           address: connections[index].address)
            case .avdtp: audio.avdtp(packet.layers[layerIndex], key: key, frame: frame.number)
            case .smp:
                if packet.layers[layerIndex].integer(SMPFields.code) == 0x05, let reason = packet.layers[layerIndex].integer(SMPFields.reason) {
                    security.pairingFailures.append(PairingFailure(frame: frame.number, controller: frame.controller, handle: handle,
                                                                   address: connections[index].address, source: .smp,
                                                                   reason: UInt8(truncatingIfNeeded: reason), byLocal: sent))
                }
            default: continue
            }
        }
        var channelPayload = false
        if application == 0, cid >= 0x0040, !carriesATTOrMedia {
            application = packet.layers[l2cap].integer(L2CAPFields.length) ?? 0
            channelPayload = application > 0
        }
        guard application > 0 else { return }
        if sent {
            connections[index].trafficSent.add(bytes: application, at: frame.timestamp)
            if channelPayload { connections[index].trafficSent.channelPayloads += 1 }
            if mediaPayload { connections[index].trafficSent.media += 1 }
        } else {
            connections[index].trafficReceived.add(bytes: application, at: frame.timestamp)
            if channelPayload { connections[index].trafficReceived.channelPayloads += 1 }
            if mediaPayload { connections[index].trafficReceived.media += 1 }
        }
        throughput?.add(bytes: application, connection: index, sent: sent, at: frame.timestamp)
    }

    // MARK: Keys

    struct SignalingKey: Hashable { var link: LinkKey; var requesterSent: Bool; var ident: Int }
    struct SideKey: Hashable { var link: LinkKey; var sent: Bool }
}

extension ConnectionReport {
    /// An event of the link's timeline; a non-zero HCI status names its failure.
    mutating func record(_ packet: Packet, _ event: String, _ items: [ReportItem], status: Int = 0, failure: String? = nil,
                         change: LinkChange? = nil) {
        var failure = failure
        if status != 0 {
            failure = FieldValueNames.name(of: UInt64(status), for: HCIFields.status).map { "\($0) (\(Hex.u8(UInt8(truncatingIfNeeded: status))))" }
                ?? "status \(Hex.u8(UInt8(truncatingIfNeeded: status)))"
        }
        timeline.append(ParameterEvent(frame: packet.frame.number, time: packet.frame.timestamp, event: event, values: items,
                                       failure: failure, change: change))
    }

    /// Interval, latency and timeout (in the link layer's units), kept as the link's
    /// parameters; the timeline's items for them.
    mutating func setInterval(_ interval: Int, latency: Int, timeout: Int) -> [ReportItem] {
        parameters.interval = interval
        parameters.latency = latency
        parameters.supervisionTimeout = timeout
        return [ReportItem("interval", .milliseconds(Double(interval) * 1.25)), ReportItem("latency", .count(latency)),
                ReportItem("supervision_timeout", .milliseconds(Double(timeout) * 10))]
    }
}

/// LE PHY codes as the Core specification names them.
public enum PHYName {
    public static func of(_ code: Int?) -> String {
        switch code {
        case 1?: return "LE 1M"
        case 2?: return "LE 2M"
        case 3?: return "LE Coded"
        case nil: return "unknown"
        case let code?: return "PHY \(code)"
        }
    }
}
