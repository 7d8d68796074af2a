import XCTest
import Foundation
import Glibc
import BTCapture

/// `btlog capture --tcp`: a btsnoop stream over TCP (what Android's snoop service serves
/// behind adb forward), from a local server that sends a fixture's bytes a few at a time.
final class TCPCaptureTests: XCTestCase {
    /// A server on 127.0.0.1 that sends `bytes` to the first client in pieces, pausing between
    /// them, then closes the connection.
    final class StreamServer: @unchecked Sendable {
        let listener: Int32
        let port: UInt16
        private let thread: Thread

        /// `repeating`: after `bytes`, send `repeating` again and again until the client goes.
        init(sending bytes: [UInt8], repeating: [UInt8] = [], piece: Int = 333, pauseEvery: Int = 40) throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            listener = fd
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw -> Bool in
                    bind(fd, raw, length) == 0 && listen(fd, 1) == 0 && getsockname(fd, raw, &length) == 0
                }
            }
            guard bound else { throw XCTSkip("no local TCP here: \(String(cString: strerror(errno)))") }
            port = UInt16(bigEndian: address.sin_port)
            thread = Thread {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { return }
                var offset = 0, pieces = 0
                while offset < bytes.count {
                    let end = min(offset + piece, bytes.count)
                    let sent = bytes[offset ..< end].withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    if sent <= 0 { break }
                    offset += sent
                    pieces += 1
                    if pieces % pauseEvery == 0 { usleep(20_000) }
                }
                while !repeating.isEmpty {
                    let sent = repeating.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    if sent <= 0 { break }
                }
                close(client)
            }
            thread.start()
        }

        deinit { close(listener) }
    }

    /// An Android snoop log (H4) and a btmon file (monitor), streamed: every record btlog
    /// writes is the file's, the time, kind, direction and bytes of each; the server's close
    /// ends the capture, and the status line says who closed it.
    func testABtsnoopStreamIsCapturedRecordForRecord() throws {
        for fixture in ["Fixtures/le-heart-rate.btsnoop", "Fixtures/kernel-pairing.btsnoop"] {
            let path = Tool.root.appendingPathComponent(fixture).path
            let server = try StreamServer(sending: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
            let output = temporaryPath("stream.btsnoop")
            let result = try Tool.run(Tool.btlog, ["capture", "--tcp", "127.0.0.1:\(server.port)", "-q", "-w", output])
            XCTAssertEqual(result.status, 0, result.err)
            XCTAssertTrue(result.err.contains("capturing from 127.0.0.1:\(server.port) (btsnoop stream)"), result.err)
            XCTAssertTrue(result.err.contains("127.0.0.1:\(server.port) closed the connection"), result.err)
            let original = try readFrames(path), captured = try readFrames(output)
            XCTAssertEqual(captured.count, original.count, fixture)
            for (a, b) in zip(captured, original) {
                XCTAssertEqual(a.timestamp, b.timestamp, "\(fixture) #\(b.number)")
                XCTAssertEqual(a.kind, b.kind, "\(fixture) #\(b.number)")
                XCTAssertEqual(a.direction, b.direction, "\(fixture) #\(b.number)")
                XCTAssertEqual(a.bytes, b.bytes, "\(fixture) #\(b.number)")
            }
        }
    }

    /// A peer that never pauses (records as fast as the loopback carries them): --duration
    /// still ends the capture, the file complete up to where it stopped.
    func testAStreamThatNeverPausesStillStops() throws {
        let path = Tool.root.appendingPathComponent("Fixtures/le-heart-rate.btsnoop").path
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let server = try StreamServer(sending: Array(bytes.prefix(16)), repeating: Array(bytes.dropFirst(16)), pauseEvery: .max)
        let output = temporaryPath("endless.btsnoop")
        let started = Date()
        let result = try Tool.run(Tool.btlog, ["capture", "--tcp", "127.0.0.1:\(server.port)", "-q", "--duration", "0.5", "-w", output])
        XCTAssertEqual(result.status, 0, result.err)
        XCTAssertTrue(result.err.contains("stopped after 0.5 s"), result.err)
        XCTAssertLessThan(Date().timeIntervalSince(started), 60, "the stop came")
        XCTAssertGreaterThan(try readFrames(output).count, 100)
    }

    /// A stream cut inside a record keeps every whole record before it and says where it was
    /// cut; a peer that closes at once, and a port nobody listens on, are errors a person can act on.
    func testACutStreamAPeerThatClosesAtOnceAndNobodyListening() throws {
        let path = Tool.root.appendingPathComponent("Fixtures/le-heart-rate.btsnoop").path
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let all = try readFrames(path)
        let cut = try StreamServer(sending: Array(bytes.prefix(bytes.count / 2)))
        let output = temporaryPath("cut.btsnoop")
        let result = try Tool.run(Tool.btlog, ["capture", "--tcp", "127.0.0.1:\(cut.port)", "-q", "-w", output])
        XCTAssertEqual(result.status, 0, result.err)
        XCTAssertTrue(result.err.contains("truncated record"), result.err)
        let kept = try readFrames(output)
        XCTAssertGreaterThan(kept.count, all.count / 3)
        XCTAssertEqual(kept.map(\.bytes), all.prefix(kept.count).map(\.bytes))

        let silent = try StreamServer(sending: [])
        let closed = try Tool.run(Tool.btlog, ["capture", "--tcp", "127.0.0.1:\(silent.port)", "-q"])
        XCTAssertEqual(closed.status, 1)
        XCTAssertTrue(closed.err.contains("127.0.0.1:\(silent.port) closed the connection before sending anything"), closed.err)

        let garbage = try StreamServer(sending: Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8))
        let wrong = try Tool.run(Tool.btlog, ["capture", "--tcp", "127.0.0.1:\(garbage.port)", "-q"])
        XCTAssertEqual(wrong.status, 1)
        XCTAssertTrue(wrong.err.contains("not a btsnoop file"), wrong.err)

        // A port bound for a moment and never listened on: nothing listens there.
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(probe, $0, length) == 0 && getsockname(probe, $0, &length) == 0 }
        }
        let port = UInt16(bigEndian: address.sin_port)
        close(probe)
        let refused = try Tool.run(Tool.btlog, ["capture", "--tcp", "127.0.0.1:\(port)"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.err.contains("connection refused (nothing listens there; for a phone, forward its port first: adb forward tcp:8872 tcp:8872)"), refused.err)
        XCTAssertTrue(try Tool.run(Tool.btlog, ["capture", "--tcp", "localhost"]).err.contains("--tcp takes HOST:PORT"))
    }
}
