import BTCapture
import BTDecode
import Foundation

/// A message's layout: its elements, each value a field named `<key>.<message>.<name>`.
extension DescriptionCompiler {
    static let messageKeys: Set<String> = ["name", "summary", "checksum", "fields"]
    static let valueKeys: Set<String> = ["name", "label", "help", "type", "order", "count", "length", "until", "values", "bits",
                                         "scale", "offset", "unit", "format", "if", "decimals"]
    static let groupKeys: Set<String> = ["fields", "if", "count"]
    static let switchKeys: Set<String> = ["switch", "cases", "default", "if"]
    static let textKeys: Set<String> = ["text", "end", "prompt", "rules"]
    static let tlvKeys: Set<String> = ["tlv", "name", "type", "length", "length-includes", "order", "values", "cases", "if"]

    /// The names of one message's values, and the top-level ones its summary lists by default.
    struct MessageScope {
        let id: String
        var names: Set<String> = []
        var summary: [FieldDefinition] = []
        /// Within an optional group: a value there may take the name of one in another
        /// optional part (Heart Rate Measurement's rate, a u8 or a u16 as a flag says).
        var isConditional = false
        /// Values that may be named again: their field and slot.
        var conditionalValues: [String: (field: FieldDefinition, slot: Int?)] = [:]
    }

    mutating func compileMessage(_ id: String, _ node: DescriptionNode) throws {
        let entry = try node.mapping("message '\(id)'", allowed: Self.messageKeys)
        var scope = MessageScope(id: id)
        let fieldsNode = try entry.required("fields")
        let elements = try compileElements(fieldsNode, &scope, topLevel: true)
        var checksum: DescribedChecksum?
        if let checksumNode = entry["checksum"] { checksum = try compileChecksum(checksumNode, &scope) }
        var summaryFields = scope.summary
        var summaryItems: [DescribedSummaryItem]?
        if let summaryNode = entry["summary"] {
            let items = try summaryNode.list("the summary's items: field names, or text with {field} in it")
            summaryItems = try items.map { try summaryItem($0, scope) }
            summaryFields = summaryItems!.flatMap(\.fields)
        }
        messages[id]!.define(elements: elements, summaryFields: summaryFields, summaryItems: summaryItems, checksum: checksum)
    }

    /// A message's title after the protocol's name, once (as `DescribedProtocol.heading`).
    func heading(_ title: String) -> String { DescribedProtocol.heading(name, title) }

    /// A field's full name: `<key>.<message>.<name>`, or `<key>.<name>` with short names.
    func qualifiedName(_ name: String, _ scope: MessageScope) -> String {
        shortNames ? "\(key).\(name)" : "\(key).\(scope.id).\(name)"
    }

    /// A summary item: `speed` (the field with its label), `"{heart_rate} bpm"` (text with
    /// values), or `{text: "Contact detected", if: "flags & 0x06 == 0x06"}`.
    func summaryItem(_ node: DescriptionNode, _ scope: MessageScope) throws -> DescribedSummaryItem {
        func field(_ name: Substring) throws -> FieldDefinition {
            guard let field = fields.first(where: { $0.name == qualifiedName(String(name), scope) }) else {
                throw node.error("message '\(scope.id)' has no field '\(name)'")
            }
            return field
        }
        var condition: DescribedCondition?
        let text: String
        if case .mapping = node.node {
            let entry = try node.mapping("a summary item", allowed: ["text", "if"])
            text = try entry.required("text").string("the item's text")
            condition = try entry["if"].map { try self.condition($0, scope) }
        } else {
            text = try node.string("a field name, or text with {field} in it")
            guard text.contains("{") else { return DescribedSummaryItem(parts: [.labelled(try field(text[...]))], condition: nil) }
        }
        var parts: [DescribedSummaryItem.Part] = []
        var rest = text[...]
        while let open = rest.firstIndex(of: "{") {
            if open > rest.startIndex { parts.append(.text(String(rest[..<open]))) }
            guard let close = rest[open...].firstIndex(of: "}") else { throw node.error("'{' without '}' in '\(text)'") }
            parts.append(.value(try field(rest[rest.index(after: open) ..< close])))
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty { parts.append(.text(String(rest))) }
        return DescribedSummaryItem(parts: parts, condition: condition)
    }

    mutating func compileElements(_ node: DescriptionNode, _ scope: inout MessageScope, topLevel: Bool) throws -> [DescribedElement] {
        guard case .sequence = node.node else { throw node.error("expected a list of fields, not \(node.kindName)") }
        var elements: [DescribedElement] = []
        for item in try node.list("fields") {
            elements.append(try compileElement(item, &scope, topLevel: topLevel))
        }
        return elements
    }

    mutating func compileElement(_ node: DescriptionNode, _ scope: inout MessageScope, topLevel: Bool) throws -> DescribedElement {
        guard case .mapping = node.node else { throw node.error("expected a field (a mapping with name and type), not \(node.kindName)") }
        let probe = try node.mapping("a field")
        var element: DescribedElement
        var conditionNode: DescriptionNode?
        if probe.has("switch") {
            let entry = try node.mapping("a switch", allowed: Self.switchKeys)
            conditionNode = entry["if"]
            element = try compileSwitch(entry, scope)
        } else if probe.has("text") {
            let entry = try node.mapping("a text element", allowed: Self.textKeys)
            element = .text(try compileText(entry, &scope))
        } else if probe.has("tlv") {
            let entry = try node.mapping("a TLV list", allowed: Self.tlvKeys)
            conditionNode = entry["if"]
            element = try compileTLV(entry, &scope)
        } else if probe.has("type") {
            let entry = try node.mapping("a field", allowed: Self.valueKeys)
            conditionNode = entry["if"]
            element = .value(try compileValue(entry, &scope, topLevel: topLevel && !entry.has("if")))
        } else if probe.has("fields") {
            let entry = try node.mapping("a group of fields", allowed: Self.groupKeys)
            conditionNode = entry["if"]
            let outer = scope.isConditional
            scope.isConditional = outer || (conditionNode != nil && !entry.has("count"))
            let inner = try compileElements(try entry.required("fields"), &scope, topLevel: false)
            scope.isConditional = outer
            if let countNode = entry["count"] {
                element = .repeated(try count(countNode, scope), inner)
            } else {
                guard conditionNode != nil else { throw node.error("a group of fields repeats ('count') or is optional ('if')") }
                element = .repeated(.fixed(1), inner)
            }
        } else {
            throw node.error("expected a field ('name' and 'type'), a group ('fields'), a 'switch', a 'tlv' or 'text'")
        }
        if let conditionNode { element = .optional(try condition(conditionNode, scope), [element]) }
        return element
    }

    // MARK: Values

    mutating func compileValue(_ entry: DescriptionMapping, _ scope: inout MessageScope, topLevel: Bool) throws -> DescribedValue {
        let nameNode = try entry.required("name")
        let fieldName = try nameNode.string("the field's name")
        let conditional = scope.isConditional || entry.has("if")
        let earlier = conditional ? scope.conditionalValues[fieldName] : nil
        if earlier == nil { try declare(fieldName, nameNode, &scope) }
        let typeNode = try entry.required("type")
        let valueOrder = try entry["order"].map(byteOrder) ?? order
        let scalar = try self.scalar(typeNode, valueOrder, entry, scope)
        let names = try entry["values"].map(valueNames) ?? [:]
        let scale = try entry["scale"].map { try $0.number("a scale factor") }
        let offset = try entry["offset"].map { try $0.number("an offset") }
        let unit = try entry["unit"].map { try $0.string("a unit") }
        var hex = !names.isEmpty || entry.has("bits") // codes and flags read in hex, amounts in decimal
        if let format = entry["format"] {
            switch format.text {
            case "hex": hex = true
            case "decimal": hex = false
            default: throw format.error("expected a format, hex or decimal, not '\(format.text ?? format.kindName)'")
            }
        }
        if !scalar.isNumeric {
            for option in ["values", "bits", "scale", "offset", "format"] where entry.has(option) {
                throw entry[option]!.error("'\(option)' applies to numbers; \(fieldName) is \(typeNode.text ?? "")")
            }
        }
        if scale == 0 { throw entry["scale"]!.error("a scale of 0 makes every value 0") }
        let isScaled = scale != nil || offset != nil
        let decimals = try entry["decimals"].map { Int(try $0.integer("a number of digits after the point", max: 9)) }
        if decimals != nil, !isScaled, scalar.isInteger {
            throw entry["decimals"]!.error("'decimals' applies to real values: a float, or an integer with a scale or offset")
        }
        if isScaled, !names.isEmpty { throw entry["values"]!.error("a scaled value has no names: give 'values' or 'scale', not both") }
        let label = try entry["label"]?.string("a label") ?? Self.title(fieldName)
        let help = try entry["help"]?.string("help text") ?? "\(heading(messages[scope.id]!.title)): \(label)"
        let type: FieldType
        switch scalar {
        case .unsigned(let size, _) where !isScaled: type = size == 1 ? .uint8 : size == 2 ? .uint16 : size <= 4 ? .uint32 : .uint64
        case .signed where !isScaled: type = .int
        case .bytes: type = .bytes
        case .string, .dateTime: type = .string
        default: type = .real
        }
        let field: FieldDefinition
        var slot: Int?
        if let earlier {
            // The same value in another optional part: one field, one slot, if they agree.
            guard earlier.field.type.isUnsignedInteger && type.isUnsignedInteger || earlier.field.type == type, (earlier.slot != nil) == scalar.isInteger,
                  units[earlier.field.name] == unit, !entry.has("bits") else {
                throw nameNode.error("message '\(scope.id)' has two fields named '\(fieldName)' that differ (type, unit or bits)")
            }
            field = earlier.field
            slot = earlier.slot
        } else {
            field = FieldDefinition(described: qualifiedName(fieldName, scope), label, type, help)
            fields.append(field)
            if let unit { units[field.name] = unit }
            if scalar.isInteger {
                slot = slotCount
                slots["\(scope.id).\(fieldName)"] = slotCount
                slotCount += 1
            }
            if conditional { scope.conditionalValues[fieldName] = (field, slot) }
        }
        if !names.isEmpty { valueNames.append((field, names.map { ValueName($0.key, $0.value) })) }
        var bits: [DescribedBits] = []
        if let bitsNode = entry["bits"] {
            guard case .unsigned(let size, _) = scalar, !isScaled else { throw bitsNode.error("bit fields are parts of an unsigned integer") }
            bits = try compileBits(bitsNode, size: size, &scope)
        }
        if scalar.isNumeric, !hex, names.isEmpty, bits.isEmpty, !quantities.contains(field) { quantities.append(field) }
        let count = try entry["count"].map { try self.count($0, scope) }
        if topLevel {
            if bits.isEmpty { scope.summary.append(field) } else { scope.summary += bits.map(\.field) }
        }
        return DescribedValue(field: field, scalar: scalar, count: count, names: names, bits: bits, scale: scale, offset: offset,
                              unit: unit, hex: hex, slot: slot, decimals: decimals)
    }

    func scalar(_ node: DescriptionNode, _ order: ByteOrder, _ entry: DescriptionMapping, _ scope: MessageScope) throws -> DescribedScalar {
        let text = try node.string("a type").lowercased()
        var base = text
        var order = order
        if text.hasSuffix("be") || text.hasSuffix("le"), text.count > 2, text.dropLast(2).last?.isNumber == true {
            order = text.hasSuffix("be") ? .bigEndian : .littleEndian
            base = String(text.dropLast(2))
        }
        let widths = ["8": 1, "16": 2, "24": 3, "32": 4, "40": 5, "48": 6, "56": 7, "64": 8]
        let lengthOptions = entry.has("length") || entry.has("until")
        func noLength() throws {
            if lengthOptions { throw (entry["length"] ?? entry["until"])!.error("'length' and 'until' apply to bytes and strings") }
        }
        if let first = base.first, "usi".contains(first), let size = widths[String(base.dropFirst())] {
            try noLength()
            return first == "u" ? .unsigned(bytes: size, order) : .signed(bytes: size, order)
        }
        switch base {
        case "f32", "float32": try noLength(); return .float(bytes: 4, order)
        case "f64", "float64": try noLength(); return .float(bytes: 8, order)
        case "sfloat", "medfloat16": try noLength(); return .sfloat(order)
        case "medfloat32", "float11073": try noLength(); return .medfloat(order)
        case "datetime", "date_time": try noLength(); return .dateTime
        case "bytes": return .bytes(try length(entry, scope))
        case "string", "utf8": return .string(try length(entry, scope))
        default:
            throw node.error("unknown type '\(text)'; types are u8-u64, s8-s64 (with be or le: u16be), f32, f64, sfloat, medfloat32, datetime, bytes, string")
        }
    }

    func length(_ entry: DescriptionMapping, _ scope: MessageScope) throws -> DescribedLength {
        if let until = entry["until"] {
            guard until.text == "nul" else { throw until.error("'until' takes nul (a NUL-terminated string)") }
            if entry.has("length") { throw until.error("give 'length' or 'until', not both") }
            return .nulTerminated
        }
        guard let node = entry["length"] else { return .rest }
        if node.text == "rest" { return .rest }
        if let text = node.text, DescriptionNode.parseInteger(text) != nil { return .fixed(Int(try node.integer("a length", max: 65535))) }
        return .slot(try reference(node, scope))
    }

    func count(_ node: DescriptionNode, _ scope: MessageScope) throws -> DescribedCount {
        if node.text == "rest" { return .rest }
        if let text = node.text, DescriptionNode.parseInteger(text) != nil { return .fixed(Int(try node.integer("a count", max: 65535))) }
        return .slot(try reference(node, scope))
    }

    /// An earlier integer value: `flags` in the same message, or `command.opcode` in another.
    func reference(_ node: DescriptionNode, _ scope: MessageScope) throws -> Int {
        let text = try node.string("a field name")
        let qualified = text.contains(".") ? text : "\(scope.id).\(text)"
        guard let slot = slots[qualified] else {
            throw node.error("'\(text)' is not an integer field read before this one (a length, count, condition or switch refers to one)")
        }
        return slot
    }

    mutating func declare(_ fieldName: String, _ node: DescriptionNode, _ scope: inout MessageScope) throws {
        try checkIdentifier(fieldName, node, "a field's name")
        guard !scope.names.contains(fieldName) else { throw node.error("message '\(scope.id)' has two fields named '\(fieldName)'") }
        scope.names.insert(fieldName)
    }

    func valueNames(_ node: DescriptionNode) throws -> [UInt64: String] {
        var names: [UInt64: String] = [:]
        for entry in try node.mapping("values (number: name)").entries {
            guard let value = DescriptionNode.parseInteger(entry.key) else {
                throw entry.keyNode.error("expected a number (decimal or 0x hex) naming a value, not '\(entry.key)'")
            }
            names[value] = try entry.value.string("the value's name")
        }
        return names
    }

    mutating func compileBits(_ node: DescriptionNode, size: Int, _ scope: inout MessageScope) throws -> [DescribedBits] {
        let width: UInt64 = size == 8 ? .max : (1 << UInt64(size * 8)) - 1
        var bits: [DescribedBits] = []
        for item in try node.list("bit fields") {
            let entry = try item.mapping("a bit field", allowed: ["name", "label", "help", "mask", "bit", "values"])
            let nameNode = try entry.required("name")
            let bitName = try nameNode.string("the bit field's name")
            try declare(bitName, nameNode, &scope)
            let mask: UInt64
            if let bit = entry["bit"] {
                mask = 1 << (try bit.integer("a bit number", max: UInt64(size * 8 - 1)))
            } else {
                let maskNode = try entry.required("mask")
                mask = try maskNode.integer("a mask")
                guard mask != 0, mask & ~width == 0 else { throw maskNode.error("the mask must pick bits of the \(size * 8)-bit value") }
            }
            let names = try entry["values"].map(valueNames) ?? [:]
            let label = try entry["label"]?.string("a label") ?? Self.title(bitName)
            let help = try entry["help"]?.string("help text") ?? "\(heading(messages[scope.id]!.title)): \(label)"
            let field = FieldDefinition(described: qualifiedName(bitName, scope), label, mask.nonzeroBitCount == 1 && names.isEmpty ? .bool : .uint64, help)
            fields.append(field)
            if !names.isEmpty { valueNames.append((field, names.map { ValueName($0.key, $0.value) })) }
            slots["\(scope.id).\(bitName)"] = slotCount
            if names.isEmpty && mask.nonzeroBitCount > 1 { quantities.append(field) } // a count in some bits (a speed 0-31)
            bits.append(DescribedBits(field: field, mask: mask, names: names, slot: slotCount))
            slotCount += 1
        }
        return bits
    }

    // MARK: Conditions, switches, TLV, checksums

    /// `flags`, `flags & 0x08`, `type == 3` (also !=, <, <=, >, >=), `flags & 0x06 == 0x02`.
    func condition(_ node: DescriptionNode, _ scope: MessageScope) throws -> DescribedCondition {
        let text = try node.string("a condition such as 'flags & 0x08'")
        // A mask then a comparison: the comparison is of the masked bits.
        if let and = text.range(of: "&"), let comparison = ["==", "!=", "<=", ">=", "<", ">"].first(where: { text[and.upperBound...].contains($0) }) {
            let split = text[and.upperBound...].range(of: comparison)!
            let maskText = text[and.upperBound ..< split.lowerBound].trimmingCharacters(in: .whitespaces)
            guard let mask = DescriptionNode.parseInteger(maskText) else { throw node.error("expected a mask (a number) after '&' in '\(text)'") }
            let inner = try condition(DescriptionNode(node: .scalar(.init(text[..<and.lowerBound] + comparison + text[split.upperBound...], .implicit, .plain, node.node.mark)),
                                                      file: file), scope)
            return DescribedCondition(slot: inner.slot, test: .masked(mask, inner.test))
        }
        let operators = ["==", "!=", "<=", ">=", "&", "<", ">"]
        for op in operators {
            guard let range = text.range(of: op) else { continue }
            let left = text[..<range.lowerBound].trimmingCharacters(in: .whitespaces)
            let right = text[range.upperBound...].trimmingCharacters(in: .whitespaces)
            guard let value = DescriptionNode.parseInteger(right) else {
                throw node.error("expected a number after '\(op)' in '\(text)'")
            }
            let slot = try reference(DescriptionNode(node: .scalar(.init(left, .implicit, .plain, node.node.mark)), file: file), scope)
            let test: DescribedCondition.Test
            switch op {
            case "==": test = .equal(value)
            case "!=": test = .notEqual(value)
            case "<=": test = .lessEqual(value)
            case ">=": test = .greaterEqual(value)
            case "<": test = .less(value)
            case ">": test = .greater(value)
            default: test = .anyBits(value)
            }
            return DescribedCondition(slot: slot, test: test)
        }
        return DescribedCondition(slot: try reference(node, scope), test: .nonzero)
    }

    func compileSwitch(_ entry: DescriptionMapping, _ scope: MessageScope) throws -> DescribedElement {
        let slot = try reference(try entry.required("switch"), scope)
        var cases: [UInt64: DescribedMessage] = [:]
        for item in try entry.required("cases").mapping("cases (value: message)").entries {
            guard let value = DescriptionNode.parseInteger(item.key) else {
                throw item.keyNode.error("expected a number (decimal or 0x hex) choosing a message, not '\(item.key)'")
            }
            cases[value] = try message(item.value)
        }
        let otherwise = try entry["default"].map(message)
        return .select(slot: slot, cases: cases, otherwise: otherwise)
    }

    mutating func compileTLV(_ entry: DescriptionMapping, _ scope: inout MessageScope) throws -> DescribedElement {
        let nameNode = try entry.required("name")
        let base = try nameNode.string("the TLV list's name")
        try declare(base, nameNode, &scope)
        func size(_ key: String) throws -> Int {
            guard let node = entry[key] else { return 1 }
            switch node.text {
            case "u8": return 1
            case "u16": return 2
            default: throw node.error("a TLV's \(key) is u8 or u16")
            }
        }
        let includes: Bool
        switch entry["length-includes"]?.text {
        case nil, "value": includes = false
        case "all": includes = true
        default: throw entry["length-includes"]!.error("'length-includes' is value (the length counts the value) or all (type and length too)")
        }
        let names = try entry["values"].map(valueNames) ?? [:]
        var cases: [UInt64: DescribedMessage] = [:]
        if let casesNode = entry["cases"] {
            for item in try casesNode.mapping("cases (type: message)").entries {
                guard let value = DescriptionNode.parseInteger(item.key) else { throw item.keyNode.error("expected a type number, not '\(item.key)'") }
                cases[value] = try message(item.value)
            }
        }
        let prefix = qualifiedName(base, scope)
        let typeField = FieldDefinition(described: prefix + "_type", Self.title(base) + " type", .uint16, "\(name): an item's type")
        let lengthField = FieldDefinition(described: prefix + "_length", Self.title(base) + " length", .uint16, "\(name): an item's length")
        let valueField = FieldDefinition(described: prefix + "_value", Self.title(base) + " value", .bytes, "\(name): an item's value, where no message lays it out")
        fields += [typeField, lengthField, valueField]
        let allNames = names.merging(cases.mapValues(\.title)) { named, _ in named }
        if !allNames.isEmpty { valueNames.append((typeField, allNames.map { ValueName($0.key, $0.value) })) }
        return .tlv(DescribedTLV(typeField: typeField, lengthField: lengthField, valueField: valueField, typeBytes: try size("type"),
                                 lengthBytes: try size("length"), order: try entry["order"].map(byteOrder) ?? order,
                                 lengthIncludesHeader: includes, names: names, cases: cases))
    }

    /// Lines of text: `{text: line, end: "\r", prompt: ">", rules: [{name, match, hex, decimal}]}`.
    mutating func compileText(_ entry: DescriptionMapping, _ scope: inout MessageScope) throws -> DescribedText {
        let lineNode = try entry.required("text")
        let lineName = try lineNode.string("the line's field name")
        try declare(lineName, lineNode, &scope)
        let title = messages[scope.id]!.title
        let lineField = FieldDefinition(described: qualifiedName(lineName, scope), Self.title(lineName), .string, "\(heading(title)): a line of text")
        fields.append(lineField)
        scope.summary.append(lineField)
        var terminators: [UInt8] = [0x0D, 0x0A]
        if let end = entry["end"] {
            terminators = Array(try end.string("the bytes that end a line, such as \"\\r\"").utf8)
        }
        var prompt: UInt8?
        if let promptNode = entry["prompt"] {
            let text = try promptNode.string("the prompt character")
            guard text.utf8.count == 1 else { throw promptNode.error("the prompt is one ASCII character, such as '>'") }
            prompt = text.utf8.first
        }
        try declare("prompt", lineNode, &scope)
        let promptField = FieldDefinition(described: qualifiedName("prompt", scope), "Prompt", .bool, "\(heading(title)): the prompt that asks for the next command")
        fields.append(promptField)
        var rules: [DescribedTextRule] = []
        var groupFields: [String: FieldDefinition] = [:]
        for item in try entry["rules"]?.list("rules") ?? [] {
            let rule = try item.mapping("a rule", allowed: ["name", "match", "hex", "decimal"])
            let ruleName = try rule.required("name").string("the rule's name")
            let matchNode = try rule.required("match")
            let pattern = try matchNode.string("a regular expression")
            let matcher: PCRELineMatcher
            do { matcher = try PCRELineMatcher(pattern) } catch let error as PCRELineMatcher.CompileError {
                throw matchNode.error("not a valid regular expression at offset \(error.offset): \(error.message)")
            }
            let hex = Set(try rule["hex"]?.list("group names").map { try $0.string("a group name") } ?? [])
            let decimal = Set(try rule["decimal"]?.list("group names").map { try $0.string("a group name") } ?? [])
            for unknown in hex.union(decimal) where !matcher.names.contains(where: { $0.name == unknown }) {
                throw (rule["hex"] ?? rule["decimal"])!.error("the expression has no group named '\(unknown)'")
            }
            var groups: [DescribedTextRule.Group] = []
            for (groupName, number) in matcher.names.sorted(by: { $0.number < $1.number }) {
                let field: FieldDefinition
                if let known = groupFields[groupName] {
                    field = known
                } else {
                    try checkIdentifier(groupName, matchNode, "a group's name")
                    guard !scope.names.contains(groupName) else { throw matchNode.error("group '\(groupName)' has the name of another field of message '\(scope.id)'") }
                    scope.names.insert(groupName)
                    field = FieldDefinition(described: qualifiedName(groupName, scope), Self.title(groupName),
                                            hex.contains(groupName) ? .uint64 : decimal.contains(groupName) ? .int : .string,
                                            "\(heading(title)): the \(groupName) group of a matching line")
                    fields.append(field)
                    groupFields[groupName] = field
                }
                groups.append(.init(number: number, field: field, kind: hex.contains(groupName) ? .hex : decimal.contains(groupName) ? .decimal : .text))
            }
            rules.append(DescribedTextRule(title: ruleName, matcher: matcher, groups: groups))
        }
        return DescribedText(lineField: lineField, terminators: terminators, prompt: prompt, promptField: promptField, rules: rules)
    }

    mutating func compileChecksum(_ node: DescriptionNode, _ scope: inout MessageScope) throws -> DescribedChecksum {
        let entry = try node.mapping("a checksum", allowed: ["name", "type", "order", "skip"])
        let typeNode = try entry.required("type")
        let typeName = try typeNode.string("a checksum algorithm")
        guard let algorithm = ChecksumAlgorithm.named(typeName) else {
            throw typeNode.error("unknown checksum '\(typeName)'; known: \(ChecksumAlgorithm.all.map(\.name).joined(separator: ", "))")
        }
        let fieldName = try entry["name"]?.string("the checksum's name") ?? "checksum"
        try declare(fieldName, entry["name"] ?? node, &scope)
        let field = FieldDefinition(described: qualifiedName(fieldName, scope), Self.title(fieldName), algorithm.size == 1 ? .uint8 : algorithm.size == 2 ? .uint16 : .uint32,
                                    "\(heading(messages[scope.id]!.title)): \(algorithm.name) over the message, verified")
        fields.append(field)
        let skip = try entry["skip"].map { Int(try $0.integer("a number of bytes", max: 65535)) } ?? 0
        return DescribedChecksum(field: field, algorithm: algorithm, order: try entry["order"].map(byteOrder) ?? order, skip: skip)
    }
}

extension FieldType {
    var isUnsignedInteger: Bool { [.uint8, .uint16, .uint32, .uint64].contains(self) }
}

extension DescribedScalar {
    var isNumeric: Bool {
        switch self {
        case .bytes, .string, .dateTime: return false
        default: return true
        }
    }
}
