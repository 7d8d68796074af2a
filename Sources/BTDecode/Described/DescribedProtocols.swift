import BTCapture

/// The described protocols of a run, by what selects them: what the ATT, advertising, L2CAP
/// and RFCOMM decoders ask (`DecodeOptions.described`). Empty unless a description is loaded,
/// and then each question is one dictionary lookup.
public struct DescribedProtocols: Sendable {
    public private(set) var all: [DescribedProtocol] = []
    var characteristics: [BTUUID: DescribedTarget] = [:]
    var manufacturers: [UInt16: [DescribedTarget]] = [:]
    var serviceData: [BTUUID: DescribedTarget] = [:]
    var psms: [UInt16: DescribedTarget] = [:]
    var spsms: [UInt16: DescribedTarget] = [:]
    var rfcommChannels: [UInt8: DescribedTarget] = [:]
    var serviceNames: [String: DescribedTarget] = [:]
    var hciCommands: [UInt16: DescribedTarget] = [:]
    var hciReturns: [UInt16: DescribedTarget] = [:]
    var vendorEvents: [DescribedTarget] = []
    /// Vendor command names by opcode, with the protocol that gives each.
    var commandNames: [UInt16: (name: String, key: String, location: String)] = [:]
    /// Decode-as rules for ATT handles (`att.handle == 0x0017: key`), kept here because the ATT
    /// decoder asks this table, and a described protocol is what a handle can be decoded as.
    var handleRules: [UInt16: DescribedTarget] = [:]

    public init() {}

    public var isEmpty: Bool { all.isEmpty && handleRules.isEmpty }

    /// Two protocols claiming the same thing, or the same name.
    public struct Conflict: Error, CustomStringConvertible {
        public let description: String
    }

    /// Adds `described`; a protocol of the same key, or a selector another protocol has (the
    /// same UUID, PSM, channel...), is a conflict naming both.
    public mutating func add(_ described: DescribedProtocol) throws {
        if let other = all.first(where: { $0.key == described.key }) {
            throw Conflict(description: "\(described.source): protocol '\(described.key)' is also described in \(other.source)")
        }
        var copy = self
        for command in described.commandNames {
            if let other = copy.commandNames[command.opcode] {
                throw Conflict(description: "\(command.location): HCI command \(Hex.u16(command.opcode)) is named by both \(described.key) and \(other.key) (\(other.location))")
            }
            copy.commandNames[command.opcode] = (command.name, described.key, command.location)
        }
        for selector in described.selectors {
            let target = DescribedTarget(described: described, selector: selector)
            func claim<Key: Hashable>(_ table: inout [Key: DescribedTarget], _ key: Key) throws {
                if let other = table[key] {
                    throw Conflict(description: "\(selector.location): \(selector.key) is claimed by both \(described.key) and \(other.described.key) (\(other.selector?.location ?? "a decode-as rule"))")
                }
                table[key] = target
            }
            // Data told apart by its first bytes (a company's formats, vendor events): neither
            // prefix may begin the other.
            func claim(_ targets: inout [DescribedTarget], _ prefix: [UInt8]) throws {
                for other in targets {
                    guard let otherSelector = other.selector, let otherPrefix = otherSelector.key.prefix else { continue }
                    if prefix.starts(with: otherPrefix) || otherPrefix.starts(with: prefix) {
                        throw Conflict(description: "\(selector.location): \(selector.key) overlaps \(otherSelector.key), claimed by \(other.described.key) (\(otherSelector.location))")
                    }
                }
                targets.append(target)
            }
            switch selector.key {
            case .characteristic(let uuid): try claim(&copy.characteristics, uuid)
            case .serviceData(let uuid): try claim(&copy.serviceData, uuid)
            case .psm(let psm): try claim(&copy.psms, psm)
            case .spsm(let spsm): try claim(&copy.spsms, spsm)
            case .rfcommChannel(let channel): try claim(&copy.rfcommChannels, channel)
            case .serviceName(let name): try claim(&copy.serviceNames, name)
            case .hciCommand(let opcode): try claim(&copy.hciCommands, opcode)
            case .hciReturn(let opcode): try claim(&copy.hciReturns, opcode)
            case .vendorEvent(let prefix):
                try claim(&copy.vendorEvents, prefix)
            case .manufacturer(let company, let prefix):
                try claim(&copy.manufacturers[company, default: []], prefix)
            }
        }
        copy.all.append(described)
        self = copy
    }

    /// The protocol of a dynamic channel: an LE (or enhanced) credit-based channel's SPSM, a
    /// BR/EDR channel's PSM.
    func channel(psm: UInt16, creditBased: Bool) -> DescribedTarget? {
        creditBased ? spsms[psm] ?? psms[psm] : psms[psm]
    }

    /// The protocol of an RFCOMM server channel: by its number, or by the service name its SDP
    /// record gives.
    func rfcomm(channel: UInt8, serviceName: String?) -> DescribedTarget? {
        rfcommChannels[channel] ?? serviceName.flatMap { serviceNames[$0] }
    }

    /// The protocol shown inline for a characteristic's values, unless a decode-as rule gives
    /// the handle another.
    func inline(_ type: BTUUID, handle: UInt16) -> DescribedTarget? {
        guard !isEmpty, let target = characteristics[type], target.described.isInline, handleRules[handle] == nil else { return nil }
        return target
    }

    /// The name a description gives a vendor command.
    func commandName(_ opcode: UInt16) -> String? {
        commandNames.isEmpty ? nil : commandNames[opcode]?.name
    }

    /// The protocol of a vendor event whose parameters are `data`.
    func vendorEvent(_ data: ArraySlice<UInt8>) -> DescribedTarget? {
        vendorEvents.first { data.starts(with: $0.selector?.key.prefix ?? []) }
    }

    func manufacturer(_ company: UInt16, _ data: ArraySlice<UInt8>) -> DescribedTarget? {
        manufacturers[company]?.first { data.starts(with: $0.selector?.key.prefix ?? []) }
    }
}

/// A protocol and the message a selector of it starts from: what a dissector finds.
struct DescribedTarget: Sendable {
    let described: DescribedProtocol
    let message: DescribedMessage
    /// The selector that chose it; nil for a decode-as rule.
    let selector: DescribedSelector?

    init(described: DescribedProtocol, selector: DescribedSelector) {
        self.described = described
        self.selector = selector
        message = selector.message
    }

    init(described: DescribedProtocol, message: DescribedMessage) {
        self.described = described
        self.message = message
        selector = nil
    }

    /// Decodes `c` as the message, in the protocol's own layer, as a whole of its own (an HCI
    /// command or event: no stream of text continues into the next).
    func decode(_ c: inout ByteCursor, into packet: inout Packet) {
        var none: [UInt8] = []
        DescribedDecoder.decode(described, message, &c, into: &packet, pendingLine: &none)
    }

    /// Decodes `c` as the message, in the protocol's own layer; a text protocol's lines
    /// continue on `stream` from packet to packet.
    func decode(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session, stream: DescribedStream) {
        var pending = session.described.partial.removeValue(forKey: stream.key) ?? []
        DescribedDecoder.decode(described, message, &c, into: &packet, pendingLine: &pending)
        if !pending.isEmpty { session.described.partial[stream.key] = pending }
    }
}
