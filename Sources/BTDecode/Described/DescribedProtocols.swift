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
        for selector in described.selectors {
            let target = DescribedTarget(described: described, selector: selector)
            func claim<Key: Hashable>(_ table: inout [Key: DescribedTarget], _ key: Key) throws {
                if let other = table[key] {
                    throw Conflict(description: "\(selector.location): \(selector.key) is claimed by both \(described.key) and \(other.described.key) (\(other.selector?.location ?? "a decode-as rule"))")
                }
                table[key] = target
            }
            switch selector.key {
            case .characteristic(let uuid): try claim(&copy.characteristics, uuid)
            case .serviceData(let uuid): try claim(&copy.serviceData, uuid)
            case .psm(let psm): try claim(&copy.psms, psm)
            case .spsm(let spsm): try claim(&copy.spsms, spsm)
            case .rfcommChannel(let channel): try claim(&copy.rfcommChannels, channel)
            case .serviceName(let name): try claim(&copy.serviceNames, name)
            case .manufacturer(let company, let prefix):
                // Prefixes of one company must tell its formats apart: neither may begin the other.
                for other in copy.manufacturers[company] ?? [] {
                    guard let otherSelector = other.selector, case .manufacturer(_, let otherPrefix) = otherSelector.key else { continue }
                    if prefix.starts(with: otherPrefix) || otherPrefix.starts(with: prefix) {
                        throw Conflict(description: "\(selector.location): \(selector.key) overlaps \(otherSelector.key), claimed by \(other.described.key) (\(otherSelector.location))")
                    }
                }
                copy.manufacturers[company, default: []].append(target)
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

    func manufacturer(_ company: UInt16, _ data: ArraySlice<UInt8>) -> DescribedTarget? {
        manufacturers[company]?.first { target in
            guard case .manufacturer(_, let prefix)? = target.selector?.key else { return false }
            return data.starts(with: prefix)
        }
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

    /// Decodes `c` as the message, in the protocol's own layer; a text protocol's lines
    /// continue on `stream` from packet to packet.
    func decode(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session, stream: DescribedStream) {
        var pending = session.described.partial.removeValue(forKey: stream.key) ?? []
        DescribedDecoder.decode(described, message, &c, into: &packet, pendingLine: &pending)
        if !pending.isEmpty { session.described.partial[stream.key] = pending }
    }
}
