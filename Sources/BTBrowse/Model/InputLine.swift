/// The one-line text field at the bottom of the screen (the filter, a search, a packet number):
/// its text and cursor, edited as readline's basic keys do.
public struct InputLine: Equatable {
    public enum Purpose: Equatable {
        case filter
        case search
        case goTo
        case comment
        /// A file to export to: the packets listed, or the selected one alone.
        case export(selectedOnly: Bool)
    }

    public let purpose: Purpose
    /// The text, as characters (the cursor moves by character).
    public private(set) var characters: [Character]
    /// Where the next character goes: 0 ... characters.count.
    public private(set) var cursor: Int
    /// A search's scope: every line of each packet's tree, not its row alone (Tab toggles it).
    public var searchesTree = false

    public init(_ purpose: Purpose, text: String = "") {
        self.purpose = purpose
        characters = Array(text)
        cursor = characters.count
    }

    public var text: String { String(characters) }

    /// What the field is called, before its text.
    public var prompt: String {
        switch purpose {
        case .filter: return "Filter: "
        case .search: return searchesTree ? "Search tree: " : "Search rows: "
        case .goTo: return "Go to packet: "
        case .comment: return "Comment: "
        case .export(let selectedOnly): return selectedOnly ? "Export the selected packet to: " : "Export the listed packets to: "
        }
    }

    public mutating func insert(_ character: Character) {
        guard characters.count < 4096 else { return }
        characters.insert(character, at: cursor)
        cursor += 1
    }

    public mutating func insert(_ text: String) {
        for character in text { insert(character) }
    }

    public mutating func deleteBackward() {
        guard cursor > 0 else { return }
        characters.remove(at: cursor - 1)
        cursor -= 1
    }

    public mutating func deleteForward() {
        guard cursor < characters.count else { return }
        characters.remove(at: cursor)
    }

    public mutating func moveLeft() { cursor = max(0, cursor - 1) }
    public mutating func moveRight() { cursor = min(characters.count, cursor + 1) }
    public mutating func moveHome() { cursor = 0 }
    public mutating func moveEnd() { cursor = characters.count }
    public mutating func clear() {
        characters = []
        cursor = 0
    }

    /// Deletes the word before the cursor (Ctrl-W).
    public mutating func deleteWord() {
        while cursor > 0 && characters[cursor - 1] == " " { deleteBackward() }
        while cursor > 0 && characters[cursor - 1] != " " { deleteBackward() }
    }

    /// The word the cursor ends (letters, digits, '_' and '.'), for completion: its start and text.
    public var wordBeforeCursor: (start: Int, text: String) {
        var start = cursor
        while start > 0, Self.isWordCharacter(characters[start - 1]) { start -= 1 }
        return (start, String(characters[start ..< cursor]))
    }

    /// Replaces the word before the cursor with `word`.
    public mutating func replaceWord(with word: String) {
        let start = wordBeforeCursor.start
        characters.replaceSubrange(start ..< cursor, with: Array(word))
        cursor = start + word.count
    }

    static func isWordCharacter(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "_" || character == "."
    }
}
