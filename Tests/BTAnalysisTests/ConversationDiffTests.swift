import XCTest
import BTCapture
import BTDecode
import BTFixtures
@testable import BTAnalysis
import BTAnalysis
import BTQuery

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

    /// The log keeps a step's shape once and its value as a digest and a preview: what comes
    /// back is what went in; past the per-conversation limit steps are counted, not kept.
    func testTheLogGivesBackItsStepsAndKeepsWithinItsLimits() {
        var log = ConversationLog()
        let key = ConversationKey(peer: BDAddr("C0:FF:EE:12:34:56"), protocolName: "ATT")
        let long = Array(repeating: UInt8(0x5A), count: 40)
        let records = [record(1, "Read Request", "Battery Level"), record(2, "Read Response", "Battery Level", [90]),
                       record(3, "Handle Value Notification", "Data Out", long),
                       ConversationRecord(frame: 4, step: ConversationStep(operation: "Handle Value Notification", target: "Data Out", value: nil, length: 40))]
        for record in records { log.append(record, to: key) }
        XCTAssertEqual(log[key], records)
        XCTAssertEqual(log[key]?[2].step.valuePreview.count, ConversationStep.previewLength)
        XCTAssertNil(log[ConversationKey(peer: BDAddr("C0:FF:EE:12:34:56"), protocolName: "SMP")])
        let other = ConversationKey(peer: BDAddr("D4:3A:2C:11:22:33"), protocolName: "ATT")
        for frame in 0 ..< ConversationLog.perConversation + 5 { log.append(record(frame, "Write Command", "Data In", [UInt8(truncatingIfNeeded: frame)]), to: other) }
        XCTAssertEqual(log[other]?.count, ConversationLog.perConversation)
        XCTAssertEqual(log.notKept, [other: 5])
        XCTAssertEqual(log[other]?.last?.frame, ConversationLog.perConversation - 1, "the first steps are kept")
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

/// `btlog diff`'s comparison of two whole captures: the scenario pairs (DiffPairs), each
/// checked for exactly the differences its one change makes, and none other.
final class CaptureDiffTests: XCTestCase {
    static func side(_ frames: [Frame]) throws -> DiffSide { DiffRecorder.side(of: frames) }

    static func pair(_ name: String) -> [Frame] { DiffPairs.all.first { $0.name == name }!.frames() }

    /// The aspects that have differences, with their items' summaries.
    func differing(_ diff: CaptureDiff) -> [String: [String]] {
        Dictionary(uniqueKeysWithValues: diff.aspects.filter { !$0.items.isEmpty }.map { ($0.name, $0.items.map(\.summary)) })
    }

    func compare(_ a: String, _ b: String, ignoringValues: Bool = false) throws -> CaptureDiff {
        CaptureDiff(try Self.side(Self.pair(a)), try Self.side(Self.pair(b)), ignoringValues: ignoringValues)
    }

    func testACaptureAgainstItselfLaterWithHandlesRenumberedHasNoDifference() throws {
        let later = Self.pair("heart-rate-later.btsnoop")
        XCTAssertNotEqual(later.first?.timestamp, Self.pair("heart-rate.btsnoop").first?.timestamp)
        let diff = try compare("heart-rate.btsnoop", "heart-rate-later.btsnoop")
        XCTAssertTrue(diff.isEmpty, "\(differing(diff))")
        XCTAssertEqual(diff.peers.map(\.basis), [.address, .address])
        let itself = try compare("heart-rate.btsnoop", "heart-rate.btsnoop")
        XCTAssertTrue(itself.isEmpty)
    }

    func testRotatedRandomAddressesAreMatchedByIdentityOrNameAndMakeNoDifference() throws {
        let diff = try compare("heart-rate.btsnoop", "heart-rate-new-addresses.btsnoop")
        XCTAssertTrue(diff.isEmpty, "\(differing(diff))")
        XCTAssertEqual(diff.peers.first, PeerMatch(a: BDAddr("C0:FF:EE:12:34:56"), b: BDAddr("D1:22:33:44:55:66"), basis: .identity),
                       "the identity address SMP distributed in both runs")
        // Pairing fails in both runs: no identity was given, the sensor's name matches it.
        let a = try Self.side(DiffPairs.heartRate { $0.pairingFails = true })
        let b = try Self.side(DiffPairs.heartRate { $0.pairingFails = true; $0.sensorAddress = "D1:22:33:44:55:66" })
        let byName = CaptureDiff(a, b)
        XCTAssertTrue(byName.isEmpty, "\(differing(byName))")
        XCTAssertEqual(byName.peers.first, PeerMatch(a: BDAddr("C0:FF:EE:12:34:56"), b: BDAddr("D1:22:33:44:55:66"), basis: .name))
    }

    func testAChangedMTUIsTheExchangeAndTheLinkAndNothingElse() throws {
        let diff = try compare("heart-rate.btsnoop", "heart-rate-mtu-100.btsnoop")
        XCTAssertEqual(Set(differing(diff).keys), ["conversations", "connections"], "\(differing(diff))")
        XCTAssertEqual(differing(diff)["conversations"], ["ATT with C0:FF:EE:12:34:56: 1 step only in A, 1 only in B; first: A has Exchange MTU Response  mtu=65"])
        let conversation = try XCTUnwrap(diff.aspects.first { $0.name == "conversations" }?.items.first)
        XCTAssertEqual(conversation.details.filter { $0.hasPrefix("-") || $0.hasPrefix("+") },
                       ["- #19             Exchange MTU Response  mtu=65", "+         #19     Exchange MTU Response  mtu=100"])
        XCTAssertEqual(differing(diff)["connections"], ["connection to C0:FF:EE:12:34:56: MTU 65 → 100, parameter changes differ"])
    }

    func testAMissingCharacteristicIsInTheDatabaseAndTheConversation() throws {
        let diff = try compare("heart-rate.btsnoop", "heart-rate-no-ppcp.btsnoop")
        XCTAssertEqual(Set(differing(diff).keys), ["conversations", "gatt"], "\(differing(diff))")
        XCTAssertEqual(differing(diff)["gatt"], ["GATT database of C0:FF:EE:12:34:56: only in A: Characteristic Peripheral Preferred Connection Parameters (2A04) [Read]"])
        let conversation = try XCTUnwrap(diff.aspects.first { $0.name == "conversations" }?.items.first)
        let changed = conversation.details.filter { $0.hasPrefix("-") || $0.hasPrefix("+") }
        XCTAssertEqual(changed.count, 4, changed.joined(separator: "\n"))
        XCTAssertEqual(changed.filter { $0.contains("Peripheral Preferred Connection Parameters") }.count, 3,
                       "the declaration in the discovery response, the read and its response")
        XCTAssertTrue(changed.last?.hasPrefix("+") == false && changed.contains { $0.hasPrefix("+") && $0.contains("found: 2A00 (Device Name) [Read, Write]; 2A01 (Appearance) [Read]") })
    }

    func testAFailedPairingIsItsProblemItsConversationsItsLinkAndItsTiming() throws {
        let diff = try compare("heart-rate.btsnoop", "heart-rate-pairing-fails.btsnoop")
        let found = differing(diff)
        XCTAssertEqual(Set(found.keys), ["diagnosis", "conversations", "connections", "timing"], "\(found)")
        XCTAssertEqual(found["diagnosis"], ["only in B: error pairing: Pairing failed: DHKey Check Failed (0x0B), sent by the peer on 0x0040 C0:FF:EE:12:34:56"])
        XCTAssertEqual(found["conversations"]?.count, 2)
        XCTAssertTrue(found["conversations"]?[0].hasPrefix("ATT with C0:FF:EE:12:34:56: 1 step only in A, 1 only in B; first: A has Read Response  2A38 (Body Sensor Location)  01") == true)
        XCTAssertTrue(found["conversations"]?[1].hasPrefix("SMP with C0:FF:EE:12:34:56: 5 steps only in A, 1 only in B") == true)
        XCTAssertEqual(found["connections"], ["connection to C0:FF:EE:12:34:56: encrypted yes → no, pairing LE Secure Connections, Numeric Comparison, completed → "
                                              + "LE Secure Connections, Numeric Comparison, failed (DHKey Check Failed), parameter changes differ"])
        XCTAssertEqual(found["timing"], ["connection to C0:FF:EE:12:34:56: to encryption 89.4 ms → -"])
        // Without values the read's answer still differs: a response and an error are other operations.
        XCTAssertEqual(try compare("heart-rate.btsnoop", "heart-rate-pairing-fails.btsnoop", ignoringValues: true).aspects.first { $0.name == "conversations" }?.items.count, 2)
    }

    func testAnotherA2DPCodecIsTheConfigurationTheStreamAndItsRate() throws {
        let diff = try compare("a2dp-sbc.btsnoop", "a2dp-aac.btsnoop")
        let found = differing(diff)
        XCTAssertEqual(Set(found.keys), ["conversations", "audio", "timing"], "\(found)")
        XCTAssertEqual(found["conversations"]?.count, 1)
        XCTAssertTrue(found["conversations"]?.first?.hasPrefix("AVDTP with 00:1B:66:AA:BB:CD: 1 step only in A, 1 only in B; first: A has Set Configuration") == true)
        XCTAssertEqual(found["audio"], ["A2DP stream sent to 00:1B:66:AA:BB:CD: codec SBC → AAC, bit rate 242 → 328 kbit/s"])
        XCTAssertEqual(found["timing"], ["connection to 00:1B:66:AA:BB:CD: throughput 231 → 312 kbit/s"])
        XCTAssertTrue(try compare("a2dp-aac.btsnoop", "a2dp-aac.btsnoop").isEmpty)
    }

    /// The same capture with its clock running 10% slow is the same within the default 20%;
    /// 60% slow, its set-up and its response times differ, and only in timing.
    func testTimingDiffersOnlyBeyondTheTolerance() throws {
        let frames = Self.pair("heart-rate.btsnoop")
        func stretched(_ factor: Double) -> [Frame] {
            let start = frames[0].timestamp
            return frames.map { frame in
                var moved = frame
                moved.timestamp = start + Int64(Double(frame.timestamp - start) * factor)
                return moved
            }
        }
        let a = try Self.side(frames)
        XCTAssertTrue(CaptureDiff(a, try Self.side(stretched(1.1))).isEmpty)
        let slow = CaptureDiff(a, try Self.side(stretched(1.6)))
        XCTAssertEqual(Set(differing(slow).keys), ["timing"], "\(differing(slow))")
        XCTAssertTrue(differing(slow)["timing"]?.first?.contains("to encryption 89.4 ms → 143.0 ms") == true, "\(differing(slow))")
        XCTAssertTrue(CaptureDiff(a, try Self.side(stretched(1.6)), tolerance: DiffTolerance(ratio: 0.7)).isEmpty, "within 70%")
    }

    /// A problem is the same kind of problem whatever link it was on, how often and how much;
    /// another request or another code is another problem.
    func testProblemsAreComparedByKind() {
        func key(_ summary: String, _ severity: Problem.Severity = .warning, _ category: Problem.Category = .audio) -> String {
            CaptureDiff.problemKey(Problem(severity, category, summary, advice: "", frames: [1]))
        }
        XCTAssertEqual(key("A2DP stream on 0x0021 lost 1 RTP packet in 1 gap"), key("A2DP stream on 0x0033 lost 5 RTP packets in 3 gaps"))
        XCTAssertEqual(key("SCO voice choppy (quality report), 1 glitch: coexistence denied the radio 1 time on 0x000B 00:1B:66:AA:BB:CC"),
                       key("SCO voice choppy (quality report), 5 glitches: coexistence denied the radio 3 times on 0x000C 00:1B:66:AA:BB:CD"))
        XCTAssertEqual(key("No stored link key: Link Key Request Negative Reply on 0x002A 00:AA:01:01:00:00 × 4", .warning, .encryption),
                       key("No stored link key: Link Key Request Negative Reply on 0x000B 00:1B:DC:0F:00:01", .warning, .encryption))
        XCTAssertEqual(key("Weak signal: RSSI down to -93 dBm, below -85 dBm in 5 of 9 quality reports on 0x000B 00:1B:66:AA:BB:CC", .warning, .radio),
                       key("Weak signal: RSSI down to -90 dBm, below -85 dBm in 1 of 4 quality reports", .warning, .radio))
        XCTAssertNotEqual(key("Response to Write Request 35 s after it, past ATT's 30 s timeout", .error, .att),
                          key("Response to Read Request 35 s after it, past ATT's 30 s timeout", .error, .att))
        XCTAssertNotEqual(key("Pairing failed: Confirm Value Failed (0x04), sent by the peer", .error, .pairing),
                          key("Pairing failed: DHKey Check Failed (0x0B), sent by the peer", .error, .pairing))
        XCTAssertNotEqual(key("L2CAP connection refused for PSM 0x1001: Connection refused - PSM not supported, by the peer", .warning, .l2cap),
                          key("L2CAP connection refused for PSM 0x0019: Connection refused - PSM not supported, by the peer", .warning, .l2cap))
        XCTAssertNotEqual(key("Pairing failed: Confirm Value Failed (0x04)", .error, .pairing), key("Pairing failed: Confirm Value Failed (0x04)", .warning, .pairing))
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
        let diff = CaptureDiff(try Self.side(frames), try Self.side(b))
        let found = differing(diff)
        XCTAssertEqual(Set(found.keys), ["conversations", "diagnosis"], "\(found)")
        XCTAssertEqual(found["conversations"]?.count, 1)
        XCTAssertTrue(found["conversations"]?.first?.contains("2 steps only in A, 0 only in B") == true, "\(found)")
        XCTAssertEqual(found["diagnosis"], ["only in A: warning att: Insufficient Authentication (0x05) for Read Request"])
    }

    /// Each protocol's steps name operations by meaning: an SDP search, an AT command, an RFCOMM
    /// channel opening, an L2CAP connection by PSM; never a CID, a DLCI's direction, a label.
    func testClassicConversationsAreStepsByMeaning() throws {
        let decoder = Decoder()
        var steps: [String: [String]] = [:]
        for frame in Scenarios.handsfreeSession() {
            for (protocolName, record) in ConversationRecord.steps(of: decoder.decode(frame)) { steps[protocolName, default: []].append(record.step.text) }
        }
        XCTAssertEqual(Set(steps.keys), ["L2CAP", "SDP", "RFCOMM", "HFP"], "\(steps.keys)")
        XCTAssertTrue(steps["L2CAP"]?.contains { $0.hasPrefix("Connection Request") && $0.contains("psm=") } == true, "\(steps["L2CAP"] ?? [])")
        XCTAssertFalse(steps["L2CAP"]?.contains { $0.contains("scid") || $0.contains("dcid") || $0.contains("ident") } == true)
        XCTAssertTrue(steps["HFP"]?.contains { $0.hasPrefix("+BRSF") || $0.hasPrefix("AT+BRSF") || $0.contains("BRSF") } == true, "\(steps["HFP"] ?? [])")
        XCTAssertTrue(steps["RFCOMM"]?.contains("Set Asynchronous Balanced Mode  channel=3") == true, "\(steps["RFCOMM"] ?? [])")
        XCTAssertFalse(steps["RFCOMM"]?.contains { $0.contains("dlci=") || $0.contains("direction=") } == true)
        XCTAssertFalse(steps["SDP"]?.contains { $0.contains("transaction=") } == true)
    }

    /// AVRCP's steps come from its description alone (AVRCPFields.conversation): PDUs and
    /// pass-through operations by name with their command or response type, and a volume
    /// change's parameters; never a transaction label or the target's UID counter.
    func testRemoteControlConversationIsStepsByMeaning() throws {
        let decoder = Decoder()
        var steps: [String] = []
        for frame in Scenarios.remoteControlSession() {
            for (protocolName, record) in ConversationRecord.steps(of: decoder.decode(frame)) where protocolName == "AVRCP" {
                steps.append(record.step.text)
            }
        }
        XCTAssertTrue(steps.contains { $0.hasPrefix("Get Capabilities (Status)") }, "\(steps)")
        XCTAssertTrue(steps.contains { $0.hasPrefix("Register Notification (Notify)") && $0.contains("event=") }, "\(steps)")
        XCTAssertTrue(steps.contains { $0.hasPrefix("Play (Control)") }, "\(steps)")
        XCTAssertFalse(steps.contains { $0.contains("uid_counter=") || $0.contains("transaction") || $0.contains("packet_type=") }, "\(steps)")
    }
}
