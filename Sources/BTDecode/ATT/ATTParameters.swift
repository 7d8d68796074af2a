import BTCapture

extension ATTDecoder {
    /// One PDU's parameters being decoded: the cursor, the ATT layer, what the PDU names, and
    /// the request it answers. Each opcode's row decodes with one of these methods.
    struct Body {
        var c: ByteCursor
        /// The ATT layer's slot in the packet, while `LayerStack.withLayer` lends it.
        var slot: UnsafeMutablePointer<Layer>?
        var pdu: PDU
        var request: ATTState.Transaction?
        /// A value a profile above GATT decodes once the ATT layer is done (ANCS, AMS).
        var handoff: GATTHandoff?

        init(c: ByteCursor, pdu: PDU) {
            self.c = c
            self.pdu = pdu
        }

        /// The ATT layer, written in place. A call that also writes another part of the Body
        /// (`layer.read(_, &c)`, `pdu.appendHandle(_, &layer)`) writes the layer through
        /// `slot!.pointee` instead: through this property it would copy the whole Body, to keep
        /// the Body read while its cursor is written.
        var layer: Layer {
            _read { yield slot!.pointee }
            nonmutating _modify { yield &slot!.pointee }
        }

        var opcode: UInt8 { pdu.opcode }
        /// The GATT server whose handles this PDU names.
        var key: GATTServerKey { pdu.server }

        func database(_ session: Session) -> GATTDatabase { session.gatt.databases[key] ?? GATTDatabase() }
        /// Keeps `value` as the handle's last, when the run prints last values.
        func recordValue(_ handle: UInt16, _ value: ArraySlice<UInt8>, on key: GATTServerKey, _ session: inout Session) {
            if session.options.keepsLastValues { session.gatt.recordValue(handle, value, on: key) }
        }
        /// How this PDU's server names `handle` (resolved once per handle; see GATTDatabase.naming).
        func naming(_ handle: UInt16, _ session: inout Session) -> GATTDatabase.HandleNaming? {
            session.gatt.naming(of: handle, on: key, names: pdu.names)
        }

        mutating func range(_ session: inout Session) throws {
            let start = try slot!.pointee.read(ATTFields.startHandle, &c, as: UInt16.self)
            let end = try slot!.pointee.read(ATTFields.endHandle, &c, as: UInt16.self)
            if start == end {
                pdu.appendHandle(start, naming(start, &session), &slot!.pointee)
            } else {
                layer.summary += " - Start Handle: \(hex: start) - End Handle: \(hex: end)"
            }
            if start == 0 || start > end { layer.addIssue(.warning, "Invalid handle range \(Hex.u16(start))-\(Hex.u16(end))") }
        }

        /// A 16- or 128-bit UUID of `count` bytes, added as att.uuid with its bytes.
        mutating func readUUID(_ count: Int) throws -> BTUUID {
            let start = c.index
            let bytes = try c.slice(count)
            guard let uuid = BTUUID(littleEndian: bytes) else { throw DecodeError.truncated(needed: 16, available: count, at: c.offset) }
            layer.add(ATTFields.uuid, .uuid(uuid), pdu.names.labelled(uuid), at: layer.range(at: start, count: count))
            return uuid
        }

        /// The rest of the PDU as att.value, with its bytes.
        @discardableResult mutating func readValue() throws -> ArraySlice<UInt8> {
            try slot!.pointee.read(ATTFields.value, &c, bytes: c.remaining)
        }

        mutating func typeUUID() throws -> BTUUID {
            let uuid = try readUUID(c.remaining == 16 ? 16 : 2)
            layer.summary += " - UUID: \(pdu.names.name(uuid) ?? uuid.description)"
            pdu.uuid = uuid
            return uuid
        }

        /// The rest of the PDU as the value of `handle`, which `naming` (when given) already resolved.
        mutating func value(_ handle: UInt16?, _ session: inout Session, naming known: GATTDatabase.HandleNaming?? = nil) {
            let value = c
            let bytes = (try? readValue()) ?? []
            guard let handle else { return }
            let naming = known ?? naming(handle, &session)
            if let naming, let target = session.options.described.inline(naming.type, handle: handle) {
                // A description shown inline (the SIG's characteristics btlog ships): its fields
                // in this layer, its summary where btlog's own text would be.
                var cursor = value
                let wantsField = layer.keeps(GATTFields.value)
                if let run = DescribedDecoder.decodeInline(target.described, target.message, &cursor, into: &slot!.pointee,
                                                           wantsText: layer.summary.isWritten || wantsField) {
                    var wrote = false
                    var words: String?
                    if layer.summary.isWritten {
                        // Written straight into the summary (a table row of every notification);
                        // the field's text, when kept, is a copy of what was written.
                        layer.summary += " - "
                        let start = layer.summary.count
                        run.writeSummary(to: &slot!.pointee.summary, after: start)
                        wrote = layer.summary.count > start
                        if wrote, wantsField { words = String(decoding: layer.summary.bytes[start...], as: UTF8.self) }
                        if !wrote { layer.summary.removeLast(3) }
                    } else {
                        var text: [UInt8] = []
                        run.writeSummary(to: &text)
                        wrote = !text.isEmpty
                        if wrote { words = String(decoding: text, as: UTF8.self) }
                    }
                    if let words, wantsField {
                        layer.add(GATTFields.value, .text(words), at: layer.range(at: bytes.startIndex, count: bytes.count))
                    }
                    if !wrote, !bytes.isEmpty { layer.summary += " - Value: \(preview: bytes)" }
                }
            } else {
                pdu.describeValue(bytes, naming, &slot!.pointee)
            }
            switch opcode {
            case 0x0B, 0x12, 0x52, 0x1B, 0x1D: handOff(handle, value, naming, described: session.options.described) // values whole, not in pieces
            default: break
            }
            // A Write Request's value counts only once the server accepts it.
            if opcode != 0x12 {
                recordValue(handle, bytes, on: key, &session)
            } else if session.options.keepsLastValues {
                pdu.writtenValue = Array(bytes.prefix(512))
            }
        }

        /// Marks the value for the profile registered for its characteristic, if any: a
        /// described protocol first (a user's description of a characteristic btlog knows is
        /// what they want to see), then a built-in one.
        mutating func handOff(_ handle: UInt16, _ value: ByteCursor, _ naming: GATTDatabase.HandleNaming?,
                              described: DescribedProtocols = DescribedProtocols()) {
            guard let naming else { return }
            let type = naming.type
            if !described.isEmpty, let target = described.handleRules[handle] ?? described.characteristics[type], target.selector == nil || !target.described.isInline {
                handoff = GATTHandoff(decode: { c, packet, session, context in
                    target.decode(&c, into: &packet, session: &session, stream: .attribute(context.handle, context.l2cap))
                }, value: value,
                                      context: GATTValueContext(l2cap: pdu.context, opcode: opcode, handle: handle, characteristic: type))
                return
            }
            guard naming.hasProfile, let decode = DissectorTables.gattCharacteristics[type] else { return }
            handoff = GATTHandoff(decode: decode, value: value, context: GATTValueContext(l2cap: pdu.context, opcode: opcode, handle: handle, characteristic: type))
        }

        mutating func errorResponse(_ session: inout Session) throws {
            let requestOpcode = try slot!.pointee.read(ATTFields.requestOpcode, &c, as: UInt8.self, named: { opcodeName($0) })
            let handle = try slot!.pointee.read(ATTFields.handle, &c, as: UInt16.self)
            let error = try slot!.pointee.read(ATTFields.error, &c, as: UInt8.self, named: { errorName($0) })
            layer.summary += " - \(opcodeName(requestOpcode)) - Attribute Handle: \(hex: handle)"
            if let name = naming(handle, &session)?.name { layer.summary += " - \(name)" }
            layer.summary += " - Error Code: \(errorName(error)) (\(hex: error))"
            if GATTProfileError.applicationRange.contains(error) { handOff(handle, ByteCursor(c.bytes[c.index - 1 ..< c.index]), naming(handle, &session)) }
            // Attribute Not Found ends every discovery procedure: expected, not a fault.
            let endsDiscovery = switch requestOpcode {
            case 0x04, 0x06, 0x08, 0x10: true
            default: false
            }
            if error == 0x0A && endsDiscovery {
                layer.addIssue(.note, "Attribute Not Found: end of discovery")
            } else if [0x05, 0x08, 0x0C, 0x0F].contains(error) {
                layer.addIssue(.warning, "ATT error: \(errorName(error)) (\(Hex.u8(error))) - the client should pair or encrypt and retry")
            } else if handoff == nil {
                layer.addIssue(.error, "ATT error: \(errorName(error)) (\(Hex.u8(error))) for \(opcodeName(requestOpcode))")
            } // else the characteristic's profile names the application error (ANCS's 0xA0-0xA3) and reports it
            if let request, request.opcode != requestOpcode {
                layer.addIssue(.warning, "Error Response names \(opcodeName(requestOpcode)) but the pending request is \(opcodeName(request.opcode))")
            }
        }

        mutating func exchangeMTU(_ session: inout Session) throws {
            let mtu = try slot!.pointee.read(ATTFields.mtu, &c, as: UInt16.self, inDecimal: true)
            layer.summary += " - MTU: \(mtu)"
            if mtu < 23 { layer.addIssue(.warning, "ATT MTU \(mtu) is below the minimum of 23") }
        }

        mutating func findInformationRequest(_ session: inout Session) throws {
            try range(&session)
        }

        mutating func findInformationResponse(_ session: inout Session) throws {
            let format = try slot!.pointee.read(ATTFields.format, &c, as: UInt8.self, display: { $0 == 1 ? "16-bit UUIDs" : $0 == 2 ? "128-bit UUIDs" : "Reserved" })
            let size = format == 2 ? 16 : 2
            if format != 1 && format != 2 { layer.addIssue(.error, "Find Information Response format \(format) is reserved") }
            var names: [String] = []
            while c.remaining >= 2 + size {
                let handle = try slot!.pointee.read(ATTFields.handle, &c, as: UInt16.self)
                let type = try readUUID(size)
                session.gatt.databases[key, default: GATTDatabase()].learnType(handle, type)
                names.append("\(Hex.u16(handle)): \(naming(handle, &session)?.name ?? pdu.names.name(type) ?? type.description)")
            }
            layer.summary += " - \(names.joined(separator: ", "))"
            if !c.isAtEnd { layer.addIssue(.error, "Find Information Response: \(c.remaining) bytes left over") }
        }

        mutating func findByTypeValueRequest(_ session: inout Session) throws {
            let start = try slot!.pointee.read(ATTFields.startHandle, &c, as: UInt16.self)
            let end = try slot!.pointee.read(ATTFields.endHandle, &c, as: UInt16.self)
            let typeUUID = try readUUID(2)
            pdu.uuid = typeUUID
            let wanted = try readValue()
            layer.summary += " - Start Handle: \(hex: start) - End Handle: \(hex: end) - Type: \(pdu.names.name(typeUUID) ?? typeUUID.description)"
            if let target = BTUUID(littleEndian: wanted) { layer.summary += " - Value: \(pdu.names.service(target))" }
            pdu.findValue = BTUUID(littleEndian: wanted)
        }

        mutating func findByTypeValueResponse(_ session: inout Session) throws {
            var groups: [String] = []
            while c.remaining >= 4 {
                let found = try slot!.pointee.read(ATTFields.handle, &c, as: UInt16.self)
                let end = try slot!.pointee.read(ATTFields.groupEndHandle, &c, as: UInt16.self)
                if let request, let type = request.uuid?.uuid16, type == 0x2800 || type == 0x2801, let target = request.findValue {
                    session.gatt.databases[key, default: GATTDatabase()].set(found, .service(uuid: target, endHandle: end, primary: type == 0x2800))
                }
                groups.append("\(Hex.u16(found))-\(Hex.u16(end))")
            }
            layer.summary += " - \(groups.joined(separator: ", "))"
        }

        mutating func readByTypeRequest(_ session: inout Session) throws {
            try range(&session)
            _ = try typeUUID()
        }

        mutating func readByTypeResponse(_ session: inout Session) throws {
            let length = try slot!.pointee.read(ATTFields.length, &c, as: UInt8.self, inDecimal: true)
            let minimum = opcode == 0x11 ? 4 : 2
            guard Int(length) > minimum || (opcode == 0x09 && length == 2) else {
                layer.addIssue(.error, "\(opcodeName(opcode)): entry length \(length) is too short")
                return
            }
            // Each entry written into the summary as it is read (" - first, second"): no String
            // made per entry and joined, and nothing formatted when no view shows the summary.
            var entries = 0
            func nextEntry(_ summary: inout SummaryText) {
                summary += entries == 0 ? " - " : ", "
                entries += 1
            }
            let type = request?.uuid
            while c.remaining >= Int(length) {
                var entry = try c.cursor(Int(length))
                let handle = try layer.read(ATTFields.handle, &entry, as: UInt16.self)
                if opcode == 0x11 {
                    let end = try layer.read(ATTFields.groupEndHandle, &entry, as: UInt16.self)
                    let bytesRange = layer.range(at: entry.index, count: entry.remaining)
                    let bytes = entry.rest()
                    if let service = BTUUID(littleEndian: bytes), let type, type.uuid16 == 0x2800 || type.uuid16 == 0x2801 {
                        layer.add(ATTFields.uuid, .uuid(service), pdu.names.labelled(service), at: bytesRange)
                        session.gatt.databases[key, default: GATTDatabase()].set(handle, .service(uuid: service, endHandle: end, primary: type.uuid16 == 0x2800))
                        nextEntry(&slot!.pointee.summary)
                        layer.summary += "\(pdu.names.service(service)) (\(hex: handle)-\(hex: end))"
                    } else {
                        layer.add(ATTFields.value, .bytes(bytes), at: bytesRange)
                        nextEntry(&slot!.pointee.summary)
                        layer.summary += "\(hex: handle)-\(hex: end)"
                    }
                    continue
                }
                let bytesRange = layer.range(at: entry.index, count: entry.remaining)
                let bytes = entry.rest()
                switch type?.uuid16 {
                case 0x2803 where bytes.count == 5 || bytes.count == 19:
                    nextEntry(&slot!.pointee.summary)
                    try declaration(handle, bytes, &session)
                case 0x2802 where bytes.count == 4 || bytes.count == 6:
                    var include = ByteCursor(bytes)
                    let start = try include.u16(), end = try include.u16()
                    let serviceRange = layer.range(at: include.index, count: include.remaining)
                    let service = include.isAtEnd ? nil : BTUUID(littleEndian: include.rest())
                    if let service { layer.add(ATTFields.uuid, .uuid(service), pdu.names.labelled(service), at: serviceRange) }
                    session.gatt.databases[key, default: GATTDatabase()].set(handle, .include(start: start, end: end, uuid: service))
                    nextEntry(&slot!.pointee.summary)
                    layer.summary += "Include \(hex: start)-\(hex: end)"
                    if let service { layer.summary += " \(pdu.names.service(service))" }
                default:
                    layer.add(ATTFields.value, .bytes(bytes), at: bytesRange)
                    if let type {
                        if database(session).attributes[handle] == nil {
                            session.gatt.databases[key, default: GATTDatabase()].set(handle, .typed(type))
                        }
                        recordValue(handle, bytes, on: key, &session)
                        nextEntry(&slot!.pointee.summary)
                        layer.summary += "\(hex: handle)"
                        if layer.summary.isWritten, let decoded = GATTValues.describe(type, bytes) { layer.summary += ": \(decoded)" }
                    } else {
                        nextEntry(&slot!.pointee.summary)
                        layer.summary += "\(hex: handle)"
                    }
                }
            }
            if entries == 0 { layer.summary += " - Packets: 0" }
            if !c.isAtEnd { layer.addIssue(.error, "\(opcodeName(opcode)): \(c.remaining) bytes do not fill an entry of \(length)") }
        }

        /// A characteristic declaration (properties, value handle, UUID), learnt into the database
        /// whether Read By Type or a Read Request of a handle Find Information typed 0x2803 found it,
        /// and said in the summary: "Name (value handle: properties)".
        mutating func declaration(_ handle: UInt16, _ bytes: ArraySlice<UInt8>, _ session: inout Session) throws {
            var declaration = ByteCursor(bytes)
            guard bytes.count == 5 || bytes.count == 19 else { throw DecodeError.malformed("characteristic declaration of \(bytes.count) bytes") }
            let properties = try layer.read(ATTFields.properties, &declaration, as: UInt8.self, display: { "\(Hex.u8($0)) (\(GATTNames.properties($0)))" })
            let valueHandle = try layer.read(ATTFields.valueHandle, &declaration, as: UInt16.self)
            let uuidRange = layer.range(at: declaration.index, count: declaration.remaining)
            guard let characteristic = BTUUID(littleEndian: declaration.rest()) else { throw DecodeError.malformed("characteristic declaration of \(bytes.count) bytes") }
            layer.add(ATTFields.uuid, .uuid(characteristic), pdu.names.labelled(characteristic), at: uuidRange)
            // In place: a copy of the database taken out and put back copies its dictionary whole
            // (the one it replaces is still shared), for every declaration discovery finds.
            session.gatt.databases[key, default: GATTDatabase()].set(handle, .declaration(uuid: characteristic, properties: properties, valueHandle: valueHandle))
            session.gatt.databases[key, default: GATTDatabase()].set(valueHandle, .value(characteristic: characteristic))
            layer.summary += "\(pdu.names.characteristic(characteristic)) (\(hex: valueHandle): \(GATTNames.properties(properties)))"
        }

        mutating func readRequest(_ session: inout Session) throws {
            let handle = try slot!.pointee.read(ATTFields.handle, &c, as: UInt16.self)
            pdu.appendHandle(handle, naming(handle, &session), &slot!.pointee)
            pdu.handle = handle
        }

        mutating func readResponse(_ session: inout Session) throws {
            if let handle = request?.handle {
                // The handle the request named, as a field too (Wireshark does the same).
                layer.add(ATTFields.handle, .u16(handle))
                // A declaration (one Find Information typed, or one known already) read on its own:
                // learnt as Read By Type would.
                let role = database(session).attributes[handle]?.role
                var isDeclaration = false
                if case .typed(let type)? = role { isDeclaration = type.uuid16 == 0x2803 }
                if case .declaration? = role { isDeclaration = true }
                if isDeclaration, c.remaining == 5 || c.remaining == 19 {
                    let bytes = try readValue()
                    layer.summary += " - Handle: \(hex: handle) - Characteristic Declaration - "
                    try declaration(handle, bytes, &session)
                    return
                }
                pdu.appendHandle(handle, naming(handle, &session), &slot!.pointee)
            }
            value(request?.handle, &session)
        }

        mutating func readBlobRequest(_ session: inout Session) throws {
            let handle = try slot!.pointee.read(ATTFields.handle, &c, as: UInt16.self)
            let offset = try slot!.pointee.read(ATTFields.offset, &c, as: UInt16.self, inDecimal: true)
            pdu.appendHandle(handle, naming(handle, &session), &slot!.pointee)
            layer.summary += " - Offset: \(offset)"
            pdu.handle = handle
        }

        mutating func readMultipleRequest(_ session: inout Session) throws {
            var handles: [String] = []
            while c.remaining >= 2 {
                let handle = try slot!.pointee.read(ATTFields.handle, &c, as: UInt16.self)
                handles.append(Hex.u16(handle) + (naming(handle, &session).map { " (\($0.name))" } ?? ""))
            }
            layer.summary += " - Handles: \(handles.joined(separator: ", "))"
            if handles.count < 2 { layer.addIssue(.warning, "\(opcodeName(opcode)) needs at least two handles") }
        }

        mutating func answerWithoutHandle(_ session: inout Session) throws {
            // Write Response and Confirmation carry no handle: name the one their request had.
            if let handle = request?.handle {
                layer.add(ATTFields.handle, .u16(handle))
                pdu.appendHandle(handle, naming(handle, &session), &slot!.pointee)
                if let written = request?.value { recordValue(handle, written[...], on: key, &session) }
            }
        }

        mutating func readMultipleResponse(_ session: inout Session) throws {
            value(nil, &session)
        }

        mutating func readMultipleVariableResponse(_ session: inout Session) throws {
            var count = 0
            while c.remaining >= 2 {
                let length = try c.u16()
                if Int(length) > c.remaining { layer.addIssue(.error, "Value length \(length) but \(c.remaining) bytes follow") }
                try slot!.pointee.read(ATTFields.value, &c, bytes: min(Int(length), c.remaining))
                count += 1
            }
            layer.summary += " - \(count) Values"
        }

        mutating func handleAndValue(_ session: inout Session) throws {
            let handle = try slot!.pointee.read(ATTFields.handle, &c, as: UInt16.self)
            let naming = naming(handle, &session)
            pdu.appendHandle(handle, naming, &slot!.pointee)
            pdu.handle = handle
            value(handle, &session, naming: .some(naming))
        }

        mutating func signedWriteCommand(_ session: inout Session) throws {
            let handle = try slot!.pointee.read(ATTFields.handle, &c, as: UInt16.self)
            pdu.appendHandle(handle, naming(handle, &session), &slot!.pointee)
            guard c.remaining >= 12 else {
                layer.addIssue(.error, "Signed Write Command without its 12-byte signature")
                value(handle, &session)
                return
            }
            try slot!.pointee.read(ATTFields.value, &c, bytes: c.remaining - 12)
            try slot!.pointee.read(ATTFields.signature, &c, bytes: 12)
        }

        mutating func prepareWrite(_ session: inout Session) throws {
            let handle = try slot!.pointee.read(ATTFields.handle, &c, as: UInt16.self)
            let offset = try slot!.pointee.read(ATTFields.offset, &c, as: UInt16.self, inDecimal: true)
            pdu.appendHandle(handle, naming(handle, &session), &slot!.pointee)
            layer.summary += " - Offset: \(offset)"
            try readValue()
            pdu.handle = handle
        }

        mutating func executeWriteRequest(_ session: inout Session) throws {
            let flags = try slot!.pointee.read(ATTFields.flags, &c, as: UInt8.self, display: {
                $0 == 0 ? "Cancel all prepared writes" : $0 == 1 ? "Immediately write all pending prepared values" : "Reserved"
            })
            layer.summary += flags == 0 ? " - Cancel" : flags == 1 ? " - Write" : " - Reserved flags \(hex: flags)"
        }

        mutating func multipleHandleValueNotification(_ session: inout Session) throws {
            var parts: [String] = []
            while c.remaining >= 4 {
                let handle = try slot!.pointee.read(ATTFields.handle, &c, as: UInt16.self)
                let length = try c.u16()
                if Int(length) > c.remaining { layer.addIssue(.error, "Value length \(length) but \(c.remaining) bytes follow") }
                let bytes = try slot!.pointee.read(ATTFields.value, &c, bytes: min(Int(length), c.remaining))
                recordValue(handle, bytes, on: key, &session)
                parts.append(Hex.u16(handle) + (naming(handle, &session).map { " \($0.name)" } ?? ""))
            }
            layer.summary += " - \(parts.joined(separator: ", "))"
        }
    }
}
