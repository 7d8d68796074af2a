import XCTest
import Glibc
@testable import BTCapture

/// The live receive loop, fed through a SOCK_SEQPACKET socketpair: like the kernel's monitor
/// socket it keeps datagram boundaries and gives SO_TIMESTAMP control messages.
final class LiveCaptureTests: XCTestCase {
    var sender: Int32 = -1
    var receiving: Int32 = -1

    override func setUpWithError() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &fds), 0)
        sender = fds[0]
        receiving = fds[1]
        var on: Int32 = 1
        XCTAssertEqual(setsockopt(receiving, SOL_SOCKET, SO_TIMESTAMP, &on, socklen_t(4)), 0)
    }

    override func tearDown() {
        if sender >= 0 { close(sender) }
        close(receiving)
    }

    func send(_ bytes: [UInt8]) {
        XCTAssertEqual(bytes.withUnsafeBytes { Glibc.send(sender, $0.baseAddress, $0.count, 0) }, bytes.count)
    }

    func frame(_ opcode: UInt16, _ index: UInt16, _ payload: [UInt8]) -> [UInt8] {
        MonitorDatagram.bytes(opcode: opcode, controller: index, payload: payload)
    }

    func start(_ configuration: MonitorReceiver.Configuration = .init()) throws -> (MonitorReceiver, LiveFrameReader) {
        var configuration = configuration
        configuration.readsKernelDrops = false
        let receiver = MonitorReceiver(fd: receiving, configuration: configuration, wake: try WakePipe())
        receiver.start()
        return (receiver, LiveFrameReader(receiver: receiver, name: "monitor"))
    }

    func readAll(_ reader: LiveFrameReader) throws -> [Frame] {
        var frames: [Frame] = []
        while let frame = try reader.next() { frames.append(frame) }
        return frames
    }

    func testFramesArriveInOrderWithKernelTimestamps() throws {
        let (receiver, reader) = try start()
        let before = Int64(Date().timeIntervalSince1970 * 1_000_000)
        // New Index hci0 (primary, virtual, 00:11:22:33:44:55, "hci0"), HCI Reset, its Command
        // Complete, ACL received on hci1, a system note, and an opcode no kernel sends yet.
        send(frame(0, 0, [0, 0, 0x55, 0x44, 0x33, 0x22, 0x11, 0x00] + Array("hci0".utf8) + [0, 0, 0, 0]))
        send(frame(2, 0, [0x03, 0x0C, 0x00]))
        send(frame(3, 0, [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]))
        send(frame(5, 1, [0x40, 0x20, 0x05, 0x00, 0x01, 0x00, 0x04, 0x00, 0x0A]))
        send(frame(12, 0xFFFF, Array("Bluetooth subsystem version 2.22".utf8) + [0]))
        send(frame(42, 3, [0xAA, 0xBB]))
        close(sender); sender = -1
        let frames = try readAll(reader)
        receiver.waitUntilFinished()
        let after = Int64(Date().timeIntervalSince1970 * 1_000_000)
        XCTAssertEqual(receiver.stopReason, .endOfInput)
        XCTAssertEqual(frames.map(\.number), [1, 2, 3, 4, 5, 6])
        XCTAssertEqual(frames.map(\.kind), [.newIndex, .command, .event, .aclData, .note, .unrecognized(42)])
        XCTAssertEqual(frames.map(\.direction), [.none, .sent, .received, .received, .none, .none])
        XCTAssertEqual(frames.map(\.controller), [0, 0, 0, 1, 0xFFFF, 3])
        XCTAssertEqual(Array(frames[1].bytes), [0x03, 0x0C, 0x00])
        XCTAssertEqual(Array(frames[5].bytes), [0xAA, 0xBB])
        for frame in frames {
            XCTAssertGreaterThanOrEqual(frame.timestamp, before - 1_000_000)
            XCTAssertLessThanOrEqual(frame.timestamp, after + 1_000_000)
        }
        XCTAssertTrue(reader.warnings.isEmpty)
    }

    func testMalformedDatagramsAreKeptOrNamed() throws {
        let (receiver, reader) = try start()
        send([0x02, 0x00, 0x00])                                       // shorter than a header
        send(frame(2, 0, [0x03, 0x0C, 0x00]).prefix(6) + [0x03, 0x0C] + [])   // says 3, holds 2
        send([0x03, 0x00, 0x00, 0x00, 0x02, 0x00, 0x0E, 0x04, 0x01, 0x03])  // says 2, holds 4
        send([0x02, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0x03, 0x0C, 0x00])        // says 65535
        close(sender); sender = -1
        let frames = try readAll(reader)
        receiver.waitUntilFinished()
        XCTAssertEqual(frames.count, 3, "the datagram without a header carries nothing to keep")
        XCTAssertEqual(Array(frames[0].bytes), [0x03, 0x0C])
        XCTAssertEqual(frames[0].originalLength, 3)
        XCTAssertTrue(frames[0].isTruncated)
        XCTAssertEqual(Array(frames[1].bytes), [0x0E, 0x04])
        XCTAssertEqual(frames[2].originalLength, 65535)
        XCTAssertEqual(receiver.malformed, 4)
        XCTAssertEqual(reader.warnings.count, 4)
        XCTAssertTrue(reader.warnings[0].message.contains("shorter than the 6-byte header"), reader.warnings[0].message)
        XCTAssertTrue(reader.warnings[1].message.contains("says 3 bytes but holds 2"), reader.warnings[1].message)
        XCTAssertTrue(reader.warnings[2].message.contains("2 bytes past its length of 2"), reader.warnings[2].message)
    }

    func testOneControllerKeepsItsFramesAndSystemFrames() throws {
        let (receiver, reader) = try start(.init(controller: 1))
        send(frame(2, 0, [0x03, 0x0C, 0x00]))
        send(frame(2, 1, [0x01, 0x10, 0x00]))
        send(frame(12, 0xFFFF, Array("note".utf8)))
        send(frame(3, 0, [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]))
        close(sender); sender = -1
        let frames = try readAll(reader)
        receiver.waitUntilFinished()
        XCTAssertEqual(frames.map(\.controller), [1, 0xFFFF])
        XCTAssertEqual(frames.map(\.number), [1, 2], "numbered among the frames kept")
    }

    func testStopRequestKeepsWhatTheSocketAlreadyHeld() throws {
        let (receiver, reader) = try start()
        for i in 0 ..< 2000 { send(frame(12, 0xFFFF, Array("note \(i)".utf8))) }
        receiver.requestStop()
        let frames = try readAll(reader)
        receiver.waitUntilFinished()
        XCTAssertEqual(receiver.stopReason, .requested)
        XCTAssertEqual(frames.count, 2000, "every frame sent before the stop is read")
        XCTAssertEqual(String(decoding: frames.last!.bytes, as: UTF8.self), "note 1999")
    }

    func testDurationEndsTheCapture() throws {
        let (receiver, reader) = try start(.init(duration: 0.3))
        send(frame(2, 0, [0x03, 0x0C, 0x00]))
        let started = Date()
        let frames = try readAll(reader)
        receiver.waitUntilFinished()
        XCTAssertEqual(receiver.stopReason, .duration)
        XCTAssertEqual(frames.count, 1)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
    }

    func testOpeningTheMonitorSaysWhatIsMissing() {
        // This machine either has Bluetooth and we are privileged (it opens), or the error
        // names the missing piece; never a bare errno.
        do {
            let opened = try MonitorSocket.open()
            XCTAssertGreaterThan(opened.receiveBuffer, 0)
            close(opened.fd)
        } catch let error as CaptureError {
            XCTAssertTrue(error.message.contains("CAP_NET_RAW") || error.message.contains("no Bluetooth support"), error.message)
        } catch {
            XCTFail("\(error)")
        }
    }
}

/// The queue between the receive thread and the consumer holds a bounded number of bytes.
final class FrameQueueTests: XCTestCase {
    func testFullQueueDropsAndCounts() {
        let queue = FrameQueue(limit: 1000)
        let frame = Frame(timestamp: 0, kind: .note, direction: .none, bytes: [UInt8](repeating: 1, count: 100))
        for _ in 0 ..< 20 { queue.push(.frame(frame)) }
        XCTAssertEqual(queue.droppedCount, 15, "five frames of 100 bytes (196 with their overhead) fit in 1000")
        guard case .frame = queue.pop() else { return XCTFail("a frame was queued") }
        queue.push(.frame(frame))
        XCTAssertEqual(queue.droppedCount, 15, "room again after one was taken")
        queue.close()
        var left = 0
        while queue.pop() != nil { left += 1 }
        XCTAssertEqual(left, 5)
    }
}
