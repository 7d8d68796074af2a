import BTCapture
import BTDecode

/// PacketLogger's toolbar as options: packet types, devices, handles, errors, flagged, and
/// classes of bulk traffic to hide. Each given option narrows the packets (they AND together
/// and with `--filter`); the values of one option are alternatives (they OR).
public struct QuickFilters: Equatable {
    /// `--type`: HCI packet kinds (cmd, event, acl, sco, iso) or protocols (a layer present).
    public var types: [String] = []
    public var devices: [BDAddr] = []
    public var handles: [UInt16] = []
    public var errorsOnly = false
    public var flaggedOnly = false
    /// `--hide`: classes of bulk traffic left out.
    public var hidden: [HiddenClass] = []

    public init() {}

    /// Traffic a user may hide as noise (btmon users ask for it: bluez/bluez#2219).
    public enum HiddenClass: String, CaseIterable, Sendable {
        /// HCI Number Of Completed Packets events.
        case nocp
        /// LE advertising reports (legacy, directed, extended, periodic) and BR/EDR inquiry results.
        case adv
        /// A2DP media packets (RTP) on a stream's transport channel.
        case media
        case iso
        case sco
        /// Air captures' packets of no data: LE Empty PDUs, BR/EDR NULL and POLL packets (the
        /// link kept alive each connection event; `btlog flow` hides them unless told).
        case empty

        /// What it hides, as a filter expression or a frame kind.
        var expression: String? {
            switch self {
            case .nocp: return "hci.event == 0x13"
            case .adv: return "hci.subevent in {0x02 0x0b 0x0d 0x0f} or hci.event in {0x02 0x22 0x2f}"
            case .media: return "rtp"
            case .empty:
                // LLID 1 with no payload; the baseband's type codes 0 (NULL) and 1 (POLL).
                return "(\(LinkLayerFields.llid.name) == 1 and \(LinkLayerFields.dataLength.name) == 0) or \(BasebandFields.type.name) in {0 1}"
            case .iso, .sco: return nil
            }
        }
    }

    /// The packet kinds `--type` takes besides protocol names.
    public static let kindNames: [String: FrameKind] = ["cmd": .command, "command": .command, "event": .event, "evt": .event,
                                                        "acl": .aclData, "sco": .scoData, "iso": .isoData]

    /// The words `--type` takes: packet kinds, then every protocol of the field registry.
    public static var typeNames: [String] {
        ["cmd", "event", "acl", "sco", "iso"] + FieldRegistry.protocols.filter { !["frame", "acl"].contains($0) }
    }

    public var isEmpty: Bool { self == QuickFilters() }

    /// One filter for all the options given; nil when none is. Throws for a `--type` word that
    /// is neither a kind nor a protocol.
    public func filter() throws -> PacketFilter? {
        var parts: [PacketFilter] = []
        if !types.isEmpty {
            var tests: [(Packet, StageContext) -> Bool] = [], read = FieldMask.only([])
            for word in types {
                let name = word.lowercased()
                if let kind = QuickFilters.kindNames[name] {
                    tests.append { packet, _ in packet.frame.kind == kind }
                } else if FieldRegistry.protocols.contains(name) {
                    let presence = try PacketFilter(name)
                    tests.append(presence.predicate)
                    read = read.union(presence.fieldsRead)
                } else {
                    throw QuickFilterError("--type: unknown packet type or protocol '\(word)'; known: \(QuickFilters.typeNames.joined(separator: ", "))")
                }
            }
            parts.append(PacketFilter(expression: "--type \(types.joined(separator: ","))", fieldsRead: read) { packet, context in
                tests.contains { $0(packet, context) }
            })
        }
        if !devices.isEmpty {
            let wanted = Set(devices)
            // A device by its identity address matches its resolvable private addresses too.
            parts.append(PacketFilter(expression: "--device", fieldsRead: .only([])) { packet, _ in
                packet.peer.map(wanted.contains) ?? false || packet.peerIdentity?.address.map(wanted.contains) ?? false
            })
        }
        if !handles.isEmpty {
            let wanted = Set(handles)
            parts.append(PacketFilter(expression: "--handle", fieldsRead: .only([])) { packet, _ in packet.handle.map(wanted.contains) ?? false })
        }
        if errorsOnly { parts.append(PacketFilter(expression: "--errors", fieldsRead: .only([])) { packet, _ in packet.hasError }) }
        if flaggedOnly { parts.append(PacketFilter(expression: "--flagged", readsAnnotations: true, fieldsRead: .only([])) { packet, _ in packet.flagged }) }
        if !hidden.isEmpty {
            var tests: [(Packet, StageContext) -> Bool] = [], read = FieldMask.only([])
            for hiddenClass in hidden {
                switch hiddenClass {
                case .iso: tests.append { packet, _ in packet.frame.kind == .isoData }
                case .sco: tests.append { packet, _ in packet.frame.kind == .scoData }
                default:
                    let hiding = try PacketFilter(hiddenClass.expression!)
                    tests.append(hiding.predicate)
                    read = read.union(hiding.fieldsRead)
                }
            }
            parts.append(PacketFilter(expression: "--hide", fieldsRead: read) { packet, context in
                !tests.contains { $0(packet, context) }
            })
        }
        guard var combined = parts.first else { return nil }
        for part in parts.dropFirst() { combined = combined && part }
        return combined
    }
}

/// A quick-filter option with a value it cannot use.
public struct QuickFilterError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
