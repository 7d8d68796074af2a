/// What the user did, as the browser model reads it: keys, the mouse and a resize, whatever
/// the terminal back end that saw them.
public enum BrowserKey: Hashable, Sendable {
    case character(Character)
    /// A control key: Ctrl-C is `.control("c")`.
    case control(Character)
    case up, down, left, right, pageUp, pageDown, home, end
    case enter, tab, backTab, backspace, delete, escape
    case resize(width: Int, height: Int)
    /// A click (or a double click) on the cell at (`row`, `column`).
    case click(row: Int, column: Int, double: Bool)
    case wheel(row: Int, column: Int, down: Bool)
}
