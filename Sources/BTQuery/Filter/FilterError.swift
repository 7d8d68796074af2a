/// A filter expression that cannot be compiled: what is wrong and where, for a message that
/// points at the column (`btlog: filter: EXPR: MESSAGE` and a caret line under the spot).
public struct FilterError: Error, Equatable, CustomStringConvertible {
    public let expression: String
    public let message: String
    /// Offsets in the expression's Unicode scalars of the part the message is about.
    public let span: Range<Int>

    public init(_ message: String, in expression: String, at span: Range<Int>) {
        self.expression = expression
        self.message = message
        self.span = span
    }

    /// The expression, then a caret line under the part at fault: two lines, indented by two.
    public var pointer: String {
        let line = expression.unicodeScalars.map { $0 == "\t" || $0 == "\n" ? " " : String($0) }.joined()
        let start = min(span.lowerBound, expression.unicodeScalars.count)
        let width = max(1, span.count)
        return "  \(line)\n  \(String(repeating: " ", count: start))^\(String(repeating: "~", count: width - 1))"
    }

    /// The whole report, as btlog prints it on standard error.
    public var description: String { "filter: \(expression): \(message)\n\(pointer)" }
}
