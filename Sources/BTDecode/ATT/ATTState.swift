import BTCapture

/// ATT transactions in flight: one request per bearer and client (Core Vol 3, Part F, 3.3.2),
/// and one indication per bearer and server, waiting for the PDU that answers them.
public struct ATTState: ProtocolState {
    public static var slot: Int { StateSlot.att.rawValue }

    struct BearerKey: WordKey {
        var link: Session.LinkKey
        var cid: UInt16
        var clientIsLocal: Bool

        var hashWord: UInt64 { UInt64(link.packed) << 17 | UInt64(cid) << 1 | (clientIsLocal ? 1 : 0) }
    }

    struct Transaction {
        var opcode: UInt8
        var frame: Int
        var timestamp: Int64
        var handle: UInt16?
        var uuid: BTUUID?
        var findValue: BTUUID?
        /// A Write Request's value: the database takes it once the Write Response confirms it.
        var value: [UInt8]?
        var server: GATTServerKey
        /// On an air capture, the sniffer missed (or took damaged) packets of the link since it
        /// was sent: its answer may have been among them.
        var unheardSince = false
    }

    var requests: [BearerKey: Transaction] = [:]
    var indications: [BearerKey: Transaction] = [:]

    public init() {}

    static func unanswered(_ t: Transaction, at moment: String, naming packet: Bool = true) -> String {
        let what = t.opcode == 0x1D ? "Handle Value Indication" : ATTDecoder.opcodeName(t.opcode)
        let answer = t.opcode == 0x1D ? "confirmed" : "answered"
        if t.unheardSince {
            return "\(what)\(packet ? " in packet \(t.frame)" : "") not \(answer) in this capture (\(moment)): the sniffer missed or took damaged packets of the link after it"
        }
        return "\(what)\(packet ? " in packet \(t.frame)" : "") never \(answer) (\(moment))"
    }

    /// The sniffer missed, or took damaged, packets of `link` (an air capture): an answer still
    /// awaited there may have been among them.
    mutating func snifferMissed(on link: Session.LinkKey) {
        for (key, t) in requests where key.link == link && !t.unheardSince { requests[key]!.unheardSince = true }
        for (key, t) in indications where key.link == link && !t.unheardSince { indications[key]!.unheardSince = true }
    }

    public mutating func close(_ link: Session.LinkKey) -> [String] {
        var messages: [String] = []
        for (key, t) in requests where key.link == link { messages.append(Self.unanswered(t, at: "link disconnected")) }
        for (key, t) in indications where key.link == link { messages.append(Self.unanswered(t, at: "link disconnected")) }
        requests = requests.filter { $0.key.link != link }
        indications = indications.filter { $0.key.link != link }
        return messages.sorted()
    }

    public mutating func finish() -> [SessionReport] {
        let open = Array(requests.values) + Array(indications.values)
        requests.removeAll()
        indications.removeAll()
        return open.map { SessionReport(frameNumber: $0.frame, severity: .warning, message: Self.unanswered($0, at: "end of capture", naming: false)) }
    }
}

extension Session {
    public var att: ATTState { _read { yield self[ATTState.self] } _modify { yield &self[ATTState.self] } }
}
