import BTCapture
import BTDecode
import BTQuery

/// A conversation: one protocol's exchanges with one peer, over all its connections.
public struct ConversationKey: Hashable, Comparable, Sendable {
    public var peer: BDAddr
    public var protocolName: String

    public static func < (a: ConversationKey, b: ConversationKey) -> Bool {
        (a.peer.description, ConversationKey.order(a.protocolName)) < (b.peer.description, ConversationKey.order(b.protocolName))
    }

    /// Protocols in the order a link uses them.
    static func order(_ name: String) -> Int { ConversationDescription.named(name)?.rank ?? .max }
}

/// A link whose peer the capture never names (it starts after the connection was made, as an
/// Android log switched on mid-session does): its conversations are kept under a stand-in
/// address, FF:FE, then the controller and the handle, and reported as "link 0x0002 on hci0".
/// Without it such a capture's conversations were not compared at all.
public enum UnnamedPeer {
    public static func address(controller: UInt16, handle: UInt16) -> BDAddr {
        BDAddr(littleEndian: [UInt8(handle & 0xFF), UInt8(handle >> 8), UInt8(controller & 0xFF), UInt8(controller >> 8), 0xFE, 0xFF][...])
    }

    /// How a report names a peer: its address, or the link of a stand-in.
    public static func name(_ peer: BDAddr) -> String {
        let b = peer.bytes
        guard b.0 == 0xFF, b.1 == 0xFE else { return peer.description }
        return "link \(Hex.u16(UInt16(b.4) << 8 | UInt16(b.5))) on hci\(UInt16(b.2) << 8 | UInt16(b.3)) (its peer not in the capture)"
    }
}

/// What `btlog diff` keeps of one capture: the statistics report (devices, connections and their
/// parameters, audio streams), its diagnosis, each peer's conversations by protocol, the GATT
/// databases discovery built, what the controllers said of themselves, and when each link
/// reached the milestones of its set-up. Memory is the collector's plus the steps the
/// conversation log keeps (a bounded number, compactly), whatever the capture's size.
public struct DiffRecorder: PacketSink {
    public var statistics = StatisticsCollector()
    public private(set) var conversations = ConversationLog()
    public private(set) var databases: [BDAddr: [GATTTreeLine]] = [:]
    public private(set) var controllers: [UInt16: [ControllerFact]] = [:]
    /// A peer's identity address, as its SMP Identity Address Information gave it.
    public private(set) var identities: [BDAddr: BDAddr] = [:]
    /// Milestones of links that ended, and of each open link the first encryption and
    /// notification and the last discovery answer so far: a few per connection, whatever the
    /// traffic.
    var milestones: [Milestone] = []
    /// The stand-in address of each link whose peer the capture never names (`UnnamedPeer`).
    var standIns: [Session.LinkKey: BDAddr] = [:]
    var openMilestones: [Session.LinkKey: [Milestone.Kind: Milestone]] = [:]
    let values: Bool

    /// Its work per packet (statistics, steps) runs beside the decoding.
    public var runsOnItsOwnThread: Bool { true }

    public init(values: Bool = true) { self.values = values }

    public mutating func beginFile(_ name: String) { statistics.beginFile(name) }

    /// The end of the capture: the GATT databases its discovery built, tree by tree.
    public mutating func endFile(session: Session) {
        statistics.endFile(session: session)
        for (key, database) in session.gatt.databases where key.isRemote {
            guard case .address(let address) = key.device, !database.attributes.isEmpty else { continue }
            databases[address] = GATTTreeLine.lines(of: database, names: session.names)
        }
    }

    /// The stand-in for the peer of `packet`'s link, made once per link.
    mutating func standIn(_ packet: Packet) -> BDAddr {
        let link = Session.LinkKey(controller: packet.frame.controller, handle: packet.handle ?? 0)
        if let address = standIns[link] { return address }
        let address = UnnamedPeer.address(controller: link.controller, handle: link.handle)
        standIns[link] = address
        return address
    }

    public mutating func consume(_ packet: Packet) throws {
        try statistics.consume(packet)
        if packet.peer != nil || packet.handle != nil {
            // A private address a known key resolves: the same peer as its identity, in either capture.
            if let peer = packet.peer, let identity = packet.peerIdentity?.address, identities[peer] == nil { identities[peer] = identity }
            // Layers read in place (no Layer copied per packet).
            for index in packet.layers.indices {
                if let peer = packet.peer, packet.frame.direction == .received, packet.layers[index].kind == .smp,
                   let identity = packet.layers[index].address(SMPFields.address) {
                    identities[peer] = identity
                }
                // A step is built only where the log will keep it: past its limits, a stream of
                // notifications costs a field lookup per packet.
                guard let conversation = ConversationDescription.of(packet.layers[index]) else { continue }
                let key = ConversationKey(peer: packet.peer ?? standIn(packet), protocolName: conversation.name)
                guard conversations.accepts(key) else {
                    conversations.refuse(key)
                    continue
                }
                if let step = conversation.step(of: packet.layers[index], values: values) {
                    conversations.append(ConversationRecord(frame: packet.frame.number, step: step), to: key)
                }
            }
        }
        if packet.frame.kind == .event { controllerFacts(packet) }
        if let milestone = Milestone.of(packet) {
            let link = Session.LinkKey(controller: milestone.controller, handle: milestone.handle)
            if milestone.kind == .discoveryDone || openMilestones[link]?[milestone.kind] == nil {
                openMilestones[link, default: [:]][milestone.kind] = milestone
            }
        } else if packet.frame.kind == .event, let hci = packet.layers.first, hci.integer(HCIFields.event) == Int(HCIEventCode.disconnectionComplete),
                  hci.integer(HCIFields.status) == 0, let handle = hci.integer(HCIFields.handle) {
            closeMilestones(of: Session.LinkKey(controller: packet.frame.controller, handle: UInt16(truncatingIfNeeded: handle)))
        }
    }

    /// A link ended (Disconnection Complete): its milestones are final.
    mutating func closeMilestones(of link: Session.LinkKey) {
        guard let open = openMilestones.removeValue(forKey: link) else { return }
        milestones += open.values.sorted { $0.frame < $1.frame }
    }

    /// Records what the controller said of itself (version, features, buffers, name).
    mutating func controllerFacts(_ packet: Packet) {
        guard let hci = packet.layers.first, let opcode = hci.integer(HCIFields.commandOpcode),
              HCIOpcode.describingTheController.contains(UInt16(truncatingIfNeeded: opcode)), hci.integer(HCIFields.status) ?? 0 == 0 else { return }
        let command = HCICommands.name(UInt16(truncatingIfNeeded: opcode)) ?? Hex.u16(UInt16(truncatingIfNeeded: opcode))
        var facts = controllers[packet.frame.controller, default: []]
        for field in hci.fieldCopies where !ControllerFact.ignored.contains(field.definition) {
            let fact = ControllerFact(command: command, name: field.definition.name, text: field.text)
            if let index = facts.firstIndex(where: { $0.command == fact.command && $0.name == fact.name }) {
                facts[index] = fact
            } else {
                facts.append(fact)
            }
        }
        controllers[packet.frame.controller] = facts
    }

    /// One capture's frames decoded and recorded (the tests' and the fuzz target's way in;
    /// `btlog diff` runs the pipeline with the filters).
    public static func side(of frames: [Frame], values: Bool = true) -> DiffSide {
        let decoder = Decoder()
        var recorder = DiffRecorder(values: values)
        for frame in frames { try? recorder.consume(decoder.decode(frame)) }
        recorder.endFile(session: decoder.session)
        return recorder.finish()
    }

    public mutating func finish(vendors: () -> VendorNames? = { nil }) -> DiffSide {
        for link in Array(openMilestones.keys) { closeMilestones(of: link) }
        let report = statistics.finish(vendors: vendors)
        return DiffSide(report: report, problems: Diagnosis.problems(in: report), conversations: conversations,
                        databases: databases, controllers: controllers, identities: identities,
                        setups: SetupTimes.of(report.connections, milestones))
    }
}

/// One capture as the comparison reads it.
public struct DiffSide {
    public var report: CaptureReport
    public var problems: [Problem]
    public var conversations: ConversationLog
    public var databases: [BDAddr: [GATTTreeLine]] = [:]
    public var controllers: [UInt16: [ControllerFact]] = [:]
    public var identities: [BDAddr: BDAddr] = [:]
    /// By index into `report.connections`.
    public var setups: [Int: SetupTimes] = [:]
}

/// A value a controller returned about itself.
public struct ControllerFact: Equatable, Sendable {
    public var command: String
    public var name: String
    public var text: String

    /// What the answers of HCIOpcode.describingTheController say that is not the controller's.
    static let ignored: Set<FieldDefinition> = [HCIFields.event, HCIFields.commandOpcode, HCIFields.status,
                                                HCIFields.numCommands, HCIFields.parameterLength]
}

/// An attribute of a GATT database as the comparison reads it: its place in the tree (service,
/// characteristic, descriptor), its type and a characteristic's properties; never its handle,
/// so a database renumbered by a firmware that added a service before it compares the same.
public struct GATTTreeLine: Hashable, Sendable {
    public var depth: Int
    public var text: String

    static func lines(of database: GATTDatabase, names: UUIDNames) -> [GATTTreeLine] {
        var lines: [GATTTreeLine] = []
        for handle in database.attributes.keys.sorted() {
            switch database.attributes[handle]!.role {
            case .service(let uuid, _, let primary):
                lines.append(GATTTreeLine(depth: 0, text: "\(primary ? "Primary" : "Secondary") Service \(named(uuid, names.name(uuid, as: .service)))"))
            case .include(_, _, let uuid):
                lines.append(GATTTreeLine(depth: 1, text: "Include \(uuid.map { named($0, names.name($0, as: .service)) } ?? "?")"))
            case .declaration(let uuid, let properties, _):
                lines.append(GATTTreeLine(depth: 1, text: "Characteristic \(named(uuid, names.name(uuid, as: .characteristic))) [\(GATTNames.properties(properties))]"))
            case .descriptor(let uuid, _):
                lines.append(GATTTreeLine(depth: 2, text: "Descriptor \(named(uuid, names.name(uuid, as: .descriptor)))"))
            case .value, .typed:
                continue // the declaration stands for its value; a lone type read says nothing of the tree
            }
        }
        return lines
    }

    static func named(_ uuid: BTUUID, _ name: String?) -> String { name.map { "\($0) (\(uuid))" } ?? uuid.description }
}

/// A moment of a link's set-up, for the timing comparison.
struct Milestone {
    enum Kind: Hashable { case encrypted, discoveryDone, firstNotification }
    var controller: UInt16
    var handle: UInt16
    var frame: Int
    var time: Int64
    var kind: Kind

    static func of(_ packet: Packet) -> Milestone? {
        let frame = packet.frame
        func at(_ handle: UInt16, _ kind: Kind) -> Milestone {
            Milestone(controller: frame.controller, handle: handle, frame: frame.number, time: frame.timestamp, kind: kind)
        }
        switch frame.kind {
        case .event:
            guard let hci = packet.layers.first, let code = hci.integer(HCIFields.event).map(UInt8.init(truncatingIfNeeded:)),
                  code == HCIEventCode.encryptionChange || code == HCIEventCode.encryptionKeyRefreshComplete,
                  hci.integer(HCIFields.status) == 0, let handle = hci.integer(HCIFields.handle),
                  code == HCIEventCode.encryptionKeyRefreshComplete || (hci.integer(HCIFields.encryption) ?? 0) != 0 else { return nil }
            return at(UInt16(truncatingIfNeeded: handle), .encrypted)
        case .aclData:
            guard let handle = packet.handle, let att = packet.layers.last(where: { $0.kind == .att }),
                  let opcode = att.integer(ATTFields.opcode).map(UInt8.init(truncatingIfNeeded:)) else { return nil }
            if opcode == ATTOpcode.notification || opcode == ATTOpcode.indication { return at(handle, .firstNotification) }
            if ATTOpcode.isDiscoveryResponse(opcode) { return at(handle, .discoveryDone) }
            // An error answering a discovery request (Attribute Not Found: there is no more) ends it too.
            if opcode == ATTOpcode.errorResponse, let request = att.integer(ATTFields.requestOpcode),
               ATTOpcode.isDiscoveryRequest(UInt8(truncatingIfNeeded: request)) {
                return at(handle, .discoveryDone)
            }
            return nil
        default:
            return nil
        }
    }
}

/// How long a link took from its connection to each milestone of its set-up (microseconds).
public struct SetupTimes: Equatable, Sendable {
    public var toEncryption: Int64?
    public var toDiscoveryDone: Int64?
    public var toFirstNotification: Int64?

    /// Each milestone given to the connection whose handle it names and whose span holds it:
    /// the first encryption and notification, the last discovery answer.
    static func of(_ connections: [ConnectionReport], _ milestones: [Milestone]) -> [Int: SetupTimes] {
        var setups: [Int: SetupTimes] = [:]
        for milestone in milestones {
            guard let index = connections.indices.last(where: {
                let c = connections[$0]
                return c.controller == milestone.controller && c.handle == milestone.handle
                    && (c.startFrame ?? 0) <= milestone.frame && milestone.frame <= (c.endFrame ?? .max)
            }), let start = connections[index].start else { continue }
            let elapsed = milestone.time.saturatingSubtract(start)
            var setup = setups[index] ?? SetupTimes()
            switch milestone.kind {
            case .encrypted: if setup.toEncryption == nil { setup.toEncryption = elapsed }
            case .discoveryDone: setup.toDiscoveryDone = elapsed
            case .firstNotification: if setup.toFirstNotification == nil { setup.toFirstNotification = elapsed }
            }
            setups[index] = setup
        }
        return setups
    }
}
