import BTCapture

enum HCIEventDecoder {
    static func decode(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session) throws {
        let above = try HCIPacketContext.decode(.hciEvent, over: c, into: &packet) { layer, row in try decodeEvent(&c, &layer, &row, &session) }
        try above?.decode(into: &packet, session: &session)
    }

    private static func decodeEvent(_ c: inout ByteCursor, _ layer: inout Layer, _ row: inout HCIPacketContext, _ session: inout Session) throws {
        let codeIndex = c.index
        let code = try c.u8()
        let event = HCIEvents.eventsByCode[Int(code)]
        let stackEvent = event == nil && BTstack.isStackEvent(code)
        layer.add(HCIFields.event, .u8(code), named: event?.name ?? (stackEvent ? "BTstack" : "Unknown"), at: 0 ..< 1)
        let length = try c.u8()
        layer.add(HCIFields.parameterLength, .u8(length), inDecimal: true, at: 1 ..< 2)
        if let event { layer.summary.set("\(event.name)") } else { layer.summary.set("\(stackEvent ? "BTstack" : "Unknown") Event \(hex: code)") }
        if event == nil, !stackEvent { layer.addIssue(.warning, "Unknown event code \(Hex.u8(code))") }
        if Int(length) != c.remaining {
            layer.addIssue(.warning, "Parameter length \(length) but \(c.remaining) bytes follow")
        }
        var params = try c.cursor(min(Int(length), c.remaining))
        if let event {
            try decode(event, HCIEvents.eventLayouts, &params, &layer, &row, &session)
            if row.above != nil { return }
        } else if stackEvent {
            // BTstack's own event: its layer stands on the HCI one.
            row.above = .btstackEvent(code: code, whole: ByteCursor(c.bytes[codeIndex...]), params)
            return
        }
        layer.addUnreadHCIParameters(&params, header: 2)
    }

    /// An event or LE subevent by its row: the row's decoder, else its layout.
    static func decode(_ event: HCIEvent, _ layouts: ParsedLayouts<UInt8>, _ c: inout ByteCursor, _ layer: inout Layer,
                       _ row: inout HCIPacketContext, _ session: inout Session) throws {
        let layout = event.parameters == nil ? nil : layouts[event.code]
        if let decode = event.decode {
            try decode(layout, &c, &layer, &row, &session)
        } else if let layout {
            try HCIParameterReader.read(layout, &c, &layer, &row, session)
        }
    }

    // The rows' decoders: events that change the Session or that the tree shows otherwise
    // than laid out. Each reads the parameters after the code and length.

    static func commandComplete(_ layout: [HCIParam]?, _ params: inout ByteCursor, _ layer: inout Layer,
                                _ row: inout HCIPacketContext, _ session: inout Session) throws {
        let controller = row.controller
        try layer.read(HCIFields.numCommands, &params, as: UInt8.self)
        let vendorName = vendorName(next: params, controller: controller, session)
        let opcode = try layer.read(HCIFields.commandOpcode, &params, as: UInt16.self, named: { vendorName ?? Self.commandName($0) })
        let command = vendorName ?? Self.commandName(opcode)
        layer.summary.set("Command Complete: \(command)")
        if opcode == HCICommands.unsupportedAnswer {
            try answerUnsupported(&params, &layer, event: "Command Complete", statusRead: false)
            return
        }
        if opcode >> 10 == 0x3F, !params.isAtEnd, !session.options.described.isEmpty, session.options.described.commandName(opcode) != nil {
            // A described vendor command: its status here, its return parameters in the description's layer.
            let status = try layer.reading(&params) { try $0.u8() }
            addStatus(status, &layer)
            guard status.value == 0, let target = session.options.described.hciReturns[opcode] else { return }
            row.above = .described(target, params)
            return
        }
        if opcode >> 10 == 0x3F, !params.isAtEnd, let vendor = VendorDecoders.vendor(for: opcode, controller: controller, session: session) {
            row.above = .vendorReturn(vendor, opcode: opcode, params)
            return
        }
        guard !params.isAtEnd else { return }
        let status = try layer.reading(&params) { try $0.u8() }
        addStatus(status, &layer)
        guard status.value == 0, let commandRow = HCICommands.command(opcode) else { return }
        do {
            try HCICommandDecoder.decodeReturn(commandRow, &params, &layer, &row, &session)
        } catch DecodeError.truncated(let needed, let available, let at) {
            // Controllers (BlueZ's emulator among them) often return the status alone;
            // the fields decoded so far stand, and the shortfall is the controller's.
            layer.addIssue(.warning, "Return parameters stop short of what \(command) defines: \(needed) bytes needed at offset \(at), \(available) left")
        }
    }

    static func commandStatus(_ layout: [HCIParam]?, _ params: inout ByteCursor, _ layer: inout Layer,
                              _ row: inout HCIPacketContext, _ session: inout Session) throws {
        let status = try layer.reading(&params) { try $0.u8() }
        try layer.read(HCIFields.numCommands, &params, as: UInt8.self)
        let vendorName = vendorName(next: params, controller: row.controller, session)
        let opcode = try layer.read(HCIFields.commandOpcode, &params, as: UInt16.self, named: { vendorName ?? Self.commandName($0) })
        layer.summary.set("Command Status: \(vendorName ?? Self.commandName(opcode))")
        addStatus(status, &layer)
        if opcode == HCICommands.unsupportedAnswer { try answerUnsupported(&params, &layer, event: "Command Status", statusRead: true) }
    }

    static func connectionComplete(_ layout: [HCIParam]?, _ params: inout ByteCursor, _ layer: inout Layer,
                                   _ row: inout HCIPacketContext, _ session: inout Session) throws {
        let controller = row.controller
        SynchronousLinks.connectionComplete(params.bytes[params.index...], controller: controller, &session)
        let status = try layer.reading(&params) { try $0.u8() }
        addStatus(status, &layer)
        let handle = try readHandle(&params, &layer)
        let address = try layer.read(HCIFields.address, &params, as: BDAddr.self)
        try layer.read(HCIFields.linkType, &params, as: UInt8.self, display: { $0 == 0 ? "SCO" : $0 == 1 ? "ACL" : $0 == 2 ? "eSCO" : "Reserved" })
        if !params.isAtEnd {
            try layer.read(HCIFields.encryption, &params, as: UInt8.self, display: { $0 == 0 ? "Disabled" : $0 == 1 ? "Enabled" : "Reserved" })
        }
        layer.summary += " - Handle: \(hex: handle) - \(address)"
        row.handle = handle
        row.peer = address
        if status.value == 0 {
            let key = Session.LinkKey(controller: controller, handle: handle)
            session.openLink(key, into: &layer)
            session.connections[key] = .init(peer: address, peerAddressType: 0, isLE: false, role: 0)
        }
    }

    static func disconnectionComplete(_ layout: [HCIParam]?, _ params: inout ByteCursor, _ layer: inout Layer,
                                      _ row: inout HCIPacketContext, _ session: inout Session) throws {
        let status = try layer.reading(&params) { try $0.u8() }
        addStatus(status, &layer)
        let handle = try readHandle(&params, &layer)
        let reason = try layer.read(HCIFields.reason, &params, as: UInt8.self, named: { HCIErrorNames.name($0) })
        layer.summary += " - Handle: \(hex: handle) - Reason: \(HCIErrorNames.name(reason))"
        row.handle = handle
        let key = Session.LinkKey(controller: row.controller, handle: handle)
        row.peer = session.connections[key]?.peer
        if let severity = HCIErrorNames.severity(ofDisconnectReason: reason) {
            layer.addIssue(severity, "Disconnected: \(HCIErrorNames.name(reason)) (\(Hex.u8(reason)))")
        }
        if status.value == 0 { session.closeLink(key, into: &layer) }
    }

    static func encryptionChange(_ layout: [HCIParam]?, _ params: inout ByteCursor, _ layer: inout Layer,
                                 _ row: inout HCIPacketContext, _ session: inout Session) throws {
        try encryptionChange(&params, &layer, &row, &session, withKeySize: false)
    }

    static func encryptionChangeV2(_ layout: [HCIParam]?, _ params: inout ByteCursor, _ layer: inout Layer,
                                   _ row: inout HCIPacketContext, _ session: inout Session) throws {
        try encryptionChange(&params, &layer, &row, &session, withKeySize: true)
    }

    private static func encryptionChange(_ params: inout ByteCursor, _ layer: inout Layer, _ row: inout HCIPacketContext,
                                         _ session: inout Session, withKeySize: Bool) throws {
        let controller = row.controller
        let status = try layer.reading(&params) { try $0.u8() }
        addStatus(status, &layer)
        let handle = try readHandle(&params, &layer)
        let enabled = try layer.read(HCIFields.encryption, &params, as: UInt8.self, display: {
            ["Off", "On (E0 or AES-CCM)", "On (AES-CCM)"][safe: Int($0)] ?? "Reserved"
        })
        layer.summary += " - Handle: \(hex: handle) - Encryption \(enabled == 0 ? "Off" : "On")"
        if withKeySize {
            let size = try layer.read(HCIFields.keySize, &params, as: UInt8.self, display: { "\($0) bytes" })
            layer.summary += " - Key Size: \(size)"
            if size < 7 { layer.addIssue(.error, "Encryption key size \(size) is below 7 bytes") }
        }
        row.handle = handle
        row.peer = session.connection(controller: controller, handle: handle)?.peer
        if status.value == 0, enabled != 0, let method = session.smp.complete(.init(controller: controller, handle: handle)) {
            layer.add(SMPFields.method, .text(method))
            layer.summary += " - Paired: \(method)"
        }
    }

    static func numberOfCompletedPackets(_ layout: [HCIParam]?, _ params: inout ByteCursor, _ layer: inout Layer,
                                         _ row: inout HCIPacketContext, _ session: inout Session) throws {
        let count = try params.u8()
        var first = true
        for _ in 0 ..< count {
            let handle = try readHandle(&params, &layer)
            let completed = try layer.read(HCIFields.completedPackets, &params, as: UInt16.self, inDecimal: true)
            layer.summary += "\(first ? " - " : ", ")\(hex: handle): \(completed)"
            first = false
            if row.handle == nil {
                row.handle = handle
                row.peer = session.connection(controller: row.controller, handle: handle)?.peer
            }
        }
    }

    /// The vendor event (0xFF): the vendor's layer stands on the HCI layer when the vendor is known.
    static func vendor(_ layout: [HCIParam]?, _ params: inout ByteCursor, _ layer: inout Layer,
                       _ row: inout HCIPacketContext, _ session: inout Session) throws {
        row.above = .vendorEvent(params)
    }

    /// A Command Complete or Status carrying opcode 0xFFFF: its status (if any) and what it means.
    static func answerUnsupported(_ params: inout ByteCursor, _ layer: inout Layer, event: String, statusRead: Bool) throws {
        layer.summary.set("\(event): Opcode 0xFFFF - Not Supported")
        if !statusRead, !params.isAtEnd {
            // Its status (Unknown HCI Command, as a rule) says the same as the opcode: one issue.
            let status = try layer.reading(&params) { try $0.u8() }
            layer.add(HCIFields.status, .u8(status.value), named: HCIErrorNames.name(status.value), at: status.range)
        }
        layer.addIssue(.warning, "Opcode 0xFFFF names no command: the controller answers so a command it does not support (most often a vendor command)")
    }

    static func commandName(_ opcode: UInt16) -> String { HCICommands.name(opcode) ?? "Unknown \(Hex.u16(opcode))" }

    /// The vendor's name for the opcode `params` reads next, when it is a vendor's command.
    static func vendorName(next params: ByteCursor, controller: UInt16, _ session: Session) -> String? {
        guard let opcode = try? params.peekU16() else { return nil }
        return VendorDecoders.commandName(opcode, controller: controller, session: session)
    }

    /// A connection handle: the low twelve bits of its two bytes.
    static func readHandle(_ c: inout ByteCursor, _ layer: inout Layer) throws -> UInt16 {
        let read = try layer.reading(&c) { try $0.u16() & 0x0FFF }
        layer.add(HCIFields.handle, .u16(read.value), at: read.range)
        return read.value
    }

    static func addStatus(_ status: (value: UInt8, range: Range<Int>), _ layer: inout Layer) {
        addStatus(status.value, at: status.range, &layer)
    }

    static func addStatus(_ status: UInt8, at range: Range<Int>? = nil, _ layer: inout Layer) {
        layer.add(HCIFields.status, .u8(status), named: HCIErrorNames.name(status), at: range)
        if status != 0 {
            layer.summary += " - \(HCIErrorNames.name(status))"
            layer.addIssue(HCIErrorNames.severity(ofStatus: status), "Status: \(HCIErrorNames.name(status)) (\(Hex.u8(status)))")
        }
    }

    /// LE Meta: the subevent by its row.
    static func leMeta(_ layout: [HCIParam]?, _ c: inout ByteCursor, _ layer: inout Layer,
                       _ row: inout HCIPacketContext, _ session: inout Session) throws {
        let code = try c.u8()
        let subevent = HCIEvents.subeventsByCode[Int(code)]
        layer.add(HCIFields.subevent, .u8(code), named: subevent?.name ?? "Unknown", at: 2 ..< 3)
        guard let subevent else {
            layer.summary.set("LE - Unknown Subevent \(hex: code)")
            return
        }
        layer.summary.set("LE - \(subevent.name)")
        try decode(subevent, HCIEvents.subeventLayouts, &c, &layer, &row, &session)
    }

    static func leConnectionComplete(_ layout: [HCIParam]?, _ c: inout ByteCursor, _ layer: inout Layer,
                                     _ row: inout HCIPacketContext, _ session: inout Session) throws {
        try leConnectionComplete(&c, &layer, &row, &session, enhanced: false)
    }

    /// Enhanced Connection Complete (v1 and v2): the local and peer resolvable private addresses
    /// after the peer's address (v2 adds the advertising and sync handles at the end).
    static func enhancedConnectionComplete(_ layout: [HCIParam]?, _ c: inout ByteCursor, _ layer: inout Layer,
                                           _ row: inout HCIPacketContext, _ session: inout Session) throws {
        try leConnectionComplete(&c, &layer, &row, &session, enhanced: true)
    }

    private static func leConnectionComplete(_ c: inout ByteCursor, _ layer: inout Layer, _ row: inout HCIPacketContext,
                                             _ session: inout Session, enhanced: Bool) throws {
        let status = try layer.reading(&c) { try $0.u8() }
        addStatus(status, &layer)
        let handle = try readHandle(&c, &layer)
        let role = try layer.read(HCIFields.role, &c, as: UInt8.self, display: { $0 == 0 ? "Central" : "Peripheral" })
        let addressType = try layer.read(HCIFields.addressType, &c, as: UInt8.self, display: { HCICommandDecoder.addressTypeName($0) })
        let address = try layer.read(HCIFields.address, &c, as: BDAddr.self)
        if enhanced { try c.skip(12) }
        try readConnectionParameters(&c, &layer)
        layer.summary += " - Handle: \(hex: handle) - \(HCICommandDecoder.addressTypeName(addressType)) - \(address)"
        row.handle = handle
        row.peer = address
        if status.value == 0 {
            let key = Session.LinkKey(controller: row.controller, handle: handle)
            session.openLink(key, into: &layer)
            session.connections[key] = .init(peer: address, peerAddressType: addressType, isLE: true, role: role)
        }
        _ = c.rest()
    }

    static func advertisingReport(_ layout: [HCIParam]?, _ c: inout ByteCursor, _ layer: inout Layer,
                                  _ row: inout HCIPacketContext, _ session: inout Session) throws {
        let count = try layer.read(HCIFields.numReports, &c, as: UInt8.self, inDecimal: true)
        layer.summary += " - \(count) Report\(count == 1 ? "" : "s")"
        for _ in 0 ..< count {
            let eventType = try layer.read(AdvertisingFields.eventType, &c, as: UInt8.self, display: { advertisingEventName($0) })
            let addressType = try layer.read(AdvertisingFields.addressType, &c, as: UInt8.self, display: { HCICommandDecoder.addressTypeName($0) })
            let address = try layer.read(AdvertisingFields.address, &c, as: BDAddr.self)
            let dataLength = try c.u8()
            let data = try layer.reading(&c) { try $0.slice(Int(dataLength)) }
            let rssi = try layer.reading(&c) { Int8(bitPattern: try $0.u8()) }
            addReportData(data, rssi: rssi, eventName: advertisingEventName(eventType), addressType: addressType, address: address,
                          &layer, &row, &session)
        }
    }

    static func connectionUpdateComplete(_ layout: [HCIParam]?, _ c: inout ByteCursor, _ layer: inout Layer,
                                         _ row: inout HCIPacketContext, _ session: inout Session) throws {
        let status = try layer.reading(&c) { try $0.u8() }
        addStatus(status, &layer)
        let handle = try readHandle(&c, &layer)
        let (interval, latency, timeout) = try readConnectionParameters(&c, &layer)
        layer.summary += " - Handle: \(hex: handle) - Interval: \(Units.milliseconds(interval, 1.25)) - Latency: \(latency) - Timeout: \(Units.milliseconds(timeout, 10))"
        row.handle = handle
        row.peer = session.connection(controller: row.controller, handle: handle)?.peer
    }

    static func extendedAdvertisingReport(_ layout: [HCIParam]?, _ c: inout ByteCursor, _ layer: inout Layer,
                                          _ row: inout HCIPacketContext, _ session: inout Session) throws {
        let count = try layer.read(HCIFields.numReports, &c, as: UInt8.self, inDecimal: true)
        layer.summary.set("LE - Extended Advertising Report - \(count) Report\(count == 1 ? "" : "s")")
        for _ in 0 ..< count {
            // Read as laid out; the RSSI, interval and direct address are shown after what the tree groups first.
            let eventType = try layer.read(AdvertisingFields.eventType, &c, as: UInt16.self, display: { extendedEventName($0) })
            let addressType = try layer.read(AdvertisingFields.addressType, &c, as: UInt8.self, display: { HCICommandDecoder.addressTypeName($0) })
            let address = try layer.read(AdvertisingFields.address, &c, as: BDAddr.self)
            try layer.read(HCIFields.primaryPHY, &c, as: UInt8.self, display: { HCIValueNames.phy($0) })
            try layer.read(HCIFields.secondaryPHY, &c, as: UInt8.self, display: { HCIValueNames.phy($0) })
            try layer.read(HCIFields.sid, &c, as: UInt8.self, display: { $0 == 0xFF ? "No ADI field" : String($0) })
            let power = try layer.reading(&c) { try $0.i8() }
            layer.add(AdvertisingFields.txPower, .signed(Int64(power.value)), power.value == 127 ? "Not available" : "\(power.value) dBm", at: power.range)
            let rssi = try layer.reading(&c) { try $0.i8() }
            let interval = try layer.reading(&c) { try $0.u16() }
            if interval.value != 0 {
                layer.add(HCIFields.periodicInterval, .u16(interval.value), Units.milliseconds(interval.value, 1.25), at: interval.range)
            }
            let directType = try layer.reading(&c) { try $0.u8() }, direct = try layer.reading(&c) { try $0.address() }
            if eventType & 0x04 != 0 {
                layer.add(HCIFields.directAddressType, .u8(directType.value), HCICommandDecoder.addressTypeName(directType.value), at: directType.range)
                layer.add(HCIFields.directAddress, .address(direct.value), at: direct.range)
            }
            let length = try c.u8()
            let data = try layer.reading(&c) { try $0.slice(Int(length)) }
            addReportData(data, rssi: rssi, eventName: extendedEventName(eventType), addressType: addressType, address: address,
                          &layer, &row, &session)
        }
    }

    /// Extended advertising event type bits (Core Vol 4, Part E, 7.7.65.13); legacy PDUs by name.
    /// What legacy and extended advertising reports share: the data with its AD structures and
    /// their issues, the RSSI (127: not available), the report's part of the summary, the peer.
    static func addReportData(_ data: (value: ArraySlice<UInt8>, range: Range<Int>), rssi read: (value: Int8, range: Range<Int>), eventName: String,
                              addressType: UInt8, address: BDAddr, _ layer: inout Layer, _ row: inout HCIPacketContext, _ session: inout Session) {
        layer.add(AdvertisingFields.data, .bytes(data.value), at: data.range)
        let names = session.names
        let digest = AdvertisingData.decode(data.value, into: &layer, names: names, described: session.options.described, memo: &session.advertisingMemo)
        let rssi = read.value
        layer.add(AdvertisingFields.rssi, .signed(Int64(rssi)), rssi == 127 ? "Not available" : ASCII.concat(String(rssi), " dBm"), at: read.range)
        layer.summary += " - \(eventName) - \(HCICommandDecoder.addressTypeName(addressType)) - \(address) \(rssi) dBm"
        if let name = digest.name { layer.summary += " - \"\(name)\"" }
        if row.peer == nil { row.peer = address }
    }

    /// Interval, peripheral latency and supervision timeout of an LE connection event.
    @discardableResult
    static func readConnectionParameters(_ c: inout ByteCursor, _ layer: inout Layer) throws -> (UInt16, UInt16, UInt16) {
        let interval = try layer.read(HCIFields.interval, &c, as: UInt16.self, display: { Units.milliseconds($0, 1.25) })
        let latency = try layer.read(HCIFields.latency, &c, as: UInt16.self, inDecimal: true)
        let timeout = try layer.read(HCIFields.timeout, &c, as: UInt16.self, display: { "\(Int($0) * 10) ms" })
        return (interval, latency, timeout)
    }

    /// Every report's summary names its event type: made once for each type without reserved
    /// bits (an unknown legacy type names every bit, so one with reserved bits is made anew).
    static func extendedEventName(_ type: UInt16) -> String { type < 0x80 ? extendedEventNames[Int(type)] : makeExtendedEventName(type) }
    private static let extendedEventNames: [String] = (0 ..< 0x80).map { makeExtendedEventName(UInt16($0)) }

    private static func makeExtendedEventName(_ type: UInt16) -> String {
        if type & 0x10 != 0 {
            switch type & 0x1F {
            case 0x13: return "Normal"
            case 0x15: return "Directed"
            case 0x12: return "Scannable"
            case 0x10: return "Non-connectable"
            case 0x1B, 0x1A: return "Scan Response"
            default: return "Legacy \(Hex.u16(type))"
            }
        }
        var parts: [String] = []
        if type & 0x01 != 0 { parts.append("Connectable") }
        if type & 0x02 != 0 { parts.append("Scannable") }
        if type & 0x04 != 0 { parts.append("Directed") }
        if type & 0x08 != 0 { parts.append("Scan Response") }
        if parts.isEmpty { parts.append("Non-connectable") }
        switch type >> 5 & 0x3 {
        case 1: parts.append("Incomplete, more to come")
        case 2: parts.append("Incomplete, truncated")
        default: break
        }
        return parts.joined(separator: " ")
    }

    static func advertisingEventName(_ type: UInt8) -> String {
        switch type {
        case 0: return "Normal"           // ADV_IND
        case 1: return "Directed"         // ADV_DIRECT_IND
        case 2: return "Scannable"        // ADV_SCAN_IND
        case 3: return "Non-connectable"  // ADV_NONCONN_IND
        case 4: return "Scan Response"    // SCAN_RSP
        default: return "Type \(Hex.u8(type))"
        }
    }
}
