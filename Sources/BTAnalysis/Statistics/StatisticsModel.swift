import BTCapture
import BTDecode
import BTQuery

/// What `btlog stats` reports about a capture (or several read as one), made by
/// `StatisticsCollector` from the packets the filters kept. Renderers in BTRender print it as
/// text or JSON; the throughput view and the diagnosis read it too.
public struct CaptureReport {
    /// PacketLogger's status line counts.
    public var totals = CaptureStatistics()
    /// Packets and bytes per protocol (a packet counts once for every protocol it carries).
    public var protocols: [ProtocolUsage] = []
    public var controllers: [ControllerUsage] = []
    public var devices: [DeviceReport] = []
    public var connections: [ConnectionReport] = []
    public var att = ATTReport()
    /// GATT characteristics by activity (writes, notifications, indications, reads).
    public var characteristics: [CharacteristicActivity] = []
    public var a2dpStreams: [A2DPStreamReport] = []
    /// SCO/eSCO and ISO streams.
    public var synchronousStreams: [SynchronousStreamReport] = []
    /// AVDTP signals the other side rejected.
    public var avdtpRejects: [AVDTPReject] = []
    /// Commands that failed or were never answered, and controller hardware errors.
    public var hci = HCIReport()
    /// Pairings that failed and links whose encryption could not start.
    public var security = SecurityReport()
    /// Connection attempts the controller's quality reports said failed.
    public var connectFailures: [ConnectFailure] = []
    /// The amounts described protocols decoded (hrs.heart_rate, bas.level...).
    public var values: [ValueSummary] = []
    /// Captures merged into one timeline: the links seen at both ends, with the latency
    /// between them per direction.
    public var sourceLinks: [SourceLatency] = []
    /// Resolvable private addresses a known identity key resolved: one device under each.
    public var resolvedAddresses: [ResolvedAddress] = []
}

/// A resolvable private address and the device behind it.
public struct ResolvedAddress: Sendable {
    public var address: BDAddr
    /// The identity address, where the captures showed it (or --irk gave it).
    public var identity: BDAddr?
    /// The packet whose SMP Identity Information gave the key (0: --irk).
    public var keyFrame: Int
    public var packets = 0
    public var firstFrame: Int
    public var first: Int64
    public var last: Int64
}

public struct HCIReport {
    /// Command Complete or Status with a non-zero status, by command and status.
    public var commandErrors: [CommandError] = []
    /// Commands no Command Complete or Command Status answered while the capture went on for
    /// at least a second after them.
    public var unansweredCommands: [UnansweredCommand] = []
    /// Commands the controller answered with opcode 0xFFFF: not supported.
    public var unsupportedCommands: [UnsupportedCommand] = []
    public var hardwareErrors: [HardwareError] = []
}

public struct CommandError: Equatable {
    public var controller: UInt16
    public var opcode: UInt16
    public var status: UInt8
    public var count: Int
    /// The first packets (at most 20) that said so.
    public var frames: [Int]
}

/// A command a Command Complete or Status with opcode 0xFFFF answered: the controller does not
/// support it.
public struct UnsupportedCommand: Equatable {
    public var frame: Int
    public var answerFrame: Int
    public var controller: UInt16
    public var opcode: UInt16
}

public struct UnansweredCommand: Equatable {
    public var frame: Int
    public var controller: UInt16
    public var opcode: UInt16
    /// Microseconds from the command to the end of the capture.
    public var waited: Int64
}

public struct HardwareError: Equatable {
    public var frame: Int
    public var controller: UInt16
    public var code: UInt8
}

public struct SecurityReport {
    public var pairingFailures: [PairingFailure] = []
    public var encryptionFailures: [EncryptionFailure] = []
}

public struct PairingFailure: Equatable {
    public enum Source: String, Sendable {
        /// SMP Pairing Failed (LE, or BR/EDR over the SMP fixed channel).
        case smp
        /// Simple Pairing Complete or Authentication Complete with a non-zero status (BR/EDR).
        case controller
    }
    public var frame: Int
    public var controller: UInt16
    public var handle: UInt16?
    public var address: BDAddr?
    public var source: Source
    /// The SMP reason, or the HCI status.
    public var reason: UInt8
    /// The local side sent Pairing Failed (SMP only).
    public var byLocal: Bool
}

public struct EncryptionFailure: Equatable {
    public enum Kind: String, Sendable {
        /// Encryption Change (or Key Refresh Complete) with a non-zero status.
        case change
        /// LE Long Term Key Request Negative Reply: the host has no key for the peer.
        case ltkMissing = "ltk_missing"
        /// Link Key Request Negative Reply: no stored link key (BR/EDR).
        case linkKeyMissing = "link_key_missing"
    }
    public var frame: Int
    public var controller: UInt16
    public var handle: UInt16?
    public var address: BDAddr?
    public var kind: Kind
    /// The HCI status of a failed change (0 for the negative replies).
    public var status: UInt8
    /// A missing link key's: the Link Key Notification of the pairing that followed (a first
    /// pairing, then, not a lost bond).
    public var pairedIn: Int? = nil
}

public struct AVDTPReject: Equatable {
    public var frame: Int
    public var handle: UInt16
    public var signal: UInt8
    public var error: UInt8?
}

public struct ProtocolUsage: Equatable {
    /// The field prefix (`att`, `l2cap`): what filters and `--type` call it.
    public var name: String
    public var packets = 0
    /// Bytes of the protocol's layers (header and payload).
    public var bytes = 0
}

public struct ControllerUsage: Equatable {
    public var index: UInt16
    public var address: BDAddr?
    public var name: String?
    public var packets = 0
}

public struct DeviceReport {
    public var address: BDAddr
    /// 0 public, 1 random (LE); nil for BR/EDR devices and when never said.
    public var addressType: UInt8?
    public var name: String?
    /// The organisation the IEEE registered the address's OUI to (public addresses only).
    public var vendor: String?
    /// Packets about the device: its advertising reports, and its connections' packets.
    public var packets = 0
    public var advertisingReports = 0
    public var firstSeen: Int64
    public var lastSeen: Int64
    /// dBm from advertising and inquiry reports and Read RSSI.
    public var rssi = Distribution()

    /// A random address whose two top bits are 11 is static; 01 resolvable private, 00 non-resolvable.
    public var addressKind: String {
        guard addressType == 1 || addressType == 3 else { return addressType == nil ? "BR/EDR" : "public" }
        switch address.bytes.0 >> 6 {
        case 0b11: return "random static"
        case 0b01: return "resolvable private"
        case 0b00: return "non-resolvable private"
        default: return "random"
        }
    }
}

public enum Transport: String, Sendable {
    case le = "LE"
    case bredr = "BR/EDR"
}

public enum LinkRole: String, Sendable {
    case central, peripheral
}

/// One ACL link from its Connection Complete (or its first packet, when the capture began
/// after it) to its Disconnection Complete (or the end of the capture).
public struct ConnectionReport {
    public var file: String?
    public var controller: UInt16
    public var handle: UInt16
    public var address: BDAddr?
    public var addressType: UInt8?
    public var transport: Transport?
    public var role: LinkRole?
    /// nil when the capture began after the link was made.
    public var start: Int64?
    public var startFrame: Int?
    /// The first and last packet of the link seen in the capture.
    public var firstSeen: Int64
    public var lastSeen: Int64
    /// The number of the first packet of the link in the capture.
    public var firstFrame: Int?
    /// nil while the link was still up at the end of the capture.
    public var end: Int64?
    public var endFrame: Int?
    public var disconnectReason: UInt8?
    /// ACL payload bytes and packets, sent by the local host and received from the peer.
    public var bytesSent = 0, bytesReceived = 0, packetsSent = 0, packetsReceived = 0
    /// How the link's parameters changed, in order.
    public var timeline: [ParameterEvent] = []
    public var channels: [ChannelReport] = []
    /// L2CAP connection requests answered with a refusal, and signaling commands rejected.
    public var refusedChannels: [RefusedChannel] = []
    /// The parameters in force at the end (the diagnosis reads them).
    public var parameters = LinkParameters()
    /// Application data (ATT values, L2CAP channel payloads, A2DP media) each way: bytes, the
    /// PDU kinds that carried it, and when (the throughput view and its ceiling read them).
    public var trafficSent = TrafficKinds(), trafficReceived = TrafficKinds()
    /// A link taken from the air: how its packets fared (nil for a link in an HCI capture).
    public var air: AirLinkQuality?
    /// What the controller's quality reports said of the link, in order.
    public var quality: [LinkQualitySample] = []

    public var key: Session.LinkKey { Session.LinkKey(controller: controller, handle: handle) }

    /// The open channel whose receiving end `cid` names, for a packet going the way `sent`
    /// says (the peer's end for a packet sent): how K-frames, credits and configuration find
    /// their channel, and an EATT bearer its local CID.
    func openChannel(receivingCID cid: Int, sent: Bool) -> Int? {
        channels.lastIndex { (sent ? $0.remoteCID : $0.localCID) == cid && $0.closedFrame == nil }
    }
}

/// How a connection taken from the air fared: its data PDUs, and how many the sniffer took
/// damaged, saw sent again, or could not authenticate or decrypt.
public struct AirLinkQuality: Equatable, Sendable {
    public var dataPDUs = 0
    public var badCRC = 0, retransmissions = 0, micFailures = 0, undecrypted = 0
    public var firstBadCRC: Int?, firstRetransmission: Int?, firstUndecrypted: Int?
    /// Encrypted PDUs btlog opened with a key.
    public var decrypted = 0
    /// Packets the sniffer missed (at least: what sequence numbers and packet counters show).
    public var missed = 0
    public var missedFrames: [Int] = []
    public var micFailureFrames: [Int] = []
    /// How btlog found the link's key ("STK of legacy pairing, TK 461140 (passkey search)").
    public var keySource: String?
    /// The link was paired with LE Secure Connections and btlog was given no key for it.
    public var secureConnections = false
}

/// A link's parameters as last set.
public struct LinkParameters: Equatable, Sendable {
    /// LE connection interval in 1.25 ms units.
    public var interval: Int?
    public var latency: Int?
    /// Supervision timeout in 10 ms units.
    public var supervisionTimeout: Int?
    /// 1 LE 1M, 2 LE 2M, 3 LE Coded.
    public var txPHY: Int?
    public var rxPHY: Int?
    public var maxTxOctets: Int?
    public var maxTxTime: Int?
    public var maxRxOctets: Int?
    public var maxRxTime: Int?
    /// The ATT MTU both sides agreed (the smaller of the two they exchanged).
    public var mtu: Int?
    public var encrypted: Bool?
    public var keySize: Int?
    /// BR/EDR: 0 active, 1 hold, 2 sniff.
    public var mode: Int?
    /// BR/EDR: the hold or sniff interval in 0.625 ms slots.
    public var modeInterval: Int?

    public init() {}

    /// Mode Change's Current_Mode in words (3, park, is from older specifications).
    public static func modeName(_ mode: Int) -> String {
        switch mode {
        case 0: return "active"
        case 1: return "hold"
        case 2: return "sniff"
        case 3: return "park"
        default: return "mode \(mode)"
        }
    }
}

/// Which PDU kinds carried application data one way on a link, and when the first and last
/// did (the throughput ceiling and the rate achieved depend on them).
public struct TrafficKinds: Equatable, Sendable {
    public var writeRequests = 0, writeCommands = 0, notifications = 0, indications = 0
    /// K-frames on dynamic L2CAP channels (and anything else above L2CAP that is not ATT or A2DP media).
    public var channelPayloads = 0
    /// A2DP media packets.
    public var media = 0
    public var bytes = 0
    public var first: Int64?
    public var last: Int64?

    public init() {}

    mutating func add(bytes: Int, at time: Int64) {
        self.bytes += bytes
        if first == nil { first = time }
        last = time
    }
}

/// One change to a link's parameters (or an attempt): the event that made it and its values.
public struct ParameterEvent: Equatable {
    public var frame: Int
    public var time: Int64
    /// "Connection Update Complete", "PHY Update Complete", "ATT MTU", "Mode Change"...
    public var event: String
    public var values: [ReportItem]
    /// A non-zero status or a rejection, in words; the values did not take effect.
    public var failure: String?
    /// What it changed in what the link can carry, typed: the throughput plot marks these.
    public var change: LinkChange? = nil
}

/// A change of what a link can carry: its connection interval, PHY, data length or ATT MTU
/// (each value as the event gave it; nil when it gave none), a BR/EDR mode (sniff, hold) or an
/// LE subrate.
public enum LinkChange: Equatable {
    case interval(milliseconds: Double?)
    case phy(String?)
    case dataLength(octets: Int)
    case mtu(Int)
    case mode
    case subrate
}

/// A named value in a report: the text view shows "interval 30 ms", JSON `"interval_ms": 30`.
public struct ReportItem: Equatable {
    public enum Value: Equatable {
        case count(Int)
        case milliseconds(Double)
        case text(String)
        case flag(Bool)
    }
    public var name: String
    public var value: Value

    public init(_ name: String, _ value: Value) {
        self.name = name
        self.value = value
    }
}

/// An L2CAP channel opened on a link (BR/EDR connection-oriented or LE credit-based).
public struct ChannelReport: Equatable {
    public var frame: Int
    public var time: Int64
    public var psm: Int
    public var protocolName: String
    public var localCID: Int
    public var remoteCID: Int
    /// The MTU each side said it can receive, and for credit-based channels MPS and initial credits.
    public var localMTU: Int?, remoteMTU: Int?
    public var localMPS: Int?, remoteMPS: Int?
    public var localCredits: Int?, remoteCredits: Int?
    /// "BR/EDR", "LE credit-based", "enhanced credit-based".
    public var mode: String
    public var closedFrame: Int?
    /// Credit-based channels: the K-frames each side may still send, as credits are given
    /// (the connection, Flow Control Credit Indications) and used.
    public var localSendCredits = 0, remoteSendCredits = 0
    /// How often each side used its last credit, and where it first did.
    public var localCreditsExhausted = 0, remoteCreditsExhausted = 0
    public var firstExhaustedFrame: Int?
    /// K-frames sent with no credit left: a protocol violation.
    public var creditViolations: [Int] = []

    public var isCreditBased: Bool { mode != "BR/EDR" }
}

/// An L2CAP connection request refused (or a signaling command rejected).
public struct RefusedChannel: Equatable {
    public var frame: Int
    /// The PSM asked for, when the request was seen.
    public var psm: Int?
    /// Signaling code of the answer: 0x01 Command Reject, 0x03, 0x15, 0x18 connection responses.
    public var code: Int
    public var result: Int
    /// The local side refused (it sent the answer).
    public var byLocal: Bool
}

public struct ATTReport {
    /// Every ATT PDU by opcode.
    public var opcodes: [UInt8: Int] = [:]
    /// Request to response, microseconds, every request kind together.
    public var latency = Distribution()
    public var latencyByRequest: [UInt8: Distribution] = [:]
    /// Error Responses by (request opcode, error code), with the first packet of each.
    public var errors: [ATTErrorCount] = []
    /// Requests (and indications) no response (confirmation) answered.
    public var unanswered: [UnansweredRequest] = []
    /// Responses that came after ATT's 30-second transaction timeout.
    public var lateResponses: [LateResponse] = []
}

public struct UnansweredRequest: Equatable {
    public enum End: String, Sendable {
        /// The capture ended first.
        case captureEnded = "capture_ended"
        /// The link went down first.
        case disconnected
        /// Another request went out on the same bearer first (a protocol violation).
        case superseded
        /// An air capture whose sniffer missed packets of the link after the request, or took
        /// them damaged: the answer may have been among them (the capture's gap, not the devices').
        case notCaptured = "not_captured"
    }
    public var frame: Int
    public var opcode: UInt8
    /// Microseconds from the request to the end that came instead of a response.
    public var waited: Int64
    public var end: End
}

public struct LateResponse: Equatable {
    public var requestFrame: Int
    public var responseFrame: Int
    public var opcode: UInt8
    public var delay: Int64
}

public struct ATTErrorCount: Equatable {
    public var requestOpcode: UInt8
    public var error: UInt8
    public var count: Int
    public var firstFrame: Int
    /// The first 20 Error Responses of the kind.
    public var frames: [Int]
}

public struct CharacteristicActivity: Equatable {
    public var address: BDAddr?
    public var handle: UInt16
    /// From the GATT database the capture's discovery built, when it did.
    public var name: String?
    public var writes = 0, writeCommands = 0, notifications = 0, indications = 0, reads = 0
    /// Value bytes carried each way: written by the client, or notified/read from the server.
    public var bytes = 0

    public var total: Int { writes + writeCommands + notifications + indications + reads }
}

public struct A2DPStreamReport: Equatable {
    public var controller: UInt16
    public var handle: UInt16
    public var cid: UInt16
    /// The local host sent it (a source); false: it received it (a sink).
    public var sent: Bool
    public var address: BDAddr?
    /// From the AVDTP Set Configuration the capture carried, and the media packets' own headers.
    public var codec: String?
    public var configuration: [ReportItem] = []
    public var packets = 0
    public var mediaBytes = 0
    public var first: Int64
    public var last: Int64
    /// Sequence gaps and the RTP packets they lost.
    public var gaps = 0
    public var lostPackets = 0
    public var firstGapFrame: Int?

    /// Media bits per second over the stream's span (nil for a single packet).
    public var bitRate: Double? {
        let span = last.saturatingSubtract(first)
        return span > 0 ? Double(mediaBytes) * 8 / (Double(span) / 1_000_000) : nil
    }
}

public struct SynchronousStreamReport: Equatable {
    public enum Kind: String { case sco = "SCO", iso = "ISO" }
    public var kind: Kind
    public var controller: UInt16
    public var handle: UInt16
    public var sent: Bool
    public var codec: String?
    public var packets = 0
    public var bytes = 0
    public var first: Int64
    public var last: Int64
    /// SCO: packets whose status says data was lost or possibly invalid; ISO: the same, plus
    /// the SDUs a sequence-number gap skipped.
    public var lost = 0
    public var badStatus = 0
    public var firstLossFrame: Int?
}

/// One end of a link in one of several merged captures: the capture, its controller index
/// and the connection handle there; for an air capture, the link's access address.
public struct LinkEnd: Hashable, Sendable {
    public var source: String
    public var controller: UInt16
    public var handle: UInt16
    public var accessAddress: UInt32?
}

/// PDUs one end sent and the other received: the same link under two names.
public struct SourceLink: Hashable, Sendable {
    public var from: LinkEnd
    public var to: LinkEnd
}

/// The latency of a link's PDUs in one direction, from the sender's HCI to the receiver's
/// (microseconds, on the aligned clock).
public struct SourceLatency: Sendable {
    public var link: SourceLink
    public var latency: Distribution
}
