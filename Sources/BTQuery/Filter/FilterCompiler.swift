import BTCapture
import BTDecode

/// What a test's name stands for: a field of the registry, or a property of the packet as a
/// whole (`handle`, `reltime`...) read the same way, as values of one type.
struct FilterOperand {
    var name: String
    var type: FieldType
    /// Calls `body` with each value the packet has, until `body` returns false.
    var visit: (Packet, StageContext, (FieldValue) -> Bool) -> Void
    /// What the name alone tests, when not "has a value" (`flagged`, `error`).
    var alone: ((Packet, StageContext) -> Bool)?
    /// The field whose value names literals may use.
    var field: FieldDefinition?
    /// How literals compared with it are read, when not by `type` (times, directions).
    var readLiteral: ((FilterLiteral) -> LiteralValue?)?
    /// The protocol of a registry field (nil for the packet's own terms): where it can be
    /// (`ProtocolPlacement`), for the filter's foresight.
    var protocolName: String?
    /// What a literal should look like, for the message when one does not fit.
    var literalHint: String?
}

/// A literal turned into a value: most are constants; a time of day depends on the day the
/// capture starts, known once the first packet is read.
enum LiteralValue {
    case constant(FieldValue)
    case time(TimeLiteral, TimeCache)

    func value(_ context: StageContext) -> FieldValue {
        switch self {
        case .constant(let v): return v
        case .time(let literal, let cache):
            if cache.start != context.captureStart {
                cache.start = context.captureStart
                cache.moment = literal.resolved(captureStart: context.captureStart)
            }
            return .time(cache.moment)
        }
    }
}

/// The resolved moment of a time-of-day literal, for the capture it was last resolved for.
final class TimeCache {
    var start: Int64 = .min
    var moment: Int64 = 0
}

/// Turns a parsed expression into closures, resolving every name and literal once: unknown
/// names, values that do not fit their field and operators a type does not have are errors
/// here, with the span they are about.
struct FilterCompiler {
    typealias Predicate = (Packet, StageContext) -> Bool
    typealias ValueTest = (FieldValue, StageContext) -> Bool

    let expression: String
    private(set) var readsAnnotations = false
    /// The fields the expression reads (a bare protocol without a layer of its own reads all
    /// of its fields): what the decoder must keep for it.
    private(set) var fieldsRead: [FieldDefinition] = []
    /// The protocol each test reads, by the test's span: a field's, or a protocol's name alone
    /// (none for the packet's own terms). `FilterForesight` asks it, so names are resolved once.
    private(set) var testProtocols: [Range<Int>: String] = [:]

    init(expression: String) { self.expression = expression }

    private func error(_ message: String, _ span: Range<Int>) -> FilterError { FilterError(message, in: expression, at: span) }

    mutating func compile(_ syntax: FilterExpression) throws -> Predicate {
        switch syntax {
        case .and(let a, let b):
            let p = try compile(a), q = try compile(b)
            return { p($0, $1) && q($0, $1) }
        case .or(let a, let b):
            let p = try compile(a), q = try compile(b)
            return { p($0, $1) || q($0, $1) }
        case .not(let a):
            let p = try compile(a)
            return { !p($0, $1) }
        case .test(let test):
            return try compile(test)
        }
    }

    // MARK: Tests

    private mutating func compile(_ test: FilterTest) throws -> Predicate {
        if test.quantifier != nil, test.relation == nil {
            throw error("'all' and 'any' need a comparison after the field", test.span)
        }
        if let protocolTest = try protocolPresence(test) {
            testProtocols[test.span] = test.name
            return protocolTest
        }
        let operand = try resolve(test)
        if let protocolName = operand.protocolName { testProtocols[test.span] = protocolName }
        guard let relation = test.relation else {
            if let alone = operand.alone { return alone }
            let visit = operand.visit
            return { packet, context in
                var found = false
                visit(packet, context) { _ in found = true; return false }
                return found
            }
        }
        let valueTest = try self.valueTest(relation, for: operand, test: test)
        let visit = operand.visit
        // Wireshark's rule: a != b holds when the field is there and no value of it equals b.
        var every = test.quantifier == .all
        if test.quantifier == nil, case .compare(.notEqual, _) = relation { every = true }
        if every {
            return { packet, context in
                var found = false, all = true
                visit(packet, context) { value in
                    found = true
                    if !valueTest(value, context) { all = false; return false }
                    return true
                }
                return found && all
            }
        }
        return { packet, context in
            var any = false
            visit(packet, context) { value in
                if valueTest(value, context) { any = true; return false }
                return true
            }
            return any
        }
    }

    /// `att`, `smp`, `hci`: a protocol's name alone tests whether the packet has its layer (as
    /// tshark's `btatt`), or, for a protocol without a layer of its own (gatt, adv, apple...),
    /// any of its fields.
    private mutating func protocolPresence(_ test: FilterTest) throws -> Predicate? {
        let name = test.name
        if let message = try messagePresence(test) { return message }
        guard !name.contains("."), FieldRegistry.lookup(name) == nil, !PacketFilter.packetTerms.contains(name.lowercased()),
              FieldRegistry.protocols.contains(name) else { return nil }
        if test.relation != nil {
            throw error("'\(name)' is a protocol, which is there or not: compare one of its fields ('btlog fields \(name)' lists them)", test.nameSpan)
        }
        let kinds = ProtocolCatalog.all.flatMap(\.layers).filter { $0.protocolName == name }
        if !kinds.isEmpty {
            return { packet, _ in
                for l in packet.layers.indices where kinds.contains(packet.layers[l].kind) { return true }
                return false
            }
        }
        let mask = FilterCompiler.protocolMask(name)
        fieldsRead += FieldRegistry.all.filter { $0.protocolName == name }
        return FilterCompiler.anyField(in: mask)
    }

    /// `revcar.drive`: a described protocol's message, which is there when any of its fields
    /// (`revcar.drive.*`) is.
    private mutating func messagePresence(_ test: FilterTest) throws -> Predicate? {
        let name = test.name
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, FieldRegistry.lookup(name) == nil, FieldRegistry.isKnownProtocol(String(parts[0])),
              !FieldRegistry.isBuiltIn(String(parts[0])) else { return nil }
        let fields = FieldRegistry.all.filter { $0.name.hasPrefix(name + ".") }
        guard !fields.isEmpty else { return nil }
        if test.relation != nil {
            throw error("'\(name)' is a message, which is there or not: compare one of its fields ('btlog fields \(parts[0])' lists them)", test.nameSpan)
        }
        let mask = FilterCompiler.mask(of: fields)
        fieldsRead += fields
        return FilterCompiler.anyField(in: mask)
    }

    /// True when a layer of the packet has a field whose id `mask` marks.
    static func anyField(in mask: [Bool]) -> Predicate {
        { packet, _ in
            for l in packet.layers.indices {
                let hit = packet.layers[l].fields.withUnsafeBufferPointer { fields in
                    fields.contains { let id = $0.definition.id; return id < mask.count && mask[id] }
                }
                if hit { return true }
            }
            return false
        }
    }

    /// Which field ids belong to a protocol, indexed by id.
    static func protocolMask(_ name: String) -> [Bool] {
        mask(of: FieldRegistry.all.filter { $0.protocolName == name })
    }

    static func mask(of fields: [FieldDefinition]) -> [Bool] {
        var mask = [Bool](repeating: false, count: (FieldRegistry.all.map(\.id).max() ?? 0) + 1)
        for field in fields { mask[field.id] = true }
        return mask
    }

    // MARK: Names

    private mutating func resolve(_ test: FilterTest) throws -> FilterOperand {
        let name = test.name
        if !name.contains("."), let term = try packetTerm(name.lowercased(), test) { return term }
        if let field = FieldRegistry.lookup(name) ?? FieldRegistry.lookup(name.lowercased()) { return operand(for: field) }
        let known = FieldRegistry.all.map(\.name) + PacketFilter.packetTerms + FieldRegistry.protocols
        var message = "unknown field '\(name)'"
        if let suggestion = FilterCompiler.closest(to: name, among: known) {
            message += " (did you mean \(suggestion)?)"
        } else {
            message += "; 'btlog fields' lists the fields"
        }
        throw error(message, test.nameSpan)
    }

    /// A registry field: its values in every layer, from the outermost up.
    private mutating func operand(for field: FieldDefinition) -> FilterOperand {
        fieldsRead.append(field)
        let id = field.id
        let visit: (Packet, StageContext, (FieldValue) -> Bool) -> Void
        if field.isFrameField {
            visit = { packet, _, body in
                var going = true
                packet.forEachValue(of: field) { value in if going { going = body(value) } }
            }
        } else {
            visit = { packet, _, body in
                for l in packet.layers.indices {
                    let going = packet.layers[l].fields.withUnsafeBufferPointer { fields in
                        for f in fields.indices where fields[f].definition.id == id {
                            if !body(fields[f].inlineValue ?? packet.layers[l].value(of: fields[f])) { return false }
                        }
                        return true
                    }
                    if !going { return }
                }
            }
        }
        return FilterOperand(name: field.name, type: field.type, visit: visit, field: field, protocolName: field.protocolName)
    }

    /// The names that test the packet as a whole rather than one protocol's field.
    private mutating func packetTerm(_ name: String, _ test: FilterTest) throws -> FilterOperand? {
        func single(_ type: FieldType, _ value: @escaping (Packet, StageContext) -> FieldValue?) -> FilterOperand {
            FilterOperand(name: name, type: type, visit: { packet, context, body in
                if let v = value(packet, context) { _ = body(v) }
            })
        }
        switch name {
        case "error", "warning":
            let severity: Issue.Severity = name == "error" ? .error : .warning
            var operand = FilterOperand(name: name, type: .string, visit: { packet, _, body in
                for l in packet.layers.indices {
                    for issue in packet.layers[l].issues where issue.severity == severity {
                        if !body(.text(issue.message)) { return }
                    }
                }
            })
            operand.alone = severity == .error ? { packet, _ in packet.hasError } : { packet, _ in packet.hasWarning }
            if let relation = test.relation {
                switch relation {
                case .contains, .matches: break
                default: throw error("'\(name)' stands alone or takes 'contains' or 'matches' on its message", test.span)
                }
            }
            return operand
        case "flagged":
            readsAnnotations = true
            if test.relation != nil { throw error("'flagged' stands alone: flagged, or not flagged", test.span) }
            var operand = single(.bool) { packet, _ in .bool(packet.flagged) }
            operand.alone = { packet, _ in packet.flagged }
            return operand
        case "comment":
            readsAnnotations = true
            return single(.string) { packet, _ in packet.comment.map { .text($0) } }
        case "direction":
            var operand = single(.string) { packet, _ in
                switch packet.frame.direction {
                case .sent: return .text("sent")
                case .received: return .text("received")
                case .none: return nil
                }
            }
            operand.readLiteral = { literal in
                switch literal.text.lowercased() {
                case "sent", "send", "tx", "out": return .constant(.text("sent"))
                case "received", "receive", "rx", "in": return .constant(.text("received"))
                default: return nil
                }
            }
            operand.literalHint = "sent or received"
            return operand
        case "handle":
            return single(.uint16) { packet, _ in packet.handle.map { .u16($0) } }
        case "address":
            return single(.address) { packet, _ in packet.peer.map { .address($0) } }
        case "controller":
            return single(.uint16) { packet, _ in
                packet.frame.controller == Frame.systemController ? nil : .count(Int(packet.frame.controller))
            }
        case "number":
            return single(.uint64) { packet, _ in .count(packet.frame.number) }
        case "time":
            var operand = single(.time) { packet, _ in .time(packet.frame.timestamp) }
            operand.readLiteral = { literal in TimeLiteral.parse(literal.text).map { .time($0, TimeCache()) } }
            operand.literalHint = "a time such as \"23:04:39.8\", \"2019-05-08 23:04:39\" or seconds since the epoch"
            return operand
        case "reltime":
            var operand = single(.int) { packet, context in .signed(Microseconds.difference(packet.frame.timestamp, context.captureStart)) }
            operand.readLiteral = { literal in SecondsLiteral.parse(literal.text).map { .constant(.signed($0)) } }
            operand.literalHint = "seconds since the first packet, such as 12.5"
            return operand
        default:
            return nil
        }
    }

    // MARK: Values

    private func valueTest(_ relation: FilterTest.Relation, for operand: FilterOperand, test: FilterTest) throws -> ValueTest {
        let type = operand.type
        switch relation {
        case .compare(let comparison, let literal):
            let value = try literalValue(literal, for: operand)
            switch comparison {
            case .equal: return FilterCompiler.equality(value)
            case .notEqual:
                let equal = FilterCompiler.equality(value)
                return { !equal($0, $1) }
            default:
                guard FilterCompiler.isOrdered(type) else {
                    throw error("'\(comparison.rawValue)' compares numbers and times; \(operand.name) is \(FilterCompiler.describe(type))", test.span)
                }
                return { candidate, context in
                    guard let order = candidate.compare(value.value(context)) else { return false }
                    switch comparison {
                    case .less: return order < 0
                    case .lessEqual: return order <= 0
                    case .greater: return order > 0
                    default: return order >= 0
                    }
                }
            }
        case .contains(let literal):
            switch type {
            case .string:
                let part = literal.text
                return { candidate, _ in
                    if case .text(let whole) = candidate { return ByteSearch.contains(whole, part) }
                    return false
                }
            case .bytes:
                guard case .constant(.bytes(let part)) = try literalValue(literal, for: operand) else { return { _, _ in false } }
                return { candidate, _ in
                    if case .bytes(let whole) = candidate { return ByteSearch.contains(whole, part) }
                    return false
                }
            default:
                throw error("'contains' looks inside text and byte strings; \(operand.name) is \(FilterCompiler.describe(type))", test.span)
            }
        case .matches(let literal):
            guard type == .string else {
                throw error("'matches' applies to text; \(operand.name) is \(FilterCompiler.describe(type))", test.span)
            }
            let pattern: TextPattern
            do {
                pattern = try TextPattern(literal.text)
            } catch let failure as TextPattern.CompileError {
                // The caret goes under the pattern's character at fault (inside the quotes).
                let prefix = literal.text.utf8.prefix(failure.offset)
                let column = literal.span.lowerBound + (literal.quoted ? 1 : 0) + String(decoding: prefix, as: UTF8.self).unicodeScalars.count
                throw error("bad regular expression: \(failure.message)", min(column, literal.span.upperBound - 1) ..< min(column, literal.span.upperBound - 1) + 1)
            }
            return { candidate, _ in
                if case .text(let whole) = candidate { return pattern.matches(whole) }
                return false
            }
        case .member(let items):
            var tests: [ValueTest] = []
            for item in items {
                switch item {
                case .single(let literal):
                    tests.append(FilterCompiler.equality(try literalValue(literal, for: operand)))
                case .range(let low, let high):
                    guard FilterCompiler.isOrdered(type) else {
                        throw error("a range needs numbers or times; \(operand.name) is \(FilterCompiler.describe(type))", low.span.lowerBound ..< high.span.upperBound)
                    }
                    let from = try literalValue(low, for: operand), to = try literalValue(high, for: operand)
                    if case .constant(let a) = from, case .constant(let b) = to, let order = a.compare(b), order > 0 {
                        throw error("the range runs backwards (\(low.text) is above \(high.text))", low.span.lowerBound ..< high.span.upperBound)
                    }
                    tests.append { candidate, context in
                        guard let above = candidate.compare(from.value(context)), let below = candidate.compare(to.value(context)) else { return false }
                        return above >= 0 && below <= 0
                    }
                }
            }
            if tests.count == 1 { return tests[0] }
            return { candidate, context in tests.contains { $0(candidate, context) } }
        }
    }

    /// Equality in meaning (0x0004 is 4; a 16-bit UUID its 128-bit form), with a fast path for
    /// the common integer case.
    private static func equality(_ literal: LiteralValue) -> ValueTest {
        if case .constant(.unsigned(let wanted, _)) = literal {
            return { candidate, _ in
                if case .unsigned(let v, _) = candidate { return v == wanted }
                return candidate.matches(.unsigned(wanted, width: 0))
            }
        }
        return { candidate, context in candidate.matches(literal.value(context)) }
    }

    private func literalValue(_ literal: FilterLiteral, for operand: FilterOperand) throws -> LiteralValue {
        if let read = operand.readLiteral {
            if let value = read(literal) { return value }
            throw error("\(operand.name) takes \(operand.literalHint ?? FilterCompiler.describe(operand.type)), not '\(literal.text)'", literal.span)
        }
        let type = operand.type
        switch type {
        case .uint8, .uint16, .uint32, .uint64, .int:
            if !literal.quoted, let value = FieldValue.parse(literal.text, as: type) { return .constant(value) }
            if let field = operand.field, !FieldValueNames.names(of: field).isEmpty {
                switch FieldValueNames.resolve(literal.text, for: field) {
                case .value(let v): return .constant(.unsigned(v, width: 0))
                case .ambiguous(let names):
                    let listed = names.prefix(4).map { "\($0.key) (\(Hex.format($0.value, width: 2)))" }.joined(separator: ", ")
                    throw error("'\(literal.text)' could be \(listed)\(names.count > 4 ? "..." : ""): say which", literal.span)
                case .unknown: break
                }
                if FieldValue.parse(literal.text, as: .uint64) != nil {
                    throw error("\(literal.text) does not fit \(operand.name), \(FilterCompiler.describe(type))", literal.span)
                }
                throw error("'\(literal.text)' is not a value of \(operand.name): give a number or a name ('btlog fields \(operand.name) --values' lists them)", literal.span)
            }
            if FieldValue.parse(literal.text, as: .uint64) != nil || FieldValue.parse(literal.text, as: .int) != nil {
                throw error("\(literal.text) does not fit \(operand.name), \(FilterCompiler.describe(type))", literal.span)
            }
            throw error("\(operand.name) takes a number (decimal or 0x hex), not '\(literal.text)'", literal.span)
        case .string:
            return .constant(.text(literal.text))
        case .bytes:
            if literal.quoted { return .constant(.bytes(Array(literal.text.utf8)[...])) }
            if let value = FieldValue.parse(literal.text, as: .bytes) { return .constant(value) }
            throw error("\(operand.name) takes bytes such as 01:02:ff (or a quoted string), not '\(literal.text)'", literal.span)
        case .time:
            if let moment = TimeLiteral.parse(literal.text) { return .time(moment, TimeCache()) }
            throw error("\(operand.name) takes a time such as \"23:04:39.8\" or seconds since the epoch, not '\(literal.text)'", literal.span)
        default:
            if let value = FieldValue.parse(literal.text, as: type) { return .constant(value) }
            throw error("\(operand.name) takes \(FilterCompiler.describe(type)), not '\(literal.text)'", literal.span)
        }
    }

    private static func isOrdered(_ type: FieldType) -> Bool {
        switch type {
        case .uint8, .uint16, .uint32, .uint64, .int, .time, .real: return true
        default: return false
        }
    }

    static func describe(_ type: FieldType) -> String {
        switch type {
        case .uint8: return "an 8-bit number"
        case .uint16: return "a 16-bit number"
        case .uint32: return "a 32-bit number"
        case .uint64: return "a number"
        case .int: return "a signed number"
        case .bool: return "true or false (1 or 0)"
        case .string: return "text"
        case .bytes: return "a byte string"
        case .address: return "a device address such as 00:1B:DC:F2:1E:4F"
        case .uuid: return "a UUID such as 180D or 0000180d-0000-1000-8000-00805f9b34fb"
        case .time: return "a time"
        case .real: return "a number such as 36.6"
        }
    }

    // MARK: Suggestions

    /// The known name nearest a misspelt one: within two edits, or the only one it begins.
    static func closest(to name: String, among known: [String]) -> String? {
        let wanted = Array(name.lowercased().unicodeScalars)
        var best: (String, Int)?
        for candidate in known {
            let distance = editDistance(wanted, Array(candidate.unicodeScalars), limit: 2)
            if distance <= 2, best.map({ distance < $0.1 }) ?? true { best = (candidate, distance) }
        }
        if let best { return best.0 }
        let extensions = known.filter { $0.hasPrefix(name.lowercased()) }
        return extensions.count == 1 ? extensions[0] : nil
    }

    private static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar], limit: Int) -> Int {
        if abs(a.count - b.count) > limit { return limit + 1 }
        var previous = Array(0 ... b.count)
        for i in 1 ... max(1, a.count) where !a.isEmpty {
            var row = [i] + [Int](repeating: 0, count: b.count)
            for j in 1 ... max(1, b.count) where !b.isEmpty {
                row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = row
        }
        return previous[b.count]
    }
}
