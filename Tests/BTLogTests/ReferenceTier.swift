import XCTest
import Foundation

/// The test suite's two tiers (ARCHITECTURE.md, "Two test tiers").
///
/// The default tier (`swift test --parallel`) runs no other program than btlog: what tshark and btmon
/// answered about the fixtures is recorded under `Tests/References/` and read from there. The
/// reference tier (`BTLOG_REFERENCE_TESTS=1 swift test --parallel`, which `.ci/run` runs) asks the tools
/// themselves, checks that the recordings still say what they say, and runs the tests in which a
/// real consumer reads what btlog writes (tshark, btmon, DuckDB, text2pcap, sbcdec, rsvg-convert).
/// When a fixture, a compared field or a tool's version changes, the recordings are made again
/// with one command, with the tools installed:
///
///     BTLOG_UPDATE_REFERENCES=1 swift test --disable-swift-testing --filter 'DifferentialTests|BtmonDepthTests|StatsTests|AirCaptureTests'
enum Reference {
    static let folder = Tool.root.appendingPathComponent("Tests/References")

    static var isLive: Bool { ProcessInfo.processInfo.environment["BTLOG_REFERENCE_TESTS"] != nil || isUpdating }
    static var isUpdating: Bool { ProcessInfo.processInfo.environment["BTLOG_UPDATE_REFERENCES"] != nil }

    /// A real consumer of what btlog writes (tshark reading an export, DuckDB its JSON): its
    /// path in the reference tier, when installed; nil in the default tier.
    static func consumer(_ tool: String) -> String? { isLive ? Tool.find(tool) : nil }

    /// Why a test of a consumer did not run.
    static func skip(_ tool: String) -> XCTSkip {
        XCTSkip(isLive ? "\(tool) is not installed" : "reference tier (BTLOG_REFERENCE_TESTS=1): \(tool)")
    }

    /// What `tool arguments` printed, recorded as `name` under Tests/References. A tool exiting
    /// non-zero is an error.
    static func output(_ tool: String, _ arguments: [String], recordedAs name: String,
                       file: StaticString = #filePath, line: UInt = #line) throws -> String {
        try recorded(name, tool: tool, file: file, line: line) { path in
            let result = try Tool.run(path, arguments)
            guard result.status == 0 else {
                throw Failure(description: "\(tool) \(arguments.joined(separator: " ")) exited \(result.status): \(result.err)")
            }
            return result.out
        }
    }

    /// A reference tool's answer, recorded as `name` under Tests/References: read from the
    /// recording in the default tier; asked of the tool (`ask`, given its path) and compared
    /// with the recording in the reference tier; asked and recorded again when updating.
    static func recorded(_ name: String, tool: String, file: StaticString = #filePath, line: UInt = #line,
                         ask: (String) throws -> String) throws -> String {
        let recording = folder.appendingPathComponent(name)
        guard isLive else {
            guard let text = try? String(contentsOf: recording, encoding: .utf8) else {
                throw Failure(description: "no recording \(recording.path): make it with BTLOG_UPDATE_REFERENCES=1 and \(tool) installed (ARCHITECTURE.md, Two test tiers)")
            }
            return text
        }
        guard let path = Tool.find(tool) else { throw XCTSkip("\(tool) is not installed") }
        let answer = try ask(path)
        if isUpdating {
            try FileManager.default.createDirectory(at: recording.deletingLastPathComponent(), withIntermediateDirectories: true)
            try answer.write(to: recording, atomically: true, encoding: .utf8)
        } else if (try? String(contentsOf: recording, encoding: .utf8)) != answer {
            XCTFail("\(tool) now answers otherwise than \(recording.path) records: record again with BTLOG_UPDATE_REFERENCES=1",
                    file: file, line: line)
        }
        return answer
    }

    struct Failure: Error, CustomStringConvertible { let description: String }
}
