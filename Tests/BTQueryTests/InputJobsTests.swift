import XCTest
import Foundation
@testable import BTQuery

/// InputJobs runs inputs at once and hands their spools on in input order.
final class InputJobsTests: XCTestCase {
    /// Job 0 cannot finish until job 2 has run: only jobs running side by side get through, and
    /// the outcomes still arrive 0, 1, 2, 3 with what each wrote into its spool.
    func testJobsOverlapAndAreEmittedInOrder() throws {
        let job2Ran = DispatchSemaphore(value: 0)
        var emitted: [Int] = [], texts: [String] = [], warnings: [[String]] = []
        try InputJobs.run(count: 4, width: 2, job: { index, spool in
            if index == 0 {
                guard job2Ran.wait(timeout: .now() + 10) == .success else { throw CancellationError() }
            }
            if index == 2 { job2Ran.signal() }
            spool.warnings.append("warning \(index)")
            let text = Array("output of \(index)\n".utf8)
            XCTAssertEqual(write(spool.descriptor, text, text.count), text.count)
            return index * 10
        }, emit: { index, spool, outcome in
            emitted.append(index)
            XCTAssertEqual(try outcome.get(), index * 10)
            var bytes: [UInt8] = []
            try spool?.readBack { bytes += $0 }
            texts.append(String(decoding: bytes, as: UTF8.self))
            warnings.append(spool?.warnings ?? [])
        })
        XCTAssertEqual(emitted, [0, 1, 2, 3])
        XCTAssertEqual(texts, (0 ..< 4).map { "output of \($0)\n" })
        XCTAssertEqual(warnings, (0 ..< 4).map { ["warning \($0)"] })
    }

    /// A job's error reaches emit in its place; an error thrown by emit ends the run there.
    func testFailuresKeepTheirPlace() throws {
        struct Broken: Error {}
        var seen: [String] = []
        XCTAssertThrowsError(try InputJobs.run(count: 6, width: 3, job: { index, _ in
            if index == 1 { throw Broken() }
            return index
        }, emit: { index, _, outcome in
            switch outcome {
            case .success(let value): seen.append("\(value)")
            case .failure: seen.append("failed")
            }
            if index == 3 { throw CancellationError() }
        })) { XCTAssertTrue($0 is CancellationError) }
        XCTAssertEqual(seen, ["0", "failed", "2", "3"])
    }
}
