import BTCapture

/// Apple Media Service fields (AMS specification, Apple).
public enum AMSFields {
    static let f = FieldDefinition.maker("ams")
    public static let command = f("command", "Remote Command ID", .uint8,
                                  "0 Play, 1 Pause, 2 Toggle Play/Pause, 3 Next Track, 4 Previous Track, 5 Volume Up, 6 Volume Down ... 13 Bookmark Track")
    public static let entity = f("entity", "Entity ID", .uint8, "0 Player, 1 Queue, 2 Track")
    public static let attribute = f("attribute", "Attribute ID", .uint8, "Player: 0 Name, 1 Playback Info, 2 Volume; Queue: 0 Index, 1 Count, 2 Shuffle, 3 Repeat; Track: 0 Artist, 1 Album, 2 Title, 3 Duration")
    public static let truncated = f("truncated", "Truncated", .bool, "Entity Update flag: the value was cut to fit; read Entity Attribute for all of it")
    public static let value = f("value", "Value", .string, "The attribute's value as the media source writes it")
    public static let error = f("error", "Error", .uint8, "0xA0 Invalid State, 0xA1 Invalid Command, 0xA2 Absent Attribute")

    public static let all = [command, entity, attribute, truncated, value, error]
}

/// AMS (service 89D3502B-0F36-433A-8EF4-C502AD55F8DC): remote commands and the ones the media
/// source supports, entity subscriptions and updates with their values read (playback state,
/// shuffle and repeat modes, durations), and Entity Attribute reads.
enum AMSDecoder {
    static let remoteCommand = BTUUID("9B3C81D8-57B1-4A8A-B8DF-0E56F7CA51C2")!
    static let entityUpdate = BTUUID("2F7CABCE-808D-411F-9A0C-BB92BA96C102")!
    static let entityAttribute = BTUUID("C6B2F38C-23AB-46D8-A6AB-A3A870BBD5D7")!

    static let descriptor = ProtocolDescriptor(name: "AMS", fields: AMSFields.all, layers: [.ams],
                                               registrations: [.gattCharacteristic(remoteCommand, decode),
                                                               .gattCharacteristic(entityUpdate, decode),
                                                               .gattCharacteristic(entityAttribute, decode)])

    static let commands = ["Play", "Pause", "Toggle Play/Pause", "Next Track", "Previous Track", "Volume Up", "Volume Down",
                           "Advance Repeat Mode", "Advance Shuffle Mode", "Skip Forward", "Skip Backward", "Like Track",
                           "Dislike Track", "Bookmark Track"]
    static let entities = ["Player", "Queue", "Track"]
    static let attributes = [["Name", "Playback Info", "Volume"], ["Index", "Count", "Shuffle Mode", "Repeat Mode"],
                             ["Artist", "Album", "Title", "Duration"]]
    static let errors: [UInt8: String] = [0xA0: "Invalid State", 0xA1: "Invalid Command", 0xA2: "Absent Attribute"]

    static func decode(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session, context: GATTValueContext) throws {
        if context.opcode == 0x01 { return try GATTProfileError.report(&c, &packet, layer: .ams, errors, field: AMSFields.error) }
        var layer = packet.makeLayer(.ams, over: c, showsDirection: true)
        defer { packet.append(taking: &layer) }
        let notified = context.opcode == 0x1B || context.opcode == 0x1D
        switch context.characteristic {
        case remoteCommand:
            if notified {
                // The commands the media source supports now.
                var names: [String] = []
                while !c.isAtEnd {
                    let id = try layer.readCount(AMSFields.command, &c, as: UInt8.self, display: { id in commands[safe: Int(id)] })
                    names.append(commands[safe: Int(id)] ?? "Command \(id)")
                }
                layer.summary.set("Supported Commands: \(names.isEmpty ? "none" : names.joined(separator: ", "))")
            } else {
                let id = try layer.readCount(AMSFields.command, &c, as: UInt8.self, display: { id in commands[safe: Int(id)] })
                layer.summary.set("Remote Command: \(commands[safe: Int(id)] ?? "Reserved \(id)")")
                if Int(id) >= commands.count { layer.addIssue(.warning, "Reserved AMS remote command \(id)") }
            }
        case entityUpdate:
            let entity = try layer.readCount(AMSFields.entity, &c, as: UInt8.self, display: { entity in entities[safe: Int(entity)] })
            let entityName = entities[safe: Int(entity)] ?? "Entity \(entity)"
            if notified {
                let attribute = try layer.readCount(AMSFields.attribute, &c, as: UInt8.self, display: { attribute in attributeName(entity, attribute) })
                let (flags, flagsAt) = try layer.reading(&c) { try $0.u8() }
                layer.add(AMSFields.truncated, .bool(flags & 1 == 1), at: flagsAt)
                let text = try value(&c, &layer)
                layer.summary.set("Entity Update: \(entityName) \(attributeName(entity, attribute)) = \(reading(entity, attribute, text))")
                if flags & 1 == 1 { layer.summary += " (truncated)" }
            } else {
                var names: [String] = []
                while !c.isAtEnd {
                    let attribute = try layer.readCount(AMSFields.attribute, &c, as: UInt8.self, display: { attribute in attributeName(entity, attribute) })
                    names.append(attributeName(entity, attribute))
                }
                layer.summary.set("Entity Update: subscribe to \(entityName) \(names.joined(separator: ", "))")
            }
        default:
            if context.opcode == 0x0B {
                let text = try value(&c, &layer)
                layer.summary.set("Entity Attribute: \"\(ReadableText.clipped(text, to: 60))\"")
            } else {
                let entity = try layer.readCount(AMSFields.entity, &c, as: UInt8.self, display: { entity in entities[safe: Int(entity)] })
                let attribute = try layer.readCount(AMSFields.attribute, &c, as: UInt8.self, display: { attribute in attributeName(entity, attribute) })
                layer.summary.set("Entity Attribute: \(entities[safe: Int(entity)] ?? "Entity \(entity)") \(attributeName(entity, attribute))")
            }
        }
        if !c.isAtEnd { layer.addIssue(.warning, "\(c.remaining) bytes after the AMS value") }
    }

    static func value(_ c: inout ByteCursor, _ layer: inout Layer) throws -> String {
        let start = c.index
        let bytes = c.rest()
        let text = String(decoding: bytes, as: UTF8.self)
        layer.add(AMSFields.value, .text(text), at: layer.range(at: start, count: bytes.count))
        return text
    }

    static func attributeName(_ entity: UInt8, _ attribute: UInt8) -> String {
        attributes[safe: Int(entity)]?[safe: Int(attribute)] ?? "Attribute \(attribute)"
    }

    /// The value as a person reads it: "Playing, rate 1.0, 63.2 s", "Shuffle All", "3:25".
    static func reading(_ entity: UInt8, _ attribute: UInt8, _ text: String) -> String {
        switch (entity, attribute) {
        case (0, 1):
            let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 3, let state = Int(parts[0]) else { return "\"\(text)\"" }
            let states = ["Paused", "Playing", "Rewinding", "Fast Forwarding"]
            return "\(states[safe: state] ?? "State \(state)"), rate \(parts[1]), \(parts[2]) s elapsed"
        case (0, 2):
            guard let volume = Double(text) else { return "\"\(text)\"" }
            return "\(Int((volume * 100).rounded()))%"
        case (1, 2), (1, 3):
            let modes = attribute == 2 ? ["Off", "One", "All"] : ["Off", "One", "All"]
            return Int(text).flatMap { modes[safe: $0] } ?? "\"\(text)\""
        case (2, 3):
            guard let seconds = Double(text) else { return "\"\(text)\"" }
            let whole = Int(seconds)
            return "\(whole / 60):\(whole % 60 < 10 ? "0" : "")\(whole % 60)"
        default:
            return "\"\(ReadableText.clipped(text, to: 60))\""
        }
    }
}

/// The layers this decoder makes.
extension LayerKind {
    public static let ams = LayerKind("AMS", protocol: "ams")
}
