import BTCapture

/// Apple Notification Center Service fields (ANCS specification, Apple).
public enum ANCSFields {
    static let f = FieldDefinition.maker("ancs")
    public static let event = f("event", "Event ID", .uint8, "Notification Source: 0 Added, 1 Modified, 2 Removed")
    public static let flags = f("flags", "Event Flags", .uint8, "Bits: 0 Silent, 1 Important, 2 Pre-existing, 3 Positive Action, 4 Negative Action")
    public static let category = f("category", "Category ID", .uint8,
                                   "0 Other, 1 Incoming Call, 2 Missed Call, 3 Voicemail, 4 Social, 5 Schedule, 6 Email, 7 News, 8 Health and Fitness, 9 Business and Finance, 10 Location, 11 Entertainment")
    public static let categoryCount = f("category_count", "Category Count", .uint8, "Notifications in the category now")
    public static let uid = f("uid", "Notification UID", .uint32, "Names one notification in later commands")
    public static let command = f("command", "Command ID", .uint8, "0 Get Notification Attributes, 1 Get App Attributes, 2 Perform Notification Action")
    public static let attribute = f("attribute", "Attribute ID", .uint8,
                                    "0 App Identifier, 1 Title, 2 Subtitle, 3 Message, 4 Message Size, 5 Date, 6 Positive Action Label, 7 Negative Action Label")
    public static let maxLength = f("max_length", "Max Length", .uint16, "The most bytes of Title, Subtitle or Message wanted")
    public static let length = f("length", "Attribute Length", .uint16, "Bytes of the attribute's value")
    public static let value = f("value", "Attribute Value", .string, "An attribute's value as text")
    public static let appIdentifier = f("app_identifier", "App Identifier", .string, "The app's bundle identifier")
    public static let action = f("action", "Action ID", .uint8, "0 Positive, 1 Negative")
    public static let error = f("error", "Error", .uint8, "0xA0 Unknown Command, 0xA1 Invalid Command, 0xA2 Invalid Parameter, 0xA3 Action Failed")

    public static let all = [event, flags, category, categoryCount, uid, command, attribute, maxLength, length, value, appIdentifier, action, error]
}

/// Per link: the Get Notification/App Attributes command a Data Source answer replies to, and
/// the answer's bytes while it arrives over several notifications.
public struct ANCSState: ProtocolState {
    public static var slot: Int { StateSlot.ancs.rawValue }

    struct Request {
        var command: UInt8
        /// The attribute IDs asked for, in order: the answer is complete when each has come.
        var attributes: [UInt8]
    }

    struct Pending {
        var bytes: [UInt8]
        var parts: Int
        var firstFrame: Int
    }

    var requests: [Session.LinkKey: Request] = [:]
    var pending: [Session.LinkKey: Pending] = [:]
    /// An answer is a few kilobytes (the client caps Title, Subtitle and Message); it is parsed
    /// again as each part arrives, so a hostile one is cut at this size, not left to grow.
    static let maximumAnswer = 1 << 16

    public init() {}

    public mutating func close(_ link: Session.LinkKey) -> [String] {
        var messages: [String] = []
        if let pending = pending[link] {
            messages.append("ANCS Data Source answer started in packet \(pending.firstFrame) incomplete at disconnection (\(pending.bytes.count) bytes in \(pending.parts) notifications)")
        }
        requests[link] = nil
        pending[link] = nil
        return messages
    }

    public mutating func finish() -> [SessionReport] {
        defer { pending.removeAll() }
        return pending.values.map {
            SessionReport(frameNumber: $0.firstFrame, severity: .warning,
                          message: "ANCS Data Source answer incomplete at the end of the capture: \($0.bytes.count) bytes in \($0.parts) notifications")
        }
    }
}

extension Session {
    public var ancs: ANCSState { _read { yield self[ANCSState.self] } _modify { yield &self[ANCSState.self] } }
}

/// ANCS (service 7905F431-B5CE-4E99-A40F-4B1E122D00D0): Notification Source events, Control
/// Point commands and errors, and Data Source answers joined across notifications, once GATT
/// discovery has shown the characteristics.
enum ANCSDecoder {
    static let notificationSource = BTUUID("9FBF120D-6301-42D9-8C58-25E699A21DBD")!
    static let controlPoint = BTUUID("69D1D8F3-45E1-49A8-9821-9BBDFDAAD9D9")!
    static let dataSource = BTUUID("22EAC6E9-24D6-4BB5-BE44-B36ACE7C7BFB")!

    static let descriptor = ProtocolDescriptor(name: "ANCS", fields: ANCSFields.all, layers: [.ancs], state: ANCSState.self,
                                               registrations: [.gattCharacteristic(notificationSource, decode),
                                                               .gattCharacteristic(controlPoint, decode),
                                                               .gattCharacteristic(dataSource, decode)],
                                               values: [ANCSFields.value.name, ANCSFields.appIdentifier.name])

    static let events = ["Added", "Modified", "Removed"]
    static let flagNames = ["Silent", "Important", "Pre-existing", "Positive Action", "Negative Action"]
    static let categories = ["Other", "Incoming Call", "Missed Call", "Voicemail", "Social", "Schedule", "Email", "News",
                             "Health and Fitness", "Business and Finance", "Location", "Entertainment"]
    static let commands = ["Get Notification Attributes", "Get App Attributes", "Perform Notification Action"]
    static let attributes = ["App Identifier", "Title", "Subtitle", "Message", "Message Size", "Date", "Positive Action Label",
                             "Negative Action Label"]
    static let errors: [UInt8: String] = [0xA0: "Unknown Command", 0xA1: "Invalid Command", 0xA2: "Invalid Parameter", 0xA3: "Action Failed"]

    static func decode(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session, context: GATTValueContext) throws {
        if context.opcode == 0x01 {
            session.ancs.requests[context.l2cap.link] = nil
            return try GATTProfileError.report(&c, &packet, layer: .ancs, errors, field: ANCSFields.error)
        }
        var layer = packet.makeLayer(.ancs, over: c, showsDirection: true)
        defer { packet.append(taking: &layer) }
        switch context.characteristic {
        case notificationSource: try notification(&c, &layer)
        case controlPoint: try command(&c, &layer, &session, context)
        default: try answer(&c, &layer, &packet, &session, context)
        }
    }

    /// Notification Source: "Notification Added - Incoming Call (1 in category) - UID 0x00000012".
    static func notification(_ c: inout ByteCursor, _ layer: inout Layer) throws {
        let event = try layer.read(ANCSFields.event, &c, as: UInt8.self, display: { event in events[safe: Int(event)] })
        let (flags, flagsAt) = try layer.reading(&c) { try $0.u8() }
        let set = flagNames.indices.filter { flags >> $0 & 1 == 1 }.map { flagNames[$0] }
        layer.add(ANCSFields.flags, .u8(flags), set.isEmpty ? "none" : set.joined(separator: ", "), at: flagsAt)
        let category = try layer.readCount(ANCSFields.category, &c, as: UInt8.self, display: { category in categories[safe: Int(category)] })
        let count = try layer.readCount(ANCSFields.categoryCount, &c, as: UInt8.self)
        let uid = try layer.read(ANCSFields.uid, &c, as: UInt32.self)
        layer.summary.set("Notification \(events[safe: Int(event)] ?? "Event \(event)") - \(categories[safe: Int(category)] ?? "Category \(category)") (\(count) in category) - UID \(hex: uid)")
        if !set.isEmpty { layer.summary += " - \(set.joined(separator: ", "))" }
        if Int(event) >= events.count { layer.addIssue(.warning, "Reserved ANCS event \(event)") }
    }

    /// Control Point writes: which notification or app, and which attributes (with their limits).
    static func command(_ c: inout ByteCursor, _ layer: inout Layer, _ session: inout Session, _ context: GATTValueContext) throws {
        let (id, idAt) = try layer.reading(&c) { try $0.u8() }
        let name = commands[safe: Int(id)] ?? "Reserved Command \(id)"
        layer.add(ANCSFields.command, .count(Int(id)), name, at: idAt)
        layer.summary.set("\(name)")
        switch id {
        case 0:
            let uid = try layer.read(ANCSFields.uid, &c, as: UInt32.self)
            var asked: [UInt8] = [], shown: [String] = []
            while !c.isAtEnd {
                let attribute = try layer.readCount(ANCSFields.attribute, &c, as: UInt8.self, display: { attribute in attributes[safe: Int(attribute)] })
                var text = attributes[safe: Int(attribute)] ?? "Attribute \(attribute)"
                if (1 ... 3).contains(attribute) {
                    let max = try layer.readCount(ANCSFields.maxLength, &c, as: UInt16.self)
                    text += " (\(max))"
                }
                asked.append(attribute)
                shown.append(text)
            }
            layer.summary += " - UID \(hex: uid) - \(shown.joined(separator: ", "))"
            session.ancs.requests[context.l2cap.link] = .init(command: 0, attributes: asked)
            session.ancs.pending[context.l2cap.link] = nil
        case 1:
            let app = try appIdentifier(&c, &layer)
            var asked: [UInt8] = []
            while !c.isAtEnd {
                let attribute = try layer.readCount(ANCSFields.attribute, &c, as: UInt8.self, display: { attribute in attribute == 0 ? "Display Name" : nil })
                asked.append(attribute)
            }
            layer.summary += " - \(app)"
            session.ancs.requests[context.l2cap.link] = .init(command: 1, attributes: asked)
            session.ancs.pending[context.l2cap.link] = nil
        case 2:
            let uid = try layer.read(ANCSFields.uid, &c, as: UInt32.self)
            let action = try layer.readCount(ANCSFields.action, &c, as: UInt8.self, display: { action in action == 0 ? "Positive" : action == 1 ? "Negative" : nil })
            layer.summary += " - UID \(hex: uid) - \(action == 0 ? "Positive" : action == 1 ? "Negative" : "Action \(action)")"
        default:
            layer.addIssue(.warning, "Reserved ANCS command \(id)")
            _ = c.rest()
        }
    }

    static func appIdentifier(_ c: inout ByteCursor, _ layer: inout Layer) throws -> String {
        let start = c.index
        guard let end = c.bytes[c.index...].firstIndex(of: 0) else {
            throw DecodeError.malformed("App Identifier without its terminating NUL")
        }
        let bytes = try c.slice(end - start)
        _ = try c.u8()
        let app = String(decoding: bytes, as: UTF8.self)
        layer.add(ANCSFields.appIdentifier, .text(app), at: layer.range(at: start, count: end - start + 1))
        return app
    }

    /// Data Source: the attributes asked for, joined across notifications until each has come.
    static func answer(_ c: inout ByteCursor, _ layer: inout Layer, _ packet: inout Packet, _ session: inout Session,
                       _ context: GATTValueContext) throws {
        let link = context.l2cap.link
        var pending = session.ancs.pending.removeValue(forKey: link) ?? .init(bytes: [], parts: 0, firstFrame: packet.frame.number)
        let partStart = c.index
        pending.bytes += c.rest()
        pending.parts += 1
        guard pending.bytes.count <= ANCSState.maximumAnswer else {
            layer.summary.set("Data Source: answer dropped")
            layer.addIssue(.error, "ANCS Data Source answer started in packet \(pending.firstFrame) grew past \(ANCSState.maximumAnswer) bytes: dropped")
            return
        }
        let request = session.ancs.requests[link]
        // Parse what has come; when an attribute is cut short, or the ones asked for have not all come, wait.
        var reader = ByteCursor(pending.bytes[...])
        // Each field with its bytes in the answer; they are this packet's when the answer came whole.
        var fields: [(FieldDefinition, FieldValue, String?, Range<Int>)] = []
        var from = 0
        func since() -> Range<Int> {
            defer { from = reader.index }
            return from ..< reader.index
        }
        var shown: [String] = []
        var complete = false
        parse: do {
            guard let command = try? reader.u8() else { break parse }
            fields.append((ANCSFields.command, .count(Int(command)), commands[safe: Int(command)], since()))
            var subject: String
            if command == 1 {
                guard let end = reader.bytes[reader.index...].firstIndex(of: 0) else { break parse }
                let app = String(decoding: try reader.slice(end - reader.index), as: UTF8.self)
                _ = try reader.u8()
                fields.append((ANCSFields.appIdentifier, .text(app), nil, since()))
                subject = app
            } else {
                guard let uid = try? reader.u32() else { break parse }
                fields.append((ANCSFields.uid, .u32(uid), nil, since()))
                subject = "UID \(Hex.format(uid, width: 8))"
            }
            var remaining = request?.command == command ? request!.attributes : nil
            while !reader.isAtEnd {
                guard reader.remaining >= 3 else { break parse }
                let attribute = try reader.u8()
                let attributeRange = since()
                let length = Int(try reader.u16())
                let lengthRange = since()
                guard reader.remaining >= length else { break parse }
                let value = try reader.slice(length)
                let text = String(decoding: value, as: UTF8.self)
                let name = command == 1 ? (attribute == 0 ? "Display Name" : "Attribute \(attribute)") : attributes[safe: Int(attribute)] ?? "Attribute \(attribute)"
                fields.append((ANCSFields.attribute, .count(Int(attribute)), name, attributeRange))
                fields.append((ANCSFields.length, .count(length), nil, lengthRange))
                fields.append((ANCSFields.value, .text(text), "\(name): \(text)", since()))
                shown.append(attribute == 5 && command == 0 ? "\(name) \(date(text))" : "\(name) \"\(ReadableText.clipped(text))\"")
                if let index = remaining?.firstIndex(of: attribute) { remaining?.remove(at: index) }
            }
            complete = remaining.map(\.isEmpty) ?? true
            shown.insert(subject, at: 0)
            if complete { layer.summary.set("\(commands[safe: Int(command)] ?? "Command \(command)") Answer - \(shown.joined(separator: " - "))") }
        } catch {}
        guard complete else {
            session.ancs.pending[link] = pending
            layer.summary.set("Data Source: part \(pending.parts) of an answer, more to come")
            return
        }
        // An answer joined from several notifications has no bytes of its own in this packet.
        let whole = pending.parts == 1
        for (definition, value, display, range) in fields {
            layer.add(definition, value, display, at: whole ? layer.range(at: partStart + range.lowerBound, count: range.count) : nil)
        }
        if pending.parts > 1 { layer.summary += " (joined from \(pending.parts) notifications)" }
        if request == nil { layer.addIssue(.note, "ANCS answer without its Control Point request in this capture") }
        session.ancs.requests[link] = nil
    }

    /// ANCS dates are "yyyyMMdd'T'HHmmSS": shown as "2019-05-08 23:04".
    static func date(_ text: String) -> String {
        let d = Array(text.utf8)
        guard d.count >= 13, d[8] == UInt8(ascii: "T") else { return "\"\(text)\"" }
        func part(_ range: Range<Int>) -> String { String(decoding: d[range], as: UTF8.self) }
        return "\(part(0 ..< 4))-\(part(4 ..< 6))-\(part(6 ..< 8)) \(part(9 ..< 11)):\(part(11 ..< 13))"
    }
}

/// The layers this decoder makes.
extension LayerKind {
    public static let ancs = LayerKind("ANCS", protocol: "ancs")
}
