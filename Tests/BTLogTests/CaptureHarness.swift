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

    func temporaryPath(_ name: String) -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("btlog-capture-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent(name).path
    }
}
