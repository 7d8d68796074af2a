/// The words and symbols of a filter expression, each with where it stands.
struct FilterToken: Equatable {
    enum Kind: Equatable {
        /// A field name, keyword, number, address, byte string or value name: anything else.
        case word(String)
        /// A quoted string, escapes resolved.
        case string(String)
        case symbol(Symbol)
        case end
    }

    enum Symbol: String, CaseIterable {
        case openParen = "(", closeParen = ")", openBrace = "{", closeBrace = "}", comma = ",", range = ".."
        case equal = "==", notEqual = "!=", lessEqual = "<=", greaterEqual = ">=", less = "<", greater = ">"
        case and = "&&", or = "||", not = "!", tilde = "~"
    }

    var kind: Kind
    /// Offsets in the expression's Unicode scalars.
    var span: Range<Int>
}

/// Splits an expression into tokens. A word runs until white space, a symbol or a quote, and
/// stops before ".." (so `0x10..0x1f` is a range); `a=b` is read as `a == b`, as tshark does.
enum FilterLexer {
    static func tokens(_ expression: String) throws -> [FilterToken] {
        let scalars = Array(expression.unicodeScalars)
        var tokens: [FilterToken] = []
        var i = 0
        func peek(_ offset: Int) -> Unicode.Scalar? { i + offset < scalars.count ? scalars[i + offset] : nil }
        while i < scalars.count {
            let c = scalars[i]
            if c.properties.isWhitespace { i += 1; continue }
            if c == "\"" {
                let start = i
                i += 1
                var text = String.UnicodeScalarView()
                var closed = false
                while i < scalars.count {
                    let s = scalars[i]
                    if s == "\\", i + 1 < scalars.count {
                        let next = scalars[i + 1]
                        switch next {
                        case "n": text.append("\n")
                        case "t": text.append("\t")
                        case "r": text.append("\r")
                        default: text.append(next)
                        }
                        i += 2
                        continue
                    }
                    if s == "\"" { closed = true; i += 1; break }
                    text.append(s)
                    i += 1
                }
                guard closed else { throw FilterError("the string has no closing quote", in: expression, at: start ..< scalars.count) }
                tokens.append(FilterToken(kind: .string(String(text)), span: start ..< i))
                continue
            }
            if let symbol = symbol(at: i, in: scalars) {
                var s = symbol
                var length = symbol.rawValue.unicodeScalars.count
                // A single '=' is equality (tshark and SQL habits); '&' and '|' alone are not symbols.
                if s == .not, peek(1) == "=" { s = .notEqual; length = 2 }
                tokens.append(FilterToken(kind: .symbol(s), span: i ..< i + length))
                i += length
                continue
            }
            if c == "=" {
                let length = peek(1) == "=" ? 2 : 1
                tokens.append(FilterToken(kind: .symbol(.equal), span: i ..< i + length))
                i += length
                continue
            }
            if c == "&" || c == "|" || c == "'" {
                let hint = c == "'" ? "strings are quoted with \"" : "write \(c)\(c) (or \(c == "&" ? "and" : "or"))"
                throw FilterError("unexpected '\(c)': \(hint)", in: expression, at: i ..< i + 1)
            }
            let start = i
            while i < scalars.count {
                let s = scalars[i]
                if s.properties.isWhitespace || s == "\"" || s == "=" || s == "&" || s == "|" || s == "'" { break }
                if s == ".", peek(1) == "." { break }
                if s != "." && s != "-" && symbol(at: i, in: scalars) != nil { break }
                i += 1
            }
            tokens.append(FilterToken(kind: .word(String(String.UnicodeScalarView(scalars[start ..< i]))), span: start ..< i))
        }
        tokens.append(FilterToken(kind: .end, span: scalars.count ..< scalars.count))
        return tokens
    }

    /// The longest symbol starting at `i`, if any.
    private static func symbol(at i: Int, in scalars: [Unicode.Scalar]) -> FilterToken.Symbol? {
        if i + 1 < scalars.count {
            let pair = String(String.UnicodeScalarView([scalars[i], scalars[i + 1]]))
            if let symbol = FilterToken.Symbol(rawValue: pair) { return symbol }
        }
        return FilterToken.Symbol(rawValue: String(scalars[i]))
    }
}
