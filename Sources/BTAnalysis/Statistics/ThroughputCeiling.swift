import BTCapture

/// The most application data an LE link can carry with given parameters, and what limits it:
/// the arithmetic behind `stats --throughput`'s diagnosis (documented in the man page,
/// THROUGHPUT CEILING).
///
/// The model: one side sends data PDUs as fast as the link allows, the other answers each with
/// an empty PDU; an exchange is the data PDU's air time, T_IFS (150 µs), the empty PDU's air
/// time and T_IFS again. A connection event holds as many whole exchanges as fit in the
/// interval (the controller is assumed to keep the event open: real ones often close it sooner,
/// so this is a ceiling). An ATT PDU of MTU bytes travels in L2CAP with a 4-byte header, cut
/// into link-layer PDUs of at most the data length; each is timed as a full one.
public struct LEThroughputCeiling: Equatable, Sendable {
    public enum PHY: Int, Sendable {
        case le1M = 1, le2M = 2, leCoded = 3

        public var name: String { PHYName.of(rawValue) }
    }

    public enum Transfer: Equatable, Sendable {
        case notifications, writeCommands, writeRequests, indications
        /// K-frames on an LE credit-based channel, MPS bytes each.
        case creditBased(mps: Int)

        /// "notification", "write"...: what each PDU is called in a sentence.
        public var noun: String {
            switch self {
            case .notifications: return "notification"
            case .writeCommands: return "write without response"
            case .writeRequests: return "write"
            case .indications: return "indication"
            case .creditBased: return "K-frame"
            }
        }

        /// Whether each PDU waits for an answer (a response or a confirmation).
        public var isAcknowledged: Bool { self == .writeRequests || self == .indications }
    }

    /// Connection interval, 1.25 ms units.
    public var interval: Int
    public var phy: PHY
    /// The sender's maximum LL payload (27 to 251).
    public var dataLength: Int
    public var mtu: Int
    public var encrypted: Bool
    public var transfer: Transfer

    public init(interval: Int, phy: PHY, dataLength: Int, mtu: Int, encrypted: Bool = false, transfer: Transfer) {
        self.interval = min(max(interval, Self.intervals.lowerBound), Self.intervals.upperBound)
        self.phy = phy
        self.dataLength = max(27, min(251, dataLength))
        self.mtu = max(23, mtu)
        self.encrypted = encrypted
        self.transfer = transfer
    }

    public static let interFrameSpace = 150
    /// The connection intervals the specification allows, 1.25 ms units (7.5 ms to 4 s).
    public static let intervals = 6 ... 3200

    /// Microseconds on air of a data channel PDU with `octets` of payload: preamble, access
    /// address, header, payload, MIC (encrypted and not empty), CRC; on LE Coded (S=8) the
    /// FEC-coded fields and terminators.
    public static func airTime(octets: Int, phy: PHY, encrypted: Bool) -> Int {
        let mic = encrypted && octets > 0 ? 4 : 0
        switch phy {
        case .le1M: return (1 + 4 + 2 + octets + mic + 3) * 8
        case .le2M: return (2 + 4 + 2 + octets + mic + 3) * 4
        case .leCoded: return 80 + 256 + 16 + 24 + (2 + octets + mic + 3) * 64 + 24
        }
    }

    /// Application bytes in each PDU: an ATT value of MTU - 3, or a K-frame's MPS.
    public var payload: Int {
        if case .creditBased(let mps) = transfer { return mps }
        return mtu - 3
    }

    /// The L2CAP PDU: its 4-byte header and the ATT PDU (or the K-frame's payload).
    public var l2capPDU: Int {
        if case .creditBased(let mps) = transfer { return mps + 4 }
        return mtu + 4
    }

    /// Link-layer PDUs per L2CAP PDU.
    public var fragments: Int { (l2capPDU + dataLength - 1) / dataLength }

    /// LL payload of a full data PDU: the data length, or the whole L2CAP PDU when shorter.
    public var linkPayload: Int { min(dataLength, l2capPDU) }

    /// One data PDU, its empty answer, and the two inter-frame spaces.
    public var exchangeTime: Int {
        Self.airTime(octets: linkPayload, phy: phy, encrypted: encrypted) + Self.interFrameSpace
            + Self.airTime(octets: 0, phy: phy, encrypted: encrypted) + Self.interFrameSpace
    }

    public var intervalMicros: Int { interval * 1250 }

    /// Whole exchanges in one connection event.
    public var exchangesPerEvent: Int { intervalMicros / exchangeTime }

    /// Connection events per acknowledged PDU: its fragments, then the answer in the next event.
    public var eventsPerTransaction: Int {
        let perEvent = max(1, exchangesPerEvent)
        return (fragments + perEvent - 1) / perEvent + 1
    }

    /// The ceiling in kilobits per second (1000 bits).
    public var kbps: Double {
        let milliseconds = Double(intervalMicros) / 1000
        if transfer.isAcknowledged {
            return Double(payload * 8) / (Double(eventsPerTransaction) * milliseconds)
        }
        return Double(payload * 8 * exchangesPerEvent) / (Double(fragments) * milliseconds)
    }

    /// What one change of parameters would give, and the sentence that says so.
    public struct Limit: Equatable, Sendable {
        public var parameter: String
        /// The ceiling with the change.
        public var kbps: Double
        public var sentence: String
    }

    /// The changes within the specification's reach, each alone, with the ceiling each gives;
    /// largest gain first.
    public var limits: [Limit] {
        var found: [Limit] = []
        let here = "at this interval"
        func gain(_ other: LEThroughputCeiling) -> Double { other.kbps }
        if transfer.isAcknowledged {
            var other = self
            other.transfer = transfer == .writeRequests ? .writeCommands : .notifications
            let faster = transfer == .writeRequests ? "Write Without Response" : "notifications"
            found.append(Limit(parameter: "transfer", kbps: other.kbps, sentence:
                "\(transfer == .writeRequests ? "Write Requests wait for their response" : "indications wait for their confirmation"): "
                + "one \(transfer.noun) every \(eventsPerTransaction) connection events; \(faster) would allow about \(Self.format(other.kbps)) kbps \(here)"))
            if interval > 6 {
                var shorter = self
                shorter.interval = 6
                found.append(Limit(parameter: "interval", kbps: shorter.kbps, sentence:
                    "interval \(Self.format(Double(intervalMicros) / 1000)) ms: each \(transfer.noun) waits \(eventsPerTransaction) intervals; "
                    + "7.5 ms would allow about \(Self.format(shorter.kbps)) kbps"))
            }
        }
        if case .creditBased = transfer {} else if mtu < 247 {
            var other = self
            other.mtu = 247
            other.dataLength = 251
            let withLength = dataLength < 251 ? " with data length 251" : ""
            found.append(Limit(parameter: "mtu", kbps: other.kbps, sentence:
                "MTU \(mtu): each \(transfer.noun) carries \(payload) bytes; MTU 247\(withLength) would allow about \(Self.format(other.kbps)) kbps \(here)"))
        }
        if dataLength < 251 && l2capPDU > dataLength {
            var other = self
            other.dataLength = 251
            found.append(Limit(parameter: "data_length", kbps: other.kbps, sentence:
                "data length \(dataLength): each \(transfer.noun) of \(l2capPDU) bytes with its L2CAP header takes \(fragments) link-layer packets; "
                + "data length 251 would allow about \(Self.format(other.kbps)) kbps \(here)"))
        }
        if phy != .le2M {
            var other = self
            other.phy = .le2M
            found.append(Limit(parameter: "phy", kbps: other.kbps, sentence:
                "\(phy.name) PHY\(phy == .leCoded ? " (long range)" : ""): LE 2M would allow about \(Self.format(other.kbps)) kbps \(here)"))
        }
        return found.filter { $0.kbps > kbps * 1.1 }.sorted { $0.kbps > $1.kbps }
    }

    /// The first limit in the way: the single change that would raise the ceiling most.
    public var firstLimit: Limit? { limits.first }

    /// "781", "234.7", "42.67": three significant digits or whole numbers.
    public static func format(_ kbps: Double) -> String {
        guard kbps.isFinite else { return kbps.isNaN ? "?" : "unbounded" }
        if kbps >= 1000 { return String(Int(kbps.rounded())) }
        if kbps >= 100 { return ASCII.decimal(kbps, decimals: 1) }
        return ASCII.decimal(kbps, decimals: 2)
    }
}
