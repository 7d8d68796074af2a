import BTCapture
import BTDecode
import BTQuery

/// Packets a sniffer took from the air: BR/EDR baseband payloads and the LE link layer.
extension StatisticsCollector {
    /// Advertising PDUs count for their advertisers, CONNECT_IND opens a connection as LE
    /// Connection Complete does, LL Control procedures change its parameters (and
    /// LL_TERMINATE_IND ends it), data PDUs carry L2CAP.
    mutating func air(_ packet: Packet) {
        // BR/EDR baseband: an ACL payload's L2CAP counts for its piconet link as HCI ACL's does
        // (the sniffer does not say which side sent it: it counts as received).
        if let position = packet.layers.firstIndex(where: { $0.kind == .baseband }) {
            guard let handle = packet.handle, packet.layers[position].integer(BasebandFields.crcOK) != 0,
                  packet.layers.count > position + 1 else { return }
            let key = LinkKey(controller: packet.frame.controller, handle: handle)
            if openConnections[key] == nil { _ = open(key, packet, transport: .bredr, joined: true) }
            data(packet, carrier: position, length: packet.layers[position + 1].range.count)
            return
        }
        guard let position = packet.layers.firstIndex(where: { $0.kind == .linkLayer }) else { return }
        let layer = packet.layers[position]
        let frame = packet.frame
        if let type = layer.integer(LinkLayerFields.pduType) {
            guard layer.integer(LinkLayerFields.crcOK) != 0 else { return }
            if type == 5, let handle = packet.handle {
                let key = LinkKey(controller: frame.controller, handle: handle)
                let index = open(key, packet, transport: .le, address: layer.address(LinkLayerFields.advertisingAddress), type: layer.integer(LinkLayerFields.rxAdd).map(UInt8.init))
                // The capture's side is the central's: it sent CONNECT_IND.
                connections[index].role = .central
                var items = [ReportItem("role", .text(LinkRole.central.rawValue))]
                if let interval = layer.integer(LinkLayerFields.interval) {
                    items += connections[index].setInterval(interval, latency: layer.integer(LinkLayerFields.latency) ?? 0,
                                                            timeout: layer.integer(LinkLayerFields.timeout) ?? 0)
                }
                connections[index].record(packet, "CONNECT_IND", items)
            } else if type != 3 && type != 5 {
                // The advertiser's PDUs (a scan request is the scanner's).
                devices.reports(layer, packet: packet, addressField: LinkLayerFields.advertisingAddress, typeField: LinkLayerFields.txAdd, rssiField: LinkLayerFields.rssi)
            }
            return
        }
        // A CIS's packets belong to an isochronous stream, not to the connection.
        guard let handle = packet.handle, layer.value(LinkLayerFields.closeIsochronousEvent) == nil else { return }
        let key = LinkKey(controller: frame.controller, handle: handle)
        // Counted on an open link, or one this packet opens (a capture that starts mid-connection);
        // an empty or damaged PDU after LL_TERMINATE_IND opens none.
        let existing = openConnections[key]
        if existing != nil || (layer.integer(LinkLayerFields.crcOK) != 0 && (layer.integer(LinkLayerFields.dataLength) ?? 0) > 0) {
            AirLinkTracker.quality(layer, frame, &connections[existing ?? open(key, packet, transport: .le, joined: true)])
        }
        // What the sniffer missed, or took damaged, may hold the answer to a request still waiting.
        if layer.value(LinkLayerFields.missed) != nil || layer.integer(LinkLayerFields.crcOK) == 0 { att.snifferMissed(on: key) }
        guard layer.integer(LinkLayerFields.crcOK) != 0, layer.value(LinkLayerFields.retransmission) == nil else { return }
        if let opcode = layer.integer(LinkLayerFields.controlOpcode) {
            let index = openConnections[key] ?? open(key, packet, transport: .le, joined: true)
            connections[index].lastSeen = frame.timestamp
            if airLinks.control(opcode, layer, packet, &connections[index], key: key) { close(key) }
            return
        }
        guard (layer.integer(LinkLayerFields.dataLength) ?? 0) > 0 else { return }
        let length = packet.layers.count > position + 1 ? packet.layers[position + 1].range.count : 0
        data(packet, carrier: position, length: length)
    }

}
