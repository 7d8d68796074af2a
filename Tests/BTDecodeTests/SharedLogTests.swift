import XCTest
import BTCapture
@testable import BTDecode

/// The lists the Session's copies share (`SharedLog`): each copy sees exactly what it appended
/// and what was appended before it was copied, whatever the others do, on any thread.
final class SharedLogTests: XCTestCase {
    func testACopySeesItsOwnPrefix() {
        var live = SharedLog<Int>()
        live.append(1)
        live.append(2)
        let saved = live
        live.append(3)
        XCTAssertEqual(saved.elements, [1, 2])
        XCTAssertEqual(live.elements, [1, 2, 3])
        // Appending after the copy copied nothing.
        XCTAssertTrue(live.sharesStorage(with: saved))

        // The saved copy decoded forward (as the browser does) goes its own way.
        var forward = saved
        forward.append(30)
        forward.append(40)
        XCTAssertEqual(forward.elements, [1, 2, 30, 40])
        XCTAssertEqual(live.elements, [1, 2, 3])
        XCTAssertEqual(saved.elements, [1, 2])
        XCTAssertFalse(forward.sharesStorage(with: saved))
        live.append(4)
        XCTAssertEqual(live.elements, [1, 2, 3, 4])
        XCTAssertEqual(forward.elements, [1, 2, 30, 40])
        XCTAssertEqual(forward.lastIndex(where: { $0 < 10 }), 1)
        XCTAssertEqual(live.lastIndex(where: { $0 < 10 }), 3)
    }

    func testAnIdentitySeenIsNotAppendedAgainButOnlyWithinTheCopy() {
        var live = SharedLog<String>()
        XCTAssertTrue(live.append("a", unlessSeen: [1]))
        let saved = live
        XCTAssertTrue(live.append("b", unlessSeen: [2]))
        XCTAssertFalse(live.append("a again", unlessSeen: [1]))
        XCTAssertEqual(live.elements, ["a", "b"])

        // The saved copy never saw [2]: behind the end, it appends it into storage of its own.
        var forward = saved
        XCTAssertTrue(forward.append("b elsewhere", unlessSeen: [2]))
        XCTAssertFalse(forward.append("a again", unlessSeen: [1]))
        XCTAssertFalse(forward.append("b again", unlessSeen: [2]))
        XCTAssertEqual(forward.elements, ["a", "b elsewhere"])
        XCTAssertEqual(live.elements, ["a", "b"])
    }

    /// The browser's two threads: the loader appends to the live Session while the reader decodes
    /// forward from a copy saved earlier, both over the same storage.
    func testTwoThreadsAppendingFromCopiesOfOneLog() {
        var base = SharedLog<Int>()
        for value in 0 ..< 10 { base.append(value) }
        let start = base
        let results = ListsByThread()
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            var mine = start
            for value in 0 ..< 2_000 { mine.append(thread * 10_000 + value) }
            results.set(thread, mine.elements)
        }
        for thread in 0 ..< 4 {
            XCTAssertEqual(results.get(thread), Array(0 ..< 10) + (0 ..< 2_000).map { thread * 10_000 + $0 })
        }
        XCTAssertEqual(start.elements, Array(0 ..< 10))
    }

    /// On a capture's bytes (the kernel harness's two hosts pairing): a Session copied midway
    /// lists the keys shown before the copy, the live one all of them; an IRK copied before its
    /// Identity Address Information has no address in the copy, and has it in the live Session.
    func testASessionCopiedMidwayListsTheKeysOfItsPrefix() throws {
        let url = ModelTests.fixtures.appendingPathComponent("kernel-pairing.btsnoop")
        let reader = try CaptureInput.open(bytes: [UInt8](try Data(contentsOf: url)))
        let decoder = Decoder()
        var copied: Session?
        while let frame = try reader.next() {
            _ = decoder.decode(frame)
            if copied == nil, decoder.session.revealedKeys.last?.kind == .irk { copied = decoder.session }
        }
        let all = decoder.session.revealedKeys
        let early = try XCTUnwrap(copied, "the fixture shows an IRK")
        let shown = early.revealedKeys
        XCTAssertEqual(all.count, 14)
        XCTAssertEqual(shown.count, 9)
        XCTAssertEqual(shown.map(\.key), all.prefix(9).map(\.key))
        XCTAssertEqual(shown.map(\.how), all.prefix(9).map(\.how))
        XCTAssertEqual(shown[8].kind, .irk)
        XCTAssertNil(shown[8].address)
        XCTAssertEqual(all[8].address, BDAddr("00:AA:01:00:00:00"))
        // The same key given again by the same means is listed once, in either.
        XCTAssertEqual(Set(all.map { $0.key + Array($0.how.utf8) }).count, all.count)
    }
}

/// Results by thread, behind a lock.
private final class ListsByThread: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Int: [Int]] = [:]
    func set(_ key: Int, _ value: [Int]) { lock.withLock { values[key] = value } }
    func get(_ key: Int) -> [Int]? { lock.withLock { values[key] } }
}
