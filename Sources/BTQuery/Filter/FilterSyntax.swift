/// A parsed filter expression, before names are resolved: what `FilterParser` builds and
/// `FilterCompiler` turns into a predicate.
indirect enum FilterExpression: Equatable {
    case and(FilterExpression, FilterExpression)
    case or(FilterExpression, FilterExpression)
    case not(FilterExpression)
    case test(FilterTest)
}

/// One test: a name alone (is it there?) or a name, a relation and what it is compared with.
struct FilterTest: Equatable {
    enum Quantifier: Equatable { case any, all }
    enum Comparison: String, Equatable { case equal = "==", notEqual = "!=", less = "<", lessEqual = "<=", greater = ">", greaterEqual = ">=" }
    enum Relation: Equatable {
        case compare(Comparison, FilterLiteral)
        case contains(FilterLiteral)
        case matches(FilterLiteral)
        case member([FilterSetItem])
    }

    var quantifier: Quantifier?
    var name: String
    var nameSpan: Range<Int>
    var relation: Relation?
    /// The whole test, for messages about it.
    var span: Range<Int>
}

/// A value as written: a bare word or a quoted string.
struct FilterLiteral: Equatable {
    var text: String
    var quoted: Bool
    var span: Range<Int>
}

enum FilterSetItem: Equatable {
    case single(FilterLiteral)
    case range(FilterLiteral, FilterLiteral)
}

/// Recursive descent over the tokens, loosest first: or, and, not, then a test or a
/// parenthesised expression. `and`/`&&`, `or`/`||`, `not`/`!`; `eq ne lt le gt ge` and `~`
/// (matches) as tshark writes them.
struct FilterParser {
    private let expression: String
    private let tokens: [FilterToken]
    private var position = 0

    static func parse(_ expression: String) throws -> FilterExpression {
        var parser = FilterParser(expression: expression, tokens: try FilterLexer.tokens(expression))
        guard parser.tokens.count > 1 else {
            throw FilterError("the filter is empty", in: expression, at: 0 ..< max(1, expression.unicodeScalars.count))
        }
        let result = try parser.parseOr()
        let next = parser.current
        if next.kind != .end {
            if case .symbol(.closeParen) = next.kind { throw parser.error("')' without a matching '('", next.span) }
            throw parser.error("expected 'and', 'or' or the end of the filter, not \(describe(next))", next.span)
        }
        return result
    }

    private var current: FilterToken { tokens[position] }
    private mutating func advance() { if position < tokens.count - 1 { position += 1 } }
    private func error(_ message: String, _ span: Range<Int>) -> FilterError { FilterError(message, in: expression, at: span) }

    private func isWord(_ token: FilterToken, _ words: String...) -> Bool {
        if case .word(let w) = token.kind { return words.contains(w.lowercased()) }
        return false
    }

    private mutating func parseOr() throws -> FilterExpression {
        var left = try parseAnd()
        while current.kind == .symbol(.or) || isWord(current, "or") {
            advance()
            left = .or(left, try parseAnd())
        }
        return left
    }

    private mutating func parseAnd() throws -> FilterExpression {
        var left = try parseNot()
        while current.kind == .symbol(.and) || isWord(current, "and") {
            advance()
            left = .and(left, try parseNot())
        }
        return left
    }

    private mutating func parseNot() throws -> FilterExpression {
        if current.kind == .symbol(.not) || isWord(current, "not") {
            advance()
            return .not(try parseNot())
        }
        return try parsePrimary()
    }

    private mutating func parsePrimary() throws -> FilterExpression {
        let token = current
        switch token.kind {
        case .symbol(.openParen):
            advance()
            let inner = try parseOr()
            guard current.kind == .symbol(.closeParen) else {
                throw error("'(' at column \(token.span.lowerBound + 1) is not closed", current.kind == .end ? token.span : current.span)
            }
            advance()
            return inner
        case .word(let word):
            if ["and", "or", "contains", "matches", "in"].contains(word.lowercased()) {
                throw error("expected a field or protocol name before '\(word)'", token.span)
            }
            return .test(try parseTest())
        case .end:
            throw error("the filter ends where a field or protocol name is expected", token.span)
        case .string:
            throw error("expected a field or protocol name, not a string", token.span)
        case .symbol(let symbol):
            throw error("expected a field or protocol name, not '\(symbol.rawValue)'", token.span)
        }
    }

    private mutating func parseTest() throws -> FilterTest {
        var quantifier: FilterTest.Quantifier?
        let start = current.span.lowerBound
        if isWord(current, "all", "any"), case .word = tokens[position + 1].kind {
            quantifier = isWord(current, "all") ? .all : .any
            advance()
        }
        guard case .word(let name) = current.kind else { throw error("expected a field name", current.span) }
        let nameSpan = current.span
        advance()
        var test = FilterTest(quantifier: quantifier, name: name, nameSpan: nameSpan, relation: nil, span: start ..< nameSpan.upperBound)
        let token = current
        var comparison: FilterTest.Comparison?
        switch token.kind {
        case .symbol(.equal): comparison = .equal
        case .symbol(.notEqual): comparison = .notEqual
        case .symbol(.less): comparison = .less
        case .symbol(.lessEqual): comparison = .lessEqual
        case .symbol(.greater): comparison = .greater
        case .symbol(.greaterEqual): comparison = .greaterEqual
        case .symbol(.tilde):
            advance()
            test.relation = .matches(try parseLiteral(after: "~"))
        case .word(let word):
            switch word.lowercased() {
            case "eq": comparison = .equal
            case "ne": comparison = .notEqual
            case "lt": comparison = .less
            case "le": comparison = .lessEqual
            case "gt": comparison = .greater
            case "ge": comparison = .greaterEqual
            case "contains":
                advance()
                test.relation = .contains(try parseLiteral(after: "contains"))
            case "matches":
                advance()
                test.relation = .matches(try parseLiteral(after: "matches"))
            case "in":
                advance()
                test.relation = .member(try parseSet())
            default: break
            }
        default: break
        }
        if let comparison {
            advance()
            test.relation = .compare(comparison, try parseLiteral(after: comparison.rawValue))
        }
        test.span = start ..< tokens[max(0, position - 1)].span.upperBound
        return test
    }

    private mutating func parseLiteral(after what: String) throws -> FilterLiteral {
        let token = current
        switch token.kind {
        case .word(let w):
            advance()
            return FilterLiteral(text: w, quoted: false, span: token.span)
        case .string(let s):
            advance()
            return FilterLiteral(text: s, quoted: true, span: token.span)
        case .end:
            throw error("a value is missing after '\(what)'", token.span.lowerBound > 0 ? token.span.lowerBound - 1 ..< token.span.lowerBound : token.span)
        case .symbol(let symbol):
            throw error("expected a value after '\(what)', not '\(symbol.rawValue)'", token.span)
        }
    }

    /// `{a b c}`, `{a, b}`, `{0x10..0x1f 0x40}`.
    private mutating func parseSet() throws -> [FilterSetItem] {
        let open = current
        guard open.kind == .symbol(.openBrace) else { throw error("'in' takes a set in braces: in {1 2 3} or in {0x10..0x1f}", open.span) }
        advance()
        var items: [FilterSetItem] = []
        while true {
            switch current.kind {
            case .symbol(.closeBrace):
                advance()
                if items.isEmpty { throw error("the set is empty", open.span.lowerBound ..< tokens[position - 1].span.upperBound) }
                return items
            case .symbol(.comma):
                advance()
            case .end:
                throw error("the set that starts here is not closed with '}'", open.span)
            default:
                let low = try parseLiteral(after: "{")
                if current.kind == .symbol(.range) {
                    advance()
                    items.append(.range(low, try parseLiteral(after: "..")))
                } else {
                    items.append(.single(low))
                }
            }
        }
    }

    private static func describe(_ token: FilterToken) -> String {
        switch token.kind {
        case .word(let w): return "'\(w)'"
        case .string(let s): return "\"\(s)\""
        case .symbol(let s): return "'\(s.rawValue)'"
        case .end: return "the end"
        }
    }
}
