import BTCapture

/// The Attribute Protocol (Core Vol 3, Part F, 3.4) with GATT on top: requests paired with
/// responses, the server's database learnt from discovery, handles named from it.
enum ATTDecoder {
    /// On the LE fixed channel, and on BR/EDR and enhanced (EATT) dynamic channels.
    static let descriptor = ProtocolDescriptor(name: "ATT", fields: ATTFields.all, state: ATTState.self,
                                               registrations: [.fixedChannel(0x0004, decode), .psm(0x001F, decode), .psm(0x0027, decode)])

    static let opcodeNames: [UInt8: String] = [
        0x01: "Error Response", 0x02: "Exchange MTU Request", 0x03: "Exchange MTU Response",
        0x04: "Find Information Request", 0x05: "Find Information Response", 0x06: "Find By Type Value Request",
        0x07: "Find By Type Value Response", 0x08: "Read By Type Request", 0x09: "Read By Type Response",
        0x0A: "Read Request", 0x0B: "Read Response", 0x0C: "Read Blob Request", 0x0D: "Read Blob Response",
        0x0E: "Read Multiple Request", 0x0F: "Read Multiple Response", 0x10: "Read By Group Type Request",
        0x11: "Read By Group Type Response", 0x12: "Write Request", 0x13: "Write Response",
        0x16: "Prepare Write Request", 0x17: "Prepare Write Response", 0x18: "Execute Write Request",
        0x19: "Execute Write Response", 0x1B: "Handle Value Notification", 0x1D: "Handle Value Indication",
        0x1E: "Handle Value Confirmation", 0x20: "Read Multiple Variable Request", 0x21: "Read Multiple Variable Response",
        0x23: "Multiple Handle Value Notification", 0x52: "Write Command", 0xD2: "Signed Write Command",
    ]

    static let errorNames: [UInt8: String] = [
        0x01: "Invalid Handle", 0x02: "Read Not Permitted", 0x03: "Write Not Permitted", 0x04: "Invalid PDU",
        0x05: "Insufficient Authentication", 0x06: "Request Not Supported", 0x07: "Invalid Offset",
        0x08: "Insufficient Authorization", 0x09: "Prepare Queue Full", 0x0A: "Attribute Not Found",
        0x0B: "Attribute Not Long", 0x0C: "Encryption Key Size Too Short", 0x0D: "Invalid Attribute Value Length",
        0x0E: "Unlikely Error", 0x0F: "Insufficient Encryption", 0x10: "Unsupported Group Type",
        0x11: "Insufficient Resources", 0x12: "Database Out Of Sync", 0x13: "Value Not Allowed",
        0xFC: "Write Request Rejected", 0xFD: "Client Characteristic Configuration Descriptor Improperly Configured",
        0xFE: "Procedure Already in Progress", 0xFF: "Out of Range",
    ]

    static func opcodeName(_ opcode: UInt8) -> String { opcodeNames[opcode] ?? "Unknown Opcode \(Hex.u8(opcode))" }

    static func errorName(_ code: UInt8) -> String {
        if let name = errorNames[code] { return name }
        if (0x80 ... 0x9F).contains(code) { return "Application Error" }
        if (0xE0 ... 0xFB).contains(code) { return "Common Profile and Service Error" }
        return "Reserved"
    }

    /// PDUs a client sends; the rest come from the server.
    static func isFromClient(_ opcode: UInt8) -> Bool {
        switch opcode {
        case 0x02, 0x04, 0x06, 0x08, 0x0A, 0x0C, 0x0E, 0x10, 0x12, 0x16, 0x18, 0x20, 0x52, 0xD2, 0x1E: return true
        default: return false
        }
    }

    static func isRequest(_ opcode: UInt8) -> Bool {
        switch opcode {
        case 0x02, 0x04, 0x06, 0x08, 0x0A, 0x0C, 0x0E, 0x10, 0x12, 0x16, 0x18, 0x20: return true
        default: return false
        }
    }

    static func decode(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session, context: L2CAPContext) throws {
        var layer = packet.makeLayer("ATT", range: 0 ..< c.remaining, showsDirection: true)
        guard let opcode = try? c.u8() else {
            layer.addIssue(.error, "Empty ATT PDU")
            packet.append(layer)
            return
        }
        var pdu = PDU(opcode: opcode, packet: packet, session: session, context: context)
        session.gatt.seed(pdu.server)
        defer { packet.append(layer) }
        layer.add(ATTFields.opcode, .u8(opcode), "\(opcodeName(opcode)) (\(Hex.u8(opcode)))")
        layer.summary = opcodeName(opcode)
        if opcodeNames[opcode] == nil { layer.addIssue(.warning, "Unknown ATT opcode \(Hex.u8(opcode))") }
        let answered = pdu.pair(&session, &layer)
        try decodeBody(opcode, &c, &layer, &pdu, &session, answered)
        if !c.isAtEnd {
            layer.add(ATTFields.value, .bytes(c.rest()))
            layer.addIssue(.warning, "\(opcodeName(opcode)): unexpected bytes after the PDU")
        }
        if isRequest(opcode) || opcode == 0x1D { pdu.remember(&session, opcode: opcode, &layer) }
    }

    static func decodeBody(_ opcode: UInt8, _ c: inout ByteCursor, _ layer: inout Layer, _ pdu: inout PDU,
                           _ session: inout Session, _ request: ATTState.Transaction?) throws {
        let key = pdu.server
        func database() -> GATTDatabase { session.gatt.databases[key] ?? GATTDatabase() }
        func range() throws {
            let start = try c.u16(), end = try c.u16()
            layer.add(ATTFields.startHandle, .u16(start))
            layer.add(ATTFields.endHandle, .u16(end))
            if start == end {
                layer.summary += " - " + pdu.handleText(start, database(), &layer)
            } else {
                layer.summary += " - Start Handle: \(Hex.u16(start)) - End Handle: \(Hex.u16(end))"
            }
            if start == 0 || start > end { layer.addIssue(.warning, "Invalid handle range \(Hex.u16(start))-\(Hex.u16(end))") }
        }
        func uuid(_ count: Int) throws -> BTUUID {
            let bytes = try c.slice(count)
            guard let uuid = BTUUID(littleEndian: bytes) else { throw DecodeError.truncated(needed: 16, available: count, at: c.offset) }
            return uuid
        }
        func typeUUID() throws -> BTUUID {
            let uuid = try uuid(c.remaining == 16 ? 16 : 2)
            layer.add(ATTFields.uuid, .uuid(uuid), pdu.names.labelled(uuid))
            layer.summary += " - UUID: \(pdu.names.name(uuid) ?? uuid.description)"
            pdu.uuid = uuid
            return uuid
        }
        func value(_ handle: UInt16?) {
            let bytes = c.rest()
            layer.add(ATTFields.value, .bytes(bytes))
            guard let handle else { return }
            pdu.describeValue(handle, bytes, database(), &layer)
            // A Write Request's value counts only once the server accepts it.
            if opcode == 0x12 { pdu.writtenValue = Array(bytes.prefix(512)) } else { session.gatt.databases[key]?.recordValue(handle, bytes) }
        }

        switch opcode {
        case 0x01:
            let requestOpcode = try c.u8(), handle = try c.u16(), error = try c.u8()
            layer.add(ATTFields.requestOpcode, .u8(requestOpcode), "\(opcodeName(requestOpcode)) (\(Hex.u8(requestOpcode)))")
            layer.add(ATTFields.handle, .u16(handle))
            layer.add(ATTFields.error, .u8(error), "\(errorName(error)) (\(Hex.u8(error)))")
            layer.summary += " - \(opcodeName(requestOpcode)) - Attribute Handle: \(Hex.u16(handle))"
            if let name = database().name(of: handle, names: pdu.names) { layer.summary += " - \(name)" }
            layer.summary += " - Error Code: \(errorName(error)) (\(Hex.u8(error)))"
            // Attribute Not Found ends every discovery procedure: expected, not a fault.
            let discovery: Set<UInt8> = [0x04, 0x06, 0x08, 0x10]
            if error == 0x0A && discovery.contains(requestOpcode) {
                layer.addIssue(.note, "Attribute Not Found: end of discovery")
            } else if [0x05, 0x08, 0x0C, 0x0F].contains(error) {
                layer.addIssue(.warning, "ATT error: \(errorName(error)) (\(Hex.u8(error))) - the client should pair or encrypt and retry")
            } else {
                layer.addIssue(.error, "ATT error: \(errorName(error)) (\(Hex.u8(error))) for \(opcodeName(requestOpcode))")
            }
            if let request, request.opcode != requestOpcode {
                layer.addIssue(.warning, "Error Response names \(opcodeName(requestOpcode)) but the pending request is \(opcodeName(request.opcode))")
            }
        case 0x02, 0x03:
            let mtu = try c.u16()
            layer.add(ATTFields.mtu, .u16(mtu), String(mtu))
            layer.summary += " - MTU: \(mtu)"
            if mtu < 23 { layer.addIssue(.warning, "ATT MTU \(mtu) is below the minimum of 23") }
        case 0x04:
            try range()
        case 0x05:
            let format = try c.u8()
            layer.add(ATTFields.format, .u8(format), format == 1 ? "16-bit UUIDs" : format == 2 ? "128-bit UUIDs" : "Reserved")
            let size = format == 2 ? 16 : 2
            if format != 1 && format != 2 { layer.addIssue(.error, "Find Information Response format \(format) is reserved") }
            var names: [String] = []
            while c.remaining >= 2 + size {
                let handle = try c.u16(), type = try uuid(size)
                layer.add(ATTFields.handle, .u16(handle))
                layer.add(ATTFields.uuid, .uuid(type), pdu.names.labelled(type))
                session.gatt.databases[key, default: GATTDatabase()].learnType(handle, type)
                names.append("\(Hex.u16(handle)): \(database().name(of: handle, names: pdu.names) ?? pdu.names.name(type) ?? type.description)")
            }
            layer.summary += " - " + names.joined(separator: ", ")
            if !c.isAtEnd { layer.addIssue(.error, "Find Information Response: \(c.remaining) bytes left over") }
        case 0x06:
            let start = try c.u16(), end = try c.u16(), type = try c.u16()
            layer.add(ATTFields.startHandle, .u16(start))
            layer.add(ATTFields.endHandle, .u16(end))
            let typeUUID = BTUUID(type)
            layer.add(ATTFields.uuid, .uuid(typeUUID), pdu.names.labelled(typeUUID))
            pdu.uuid = typeUUID
            let wanted = c.rest()
            layer.add(ATTFields.value, .bytes(wanted))
            layer.summary += " - Start Handle: \(Hex.u16(start)) - End Handle: \(Hex.u16(end)) - Type: \(pdu.names.name(typeUUID) ?? typeUUID.description)"
            if let target = BTUUID(littleEndian: wanted) { layer.summary += " - Value: \(pdu.names.service(target))" }
            pdu.findValue = BTUUID(littleEndian: wanted)
        case 0x07:
            var groups: [String] = []
            while c.remaining >= 4 {
                let found = try c.u16(), end = try c.u16()
                layer.add(ATTFields.handle, .u16(found))
                layer.add(ATTFields.groupEndHandle, .u16(end))
                if let request, let type = request.uuid?.uuid16, type == 0x2800 || type == 0x2801, let target = request.findValue {
                    session.gatt.databases[key, default: GATTDatabase()].set(found, .service(uuid: target, endHandle: end, primary: type == 0x2800))
                }
                groups.append("\(Hex.u16(found))-\(Hex.u16(end))")
            }
            layer.summary += " - " + groups.joined(separator: ", ")
        case 0x08, 0x10:
            try range()
            _ = try typeUUID()
        case 0x09, 0x11:
            let length = try c.u8()
            layer.add(ATTFields.length, .u8(length), String(length))
            let minimum = opcode == 0x11 ? 4 : 2
            guard Int(length) > minimum || (opcode == 0x09 && length == 2) else {
                layer.addIssue(.error, "\(opcodeName(opcode)): entry length \(length) is too short")
                break
            }
            var entries: [String] = []
            let type = request?.uuid
            while c.remaining >= Int(length) {
                var entry = try c.cursor(Int(length))
                let handle = try entry.u16()
                layer.add(ATTFields.handle, .u16(handle))
                if opcode == 0x11 {
                    let end = try entry.u16()
                    layer.add(ATTFields.groupEndHandle, .u16(end))
                    let bytes = entry.rest()
                    if let service = BTUUID(littleEndian: bytes), let type, type.uuid16 == 0x2800 || type.uuid16 == 0x2801 {
                        layer.add(ATTFields.uuid, .uuid(service), pdu.names.labelled(service))
                        session.gatt.databases[key, default: GATTDatabase()].set(handle, .service(uuid: service, endHandle: end, primary: type.uuid16 == 0x2800))
                        entries.append("\(pdu.names.service(service)) (\(Hex.u16(handle))-\(Hex.u16(end)))")
                    } else {
                        layer.add(ATTFields.value, .bytes(bytes))
                        entries.append("\(Hex.u16(handle))-\(Hex.u16(end))")
                    }
                    continue
                }
                let bytes = entry.rest()
                switch type?.uuid16 {
                case 0x2803 where bytes.count == 5 || bytes.count == 19:
                    var declaration = ByteCursor(bytes)
                    let properties = try declaration.u8(), valueHandle = try declaration.u16()
                    let characteristic = BTUUID(littleEndian: declaration.rest())!
                    layer.add(ATTFields.properties, .u8(properties), "\(Hex.u8(properties)) (\(GATTNames.properties(properties)))")
                    layer.add(ATTFields.valueHandle, .u16(valueHandle))
                    layer.add(ATTFields.uuid, .uuid(characteristic), pdu.names.labelled(characteristic))
                    var db = session.gatt.databases[key, default: GATTDatabase()]
                    db.set(handle, .declaration(uuid: characteristic, properties: properties, valueHandle: valueHandle))
                    db.set(valueHandle, .value(characteristic: characteristic))
                    session.gatt.databases[key] = db
                    entries.append("\(pdu.names.characteristic(characteristic)) (\(Hex.u16(valueHandle)): \(GATTNames.properties(properties)))")
                case 0x2802 where bytes.count == 4 || bytes.count == 6:
                    var include = ByteCursor(bytes)
                    let start = try include.u16(), end = try include.u16()
                    let service = include.isAtEnd ? nil : BTUUID(littleEndian: include.rest())
                    if let service { layer.add(ATTFields.uuid, .uuid(service), pdu.names.labelled(service)) }
                    session.gatt.databases[key, default: GATTDatabase()].set(handle, .include(start: start, end: end, uuid: service))
                    entries.append("Include \(Hex.u16(start))-\(Hex.u16(end))" + (service.map { " \(pdu.names.service($0))" } ?? ""))
                default:
                    layer.add(ATTFields.value, .bytes(bytes))
                    if let type {
                        if database().attributes[handle] == nil {
                            session.gatt.databases[key, default: GATTDatabase()].set(handle, .typed(type))
                        }
                        session.gatt.databases[key]?.recordValue(handle, bytes)
                        let decoded = GATTValues.describe(type, bytes)
                        entries.append("\(Hex.u16(handle))" + (decoded.map { ": \($0)" } ?? ""))
                    } else {
                        entries.append(Hex.u16(handle))
                    }
                }
            }
            layer.summary += " - " + (entries.isEmpty ? "Packets: 0" : entries.joined(separator: ", "))
            if !c.isAtEnd { layer.addIssue(.error, "\(opcodeName(opcode)): \(c.remaining) bytes do not fill an entry of \(length)") }
        case 0x0A:
            let handle = try c.u16()
            layer.add(ATTFields.handle, .u16(handle))
            layer.summary += " - " + pdu.handleText(handle, database(), &layer)
            pdu.handle = handle
        case 0x0B, 0x0D:
            if let handle = request?.handle {
                // The handle the request named, as a field too (Wireshark does the same).
                layer.add(ATTFields.handle, .u16(handle))
                layer.summary += " - " + pdu.handleText(handle, database(), &layer)
            }
            value(request?.handle)
        case 0x0C:
            let handle = try c.u16(), offset = try c.u16()
            layer.add(ATTFields.handle, .u16(handle))
            layer.add(ATTFields.offset, .u16(offset), String(offset))
            layer.summary += " - " + pdu.handleText(handle, database(), &layer) + " - Offset: \(offset)"
            pdu.handle = handle
        case 0x0E, 0x20:
            var handles: [String] = []
            while c.remaining >= 2 {
                let handle = try c.u16()
                layer.add(ATTFields.handle, .u16(handle))
                handles.append(Hex.u16(handle) + (database().name(of: handle, names: pdu.names).map { " (\($0))" } ?? ""))
            }
            layer.summary += " - Handles: " + handles.joined(separator: ", ")
            if handles.count < 2 { layer.addIssue(.warning, "\(opcodeName(opcode)) needs at least two handles") }
        case 0x13, 0x1E:
            // Write Response and Confirmation carry no handle: name the one their request had.
            if let handle = request?.handle {
                layer.add(ATTFields.handle, .u16(handle))
                layer.summary += " - " + pdu.handleText(handle, database(), &layer)
                if let written = request?.value { session.gatt.databases[key]?.recordValue(handle, written[...]) }
            }
        case 0x0F:
            value(nil)
        case 0x21:
            var count = 0
            while c.remaining >= 2 {
                let length = try c.u16()
                if Int(length) > c.remaining { layer.addIssue(.error, "Value length \(length) but \(c.remaining) bytes follow") }
                let bytes = try c.slice(min(Int(length), c.remaining))
                layer.add(ATTFields.value, .bytes(bytes))
                count += 1
            }
            layer.summary += " - \(count) Values"
        case 0x12, 0x52, 0x1B, 0x1D:
            let handle = try c.u16()
            layer.add(ATTFields.handle, .u16(handle))
            layer.summary += " - " + pdu.handleText(handle, database(), &layer)
            pdu.handle = handle
            value(handle)
        case 0xD2:
            let handle = try c.u16()
            layer.add(ATTFields.handle, .u16(handle))
            layer.summary += " - " + pdu.handleText(handle, database(), &layer)
            guard c.remaining >= 12 else {
                layer.addIssue(.error, "Signed Write Command without its 12-byte signature")
                value(handle)
                break
            }
            let data = try c.slice(c.remaining - 12)
            layer.add(ATTFields.value, .bytes(data))
            layer.add(ATTFields.signature, .bytes(try c.slice(12)))
        case 0x16, 0x17:
            let handle = try c.u16(), offset = try c.u16()
            layer.add(ATTFields.handle, .u16(handle))
            layer.add(ATTFields.offset, .u16(offset), String(offset))
            layer.summary += " - " + pdu.handleText(handle, database(), &layer) + " - Offset: \(offset)"
            layer.add(ATTFields.value, .bytes(c.rest()))
            pdu.handle = handle
        case 0x18:
            let flags = try c.u8()
            layer.add(ATTFields.flags, .u8(flags), flags == 0 ? "Cancel all prepared writes" : flags == 1 ? "Immediately write all pending prepared values" : "Reserved")
            layer.summary += flags == 0 ? " - Cancel" : flags == 1 ? " - Write" : " - Reserved flags \(Hex.u8(flags))"
        case 0x23:
            var parts: [String] = []
            while c.remaining >= 4 {
                let handle = try c.u16(), length = try c.u16()
                layer.add(ATTFields.handle, .u16(handle))
                if Int(length) > c.remaining { layer.addIssue(.error, "Value length \(length) but \(c.remaining) bytes follow") }
                let bytes = try c.slice(min(Int(length), c.remaining))
                layer.add(ATTFields.value, .bytes(bytes))
                session.gatt.databases[key]?.recordValue(handle, bytes)
                parts.append(Hex.u16(handle) + (database().name(of: handle, names: pdu.names).map { " \($0)" } ?? ""))
            }
            layer.summary += " - " + parts.joined(separator: ", ")
        default:
            if !c.isAtEnd { layer.add(ATTFields.value, .bytes(c.rest())) }
        }
    }
}
