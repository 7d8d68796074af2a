import BTCapture
import BTDecode
import BTQuery

/// LE links taken from the air: how their data PDUs fared (damaged, sent again, failing
/// their MIC, encrypted without a key), and the LL Control procedures that changed them.
struct AirLinkTracker {
    typealias LinkKey = Session.LinkKey

    /// Each side's LL_LENGTH_REQ/RSP (max RX, max TX octets), central first.
    private var lengthOffers: [LinkKey: [(rx: Int, tx: Int)?]] = [:]

    /// A data PDU of a connection from the air: damaged, sent again, failing its MIC, or
    /// encrypted with a key btlog does not have.
    static func quality(_ layer: Layer, _ frame: Frame, _ connection: inout ConnectionReport) {
        var quality = connection.air ?? AirLinkQuality()
        quality.dataPDUs += 1
        if layer.integer(LinkLayerFields.crcOK) == 0 {
            quality.badCRC += 1
            quality.firstBadCRC = quality.firstBadCRC ?? frame.number
        } else if layer.value(LinkLayerFields.retransmission) != nil {
            quality.retransmissions += 1
            quality.firstRetransmission = quality.firstRetransmission ?? frame.number
        }
        if layer.integer(LinkLayerFields.micOK) == 0 {
            quality.micFailures += 1
            if quality.micFailureFrames.count < 20 { quality.micFailureFrames.append(frame.number) }
        } else if layer.value(LinkLayerFields.encryptedPayload) != nil, layer.integer(LinkLayerFields.crcOK) != 0 {
            // Not decrypted for want of a key (a damaged copy is the sniffer's, counted above).
            quality.undecrypted += 1
            quality.firstUndecrypted = quality.firstUndecrypted ?? frame.number
        }
        if layer.value(LinkLayerFields.decrypted) != nil { quality.decrypted += 1 }
        if let missed = layer.integer(LinkLayerFields.missed) {
            quality.missed += missed
            if quality.missedFrames.count < 20 { quality.missedFrames.append(frame.number) }
        }
        if let source = layer.text(LinkLayerFields.keySource) { quality.keySource = source }
        if layer.integer(LinkLayerFields.secureConnections) == 1 { quality.secureConnections = true }
        connection.air = quality
    }

    /// An LL Control PDU on its link; true when it ended the link (LL_TERMINATE_IND).
    mutating func control(_ opcode: Int, _ layer: Layer, _ packet: Packet, _ connection: inout ConnectionReport, key: LinkKey) -> Bool {
        let sent = packet.frame.direction == .sent
        /// A procedure's name, as the field names LL Control opcodes.
        func procedure(_ code: Int?) -> String {
            guard let code else { return "An LL procedure" }
            return FieldValueNames.name(of: UInt64(code), for: LinkLayerFields.controlOpcode) ?? "LL opcode \(Hex.u8(UInt8(truncatingIfNeeded: code)))"
        }
        switch opcode {
        case 0x0D, 0x11: // LL_REJECT_IND, LL_REJECT_EXT_IND: a procedure refused, with a reason
            let rejected = opcode == 0x11 ? layer.integer(LinkLayerFields.rejectOpcode) : nil
            var name = procedure(rejected)
            if rejected == 0x0F { name = "Connection Parameters Request (LL_CONNECTION_PARAM_REQ)" }
            connection.record(packet, name, [ReportItem("by", .text(sent ? "central" : "peripheral"))], status: layer.integer(LinkLayerFields.errorCode) ?? 0x1F)
        case 0x07: // LL_UNKNOWN_RSP: the peer does not know the procedure
            let unknown = layer.integer(LinkLayerFields.unknownType)
            let by = ReportItem("by", .text(sent ? "central" : "peripheral"))
            if let unknown, FieldValueNames.name(of: UInt64(unknown), for: LinkLayerFields.controlOpcode) == nil {
                // An opcode the specification does not assign (a vendor's own procedure): refusing
                // it is what the specification asks, not a failure.
                connection.record(packet, "\(procedure(unknown)), not assigned by the specification, refused (LL_UNKNOWN_RSP)", [by])
            } else {
                connection.record(packet, procedure(unknown), [by], failure: "not supported by the \(sent ? "central" : "peripheral") (LL_UNKNOWN_RSP)")
            }
        case 0x00: // LL_CONNECTION_UPDATE_IND
            guard let interval = layer.integer(LinkLayerFields.intervalUpdate) else { return false }
            var items = connection.setInterval(interval, latency: layer.integer(LinkLayerFields.latencyUpdate) ?? 0, timeout: layer.integer(LinkLayerFields.timeoutUpdate) ?? 0)
            if let instant = layer.integer(LinkLayerFields.instant) { items.append(ReportItem("instant", .count(instant))) }
            connection.record(packet, "LL_CONNECTION_UPDATE_IND", items)
        case 0x14, 0x15: // LL_LENGTH_REQ/RSP: what the sender can take and send
            guard let rx = layer.integer(LinkLayerFields.maxRxOctets), let tx = layer.integer(LinkLayerFields.maxTxOctets) else { return false }
            var offers = lengthOffers[key] ?? [nil, nil]
            offers[sent ? 0 : 1] = (rx, tx)
            lengthOffers[key] = offers
            // Each direction carries what its sender sends and its receiver takes, at least 27
            // (the capture's side is the central's: it sends C→P, receives P→C).
            if let central = offers[0], let peripheral = offers[1] {
                connection.parameters.maxTxOctets = max(27, min(central.tx, peripheral.rx))
                connection.parameters.maxRxOctets = max(27, min(peripheral.tx, central.rx))
            }
            connection.record(packet, opcode == 0x14 ? "LL_LENGTH_REQ" : "LL_LENGTH_RSP",
                              [ReportItem("max_rx_octets", .count(rx)), ReportItem("max_tx_octets", .count(tx))])
        case 0x18: // LL_PHY_UPDATE_IND
            let cToP = layer.integer(LinkLayerFields.phyCToP) ?? 0, pToC = layer.integer(LinkLayerFields.phyPToC) ?? 0
            // PHY bits (1 LE 1M, 2 LE 2M, 4 LE Coded) as HCI's PHY numbers (1, 2, 3).
            func number(_ bits: Int) -> Int? { bits & 4 != 0 ? 3 : bits & 2 != 0 ? 2 : bits & 1 != 0 ? 1 : nil }
            if let tx = number(cToP) { connection.parameters.txPHY = tx }
            if let rx = number(pToC) { connection.parameters.rxPHY = rx }
            connection.record(packet, "LL_PHY_UPDATE_IND", [ReportItem("tx_phy", .text(PHYName.of(connection.parameters.txPHY))),
                                                           ReportItem("rx_phy", .text(PHYName.of(connection.parameters.rxPHY)))])
        case 0x05: // LL_START_ENC_REQ: the link is encrypted from here
            connection.parameters.encrypted = true
            connection.record(packet, "LL_START_ENC_REQ", [ReportItem("encryption", .flag(true))])
        case 0x02: // LL_TERMINATE_IND
            connection.end = packet.frame.timestamp
            connection.endFrame = packet.frame.number
            connection.disconnectReason = layer.integer(LinkLayerFields.errorCode).map(UInt8.init(truncatingIfNeeded:))
            return true
        default: break
        }
        return false
    }

    mutating func close(_ key: LinkKey) { lengthOffers[key] = nil }
}
