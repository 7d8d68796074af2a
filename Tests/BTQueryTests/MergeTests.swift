import XCTest
import BTCapture
import BTDecode
@testable import BTQuery
import BTFixtures

/// Two real stacks on one clock: Fixtures/kernel-two-hosts.btsnoop is the kernel's L2CAP
/// between BlueZ's btvirt controllers (a BR/EDR pair hci0-hci1, an LE pair hci2-hci3), as
/// the monitor saw them. Split into the two hosts' captures, one side's clock moved and
/// skewed, and merged again: the alignment must find the clock, and every latency must be
/// what the single clock shows.
final class MergeTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func frames(_ name: String) throws -> [Frame] {
        let reader = try CaptureInput.open(fixtures.appendingPathComponent(name).path)
        var frames: [Frame] = []
        while let frame = try reader.next() { frames.append(frame) }
        return frames
    }

    /// One host's view: the frames of its controllers, renumbered, with its clock
    /// `offset` µs ahead and running `ppm` fast from the capture's first frame.
    static func host(_ frames: [Frame], controllers: Set<UInt16>, offset: Int64 = 0, ppm: Double = 0) -> [Frame] {
        let start = frames.first?.timestamp ?? 0
        var number = 0
        return frames.filter { controllers.contains($0.controller) }.map { frame in
            var moved = frame
            number += 1
            moved.number = number
            moved.timestamp = frame.timestamp + offset + Int64((Double(frame.timestamp - start) * ppm * 1e-6).rounded())
            return moved
        }
    }

    static func input(_ name: String, _ frames: [Frame]) -> MergeInput {
        MergeInput(name: name) { ArrayFrameReader(frames: frames, formatDescription: name, nativeFormat: .btsnoopMonitor) }
    }

    func testAlignmentRecoversAMovedAndSkewedClock() throws {
        let all = try Self.frames("kernel-two-hosts.btsnoop")
        let phone = Self.host(all, controllers: [0, 2])
        let offset: Int64 = 3_600_500_000, ppm = 50.0
        let board = Self.host(all, controllers: [1, 3], offset: offset, ppm: ppm)
        let alignments = try MergePlan.align([Self.input("phone", phone), Self.input("board", board)])
        XCTAssertEqual(alignments.map(\.basis), [.reference, .matched])
        let fit = try XCTUnwrap(alignments[1].fit)
        // The board's clock at the fit's epoch, as it was moved: the offset there.
        let start = all[0].timestamp
        let truth = Double(offset) + Double(fit.epoch - start) * ppm * 1e-6
        XCTAssertEqual(fit.offset, truth, accuracy: 1_000, "offset within 1 ms: \(alignments[1].summary)")
        XCTAssertEqual(fit.drift, ppm, accuracy: 5, "drift within 5 ppm: \(alignments[1].summary)")
        XCTAssertGreaterThan(fit.matched, 100)
        XCTAssertNotNil(fit.latency, "both directions matched")
        // Both links were found, each as the pair it is (BR/EDR hci0-hci1, LE hci2-hci3).
        let links = Set(fit.links.map { "\($0.reference.controller)-\($0.other.controller)" })
        XCTAssertEqual(links, ["0-1", "2-3"])
        // Back on the reference clock, every board frame is within the residual of its time.
        let originals = all.filter { [1, 3].contains($0.controller) }
        for (frame, original) in zip(board, originals) {
            XCTAssertEqual(Double(fit.referenceTime(of: frame.timestamp)), Double(original.timestamp), accuracy: 1_000,
                           "board #\(frame.number)")
        }
    }

    /// The latency the merge gives every matched PDU is the time between the two ends on the
    /// single clock (within the fit's residual), and each end names the other.
    func testLatencyOfEveryMatchedPDUIsTheSingleClocksOwn() throws {
        let all = try Self.frames("kernel-two-hosts.btsnoop")
        let phone = Self.host(all, controllers: [0, 2])
        let board = Self.host(all, controllers: [1, 3], offset: -7_200_250_000, ppm: -30)
        let inputs = [Self.input("phone", phone), Self.input("board", board)]
        let alignments = try MergePlan.align(inputs)
        let fit = try XCTUnwrap(alignments[1].fit)
        let reader = try MergePlan.reader(inputs, alignments)
        var merged: [Frame] = []
        while let frame = try reader.next() { merged.append(frame) }
        XCTAssertEqual(merged.count, phone.count + board.count, "every frame of both, once")
        XCTAssertEqual(merged.map(\.number), Array(1...merged.count))
        // The single clock's time of a merged frame: its source's own frame in the capture.
        let originals = [all.filter { [0, 2].contains($0.controller) }, all.filter { [1, 3].contains($0.controller) }]
        func truth(_ frame: Frame) -> Int64 {
            let origin = frame.origin!
            return originals[origin.source - 1][origin.number - 1].timestamp
        }
        var matched = 0
        for frame in merged {
            guard let match = frame.origin?.match else { continue }
            let other = merged[match.number - 1]
            XCTAssertEqual(other.origin?.match?.number, frame.number, "each end names the other")
            XCTAssertNotEqual(other.origin?.source, frame.origin?.source)
            XCTAssertTrue(frame.bytes.count > 0 && other.kind == .aclData && frame.kind == .aclData)
            guard !match.isSender else { continue }
            matched += 1
            let single = truth(frame) - truth(other)
            XCTAssertEqual(Double(match.latency), Double(single), accuracy: 1_000 + fit.residualP99,
                           "latency of #\(frame.number) from #\(other.number)")
        }
        XCTAssertGreaterThan(matched, 100)
        XCTAssertEqual(matched, reader.matches)
        // Each source in its own order (the monitor's own capture is not in time order: a
        // controller's frames come as its queue is read).
        for source in [1, 2] {
            let numbers = merged.compactMap { $0.origin?.source == source ? $0.origin?.number : nil }
            XCTAssertEqual(numbers, Array(1...numbers.count))
        }
    }

    /// Two captures of unrelated scenarios: nothing matches, the second keeps its timestamps.
    func testUnrelatedCapturesFallBackToTimestamps() throws {
        let a = try Self.frames("kernel-l2cap.btsnoop")
        let b = try Self.frames("le-heart-rate.btsnoop")
        let alignments = try MergePlan.align([Self.input("a", a), Self.input("b", b)])
        XCTAssertEqual(alignments[1].basis, .timestamps)
        XCTAssertTrue(alignments[1].summary.contains("no PDU matched"), alignments[1].summary)
        let reader = try MergePlan.reader([Self.input("a", a), Self.input("b", b)], alignments)
        var count = 0, times: [Int64] = []
        while let frame = try reader.next() { count += 1; times.append(frame.timestamp) }
        XCTAssertEqual(count, a.count + b.count)
        XCTAssertEqual(Set(times), Set(a.map(\.timestamp) + b.map(\.timestamp)), "timestamps kept")
    }

    /// The same bytes every 100 ms (a notification that does not change) pair with their own:
    /// order and time, not bytes alone.
    func testRepeatedPDUsPairInOrder() throws {
        func acl(_ number: Int, _ time: Int64, _ sent: Bool, handle: UInt16) -> Frame {
            // ATT Handle Value Notification, handle 0x0010, value 0x55: the same every time.
            Frame(number: number, timestamp: time, kind: .aclData, direction: sent ? .sent : .received,
                  bytes: [UInt8(handle & 0xFF), UInt8(handle >> 8) | 0x20, 0x08, 0x00, 0x04, 0x00, 0x04, 0x00, 0x1B, 0x10, 0x00, 0x55])
        }
        func request(_ number: Int, _ time: Int64, _ sent: Bool, _ id: UInt8, handle: UInt16) -> Frame {
            // ATT Read Request of handle `id`: each one different.
            Frame(number: number, timestamp: time, kind: .aclData, direction: sent ? .sent : .received,
                  bytes: [UInt8(handle & 0xFF), UInt8(handle >> 8) | 0x20, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x0A, id, 0x00])
        }
        let offset: Int64 = 42_000_000, latency: Int64 = 7_500
        var phone: [Frame] = [], board: [Frame] = []
        for i in 0..<200 {
            let t = 1_700_000_000_000_000 + Int64(i) * 100_000
            // The board notifies every 100 ms; the phone reads now and then.
            board.append(acl(board.count + 1, t + offset, true, handle: 0x0001))
            phone.append(acl(phone.count + 1, t + latency, false, handle: 0x0040))
            if i % 10 == 0 {
                phone.append(request(phone.count + 1, t + 50_000, true, UInt8(i / 10), handle: 0x0040))
                board.append(request(board.count + 1, t + 50_000 + latency + offset, false, UInt8(i / 10), handle: 0x0001))
            }
        }
        // The board's capture lost its first notification's reception by the phone: the phone's
        // log begins a little later.
        phone.removeFirst()
        let inputs = [Self.input("phone", phone), Self.input("board", board)]
        let alignments = try MergePlan.align(inputs)
        let fit = try XCTUnwrap(alignments[1].fit, alignments[1].summary)
        XCTAssertEqual(fit.offset, Double(offset), accuracy: 1_000)
        let reader = try MergePlan.reader(inputs, alignments)
        var latencies: [Int64] = []
        while let frame = try reader.next() {
            if let match = frame.origin?.match, !match.isSender { latencies.append(match.latency) }
        }
        XCTAssertEqual(latencies.count, 199 + 20)
        for value in latencies { XCTAssertEqual(Double(value), Double(latency), accuracy: 1_000) }
    }

    /// Two links carrying the same bytes (a counter every link notifies, the second link 30 ms
    /// behind the first): PDUs pair within the links the alignment found to be one, never across.
    func testTheSameBytesOnTwoLinksPairWithinTheirLink() throws {
        var counter = 0
        func notification(_ number: Int, _ time: Int64, _ sent: Bool, handle: UInt16) -> Frame {
            Frame(number: number, timestamp: time, kind: .aclData, direction: sent ? .sent : .received,
                  bytes: [UInt8(handle & 0xFF), UInt8(handle >> 8) | 0x20, 0x09, 0x00, 0x05, 0x00, 0x04, 0x00, 0x1B, 0x10, 0x00,
                          UInt8(counter & 0xFF), UInt8(counter >> 8 & 0xFF)])
        }
        let offset: Int64 = -90_000_000
        var phone: [Frame] = [], board: [Frame] = []
        for i in 0..<3000 {
            let t = 1_700_000_000_000_000 + Int64(i) * 10_000
            counter = i
            // Link A (phone 0x0040, board 0x0001) 2 ms; link B (0x0041, 0x0002) 1 ms later, 9 ms;
            // both ways.
            for (phoneHandle, boardHandle, latency) in [(UInt16(0x0040), UInt16(0x0001), Int64(2_000)), (0x0041, 0x0002, 9_000)] {
                let t = latency == 2_000 ? t : t + 1_000
                counter = latency == 2_000 ? i : i - 3
                if i % 2 == 0 {
                    phone.append(notification(phone.count + 1, t, true, handle: phoneHandle))
                    board.append(notification(board.count + 1, t + latency + offset, false, handle: boardHandle))
                } else {
                    board.append(notification(board.count + 1, t + offset, true, handle: boardHandle))
                    phone.append(notification(phone.count + 1, t + latency, false, handle: phoneHandle))
                }
            }
        }
        phone.sort { $0.timestamp < $1.timestamp }
        board.sort { $0.timestamp < $1.timestamp }
        for i in phone.indices { phone[i].number = i + 1 }
        for i in board.indices { board[i].number = i + 1 }
        let inputs = [Self.input("phone", phone), Self.input("board", board)]
        let alignments = try MergePlan.align(inputs)
        let fit = try XCTUnwrap(alignments[1].fit, alignments[1].summary)
        XCTAssertEqual(fit.offset, Double(offset), accuracy: 10)
        XCTAssertEqual(Set(fit.links.map { "\($0.reference.handle)-\($0.other.handle)" }), ["64-1", "65-2"])
        let reader = try MergePlan.reader(inputs, alignments)
        var merged: [Frame] = []
        while let frame = try reader.next() { merged.append(frame) }
        var matched = 0
        for frame in merged {
            guard let match = frame.origin?.match, !match.isSender else { continue }
            matched += 1
            let handle = frame.bytes[frame.bytes.startIndex]
            XCTAssertEqual(match.latency, [0x40, 0x01].contains(handle) ? 2_000 : 9_000, "#\(frame.number)")
        }
        XCTAssertEqual(matched, 6000)
    }

    /// The benchmark's LE session (four links, each notifying values the others notify too) and
    /// its mirror, the other host's log: every ACL packet the other way under another handle,
    /// its clock an hour ahead and 20 ppm fast, each PDU 1.2 ms on its way. Before the alignment
    /// kept to the links most matches agree on, PDUs of the 500,000-packet benchmark paired
    /// across links and its fit came out 8 ms and 2 ppm off, with a residual of 8 ms
    /// (Scripts/merge-bench.py checks the fit at that size); this holds the same at 30,000.
    func testTheBenchmarkSessionAndItsMirror() throws {
        var phone: [Frame] = []
        BenchmarkSessions.leSession(packets: 30_000) { phone += $0 }
        let start = phone[0].timestamp, offset: Int64 = 3_600_500_000
        let board = phone.map { frame -> Frame in
            var mirrored = frame
            if frame.kind == .aclData, frame.bytes.count >= 2 {
                var bytes = Array(frame.bytes)
                let word = UInt16(bytes[0]) | UInt16(bytes[1]) << 8
                let handle = ((word & 0x0FFF) + 0x100) & 0x0FFF
                bytes[0] = UInt8(handle & 0xFF)
                bytes[1] = UInt8((word & 0xF000 | handle) >> 8)
                mirrored.bytes = bytes[...]
                mirrored.direction = frame.direction == .sent ? .received : .sent
                mirrored.timestamp += mirrored.direction == .received ? 1_200 : -1_200
            }
            mirrored.timestamp += offset + Int64((Double(frame.timestamp - start) * 20e-6).rounded())
            return mirrored
        }
        let inputs = [Self.input("phone", phone), Self.input("board", board)]
        let alignments = try MergePlan.align(inputs)
        let fit = try XCTUnwrap(alignments[1].fit, alignments[1].summary)
        XCTAssertEqual(fit.offset, Double(offset) + Double(fit.epoch - start) * 20e-6, accuracy: 20, alignments[1].summary)
        XCTAssertEqual(fit.drift, 20, accuracy: 0.5)
        XCTAssertLessThan(fit.residualP99, 50)
        XCTAssertEqual(Set(fit.links.map { $0.other.handle &- $0.reference.handle }), [0x100], "each link with its mirror")
    }

    /// A source whose clock goes backwards, a truncated source, and many sources: no trap,
    /// every frame read once.
    func testHostileSources() throws {
        var backwards = try Self.frames("kernel-l2cap.btsnoop")
        for index in backwards.indices where index % 7 == 3 { backwards[index].timestamp -= 5_000_000 }
        var sources = [Self.input("backwards", backwards)]
        for index in 0..<1000 {
            let frames = [Frame(number: 1, timestamp: Int64(index) * 1_000, kind: .note, direction: .none, bytes: Array("n\(index)".utf8)),
                          Frame(number: 2, timestamp: index % 2 == 0 ? .max : .min, kind: .aclData, direction: .sent, bytes: [0x01, 0x20, 0x05, 0x00, 0x01, 0x00, 0x04, 0x00, 0x0A])]
            sources.append(Self.input("s\(index)", frames))
        }
        let alignments = try MergePlan.align(sources, anchorLimit: 64)
        XCTAssertEqual(alignments.count, 1001)
        let reader = try MergePlan.reader(sources, alignments)
        var count = 0
        while try reader.next() != nil { count += 1 }
        XCTAssertEqual(count, backwards.count + 2000)
    }

    /// A damaged pair whose clocks stand still: every frame the same time, the same PDU sent
    /// and received 20,000 times each. Every reception had been compared with every waiting
    /// send (quadratic: 100,000 frames each took minutes); now each PDU's waiting ends and the
    /// frames held are bounded, and the merge ends.
    func testAClockThatStandsStillDoesNotHang() throws {
        func side(_ flip: Bool) -> [Frame] {
            (0..<20_000).map { i in
                Frame(number: i + 1, timestamp: 1_700_000_000_000_000, kind: .aclData, direction: (i % 2 == 0) != flip ? .sent : .received,
                      bytes: [0x40, 0x20, 0x08, 0x00, 0x04, 0x00, 0x04, 0x00, 0x1B, 0x10, 0x00, 0x55])
            }
        }
        let inputs = [Self.input("a", side(false)), Self.input("b", side(true))]
        let started = Date()
        let reader = try MergePlan.reader(inputs, try MergePlan.align(inputs))
        var count = 0
        while try reader.next() != nil { count += 1 }
        XCTAssertEqual(count, 40_000)
        XCTAssertLessThan(Date().timeIntervalSince(started), 60, "a bound that catches the hang, not a measurement")
    }

    func testOffsetOption() {
        var request = MergeRequest(files: ["phone.btsnoop", "logs/board.btsnoop"], input: InputOptions())
        XCTAssertNil(request.addOffset("board.btsnoop=+3612.402,+21ppm"))
        XCTAssertEqual(request.manual[1]?.offset ?? 0, 3_612_402_000, accuracy: 0.5)
        XCTAssertEqual(request.manual[1]?.drift, 21)
        XCTAssertNil(request.addOffset("2=-0.5"))
        XCTAssertEqual(request.manual[1]?.offset ?? 0, -500_000, accuracy: 0.5)
        XCTAssertNotNil(request.addOffset("phone.btsnoop=1"), "the reference has no offset")
        XCTAssertNotNil(request.addOffset("other=1"))
        XCTAssertNotNil(request.addOffset("board.btsnoop"))
        XCTAssertNotNil(request.addOffset("board.btsnoop=soon"))
        XCTAssertNotNil(request.addOffset("board.btsnoop=1,fast"))
        XCTAssertEqual(MergeInput.names(for: ["a/x.log", "b/x.log", "c/y.log"]), ["a/x.log", "b/x.log", "y.log"])
        XCTAssertEqual(SourceAlignment.seconds(3_612_402_000), "+3,612.402 s")
        XCTAssertEqual(SourceAlignment.seconds(-250_000), "-0.250 s")
    }
}
