import XCTest
@testable import BTBrowse

/// The browser's keys come from one table, which the help screen is drawn from.
final class KeyMapTests: XCTestCase {
    /// No key does two things, and every action has a key.
    func testEachKeyIsBoundOnceAndEveryActionHasOne() {
        var seen: [BrowserKey: BrowserAction] = [:]
        for entry in KeyMap.entries {
            for binding in entry.bindings {
                for key in binding.keys {
                    XCTAssertNil(seen[key], "\(key) is bound to \(seen[key].map { "\($0)" } ?? "") and \(binding.action)")
                    seen[key] = binding.action
                }
            }
        }
        let actions: [BrowserAction] = [.up, .down, .pageUp, .pageDown, .first, .last, .open, .left, .right, .foldAll, .unfoldAll, .back,
                                        .nextPane, .previousPane, .filter, .hideAdvertising, .hideFlowControl, .errorsOnly, .onlyDevice,
                                        .onlyHandle, .onlyType, .clearFilters, .search, .nextMatch, .previousMatch, .flag, .comment,
                                        .exportListed, .exportSelected, .report(.statistics), .report(.gatt), .report(.diagnosis),
                                        .goTo, .help, .quit]
        for action in actions { XCTAssertTrue(seen.values.contains(action), "\(action) has no key") }
    }

    /// The help screen names the keys the handlers act on: one line per entry, its keys by name.
    func testHelpComesFromTheTable() {
        let help = Browser.keyHelp
        XCTAssertEqual(help.count, KeyMap.entries.count)
        XCTAssertEqual(help[0].0, "↑ ↓  k j")
        XCTAssertEqual(help[1].0, "PgUp Ctrl-B PgDn Ctrl-F  b Space")
        XCTAssertTrue(help.contains { $0.0 == "q  Ctrl-C" && $0.1 == "quit" })
        XCTAssertTrue(help.contains { $0.0 == "w W" })
        // A key the table binds does what its line says: Ctrl-F pages the list as Space does.
        XCTAssertEqual(KeyMap.action(for: .control("f")), .pageDown)
        XCTAssertEqual(KeyMap.action(for: .character(" ")), .pageDown)
        XCTAssertNil(KeyMap.action(for: .character("z")))
    }
}
