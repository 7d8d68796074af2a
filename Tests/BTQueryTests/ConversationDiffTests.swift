import XCTest
import BTCapture
import BTDecode
import BTFixtures
@testable import BTQuery

/// `btlog diff`'s alignment of two ATT conversations (issue 34, first part).
final class ConversationDiffTests: XCTestCase {
    func record(_ frame: Int, _ operation: String, _ target: String = "", _ value: [UInt8] = []) -> ConversationRecord {
        ConversationRecord(frame: frame, step: ConversationStep(operation: operation, target: target, value: value, length: value.count))
    }

    func testTheSameConversationHasNoDifference() {
        let a = [record(1, "Exchange MTU Request"), record(2, "Read Request", "Battery Level"), record(3, "Read Response", "Battery Level", [90])]
        let b = a.map { ConversationRecord(frame: $0.frame + 100, step: $0.step) }
        let diff = ConversationDiff(a, b)
        XCTAssertTrue(diff.isEmpty, "packet numbers differ between runs; the steps do not")
        XCTAssertEqual(diff.same, 3)
        XCTAssertEqual(diff.hunks, [])
    }

    func testAChangedValueIsARemovalAndAnAdditionUnlessValuesAreIgnored() {
        let a = [record(1, "Read Request", "Battery Level"), record(2, "Read Response", "Battery Level", [90])]
        let b = [record(5, "Read Request", "Battery Level"), record(6, "Read Response", "Battery Level", [45])]
        let diff = ConversationDiff(a, b)
        XCTAssertEqual([diff.same, diff.removed, diff.added], [1, 1, 1])
        XCTAssertEqual(diff.unifiedText, [
            "@@ A #1-#2 B #5-#6 @@",
            "  #1      #5      Read Request  Battery Level",
            "- #2              Read Response  Battery Level  5A",
            "+         #6      Read Response  Battery Level  2D",
        ])
        XCTAssertTrue(ConversationDiff(a, b, ignoringValues: true).isEmpty, "the same shape: one byte read back")
        let longer = [record(5, "Read Request", "Battery Level"), record(6, "Read Response", "Battery Level", [45, 1])]
        XCTAssertFalse(ConversationDiff(a, longer, ignoringValues: true).isEmpty, "a value of another length is another shape")
    }

    func testHunksKeepThreeStepsOfContextAndMergeNearbyChanges() {
        let a = (1 ... 20).map { record($0, "Write Command", "Data In", [UInt8($0)]) }
        var b = a
        b.remove(at: 9)                                             // step 10 missing
        b.insert(record(99, "Read Request", "Battery Level"), at: 17) // a step only B took
        let diff = ConversationDiff(a, b)
        XCTAssertEqual([diff.removed, diff.added], [1, 1])
        XCTAssertEqual(diff.hunks.count, 2, "seven unchanged steps between the changes: more than twice the context")
        guard diff.hunks.count == 2 else { return }
        XCTAssertEqual(diff.hunks[0].firstChange?.frameA, 10)
        XCTAssertEqual(diff.hunks[0].lines.map(\.kind), [.same, .same, .same, .removed, .same, .same, .same])
        XCTAssertEqual(diff.hunks[1].firstChange?.frameB, 99)
        var nearB = a
        nearB.remove(at: 9)
        nearB.insert(record(99, "Read Request", "Battery Level"), at: 15)
        XCTAssertEqual(ConversationDiff(a, nearB).hunks.count, 1, "five unchanged steps between the changes: within twice the context, one hunk")
    }

    func testARealConversationWithOneExchangeLeftOut() throws {
        // The heart-rate session twice: the second without the Body Sensor Location read and its
        // error (two ATT packets); its packets renumber after them. Exactly those two steps differ.
        let frames = Scenarios.heartRateSession()
        func conversation(_ frames: [Frame]) -> [ConversationRecord] {
            let decoder = Decoder(options: DecodeOptions(buildsDisplayText: true))
            return frames.enumerated().compactMap { index, frame in
                var renumbered = frame
                renumbered.number = index + 1
                return ConversationRecord.of(decoder.decode(renumbered))
            }
        }
        let a = conversation(frames)
        let readIndex = try XCTUnwrap(a.firstIndex { $0.step.operation == "Read Request" && $0.step.target.contains("Body Sensor Location") })
        let dropped = Set([a[readIndex].frame, a[readIndex + 1].frame])
        let b = conversation(frames.enumerated().filter { !dropped.contains($0.offset + 1) }.map(\.element))
        let diff = ConversationDiff(a, b)
        XCTAssertEqual([diff.removed, diff.added], [2, 0], diff.unifiedText.joined(separator: "\n"))
        // The read is retried after pairing, so which of two equal requests is "the" missing one
        // is the alignment's choice; what is missing is not.
        let missing = diff.hunks.flatMap(\.lines).filter { $0.kind == .removed }.map(\.step)
        XCTAssertEqual(Set(missing), Set([a[readIndex].step, a[readIndex + 1].step]))
        XCTAssertEqual(diff.same, a.count - 2)
    }
}

/// `btlog diff`'s comparison of two whole captures (issue 34, first part).
final class CaptureDiffTests: XCTestCase {
    func side(_ frames: [Frame]) throws -> DiffSide {
        let decoder = Decoder()
        var recorder = DiffRecorder()
        for frame in frames { try recorder.consume(decoder.decode(frame)) }
        return recorder.finish()
    }

    func testACaptureAgainstItselfShiftedInTimeHasNoDifference() throws {
        let frames = Scenarios.heartRateSession()
        let shifted = frames.map { frame -> Frame in
            var moved = frame
            moved.timestamp += 86_400_000_000 * 3 + 123_456
            return moved
        }
        let diff = CaptureDiff(try side(frames), try side(shifted))
        XCTAssertTrue(diff.isEmpty, "\(diff.aspects)")
        XCTAssertFalse(diff.peers.isEmpty)
    }

    func testOneExchangeLeftOutIsExactlyWhatDiffers() throws {
        // Without the first Body Sensor Location read and its Insufficient Authentication error:
        // the conversation lacks two steps, and the diagnosis's ATT error is only in A.
        let frames = Scenarios.heartRateSession()
        let decoder = Decoder()
        let packets = frames.map { decoder.decode($0) }
        let read = try XCTUnwrap(packets.firstIndex { ConversationRecord.of($0)?.step.target.contains("Body Sensor Location") == true })
        let b = frames.enumerated().filter { $0.offset != read && $0.offset != read + 1 }.enumerated().map { index, element -> Frame in
            var frame = element.element
            frame.number = index + 1
            return frame
        }
        let diff = CaptureDiff(try side(frames), try side(b))
        let byName = Dictionary(uniqueKeysWithValues: diff.aspects.map { ($0.name, $0.items) })
        XCTAssertEqual(byName["conversations"]?.count, 1)
        XCTAssertTrue(byName["conversations"]?.first?.summary.contains("2 steps only in A, 0 only in B") == true, "\(byName["conversations"] ?? [])")
        XCTAssertEqual(byName["diagnosis"]?.map(\.summary), ["only in A: warning att: Insufficient Authentication (0x05) for Read Request"])
        XCTAssertEqual(byName["connections"], [], "the links are the same")
    }
}
