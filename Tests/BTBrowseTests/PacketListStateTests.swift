import XCTest
import BTBrowse

/// The packet list's movement, as a pager and PacketLogger's list move: the selection always
/// on screen, the screen scrolled no further than needed, the tail followed only when asked.
final class PacketListStateTests: XCTestCase {
    func testMovingKeepsTheSelectionOnScreen() {
        var list = PacketListState(rows: .all(count: 100), height: 10)
        XCTAssertEqual(list.selected, 0)
        XCTAssertEqual(list.visibleRows, 0 ..< 10)
        list.move(by: 9)
        XCTAssertEqual(list.selected, 9)
        XCTAssertEqual(list.top, 0, "the screen does not move while the selection is on it")
        list.move(by: 1)
        XCTAssertEqual(list.selected, 10)
        XCTAssertEqual(list.top, 1, "one row further: the screen scrolls one row")
        list.move(by: -5)
        XCTAssertEqual(list.top, 1)
        list.move(by: -10)
        XCTAssertEqual(list.selected, 0)
        XCTAssertEqual(list.top, 0)
        list.move(by: -1)
        XCTAssertEqual(list.selected, 0, "stops at the first row")
        list.move(by: .max)
        XCTAssertEqual(list.selected, 99, "and at the last, without overflowing")
        XCTAssertEqual(list.visibleRows, 90 ..< 100)
        list.move(by: .min)
        XCTAssertEqual(list.selected, 0)
    }

    func testPagesHomeAndEnd() {
        var list = PacketListState(rows: .all(count: 25), height: 10)
        list.move(by: 3)
        list.pageDown()
        XCTAssertEqual(list.selected, 13)
        XCTAssertEqual(list.top, 10)
        list.pageDown()
        XCTAssertEqual(list.selected, 23)
        XCTAssertEqual(list.top, 15, "the last screen is full, not scrolled past the end")
        list.pageDown()
        XCTAssertEqual(list.selected, 24)
        list.pageUp()
        XCTAssertEqual(list.selected, 14)
        XCTAssertEqual(list.top, 5)
        list.home()
        XCTAssertEqual(list.selected, 0)
        XCTAssertEqual(list.top, 0)
        list.end()
        XCTAssertEqual(list.selected, 24)
        XCTAssertEqual(list.visibleRows, 15 ..< 25)
        XCTAssertTrue(list.isOnLastRow)
    }

    func testAResizeKeepsTheSelectionOnScreen() {
        var list = PacketListState(rows: .all(count: 100), height: 20)
        list.move(by: 19)
        list.resize(height: 5)
        XCTAssertEqual(list.selected, 19)
        XCTAssertEqual(list.visibleRows, 15 ..< 20)
        list.resize(height: 0)
        XCTAssertEqual(list.height, 1)
        XCTAssertEqual(list.visibleRows, 19 ..< 20)
        list.resize(height: 200)
        XCTAssertEqual(list.visibleRows, 0 ..< 100)
        list.resize(height: .max)
        list.pageDown()
        XCTAssertEqual(list.selected, 99)
        XCTAssertEqual(list.visibleRows, 0 ..< 100)
    }

    func testNoRows() {
        var list = PacketListState(rows: .matches([]), height: 10)
        XCTAssertNil(list.selected)
        XCTAssertNil(list.selectedPacket)
        list.move(by: 3)
        list.pageDown()
        list.end()
        XCTAssertNil(list.selected)
        XCTAssertEqual(list.visibleRows, 0 ..< 0)
        list.replace(with: .matches([4, 9]))
        XCTAssertEqual(list.selectedPacket, 4)
    }

    /// A file still loading never moves the user; a followed capture does while the last row
    /// is selected, and stops when the user moves up.
    func testGrowingFollowsTheTailOnlyWhenAskedAndOnTheLastRow() {
        var loading = PacketListState(rows: .all(count: 0), height: 10)
        loading.grow(to: .all(count: 1))
        XCTAssertEqual(loading.selected, 0)
        loading.grow(to: .all(count: 500))
        XCTAssertEqual(loading.selected, 0, "a file loading leaves the selection on the first packet")
        XCTAssertEqual(loading.top, 0)

        var followed = PacketListState(rows: .all(count: 0), height: 10)
        followed.followsNewRows = true
        followed.grow(to: .all(count: 3))
        XCTAssertEqual(followed.selected, 2)
        followed.grow(to: .all(count: 30))
        XCTAssertEqual(followed.selected, 29)
        XCTAssertEqual(followed.visibleRows, 20 ..< 30)
        followed.move(by: -4)
        followed.grow(to: .all(count: 60))
        XCTAssertEqual(followed.selected, 25, "reading older packets: the list does not move")
        XCTAssertEqual(followed.top, 20)
        followed.end()
        followed.grow(to: .all(count: 61))
        XCTAssertEqual(followed.selected, 60)
    }

    /// A new filter keeps the selected packet, at the same place on screen; a filter that drops
    /// it selects the next packet it keeps; clearing the filter comes back to the same packet.
    func testReplacingTheRowsKeepsThePacket() {
        var list = PacketListState(rows: .all(count: 1000), height: 10)
        list.select(row: 500)   // the bottom row of the screen (rows 491-500)
        list.move(by: -3)
        list.move(by: 6)        // packet 503, still the bottom row
        let offset = list.selected! - list.top
        XCTAssertEqual(offset, 9)
        list.replace(with: .matches([10, 200, 480, 503, 700, 950]))
        XCTAssertEqual(list.selectedPacket, 503)
        XCTAssertEqual(list.selected, 3)
        XCTAssertEqual(list.selected! - list.top, min(offset, 3), "as near its place on screen as the rows before it allow")
        list.replace(with: .matches([10, 600, 601]))
        XCTAssertEqual(list.selectedPacket, 600, "the first kept packet after the one selected")
        list.replace(with: .matches([1, 2]))
        XCTAssertEqual(list.selectedPacket, 2, "none after it: the last")
        list.replace(with: .all(count: 1000))
        XCTAssertEqual(list.selectedPacket, 2)
        list.select(packet: 777)
        XCTAssertEqual(list.selectedPacket, 777)
        list.replace(with: .matches(Array(stride(from: 0, to: 1000, by: 7).map(Int32.init))))
        XCTAssertEqual(list.selectedPacket, 777)
        list.select(packet: 778)
        XCTAssertEqual(list.selectedPacket, 784)
        list.replace(with: .matches([]))
        XCTAssertNil(list.selected)
    }

    func testRowsMapToPackets() {
        let rows = PacketRows.matches([3, 8, 20])
        XCTAssertEqual(rows.count, 3)
        XCTAssertEqual(rows.packet(atRow: 1), 8)
        XCTAssertNil(rows.packet(atRow: 3))
        XCTAssertNil(rows.packet(atRow: -1))
        XCTAssertEqual(PacketRows.all(count: 5).packet(atRow: 4), 4)
        XCTAssertNil(PacketRows.all(count: 5).packet(atRow: 5))
    }
}
