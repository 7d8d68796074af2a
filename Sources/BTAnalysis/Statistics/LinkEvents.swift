import BTCapture
import BTDecode
import BTQuery

/// HCI events and commands that make, change and end links, and the security failures on them.
extension StatisticsCollector {
    mutating func event(_ layer: Layer, _ packet: Packet) {
        guard let code = layer.integer(F.event) else { return }
        let frame = packet.frame
        let status = layer.integer(F.status) ?? 0
        switch code {
        case 0xFF: // Vendor: Android's quality reports
            // Read in place: a copy of the Layer would retain each of its arrays.
            if let top = packet.layers.indices.last, packet.layers[top].kind == .bqr { quality(packet.layers[top], packet) }
        case 0x03, 0x2C: // Connection Complete, Synchronous Connection Complete
            guard status == 0, let handle = layer.integer(F.handle) else { return }
            guard code == 0x03, layer.integer(F.linkType) == 1 else {
                synchronousLinks.insert(LinkKey(controller: frame.controller, handle: UInt16(truncatingIfNeeded: handle)))
                return
            }
            let address = layer.address(F.address)
            let index = open(LinkKey(controller: frame.controller, handle: UInt16(truncatingIfNeeded: handle)), packet, transport: .bredr, address: address, type: nil)
            if let address { connections[index].role = expectedRoles.removeValue(forKey: address) }
            connections[index].parameters.encrypted = layer.integer(F.encryption).map { $0 != 0 }
            connections[index].parameters.mode = 0
            connections[index].record(packet, "Connection Complete", [ReportItem("role", .text(connections[index].role?.rawValue ?? "unknown"))])
        case 0x04: // Connection Request: the local side answers, and stays peripheral unless it switches
            if let address = layer.address(F.address) {
                _ = devices.device(address, type: nil, at: frame.timestamp)
                expectedRoles[address] = .peripheral
            }
        case 0x05: // Disconnection Complete
            guard status == 0, let handle = layer.integer(F.handle) else { return }
            let key = LinkKey(controller: frame.controller, handle: UInt16(truncatingIfNeeded: handle))
            if synchronousLinks.remove(key) != nil { return }
            let index = openConnections[key] ?? open(key, packet)
            connections[index].end = frame.timestamp
            connections[index].endFrame = frame.number
            connections[index].disconnectReason = layer.integer(F.reason).map(UInt8.init(truncatingIfNeeded:))
            close(key)
        case 0x07: // Remote Name Request Complete
            if status == 0, let address = layer.address(F.address), let name = layer.text(F.remoteName) { devices.name(name, for: address, at: frame.timestamp) }
        case 0x08, 0x59: // Encryption Change v1, v2
            guard let index = connection(layer, packet) else { return }
            let on = (layer.integer(F.encryption) ?? 0) != 0
            var items = [ReportItem("encryption", .flag(on))]
            if let size = layer.integer(F.keySize) { items.append(ReportItem("key_size", .count(size))) }
            if status == 0 {
                connections[index].parameters.encrypted = on
                if let size = layer.integer(F.keySize) { connections[index].parameters.keySize = size }
            } else {
                encryptionFailed(index, packet, status: status)
            }
            connections[index].record(packet, "Encryption Change", items, status: status)
        case 0x12: // Role Change
            guard let address = layer.address(F.address), let role = layer.integer(F.newRole) else { return }
            let newRole: LinkRole = role == 0 ? .central : .peripheral
            guard let index = openConnections.values.first(where: {
                connections[$0].address == address && connections[$0].controller == frame.controller
            }) else {
                if status == 0 { expectedRoles[address] = newRole }
                return
            }
            if status == 0 { connections[index].role = newRole }
            connections[index].record(packet, "Role Change", [ReportItem("role", .text(newRole.rawValue))], status: status)
        case 0x14: // Mode Change
            guard let index = connection(layer, packet), let mode = layer.integer(F.currentMode) else { return }
            let slots = layer.integer(F.interval) ?? 0
            var items = [ReportItem("mode", .text(LinkParameters.modeName(mode)))]
            if mode != 0 { items.append(ReportItem("interval", .milliseconds(Double(slots) * 0.625))) }
            if status == 0 {
                connections[index].parameters.mode = mode
                connections[index].parameters.modeInterval = mode == 0 ? nil : slots
            }
            connections[index].record(packet, "Mode Change", items, status: status, change: .mode)
        case 0x02, 0x22, 0x2F: // Inquiry Result (with RSSI), Extended Inquiry Result
            devices.reports(layer, packet: packet, addressField: F.address, typeField: nil, rssiField: F.rssi)
        case 0x0F: // Command Status
            commands.answered(layer, packet.frame, status: status)
        case 0x18: // Link Key Notification: a pairing made a key, for a peer the host had none for
            guard let address = layer.address(F.address),
                  let missing = security.encryptionFailures.lastIndex(where: { $0.kind == .linkKeyMissing && $0.address == address && $0.pairedIn == nil })
            else { return }
            security.encryptionFailures[missing].pairedIn = frame.number
        case 0x10: // Hardware Error
            commands.hardwareError(layer, frame)
        case 0x06, 0x30: // Authentication Complete, Encryption Key Refresh Complete
            guard status != 0 else { return }
            let index = connection(layer, packet)
            if code == 0x06 {
                security.pairingFailures.append(PairingFailure(frame: frame.number, controller: frame.controller,
                                                                      handle: index.map { connections[$0].handle },
                                                                      address: index.flatMap { connections[$0].address },
                                                                      source: .controller, reason: UInt8(truncatingIfNeeded: status), byLocal: false))
            } else {
                encryptionFailed(index, packet, status: status)
            }
        case 0x36: // Simple Pairing Complete
            guard status != 0, let address = layer.address(F.address) else { return }
            let index = openConnections.values.first { connections[$0].address == address }
            security.pairingFailures.append(PairingFailure(frame: frame.number, controller: frame.controller,
                                                                  handle: index.map { connections[$0].handle }, address: address,
                                                                  source: .controller, reason: UInt8(truncatingIfNeeded: status), byLocal: false))
        case 0x0E: // Command Complete; Read RSSI gives a connection's signal; Reset ends every link
            commands.answered(layer, packet.frame, status: status)
            if layer.integer(F.commandOpcode) == 0x0C03, status == 0 { controllerGone(packet.frame) }
            if layer.integer(F.commandOpcode) == 0x1405, status == 0, let index = connection(layer, packet),
               let rssi = layer.integer(F.rssi), let address = connections[index].address {
                devices.rssi(rssi, for: address, at: packet.frame.timestamp)
            }
        case 0x3E:
            leEvent(layer, packet, status: status)
        default: break
        }
    }

    mutating func leEvent(_ layer: Layer, _ packet: Packet, status: Int) {
        guard let subevent = layer.integer(F.subevent) else { return }
        switch subevent {
        case 0x01, 0x0A, 0x29: // LE Connection Complete, Enhanced v1 and v2
            guard status == 0, let handle = layer.integer(F.handle) else { return }
            let type = layer.integer(F.addressType).map(UInt8.init(truncatingIfNeeded:))
            let key = LinkKey(controller: packet.frame.controller, handle: UInt16(truncatingIfNeeded: handle))
            let index = open(key, packet, transport: .le, address: layer.address(F.address), type: type)
            connections[index].role = layer.integer(F.role).map { $0 == 0 ? .central : .peripheral }
            var items = [ReportItem("role", .text(connections[index].role?.rawValue ?? "unknown"))]
            items += linkInterval(layer, index)
            connections[index].record(packet, "Connection Complete", items)
        case 0x03: // LE Connection Update Complete
            guard let index = connection(layer, packet) else { return }
            let items = status == 0 ? linkInterval(layer, index) : []
            let interval = status == 0 ? layer.integer(F.interval).map { Double($0) * 1.25 } : nil
            connections[index].record(packet, "Connection Update Complete", items, status: status, change: .interval(milliseconds: interval))
        case 0x06: // LE Remote Connection Parameter Request
            guard let index = connection(layer, packet) else { return }
            var items: [ReportItem] = []
            if let min = layer.integer(F.intervalMin), let max = layer.integer(F.intervalMax) {
                items.append(ReportItem("interval_min", .milliseconds(Double(min) * 1.25)))
                items.append(ReportItem("interval_max", .milliseconds(Double(max) * 1.25)))
            }
            connections[index].record(packet, "Remote Connection Parameter Request", items)
        case 0x07: // LE Data Length Change
            guard let index = connection(layer, packet) else { return }
            var p = connections[index].parameters
            p.maxTxOctets = layer.integer(F.maxTxOctets) ?? p.maxTxOctets
            p.maxTxTime = layer.integer(F.maxTxTime) ?? p.maxTxTime
            p.maxRxOctets = layer.integer(F.maxRxOctets) ?? p.maxRxOctets
            p.maxRxTime = layer.integer(F.maxRxTime) ?? p.maxRxTime
            connections[index].parameters = p
            connections[index].record(packet, "Data Length Change", [
                ReportItem("max_tx_octets", .count(p.maxTxOctets ?? 0)), ReportItem("max_tx_time_us", .count(p.maxTxTime ?? 0)),
                ReportItem("max_rx_octets", .count(p.maxRxOctets ?? 0)), ReportItem("max_rx_time_us", .count(p.maxRxTime ?? 0)),
            ], change: .dataLength(octets: p.maxTxOctets ?? 0))
        case 0x0C: // LE PHY Update Complete
            guard let index = connection(layer, packet) else { return }
            let tx = layer.integer(F.txPHY), rx = layer.integer(F.rxPHY)
            if status == 0 {
                connections[index].parameters.txPHY = tx
                connections[index].parameters.rxPHY = rx
            }
            connections[index].record(packet, "PHY Update Complete",
                   status == 0 ? [ReportItem("tx_phy", .text(PHYName.of(tx))), ReportItem("rx_phy", .text(PHYName.of(rx)))] : [],
                   status: status, change: .phy(status == 0 ? PHYName.of(tx) : nil))
        case 0x23: // LE Subrate Change
            guard let index = connection(layer, packet) else { return }
            var items: [ReportItem] = []
            if let factor = layer.integer(F.subrateFactor) { items.append(ReportItem("subrate_factor", .count(factor))) }
            if let latency = layer.integer(F.peripheralLatency) { items.append(ReportItem("latency", .count(latency))) }
            connections[index].record(packet, "Subrate Change", items, status: status, change: .subrate)
        case 0x19: // CIS Established
            if status == 0, let handle = layer.integer(F.handle) {
                synchronousLinks.insert(LinkKey(controller: packet.frame.controller, handle: UInt16(truncatingIfNeeded: handle)))
            }
        case 0x02, 0x0D, 0x0B: // advertising reports: legacy, extended, directed
            devices.reports(layer, packet: packet, addressField: F.advAddress, typeField: F.advAddressType, rssiField: F.advRSSI)
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
        guard let interval = layer.integer(F.interval) else { return [] }
        return connections[index].setInterval(interval, latency: layer.integer(F.latency) ?? 0, timeout: layer.integer(F.timeout) ?? 0)
    }

    mutating func command(_ layer: Layer, _ packet: Packet) {
        guard let opcode = layer.integer(F.opcode) else { return }
        let frame = packet.frame
        commands.sent(opcode, frame)
        switch opcode {
        case 0x201B: // LE Long Term Key Request Negative Reply: no key for this peer
            let index = connection(layer, packet)
            security.encryptionFailures.append(EncryptionFailure(frame: frame.number, controller: frame.controller,
                                                                        handle: index.map { connections[$0].handle },
                                                                        address: index.flatMap { connections[$0].address },
                                                                        kind: .ltkMissing, status: 0))
        case 0x040C: // Link Key Request Negative Reply
            let address = layer.address(F.address)
            let index = address.flatMap { a in openConnections.values.first { connections[$0].address == a } }
            security.encryptionFailures.append(EncryptionFailure(frame: frame.number, controller: frame.controller,
                                                                        handle: index.map { connections[$0].handle },
                                                                        address: address, kind: .linkKeyMissing, status: 0))
        case 0x0405: // Create Connection: the local side pages, and will be central
            if let address = layer.address(F.address) { expectedRoles[address] = .central }
        case 0x0409: // Accept Connection Request: role 0 asks to become central
            if let address = layer.address(F.address), let role = layer.integer(F.role) { expectedRoles[address] = role == 0 ? .central : .peripheral }
        case 0x2020, 0x2021: // LE Remote Connection Parameter Request Reply / Negative Reply
            guard let index = connection(layer, packet) else { return }
            connections[index].record(packet, opcode == 0x2020 ? "Connection Parameter Request Reply" : "Connection Parameter Request Negative Reply",
                   [], failure: opcode == 0x2021 ? "rejected by the host" : nil)
        default: break
        }
    }

}
