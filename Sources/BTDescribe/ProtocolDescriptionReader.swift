import BTCapture
import BTDecode
import Foundation
import Yams

/// Reads a protocol description (`btlog-protocol: 1`, YAML) and compiles it into a
/// `DescribedProtocol`: every message a layout of elements, every name a field definition,
/// every reference an index. Nothing in a description runs: it is data, read once.
public enum ProtocolDescriptionReader {
    /// The version of the format this reader knows.
    public static let version = 1

    /// Descriptions longer than this are refused before they are parsed.
    public static let largestFile = 1 << 20

    public static func read(file path: String) throws -> DescribedProtocol {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw DescriptionError(file: path, line: 0, column: 0, message: "cannot read the file")
        }
        guard data.count <= largestFile else {
            throw DescriptionError(file: path, line: 0, column: 0, message: "\(data.count) bytes: a description is at most \(largestFile) bytes")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw DescriptionError(file: path, line: 0, column: 0, message: "not UTF-8 text")
        }
        return try parse(text, source: path)
    }

    /// `shipped`: one of btlog's own descriptions (`ShippedProtocols`), which a user's replaces.
    public static func parse(_ text: String, source: String, shipped: Bool = false) throws -> DescribedProtocol {
        let root: Node
        do {
            // No implicit tags: the compiler reads every scalar as text itself (resolving each against
            // Yams' regular expressions was most of what reading a description cost).
            guard let composed = try Yams.compose(yaml: text, .basic) else {
                throw DescriptionError(file: source, line: 0, column: 0, message: "empty: a description starts with 'btlog-protocol: \(version)'")
            }
            root = composed
        } catch let error as YamlError {
            throw Self.error(error, source)
        }
        var compiler = DescriptionCompiler(file: source)
        compiler.isShipped = shipped
        do {
            return try compiler.compile(DescriptionNode(node: root, file: source))
        } catch {
            // Messages that select each other would keep each other alive.
            for message in compiler.messages.values { message.unlink() }
            throw error
        }
    }

    /// Yams' error as one of ours: the place, and the problem without libyaml's snippet.
    static func error(_ error: YamlError, _ source: String) -> DescriptionError {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
             .composer(let context, let problem, let mark, _):
            let where_ = context.map { "\($0.text) " } ?? ""
            return DescriptionError(file: source, line: mark.line, column: mark.column, message: "not valid YAML: \(where_)\(problem)")
        case .reader(let problem, _, _, _):
            return DescriptionError(file: source, line: 0, column: 0, message: "not valid YAML: \(problem)")
        default:
            return DescriptionError(file: source, line: 0, column: 0, message: "not valid YAML: \(error)")
        }
    }
}

/// One file's compilation: the messages by id, the fields made so far, and the slots where
/// values later elements refer to are kept.
struct DescriptionCompiler {
    let file: String
    var key = ""
    var name = ""
    var order = ByteOrder.littleEndian
    var messages: [String: DescribedMessage] = [:]
    var fields: [FieldDefinition] = []
    var valueNames: [(FieldDefinition, [ValueName])] = []
    var slotCount = 0
    /// Integer values by "message.field", with their slots.
    var slots: [String: Int] = [:]
    /// Units of the values that give one, by field name.
    var units: [String: String] = [:]
    /// Values that are amounts (decimal, without names), for `DescribedProtocol.quantities`.
    var quantities: [FieldDefinition] = []
    /// Fields named `<key>.<field>`, without the message's id (`field-names: short`).
    var shortNames = false
    var isShipped = false

    init(file: String) { self.file = file }

    static let topKeys: Set<String> = ["btlog-protocol", "name", "key", "description", "byte-order", "gatt", "advertising", "l2cap", "rfcomm",
                                       "hci", "decode-as", "messages", "inline", "field-names"]

    mutating func compile(_ root: DescriptionNode) throws -> DescribedProtocol {
        let top = try root.mapping("a protocol description", allowed: Self.topKeys)
        guard let versionNode = top["btlog-protocol"] else {
            throw root.error("a description starts with 'btlog-protocol: \(ProtocolDescriptionReader.version)'")
        }
        let version = try versionNode.integer("the format's version")
        guard version == UInt64(ProtocolDescriptionReader.version) else {
            throw versionNode.error("btlog-protocol \(version) is not a version this btlog reads (it reads \(ProtocolDescriptionReader.version))")
        }
        let nameNode = try top.required("name")
        name = try nameNode.string("the protocol's name")
        if let keyNode = top["key"] {
            key = try keyNode.string("the protocol's key")
            try checkIdentifier(key, keyNode, "the key")
        } else {
            key = ValueName.key(name)
            if key.isEmpty || !(key.first!.isLetter) { throw nameNode.error("'\(name)' makes no field prefix; give a 'key' such as 'mydevice'") }
        }
        // Shipped keys are checked by a test: asking the registry builds every built-in field.
        if !isShipped, FieldRegistry.isBuiltIn(key) { throw (top["key"] ?? nameNode).error("'\(key)' is a protocol btlog decodes itself; give the description another key") }
        if let orderNode = top["byte-order"] { order = try byteOrder(orderNode) }
        let summary = try top["description"]?.string("a description") ?? ""
        let isInline = try top["inline"]?.bool("inline (true or false)") ?? false
        if let naming = top["field-names"] {
            switch naming.text {
            case "short": shortNames = true
            case "long": shortNames = false
            default: throw naming.error("'field-names' is long (<key>.<message>.<field>, the default) or short (<key>.<field>)")
            }
        }

        // Every message first, so that any may name any other.
        let messagesNode = try top.required("messages")
        let messageEntries = try messagesNode.mapping("messages")
        guard !messageEntries.entries.isEmpty else { throw messagesNode.error("messages lists none") }
        for entry in messageEntries.entries {
            try checkIdentifier(entry.key, entry.keyNode, "a message's id")
            let title = try entry.value.mapping("message '\(entry.key)'", allowed: Self.messageKeys)["name"]?.string("the message's name")
            messages[entry.key] = DescribedMessage(id: entry.key, title: title ?? Self.title(entry.key))
        }
        fields.append(FieldDefinition(described: "\(key).data", "Data", .bytes,
                                      "Bytes of \(name) its description does not lay out (a message type without a layout, bytes after a layout)"))
        for entry in messageEntries.entries { try compileMessage(entry.key, entry.value) }
        var seen: Set<String> = []
        for field in fields where !seen.insert(field.name).inserted {
            throw messagesNode.error("two fields are named '\(field.name)'\(shortNames ? " (with field-names: short, a name is used once in the protocol)" : "")")
        }

        var selectors: [DescribedSelector] = []
        var uuidNames: [(BTUUID, String)] = []
        if let gatt = top["gatt"] { try gattSelectors(gatt, &selectors, &uuidNames) }
        if let advertising = top["advertising"] { try advertisingSelectors(advertising, &selectors) }
        if let l2cap = top["l2cap"] { try l2capSelectors(l2cap, &selectors) }
        if let rfcomm = top["rfcomm"] { try rfcommSelectors(rfcomm, &selectors) }
        var commandNames: [DescribedCommandName] = []
        if let hci = top["hci"] { try hciSelectors(hci, &selectors, &commandNames) }
        var decodeAs: [(rule: String, location: String)] = []
        for item in try top["decode-as"]?.list("decode-as rules") ?? [] {
            decodeAs.append((try item.string("a rule such as 'l2cap.cid == 0x0055: rfcomm'"), item.location))
        }
        if selectors.isEmpty && decodeAs.isEmpty && commandNames.isEmpty {
            throw root.error("nothing selects \(name): give 'gatt', 'advertising', 'l2cap', 'rfcomm', 'hci' or 'decode-as'")
        }
        if isInline, let other = selectors.first(where: { if case .characteristic = $0.key { return false } else { return true } }) {
            throw top["inline"]!.error("'inline' shows GATT values in the ATT layer; \(other.key) (\(other.location)) has no ATT layer")
        }
        return DescribedProtocol(name: name, key: key, source: file, summary: summary, fields: fields, valueNames: valueNames,
                                 messages: messageEntries.entries.map { messages[$0.key]! }, selectors: selectors, uuidNames: uuidNames,
                                 slotCount: slotCount, decodeAs: decodeAs, units: units,
                                 isInline: isInline, isShipped: isShipped, quantities: quantities, commandNames: commandNames)
    }

    // MARK: Selectors

    func message(_ node: DescriptionNode) throws -> DescribedMessage {
        let id = try node.string("a message's id")
        guard let message = messages[id] else {
            throw node.error("no message '\(id)'; messages are \(messages.keys.sorted().joined(separator: ", "))")
        }
        return message
    }

    func uuid(_ node: DescriptionNode) throws -> BTUUID {
        guard let text = node.text, let uuid = BTUUID(text) else {
            throw node.error("expected a UUID such as FFE9 or 6e400001-b5a3-f393-e0a9-e50e24dcca9e, not '\(node.text ?? node.kindName)'")
        }
        return uuid
    }

    func gattSelectors(_ node: DescriptionNode, _ selectors: inout [DescribedSelector], _ names: inout [(BTUUID, String)]) throws {
        for item in try node.list("GATT services and characteristics") {
            let entry = try item.mapping("a GATT entry", allowed: ["service", "characteristic", "name", "message", "characteristics"])
            if let serviceNode = entry["service"] {
                let service = try uuid(serviceNode)
                if let serviceName = try entry["name"]?.string("the service's name") { names.append((service, serviceName)) }
                if entry.has("message") || entry.has("characteristic") {
                    throw item.error("a service lists its characteristics under 'characteristics'")
                }
                for characteristic in try entry["characteristics"]?.list("characteristics") ?? [] {
                    try characteristicSelector(characteristic, &selectors, &names)
                }
            } else {
                try characteristicSelector(item, &selectors, &names)
            }
        }
    }

    func characteristicSelector(_ item: DescriptionNode, _ selectors: inout [DescribedSelector], _ names: inout [(BTUUID, String)]) throws {
        let entry = try item.mapping("a characteristic", allowed: ["characteristic", "uuid", "name", "message"])
        guard let uuidNode = entry["characteristic"] ?? entry["uuid"] else { throw item.error("a characteristic needs its 'uuid'") }
        let characteristic = try uuid(uuidNode)
        if let characteristicName = try entry["name"]?.string("the characteristic's name") { names.append((characteristic, characteristicName)) }
        selectors.append(DescribedSelector(key: .characteristic(characteristic), message: try message(try entry.required("message")),
                                           location: item.location))
    }

    func advertisingSelectors(_ node: DescriptionNode, _ selectors: inout [DescribedSelector]) throws {
        for item in try node.list("advertising data") {
            let entry = try item.mapping("an advertising entry", allowed: ["company", "prefix", "service-data", "message"])
            let message = try message(try entry.required("message"))
            if let company = entry["company"] {
                let prefix = try entry["prefix"].map(bytes) ?? []
                selectors.append(DescribedSelector(key: .manufacturer(company: UInt16(try company.integer("a company identifier", max: 0xFFFF)), prefix: prefix),
                                                   message: message, location: item.location))
            } else if let serviceData = entry["service-data"] {
                if entry.has("prefix") { throw item.error("'prefix' selects manufacturer data; service data is selected by its UUID") }
                selectors.append(DescribedSelector(key: .serviceData(try uuid(serviceData)), message: message, location: item.location))
            } else {
                throw item.error("an advertising entry needs 'company' (manufacturer data) or 'service-data'")
            }
        }
    }

    func bytes(_ node: DescriptionNode) throws -> [UInt8] {
        if case .sequence = node.node {
            return try node.list("bytes").map { UInt8(try $0.integer("a byte", max: 0xFF)) }
        }
        let text = try node.string("bytes such as '02 15'")
        let digits = text.lowercased().replacingOccurrences(of: "0x", with: "").filter { !" :-".contains($0) }
        guard digits.count % 2 == 0, !digits.isEmpty, digits.allSatisfy(\.isHexDigit) else {
            throw node.error("expected bytes in hex such as '02 15', not '\(text)'")
        }
        var result: [UInt8] = []
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            result.append(UInt8(digits[index ..< next], radix: 16)!)
            index = next
        }
        return result
    }

    func l2capSelectors(_ node: DescriptionNode, _ selectors: inout [DescribedSelector]) throws {
        for item in try node.list("L2CAP channels") {
            let entry = try item.mapping("an L2CAP entry", allowed: ["psm", "spsm", "message"])
            let message = try message(try entry.required("message"))
            if let psm = entry["psm"] {
                let value = UInt16(try psm.integer("a PSM", max: 0xFFFF))
                // Core Vol 3, Part A, 4.2: a PSM is odd, and the upper byte's least significant bit is 0.
                guard value & 1 == 1, value & 0x0100 == 0 else { throw psm.error("\(Hex.u16(value)) is not a valid BR/EDR PSM (odd, bit 8 clear)") }
                selectors.append(DescribedSelector(key: .psm(value), message: message, location: item.location))
            } else if let spsm = entry["spsm"] {
                let value = UInt16(try spsm.integer("an SPSM", max: 0x00FF))
                guard value != 0 else { throw spsm.error("SPSM 0 is not valid") }
                selectors.append(DescribedSelector(key: .spsm(value), message: message, location: item.location))
            } else {
                throw item.error("an L2CAP entry needs 'psm' (BR/EDR) or 'spsm' (LE credit-based)")
            }
        }
    }

    func rfcommSelectors(_ node: DescriptionNode, _ selectors: inout [DescribedSelector]) throws {
        for item in try node.list("RFCOMM channels") {
            let entry = try item.mapping("an RFCOMM entry", allowed: ["channel", "service-name", "message"])
            let message = try message(try entry.required("message"))
            if let channel = entry["channel"] {
                let value = try channel.integer("an RFCOMM server channel", max: 30)
                guard value >= 1 else { throw channel.error("RFCOMM server channels are 1 to 30") }
                selectors.append(DescribedSelector(key: .rfcommChannel(UInt8(value)), message: message, location: item.location))
            } else if let serviceName = entry["service-name"] {
                selectors.append(DescribedSelector(key: .serviceName(try serviceName.string("an SDP service name")), message: message,
                                                   location: item.location))
            } else {
                throw item.error("an RFCOMM entry needs 'channel' or 'service-name'")
            }
        }
    }

    /// Vendor HCI commands (OGF 0x3F: a name, the parameters' message, the return parameters'
    /// message) and the vendor event (0xFF, by a prefix of its parameters).
    func hciSelectors(_ node: DescriptionNode, _ selectors: inout [DescribedSelector], _ names: inout [DescribedCommandName]) throws {
        for item in try node.list("vendor HCI commands and events") {
            let entry = try item.mapping("an HCI entry", allowed: ["command", "name", "message", "returns", "event", "prefix"])
            if let command = entry["command"] {
                let opcode = UInt16(try command.integer("an HCI opcode", max: 0xFFFF))
                guard opcode >> 10 == 0x3F else {
                    throw command.error("\(Hex.u16(opcode)) is not a vendor command (OGF 0x3F: opcodes 0xFC00 to 0xFFFF); btlog decodes the others itself")
                }
                if entry.has("event") || entry.has("prefix") { throw item.error("an HCI entry is a 'command' or an 'event', not both") }
                guard let nameNode = entry["name"] else { throw item.error("a vendor command needs its 'name' (what the command and its Command Complete are called)") }
                names.append(DescribedCommandName(opcode: opcode, name: try nameNode.string("the command's name"), location: item.location))
                if let parameters = entry["message"] {
                    selectors.append(DescribedSelector(key: .hciCommand(opcode), message: try message(parameters), location: item.location))
                }
                if let returns = entry["returns"] {
                    selectors.append(DescribedSelector(key: .hciReturn(opcode), message: try message(returns), location: item.location))
                }
            } else if let event = entry["event"] {
                let code = try event.integer("an HCI event code", max: 0xFF)
                guard code == 0xFF else {
                    throw event.error("event \(Hex.u8(UInt8(code))) is one btlog decodes itself; only the vendor event, 0xFF, is described")
                }
                if entry.has("name") || entry.has("returns") { throw item.error("a vendor event takes 'prefix' and 'message' (its name is the message's)") }
                let prefix = try entry["prefix"].map(bytes) ?? []
                selectors.append(DescribedSelector(key: .vendorEvent(prefix: prefix), message: try message(try entry.required("message")), location: item.location))
            } else {
                throw item.error("an HCI entry needs 'command' (a vendor opcode, 0xFC00 to 0xFFFF) or 'event: 0xFF'")
            }
        }
    }

    // MARK: Names

    func checkIdentifier(_ text: String, _ node: DescriptionNode, _ what: String) throws {
        guard let first = text.unicodeScalars.first, ("a" ... "z").contains(first),
              text.unicodeScalars.allSatisfy({ ("a" ... "z").contains($0) || ("0" ... "9").contains($0) || $0 == "_" }) else {
            throw node.error("\(what) '\(text)' must be lower-case letters, digits and _, starting with a letter (it is part of field names)")
        }
    }

    /// "heart_rate" → "Heart rate".
    static func title(_ id: String) -> String {
        let words = id.replacingOccurrences(of: "_", with: " ")
        return words.prefix(1).uppercased() + words.dropFirst()
    }

    func byteOrder(_ node: DescriptionNode) throws -> ByteOrder {
        switch node.text?.lowercased() {
        case "little", "little-endian", "le": return .littleEndian
        case "big", "big-endian", "be": return .bigEndian
        default: throw node.error("expected a byte order, little or big, not '\(node.text ?? node.kindName)'")
        }
    }
}
