import XCTest
import BTBrowse

/// The grid the screen is drawn into: text placed by terminal columns, wide characters taking
/// two, nothing from a capture moving the cursor, nothing written outside the grid.
final class CellGridTests: XCTestCase {
    func testWideAndZeroWidthCharacters() {
        var grid = CellGrid(width: 10, height: 2)
        // "日本" takes four columns; "é" written as e + a combining accent takes one.
        let end = grid.put("日本e\u{301}x", row: 0, column: 0)
        XCTAssertEqual(end, 6)
        XCTAssertEqual(grid[0, 0].text, "日")
        XCTAssertEqual(grid[0, 1].text, "", "the right half of a wide character")
        XCTAssertEqual(grid[0, 4].text, "e\u{301}")
        XCTAssertEqual(grid.lines[0], "日本e\u{301}x")
        XCTAssertEqual(CellWidth.columns("⚑▼─"), 3)
        XCTAssertEqual(CellWidth.columns("🎧"), 2)
        XCTAssertEqual(CellWidth.columns("\u{200B}"), 0, "zero width space")
    }

    func testTextIsCutAtTheEdgeAndAWideCharacterIsNotSplit() {
        var grid = CellGrid(width: 5, height: 1)
        XCTAssertEqual(grid.put("abcd日", row: 0, column: 0), 4, "the wide character would need columns 4 and 5")
        XCTAssertEqual(grid.lines[0], "abcd")
        XCTAssertEqual(grid.put("xyz", row: 0, column: 1, limit: 3), 3)
        XCTAssertEqual(grid.lines[0], "axyd")
    }

    func testControlCharactersAreSpaces() {
        var grid = CellGrid(width: 12, height: 1)
        grid.put("a\u{1B}[2Jb\tc\u{9B}d", row: 0, column: 0)
        XCTAssertFalse(grid.cells.contains { $0.text.unicodeScalars.contains { $0.value < 0x20 || (0x7F ..< 0xA0).contains($0.value) } })
        XCTAssertEqual(grid.lines[0], "a [2Jb c d")
    }

    func testNothingIsWrittenOutside() {
        var grid = CellGrid(width: 3, height: 2)
        XCTAssertEqual(grid.put("abc", row: 2, column: 0), 0)
        XCTAssertEqual(grid.put("abc", row: -1, column: 0), 0)
        XCTAssertEqual(grid.put("abc", row: 0, column: -4), -4)
        grid.paint(row: 1, columns: -5 ..< 50, look: CellGrid.Look(.red))
        grid.clear(row: 9)
        XCTAssertEqual(grid.lines, ["", ""])
        XCTAssertEqual(grid[1, 2].look.colour, .red)
        XCTAssertEqual(CellGrid(width: -3, height: 1_000_000).cells.count, 0)
    }
}
