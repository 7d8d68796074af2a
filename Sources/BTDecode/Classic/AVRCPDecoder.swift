import BTCapture

/// AVRCP on the AVCTP control channel: AV/C frames (ctype, subunit, opcode), pass through
/// operations by name, and the vendor-dependent PDUs of the Bluetooth SIG (AVRCP 1.6, 6) with
/// their parameters; a response the target sends in parts is joined before it is decoded.
enum AVRCPDecoder {
    /// Carried by AVCTP for the A/V Remote Control profile (0x110E), on its control channel and
    /// on its browsing channel.
    static let descriptor = ProtocolDescriptor(name: "AVRCP", fields: AVRCPFields.all, layers: [.avrcp],
                                               registrations: [.avctpProfile(AVCTPDecoder.remoteControl, decodeMessage)],
                                               valueNames: [(AVRCPFields.ctype, FieldValueNames.from(AVRCPNames.ctypes)),
                                                            (AVRCPFields.opcode, FieldValueNames.from(AVRCPNames.opcodes)),
                                                            (AVRCPFields.operation, FieldValueNames.from(AVRCPNames.operations)),
                                                            (AVRCPFields.pdu, FieldValueNames.from(AVRCPNames.pdus)),
                                                            (AVRCPFields.status, FieldValueNames.from(AVRCPNames.statuses))],
                                               conversation: AVRCPFields.conversation)

    static let bluetoothSIG: UInt32 = 0x001958

    /// An AVCTP message of the profile: AV/C on the control channel, browsing PDUs on the other.
    static func decodeMessage(_ c: inout ByteCursor, _ packet: inout Packet, _ session: inout Session, _ context: AVCTPContext) throws {
        if context.browsing {
            try AVRCPBrowsing.decode(&c, into: &packet, session: &session, context: context)
        } else {
            try decode(&c, into: &packet, session: &session, context: context)
        }
    }

    static func decode(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session, context: AVCTPContext) throws {
        var layer = packet.makeLayer(.avrcp, over: c, showsDirection: true)
        defer { packet.append(taking: &layer) }
        // The ctype is the low four bits (the high four are reserved).
        let (ctypeByte, ctypeAt) = try layer.reading(&c) { try $0.u8() }
        let ctype = ctypeByte & 0x0F
        layer.add(AVRCPFields.ctype, .u8(ctype), named: AVRCPNames.ctypes[ctype] ?? "Unknown", at: ctypeAt)
        let (subunitByte, subunitAt) = try layer.reading(&c) { try $0.u8() }
        let subunitType = subunitByte >> 3
        layer.add(AVRCPFields.subunitType, .u8(subunitType), named: AVRCPNames.subunitTypes[subunitType] ?? "Unknown", at: subunitAt)
        layer.add(AVRCPFields.subunitID, .count(Int(subunitByte & 0x07)), at: subunitAt)
        let opcode = try layer.read(AVRCPFields.opcode, &c, as: UInt8.self, named: { AVRCPNames.opcodes[$0] ?? "Unknown" })
        let ctypeName = AVRCPNames.ctypes[ctype] ?? "ctype \(Hex.u8(ctype))"
        if ctype == 0x8 || ctype == 0xA {
            layer.addIssue(.warning, "AVRCP \(AVRCPNames.opcodes[opcode] ?? "command") \(ctypeName.lowercased())")
        }

        switch opcode {
        case 0x7C:
            let (stateByte, stateAt) = try layer.reading(&c) { try $0.u8() }
            let operation = stateByte & 0x7F, released = stateByte & 0x80 != 0
            layer.add(AVRCPFields.operation, .u8(operation), named: AVRCPNames.operations[operation] ?? "Unknown", at: stateAt)
            layer.add(AVRCPFields.released, .bool(released), released ? "Released" : "Pressed", at: stateAt)
            let length = Int(try c.u8())
            var name = AVRCPNames.operations[operation] ?? "Operation \(Hex.u8(operation))"
            if operation == 0x7E, length >= 5 {
                let company = try layer.read(AVRCPFields.companyID, &c, as: UInt24.self, .bigEndian).value
                let id = try layer.read(AVRCPFields.vendorUnique, &c, as: UInt16.self, .bigEndian, display: { $0 == 0 ? "Next Group" : $0 == 1 ? "Previous Group" : nil })
                if company == bluetoothSIG, id <= 1 { name = id == 0 ? "Next Group" : "Previous Group" }
                _ = try c.slice(length - 5)
            } else {
                if length > 0 { try layer.read(AVRCPFields.parameters, &c, bytes: length) }
            }
            layer.summary.set("Pass Through: \(ctypeName) - \(name) \(released ? "Released" : "Pressed")")
        case 0x00:
            try vendorDependent(&c, &layer, ctype: ctype, ctypeName: ctypeName, packet: &packet, session: &session, context: context)
        case 0x30:
            layer.summary.set("Unit Info: \(ctypeName)")
            if c.remaining >= 5 {
                _ = try c.u8()
                let unit = try c.u8()
                let company = try layer.read(AVRCPFields.companyID, &c, as: UInt24.self, .bigEndian).value
                if ctype >= 0x8 {
                    layer.summary += " - \(AVRCPNames.subunitTypes[unit >> 3] ?? "Unit type \(Hex.u8(unit >> 3))"), company \(Hex.format(company, width: 6))"
                }
            }
        case 0x31:
            layer.summary.set("Subunit Info: \(ctypeName)")
            if c.remaining >= 1 {
                let page = try c.u8() >> 4
                var subunits: [String] = []
                while !c.isAtEnd {
                    let entry = try c.u8()
                    if entry != 0xFF, ctype >= 0x8 { subunits.append(AVRCPNames.subunitTypes[entry >> 3] ?? "Subunit \(Hex.u8(entry >> 3))") }
                }
                layer.summary += " - page \(page)"
                if !subunits.isEmpty { layer.summary += ": \(subunits.joined(separator: ", "))" }
            }
        default:
            layer.summary.set("\(AVRCPNames.opcodes[opcode] ?? "Opcode \(Hex.u8(opcode))"): \(ctypeName)")
            AVRCPDecoder.rest(&c, &layer, AVRCPFields.parameters)
        }
    }

    // MARK: Vendor dependent

    static func vendorDependent(_ c: inout ByteCursor, _ layer: inout Layer, ctype: UInt8, ctypeName: String, packet: inout Packet, session: inout Session,
                                context: AVCTPContext) throws {
        let company = try layer.read(AVRCPFields.companyID, &c, as: UInt24.self, .bigEndian,
                                     named: { $0.value == bluetoothSIG ? "Bluetooth SIG" : nil }).value
        guard company == bluetoothSIG else {
            layer.summary.set("Vendor Dependent: \(ctypeName) - company \(Hex.format(company, width: 6))")
            AVRCPDecoder.rest(&c, &layer, AVRCPFields.parameters)
            return
        }
        let pdu = try layer.read(AVRCPFields.pdu, &c, as: UInt8.self, named: { AVRCPNames.pdus[$0] ?? "Unknown" })
        let (packetByte, packetAt) = try layer.reading(&c) { try $0.u8() }
        let packetType = packetByte & 0x03
        layer.add(AVRCPFields.packetType, .count(Int(packetType)), AVCTPDecoder.packetTypes[Int(packetType)], at: packetAt)
        let length = Int(try layer.readCount(AVRCPFields.length, &c, as: UInt16.self, .bigEndian))
        let pduName = AVRCPNames.pdus[pdu] ?? "PDU \(Hex.u8(pdu))"
        layer.summary.set("\(pduName): \(ctypeName)")
        if AVRCPNames.pdus[pdu] == nil { layer.addIssue(.warning, "Unknown AVRCP PDU \(Hex.u8(pdu))") }
        if length != c.remaining {
            layer.addIssue(.warning, "AVRCP parameter length \(length) but \(c.remaining) bytes follow")
        }

        // A response in parts (AVRCP 1.6, 6.8): start, continue..., end, each asked for by the controller.
        let flow = AVCTPState.FlowKey(link: context.l2cap.link, sent: context.l2cap.sent, browsing: false)
        switch packetType {
        case 1:
            session.avctp.avrcpParts[flow] = .init(pdu: pdu, bytes: Array(c.rest()), firstFrame: packet.frame.number, parts: 1)
            layer.summary += " - part 1, more follow"
            return
        case 2, 3:
            guard var pending = session.avctp.avrcpParts.removeValue(forKey: flow), pending.pdu == pdu else {
                layer.summary += " - part without a start"
                layer.addIssue(.warning, "AVRCP \(packetType == 2 ? "continue" : "end") part without a start part")
                AVRCPDecoder.rest(&c, &layer, AVRCPFields.parameters)
                return
            }
            pending.bytes += c.rest()
            pending.parts += 1
            guard pending.bytes.count <= AVCTPState.maximumMessage else {
                layer.addIssue(.error, "AVRCP response started in packet \(pending.firstFrame) grew past \(AVCTPState.maximumMessage) bytes: dropped")
                return
            }
            if packetType == 2 {
                session.avctp.avrcpParts[flow] = pending
                layer.summary += " - part \(pending.parts), more follow"
                return
            }
            layer.add(AVRCPFields.joined, .count(pending.parts))
            // The joined parameters are no bytes of this frame: their fields have no range.
            var joined = ByteCursor(pending.bytes[...])
            let firstJoined = layer.fields.count
            defer { layer.forgetRanges(from: firstJoined) }
            try parameters(pdu, ctype: ctype, &joined, &layer)
            layer.summary += " (joined from \(pending.parts) parts)"
        default:
            try parameters(pdu, ctype: ctype, &c, &layer)
        }
    }

    /// A PDU's parameters; `ctype` says command (below 0x8) or response.
    static func parameters(_ pdu: UInt8, ctype: UInt8, _ c: inout ByteCursor, _ layer: inout Layer) throws {
        let isResponse = ctype >= 0x8
        if ctype == 0xA || ctype == 0x8 {
            if ctype == 0xA, !c.isAtEnd { _ = try AVRCPDecoder.status(&c, &layer) }
            AVRCPDecoder.rest(&c, &layer, AVRCPFields.parameters)
            return
        }
        switch (pdu, isResponse) {
        case (0x10, false):
            let id = try layer.read(AVRCPFields.capability, &c, as: UInt8.self, display: { capabilityName($0) })
            layer.summary += " - \(capabilityName(id))"
        case (0x10, true):
            let id = try layer.read(AVRCPFields.capability, &c, as: UInt8.self, display: { capabilityName($0) })
            let count = Int(try layer.readCount(AVRCPFields.capabilityCount, &c, as: UInt8.self))
            var listed: [String] = []
            for _ in 0 ..< count {
                if id == 0x02 {
                    let company = try layer.read(AVRCPFields.companyID, &c, as: UInt24.self, .bigEndian).value
                    listed.append(Hex.format(company, width: 6))
                } else {
                    let event = try layer.read(AVRCPFields.event, &c, as: UInt8.self, named: { AVRCPNames.events[$0] ?? "Unknown" })
                    listed.append(AVRCPNames.events[event] ?? "Event \(Hex.u8(event))")
                }
            }
            layer.summary += " - \(capabilityName(id)): \(listed.joined(separator: ", "))"
        case (0x11, true):
            let count = Int(try layer.readCount(AVRCPFields.attributeCount, &c, as: UInt8.self))
            var names: [String] = []
            for _ in 0 ..< count { names.append(settingName(try layer.read(AVRCPFields.settingAttribute, &c, as: UInt8.self, named: { settingDisplay($0) }))) }
            layer.summary += " - \(names.joined(separator: ", "))"
        case (0x12, false):
            let id = try layer.read(AVRCPFields.settingAttribute, &c, as: UInt8.self, named: { settingDisplay($0) })
            layer.summary += " - \(settingName(id))"
        case (0x12, true):
            let count = Int(try layer.readCount(AVRCPFields.attributeCount, &c, as: UInt8.self))
            var values: [String] = []
            for _ in 0 ..< count { values.append(Hex.u8(try layer.read(AVRCPFields.settingValue, &c, as: UInt8.self))) }
            layer.summary += " - values \(values.joined(separator: ", "))"
        case (0x13, false), (0x15, false):
            let count = Int(try layer.readCount(AVRCPFields.attributeCount, &c, as: UInt8.self))
            var names: [String] = []
            for _ in 0 ..< count { names.append(settingName(try layer.read(AVRCPFields.settingAttribute, &c, as: UInt8.self, named: { settingDisplay($0) }))) }
            layer.summary += " - \(names.joined(separator: ", "))"
        case (0x13, true), (0x14, false):
            let count = Int(try layer.readCount(AVRCPFields.attributeCount, &c, as: UInt8.self))
            let pairs = try settingPairs(count, &c, &layer)
            layer.summary += " - \(pairs)"
        case (0x15, true), (0x16, true):
            let count = Int(try layer.readCount(AVRCPFields.attributeCount, &c, as: UInt8.self))
            var texts: [String] = []
            for _ in 0 ..< count {
                let id = try layer.read(pdu == 0x15 ? AVRCPFields.settingAttribute : AVRCPFields.settingValue, &c, as: UInt8.self)
                let charset = try layer.read(AVRCPFields.characterSet, &c, as: UInt16.self, .bigEndian)
                let length = Int(try c.u8())
                texts.append("\(Hex.u8(id)) \"\(ReadableText.clipped(try AVRCPDecoder.text(&c, &layer, AVRCPFields.value, length: length, charset: charset)))\"")
            }
            layer.summary += " - \(texts.joined(separator: ", "))"
        case (0x16, false):
            let id = try layer.read(AVRCPFields.settingAttribute, &c, as: UInt8.self, named: { settingDisplay($0) })
            let count = Int(try layer.readCount(AVRCPFields.attributeCount, &c, as: UInt8.self))
            for _ in 0 ..< count { _ = try layer.read(AVRCPFields.settingValue, &c, as: UInt8.self) }
            layer.summary += " - \(settingName(id))"
        case (0x17, false):
            let count = Int(try layer.readCount(AVRCPFields.attributeCount, &c, as: UInt8.self))
            var sets: [String] = []
            for _ in 0 ..< count {
                let set = try layer.read(AVRCPFields.characterSet, &c, as: UInt16.self, .bigEndian, named: { $0 == 0x006A ? "UTF-8" : nil })
                let name = set == 0x006A ? "UTF-8" : Hex.u16(set)
                if !sets.contains(name) { sets.append(name) }
            }
            layer.summary += " - \(count) character set\(count == 1 ? "" : "s"): \(sets.prefix(6).joined(separator: ", "))\(sets.count > 6 ? "…" : "")"
        case (0x18, false):
            let status = try layer.read(AVRCPFields.batteryStatus, &c, as: UInt8.self, display: { AVRCPNames.batteryStatuses[safe: Int($0)] })
            layer.summary += " - \(AVRCPNames.batteryStatuses[safe: Int(status)] ?? "Battery \(Hex.u8(status))")"
        case (0x20, false):
            let identifier = try layer.read(AVRCPFields.identifier, &c, as: UInt64.self, .bigEndian)
            let count = Int(try layer.readCount(AVRCPFields.attributeCount, &c, as: UInt8.self))
            var names: [String] = []
            for _ in 0 ..< count {
                let id = try layer.read(AVRCPFields.attribute, &c, as: UInt32.self, .bigEndian, named: { AVRCPNames.attributes[$0] ?? "Unknown" })
                names.append(AVRCPNames.attributes[id] ?? Hex.format(id, width: 8))
            }
            layer.summary += identifier == 0 ? " - Playing" : " - Element \(Hex.format(identifier, width: 16))"
            layer.summary += count == 0 ? " - all attributes" : " - \(names.joined(separator: ", "))"
        case (0x20, true):
            let count = Int(try layer.readCount(AVRCPFields.attributeCount, &c, as: UInt8.self))
            let values = try AVRCPDecoder.attributeValues(&c, &layer, count)
            layer.summary += " - \(values.joined(separator: ", "))"
        case (0x30, true):
            let length = Int(try layer.readCount(AVRCPFields.songLength, &c, as: UInt32.self, .bigEndian))
            let position = Int(try layer.readCount(AVRCPFields.songPosition, &c, as: UInt32.self, .bigEndian))
            let status = try layer.read(AVRCPFields.playStatus, &c, as: UInt8.self, named: { AVRCPNames.playStatuses[$0] ?? "Unknown" })
            layer.summary += " - \(AVRCPNames.playStatuses[status] ?? "Status \(Hex.u8(status))") \(milliseconds(position)) of \(milliseconds(length))"
        case (0x31, false):
            let event = try layer.read(AVRCPFields.event, &c, as: UInt8.self, named: { AVRCPNames.events[$0] ?? "Unknown" })
            let interval = Int(try layer.readCount(AVRCPFields.interval, &c, as: UInt32.self, .bigEndian))
            layer.summary += " - \(AVRCPNames.events[event] ?? "Event \(Hex.u8(event))")"
            if event == 0x05 { layer.summary += " every \(interval) s" }
        case (0x31, true):
            let event = try layer.read(AVRCPFields.event, &c, as: UInt8.self, named: { AVRCPNames.events[$0] ?? "Unknown" })
            layer.summary += " - \(AVRCPNames.events[event] ?? "Event \(Hex.u8(event))")"
            if let value = try eventValue(event, &c, &layer) { layer.summary += ": \(value)" }
        case (0x40, false), (0x41, false):
            let target = try layer.read(AVRCPFields.pdu, &c, as: UInt8.self, named: { AVRCPNames.pdus[$0] ?? "Unknown" })
            layer.summary += " - \(AVRCPNames.pdus[target] ?? "PDU \(Hex.u8(target))")"
        case (0x50, _):
            let volume = try layer.read(AVRCPFields.volume, &c, as: UInt8.self, display: { percent($0) }) & 0x7F
            layer.summary += " - \(percent(volume))"
        case (0x60, false):
            let player = try layer.read(AVRCPFields.playerID, &c, as: UInt16.self, .bigEndian)
            layer.summary += " - player \(player)"
        case (0x74, false), (0x90, false):
            let scope = try layer.read(AVRCPFields.scope, &c, as: UInt8.self, display: { AVRCPNames.scopes[safe: Int($0)] })
            let uid = try layer.read(AVRCPFields.uid, &c, as: UInt64.self, .bigEndian)
            _ = try layer.read(AVRCPFields.uidCounter, &c, as: UInt16.self, .bigEndian)
            layer.summary += " - \(AVRCPNames.scopes[safe: Int(scope)] ?? "Scope \(scope)") UID \(Hex.format(uid, width: 16))"
        case (0x60, true), (0x74, true), (0x90, true):
            _ = try AVRCPDecoder.status(&c, &layer)
        case (0x11, false), (0x30, false), (0x14, true), (0x17, true), (0x18, true):
            break // no parameters
        default:
            break
        }
        if !c.isAtEnd {
            layer.addIssue(.warning, "\(c.remaining) bytes after the \(AVRCPNames.pdus[pdu] ?? "PDU")'s parameters")
            AVRCPDecoder.rest(&c, &layer, AVRCPFields.parameters)
        }
    }

    /// The value an INTERIM or CHANGED notification carries for its event.
    static func eventValue(_ event: UInt8, _ c: inout ByteCursor, _ layer: inout Layer) throws -> String? {
        switch event {
        case 0x01:
            let status = try layer.read(AVRCPFields.playStatus, &c, as: UInt8.self, named: { AVRCPNames.playStatuses[$0] ?? "Unknown" })
            return AVRCPNames.playStatuses[status] ?? Hex.u8(status)
        case 0x02:
            let track = try layer.read(AVRCPFields.trackUID, &c, as: UInt64.self, .bigEndian)
            return track == .max ? "no track selected" : track == 0 ? "track selected" : "track \(Hex.format(track, width: 16))"
        case 0x05:
            let position = Int(try layer.readCount(AVRCPFields.songPosition, &c, as: UInt32.self, .bigEndian))
            return milliseconds(position)
        case 0x06:
            let status = try layer.read(AVRCPFields.batteryStatus, &c, as: UInt8.self, display: { AVRCPNames.batteryStatuses[safe: Int($0)] })
            return AVRCPNames.batteryStatuses[safe: Int(status)] ?? Hex.u8(status)
        case 0x07:
            let status = try layer.read(AVRCPFields.systemStatus, &c, as: UInt8.self, display: { AVRCPNames.systemStatuses[safe: Int($0)] })
            return AVRCPNames.systemStatuses[safe: Int(status)] ?? Hex.u8(status)
        case 0x08:
            let count = Int(try layer.readCount(AVRCPFields.attributeCount, &c, as: UInt8.self))
            return try settingPairs(count, &c, &layer)
        case 0x0B:
            let player = try layer.read(AVRCPFields.playerID, &c, as: UInt16.self, .bigEndian)
            _ = try layer.read(AVRCPFields.uidCounter, &c, as: UInt16.self, .bigEndian)
            return "player \(player)"
        case 0x0C:
            return "UID counter \(try layer.read(AVRCPFields.uidCounter, &c, as: UInt16.self, .bigEndian))"
        case 0x0D:
            let volume = try layer.read(AVRCPFields.volume, &c, as: UInt8.self, display: { percent($0) }) & 0x7F
            return percent(volume)
        default:
            return nil
        }
    }

    // MARK: Parameters read by several PDUs

    /// A string of `length` bytes in `charset` (IANA MIBenum; 0x006A is UTF-8).
    static func text(_ c: inout ByteCursor, _ layer: inout Layer, _ field: FieldDefinition, length: Int, charset: UInt16) throws -> String {
        let (bytes, at) = try layer.reading(&c) { try $0.slice(length) }
        let value = charset == 0x006A ? String(decoding: bytes, as: UTF8.self) : ReadableText.decode(bytes)
        layer.add(field, .text(value), at: at)
        return value
    }

    static func rest(_ c: inout ByteCursor, _ layer: inout Layer, _ field: FieldDefinition) {
        guard !c.isAtEnd else { return }
        _ = try? layer.read(field, &c, bytes: c.remaining)
    }

    /// Attribute entries of Get Element/Item Attributes responses: ID, character set, length, value.
    static func attributeValues(_ c: inout ByteCursor, _ layer: inout Layer, _ count: Int) throws -> [String] {
        var shown: [String] = []
        for _ in 0 ..< count {
            let id = try layer.read(AVRCPFields.attribute, &c, as: UInt32.self, .bigEndian, named: { AVRCPNames.attributes[$0] ?? "Unknown" })
            let charset = try layer.read(AVRCPFields.characterSet, &c, as: UInt16.self, .bigEndian, named: { $0 == 0x006A ? "UTF-8" : nil })
            let length = Int(try c.u16be())
            let value = try text(&c, &layer, AVRCPFields.value, length: length, charset: charset)
            let name = AVRCPNames.attributes[id] ?? "Attribute \(Hex.format(id, width: 8))"
            shown.append(id == 0x7 ? "\(name) \(AVRCPDecoder.playingTime(value))" : "\(name) \"\(ReadableText.clipped(value))\"")
        }
        return shown
    }

    static func status(_ c: inout ByteCursor, _ layer: inout Layer) throws -> UInt8 {
        let status = try layer.read(AVRCPFields.status, &c, as: UInt8.self, named: { AVRCPNames.statuses[$0] ?? "Unknown" })
        let name = AVRCPNames.statuses[status] ?? "Status \(Hex.u8(status))"
        layer.summary += " - \(name)"
        if status != 0x04 { layer.addIssue(.warning, "AVRCP: \(name) (\(Hex.u8(status)))") }
        return status
    }

    static func settingPairs(_ count: Int, _ c: inout ByteCursor, _ layer: inout Layer) throws -> String {
        var pairs: [String] = []
        for _ in 0 ..< count {
            let id = try layer.read(AVRCPFields.settingAttribute, &c, as: UInt8.self, named: { settingDisplay($0) })
            let value = try layer.read(AVRCPFields.settingValue, &c, as: UInt8.self, display: { AVRCPNames.settings[id]?.values[$0] })
            pairs.append("\(settingName(id)) \(AVRCPNames.settings[id]?.values[value] ?? Hex.u8(value))")
        }
        return pairs.joined(separator: ", ")
    }

    static func capabilityName(_ id: UInt8) -> String { id == 0x02 ? "Company ID" : id == 0x03 ? "Events Supported" : "Capability \(Hex.u8(id))" }
    static func settingName(_ id: UInt8) -> String { AVRCPNames.settings[id]?.name ?? "Setting \(Hex.u8(id))" }
    static func settingDisplay(_ id: UInt8) -> String { AVRCPNames.settings[id]?.name ?? "Unknown" }
    /// Absolute volume 0-0x7F as a person reads it.
    static func percent(_ volume: UInt8) -> String { "\((Int(volume & 0x7F) * 100 + 63) / 127)%" }
    static func milliseconds(_ ms: Int) -> String {
        guard ms != Int(UInt32.max) else { return "unknown" }
        let seconds = ms / 1000
        return "\(seconds / 60):\(seconds % 60 < 10 ? "0" : "")\(seconds % 60)"
    }
    /// Playing Time is milliseconds written as decimal text.
    static func playingTime(_ text: String) -> String { UInt32(text).map { milliseconds(Int($0)) } ?? "\"\(ReadableText.clipped(text))\"" }
}

/// The layers this decoder makes.
extension LayerKind {
    public static let avrcp = LayerKind("AVRCP", protocol: "avrcp")
}
