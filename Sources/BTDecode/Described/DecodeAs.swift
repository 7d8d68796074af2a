import BTCapture

/// "Decode as", as Wireshark's: a capture that starts in the middle of a connection never
/// shows its channels being set up, so a rule says what a CID, PSM, RFCOMM channel or ATT
/// handle carries (`--decode-as 'l2cap.cid == 0x0055: rfcomm'`, or a description's
/// `decode-as`). A built-in protocol reached through a PSM (rfcomm, sdp, avdtp, avctp, bnep,
/// hid_control...) or a described protocol (its key, or key.message).
public struct DecodeAsRule: Sendable, CustomStringConvertible {
    public enum Selector: Hashable, Sendable {
        case cid(UInt16)
        case psm(UInt16)
        case rfcommChannel(UInt8)
        case attHandle(UInt16)
    }

    public enum Target: Sendable {
        /// The built-in protocol registered for this PSM.
        case builtIn(psm: UInt16, name: String)
        case described(DescribedProtocol, DescribedMessage)
    }

    public let selector: Selector
    public let target: Target
    public let description: String

    public struct ParseError: Error, CustomStringConvertible {
        public let description: String
    }

    /// The built-in protocols a rule may name, by filter word: those registered for a PSM.
    public static var builtInTargets: [String: UInt16] {
        var targets: [String: UInt16] = [:]
        for (psm, name) in DissectorTables.psmNames { targets[ValueName.key(name)] = psm }
        return targets
    }

    /// `FIELD == VALUE: PROTOCOL`, the protocol a built-in one or one of `described`.
    public static func parse(_ text: String, described: [DescribedProtocol]) throws -> DecodeAsRule {
        guard let colon = text.lastIndex(of: ":") else {
            throw ParseError(description: "'\(text)': a rule reads FIELD == VALUE: PROTOCOL, as 'l2cap.cid == 0x0055: rfcomm'")
        }
        let test = text[..<colon].split(separator: "=", omittingEmptySubsequences: true).map { String($0).trimmingWhitespace }
        let name = String(text[text.index(after: colon)...]).trimmingWhitespace
        guard test.count == 2, text[..<colon].contains("=="), case .unsigned(let value, _)? = FieldValue.parse(test[1], as: .uint64) else {
            throw ParseError(description: "'\(text)': a rule reads FIELD == VALUE: PROTOCOL, as 'l2cap.cid == 0x0055: rfcomm'")
        }
        let selector: Selector
        switch test[0] {
        case "l2cap.cid":
            guard value >= 0x0040, value <= 0xFFFF else { throw ParseError(description: "'\(text)': a dynamic CID is 0x0040 to 0xFFFF") }
            selector = .cid(UInt16(value))
        case "l2cap.psm":
            guard value <= 0xFFFF else { throw ParseError(description: "'\(text)': a PSM is 16 bits") }
            selector = .psm(UInt16(value))
        case "rfcomm.channel":
            guard (1 ... 30).contains(value) else { throw ParseError(description: "'\(text)': RFCOMM server channels are 1 to 30") }
            selector = .rfcommChannel(UInt8(value))
        case "att.handle":
            guard (1 ... 0xFFFF).contains(value) else { throw ParseError(description: "'\(text)': an attribute handle is 0x0001 to 0xFFFF") }
            selector = .attHandle(UInt16(value))
        default:
            throw ParseError(description: "'\(text)': decode as selects by l2cap.cid, l2cap.psm, rfcomm.channel or att.handle, not \(test[0])")
        }
        let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
        if let found = described.first(where: { $0.key == parts.first }) {
            guard let message = parts.count == 2 ? found.message(parts[1]) : found.selectors.first?.message ?? found.messages.first else {
                throw ParseError(description: "'\(text)': \(found.key) has no message '\(parts.count == 2 ? parts[1] : "")'")
            }
            return DecodeAsRule(selector: selector, target: .described(found, message), description: text)
        }
        let builtIns = builtInTargets
        guard let psm = builtIns[name.lowercased()] else {
            let known = (builtIns.keys.sorted() + described.map(\.key)).joined(separator: ", ")
            throw ParseError(description: "'\(text)': no protocol '\(name)' to decode as; known: \(known)")
        }
        switch selector {
        case .cid, .psm: break
        default: throw ParseError(description: "'\(text)': \(name) is carried by L2CAP; select it by l2cap.cid or l2cap.psm")
        }
        return DecodeAsRule(selector: selector, target: .builtIn(psm: psm, name: DissectorTables.psmNames[psm] ?? name), description: text)
    }

}

/// A run's decode-as rules, by what they select.
public struct DecodeAsRules: Sendable {
    public private(set) var all: [DecodeAsRule] = []
    var cids: [UInt16: DecodeAsRule] = [:]
    var psms: [UInt16: DecodeAsRule] = [:]
    var rfcommChannels: [UInt8: DescribedTarget] = [:]
    var handles: [UInt16: DescribedTarget] = [:]

    public init() {}

    public var isEmpty: Bool { all.isEmpty }

    /// A later rule for the same selector replaces an earlier one (the command line's come last).
    public mutating func add(_ rule: DecodeAsRule) {
        all.removeAll { $0.selector == rule.selector }
        all.append(rule)
        switch rule.selector {
        case .cid(let cid): cids[cid] = rule
        case .psm(let psm): psms[psm] = rule
        case .rfcommChannel(let channel):
            if case .described(let described, let message) = rule.target { rfcommChannels[channel] = DescribedTarget(described: described, message: message) }
        case .attHandle(let handle):
            if case .described(let described, let message) = rule.target { handles[handle] = DescribedTarget(described: described, message: message) }
        }
    }
}
