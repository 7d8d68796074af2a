/// What a key asks the browser to do. Movement means what the pane with the focus makes of it
/// (the list moves its selection, the tree its line, the bytes and a report scroll).
enum BrowserAction: Hashable {
    case up, down, pageUp, pageDown, first, last
    /// Enter: the list opens the tree; the tree folds or unfolds the selected layer.
    case open
    /// ← h: the tree folds a layer, or goes back to the list. → l: the list opens the tree,
    /// the tree unfolds a layer.
    case left, right
    case foldAll, unfoldAll
    /// Esc: back to the list; a report closes.
    case back
    case nextPane, previousPane
    case filter, hideAdvertising, hideFlowControl, errorsOnly, onlyDevice, onlyHandle, onlyType, clearFilters
    case search, nextMatch, previousMatch
    case flag, comment
    case exportListed, exportSelected
    case report(CaptureReports.Kind)
    case goTo, help, quit
}

/// The browser's keys, one table: each line of the help screen with the keys it explains and
/// what each does. The key handlers look keys up here and the help screen is drawn from it,
/// so the two cannot drift apart. (The input line's editing keys are the line's own.)
enum KeyMap {
    struct Entry {
        /// Keys and what each does.
        let bindings: [(keys: [BrowserKey], action: BrowserAction)]
        let help: String
        /// The key column when it is not the keys' names (the mouse).
        var keysText: String?

        init(_ bindings: [(keys: [BrowserKey], action: BrowserAction)], _ help: String, keysText: String? = nil) {
            self.bindings = bindings
            self.help = help
            self.keysText = keysText
        }
    }

    static let entries: [Entry] = [
        Entry([([.up, .character("k")], .up), ([.down, .character("j")], .down)], "previous / next packet (tree line, bytes line)"),
        Entry([([.pageUp, .character("b"), .control("b")], .pageUp), ([.pageDown, .character(" "), .control("f")], .pageDown)], "a screen up / down"),
        Entry([([.home, .character("g")], .first), ([.end, .character("G")], .last)], "first / last"),
        Entry([([.enter], .open)], "list: open the tree · tree: fold or unfold a layer"),
        Entry([([.left, .character("h")], .left), ([.right, .character("l")], .right)], "tree: fold / unfold · back to the list"),
        Entry([([.character("-")], .foldAll), ([.character("+"), .character("=")], .unfoldAll)], "tree: fold / unfold every layer"),
        Entry([([.tab], .nextPane), ([.backTab], .previousPane)], "next / previous pane (list, tree, bytes)"),
        Entry([([.escape], .back)], "back to the list · close a report"),
        Entry([([.character("f")], .filter)], "filter field (-f expressions; Tab completes, Enter applies, Esc cancels)"),
        Entry([([.character("A")], .hideAdvertising), ([.character("O")], .hideFlowControl), ([.character("E")], .errorsOnly)],
              "hide advertising · hide flow control · errors only (toggles)"),
        Entry([([.character("D")], .onlyDevice), ([.character("H")], .onlyHandle), ([.character("T")], .onlyType)],
              "only the selected packet's device · handle · type (toggles)"),
        Entry([([.character("c")], .clearFilters)], "clear the filter and every toggle"),
        Entry([([.character("/")], .search), ([.character("n")], .nextMatch), ([.character("N")], .previousMatch)],
              "search the rows (a regular expression; Tab: every tree line) · next / previous match"),
        Entry([([.character("F")], .flag), ([.character("C")], .comment)], "flag / unflag the packet · comment on it (kept beside the capture, as btlog annotate)"),
        Entry([([.character("w")], .exportListed), ([.character("W")], .exportSelected)],
              "export the listed packets · the selected packet (the format from the file's extension, as btlog export)"),
        Entry([([.character("s")], .report(.statistics)), ([.character("a")], .report(.gatt)), ([.character("d")], .report(.diagnosis))],
              "statistics · GATT databases · diagnosis of the capture, in place of the tree (Esc closes)"),
        Entry([([.character("v")], .report(.values))],
              "values of the selected tree field (or every described amount) over the listed packets, as sparklines"),
        Entry([([.character(":")], .goTo)], "go to a packet number"),
        Entry([], "click selects, double-click opens or folds, wheel scrolls", keysText: "mouse"),
        Entry([([.character("?")], .help)], "this help (any key closes it)"),
        Entry([([.character("q"), .control("c")], .quit)], "quit"),
    ]

    /// Every key's action (a key is bound once: KeyMapTests checks it).
    static let actions: [BrowserKey: BrowserAction] = {
        var table: [BrowserKey: BrowserAction] = [:]
        for entry in entries {
            for binding in entry.bindings { for key in binding.keys { table[key] = table[key] ?? binding.action } }
        }
        return table
    }()

    static func action(for key: BrowserKey) -> BrowserAction? { actions[key] }

    /// The help screen's lines: the keys (named keys, then characters) and what they do.
    static var help: [(String, String)] {
        entries.map { entry in
            if let keysText = entry.keysText { return (keysText, entry.help) }
            let keys = entry.bindings.flatMap(\.keys)
            let named = keys.filter { !$0.isPlainCharacter }.map(\.helpName)
            let characters = keys.filter(\.isPlainCharacter).map(\.helpName)
            let groups = keys.first?.isPlainCharacter == true ? [characters, named] : [named, characters]
            return (groups.filter { !$0.isEmpty }.map { $0.joined(separator: " ") }.joined(separator: "  "), entry.help)
        }
    }
}

extension BrowserKey {
    var isPlainCharacter: Bool {
        if case .character = self { return true }
        return false
    }

    /// How the help screen names the key.
    var helpName: String {
        switch self {
        case .character(" "): return "Space"
        case .character(let c): return String(c)
        case .control(let c): return "Ctrl-" + c.uppercased()
        case .up: return "↑"
        case .down: return "↓"
        case .left: return "←"
        case .right: return "→"
        case .pageUp: return "PgUp"
        case .pageDown: return "PgDn"
        case .home: return "Home"
        case .end: return "End"
        case .enter: return "Enter"
        case .tab: return "Tab"
        case .backTab: return "Shift-Tab"
        case .backspace: return "Backspace"
        case .delete: return "Delete"
        case .escape: return "Esc"
        case .resize, .click, .wheel: return "mouse"
        }
    }
}
