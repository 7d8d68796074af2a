import XCTest
import Foundation
import Glibc
import BTCapture

/// A running `btlog capture` fed through a socketpair standing in for the kernel's monitor
/// socket (the hidden --monitor-fd 0 reads it from standard input).
struct CaptureRun {
    let process: Process
    let sender: Int32
    let out: Pipe
    let err: Pipe

    func send(_ opcode: UInt16, _ index: UInt16, _ payload: [UInt8]) {
        let bytes = MonitorDatagram.bytes(opcode: opcode, controller: index, payload: payload)
        _ = bytes.withUnsafeBytes { Glibc.send(sender, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Waits (at most `seconds`) until btlog handles SIGINT and SIGTERM itself: a signal sent
    /// earlier, by a test on a loaded machine, would kill it before it could finish its file.
    func waitUntilCatchingStopSignals(seconds: Double = 20) {
        let wanted: UInt64 = (1 << (UInt64(SIGINT) - 1)) | (1 << (UInt64(SIGTERM) - 1))
        waitUntil(seconds: seconds) {
            guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
                  let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
                  let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16)
            else { return false }
            return mask & wanted == wanted
        }
    }

    func finish(closing: Bool = true) -> (status: Int32, out: String, err: String, bytes: [UInt8]) {
        if closing { close(sender) }
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        if !closing { close(sender) }
        return (process.terminationStatus, String(decoding: output, as: UTF8.self),
                String(decoding: errors, as: UTF8.self), [UInt8](output))
    }
}

/// Polls `condition` every 10 ms for at most `seconds`; true when it held.
@discardableResult
func waitUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}

/// The size of the largest file in `folder` (a capture grows beside its final name).
func largestFileSize(in folder: String) -> Int {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    return names.compactMap { name in
        (try? FileManager.default.attributesOfItem(atPath: folder + "/" + name))?[.size] as? Int
    }.max() ?? 0
}

extension XCTestCase {
    func startCapture(_ arguments: [String]) throws -> CaptureRun {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &fds), 0)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Tool.btlog)
        process.arguments = ["capture", "--monitor-fd", "0"] + arguments
        process.environment = ["TZ": "UTC", "PATH": "/usr/bin:/bin"]
        let out = Pipe(), err = Pipe()
        process.standardInput = FileHandle(fileDescriptor: fds[1], closeOnDealloc: true)
        process.standardOutput = out
        process.standardError = err
        try process.run()
        return CaptureRun(process: process, sender: fds[0], out: out, err: err)
    }

    /// Every frame of a capture file.
    func readFrames(_ path: String) throws -> [Frame] {
        let reader = try CaptureInput.open(path)
        var frames: [Frame] = []
        while let frame = try reader.next() { frames.append(frame) }
        return frames
    }

    func temporaryPath(_ name: String) -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("btlog-capture-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent(name).path
    }
}
