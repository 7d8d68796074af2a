import BTCapture

/// Reads AVRCP parameters into a layer: each field with the bytes it came from, unless the
/// parameters were joined from several packets (then they have no place in this frame).
struct AVRCPReader {
    var c: ByteCursor
    var layer: Layer
    let ranged: Bool

    var isAtEnd: Bool { c.isAtEnd }
    var remaining: Int { c.remaining }

    private func range(from start: Int) -> Range<Int>? { ranged ? layer.range(at: start, count: c.index - start) : nil }

    mutating func u8(_ field: FieldDefinition, _ display: (UInt8) -> String? = { _ in nil }) throws -> UInt8 {
        let start = c.index, v = try c.u8()
        layer.add(field, .u8(v), display(v), at: range(from: start))
        return v
    }

    mutating func count8(_ field: FieldDefinition) throws -> Int {
        let start = c.index, v = try c.u8()
        layer.add(field, .count(Int(v)), at: range(from: start))
        return Int(v)
    }

    mutating func u16(_ field: FieldDefinition, _ display: (UInt16) -> String? = { _ in nil }) throws -> UInt16 {
        let start = c.index, v = try c.u16be()
        layer.add(field, .u16(v), display(v), at: range(from: start))
        return v
    }

    mutating func count16(_ field: FieldDefinition) throws -> Int {
        let start = c.index, v = try c.u16be()
        layer.add(field, .count(Int(v)), at: range(from: start))
        return Int(v)
    }

    mutating func u32(_ field: FieldDefinition, _ display: (UInt32) -> String? = { _ in nil }) throws -> UInt32 {
        let start = c.index, v = try c.u32be()
        layer.add(field, .u32(v), display(v), at: range(from: start))
        return v
    }

    mutating func count32(_ field: FieldDefinition) throws -> UInt32 {
        let start = c.index, v = try c.u32be()
        layer.add(field, .count(Int(v)), at: range(from: start))
        return v
    }

    mutating func u64(_ field: FieldDefinition) throws -> UInt64 {
        let start = c.index, v = try c.u64be()
        layer.add(field, .unsigned(v, width: 16), at: range(from: start))
        return v
    }

    /// A string of `length` bytes in `charset` (IANA MIBenum; 0x006A is UTF-8).
    mutating func text(_ field: FieldDefinition, length: Int, charset: UInt16) throws -> String {
        let start = c.index
        let bytes = try c.slice(length)
        let value = charset == 0x006A ? String(decoding: bytes, as: UTF8.self) : ReadableText.decode(bytes)
        layer.add(field, .text(value), at: range(from: start))
        return value
    }

    mutating func rest(_ field: FieldDefinition) {
        guard !c.isAtEnd else { return }
        let start = c.index
        layer.add(field, .bytes(c.rest()), at: range(from: start))
    }

    /// Attribute entries of Get Element/Item Attributes responses: ID, character set, length, value.
    mutating func attributeValues(_ count: Int) throws -> [String] {
        var shown: [String] = []
        for _ in 0 ..< count {
            let id = try u32(AVRCPFields.attribute) { AVRCPNames.named(AVRCPNames.attributes, $0, Hex.format($0, width: 8)) }
            let charset = try u16(AVRCPFields.characterSet) { $0 == 0x006A ? "UTF-8 (0x006A)" : nil }
            let length = Int(try c.u16be())
            let value = try text(AVRCPFields.value, length: length, charset: charset)
            let name = AVRCPNames.attributes[id] ?? "Attribute \(Hex.format(id, width: 8))"
            shown.append(id == 0x7 ? "\(name) \(AVRCPDecoder.playingTime(value))" : "\(name) \"\(ReadableText.clipped(value))\"")
        }
        return shown
    }

    mutating func status() throws -> UInt8 {
        let status = try u8(AVRCPFields.status) { AVRCPNames.named(AVRCPNames.statuses, $0, Hex.u8($0)) }
        let name = AVRCPNames.statuses[status] ?? "Status \(Hex.u8(status))"
        layer.summary += " - \(name)"
        if status != 0x04 { layer.addIssue(.warning, "AVRCP: \(name) (\(Hex.u8(status)))") }
        return status
    }
}

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
        var reader = AVRCPReader(c: c, layer: packet.makeLayer(.avrcp, over: c, showsDirection: true), ranged: true)
        defer { packet.append(taking: &reader.layer) }
        let ctype = try reader.u8(AVRCPFields.ctype) { AVRCPNames.named(AVRCPNames.ctypes, $0 & 0x0F, Hex.u8($0 & 0x0F)) } & 0x0F
        let subunitByte = try reader.c.u8()
        let subunitType = subunitByte >> 3
        reader.layer.add(AVRCPFields.subunitType, .u8(subunitType), AVRCPNames.named(AVRCPNames.subunitTypes, subunitType, Hex.u8(subunitType)),
                         at: reader.layer.range(at: reader.c.index - 1))
        reader.layer.add(AVRCPFields.subunitID, .count(Int(subunitByte & 0x07)), at: reader.layer.range(at: reader.c.index - 1))
        let opcode = try reader.u8(AVRCPFields.opcode) { AVRCPNames.named(AVRCPNames.opcodes, $0, Hex.u8($0)) }
        let ctypeName = AVRCPNames.ctypes[ctype] ?? "ctype \(Hex.u8(ctype))"
        if ctype == 0x8 || ctype == 0xA {
            reader.layer.addIssue(.warning, "AVRCP \(AVRCPNames.opcodes[opcode] ?? "command") \(ctypeName.lowercased())")
        }

        switch opcode {
        case 0x7C:
            let stateByte = try reader.c.u8()
            let operation = stateByte & 0x7F, released = stateByte & 0x80 != 0
            reader.layer.add(AVRCPFields.operation, .u8(operation), AVRCPNames.named(AVRCPNames.operations, operation, Hex.u8(operation)),
                             at: reader.layer.range(at: reader.c.index - 1))
            reader.layer.add(AVRCPFields.released, .bool(released), released ? "Released" : "Pressed", at: reader.layer.range(at: reader.c.index - 1))
            let length = Int(try reader.c.u8())
            var name = AVRCPNames.operations[operation] ?? "Operation \(Hex.u8(operation))"
            if operation == 0x7E, length >= 5 {
                let company = try reader.c.u24be()
                reader.layer.add(AVRCPFields.companyID, .unsigned(UInt64(company), width: 6), at: reader.layer.range(at: reader.c.index - 3, count: 3))
                let id = try reader.u16(AVRCPFields.vendorUnique) { $0 == 0 ? "Next Group" : $0 == 1 ? "Previous Group" : nil }
                if company == bluetoothSIG, id <= 1 { name = id == 0 ? "Next Group" : "Previous Group" }
                _ = try reader.c.slice(length - 5)
            } else {
                let data = try reader.c.slice(length)
                if !data.isEmpty { reader.layer.add(AVRCPFields.parameters, .bytes(data), at: reader.layer.range(at: reader.c.index - length, count: length)) }
            }
            reader.layer.summary.set("Pass Through: \(ctypeName) - \(name) \(released ? "Released" : "Pressed")")
        case 0x00:
            try vendorDependent(&reader, ctype: ctype, ctypeName: ctypeName, packet: &packet, session: &session, context: context)
        case 0x30:
            reader.layer.summary.set("Unit Info: \(ctypeName)")
            if reader.remaining >= 5 {
                _ = try reader.c.u8()
                let unit = try reader.c.u8()
                let company = try reader.c.u24be()
                reader.layer.add(AVRCPFields.companyID, .unsigned(UInt64(company), width: 6), at: reader.layer.range(at: reader.c.index - 3, count: 3))
                if ctype >= 0x8 {
                    reader.layer.summary += " - \(AVRCPNames.subunitTypes[unit >> 3] ?? "Unit type \(Hex.u8(unit >> 3))"), company \(Hex.format(company, width: 6))"
                }
            }
        case 0x31:
            reader.layer.summary.set("Subunit Info: \(ctypeName)")
            if reader.remaining >= 1 {
                let page = try reader.c.u8() >> 4
                var subunits: [String] = []
                while !reader.isAtEnd {
                    let entry = try reader.c.u8()
                    if entry != 0xFF, ctype >= 0x8 { subunits.append(AVRCPNames.subunitTypes[entry >> 3] ?? "Subunit \(Hex.u8(entry >> 3))") }
                }
                reader.layer.summary += " - page \(page)"
                if !subunits.isEmpty { reader.layer.summary += ": \(subunits.joined(separator: ", "))" }
            }
        default:
            reader.layer.summary.set("\(AVRCPNames.opcodes[opcode] ?? "Opcode \(Hex.u8(opcode))"): \(ctypeName)")
            reader.rest(AVRCPFields.parameters)
        }
        c = reader.c
    }

    // MARK: Vendor dependent

    static func vendorDependent(_ reader: inout AVRCPReader, ctype: UInt8, ctypeName: String, packet: inout Packet, session: inout Session,
                                context: AVCTPContext) throws {
        let company = try reader.c.u24be()
        reader.layer.add(AVRCPFields.companyID, .unsigned(UInt64(company), width: 6), company == bluetoothSIG ? "Bluetooth SIG (0x001958)" : nil,
                         at: reader.layer.range(at: reader.c.index - 3, count: 3))
        guard company == bluetoothSIG else {
            reader.layer.summary.set("Vendor Dependent: \(ctypeName) - company \(Hex.format(company, width: 6))")
            reader.rest(AVRCPFields.parameters)
            return
        }
        let pdu = try reader.u8(AVRCPFields.pdu) { AVRCPNames.named(AVRCPNames.pdus, $0, Hex.u8($0)) }
        let packetType = try reader.c.u8() & 0x03
        reader.layer.add(AVRCPFields.packetType, .count(Int(packetType)), AVCTPDecoder.packetTypes[Int(packetType)],
                         at: reader.layer.range(at: reader.c.index - 1))
        let length = try reader.count16(AVRCPFields.length)
        let pduName = AVRCPNames.pdus[pdu] ?? "PDU \(Hex.u8(pdu))"
        reader.layer.summary.set("\(pduName): \(ctypeName)")
        if AVRCPNames.pdus[pdu] == nil { reader.layer.addIssue(.warning, "Unknown AVRCP PDU \(Hex.u8(pdu))") }
        if length != reader.remaining {
            reader.layer.addIssue(.warning, "AVRCP parameter length \(length) but \(reader.remaining) bytes follow")
        }

        // A response in parts (AVRCP 1.6, 6.8): start, continue..., end, each asked for by the controller.
        let flow = AVCTPState.FlowKey(link: context.l2cap.link, sent: context.l2cap.sent, browsing: false)
        switch packetType {
        case 1:
            session.avctp.avrcpParts[flow] = .init(pdu: pdu, bytes: Array(reader.c.rest()), firstFrame: packet.frame.number, parts: 1)
            reader.layer.summary += " - part 1, more follow"
            return
        case 2, 3:
            guard var pending = session.avctp.avrcpParts.removeValue(forKey: flow), pending.pdu == pdu else {
                reader.layer.summary += " - part without a start"
                reader.layer.addIssue(.warning, "AVRCP \(packetType == 2 ? "continue" : "end") part without a start part")
                reader.rest(AVRCPFields.parameters)
                return
            }
            pending.bytes += reader.c.rest()
            pending.parts += 1
            guard pending.bytes.count <= AVCTPState.maximumMessage else {
                reader.layer.addIssue(.error, "AVRCP response started in packet \(pending.firstFrame) grew past \(AVCTPState.maximumMessage) bytes: dropped")
                return
            }
            if packetType == 2 {
                session.avctp.avrcpParts[flow] = pending
                reader.layer.summary += " - part \(pending.parts), more follow"
                return
            }
            reader.layer.add(AVRCPFields.joined, .count(pending.parts))
            var joined = AVRCPReader(c: ByteCursor(pending.bytes[...]), layer: reader.layer, ranged: false)
            try parameters(pdu, ctype: ctype, &joined)
            reader.layer = joined.layer
            reader.layer.summary += " (joined from \(pending.parts) parts)"
        default:
            try parameters(pdu, ctype: ctype, &reader)
        }
    }

    /// A PDU's parameters; `ctype` says command (below 0x8) or response.
    static func parameters(_ pdu: UInt8, ctype: UInt8, _ r: inout AVRCPReader) throws {
        let isResponse = ctype >= 0x8
        if ctype == 0xA || ctype == 0x8 {
            if ctype == 0xA, !r.isAtEnd { _ = try r.status() }
            r.rest(AVRCPFields.parameters)
            return
        }
        switch (pdu, isResponse) {
        case (0x10, false):
            let id = try r.u8(AVRCPFields.capability) { capabilityName($0) }
            r.layer.summary += " - \(capabilityName(id))"
        case (0x10, true):
            let id = try r.u8(AVRCPFields.capability) { capabilityName($0) }
            let count = try r.count8(AVRCPFields.capabilityCount)
            var listed: [String] = []
            for _ in 0 ..< count {
                if id == 0x02 {
                    let start = r.c.index, company = try r.c.u24be()
                    r.layer.add(AVRCPFields.companyID, .unsigned(UInt64(company), width: 6), at: r.ranged ? r.layer.range(at: start, count: 3) : nil)
                    listed.append(Hex.format(company, width: 6))
                } else {
                    let event = try r.u8(AVRCPFields.event) { AVRCPNames.named(AVRCPNames.events, $0, Hex.u8($0)) }
                    listed.append(AVRCPNames.events[event] ?? "Event \(Hex.u8(event))")
                }
            }
            r.layer.summary += " - \(capabilityName(id)): \(listed.joined(separator: ", "))"
        case (0x11, true):
            let count = try r.count8(AVRCPFields.attributeCount)
            var names: [String] = []
            for _ in 0 ..< count { names.append(settingName(try r.u8(AVRCPFields.settingAttribute) { settingDisplay($0) })) }
            r.layer.summary += " - \(names.joined(separator: ", "))"
        case (0x12, false):
            let id = try r.u8(AVRCPFields.settingAttribute) { settingDisplay($0) }
            r.layer.summary += " - \(settingName(id))"
        case (0x12, true):
            let count = try r.count8(AVRCPFields.attributeCount)
            var values: [String] = []
            for _ in 0 ..< count { values.append(Hex.u8(try r.u8(AVRCPFields.settingValue))) }
            r.layer.summary += " - values \(values.joined(separator: ", "))"
        case (0x13, false), (0x15, false):
            let count = try r.count8(AVRCPFields.attributeCount)
            var names: [String] = []
            for _ in 0 ..< count { names.append(settingName(try r.u8(AVRCPFields.settingAttribute) { settingDisplay($0) })) }
            r.layer.summary += " - \(names.joined(separator: ", "))"
        case (0x13, true), (0x14, false):
            let count = try r.count8(AVRCPFields.attributeCount)
            let pairs = try settingPairs(count, &r)
            r.layer.summary += " - \(pairs)"
        case (0x15, true), (0x16, true):
            let count = try r.count8(AVRCPFields.attributeCount)
            var texts: [String] = []
            for _ in 0 ..< count {
                let id = try r.u8(pdu == 0x15 ? AVRCPFields.settingAttribute : AVRCPFields.settingValue)
                let charset = try r.u16(AVRCPFields.characterSet)
                let length = Int(try r.c.u8())
                texts.append("\(Hex.u8(id)) \"\(ReadableText.clipped(try r.text(AVRCPFields.value, length: length, charset: charset)))\"")
            }
            r.layer.summary += " - \(texts.joined(separator: ", "))"
        case (0x16, false):
            let id = try r.u8(AVRCPFields.settingAttribute) { settingDisplay($0) }
            let count = try r.count8(AVRCPFields.attributeCount)
            for _ in 0 ..< count { _ = try r.u8(AVRCPFields.settingValue) }
            r.layer.summary += " - \(settingName(id))"
        case (0x17, false):
            let count = try r.count8(AVRCPFields.attributeCount)
            var sets: [String] = []
            for _ in 0 ..< count {
                let set = try r.u16(AVRCPFields.characterSet) { $0 == 0x006A ? "UTF-8 (0x006A)" : nil }
                let name = set == 0x006A ? "UTF-8" : Hex.u16(set)
                if !sets.contains(name) { sets.append(name) }
            }
            r.layer.summary += " - \(count) character set\(count == 1 ? "" : "s"): \(sets.prefix(6).joined(separator: ", "))\(sets.count > 6 ? "…" : "")"
        case (0x18, false):
            let status = try r.u8(AVRCPFields.batteryStatus) { AVRCPNames.batteryStatuses[safe: Int($0)] }
            r.layer.summary += " - \(AVRCPNames.batteryStatuses[safe: Int(status)] ?? "Battery \(Hex.u8(status))")"
        case (0x20, false):
            let identifier = try r.u64(AVRCPFields.identifier)
            let count = try r.count8(AVRCPFields.attributeCount)
            var names: [String] = []
            for _ in 0 ..< count {
                let id = try r.u32(AVRCPFields.attribute) { AVRCPNames.named(AVRCPNames.attributes, $0, Hex.format($0, width: 8)) }
                names.append(AVRCPNames.attributes[id] ?? Hex.format(id, width: 8))
            }
            r.layer.summary += identifier == 0 ? " - Playing" : " - Element \(Hex.format(identifier, width: 16))"
            r.layer.summary += count == 0 ? " - all attributes" : " - \(names.joined(separator: ", "))"
        case (0x20, true):
            let count = try r.count8(AVRCPFields.attributeCount)
            let values = try r.attributeValues(count)
            r.layer.summary += " - \(values.joined(separator: ", "))"
        case (0x30, true):
            let length = try r.count32(AVRCPFields.songLength)
            let position = try r.count32(AVRCPFields.songPosition)
            let status = try r.u8(AVRCPFields.playStatus) { AVRCPNames.named(AVRCPNames.playStatuses, $0, Hex.u8($0)) }
            r.layer.summary += " - \(AVRCPNames.playStatuses[status] ?? "Status \(Hex.u8(status))") \(milliseconds(position)) of \(milliseconds(length))"
        case (0x31, false):
            let event = try r.u8(AVRCPFields.event) { AVRCPNames.named(AVRCPNames.events, $0, Hex.u8($0)) }
            let interval = try r.count32(AVRCPFields.interval)
            r.layer.summary += " - \(AVRCPNames.events[event] ?? "Event \(Hex.u8(event))")"
            if event == 0x05 { r.layer.summary += " every \(interval) s" }
        case (0x31, true):
            let event = try r.u8(AVRCPFields.event) { AVRCPNames.named(AVRCPNames.events, $0, Hex.u8($0)) }
            r.layer.summary += " - \(AVRCPNames.events[event] ?? "Event \(Hex.u8(event))")"
            if let value = try eventValue(event, &r) { r.layer.summary += ": \(value)" }
        case (0x40, false), (0x41, false):
            let target = try r.u8(AVRCPFields.pdu) { AVRCPNames.named(AVRCPNames.pdus, $0, Hex.u8($0)) }
            r.layer.summary += " - \(AVRCPNames.pdus[target] ?? "PDU \(Hex.u8(target))")"
        case (0x50, _):
            let volume = try r.u8(AVRCPFields.volume) { percent($0) } & 0x7F
            r.layer.summary += " - \(percent(volume))"
        case (0x60, false):
            let player = try r.u16(AVRCPFields.playerID)
            r.layer.summary += " - player \(player)"
        case (0x74, false), (0x90, false):
            let scope = try r.u8(AVRCPFields.scope) { AVRCPNames.scopes[safe: Int($0)] }
            let uid = try r.u64(AVRCPFields.uid)
            _ = try r.u16(AVRCPFields.uidCounter)
            r.layer.summary += " - \(AVRCPNames.scopes[safe: Int(scope)] ?? "Scope \(scope)") UID \(Hex.format(uid, width: 16))"
        case (0x60, true), (0x74, true), (0x90, true):
            _ = try r.status()
        case (0x11, false), (0x30, false), (0x14, true), (0x17, true), (0x18, true):
            break // no parameters
        default:
            break
        }
        if !r.isAtEnd {
            r.layer.addIssue(.warning, "\(r.remaining) bytes after the \(AVRCPNames.pdus[pdu] ?? "PDU")'s parameters")
            r.rest(AVRCPFields.parameters)
        }
    }

    /// The value an INTERIM or CHANGED notification carries for its event.
    static func eventValue(_ event: UInt8, _ r: inout AVRCPReader) throws -> String? {
        switch event {
        case 0x01:
            let status = try r.u8(AVRCPFields.playStatus) { AVRCPNames.named(AVRCPNames.playStatuses, $0, Hex.u8($0)) }
            return AVRCPNames.playStatuses[status] ?? Hex.u8(status)
        case 0x02:
            let track = try r.u64(AVRCPFields.trackUID)
            return track == .max ? "no track selected" : track == 0 ? "track selected" : "track \(Hex.format(track, width: 16))"
        case 0x05:
            let position = try r.count32(AVRCPFields.songPosition)
            return milliseconds(position)
        case 0x06:
            let status = try r.u8(AVRCPFields.batteryStatus) { AVRCPNames.batteryStatuses[safe: Int($0)] }
            return AVRCPNames.batteryStatuses[safe: Int(status)] ?? Hex.u8(status)
        case 0x07:
            let status = try r.u8(AVRCPFields.systemStatus) { AVRCPNames.systemStatuses[safe: Int($0)] }
            return AVRCPNames.systemStatuses[safe: Int(status)] ?? Hex.u8(status)
        case 0x08:
            let count = try r.count8(AVRCPFields.attributeCount)
            return try settingPairs(count, &r)
        case 0x0B:
            let player = try r.u16(AVRCPFields.playerID)
            _ = try r.u16(AVRCPFields.uidCounter)
            return "player \(player)"
        case 0x0C:
            return "UID counter \(try r.u16(AVRCPFields.uidCounter))"
        case 0x0D:
            let volume = try r.u8(AVRCPFields.volume) { percent($0) } & 0x7F
            return percent(volume)
        default:
            return nil
        }
    }

    static func settingPairs(_ count: Int, _ r: inout AVRCPReader) throws -> String {
        var pairs: [String] = []
        for _ in 0 ..< count {
            let id = try r.u8(AVRCPFields.settingAttribute) { settingDisplay($0) }
            let value = try r.u8(AVRCPFields.settingValue) { AVRCPNames.settings[id]?.values[$0] }
            pairs.append("\(settingName(id)) \(AVRCPNames.settings[id]?.values[value] ?? Hex.u8(value))")
        }
        return pairs.joined(separator: ", ")
    }

    static func capabilityName(_ id: UInt8) -> String { id == 0x02 ? "Company ID" : id == 0x03 ? "Events Supported" : "Capability \(Hex.u8(id))" }
    static func settingName(_ id: UInt8) -> String { AVRCPNames.settings[id]?.name ?? "Setting \(Hex.u8(id))" }
    static func settingDisplay(_ id: UInt8) -> String { AVRCPNames.named(AVRCPNames.settings.mapValues(\.name), id, Hex.u8(id)) }
    /// Absolute volume 0-0x7F as a person reads it.
    static func percent(_ volume: UInt8) -> String { "\((Int(volume & 0x7F) * 100 + 63) / 127)%" }
    static func milliseconds(_ ms: UInt32) -> String {
        guard ms != .max else { return "unknown" }
        let seconds = Int(ms / 1000)
        return "\(seconds / 60):\(seconds % 60 < 10 ? "0" : "")\(seconds % 60)"
    }
    /// Playing Time is milliseconds written as decimal text.
    static func playingTime(_ text: String) -> String { UInt32(text).map(milliseconds) ?? "\"\(ReadableText.clipped(text))\"" }
}

/// The layers this decoder makes.
extension LayerKind {
    public static let avrcp = LayerKind("AVRCP", protocol: "avrcp")
}
