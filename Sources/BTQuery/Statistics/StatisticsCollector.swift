import BTCapture
import BTDecode

/// `btlog stats`: the end of the packet chain that counts and follows what the kept packets
/// say (connections and their parameters, devices, ATT transactions, audio streams), reading
/// their fields by the registry's names, never their bytes. `finish(vendors:)` gives the report.
public struct StatisticsCollector: PacketSink {
    typealias F = StatisticsFields
    typealias LinkKey = Session.LinkKey

    private var report = CaptureReport()
    private var file: String?
    /// Application bytes per connection and direction in time bins, when asked for.
    public private(set) var throughput: ThroughputSeries?

    private var protocolIndex: [String: Int] = [:]
    /// Layer kind → the report's protocol position, for the kinds that always mean the same
    /// protocol (a capture has a dozen; most packets repeat the previous one's).
    private var kindPositions: [(kind: LayerKind, position: Int)] = []
    private var controllerIndex: [UInt16: Int] = [:]
    private var deviceIndex: [BDAddr: Int] = [:]
    /// The report's index of each link still up.
    private var openConnections: [LinkKey: Int] = [:]
    /// BR/EDR: the role the local side will have, from Create Connection or Connection Request.
    private var expectedRoles: [BDAddr: LinkRole] = [:]
    private var channelRequests: [SignalingKey: ChannelRequest] = [:]
    private var parameterRequests: [SignalingKey: ParameterEvent] = [:]
    /// The MTU the client offered in Exchange MTU Request, per link and client side.
    private var offeredMTU: [SideKey: Int] = [:]
    private var pendingATT: [BearerKey: PendingTransaction] = [:]
    private var characteristicIndex: [CharacteristicKey: Int] = [:]
    private var a2dpIndex: [StreamKey: Int] = [:]
    private var synchronousIndex: [SynchronousKey: Int] = [:]
    private var lastISOSequence: [SynchronousKey: Int] = [:]
    /// The codec the last AVDTP Set Configuration on a link chose.
    private var configuredCodec: [LinkKey: (name: String, items: [ReportItem])] = [:]
    private var readRequests: [BearerKey: UInt16] = [:]
    /// ATT PDUs by opcode (the report's dictionary is made from it at the end).
    private var attOpcodeCounts = [Int](repeating: 0, count: 256)
    private var errorIndex: [UInt16: Int] = [:]
    /// Commands sent and not yet answered by Command Complete or Status, per controller, oldest first.
    private var pendingCommands: [UInt16: [(opcode: UInt16, frame: Int, time: Int64)]] = [:]
    private var commandErrorIndex: [UInt64: Int] = [:]
    /// Air captures: each side's LL_LENGTH_REQ/RSP (max RX, max TX octets), central first.
    private var lengthOffers: [LinkKey: [(rx: Int, tx: Int)?]] = [:]
    /// SCO, eSCO and CIS links: their disconnections are not ACL links ending.
    private var synchronousLinks: Set<LinkKey> = []

    public init(throughputInterval: Int64? = nil) {
        throughput = throughputInterval.map(ThroughputSeries.init(interval:))
    }

    /// Several captures into one report: each connection remembers its file.
    public mutating func beginFile(_ name: String) {
        closeAll()
        file = name
    }

    /// Following links, transactions and streams is a third of `stats`: worth the second core.
    public var runsOnItsOwnThread: Bool { true }

    /// What the decoder's Session learnt of the controllers (addresses, names) once a file ends.
    public mutating func endFile(session: Session) {
        for (index, position) in controllerIndex {
            if report.controllers[position].address == nil {
                report.controllers[position].address = session.controllerAddresses[index] ?? session.controllers[index]?.address
            }
            if let name = session.controllers[index]?.name, !name.isEmpty { report.controllers[position].name = name }
        }
    }

    public mutating func consume(_ packet: Packet) throws {
        report.totals.add(packet)
        throughput?.see(packet.frame.timestamp, frame: packet.frame.number)
        let frame = packet.frame
        if frame.controller != Frame.systemController, !frame.kind.isAir {
            if let index = controllerIndex[frame.controller] {
                report.controllers[index].packets += 1
            } else {
                controllerIndex[frame.controller] = report.controllers.count
                report.controllers.append(ControllerUsage(index: frame.controller, packets: 1))
            }
        }
        for index in packet.layers.indices {
            let position = protocolPosition(packet, index)
            report.protocols[position].packets += 1
            report.protocols[position].bytes += packet.layers[index].range.count
        }
        guard !packet.layers.isEmpty else { return }
        switch frame.kind {
        case .event: event(packet.layers[0], packet)
        case .command: command(packet.layers[0], packet)
        case .aclData: acl(packet)
        case .scoData: synchronous(.sco, packet)
        case .isoData: synchronous(.iso, packet)
        case .newIndex, .closeIndex, .deleteIndex: controllerGone(frame)
        case .air: air(packet)
        default: break
        }
    }

    /// The report's position of the protocol a packet's layer belongs to.
    private mutating func protocolPosition(_ packet: Packet, _ index: Int) -> Int {
        let kind = packet.layers[index].kind
        // GATT profile and system layers go by their first field's protocol: only kinds that
        // always mean the same protocol are remembered.
        for entry in kindPositions where entry.kind == kind { return entry.position }
        let name = packet.layers[index].protocolName
        let position: Int
        if let known = protocolIndex[name] {
            position = known
        } else {
            position = report.protocols.count
            protocolIndex[name] = position
            report.protocols.append(ProtocolUsage(name: name))
        }
        if kind.protocolName != nil { kindPositions.append((kind, position)) }
        return position
    }

    /// The report, sorted for reading: protocols and characteristics by activity, devices by
    /// packets, connections in order of appearance.
    /// `vendors` is asked for once, only when a device has a public address.
    public mutating func finish(vendors: () -> VendorNames? = { nil }) -> CaptureReport {
        closeAll()
        let end = report.totals.lastTimestamp ?? 0
        for (_, pending) in pendingATT {
            report.att.unanswered.append(UnansweredRequest(frame: pending.frame, opcode: pending.opcode, waited: end.saturatingSubtract(pending.time), end: .captureEnded))
        }
        pendingATT.removeAll()
        report.att.unanswered.sort { $0.frame < $1.frame }
        for (opcode, count) in attOpcodeCounts.enumerated() where count > 0 { report.att.opcodes[UInt8(opcode)] = count }
        report.hci.unansweredCommands.sort { $0.frame < $1.frame }
        var result = report
        for connection in result.connections {
            guard let address = connection.address, let index = deviceIndex[address] else { continue }
            result.devices[index].packets += connection.packetsSent + connection.packetsReceived
            result.devices[index].firstSeen = min(result.devices[index].firstSeen, connection.firstSeen)
            result.devices[index].lastSeen = max(result.devices[index].lastSeen, connection.lastSeen)
        }
        let publicDevices = result.devices.indices.filter { result.devices[$0].addressType.map { $0 == 0 || $0 == 2 } ?? true }
        if !publicDevices.isEmpty, let vendors = vendors() {
            let names = vendors.organisations(of: publicDevices.map { result.devices[$0].address })
            for index in publicDevices { result.devices[index].vendor = names[result.devices[index].address] }
        }
        result.protocols.sort { $0.packets != $1.packets ? $0.packets > $1.packets : $0.name < $1.name }
        result.controllers.sort { $0.index < $1.index }
        result.devices.sort { $0.packets != $1.packets ? $0.packets > $1.packets : $0.firstSeen < $1.firstSeen }
        result.characteristics.sort { $0.total != $1.total ? $0.total > $1.total : $0.handle < $1.handle }
        return result
    }

    /// A controller closed, removed or (re)announced: its commands will get no answer and its
    /// links are gone with it (they end here, with no reason given).
    private mutating func controllerGone(_ frame: Frame) {
        pendingCommands[frame.controller] = nil
        for (key, index) in openConnections where key.controller == frame.controller {
            report.connections[index].end = frame.timestamp
            report.connections[index].endFrame = frame.number
            close(key)
        }
        synchronousLinks = synchronousLinks.filter { $0.controller != frame.controller }
    }

    // MARK: Devices

    private mutating func device(_ address: BDAddr, type: UInt8?, at time: Int64) -> Int {
        if let index = deviceIndex[address] {
            if let type { report.devices[index].addressType = type }
            report.devices[index].lastSeen = max(report.devices[index].lastSeen, time)
            return index
        }
        deviceIndex[address] = report.devices.count
        report.devices.append(DeviceReport(address: address, addressType: type, firstSeen: time, lastSeen: time))
        return report.devices.count - 1
    }

    private mutating func name(_ name: String, for address: BDAddr, at time: Int64) {
        guard !name.isEmpty else { return }
        let index = device(address, type: nil, at: time)
        report.devices[index].name = name
    }

    /// Advertising and inquiry reports: each report's address, then its data (a name) and RSSI.
    private mutating func reports(_ layer: Layer, packet: Packet, addressField: FieldDefinition, typeField: FieldDefinition?,
                                  rssiField: FieldDefinition) {
        let time = packet.frame.timestamp
        var current: Int?
        var type: UInt8?
        for field in layer.fields {
            let definition = field.definition
            if let typeField, definition == typeField {
                type = field.value.integer.map(UInt8.init(truncatingIfNeeded:))
            } else if definition == addressField, case .address(let address) = field.value {
                let index = device(address, type: typeField == nil ? nil : type, at: time)
                report.devices[index].advertisingReports += 1
                report.devices[index].packets += 1
                current = index
            } else if definition == rssiField {
                if let index = current, let rssi = field.value.integer, rssi != 127 { report.devices[index].rssi.add(Int64(rssi)) }
            } else if definition == F.advName {
                if let index = current, case .text(let name) = field.value, !name.isEmpty { report.devices[index].name = name }
            }
        }
    }

    // MARK: HCI events and commands

    private mutating func event(_ layer: Layer, _ packet: Packet) {
        guard let code = layer.integer(F.event) else { return }
        let frame = packet.frame
        let status = layer.integer(F.status) ?? 0
        switch code {
        case 0x03, 0x2C: // Connection Complete, Synchronous Connection Complete
            guard status == 0, let handle = layer.integer(F.handle) else { return }
            guard code == 0x03, layer.integer(F.linkType) == 1 else {
                synchronousLinks.insert(LinkKey(controller: frame.controller, handle: UInt16(truncatingIfNeeded: handle)))
                return
            }
            let address = layer.address(F.address)
            let index = open(LinkKey(controller: frame.controller, handle: UInt16(truncatingIfNeeded: handle)), packet, transport: .bredr, address: address, type: nil)
            if let address { report.connections[index].role = expectedRoles.removeValue(forKey: address) }
            report.connections[index].parameters.encrypted = layer.integer(F.encryption).map { $0 != 0 }
            report.connections[index].parameters.mode = 0
            record(index, packet, "Connection Complete", [ReportItem("role", .text(report.connections[index].role?.rawValue ?? "unknown"))])
        case 0x04: // Connection Request: the local side answers, and stays peripheral unless it switches
            if let address = layer.address(F.address) {
                _ = device(address, type: nil, at: frame.timestamp)
                expectedRoles[address] = .peripheral
            }
        case 0x05: // Disconnection Complete
            guard status == 0, let handle = layer.integer(F.handle) else { return }
            let key = LinkKey(controller: frame.controller, handle: UInt16(truncatingIfNeeded: handle))
            if synchronousLinks.remove(key) != nil { return }
            let index = openConnections[key] ?? open(key, packet)
            report.connections[index].end = frame.timestamp
            report.connections[index].endFrame = frame.number
            report.connections[index].disconnectReason = layer.integer(F.reason).map(UInt8.init(truncatingIfNeeded:))
            close(key)
        case 0x07: // Remote Name Request Complete
            if status == 0, let address = layer.address(F.address), let name = layer.text(F.remoteName) { self.name(name, for: address, at: frame.timestamp) }
        case 0x08, 0x59: // Encryption Change v1, v2
            guard let index = connection(layer, packet) else { return }
            let on = (layer.integer(F.encryption) ?? 0) != 0
            var items = [ReportItem("encryption", .flag(on))]
            if let size = layer.integer(F.keySize) { items.append(ReportItem("key_size", .count(size))) }
            if status == 0 {
                report.connections[index].parameters.encrypted = on
                if let size = layer.integer(F.keySize) { report.connections[index].parameters.keySize = size }
            } else {
                encryptionFailed(index, packet, status: status)
            }
            record(index, packet, "Encryption Change", items, status: status)
        case 0x12: // Role Change
            guard let address = layer.address(F.address), let role = layer.integer(F.newRole) else { return }
            let newRole: LinkRole = role == 0 ? .central : .peripheral
            guard let index = openConnections.values.first(where: {
                report.connections[$0].address == address && report.connections[$0].controller == frame.controller
            }) else {
                if status == 0 { expectedRoles[address] = newRole }
                return
            }
            if status == 0 { report.connections[index].role = newRole }
            record(index, packet, "Role Change", [ReportItem("role", .text(newRole.rawValue))], status: status)
        case 0x14: // Mode Change
            guard let index = connection(layer, packet), let mode = layer.integer(F.currentMode) else { return }
            let slots = layer.integer(F.interval) ?? 0
            var items = [ReportItem("mode", .text(LinkParameters.modeName(mode)))]
            if mode != 0 { items.append(ReportItem("interval", .milliseconds(Double(slots) * 0.625))) }
            if status == 0 {
                report.connections[index].parameters.mode = mode
                report.connections[index].parameters.modeInterval = mode == 0 ? nil : slots
            }
            record(index, packet, "Mode Change", items, status: status, change: .mode)
        case 0x02, 0x22, 0x2F: // Inquiry Result (with RSSI), Extended Inquiry Result
            reports(layer, packet: packet, addressField: F.address, typeField: nil, rssiField: F.rssi)
        case 0x0F: // Command Status
            answered(layer, packet, status: status)
        case 0x10: // Hardware Error
            report.hci.hardwareErrors.append(HardwareError(frame: frame.number, controller: frame.controller,
                                                           code: UInt8(truncatingIfNeeded: layer.integer(F.hardwareCode) ?? 0)))
        case 0x06, 0x30: // Authentication Complete, Encryption Key Refresh Complete
            guard status != 0 else { return }
            let index = connection(layer, packet)
            if code == 0x06 {
                report.security.pairingFailures.append(PairingFailure(frame: frame.number, controller: frame.controller,
                                                                      handle: index.map { report.connections[$0].handle },
                                                                      address: index.flatMap { report.connections[$0].address },
                                                                      source: .controller, reason: UInt8(truncatingIfNeeded: status), byLocal: false))
            } else {
                encryptionFailed(index, packet, status: status)
            }
        case 0x36: // Simple Pairing Complete
            guard status != 0, let address = layer.address(F.address) else { return }
            let index = openConnections.values.first { report.connections[$0].address == address }
            report.security.pairingFailures.append(PairingFailure(frame: frame.number, controller: frame.controller,
                                                                  handle: index.map { report.connections[$0].handle }, address: address,
                                                                  source: .controller, reason: UInt8(truncatingIfNeeded: status), byLocal: false))
        case 0x0E: // Command Complete; Read RSSI gives a connection's signal
            answered(layer, packet, status: status)
            if layer.integer(F.commandOpcode) == 0x1405, status == 0, let index = connection(layer, packet),
               let rssi = layer.integer(F.rssi), let address = report.connections[index].address {
                let known = device(address, type: nil, at: packet.frame.timestamp)
                report.devices[known].rssi.add(Int64(rssi))
            }
        case 0x3E:
            leEvent(layer, packet, status: status)
        default: break
        }
    }

    private mutating func leEvent(_ layer: Layer, _ packet: Packet, status: Int) {
        guard let subevent = layer.integer(F.subevent) else { return }
        switch subevent {
        case 0x01, 0x0A, 0x29: // LE Connection Complete, Enhanced v1 and v2
            guard status == 0, let handle = layer.integer(F.handle) else { return }
            let type = layer.integer(F.addressType).map(UInt8.init(truncatingIfNeeded:))
            let key = LinkKey(controller: packet.frame.controller, handle: UInt16(truncatingIfNeeded: handle))
            let index = open(key, packet, transport: .le, address: layer.address(F.address), type: type)
            report.connections[index].role = layer.integer(F.role).map { $0 == 0 ? .central : .peripheral }
            var items = [ReportItem("role", .text(report.connections[index].role?.rawValue ?? "unknown"))]
            items += intervalItems(layer, index)
            record(index, packet, "Connection Complete", items)
        case 0x03: // LE Connection Update Complete
            guard let index = connection(layer, packet) else { return }
            let items = status == 0 ? intervalItems(layer, index) : []
            let interval = status == 0 ? layer.integer(F.interval).map { Double($0) * 1.25 } : nil
            record(index, packet, "Connection Update Complete", items, status: status, change: .interval(milliseconds: interval))
        case 0x06: // LE Remote Connection Parameter Request
            guard let index = connection(layer, packet) else { return }
            var items: [ReportItem] = []
            if let min = layer.integer(F.intervalMin), let max = layer.integer(F.intervalMax) {
                items.append(ReportItem("interval_min", .milliseconds(Double(min) * 1.25)))
                items.append(ReportItem("interval_max", .milliseconds(Double(max) * 1.25)))
            }
            record(index, packet, "Remote Connection Parameter Request", items)
        case 0x07: // LE Data Length Change
            guard let index = connection(layer, packet) else { return }
            var p = report.connections[index].parameters
            p.maxTxOctets = layer.integer(F.maxTxOctets) ?? p.maxTxOctets
            p.maxTxTime = layer.integer(F.maxTxTime) ?? p.maxTxTime
            p.maxRxOctets = layer.integer(F.maxRxOctets) ?? p.maxRxOctets
            p.maxRxTime = layer.integer(F.maxRxTime) ?? p.maxRxTime
            report.connections[index].parameters = p
            record(index, packet, "Data Length Change", [
                ReportItem("max_tx_octets", .count(p.maxTxOctets ?? 0)), ReportItem("max_tx_time_us", .count(p.maxTxTime ?? 0)),
                ReportItem("max_rx_octets", .count(p.maxRxOctets ?? 0)), ReportItem("max_rx_time_us", .count(p.maxRxTime ?? 0)),
            ], change: .dataLength(octets: p.maxTxOctets ?? 0))
        case 0x0C: // LE PHY Update Complete
            guard let index = connection(layer, packet) else { return }
            let tx = layer.integer(F.txPHY), rx = layer.integer(F.rxPHY)
            if status == 0 {
                report.connections[index].parameters.txPHY = tx
                report.connections[index].parameters.rxPHY = rx
            }
            record(index, packet, "PHY Update Complete",
                   status == 0 ? [ReportItem("tx_phy", .text(PHYName.of(tx))), ReportItem("rx_phy", .text(PHYName.of(rx)))] : [],
                   status: status, change: .phy(status == 0 ? PHYName.of(tx) : nil))
        case 0x23: // LE Subrate Change
            guard let index = connection(layer, packet) else { return }
            var items: [ReportItem] = []
            if let factor = layer.integer(F.subrateFactor) { items.append(ReportItem("subrate_factor", .count(factor))) }
            if let latency = layer.integer(F.peripheralLatency) { items.append(ReportItem("latency", .count(latency))) }
            record(index, packet, "Subrate Change", items, status: status, change: .subrate)
        case 0x19: // CIS Established
            if status == 0, let handle = layer.integer(F.handle) {
                synchronousLinks.insert(LinkKey(controller: packet.frame.controller, handle: UInt16(truncatingIfNeeded: handle)))
            }
        case 0x02, 0x0D, 0x0B: // advertising reports: legacy, extended, directed
            reports(layer, packet: packet, addressField: F.advAddress, typeField: F.advAddressType, rssiField: F.advRSSI)
        default: break
        }
    }

    /// A Command Complete or Status: the oldest command of its opcode is answered; a non-zero
    /// status counts against the command.
    private mutating func answered(_ layer: Layer, _ packet: Packet, status: Int) {
        guard let opcode = layer.integer(F.commandOpcode), opcode != 0 else { return }
        let frame = packet.frame
        if let position = pendingCommands[frame.controller]?.firstIndex(where: { Int($0.opcode) == opcode }) {
            pendingCommands[frame.controller]!.remove(at: position)
        }
        guard status != 0 else { return }
        let key = UInt64(frame.controller) << 32 | UInt64(opcode) << 8 | UInt64(status & 0xFF)
        if let position = commandErrorIndex[key] {
            report.hci.commandErrors[position].count += 1
            if report.hci.commandErrors[position].frames.count < 20 { report.hci.commandErrors[position].frames.append(frame.number) }
        } else {
            commandErrorIndex[key] = report.hci.commandErrors.count
            report.hci.commandErrors.append(CommandError(controller: frame.controller, opcode: UInt16(truncatingIfNeeded: opcode),
                                                         status: UInt8(truncatingIfNeeded: status), count: 1, frames: [frame.number]))
        }
    }

    private mutating func encryptionFailed(_ index: Int?, _ packet: Packet, status: Int) {
        report.security.encryptionFailures.append(EncryptionFailure(frame: packet.frame.number, controller: packet.frame.controller,
                                                                    handle: index.map { report.connections[$0].handle },
                                                                    address: index.flatMap { report.connections[$0].address },
                                                                    kind: .change, status: UInt8(truncatingIfNeeded: status)))
    }

    /// Interval, latency and timeout of a Connection (Update) Complete, kept as the link's parameters.
    private mutating func intervalItems(_ layer: Layer, _ index: Int) -> [ReportItem] {
        guard let interval = layer.integer(F.interval) else { return [] }
        let latency = layer.integer(F.latency) ?? 0, timeout = layer.integer(F.timeout) ?? 0
        report.connections[index].parameters.interval = interval
        report.connections[index].parameters.latency = latency
        report.connections[index].parameters.supervisionTimeout = timeout
        return [ReportItem("interval", .milliseconds(Double(interval) * 1.25)), ReportItem("latency", .count(latency)),
                ReportItem("supervision_timeout", .milliseconds(Double(timeout) * 10))]
    }

    private mutating func command(_ layer: Layer, _ packet: Packet) {
        guard let opcode = layer.integer(F.opcode) else { return }
        let frame = packet.frame
        // Host Number Of Completed Packets is the one command no event answers.
        if opcode != 0x0C35 {
            pendingCommands[frame.controller, default: []].append((UInt16(truncatingIfNeeded: opcode), frame.number, frame.timestamp))
        }
        switch opcode {
        case 0x201B: // LE Long Term Key Request Negative Reply: no key for this peer
            let index = connection(layer, packet)
            report.security.encryptionFailures.append(EncryptionFailure(frame: frame.number, controller: frame.controller,
                                                                        handle: index.map { report.connections[$0].handle },
                                                                        address: index.flatMap { report.connections[$0].address },
                                                                        kind: .ltkMissing, status: 0))
        case 0x040C: // Link Key Request Negative Reply
            let address = layer.address(F.address)
            let index = address.flatMap { a in openConnections.values.first { report.connections[$0].address == a } }
            report.security.encryptionFailures.append(EncryptionFailure(frame: frame.number, controller: frame.controller,
                                                                        handle: index.map { report.connections[$0].handle },
                                                                        address: address, kind: .linkKeyMissing, status: 0))
        case 0x0405: // Create Connection: the local side pages, and will be central
            if let address = layer.address(F.address) { expectedRoles[address] = .central }
        case 0x0409: // Accept Connection Request: role 0 asks to become central
            if let address = layer.address(F.address), let role = layer.integer(F.role) { expectedRoles[address] = role == 0 ? .central : .peripheral }
        case 0x2020, 0x2021: // LE Remote Connection Parameter Request Reply / Negative Reply
            guard let index = connection(layer, packet) else { return }
            record(index, packet, opcode == 0x2020 ? "Connection Parameter Request Reply" : "Connection Parameter Request Negative Reply",
                   [], failure: opcode == 0x2021 ? "rejected by the host" : nil)
        default: break
        }
    }

    // MARK: Connections

    /// The open link an event names by its handle (opened now when the capture began later).
    private mutating func connection(_ layer: Layer, _ packet: Packet) -> Int? {
        guard let handle = layer.integer(F.handle) else { return nil }
        let key = LinkKey(controller: packet.frame.controller, handle: UInt16(truncatingIfNeeded: handle))
        return openConnections[key] ?? open(key, packet)
    }

    /// A new link in the report: from its Connection Complete, or (no transport given) from
    /// the first packet of a link made before the capture began.
    /// A link from its first packet. `transport` given: the packet made it (a connection
    /// complete event, CONNECT_IND), unless `joined`: the capture joined it already up, its
    /// transport known from how it was captured but its start and parameters not.
    private mutating func open(_ key: LinkKey, _ packet: Packet, transport: Transport? = nil, joined: Bool = false, address: BDAddr? = nil,
                               type: UInt8? = nil) -> Int {
        if openConnections[key] != nil { close(key) }
        let time = packet.frame.timestamp
        let complete = transport != nil && !joined
        var connection = ConnectionReport(file: file, controller: key.controller, handle: key.handle, address: address ?? packet.peer,
                                          addressType: type, transport: transport, start: complete ? time : nil,
                                          startFrame: complete ? packet.frame.number : nil, firstSeen: time, lastSeen: time)
        if let address = connection.address { _ = device(address, type: type, at: time) }
        if transport == .le, complete {
            connection.parameters.mtu = 23; connection.parameters.maxTxOctets = 27; connection.parameters.maxRxOctets = 27
            connection.parameters.txPHY = 1; connection.parameters.rxPHY = 1
        }
        report.connections.append(connection)
        openConnections[key] = report.connections.count - 1
        return report.connections.count - 1
    }

    private mutating func close(_ key: LinkKey) {
        guard let index = openConnections.removeValue(forKey: key) else { return }
        // A link still up when the capture ends waited until the capture's last packet.
        let end = report.connections[index].end ?? report.totals.lastTimestamp ?? report.connections[index].lastSeen
        for (bearer, pending) in pendingATT where bearer.link == key {
            report.att.unanswered.append(UnansweredRequest(frame: pending.frame, opcode: pending.opcode, waited: end.saturatingSubtract(pending.time),
                                                           end: report.connections[index].end == nil ? .captureEnded : .disconnected))
            pendingATT[bearer] = nil
        }
        for channel in report.connections[index].channels.indices where report.connections[index].channels[channel].closedFrame == nil {
            report.connections[index].channels[channel].closedFrame = report.connections[index].endFrame
        }
        offeredMTU = offeredMTU.filter { $0.key.link != key }
        channelRequests = channelRequests.filter { $0.key.link != key }
        parameterRequests = parameterRequests.filter { $0.key.link != key }
        configuredCodec[key] = nil
        lengthOffers[key] = nil
    }

    /// The end of a file: its links and its commands end with it.
    private mutating func closeAll() {
        for key in Array(openConnections.keys) { close(key) }
        let end = report.totals.lastTimestamp ?? 0
        for (controller, commands) in pendingCommands {
            for command in commands where end.saturatingSubtract(command.time) >= 1_000_000 {
                report.hci.unansweredCommands.append(UnansweredCommand(frame: command.frame, controller: controller, opcode: command.opcode,
                                                                       waited: end.saturatingSubtract(command.time)))
            }
        }
        pendingCommands.removeAll()
        expectedRoles.removeAll()
        synchronousLinks.removeAll()
        lastISOSequence.removeAll()
        readRequests.removeAll()
    }

    private mutating func record(_ index: Int, _ packet: Packet, _ event: String, _ items: [ReportItem], status: Int = 0,
                                 failure: String? = nil, change: LinkChange? = nil) {
        var failure = failure
        if status != 0 {
            failure = FieldValueNames.name(of: UInt64(status), for: F.status).map { "\($0) (\(Hex.u8(UInt8(truncatingIfNeeded: status))))" }
                ?? "status \(Hex.u8(UInt8(truncatingIfNeeded: status)))"
        }
        report.connections[index].timeline.append(ParameterEvent(frame: packet.frame.number, time: packet.frame.timestamp,
                                                                 event: event, values: items, failure: failure, change: change))
    }

    // MARK: ACL and what it carries

    private mutating func acl(_ packet: Packet) {
        data(packet, carrier: 0, length: packet.layers[0].integer(F.aclLength) ?? max(0, packet.frame.bytes.count - 4))
    }

    /// A packet that carries L2CAP: HCI ACL data, or an LE data PDU taken from the air; the
    /// layer at `carrier` is the one under L2CAP, whose payload is `length` bytes.
    private mutating func data(_ packet: Packet, carrier: Int, length: Int) {
        guard let handle = packet.handle else { return }
        let frame = packet.frame
        let key = LinkKey(controller: frame.controller, handle: handle)
        let index = openConnections[key] ?? open(key, packet)
        let sent = frame.direction == .sent
        report.connections[index].lastSeen = frame.timestamp
        if sent {
            report.connections[index].bytesSent += length
            report.connections[index].packetsSent += 1
        } else {
            report.connections[index].bytesReceived += length
            report.connections[index].packetsReceived += 1
        }
        if report.connections[index].address == nil, let peer = packet.peer {
            report.connections[index].address = peer
            _ = device(peer, type: nil, at: frame.timestamp)
        }
        // The layers are read in place (a copy of a Layer retains each of its arrays).
        let l2cap = carrier + 1
        guard packet.layers.count > l2cap, packet.layers[l2cap].kind == .l2cap, packet.layers[l2cap].value(F.l2capFragment) == nil,
              let cid = packet.layers[l2cap].integer(F.l2capCID) else { return }
        if report.connections[index].transport == nil {
            if cid == 0x0004 || cid == 0x0005 || cid == 0x0006 { report.connections[index].transport = .le }
            if cid == 0x0001 { report.connections[index].transport = .bredr }
        }
        var application = 0
        if cid == 0x0001 || cid == 0x0005 {
            signaling(packet.layers[l2cap], packet, index: index, key: key, sent: sent)
        } else if cid >= 0x0040 {
            useCredit(index: index, cid: cid, sent: sent, frame: frame.number)
        }
        var carriesATTOrMedia = false, mediaPayload = false
        for layerIndex in l2cap + 1 ..< packet.layers.count {
            switch packet.layers[layerIndex].kind {
            case .att:
                carriesATTOrMedia = true
                application += att(packet.layers[layerIndex], packet, index: index, key: key, cid: UInt16(truncatingIfNeeded: cid), sent: sent)
            case .a2dpMedia:
                carriesATTOrMedia = true
                mediaPayload = true
                application += media(packet.layers[layerIndex], packet, key: key, cid: UInt16(truncatingIfNeeded: cid), sent: sent, address: report.connections[index].address)
            case .avdtp: avdtp(packet.layers[layerIndex], key: key, frame: frame.number)
            case .smp:
                if packet.layers[layerIndex].integer(F.smpCode) == 0x05, let reason = packet.layers[layerIndex].integer(F.smpReason) {
                    report.security.pairingFailures.append(PairingFailure(frame: frame.number, controller: frame.controller, handle: handle,
                                                                          address: report.connections[index].address, source: .smp,
                                                                          reason: UInt8(truncatingIfNeeded: reason), byLocal: sent))
                }
            default: continue
            }
        }
        var channelPayload = false
        if application == 0, cid >= 0x0040, !carriesATTOrMedia {
            application = packet.layers[l2cap].integer(F.l2capLength) ?? 0
            channelPayload = application > 0
        }
        guard application > 0 else { return }
        if sent {
            report.connections[index].trafficSent.add(bytes: application, at: frame.timestamp)
            if channelPayload { report.connections[index].trafficSent.channelPayloads += 1 }
            if mediaPayload { report.connections[index].trafficSent.media += 1 }
        } else {
            report.connections[index].trafficReceived.add(bytes: application, at: frame.timestamp)
            if channelPayload { report.connections[index].trafficReceived.channelPayloads += 1 }
            if mediaPayload { report.connections[index].trafficReceived.media += 1 }
        }
        throughput?.add(bytes: application, connection: index, sent: sent, at: frame.timestamp)
    }

    // MARK: The LE link layer from the air

    /// A packet a sniffer took from the air: advertising PDUs count for their advertisers,
    /// CONNECT_IND opens a connection as LE Connection Complete does, LL Control procedures
    /// change its parameters (and LL_TERMINATE_IND ends it), data PDUs carry L2CAP.
    private mutating func air(_ packet: Packet) {
        // BR/EDR baseband: an ACL payload's L2CAP counts for its piconet link as HCI ACL's does
        // (the sniffer does not say which side sent it: it counts as received).
        if let position = packet.layers.firstIndex(where: { $0.kind == .baseband }) {
            guard let handle = packet.handle, packet.layers[position].integer(F.basebandCRCOK) != 0,
                  packet.layers.count > position + 1 else { return }
            let key = LinkKey(controller: packet.frame.controller, handle: handle)
            if openConnections[key] == nil { _ = open(key, packet, transport: .bredr, joined: true) }
            data(packet, carrier: position, length: packet.layers[position + 1].range.count)
            return
        }
        guard let position = packet.layers.firstIndex(where: { $0.kind == .linkLayer }) else { return }
        let layer = packet.layers[position]
        let frame = packet.frame
        if let type = layer.integer(F.btlePDUType) {
            guard layer.integer(F.btleCRCOK) != 0 else { return }
            if type == 5, let handle = packet.handle {
                let key = LinkKey(controller: frame.controller, handle: handle)
                let index = open(key, packet, transport: .le, address: layer.address(F.btleAdvAddress), type: layer.integer(F.btleRxAdd).map(UInt8.init))
                // The capture's side is the central's: it sent CONNECT_IND.
                report.connections[index].role = .central
                var items = [ReportItem("role", .text(LinkRole.central.rawValue))]
                if let interval = layer.integer(F.btleInterval) {
                    let latency = layer.integer(F.btleLatency) ?? 0, timeout = layer.integer(F.btleTimeout) ?? 0
                    report.connections[index].parameters.interval = interval
                    report.connections[index].parameters.latency = latency
                    report.connections[index].parameters.supervisionTimeout = timeout
                    items += [ReportItem("interval", .milliseconds(Double(interval) * 1.25)), ReportItem("latency", .count(latency)),
                              ReportItem("supervision_timeout", .milliseconds(Double(timeout) * 10))]
                }
                record(index, packet, "CONNECT_IND", items)
            } else if type != 3 && type != 5 {
                // The advertiser's PDUs (a scan request is the scanner's).
                reports(layer, packet: packet, addressField: F.btleAdvAddress, typeField: F.btleTxAdd, rssiField: F.btleRSSI)
            }
            return
        }
        // A CIS's packets belong to an isochronous stream, not to the connection.
        guard let handle = packet.handle, layer.value(F.btleCIE) == nil else { return }
        let key = LinkKey(controller: frame.controller, handle: handle)
        // Counted on an open link, or one this packet opens (a capture that starts mid-connection);
        // an empty or damaged PDU after LL_TERMINATE_IND opens none.
        let existing = openConnections[key]
        if existing != nil || (layer.integer(F.btleCRCOK) != 0 && (layer.integer(F.btleDataLength) ?? 0) > 0) {
            airQuality(layer, frame, index: existing ?? open(key, packet, transport: .le, joined: true))
        }
        guard layer.integer(F.btleCRCOK) != 0, layer.value(F.btleRetransmission) == nil else { return }
        if let opcode = layer.integer(F.btleControlOpcode) {
            let index = openConnections[key] ?? open(key, packet, transport: .le, joined: true)
            report.connections[index].lastSeen = frame.timestamp
            linkLayerControl(opcode, layer, packet, index: index, key: key)
            return
        }
        guard (layer.integer(F.btleDataLength) ?? 0) > 0 else { return }
        let length = packet.layers.count > position + 1 ? packet.layers[position + 1].range.count : 0
        data(packet, carrier: position, length: length)
    }

    /// A data PDU of a connection from the air: damaged, sent again, failing its MIC, or
    /// encrypted with a key btlog does not have.
    private mutating func airQuality(_ layer: Layer, _ frame: Frame, index: Int) {
        var quality = report.connections[index].air ?? AirLinkQuality()
        quality.dataPDUs += 1
        if layer.integer(F.btleCRCOK) == 0 {
            quality.badCRC += 1
            quality.firstBadCRC = quality.firstBadCRC ?? frame.number
        } else if layer.value(F.btleRetransmission) != nil {
            quality.retransmissions += 1
            quality.firstRetransmission = quality.firstRetransmission ?? frame.number
        }
        if layer.integer(F.btleMICOK) == 0 {
            quality.micFailures += 1
            if quality.micFailureFrames.count < 20 { quality.micFailureFrames.append(frame.number) }
        } else if layer.value(F.btleEncryptedPayload) != nil {
            quality.undecrypted += 1
            quality.firstUndecrypted = quality.firstUndecrypted ?? frame.number
        }
        if let source = layer.text(F.btleKeySource) { quality.keySource = source }
        if layer.integer(F.btleSecureConnections) == 1 { quality.secureConnections = true }
        report.connections[index].air = quality
    }

    private mutating func linkLayerControl(_ opcode: Int, _ layer: Layer, _ packet: Packet, index: Int, key: LinkKey) {
        let sent = packet.frame.direction == .sent
        /// A procedure's name, as the field names LL Control opcodes.
        func procedure(_ code: Int?) -> String {
            guard let code else { return "An LL procedure" }
            return FieldValueNames.name(of: UInt64(code), for: F.btleControlOpcode) ?? "LL opcode \(Hex.u8(UInt8(truncatingIfNeeded: code)))"
        }
        switch opcode {
        case 0x0D, 0x11: // LL_REJECT_IND, LL_REJECT_EXT_IND: a procedure refused, with a reason
            let rejected = opcode == 0x11 ? layer.integer(F.btleRejectOpcode) : nil
            var name = procedure(rejected)
            if rejected == 0x0F { name = "Connection Parameters Request (LL_CONNECTION_PARAM_REQ)" }
            record(index, packet, name, [ReportItem("by", .text(sent ? "central" : "peripheral"))],
                   status: layer.integer(F.btleErrorCode) ?? 0x1F)
        case 0x07: // LL_UNKNOWN_RSP: the peer does not know the procedure
            record(index, packet, procedure(layer.integer(F.btleUnknownType)), [ReportItem("by", .text(sent ? "central" : "peripheral"))],
                   failure: "not supported by the \(sent ? "central" : "peripheral") (LL_UNKNOWN_RSP)")
        case 0x00: // LL_CONNECTION_UPDATE_IND
            guard let interval = layer.integer(F.btleUpdateInterval) else { return }
            let latency = layer.integer(F.btleUpdateLatency) ?? 0, timeout = layer.integer(F.btleUpdateTimeout) ?? 0
            report.connections[index].parameters.interval = interval
            report.connections[index].parameters.latency = latency
            report.connections[index].parameters.supervisionTimeout = timeout
            var items = [ReportItem("interval", .milliseconds(Double(interval) * 1.25)), ReportItem("latency", .count(latency)),
                         ReportItem("supervision_timeout", .milliseconds(Double(timeout) * 10))]
            if let instant = layer.integer(F.btleInstant) { items.append(ReportItem("instant", .count(instant))) }
            record(index, packet, "LL_CONNECTION_UPDATE_IND", items)
        case 0x14, 0x15: // LL_LENGTH_REQ/RSP: what the sender can take and send
            guard let rx = layer.integer(F.btleMaxRxOctets), let tx = layer.integer(F.btleMaxTxOctets) else { return }
            var offers = lengthOffers[key] ?? [nil, nil]
            offers[sent ? 0 : 1] = (rx, tx)
            lengthOffers[key] = offers
            // Each direction carries what its sender sends and its receiver takes, at least 27
            // (the capture's side is the central's: it sends C→P, receives P→C).
            if let central = offers[0], let peripheral = offers[1] {
                report.connections[index].parameters.maxTxOctets = max(27, min(central.tx, peripheral.rx))
                report.connections[index].parameters.maxRxOctets = max(27, min(peripheral.tx, central.rx))
            }
            record(index, packet, opcode == 0x14 ? "LL_LENGTH_REQ" : "LL_LENGTH_RSP",
                   [ReportItem("max_rx_octets", .count(rx)), ReportItem("max_tx_octets", .count(tx))])
        case 0x18: // LL_PHY_UPDATE_IND
            let cToP = layer.integer(F.btlePHYCToP) ?? 0, pToC = layer.integer(F.btlePHYPToC) ?? 0
            // PHY bits (1 LE 1M, 2 LE 2M, 4 LE Coded) as HCI's PHY numbers (1, 2, 3).
            func number(_ bits: Int) -> Int? { bits & 4 != 0 ? 3 : bits & 2 != 0 ? 2 : bits & 1 != 0 ? 1 : nil }
            if let tx = number(cToP) { report.connections[index].parameters.txPHY = tx }
            if let rx = number(pToC) { report.connections[index].parameters.rxPHY = rx }
            record(index, packet, "LL_PHY_UPDATE_IND", [ReportItem("tx_phy", .text(PHYName.of(report.connections[index].parameters.txPHY))),
                                                       ReportItem("rx_phy", .text(PHYName.of(report.connections[index].parameters.rxPHY)))])
        case 0x05: // LL_START_ENC_REQ: the link is encrypted from here
            report.connections[index].parameters.encrypted = true
            record(index, packet, "LL_START_ENC_REQ", [ReportItem("encryption", .flag(true))])
        case 0x02: // LL_TERMINATE_IND
            report.connections[index].end = packet.frame.timestamp
            report.connections[index].endFrame = packet.frame.number
            report.connections[index].disconnectReason = layer.integer(F.btleErrorCode).map(UInt8.init(truncatingIfNeeded:))
            close(key)
        default: break
        }
    }

    private mutating func signaling(_ layer: Layer, _ packet: Packet, index: Int, key: LinkKey, sent: Bool) {
        guard let code = layer.integer(F.l2capCode), let ident = layer.integer(F.l2capIdent) else { return }
        let requestKey = SignalingKey(link: key, requesterSent: sent, ident: ident)
        let answerKey = SignalingKey(link: key, requesterSent: !sent, ident: ident)
        let result = layer.integer(F.l2capResult) ?? 0
        let frame = packet.frame
        switch code {
        case 0x02, 0x14, 0x17: // Connection Request: BR/EDR, LE credit-based, enhanced credit-based
            guard let psm = layer.integer(F.l2capPSM) else { return }
            channelRequests[requestKey] = ChannelRequest(psm: psm, sourceCIDs: layer.integers(F.l2capSCID), mtu: layer.integer(F.l2capMTU),
                                                         mps: layer.integer(F.l2capMPS), credits: layer.integer(F.l2capCredits),
                                                         mode: code == 0x02 ? "BR/EDR" : code == 0x14 ? "LE credit-based" : "enhanced credit-based")
        case 0x03, 0x15, 0x18:
            if code == 0x03 && result == 1 { return } // pending: the final response follows
            let destinations = code == 0x03 ? [layer.integer(F.l2capDCID) ?? 0] : layer.integers(F.l2capDCID)
            let request = channelRequests.removeValue(forKey: answerKey)
            if result != 0 && (code != 0x18 || destinations.allSatisfy { $0 == 0 }) {
                report.connections[index].refusedChannels.append(RefusedChannel(frame: frame.number, psm: request?.psm, code: code,
                                                                                result: result, byLocal: sent))
            }
            guard result == 0 || code == 0x18, let request else { return }
            for (source, destination) in zip(request.sourceCIDs, destinations) where destination != 0 {
                // The requester's side is local when the response was received.
                let localIsRequester = !sent
                var channel = ChannelReport(frame: frame.number, time: frame.timestamp, psm: request.psm,
                                            protocolName: L2CAPProtocols.name(psm: UInt16(truncatingIfNeeded: request.psm)),
                                            localCID: localIsRequester ? source : destination,
                                            remoteCID: localIsRequester ? destination : source, mode: request.mode)
                let answer = (mtu: layer.integer(F.l2capMTU), mps: layer.integer(F.l2capMPS), credits: layer.integer(F.l2capCredits))
                if localIsRequester {
                    (channel.localMTU, channel.localMPS, channel.localCredits) = (request.mtu, request.mps, request.credits)
                    (channel.remoteMTU, channel.remoteMPS, channel.remoteCredits) = answer
                } else {
                    (channel.remoteMTU, channel.remoteMPS, channel.remoteCredits) = (request.mtu, request.mps, request.credits)
                    (channel.localMTU, channel.localMPS, channel.localCredits) = answer
                }
                channel.localSendCredits = channel.remoteCredits ?? 0
                channel.remoteSendCredits = channel.localCredits ?? 0
                report.connections[index].channels.append(channel)
            }
        case 0x01: // Command Reject
            report.connections[index].refusedChannels.append(RefusedChannel(frame: frame.number, psm: nil, code: code,
                                                                            result: layer.integer(F.l2capRejectReason) ?? 0, byLocal: sent))
        case 0x16: // Flow Control Credit Indication: credits for the channel whose receiving end is the CID
            guard let cid = layer.integer(F.l2capCID), let credits = layer.integer(F.l2capCredits),
                  let channel = report.connections[index].channels.lastIndex(where: { (sent ? $0.localCID : $0.remoteCID) == cid && $0.closedFrame == nil })
            else { return }
            if sent { report.connections[index].channels[channel].remoteSendCredits += credits } else {
                report.connections[index].channels[channel].localSendCredits += credits
            }
        case 0x04: // Configuration Request: the MTU its sender can receive, for the channel its DCID names
            guard let mtu = layer.integer(F.l2capMTU), let dcid = layer.integer(F.l2capDCID) else { return }
            if let channel = report.connections[index].channels.lastIndex(where: { (sent ? $0.remoteCID : $0.localCID) == dcid && $0.closedFrame == nil }) {
                if sent { report.connections[index].channels[channel].localMTU = mtu } else { report.connections[index].channels[channel].remoteMTU = mtu }
            }
        case 0x07: // Disconnection Response
            guard let dcid = layer.integer(F.l2capDCID), let scid = layer.integer(F.l2capSCID) else { return }
            let local = sent ? dcid : scid
            if let channel = report.connections[index].channels.lastIndex(where: { $0.localCID == local && $0.closedFrame == nil }) {
                report.connections[index].channels[channel].closedFrame = frame.number
            }
        case 0x12: // Connection Parameter Update Request
            var items: [ReportItem] = []
            if let min = layer.integer(F.l2capIntervalMin), let max = layer.integer(F.l2capIntervalMax) {
                items.append(ReportItem("interval_min", .milliseconds(Double(min) * 1.25)))
                items.append(ReportItem("interval_max", .milliseconds(Double(max) * 1.25)))
            }
            if let latency = layer.integer(F.l2capLatency) { items.append(ReportItem("latency", .count(latency))) }
            if let timeout = layer.integer(F.l2capTimeout) { items.append(ReportItem("supervision_timeout", .milliseconds(Double(timeout) * 10))) }
            let event = ParameterEvent(frame: frame.number, time: frame.timestamp,
                                       event: "Connection Parameter Update Request (\(sent ? "local" : "peer"))", values: items)
            parameterRequests[requestKey] = event
            report.connections[index].timeline.append(event)
        case 0x13: // Connection Parameter Update Response
            guard parameterRequests.removeValue(forKey: answerKey) != nil else { return }
            record(index, packet, "Connection Parameter Update Response", [ReportItem("result", .text(result == 0 ? "accepted" : "rejected"))],
                   failure: result == 0 ? nil : "rejected by the \(sent ? "local host" : "peer")")
        default: break
        }
    }

    // MARK: ATT and GATT

    /// What each ATT opcode is in a transaction: 1 a request (or an indication), 2 its answer
    /// (a response, an Error Response, a confirmation); by opcode, read for every ATT PDU.
    static let transactionRoles: [UInt8] = {
        var roles = [UInt8](repeating: 0, count: 256)
        for opcode in [0x02, 0x04, 0x06, 0x08, 0x0A, 0x0C, 0x0E, 0x10, 0x12, 0x16, 0x18, 0x20, 0x1D] { roles[opcode] = 1 }
        for opcode in [0x01, 0x03, 0x05, 0x07, 0x09, 0x0B, 0x0D, 0x0F, 0x11, 0x13, 0x17, 0x19, 0x21, 0x1E] { roles[opcode] = 2 }
        return roles
    }()

    /// Counts the PDU, pairs requests with responses; returns the application bytes it carried.
    private mutating func att(_ layer: Layer, _ packet: Packet, index: Int, key: LinkKey, cid: UInt16, sent: Bool) -> Int {
        guard let opcode = layer.integer(F.attOpcode) else { return 0 }
        let frame = packet.frame
        attOpcodeCounts[opcode & 0xFF] += 1
        let role = Self.transactionRoles[opcode & 0xFF]
        // A dynamic channel (EATT) has a CID at each end: name the bearer by the local one.
        var bearer = cid
        if sent, cid >= 0x0040, let channel = report.connections[index].channels.last(where: { $0.remoteCID == Int(cid) && $0.closedFrame == nil }) {
            bearer = UInt16(truncatingIfNeeded: channel.localCID)
        }
        let mine = BearerKey(link: key, cid: bearer, requesterSent: sent)
        let theirs = BearerKey(link: key, cid: bearer, requesterSent: !sent)
        if role == 1 {
            if let previous = pendingATT[mine] {
                report.att.unanswered.append(UnansweredRequest(frame: previous.frame, opcode: previous.opcode,
                                                               waited: frame.timestamp.saturatingSubtract(previous.time), end: .superseded))
            }
            pendingATT[mine] = PendingTransaction(frame: frame.number, time: frame.timestamp, opcode: UInt8(truncatingIfNeeded: opcode))
        } else if role == 2, let request = pendingATT.removeValue(forKey: theirs) {
            let latency = frame.timestamp.saturatingSubtract(request.time)
            if latency > 30_000_000 {
                report.att.lateResponses.append(LateResponse(requestFrame: request.frame, responseFrame: frame.number, opcode: request.opcode, delay: latency))
            }
            if opcode != 0x1E {
                report.att.latency.add(latency)
                report.att.latencyByRequest[request.opcode, default: Distribution()].add(latency)
            }
            if opcode == 0x01 { countError(layer, request: request.opcode, frame: frame.number) }
        } else if opcode == 0x01 {
            // An error with no request seen (the capture began after it).
            countError(layer, request: nil, frame: frame.number)
        }

        switch opcode {
        case 0x02:
            if let mtu = layer.integer(F.attMTU) { offeredMTU[SideKey(link: key, sent: sent)] = mtu }
        case 0x03:
            if let mtu = layer.integer(F.attMTU) {
                let offered = offeredMTU.removeValue(forKey: SideKey(link: key, sent: !sent))
                let agreed = offered.map { min($0, mtu) } ?? mtu
                report.connections[index].parameters.mtu = max(23, agreed)
                var items = [ReportItem("mtu", .count(max(23, agreed)))]
                if let offered { items += [ReportItem("client_mtu", .count(offered)), ReportItem("server_mtu", .count(mtu))] }
                record(index, packet, "ATT MTU Exchange", items, change: .mtu(max(23, agreed)))
            }
        default: break
        }

        let values = layer.byteCount(F.attValue)
        let handle = layer.integer(F.attHandle).map { UInt16(truncatingIfNeeded: $0) }
        switch opcode {
        case 0x12, 0x52, 0xD2, 0x1B, 0x1D, 0x16:
            guard let handle else { return values }
            var traffic = sent ? report.connections[index].trafficSent : report.connections[index].trafficReceived
            switch opcode {
            case 0x12: traffic.writeRequests += 1
            case 0x52, 0xD2: traffic.writeCommands += 1
            case 0x1B: traffic.notifications += 1
            case 0x1D: traffic.indications += 1
            default: break
            }
            if sent { report.connections[index].trafficSent = traffic } else { report.connections[index].trafficReceived = traffic }
            let activity = characteristic(handle, layer, address: report.connections[index].address)
            switch opcode {
            case 0x12, 0x16: report.characteristics[activity].writes += 1
            case 0x52, 0xD2: report.characteristics[activity].writeCommands += 1
            case 0x1B: report.characteristics[activity].notifications += 1
            default: report.characteristics[activity].indications += 1
            }
            report.characteristics[activity].bytes += values
        case 0x0A, 0x0C:
            if let handle { readRequests[mine] = handle }
        case 0x0B, 0x0D:
            guard let handle = readRequests.removeValue(forKey: theirs) else { return values }
            let activity = characteristic(handle, layer, address: report.connections[index].address)
            report.characteristics[activity].reads += 1
            report.characteristics[activity].bytes += values
            // GAP Device Name read from the peer names the device.
            if sent == false, layer.uuid(F.gattCharacteristic) == BTUUID(UInt16(0x2A00)), let address = report.connections[index].address,
               case .bytes(let bytes)? = layer.value(F.attValue), let name = String(validating: Array(bytes), as: UTF8.self) {
                self.name(name, for: address, at: frame.timestamp)
            }
        default: break
        }
        return values
    }

    /// An Error Response by the request it names (or the request it answered) and its code.
    private mutating func countError(_ layer: Layer, request: UInt8?, frame: Int) {
        guard let error = layer.integer(F.attError) else { return }
        let requested = UInt8(truncatingIfNeeded: layer.integer(F.attRequestOpcode) ?? Int(request ?? 0))
        let key = UInt16(requested) << 8 | UInt16(truncatingIfNeeded: error)
        if let position = errorIndex[key] {
            report.att.errors[position].count += 1
            if report.att.errors[position].frames.count < 20 { report.att.errors[position].frames.append(frame) }
        } else {
            errorIndex[key] = report.att.errors.count
            report.att.errors.append(ATTErrorCount(requestOpcode: requested, error: UInt8(truncatingIfNeeded: error), count: 1,
                                                   firstFrame: frame, frames: [frame]))
        }
    }

    private mutating func characteristic(_ handle: UInt16, _ layer: Layer, address: BDAddr?) -> Int {
        let key = CharacteristicKey(address: address, handle: handle)
        let name = layer.text(F.attName)
        if let index = characteristicIndex[key] {
            if report.characteristics[index].name == nil, let name { report.characteristics[index].name = name }
            return index
        }
        characteristicIndex[key] = report.characteristics.count
        report.characteristics.append(CharacteristicActivity(address: address, handle: handle, name: name))
        return report.characteristics.count - 1
    }

    // MARK: Audio

    /// A K-frame on a credit-based channel uses one of its sender's credits.
    private mutating func useCredit(index: Int, cid: Int, sent: Bool, frame: Int) {
        guard let channel = report.connections[index].channels.lastIndex(where: {
            $0.isCreditBased && (sent ? $0.remoteCID : $0.localCID) == cid && $0.closedFrame == nil
        }) else { return }
        var c = report.connections[index].channels[channel]
        let left = sent ? c.localSendCredits : c.remoteSendCredits
        if left <= 0 {
            c.creditViolations.append(frame)
        } else if left == 1 {
            if sent { c.localCreditsExhausted += 1 } else { c.remoteCreditsExhausted += 1 }
            if c.firstExhaustedFrame == nil { c.firstExhaustedFrame = frame }
        }
        if sent { c.localSendCredits = max(0, left - 1) } else { c.remoteSendCredits = max(0, left - 1) }
        report.connections[index].channels[channel] = c
    }

    private mutating func avdtp(_ layer: Layer, key: LinkKey, frame: Int) {
        // A response reject (3) or general reject (1).
        if let type = layer.integer(F.avdtpMessageType), type == 3 || type == 1 {
            report.avdtpRejects.append(AVDTPReject(frame: frame, handle: key.handle,
                                                   signal: UInt8(truncatingIfNeeded: layer.integer(F.avdtpSignal) ?? 0),
                                                   error: layer.integer(F.avdtpErrorCode).map { UInt8(truncatingIfNeeded: $0) }))
        }
        // Set Configuration (3) and Reconfigure (7) commands choose the codec.
        guard let signal = layer.integer(F.avdtpSignal), signal == 0x03 || signal == 0x07,
              layer.integer(F.avdtpMessageType) == 0, let codec = layer.integer(F.avdtpCodec) else { return }
        let name = A2DPCodecs.name(codec: UInt8(truncatingIfNeeded: codec), vendor: layer.integer(F.avdtpVendorID).map(UInt32.init(truncatingIfNeeded:)),
                                   vendorCodec: layer.integer(F.avdtpVendorCodec).map(UInt16.init(truncatingIfNeeded:)))
        var items: [ReportItem] = []
        if let sampling = layer.text(F.avdtpSampling) { items.append(ReportItem("sampling", .text(sampling))) }
        if let mode = layer.text(F.avdtpChannelMode) { items.append(ReportItem("channel_mode", .text(mode))) }
        if let low = layer.integer(F.avdtpMinBitpool), let high = layer.integer(F.avdtpMaxBitpool) {
            items.append(ReportItem("bitpool", .text("\(low)-\(high)")))
        }
        configuredCodec[key] = (name, items)
        // The media that follows is a new stream, even on the same channel.
        for streamKey in a2dpIndex.keys where streamKey.link == key { a2dpIndex[streamKey] = nil }
    }

    private mutating func media(_ layer: Layer, _ packet: Packet, key: LinkKey, cid: UInt16, sent: Bool, address: BDAddr?) -> Int {
        let frame = packet.frame
        let streamKey = StreamKey(link: key, cid: cid, sent: sent)
        let index: Int
        if let known = a2dpIndex[streamKey] {
            index = known
        } else {
            index = report.a2dpStreams.count
            a2dpIndex[streamKey] = index
            var stream = A2DPStreamReport(controller: key.controller, handle: key.handle, cid: cid, sent: sent, address: address,
                                          first: frame.timestamp, last: frame.timestamp)
            if let configured = configuredCodec[key] {
                stream.codec = configured.name
                stream.configuration = configured.items
            }
            report.a2dpStreams.append(stream)
        }
        let payload = layer.byteCount(F.rtpPayload)
        report.a2dpStreams[index].packets += 1
        report.a2dpStreams[index].mediaBytes += payload
        report.a2dpStreams[index].last = frame.timestamp
        if report.a2dpStreams[index].codec == nil, layer.value(F.sbcBitpool) != nil { report.a2dpStreams[index].codec = "SBC" }
        if let bitpool = layer.integer(F.sbcBitpool), !report.a2dpStreams[index].configuration.contains(where: { $0.name == "bitpool_used" }) {
            report.a2dpStreams[index].configuration.append(ReportItem("bitpool_used", .count(bitpool)))
            if let rate = layer.integer(F.sbcBitrate) { report.a2dpStreams[index].configuration.append(ReportItem("sbc_bitrate", .count(rate))) }
        }
        if let lost = layer.integer(F.rtpLost), lost > 0 {
            report.a2dpStreams[index].gaps += 1
            report.a2dpStreams[index].lostPackets += lost
            if report.a2dpStreams[index].firstGapFrame == nil { report.a2dpStreams[index].firstGapFrame = frame.number }
        }
        return payload
    }

    private mutating func synchronous(_ kind: SynchronousStreamReport.Kind, _ packet: Packet) {
        guard let layer = packet.layers.first else { return }
        let frame = packet.frame
        guard let handle = layer.integer(kind == .sco ? F.scoHandle : F.isoHandle) else { return }
        let key = SynchronousKey(link: LinkKey(controller: frame.controller, handle: UInt16(truncatingIfNeeded: handle)), sent: frame.direction == .sent)
        let index: Int
        if let known = synchronousIndex[key] {
            index = known
        } else {
            index = report.synchronousStreams.count
            synchronousIndex[key] = index
            report.synchronousStreams.append(SynchronousStreamReport(kind: kind, controller: key.link.controller, handle: key.link.handle,
                                                                     sent: key.sent, first: frame.timestamp, last: frame.timestamp))
        }
        var stream = report.synchronousStreams[index]
        stream.packets += 1
        stream.last = frame.timestamp
        stream.bytes += layer.integer(kind == .sco ? F.scoLength : F.isoLength) ?? 0
        if stream.codec == nil, kind == .sco { stream.codec = packet.layers.lazy.compactMap { $0.text(F.scoCodec) }.first }
        var lost = 0
        if let status = layer.integer(kind == .sco ? F.scoStatus : F.isoStatus), status != 0 {
            stream.badStatus += 1
            lost += 1
        }
        if kind == .iso, let sequence = layer.integer(F.isoSequence) {
            if let last = lastISOSequence[key] {
                let step = (sequence - last) & 0xFFFF
                if step > 1 && step < 0x8000 { lost += step - 1 }
            }
            lastISOSequence[key] = sequence
        }
        if lost > 0 {
            stream.lost += lost
            if stream.firstLossFrame == nil { stream.firstLossFrame = frame.number }
        }
        report.synchronousStreams[index] = stream
    }

    // MARK: Keys

    struct SignalingKey: Hashable { var link: LinkKey; var requesterSent: Bool; var ident: Int }
    struct SideKey: Hashable { var link: LinkKey; var sent: Bool }
    struct BearerKey: Hashable { var link: LinkKey; var cid: UInt16; var requesterSent: Bool }
    struct StreamKey: Hashable { var link: LinkKey; var cid: UInt16; var sent: Bool }
    struct SynchronousKey: Hashable { var link: LinkKey; var sent: Bool }
    struct CharacteristicKey: Hashable { var address: BDAddr?; var handle: UInt16 }
    struct PendingTransaction { var frame: Int; var time: Int64; var opcode: UInt8 }
    struct ChannelRequest {
        var psm: Int
        var sourceCIDs: [Int]
        var mtu: Int?, mps: Int?, credits: Int?
        var mode: String
    }
}

/// LE PHY codes as the Core specification names them.
public enum PHYName {
    public static func of(_ code: Int?) -> String {
        switch code {
        case 1?: return "LE 1M"
        case 2?: return "LE 2M"
        case 3?: return "LE Coded"
        case nil: return "unknown"
        case let code?: return "PHY \(code)"
        }
    }
}
