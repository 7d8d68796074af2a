import BTCapture
import BTDecode
import BTQuery

/// HCI events and commands that make, change and end links, and the security failures on them.
extension StatisticsCollector {
    mutating func event(_ layer: Layer, _ packet: Packet) {
        guard let code = layer.integer(HCIFields.event).map(UInt8.init(truncatingIfNeeded:)) else { return }
        let frame = packet.frame
        let status = layer.integer(HCIFields.status) ?? 0
        switch code {
        case HCIEventCode.vendor: // Android's quality reports
            // Read in place: a copy of the Layer would retain each of its arrays.
            if let top = packet.layers.indices.last, packet.layers[top].kind == .bqr { quality(packet.layers[top], packet) }
        case HCIEventCode.connectionComplete, HCIEventCode.synchronousConnectionComplete:
            guard status == 0, let handle = layer.integer(HCIFields.handle) else { return }
            guard code == HCIEventCode.connectionComplete, layer.integer(HCIFields.linkType) == 1 else {
                synchronousLinks.insert(LinkKey(controller: frame.controller, handle: UInt16(truncatingIfNeeded: handle)))
                return
            }
            let address = layer.address(HCIFields.address)
            let index = open(LinkKey(controller: frame.controller, handle: UInt16(truncatingIfNeeded: handle)), packet, transport: .bredr, address: address, type: nil)
            if let address { connections[index].role = expectedRoles.removeValue(forKey: address) }
            connections[index].parameters.encrypted = layer.integer(HCIFields.encryption).map { $0 != 0 }
            connections[index].parameters.mode = 0
            connections[index].record(packet, "Connection Complete", [ReportItem("role", .text(connections[index].role?.rawValue ?? "unknown"))])
        case HCIEventCode.connectionRequest: // the local side answers, and stays peripheral unless it switches
            if let address = layer.address(HCIFields.address) {
                _ = devices.device(address, type: nil, at: frame.timestamp)
                expectedRoles[address] = .peripheral
            }
        case HCIEventCode.disconnectionComplete:
            guard status == 0, let handle = layer.integer(HCIFields.handle) else { return }
            let key = LinkKey(controller: frame.controller, handle: UInt16(truncatingIfNeeded: handle))
            if synchronousLinks.remove(key) != nil { return }
            let index = openConnections[key] ?? open(key, packet)
            connections[index].end = frame.timestamp
            connections[index].endFrame = frame.number
            connections[index].disconnectReason = layer.integer(HCIFields.reason).map(UInt8.init(truncatingIfNeeded:))
            close(key)
        case HCIEventCode.remoteNameRequestComplete:
            if status == 0, let address = layer.address(HCIFields.address), let name = layer.text(HCIFields.remoteName) { devices.name(name, for: address, at: frame.timestamp) }
        case HCIEventCode.encryptionChange, HCIEventCode.encryptionChangeV2:
            guard let index = connection(layer, packet) else { return }
            let on = (layer.integer(HCIFields.encryption) ?? 0) != 0
            var items = [ReportItem("encryption", .flag(on))]
            if let size = layer.integer(HCIFields.keySize) { items.append(ReportItem("key_size", .count(size))) }
            if status == 0 {
                connections[index].parameters.encrypted = on
                if let size = layer.integer(HCIFields.keySize) { connections[index].parameters.keySize = size }
            } else {
                encryptionFailed(index, packet, status: status)
            }
            connections[index].record(packet, "Encryption Change", items, status: status)
        case HCIEventCode.roleChange:
            guard let address = layer.address(HCIFields.address), let role = layer.integer(HCIFields.newRole) else { return }
            let newRole: LinkRole = role == 0 ? .central : .peripheral
            guard let index = openConnections.values.first(where: {
                connections[$0].address == address && connections[$0].controller == frame.controller
            }) else {
                if status == 0 { expectedRoles[address] = newRole }
                return
            }
            if status == 0 { connections[index].role = newRole }
            connections[index].record(packet, "Role Change", [ReportItem("role", .text(newRole.rawValue))], status: status)
        case HCIEventCode.modeChange:
            guard let index = connection(layer, packet), let mode = layer.integer(HCIFields.currentMode) else { return }
            let slots = layer.integer(HCIFields.interval) ?? 0
            var items = [ReportItem("mode", .text(LinkParameters.modeName(mode)))]
            if mode != 0 { items.append(ReportItem("interval", .milliseconds(Double(slots) * 0.625))) }
            if status == 0 {
                connections[index].parameters.mode = mode
                connections[index].parameters.modeInterval = mode == 0 ? nil : slots
            }
            connections[index].record(packet, "Mode Change", items, status: status, change: .mode)
        case HCIEventCode.inquiryResult, HCIEventCode.inquiryResultWithRSSI, HCIEventCode.extendedInquiryResult:
            devices.reports(layer, packet: packet, addressField: HCIFields.address, typeField: nil, rssiField: HCIFields.rssi)
        case HCIEventCode.commandStatus:
            commands.answered(layer, packet.frame, status: status)
        case HCIEventCode.linkKeyNotification: // a pairing made a key, for a peer the host had none for
            guard let address = layer.address(HCIFields.address),
                  let missing = security.encryptionFailures.lastIndex(where: { $0.kind == .linkKeyMissing && $0.address == address && $0.pairedIn == nil })
            else { return }
            security.encryptionFailures[missing].pairedIn = frame.number
        case HCIEventCode.hardwareError:
            commands.hardwareError(layer, frame)
        case HCIEventCode.authenticationComplete, HCIEventCode.encryptionKeyRefreshComplete:
            guard status != 0 else { return }
            let index = connection(layer, packet)
            if code == HCIEventCode.authenticationComplete {
                security.pairingFailures.append(PairingFailure(frame: frame.number, controller: frame.controller,
                                                                      handle: index.map { connections[$0].handle },
                                                                      address: index.flatMap { connections[$0].address },
                                                                      source: .controller, reason: UInt8(truncatingIfNeeded: status), byLocal: false))
            } else {
                encryptionFailed(index, packet, status: status)
            }
        case HCIEventCode.simplePairingComplete:
            guard status != 0, let address = layer.address(HCIFields.address) else { return }
            let index = openConnections.values.first { connections[$0].address == address }
            security.pairingFailures.append(PairingFailure(frame: frame.number, controller: frame.controller,
                                                                  handle: index.map { connections[$0].handle }, address: address,
                                                                  source: .controller, reason: UInt8(truncatingIfNeeded: status), byLocal: false))
        case HCIEventCode.commandComplete: // Read RSSI gives a connection's signal; Reset ends every link
            commands.answered(layer, packet.frame, status: status)
            if layer.integer(HCIFields.commandOpcode) == Int(HCIOpcode.reset), status == 0 { controllerGone(packet.frame) }
            if layer.integer(HCIFields.commandOpcode) == Int(HCIOpcode.readRSSI), status == 0, let index = connection(layer, packet),
               let rssi = layer.integer(HCIFields.rssi), let address = connections[index].address {
                devices.rssi(rssi, for: address, at: packet.frame.timestamp)
            }
        case HCIEventCode.leMeta:
            leEvent(layer, packet, status: status)
        default: break
        }
    }

    mutating func leEvent(_ layer: Layer, _ packet: Packet, status: Int) {
        guard let subevent = layer.integer(HCIFields.subevent).map(UInt8.init(truncatingIfNeeded:)) else { return }
        switch subevent {
        case LESubeventCode.connectionComplete, LESubeventCode.enhancedConnectionComplete, LESubeventCode.enhancedConnectionCompleteV2:
            guard status == 0, let handle = layer.integer(HCIFields.handle) else { return }
            let type = layer.integer(HCIFields.addressType).map(UInt8.init(truncatingIfNeeded:))
            let key = LinkKey(controller: packet.frame.controller, handle: UInt16(truncatingIfNeeded: handle))
            let index = open(key, packet, transport: .le, address: layer.address(HCIFields.address), type: type)
            connections[index].role = layer.integer(HCIFields.role).map { $0 == 0 ? .central : .peripheral }
            var items = [ReportItem("role", .text(connections[index].role?.rawValue ?? "unknown"))]
            items += linkInterval(layer, index)
            connections[index].record(packet, "Connection Complete", items)
        case LESubeventCode.connectionUpdateComplete:
            guard let index = connection(layer, packet) else { return }
            let items = status == 0 ? linkInterval(layer, index) : []
            let interval = status == 0 ? layer.integer(HCIFields.interval).map { Double($0) * 1.25 } : nil
            connections[index].record(packet, "Connection Update Complete", items, status: status, change: .interval(milliseconds: interval))
        case LESubeventCode.remoteConnectionParameterRequest:
            guard let index = connection(layer, packet) else { return }
            var items: [ReportItem] = []
            if let min = layer.integer(HCIFields.intervalMin), let max = layer.integer(HCIFields.intervalMax) {
                items.append(ReportItem("interval_min", .milliseconds(Double(min) * 1.25)))
                items.append(ReportItem("interval_max", .milliseconds(Double(max) * 1.25)))
            }
            connections[index].record(packet, "Remote Connection Parameter Request", items)
        case LESubeventCode.dataLengthChange:
            guard let index = connection(layer, packet) else { return }
            var p = connections[index].parameters
            p.maxTxOctets = layer.integer(HCIFields.maxTxOctets) ?? p.maxTxOctets
            p.maxTxTime = layer.integer(HCIFields.maxTxTime) ?? p.maxTxTime
            p.maxRxOctets = layer.integer(HCIFields.maxRxOctets) ?? p.maxRxOctets
            p.maxRxTime = layer.integer(HCIFields.maxRxTime) ?? p.maxRxTime
            connections[index].parameters = p
            connections[index].record(packet, "Data Length Change", [
                ReportItem("max_tx_octets", .count(p.maxTxOctets ?? 0)), ReportItem("max_tx_time_us", .count(p.maxTxTime ?? 0)),
                ReportItem("max_rx_octets", .count(p.maxRxOctets ?? 0)), ReportItem("max_rx_time_us", .count(p.maxRxTime ?? 0)),
            ], change: .dataLength(octets: p.maxTxOctets ?? 0))
        case LESubeventCode.phyUpdateComplete:
            guard let index = connection(layer, packet) else { return }
            let tx = layer.integer(HCIFields.txPHY), rx = layer.integer(HCIFields.rxPHY)
            if status == 0 {
                connections[index].parameters.txPHY = tx
                connections[index].parameters.rxPHY = rx
            }
            connections[index].record(packet, "PHY Update Complete",
                   status == 0 ? [ReportItem("tx_phy", .text(PHYName.of(tx))), ReportItem("rx_phy", .text(PHYName.of(rx)))] : [],
                   status: status, change: .phy(status == 0 ? PHYName.of(tx) : nil))
        case LESubeventCode.subrateChange:
            guard let index = connection(layer, packet) else { return }
            var items: [ReportItem] = []
            if let factor = layer.integer(HCIFields.subrateFactor) { items.append(ReportItem("subrate_factor", .count(factor))) }
            if let latency = layer.integer(HCIFields.peripheralLatency) { items.append(ReportItem("latency", .count(latency))) }
            connections[index].record(packet, "Subrate Change", items, status: status, change: .subrate)
        case LESubeventCode.cisEstablished:
            if status == 0, let handle = layer.integer(HCIFields.handle) {
                synchronousLinks.insert(LinkKey(controller: packet.frame.controller, handle: UInt16(truncatingIfNeeded: handle)))
            }
        case LESubeventCode.advertisingReport, LESubeventCode.extendedAdvertisingReport, LESubeventCode.directedAdvertisingReport:
            devices.reports(layer, packet: packet, addressField: AdvertisingFields.address, typeField: AdvertisingFields.addressType, rssiField: AdvertisingFields.rssi)
        default: break
        }
    }

    mutating func encryptionFailed(_ index: Int?, _ packet: Packet, status: Int) {
        security.encryptionFailures.append(EncryptionFailure(frame: packet.frame.number, controller: packet.frame.controller,
                                                                    handle: index.map { connections[$0].handle },
                                                                    address: index.flatMap { connections[$0].address },
                                                                    kind: .change, status: UInt8(truncatingIfNeeded: status)))
    }

    /// Interval, latency and timeout of a Connection (Update) Complete, kept as the link's parameters.
    mutating func linkInterval(_ layer: Layer, _ index: Int) -> [ReportItem] {
        guard let interval = layer.integer(HCIFields.interval) else { return [] }
        return connections[index].setInterval(interval, latency: layer.integer(HCIFields.latency) ?? 0, timeout: layer.integer(HCIFields.timeout) ?? 0)
    }

    mutating func command(_ layer: Layer, _ packet: Packet) {
        guard let opcode = layer.integer(HCIFields.opcode) else { return }
        let frame = packet.frame
        commands.sent(opcode, frame)
        switch UInt16(truncatingIfNeeded: opcode) {
        case HCIOpcode.leLongTermKeyRequestNegativeReply: // no key for this peer
            let index = connection(layer, packet)
            security.encryptionFailures.append(EncryptionFailure(frame: frame.number, controller: frame.controller,
                                                                        handle: index.map { connections[$0].handle },
                                                                        address: index.flatMap { connections[$0].address },
                                                                        kind: .ltkMissing, status: 0))
        case HCIOpcode.linkKeyRequestNegativeReply:
            let address = layer.address(HCIFields.address)
            let index = address.flatMap { a in openConnections.values.first { connections[$0].address == a } }
            security.encryptionFailures.append(EncryptionFailure(frame: frame.number, controller: frame.controller,
                                                                        handle: index.map { connections[$0].handle },
                                                                        address: address, kind: .linkKeyMissing, status: 0))
        case HCIOpcode.createConnection: // the local side pages, and will be central
            if let address = layer.address(HCIFields.address) { expectedRoles[address] = .central }
        case HCIOpcode.acceptConnectionRequest: // role 0 asks to become central
            if let address = layer.address(HCIFields.address), let role = layer.integer(HCIFields.role) { expectedRoles[address] = role == 0 ? .central : .peripheral }
        case HCIOpcode.leRemoteConnectionParameterRequestReply, HCIOpcode.leRemoteConnectionParameterRequestNegativeReply:
            guard let index = connection(layer, packet) else { return }
            connections[index].record(packet, opcode == Int(HCIOpcode.leRemoteConnectionParameterRequestReply) ? "Connection Parameter Request Reply" : "Connection Parameter Request Negative Reply",
                   [], failure: opcode == Int(HCIOpcode.leRemoteConnectionParameterRequestNegativeReply) ? "rejected by the host" : nil)
        default: break
        }
    }

}
