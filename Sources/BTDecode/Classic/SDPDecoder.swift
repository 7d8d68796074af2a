import BTCapture

/// What a link's SDP exchanges taught: the services a server described (so RFCOMM can name a
/// server channel's profile), and attribute lists still arriving in parts.
public struct SDPState: ProtocolState {
    public static var slot: Int { StateSlot.sdp.rawValue }

    /// A service record as a client learns it.
    public struct Service: Equatable {
        public var classes: [UInt16] = []
        public var name: String?
        public var psm: UInt16?
        public var rfcommChannel: UInt8?
        public var supportedFeatures: UInt16?
        /// A HID device's report descriptor (HIDDescriptorList, 0x0206), which HID reads reports by.
        public var hidDescriptor: [UInt8]?

        /// "Handsfree", "Audio Sink": the first named class.
        public var className: String? { classes.lazy.compactMap { SDPNames.serviceClasses[$0] }.first }
    }

    struct FlowKey: WordKey {
        var link: Session.LinkKey
        /// The response travels host to controller.
        var sent: Bool

        var hashWord: UInt64 { UInt64(link.packed) << 1 | (sent ? 1 : 0) }
    }

    struct Partial {
        var bytes: [UInt8]
        var responses: Int
        var firstFrame: Int
    }

    public internal(set) var services: [Session.LinkKey: [Service]] = [:]
    var partial: [FlowKey: Partial] = [:]
    /// Attribute lists are a few kilobytes; continuations past this are not one.
    static let maximumList = 1 << 20

    public init() {}

    /// The service a record tied to this RFCOMM server channel on the link, if SDP said.
    public func service(_ link: Session.LinkKey, rfcommChannel: UInt8) -> Service? {
        services[link]?.last { $0.rfcommChannel == rfcommChannel }
    }

    mutating func learn(_ service: Service, on link: Session.LinkKey) {
        var known = services[link, default: []]
        known.removeAll { $0.classes == service.classes && $0.rfcommChannel == service.rfcommChannel && $0.psm == service.psm }
        known.append(service)
        services[link] = known
    }

    public mutating func close(_ link: Session.LinkKey) -> [String] {
        var messages: [String] = []
        for (key, pending) in partial where key.link == link {
            messages.append("SDP attribute list started in packet \(pending.firstFrame) incomplete at disconnection: \(pending.bytes.count) bytes in \(pending.responses) responses")
            partial[key] = nil
        }
        services[link] = nil
        return messages
    }

    public mutating func finish() -> [SessionReport] {
        defer { partial.removeAll() }
        return partial.values.map {
            SessionReport(frameNumber: $0.firstFrame, severity: .warning,
                          message: "SDP attribute list incomplete at the end of the capture: \($0.bytes.count) bytes in \($0.responses) responses")
        }
    }
}

extension Session {
    public var sdp: SDPState { _read { yield self[SDPState.self] } _modify { yield &self[SDPState.self] } }
}

/// The Service Discovery Protocol (Core Vol 3, Part B, 4) on PSM 0x0001: every PDU, the data
/// elements of patterns and attribute lists, attribute lists reassembled across continuation
/// responses, and what the records say about the services' channels.
enum SDPDecoder {
    static let descriptor = ProtocolDescriptor(name: "SDP", fields: SDPFields.all, layers: [.sdp], state: SDPState.self,
                                               registrations: [.psm(0x0001, "SDP", decode)],
                                               valueNames: [(SDPFields.pdu, FieldValueNames.from(pduNames)),
                                                            (SDPFields.errorCode, FieldValueNames.from(errorNames))],
                                               conversation: SDPFields.conversation)

    static let pduNames: [UInt8: String] = [
        0x01: "Error Response", 0x02: "Service Search Request", 0x03: "Service Search Response",
        0x04: "Service Attribute Request", 0x05: "Service Attribute Response",
        0x06: "Service Search Attribute Request", 0x07: "Service Search Attribute Response",
    ]
    static let errorNames: [UInt16: String] = [
        0x0001: "Invalid/unsupported SDP version", 0x0002: "Invalid Service Record Handle", 0x0003: "Invalid request syntax",
        0x0004: "Invalid PDU Size", 0x0005: "Invalid Continuation State", 0x0006: "Insufficient Resources to satisfy Request",
    ]

    static func decode(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session, context: L2CAPContext) throws {
        var layer = packet.makeLayer(.sdp, over: c, showsDirection: true)
        defer { packet.append(taking: &layer) }

        let (pdu, pduAt) = try layer.reading(&c) { try $0.u8() }
        let name = pduNames[pdu]
        layer.add(SDPFields.pdu, .u8(pdu), named: name ?? "Unknown", at: pduAt)
        try layer.read(SDPFields.transaction, &c, as: UInt16.self, .bigEndian)
        let length = try layer.readCount(SDPFields.length, &c, as: UInt16.self, .bigEndian)
        layer.summary.set("\(name ?? "Unknown PDU \(Hex.u8(pdu))")")
        guard name != nil else {
            layer.addIssue(.warning, "Unknown SDP PDU \(Hex.u8(pdu))")
            return
        }
        if Int(length) != c.remaining {
            layer.addIssue(.error, "Parameter length \(length) but \(c.remaining) bytes follow")
        }
        var p = try c.cursor(min(Int(length), c.remaining))
        // Offsets of `p` are in the same index space as `c`.
        let flow = SDPState.FlowKey(link: context.link, sent: pdu & 1 == 1 ? !context.sent : context.sent)

        switch pdu {
        case 0x01:
            let (code, codeAt) = try layer.reading(&p) { try $0.u16be() }
            let codeName = errorNames[code] ?? "Reserved"
            layer.add(SDPFields.errorCode, .u16(code), named: codeName, at: codeAt)
            layer.summary += " - \(codeName) (\(hex: code))"
            layer.addIssue(.warning, "SDP error: \(codeName) (\(Hex.u16(code)))")
        case 0x02, 0x06:
            let pattern = try element(&p, &layer, "service search pattern")
            let uuids = pattern.elements.compactMap(\.uuid)
            for item in pattern.elements { if let uuid = item.uuid { layer.add(SDPFields.uuid, .uuid(uuid), describe(uuid), at: layer.range(of: item)) } }
            layer.summary += " - \(uuids.map { SDPNames.name($0) ?? $0.description }.joined(separator: ", "))"
            if pdu == 0x02 {
                try layer.readCount(SDPFields.maxRecords, &p, as: UInt16.self, .bigEndian)
            } else {
                try layer.readCount(SDPFields.maxBytes, &p, as: UInt16.self, .bigEndian)
                try attributeIDList(&p, &layer)
            }
            try continuation(&p, &layer, request: true)
            // A new request (no continuation) ends whatever the responder was still sending.
            session.sdp.partial[SDPState.FlowKey(link: context.link, sent: !context.sent)] = nil
        case 0x04:
            let handle = try layer.read(SDPFields.recordHandle, &p, as: UInt32.self, .bigEndian)
            try layer.readCount(SDPFields.maxBytes, &p, as: UInt16.self, .bigEndian)
            layer.summary += " - Record \(hex: handle)"
            try attributeIDList(&p, &layer)
            try continuation(&p, &layer, request: true)
            session.sdp.partial[SDPState.FlowKey(link: context.link, sent: !context.sent)] = nil
        case 0x03:
            let total = try layer.readCount(SDPFields.totalRecords, &p, as: UInt16.self, .bigEndian)
            let current = try layer.readCount(SDPFields.currentRecords, &p, as: UInt16.self, .bigEndian)
            var handles: [String] = []
            for _ in 0 ..< current {
                let handle = try layer.read(SDPFields.recordHandle, &p, as: UInt32.self, .bigEndian)
                handles.append(Hex.format(handle, width: 8))
            }
            layer.summary += " - \(current) of \(total) record\(total == 1 ? "" : "s")"
            if !handles.isEmpty { layer.summary += ": \(handles.joined(separator: ", "))" }
            try continuation(&p, &layer, request: false)
        case 0x05, 0x07:
            let count = try layer.readCount(SDPFields.byteCount, &p, as: UInt16.self, .bigEndian)
            let part = try p.slice(Int(count))
            let more = try continuation(&p, &layer, request: false)
            var pending = session.sdp.partial.removeValue(forKey: flow) ?? SDPState.Partial(bytes: [], responses: 0, firstFrame: packet.frame.number)
            pending.bytes += part
            pending.responses += 1
            guard pending.bytes.count <= SDPState.maximumList else {
                layer.summary += " - \(count) bytes, dropped"
                layer.addIssue(.error, "SDP attribute list started in packet \(pending.firstFrame) grew past \(SDPState.maximumList) bytes: dropped")
                return
            }
            if more {
                session.sdp.partial[flow] = pending
                layer.summary += " - \(count) bytes, continued"
                if pending.responses > 1 { layer.summary += " (part \(pending.responses), started in packet \(pending.firstFrame))" }
                return
            }
            if pending.responses > 1 {
                layer.add(SDPFields.fragments, .count(pending.responses))
                packet.reassembledPDU = pending.bytes[...]
            }
            // One response's list is read where it lies in the packet, so its fields have their
            // bytes; a list joined from several is a buffer of its own, and they have none.
            let joined = pending.responses > 1
            var list = joined ? ByteCursor(pending.bytes[...]) : ByteCursor(part)
            let top: SDPElement
            do {
                top = try SDPElement.read(&list)
            } catch {
                layer.addIssue(.error, "Attribute list: \(describe(error))")
                return
            }
            let records = pdu == 0x07 ? top.elements : [top]
            if pdu == 0x07 { layer.add(SDPFields.records, .count(records.count), at: joined ? nil : layer.range(at: top.span.lowerBound, count: top.span.count)) }
            var described: [String] = []
            let firstRecordField = layer.fields.count
            for record in records {
                let service = decodeRecord(record, &layer)
                if service.psm != nil || service.rfcommChannel != nil || !service.classes.isEmpty {
                    session.sdp.learn(service, on: context.link)
                }
                described.append(summary(service))
            }
            // The joined list's bytes are not the layer's: its fields have none.
            if joined { layer.forgetRanges(from: firstRecordField) }
            if pdu == 0x07 {
                layer.summary += " - \(records.count) record\(records.count == 1 ? "" : "s")"
                if !described.isEmpty { layer.summary += ": \(described.joined(separator: ", "))" }
            } else if let first = described.first {
                layer.summary += " - \(first)"
            }
            if pending.responses > 1 { layer.summary += " - reassembled from \(pending.responses) responses" }
        default:
            break
        }
        if !p.isAtEnd { layer.addIssue(.warning, "\(p.remaining) bytes after the parameters") }
    }

    // MARK: Parameters

    static func element(_ c: inout ByteCursor, _ layer: inout Layer, _ what: String) throws -> SDPElement {
        do {
            return try SDPElement.read(&c)
        } catch {
            throw DecodeError.malformed("SDP \(what): \(describe(error))")
        }
    }

    /// A request's attribute IDs and ranges: fields, and the summary's "Attributes: ...".
    static func attributeIDList(_ c: inout ByteCursor, _ layer: inout Layer) throws {
        let list = try element(&c, &layer, "attribute ID list")
        var parts: [String] = []
        for item in list.elements {
            guard case .unsigned(let v, let size) = item.value else { continue }
            if size == 4 {
                let low = UInt16(v >> 16), high = UInt16(v & 0xFFFF)
                layer.add(SDPFields.attributeRange, .u32(UInt32(v)), "\(Hex.u16(low))-\(Hex.u16(high))", at: layer.range(of: item))
                parts.append("\(Hex.u16(low))-\(Hex.u16(high))")
            } else {
                let id = UInt16(truncatingIfNeeded: v)
                layer.add(SDPFields.attributeID, .u16(id), named: SDPNames.attributes[id], at: layer.range(of: item))
                parts.append(SDPNames.attributes[id] ?? Hex.u16(id))
            }
        }
        layer.summary += " - Attributes: \(parts.joined(separator: ", "))"
    }

    /// The continuation state; returns whether more of the response follows.
    @discardableResult
    static func continuation(_ c: inout ByteCursor, _ layer: inout Layer, request: Bool) throws -> Bool {
        let count = try c.u8()
        guard count <= 16 else {
            layer.addIssue(.error, "Continuation state of \(count) bytes (at most 16)")
            return false
        }
        let state = try c.slice(Int(count))
        if count > 0 {
            layer.add(SDPFields.continuation, .bytes(state), at: layer.range(at: state.startIndex, count: state.count))
            if request { layer.summary += " - Continuation" }
        }
        return count > 0
    }

    // MARK: Records

    /// One record's attributes onto the layer (one field per attribute, value described), and
    /// what it says about the service.
    static func decodeRecord(_ record: SDPElement, _ layer: inout Layer) -> SDPState.Service {
        var service = SDPState.Service()
        let items = record.elements
        // Classes first: some attribute IDs mean something only for a class.
        for pair in stride(from: 0, to: items.count - 1, by: 2) where items[pair].integer == 0x0001 {
            service.classes = items[pair + 1].elements.compactMap { $0.uuid?.uuid16 }
        }
        var index = 0
        while index + 1 < items.count {
            defer { index += 2 }
            guard let raw = items[index].integer, raw <= 0xFFFF else {
                layer.addIssue(.warning, "Attribute list: an attribute ID that is not a 16-bit integer")
                continue
            }
            let id = UInt16(raw), value = items[index + 1]
            let name = SDPNames.attribute(id, serviceClasses: service.classes) ?? "Attribute"
            var text = value.describe(describeName)
            switch id {
            case 0x0001:
                for item in value.elements { if let uuid = item.uuid { layer.add(SDPFields.serviceClass, .uuid(uuid), describe(uuid), at: layer.range(of: item)) } }
                text = value.elements.map { $0.uuid.map(describe) ?? $0.describe(describeName) }.joined(separator: ", ")
            case 0x0004, 0x000D:
                let stacks = id == 0x0004 ? [value] : value.elements
                text = stacks.map { protocolStack($0, &layer, &service) }.joined(separator: "; ")
            case 0x0009:
                var profiles: [String] = []
                for entry in value.elements {
                    guard let first = entry.elements.first, let uuid = first.uuid else { continue }
                    layer.add(SDPFields.profile, .uuid(uuid), describe(uuid), at: layer.range(of: first))
                    var profile = SDPNames.name(uuid) ?? uuid.description
                    if let second = entry.elements.dropFirst().first, let version = second.integer {
                        layer.add(SDPFields.profileVersion, .u16(UInt16(truncatingIfNeeded: version)), "\(version >> 8).\(version & 0xFF)",
                                  at: layer.range(of: second))
                        profile += " \(version >> 8).\(version & 0xFF)"
                    }
                    profiles.append(profile)
                }
                text = profiles.joined(separator: ", ")
            case 0x0100:
                if let string = value.string {
                    service.name = string
                    layer.add(SDPFields.serviceName, .text(string), at: layer.range(of: value))
                }
            case 0x0206 where service.classes.contains(0x1124):
                // HIDDescriptorList: (type, descriptor) pairs; type 0x22 is the report descriptor.
                for entry in value.elements where entry.elements.first?.integer == 0x22 {
                    let parts = entry.elements
                    guard parts.count >= 2, case .text(let bytes) = parts[1].value else { continue }
                    service.hidDescriptor = Array(bytes)
                    if let parsed = try? HIDReportDescriptor(bytes) {
                        text = "Report descriptor, \(bytes.count) bytes: \(parsed.inputSummary)"
                    } else {
                        text = "Report descriptor, \(bytes.count) bytes (malformed)"
                        layer.addIssue(.warning, "HID report descriptor of \(bytes.count) bytes is malformed")
                    }
                }
            case 0x0311:
                if let features = value.integer {
                    let bits = UInt16(truncatingIfNeeded: features)
                    service.supportedFeatures = bits
                    let names = featureNames(bits, classes: service.classes)
                    layer.add(SDPFields.supportedFeatures, .u16(bits), names.isEmpty ? nil : "\(Hex.u16(bits)) (\(names.joined(separator: ", ")))",
                              at: layer.range(of: value))
                    if !names.isEmpty { text += " (\(names.joined(separator: ", ")))" }
                }
            default:
                break
            }
            // The attribute is its ID and its value.
            layer.add(SDPFields.attribute, .u16(id), "\(name) (\(Hex.u16(id))): \(text)",
                      at: layer.range(at: items[index].span.lowerBound, count: value.span.upperBound - items[index].span.lowerBound))
        }
        if items.count % 2 == 1 { layer.addIssue(.warning, "Attribute list: an attribute ID without a value") }
        return service
    }

    /// One protocol descriptor list: "L2CAP (PSM 0x0003), RFCOMM (Channel 1)".
    static func protocolStack(_ stack: SDPElement, _ layer: inout Layer, _ service: inout SDPState.Service) -> String {
        var parts: [String] = []
        for descriptor in stack.elements {
            let elements = descriptor.elements
            guard let first = elements.first, let uuid = first.uuid else {
                parts.append(descriptor.describe(describeName))
                continue
            }
            layer.add(SDPFields.protocolUUID, .uuid(uuid), describe(uuid), at: layer.range(of: first))
            var text = SDPNames.name(uuid) ?? uuid.description
            let second = elements.dropFirst().first
            let parameter = second?.integer
            switch uuid.uuid16 {
            case 0x0100?:
                if let psm = parameter {
                    let value = UInt16(truncatingIfNeeded: psm)
                    layer.add(SDPFields.psm, .u16(value), at: second.map { layer.range(of: $0) })
                    // The stack's first PSM is the service's; later ones (AVDTP's) are for the layer above.
                    if service.psm == nil { service.psm = value }
                    text += " (PSM \(Hex.u16(value)))"
                }
            case 0x0003?:
                if let channel = parameter {
                    let value = UInt8(truncatingIfNeeded: channel)
                    layer.add(SDPFields.rfcommChannel, .count(Int(value)), at: second.map { layer.range(of: $0) })
                    service.rfcommChannel = value
                    text += " (Channel \(value))"
                }
            default:
                if let version = parameter { text += " (\(Hex.format(version, width: 4)))" }
            }
            parts.append(text)
        }
        return parts.joined(separator: ", ")
    }

    /// SupportedFeatures bits by the record's class (the profiles' SDP records).
    static func featureNames(_ bits: UInt16, classes: [UInt16]) -> [String] {
        let table: [String]
        switch classes.first {
        case 0x111E?: table = ["EC/NR", "Call waiting or three-way calling", "CLI presentation", "Voice recognition", "Remote volume control",
                               "Wide band speech", "Enhanced Voice Recognition Status", "Voice Recognition Text", "Super Wide Band"]
        case 0x111F?: table = ["Three-way calling", "EC/NR", "Voice recognition", "In-band ring tone", "Attach a number to a voice tag",
                               "Wide band speech", "Enhanced Voice Recognition Status", "Voice Recognition Text", "Super Wide Band"]
        case 0x110B?: table = ["Headphone", "Speaker", "Recorder", "Amplifier"]
        case 0x110A?: table = ["Player", "Microphone", "Tuner", "Mixer"]
        case 0x110C?: table = ["Category 1", "Category 2", "Category 3", "Category 4", "Player Application Settings", "Group Navigation",
                               "Browsing", "Multiple Media Player Applications", "Cover Art"]
        case 0x110E?, 0x110F?: table = ["Category 1", "Category 2", "Category 3", "Category 4", "", "", "Browsing",
                                        "Cover Art GetImageProperties", "Cover Art GetImage", "Cover Art GetLinkedThumbnail"]
        default: return []
        }
        return table.indices.filter { bits & (1 << $0) != 0 && !table[$0].isEmpty }.map { table[$0] }
    }

    /// How a service reads in a summary: "Handsfree (RFCOMM 1)", "Audio Sink (PSM 0x0019)".
    static func summary(_ service: SDPState.Service) -> String {
        var text = service.className ?? service.name ?? "Record"
        if let channel = service.rfcommChannel {
            text += " (RFCOMM \(channel))"
        } else if let psm = service.psm {
            text += " (PSM \(Hex.u16(psm)))"
        }
        return text
    }

    static func describe(_ uuid: BTUUID) -> String {
        SDPNames.name(uuid).map { "\($0) (\(uuid.uuid16.map(Hex.u16) ?? uuid.description))" } ?? uuid.description
    }

    static let describeName: (BTUUID) -> String? = SDPNames.name

    static func describe(_ error: Error) -> String {
        switch error {
        case SDPElement.ParseError.badSize(let type, let size): return "data element type \(type) cannot have size index \(size)"
        case SDPElement.ParseError.tooDeep: return "data elements nested deeper than \(SDPElement.maximumDepth)"
        case SDPElement.ParseError.reservedType(let type): return "reserved data element type \(type)"
        case DecodeError.truncated(let needed, let available, _): return "a data element needs \(needed) bytes, \(available) left"
        default: return "\(error)"
        }
    }
}

/// The layers this decoder makes.
extension LayerKind {
    public static let sdp = LayerKind("SDP", protocol: "sdp")
}

extension Layer {
    /// The bytes of an SDP data element's value (its data, after descriptor and size), read
    /// from the layer's cursor.
    func range(of element: SDPElement) -> Range<Int> { range(at: element.dataStart, count: element.data.count) }
}
