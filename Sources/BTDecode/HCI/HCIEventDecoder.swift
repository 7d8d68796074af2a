import BTCapture

enum HCIEventDecoder {
    static func decode(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session) throws {
        var layer = packet.makeLayer(.hciEvent, over: c)
        defer { packet.append(taking: &layer) }
        let code = try c.u8()
        let name = HCIEventNames.name(code)
        layer.add(HCIFields.event, .u8(code), named: name ?? "Unknown", at: 0 ..< 1)
        let length = try c.u8()
        layer.add(HCIFields.parameterLength, .u8(length), inDecimal: true, at: 1 ..< 2)
        if let name { layer.summary.set("\(name)") } else { layer.summary.set("Unknown Event \(hex: code)") }
        if name == nil { layer.addIssue(.warning, "Unknown event code \(Hex.u8(code))") }
        if Int(length) != c.remaining {
            layer.addIssue(.warning, "Parameter length \(length) but \(c.remaining) bytes follow")
        }
        var params = try c.cursor(min(Int(length), c.remaining))
        let controller = packet.frame.controller
        if code == 0x03 || code == 0x2C || code == 0x3E {
            SynchronousLinks.learn(event: code, params.bytes[params.index...], controller: controller, &session)
        }
        switch code {
        case 0x0E: // Command Complete
            layer.add(HCIFields.numCommands, .u8(try params.u8()))
            let opcode = try params.u16()
            let commandName = HCICommandNames.name(opcode) ?? "Unknown \(Hex.u16(opcode))"
            layer.add(HCIFields.commandOpcode, .u16(opcode), named: commandName)
            layer.summary.set("Command Complete: \(commandName)")
            if !params.isAtEnd {
                if opcode == 0x2062 || opcode == 0x2063 {
                    SynchronousLinks.learn(return: opcode, params.bytes[params.index...], controller: controller, &session)
                }
                let status = try params.u8()
                addStatus(status, &layer)
                do {
                    try decodeReturn(opcode, status, &params, &layer, &packet, &session, controller)
                } catch DecodeError.truncated(let needed, let available, let at) {
                    // Controllers (BlueZ's emulator among them) often return the status alone;
                    // the fields decoded so far stand, and the shortfall is the controller's.
                    layer.addIssue(.warning, "Return parameters stop short of what \(commandName) defines: \(needed) bytes needed at offset \(at), \(available) left")
                }
            }
        case 0x0F: // Command Status
            let status = try params.u8()
            layer.add(HCIFields.numCommands, .u8(try params.u8()))
            let opcode = try params.u16()
            let commandName = HCICommandNames.name(opcode) ?? "Unknown \(Hex.u16(opcode))"
            layer.add(HCIFields.commandOpcode, .u16(opcode), named: commandName)
            layer.summary.set("Command Status: \(commandName)")
            addStatus(status, &layer)
        case 0x03: // Connection Complete
            let status = try params.u8()
            let handle = try params.u16() & 0x0FFF
            let address = try params.address()
            let linkType = try params.u8()
            addStatus(status, &layer)
            layer.add(HCIFields.handle, .u16(handle))
            layer.add(HCIFields.address, .address(address))
            layer.add(HCIFields.linkType, .u8(linkType), linkType == 0 ? "SCO" : linkType == 1 ? "ACL" : linkType == 2 ? "eSCO" : "Reserved")
            layer.summary += " - Handle: \(hex: handle) - \(address)"
            packet.handle = handle
            packet.peer = address
            if status == 0 {
                session.connections[.init(controller: controller, handle: handle)] =
                    .init(peer: address, peerAddressType: 0, isLE: false, role: 0)
            }
        case 0x05: // Disconnection Complete
            let status = try params.u8()
            let handle = try params.u16() & 0x0FFF
            let reason = try params.u8()
            addStatus(status, &layer)
            layer.add(HCIFields.handle, .u16(handle))
            layer.add(HCIFields.reason, .u8(reason), named: HCIErrorNames.name(reason))
            layer.summary += " - Handle: \(hex: handle) - Reason: \(HCIErrorNames.name(reason))"
            packet.handle = handle
            let key = Session.LinkKey(controller: controller, handle: handle)
            packet.peer = session.connections[key]?.peer
            if let severity = HCIErrorNames.severity(ofDisconnectReason: reason) {
                layer.addIssue(severity, "Disconnected: \(HCIErrorNames.name(reason)) (\(Hex.u8(reason)))")
            }
            if status == 0 { session.closeLink(key, into: &layer) }
        case 0x08, 0x59: // Encryption Change v1, v2 (with the key size)
            let status = try params.u8()
            let handle = try params.u16() & 0x0FFF
            let enabled = try params.u8()
            addStatus(status, &layer)
            layer.add(HCIFields.handle, .u16(handle))
            let state = ["Off", "On (E0 or AES-CCM)", "On (AES-CCM)"][safe: Int(enabled)] ?? "Reserved"
            layer.add(HCIFields.encryption, .u8(enabled), state)
            layer.summary += " - Handle: \(hex: handle) - Encryption \(enabled == 0 ? "Off" : "On")"
            if code == 0x59 {
                let size = try params.u8()
                layer.add(HCIFields.keySize, .u8(size), "\(size) bytes")
                layer.summary += " - Key Size: \(size)"
                if size < 7 { layer.addIssue(.error, "Encryption key size \(size) is below 7 bytes") }
            }
            packet.handle = handle
            packet.peer = session.connection(controller: controller, handle: handle)?.peer
            if status == 0, enabled != 0, let method = session.smp.complete(.init(controller: controller, handle: handle)) {
                layer.add(SMPFields.method, .text(method))
                layer.summary += " - Paired: \(method)"
            }
        case 0x13: // Number Of Completed Packets
            let count = try params.u8()
            var first = true
            for _ in 0 ..< count {
                let handle = try params.u16() & 0x0FFF
                let completed = try params.u16()
                layer.add(HCIFields.handle, .u16(handle))
                layer.add(HCIFields.completedPackets, .u16(completed), inDecimal: true)
                layer.summary += "\(first ? " - " : ", ")\(hex: handle): \(completed)"
                first = false
                if packet.handle == nil {
                    packet.handle = handle
                    packet.peer = session.connection(controller: controller, handle: handle)?.peer
                }
            }
        case 0x3E:
            try decodeLEMeta(&params, &layer, &packet, &session)
        default:
            guard let spec = HCIParameterTables.events[code] else { break }
            var reader = HCIParameterReader(names: session.names)
            try reader.read(spec, &params, into: &layer)
            reader.apply(to: &packet, session: session)
        }
        if !params.isAtEnd {
            let at = params.offset + 2
            let rest = params.rest()
            layer.add(HCIFields.parameters, .bytes(rest), at: at ..< at + rest.count)
        }
    }

    static func addStatus(_ status: UInt8, _ layer: inout Layer) {
        layer.add(HCIFields.status, .u8(status), named: HCIErrorNames.name(status))
        if status != 0 {
            layer.summary += " - \(HCIErrorNames.name(status))"
            layer.addIssue(HCIErrorNames.severity(ofStatus: status), "Status: \(HCIErrorNames.name(status)) (\(Hex.u8(status)))")
        }
    }

    static func decodeReturn(_ opcode: UInt16, _ status: UInt8, _ c: inout ByteCursor, _ layer: inout Layer,
                             _ packet: inout Packet, _ session: inout Session, _ controller: UInt16) throws {
        guard status == 0 else { return }
        switch opcode {
        case 0x1009: // Read BD ADDR
            let address = try c.address()
            layer.add(HCIFields.address, .address(address))
            layer.summary += " - \(address)"
            session.controllerAddresses[controller] = address
        default:
            guard let params = HCIParameterTables.returns[opcode] else { return }
            var reader = HCIParameterReader(names: session.names)
            try reader.read(params, &c, into: &layer)
            reader.apply(to: &packet, session: session)
        }
    }

    static func decodeLEMeta(_ c: inout ByteCursor, _ layer: inout Layer, _ packet: inout Packet, _ session: inout Session) throws {
        let subevent = try c.u8()
        let name = HCIEventNames.subeventName(subevent)
        layer.add(HCIFields.subevent, .u8(subevent), named: name ?? "Unknown", at: 2 ..< 3)
        if let name { layer.summary.set("LE - \(name)") } else { layer.summary.set("LE - Unknown Subevent \(hex: subevent)") }
        let controller = packet.frame.controller
        switch subevent {
        case 0x01, 0x0A, 0x29: // LE Connection Complete, Enhanced v1/v2
            let status = try c.u8()
            let handle = try c.u16() & 0x0FFF
            let role = try c.u8()
            let addressType = try c.u8()
            let address = try c.address()
            if subevent != 0x01 { try c.skip(12) }
            let interval = try c.u16(), latency = try c.u16(), timeout = try c.u16()
            addStatus(status, &layer)
            layer.add(HCIFields.handle, .u16(handle))
            layer.add(HCIFields.role, .u8(role), role == 0 ? "Central" : "Peripheral")
            layer.add(HCIFields.addressType, .u8(addressType), HCICommandDecoder.addressTypeName(addressType))
            layer.add(HCIFields.address, .address(address))
            layer.add(HCIFields.interval, .u16(interval), Units.milliseconds(interval, 1.25))
            layer.add(HCIFields.latency, .u16(latency), inDecimal: true)
            layer.add(HCIFields.timeout, .u16(timeout), "\(Int(timeout) * 10) ms")
            layer.summary += " - Handle: \(hex: handle) - \(HCICommandDecoder.addressTypeName(addressType)) - \(address)"
            packet.handle = handle
            packet.peer = address
            if status == 0 {
                session.connections[.init(controller: controller, handle: handle)] =
                    .init(peer: address, peerAddressType: addressType, isLE: true, role: role)
            }
            _ = c.rest()
        case 0x02: // Advertising Report
            let count = try c.u8()
            layer.add(HCIFields.numReports, .u8(count), inDecimal: true)
            layer.summary += " - \(count) Report\(count == 1 ? "" : "s")"
            for _ in 0 ..< count {
                let eventType = try c.u8()
                let addressType = try c.u8()
                let address = try c.address()
                let dataLength = try c.u8()
                let data = try c.slice(Int(dataLength))
                let rssi = Int8(bitPattern: try c.u8())
                let eventName = advertisingEventName(eventType)
                layer.add(AdvertisingFields.eventType, .u8(eventType), eventName)
                layer.add(AdvertisingFields.addressType, .u8(addressType), HCICommandDecoder.addressTypeName(addressType))
                layer.add(AdvertisingFields.address, .address(address))
                addReportData(data, rssi: rssi, eventName: eventName, addressType: addressType, address: address, names: session.names, &layer, &packet)
            }
        case 0x03: // Connection Update Complete
            let status = try c.u8()
            let handle = try c.u16() & 0x0FFF
            let interval = try c.u16(), latency = try c.u16(), timeout = try c.u16()
            addStatus(status, &layer)
            layer.add(HCIFields.handle, .u16(handle))
            layer.add(HCIFields.interval, .u16(interval), Units.milliseconds(interval, 1.25))
            layer.add(HCIFields.latency, .u16(latency), inDecimal: true)
            layer.add(HCIFields.timeout, .u16(timeout), "\(Int(timeout) * 10) ms")
            layer.summary += " - Handle: \(hex: handle) - Interval: \(Units.milliseconds(interval, 1.25)) - Latency: \(latency) - Timeout: \(Units.milliseconds(timeout, 10))"
            packet.handle = handle
            packet.peer = session.connection(controller: controller, handle: handle)?.peer
        case 0x0D: // Extended Advertising Report
            let count = try c.u8()
            layer.add(HCIFields.numReports, .u8(count), inDecimal: true)
            layer.summary.set("LE - Extended Advertising Report - \(count) Report\(count == 1 ? "" : "s")")
            for _ in 0 ..< count {
                let eventType = try c.u16(), addressType = try c.u8(), address = try c.address()
                let primary = try c.u8(), secondary = try c.u8(), sid = try c.u8()
                let power = try c.i8(), rssi = try c.i8(), interval = try c.u16()
                let directType = try c.u8(), direct = try c.address()
                let length = try c.u8()
                let data = try c.slice(Int(length))
                let eventName = extendedEventName(eventType)
                layer.add(AdvertisingFields.eventType, .u16(eventType), eventName)
                layer.add(AdvertisingFields.addressType, .u8(addressType), HCICommandDecoder.addressTypeName(addressType))
                layer.add(AdvertisingFields.address, .address(address))
                layer.add(HCIFields.primaryPHY, .u8(primary), HCIValueNames.phy(primary))
                layer.add(HCIFields.secondaryPHY, .u8(secondary), HCIValueNames.phy(secondary))
                layer.add(HCIFields.sid, .u8(sid), sid == 0xFF ? "No ADI field" : String(sid))
                layer.add(AdvertisingFields.txPower, .signed(Int64(power)), power == 127 ? "Not available" : "\(power) dBm")
                if interval != 0 { layer.add(HCIFields.periodicInterval, .u16(interval), Units.milliseconds(interval, 1.25)) }
                if eventType & 0x04 != 0 {
                    layer.add(HCIFields.directAddressType, .u8(directType), HCICommandDecoder.addressTypeName(directType))
                    layer.add(HCIFields.directAddress, .address(direct))
                }
                addReportData(data, rssi: rssi, eventName: eventName, addressType: addressType, address: address, names: session.names, &layer, &packet)
            }
        default:
            guard let spec = HCIParameterTables.subevents[subevent] else { break }
            var reader = HCIParameterReader(names: session.names)
            try reader.read(spec, &c, into: &layer)
            reader.apply(to: &packet, session: session)
        }
    }

    /// Extended advertising event type bits (Core Vol 4, Part E, 7.7.65.13); legacy PDUs by name.
    /// What legacy and extended advertising reports share: the data with its AD structures and
    /// their issues, the RSSI (127: not available), the report's part of the summary, the peer.
    static func addReportData(_ data: ArraySlice<UInt8>, rssi: Int8, eventName: String, addressType: UInt8, address: BDAddr, names: UUIDNames,
                              _ layer: inout Layer, _ packet: inout Packet) {
        layer.add(AdvertisingFields.data, .bytes(data))
        let digest = AdvertisingData.decode(data, into: &layer, names: names)
        layer.add(AdvertisingFields.rssi, .signed(Int64(rssi)), rssi == 127 ? "Not available" : "\(rssi) dBm")
        layer.summary += " - \(eventName) - \(HCICommandDecoder.addressTypeName(addressType)) - \(address) \(rssi) dBm"
        if let name = digest.name { layer.summary += " - \"\(name)\"" }
        if packet.peer == nil { packet.peer = address }
    }

    static func extendedEventName(_ type: UInt16) -> String {
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
