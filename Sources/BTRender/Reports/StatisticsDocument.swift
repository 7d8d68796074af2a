import BTCapture
import BTDecode
import BTAnalysis
import BTQuery

/// `btlog stats --json`, member by member: each type below is one object of the document and
/// docs/stats.schema.json's description of it (StatisticsSchemaTests holds the two together).
/// Members are written in declaration order, in snake_case (JSONWriterEncoder); an optional is
/// null when unknown, an `Omittable` left out when it does not apply. Times are RFC 3339 in
/// UTC; durations are `_s` seconds, `_ms` milliseconds; coded values carry their name in a
/// `_name` member beside them.
struct StatisticsDocument: Encodable {
    var schemaVersion: Int
    var files: [String]
    var packets: Int
    var errors: Int
    var warnings: Int
    var commands: Int
    var events: Int
    var acl: Int
    var sco: Int
    var iso: Int
    var air: Omittable<Int>
    var baseband: Omittable<Int>
    var other: Int
    var dropped: Int
    var durationS: FixedDecimal
    var firstTime: UTCTime?
    var lastTime: UTCTime?
    var protocols: [ProtocolUsageDocument]
    var controllers: [ControllerDocument]
    var devices: [DeviceDocument]
    var connections: [ConnectionDocument]
    var att: ATTDocument
    var gatt: [CharacteristicDocument]
    var audio: AudioDocument
    var hci: HCIDocument
    var security: SecurityDocument
    var connectFailures: Omittable<[ConnectFailureDocument]>
    var throughput: Omittable<ThroughputDocument>
    var values: Omittable<[ValueDocument]>
    var sourceLinks: Omittable<[SourceLinkDocument]>
    var resolvedAddresses: Omittable<[ResolvedAddressDocument]>
}

/// A resolvable private address a known identity key resolved.
struct ResolvedAddressDocument: Encodable {
    var address: String
    var identity: Omittable<String>
    var keyFrame: Int
    var packets: Int
    var firstFrame: Int
    var firstTime: UTCTime
    var lastTime: UTCTime
}

/// Captures merged into one timeline: a link seen at both ends, one direction.
struct SourceLinkDocument: Encodable {
    struct End: Encodable {
        var source: String
        var controller: Int
        var handle: Int
        /// An air capture's end: the link's access address (the handle is then the decoder's
        /// number for the link).
        var accessAddress: Omittable<Int>
    }
    var from: End
    var to: End
    var latencyMs: DistributionDocument?
}

/// A described field's amounts over the capture (hrs.heart_rate, bas.level).
struct ValueDocument: Encodable {
    var field: String
    var label: String
    var unit: String?
    var count: Int
    var min: FixedDecimal
    var mean: FixedDecimal
    var max: FixedDecimal
    var firstFrame: Int
    var lastFrame: Int
    var firstTime: UTCTime
    var lastTime: UTCTime
}

/// A time as RFC 3339 in UTC with microseconds.
struct UTCTime: Encodable, JSONWriterValue {
    var micros: Int64
    init(_ micros: Int64) { self.micros = micros }
    var text: String {
        var formatter = UTCTimeFormatter()
        return formatter.format(micros)
    }
    func write(to json: inout JSONWriter) { json.string(text) }
    func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}

struct ProtocolUsageDocument: Encodable {
    var `protocol`: String
    var packets: Int
    var bytes: Int
}

struct ControllerDocument: Encodable {
    var index: Int
    var address: String?
    var name: String?
    var packets: Int
}

struct DeviceDocument: Encodable {
    struct RSSI: Encodable {
        var samples: Int
        var min: Int
        var median: Double?
        var max: Int
    }
    var address: String
    var addressType: String?
    var name: String?
    var vendor: String?
    var packets: Int
    var advertisingReports: Int
    var firstSeen: UTCTime
    var lastSeen: UTCTime
    var rssi: RSSI?
}

struct ConnectionDocument: Encodable {
    var file: Omittable<String?>
    var id: Int
    var controller: Int
    var handle: Int
    var address: String?
    var transport: String?
    var role: String?
    var start: UTCTime?
    var startFrame: Int?
    var end: UTCTime?
    var endFrame: Int?
    var durationS: FixedDecimal
    var disconnectReason: Int?
    var disconnectReasonName: String?
    var bytesSent: Int
    var bytesReceived: Int
    var packetsSent: Int
    var packetsReceived: Int
    var applicationBytesSent: Int
    var applicationBytesReceived: Int
    var parameters: ParametersDocument
    var air: Omittable<AirDocument>
    var linkQuality: Omittable<[LinkQualityDocument]>
    var timeline: [TimelineEventDocument]
    var channels: [ChannelDocument]
    var refusedChannels: [RefusedChannelDocument]
}

struct ParametersDocument: Encodable {
    var intervalMs: Double?
    var latency: Int?
    var supervisionTimeoutMs: Int?
    var txPhy: String?
    var rxPhy: String?
    var maxTxOctets: Int?
    var maxTxTimeUs: Int?
    var maxRxOctets: Int?
    var maxRxTimeUs: Int?
    var mtu: Int?
    var encrypted: Bool?
    var keySize: Int?
    var mode: String?
    var modeIntervalMs: Double?
}

/// One Bluetooth Quality Report on the link (Android's vendor event 0xFF, sub-event 0x58).
struct LinkQualityDocument: Encodable {
    var frame: Int
    var time: UTCTime
    var report: Int
    var reportName: String?
    var rssiDbm: Int?
    var snrDb: Int?
    var unusedAfhChannels: Int?
    var retransmissions: Int?
    var nak: Int?
    var txTotal: Int?
    var txFlushed: Int?
    var glitches: Int?
    var detail: String?
}

struct ConnectFailureDocument: Encodable {
    var frame: Int
    var time: UTCTime
    var controller: Int
    var address: String?
    var reason: Int
    var reasonName: String?
}

struct AirDocument: Encodable {
    var dataPdus: Int
    var badCrc: Int
    var retransmissions: Int
    var micFailures: Int
    var undecrypted: Int
    var decrypted: Int
    var missed: Int
    var keySource: Omittable<String>
    var leSecureConnections: Omittable<Bool>
}

/// Report items as members named by the item (`_ms` added to milliseconds).
struct ReportItemsDocument: Encodable {
    var items: [ReportItem]
    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: DynamicKey.self)
        try Self.encode(items, into: &container)
    }
    static func encode(_ items: [ReportItem], into container: inout KeyedEncodingContainer<DynamicKey>) throws {
        for item in items {
            switch item.value {
            case .count(let v): try container.encode(v, forKey: DynamicKey(item.name))
            case .milliseconds(let v): try container.encode(v, forKey: DynamicKey(item.name + "_ms"))
            case .text(let v): try container.encode(v, forKey: DynamicKey(item.name))
            case .flag(let v): try container.encode(v, forKey: DynamicKey(item.name))
            }
        }
    }
}

/// A timeline event: its frame, time and name, the values it set (named by the event), its failure.
struct TimelineEventDocument: Encodable {
    var frame: Int
    var time: UTCTime
    var event: String
    var values: [ReportItem]
    var failure: String?
    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: DynamicKey.self)
        try container.encode(frame, forKey: DynamicKey("frame"))
        try container.encode(time, forKey: DynamicKey("time"))
        try container.encode(event, forKey: DynamicKey("event"))
        try ReportItemsDocument.encode(values, into: &container)
        try container.encodeIfPresent(failure, forKey: DynamicKey("failure"))
    }
}

struct ChannelDocument: Encodable {
    var frame: Int
    var psm: Int
    var `protocol`: String?
    var mode: String
    var localCid: Int
    var remoteCid: Int
    var localMtu: Int?
    var remoteMtu: Int?
    var localMps: Int?
    var remoteMps: Int?
    var localCredits: Int?
    var remoteCredits: Int?
    var closedFrame: Int?
    // Credit-based channels only.
    var localCreditsExhausted: Omittable<Int>
    var remoteCreditsExhausted: Omittable<Int>
    var firstExhaustedFrame: Omittable<Int?>
    var creditViolations: Omittable<[Int]>
}

struct RefusedChannelDocument: Encodable {
    var frame: Int
    var psm: Int?
    var code: Int
    var result: Int
    var resultName: String?
    var by: String
}

/// Microsecond samples as milliseconds.
struct DistributionDocument: Encodable {
    var count: Int
    var min: Double
    var median: Double?
    var p95: Double?
    var max: Double
    var mean: Double?

    static func of(_ d: Distribution) -> DistributionDocument? {
        guard !d.isEmpty else { return nil }
        return DistributionDocument(count: d.count, min: Double(d.minimum) / 1000, median: d.median.map { $0 / 1000 },
                                    p95: d.percentile(0.95).map { Double($0) / 1000 }, max: Double(d.maximum) / 1000,
                                    mean: d.mean.map { $0 / 1000 })
    }
}

struct ATTDocument: Encodable {
    struct PDUCount: Encodable { var opcode: Int; var name: String; var count: Int }
    struct ByRequest: Encodable { var opcode: Int; var name: String; var responseTimeMs: DistributionDocument? }
    struct ErrorCount: Encodable {
        var requestOpcode: Int
        var request: String
        var error: Int
        var errorName: String?
        var count: Int
        var firstFrame: Int
    }
    struct Unanswered: Encodable { var frame: Int; var opcode: Int; var name: String; var waitedS: FixedDecimal; var end: String }
    struct Late: Encodable { var requestFrame: Int; var responseFrame: Int; var opcode: Int; var name: String; var delayS: FixedDecimal }
    var pdus: [PDUCount]
    var responseTimeMs: DistributionDocument?
    var responseTimeByRequest: [ByRequest]
    var errors: [ErrorCount]
    var unanswered: [Unanswered]
    var lateResponses: [Late]
}

struct CharacteristicDocument: Encodable {
    var address: String?
    var handle: Int
    var name: String?
    var writes: Int
    var writeCommands: Int
    var notifications: Int
    var indications: Int
    var reads: Int
    var bytes: Int
}

struct AudioDocument: Encodable {
    struct A2DPStream: Encodable {
        var controller: Int
        var handle: Int
        var cid: Int
        var direction: String
        var address: String?
        var codec: String?
        var configuration: ReportItemsDocument
        var packets: Int
        var mediaBytes: Int
        var first: UTCTime
        var last: UTCTime
        var bitRateKbps: Double?
        var rtpGaps: Int
        var rtpLostPackets: Int
        var firstGapFrame: Int?
    }
    struct Reject: Encodable {
        var frame: Int
        var handle: Int
        var signal: Int
        var signalName: String?
        var error: Int?
        var errorName: String?
    }
    struct SynchronousStream: Encodable {
        var controller: Int
        var handle: Int
        var direction: String
        var codec: String?
        var packets: Int
        var bytes: Int
        var first: UTCTime
        var last: UTCTime
        var lost: Int
        var badStatus: Int
        var firstLossFrame: Int?
    }
    var a2dp: [A2DPStream]
    var avdtpRejects: [Reject]
    var sco: [SynchronousStream]
    var iso: [SynchronousStream]
}

struct HCIDocument: Encodable {
    struct CommandErrorDocument: Encodable {
        var controller: Int
        var opcode: Int
        var command: String
        var status: Int
        var statusName: String?
        var count: Int
        var frames: [Int]
    }
    struct UnansweredCommandDocument: Encodable { var frame: Int; var controller: Int; var opcode: Int; var command: String; var waitedS: FixedDecimal }
    struct HardwareErrorDocument: Encodable { var frame: Int; var controller: Int; var code: Int }
    var commandErrors: [CommandErrorDocument]
    var unansweredCommands: [UnansweredCommandDocument]
    var hardwareErrors: [HardwareErrorDocument]
}

struct SecurityDocument: Encodable {
    struct PairingFailureDocument: Encodable {
        var frame: Int
        var handle: Int?
        var address: String?
        var source: String
        var reason: Int
        var reasonName: String?
        var by: String?
    }
    struct EncryptionFailureDocument: Encodable {
        var frame: Int
        var handle: Int?
        var address: String?
        var kind: String
        var status: Int?
        var statusName: String?
    }
    var pairingFailures: [PairingFailureDocument]
    var encryptionFailures: [EncryptionFailureDocument]
}

struct ThroughputDocument: Encodable {
    struct Ceiling: Encodable {
        var kbps: Double
        var intervalMs: Double
        var phy: String
        var dataLength: Int
        var mtu: Int
        var encrypted: Bool
        var transfer: String
        var payloadBytes: Int
        var linkLayerPackets: Int
        var exchangeUs: Int
        var exchangesPerEvent: Int
    }
    struct Limit: Encodable { var parameter: String; var kbps: Double; var text: String }
    struct Diagnosis: Encodable {
        var connection: Int
        var handle: Int
        var direction: String
        var bytes: Int
        var achievedKbps: Double?
        var ceiling: Ceiling?
        var firstLimit: Limit?
        var pace: String?
    }
    struct Series: Encodable {
        var connection: Int
        var handle: Int?
        var direction: String
        var firstInterval: Int
        var kbps: [Double]
    }
    var intervalS: FixedDecimal
    var intervals: Int
    var diagnosis: [Diagnosis]
    var series: [Series]
}
