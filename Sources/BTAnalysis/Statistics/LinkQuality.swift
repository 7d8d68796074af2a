import BTCapture
import BTDecode
import BTQuery

/// A link's quality as its controller reported it: Android's Bluetooth Quality Reports (vendor
/// event 0xFF, sub-event 0x58), one sample per report, in order.
public struct LinkQualitySample: Equatable, Sendable {
    public var frame: Int
    public var time: Int64
    /// The report ID: 0x01 quality monitor, 0x02 approaching LSTO, 0x03 A2DP choppy, 0x04 SCO choppy...
    public var report: Int
    public var rssi: Int?
    public var snr: Int?
    public var unusedChannels: Int?
    public var retransmissions: Int?
    public var nak: Int?
    /// Packets sent and packets flushed (BQR v4 and later; nil before).
    public var txTotal: Int?
    public var txFlushed: Int?
    /// Audio glitches (A2DP and SCO choppy reports).
    public var glitches: Int?
    /// The SCO choppy report's air format, the A2DP choppy report's link quality, by name.
    public var detail: String?
    /// Choppy reports: times coexistence (Wi-Fi, LTE) denied the radio, both ways; the ACL
    /// packets waiting in the controller (A2DP).
    public var coexistenceDenials: Int?
    public var aclQueue: Int?

    /// The report's name ("Quality Monitor", "A2DP Choppy"), as the decoder names the ID.
    public var reportName: String? { FieldValueNames.name(of: UInt64(report), for: QualityFields.reportID) }

    /// Retransmissions as a share of the packets sent, when the report counts both.
    public var retransmissionRate: Double? {
        guard let retransmissions, let txTotal, txTotal > 0 else { return nil }
        return Double(retransmissions) / Double(txTotal)
    }
}

/// A connection attempt the controller reported as failed (BQR Connect Fail).
public struct ConnectFailure: Equatable, Sendable {
    public var frame: Int
    public var time: Int64
    public var controller: UInt16
    public var address: BDAddr?
    /// The HCI error code.
    public var reason: UInt8
}

enum QualityFields {
    static func field(_ name: String) -> FieldDefinition { StatisticsFields.field(name) }
    static let reportID = field("bqr.report_id"), rssi = field("bqr.rssi"), snr = field("bqr.snr")
    static let unused = field("bqr.unused_afh_channel_count"), retransmissions = field("bqr.retransmission_count")
    static let nak = field("bqr.nak_count"), txTotal = field("bqr.tx_total_packets"), txFlushed = field("bqr.tx_flushed_packets")
    static let glitches = field("bqr.glitch_count"), failReason = field("bqr.fail_reason")
    static let airFormat = field("bqr.air_format"), linkQuality = field("bqr.link_quality")
    static let address = field("bqr.remote_address")
    static let txDenials = field("bqr.tx_cxm_denials"), rxDenials = field("bqr.rx_cxm_denials"), aclQueue = field("bqr.acl_tx_queue_length")
}

extension StatisticsCollector {
    /// A quality report: a sample on the link its handle names, or a failed connection.
    mutating func quality(_ layer: Layer, _ packet: Packet) {
        typealias Q = QualityFields
        guard let id = layer.integer(Q.reportID) else { return }
        let frame = packet.frame
        if id == 0x08 {
            if let reason = layer.integer(Q.failReason) {
                connectFailures.append(ConnectFailure(frame: frame.number, time: frame.timestamp, controller: frame.controller,
                                                      address: layer.address(Q.address) ?? packet.peer, reason: UInt8(truncatingIfNeeded: reason)))
            }
            return
        }
        guard [0x01, 0x02, 0x03, 0x04].contains(id), let handle = layer.integer(F.handle) else { return }
        let key = LinkKey(controller: frame.controller, handle: UInt16(truncatingIfNeeded: handle))
        guard let index = openConnections[key] ?? (packet.peer != nil ? open(key, packet) : nil) else { return }
        func named(_ field: FieldDefinition) -> String? {
            guard let value = layer.integer(field) else { return nil }
            return FieldValueNames.name(of: UInt64(value), for: field)
        }
        connections[index].quality.append(LinkQualitySample(
            frame: frame.number, time: frame.timestamp, report: id, rssi: layer.integer(Q.rssi), snr: layer.integer(Q.snr),
            unusedChannels: layer.integer(Q.unused), retransmissions: layer.integer(Q.retransmissions), nak: layer.integer(Q.nak),
            txTotal: layer.integer(Q.txTotal), txFlushed: layer.integer(Q.txFlushed), glitches: layer.integer(Q.glitches),
            detail: id == 0x03 ? named(Q.linkQuality) : id == 0x04 ? named(Q.airFormat) : nil,
            coexistenceDenials: layer.integer(Q.txDenials).map { $0 + (layer.integer(Q.rxDenials) ?? 0) }, aclQueue: layer.integer(Q.aclQueue)))
        connections[index].lastSeen = frame.timestamp
    }
}
