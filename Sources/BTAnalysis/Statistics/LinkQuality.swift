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
    public var reportName: String? { FieldValueNames.name(of: UInt64(report), for: BQRFields.reportID) }

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

extension StatisticsCollector {
    /// A quality report: a sample on the link its handle names, or a failed connection.
    mutating func quality(_ layer: Layer, _ packet: Packet) {
        guard let id = layer.integer(BQRFields.reportID) else { return }
        let frame = packet.frame
        if id == 0x08 {
            if let reason = layer.integer(BQRFields.failReason) {
                connectFailures.append(ConnectFailure(frame: frame.number, time: frame.timestamp, controller: frame.controller,
                                                      address: layer.address(BQRFields.remoteAddress) ?? packet.peer, reason: UInt8(truncatingIfNeeded: reason)))
            }
            return
        }
        guard [0x01, 0x02, 0x03, 0x04].contains(id), let handle = layer.integer(HCIFields.handle) else { return }
        let key = LinkKey(controller: frame.controller, handle: UInt16(truncatingIfNeeded: handle))
        guard let index = openConnections[key] ?? (packet.peer != nil ? open(key, packet) : nil) else { return }
        func named(_ field: FieldDefinition) -> String? {
            guard let value = layer.integer(field) else { return nil }
            return FieldValueNames.name(of: UInt64(value), for: field)
        }
        connections[index].quality.append(LinkQualitySample(
            frame: frame.number, time: frame.timestamp, report: id, rssi: layer.integer(BQRFields.rssi), snr: layer.integer(BQRFields.snr),
            unusedChannels: layer.integer(BQRFields.unusedChannels), retransmissions: layer.integer(BQRFields.retransmissions), nak: layer.integer(BQRFields.nak),
            txTotal: layer.integer(BQRFields.txTotal), txFlushed: layer.integer(BQRFields.txFlushed), glitches: layer.integer(BQRFields.glitches),
            detail: id == 0x03 ? named(BQRFields.linkQuality) : id == 0x04 ? named(BQRFields.airFormat) : nil,
            coexistenceDenials: layer.integer(BQRFields.txDenials).map { $0 + (layer.integer(BQRFields.rxDenials) ?? 0) }, aclQueue: layer.integer(BQRFields.aclQueue)))
        connections[index].lastSeen = frame.timestamp
    }
}
