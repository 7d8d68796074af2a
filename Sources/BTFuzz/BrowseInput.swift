import BTBrowse
import BTCapture
import BTDecode

/// The browse target's input: [key count][keys][DecoderInput records].
public enum BrowseInput {
    /// What a key byte presses: characters the browser and its fields use, the special keys,
    /// and (from the byte's high values) clicks, wheel turns and resizes placed by the byte.
    static let characters = Array(#"jkgGbnN/:fAOEDHTcFC?-+= lhat.op0x1{}"(sd"#)

    static func key(_ byte: UInt8) -> BrowserKey {
        let special: [BrowserKey] = [.up, .down, .left, .right, .pageUp, .pageDown, .home, .end, .enter, .tab, .backTab,
                                     .backspace, .delete, .escape, .control("u"), .control("w"), .control("a"), .control("e")]
        let index = Int(byte)
        if index < characters.count { return .character(characters[index]) }
        if index < characters.count + special.count { return special[index - characters.count] }
        switch byte % 4 {
        case 0: return .click(row: Int(byte) % 40, column: Int(byte) % 7, double: byte & 8 != 0)
        case 1: return .wheel(row: Int(byte) % 40, column: 0, down: byte & 8 != 0)
        case 2: return .resize(width: Int(byte) % 130, height: Int(byte >> 2) % 45)
        default: return .character(Character(UnicodeScalar(0x20 + byte % 0x5F)))
        }
    }

    /// A seed: keys a user would press (each character of `keys` that `key` maps a byte to;
    /// "\n" is Enter, "\t" Tab), then the frames.
    public static func encode(keys: String, frames: [Frame]) -> [UInt8] {
        let bytes: [UInt8] = keys.compactMap { character in
            if character == "\n" { return UInt8(characters.count + 8) }
            if character == "\t" { return UInt8(characters.count + 9) }
            return characters.firstIndex(of: character).map { UInt8($0) }
        }
        return [UInt8(min(bytes.count, 255))] + bytes.prefix(255) + DecoderInput.encode(frames)
    }

    public static func run(_ input: [UInt8]) {
        guard let count = input.first.map(Int.init), input.count > count else { return }
        let keys = input[1 ..< 1 + count].map(key)
        let frames = DecoderInput.frames(from: Array(input[(count + 1)...]))
        let decoder = Decoder(options: DecodeOptions(buildsDisplayText: false))
        let index = PacketIndex(decoder: decoder, interval: 4)
        for frame in frames {
            index.record(frame)
            index.noteDecoded(decoder.decode(frame))
        }
        let browser = Browser(index: index, loader: nil, source: "fuzz", width: 100, height: 30)
        let screen = BrowserScreen(colours: true, unicode: true)
        for key in keys {
            browser.handle(key)
            browser.scan?.wait()
            browser.tick()
            let grid = screen.draw(browser)
            precondition(grid.width == browser.width && grid.height == browser.height, "the grid is not the screen's size")
            if let selected = browser.list.selected {
                precondition(selected >= 0 && selected < browser.list.rows.count, "the selection left the rows")
                precondition(browser.list.visibleRows.contains(selected), "the selection is off screen")
            }
            let tree = browser.tree
            precondition(tree.tree.lines.isEmpty || tree.tree.lines.indices.contains(tree.selected), "the tree's selection left its lines")
            if let highlight = browser.shownBytes.highlight {
                precondition(highlight.upperBound <= browser.shownBytes.bytes.count, "a highlight past the bytes")
            }
        }
    }
}
