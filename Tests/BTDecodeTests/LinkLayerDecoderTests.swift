import XCTest
import BTCapture
import BTDecode
import BTFixtures

/// The LE link layer taken from the air (AirScenario, written in the three link types sniffers
/// use): what the sniffer's header says and what btlog works out itself must agree.
final class LinkLayerDecoderTests: XCTestCase {
    func decode(_ type: AirLinkType) -> [Packet] {
        let decoder = Decoder()
        return AirScenario.frames(type).map { decoder.decode($0) }
    }

    func values(_ packet: Packet, _ name: String) -> [String] {
        let field = FieldRegistry.lookup(name)!
        return packet.values(of: field).map(\.text)
    }

    func testEveryLinkTypeDecodesTheSameLinkLayer() {
        let nordic = decode(.nordicBLE), radio = decode(.leLLWithRadioHeader), bare = decode(.leLL), ppi = decode(.ppi)
        XCTAssertEqual(nordic.count, bare.count)
        for (index, packet) in bare.enumerated() {
            // The headers differ; from the link layer up every layer and summary is the same.
            let tail = { (p: Packet) in p.layers.drop { $0.name != "LE LL" }.map { "\($0.name): \($0.summary.description)" } }
            XCTAssertEqual(tail(packet), tail(nordic[index]), "packet \(index + 1)")
            XCTAssertEqual(tail(packet), tail(radio[index]), "packet \(index + 1)")
            XCTAssertEqual(tail(packet), tail(ppi[index]), "packet \(index + 1)")
            XCTAssertEqual(packet.frame.direction, nordic[index].frame.direction, "packet \(index + 1): direction inferred from timing")
        }
        XCTAssertEqual(nordic.first?.layers.map(\.name), ["nRF Sniffer", "LE LL"])
        XCTAssertEqual(radio.first?.layers.map(\.name), ["LE Radio", "LE LL"])
        XCTAssertEqual(ppi.first?.layers.map(\.name), ["PPI", "LE LL"])
        // Every header that names a channel names the same one.
        for packets in [nordic, radio, ppi] {
            XCTAssertEqual(packets.map { values($0, "btle.channel") }, nordic.map { values($0, "btle.channel") })
        }
    }

    func testTheCRCIsCheckedWhereTheSnifferDidNot() throws {
        // Link type 251 carries no verdict: btlog computes the CRC from 0x555555 on advertising
        // channels and from CONNECT_IND's CRC init on the connection. The generator writes its
        // CRCs with its own LFSR (tshark finds none incorrect); one packet is written damaged.
        let packets = decode(.leLL)
        let verdicts = packets.map { values($0, "btle.crc_ok") }
        XCTAssertEqual(verdicts.filter { $0 == ["1"] }.count, packets.count - 1)
        let damaged = try XCTUnwrap(packets.firstIndex { values($0, "btle.crc_ok") == ["0"] })
        XCTAssertEqual(packets[damaged].layers.map(\.name), ["LE LL"], "a damaged packet is not handed to L2CAP")
        XCTAssertTrue(packets[damaged].hasError)
        // The packet sent again after it is decoded in full.
        XCTAssertEqual(packets[damaged + 2].layers.map(\.name), ["LE LL", "L2CAP", "ATT"])
        // The first advertising packet's CRC as tshark's btle.crc quotes it.
        XCTAssertEqual(values(packets[0], "btle.crc"), ["0xEB07A6"])
    }

    func testConnectionsSequenceNumbersAndReassembly() throws {
        let packets = decode(.nordicBLE)
        let connect = try XCTUnwrap(packets.first { values($0, "btle.advertising_header.pdu_type") == ["0x05"] })
        XCTAssertEqual(values(connect, "btle.link_layer_data.access_address"), ["0x50654C9A"])
        XCTAssertEqual(values(connect, "btle.link_layer_data.interval"), ["0x0018"])
        XCTAssertEqual(connect.handle, 1)
        // The Read By Group Type response came in two fragments: L2CAP joins them.
        let services = try XCTUnwrap(packets.first { values($0, "att.opcode") == ["0x11"] })
        XCTAssertEqual(values(services, "btle.data_header.llid"), ["0x01"])
        XCTAssertTrue(services.summary.contains("Heart Rate"), services.summary)
        // The notification the central did not acknowledge is marked when sent again, once.
        let retransmitted = packets.filter { values($0, "btle.retransmission") == ["1"] }
        XCTAssertEqual(retransmitted.count, 1)
        XCTAssertEqual(retransmitted.first?.layers.map(\.name), ["nRF Sniffer", "LE LL"])
        // After the peripheral's LL_START_ENC_REQ every payload of the link is encrypted, empty PDUs aside.
        let start = try XCTUnwrap(packets.firstIndex { values($0, "btle.control_opcode") == ["0x05"] })
        let end = try XCTUnwrap(packets.firstIndex { values($0, "btle.control_opcode") == ["0x02"] })
        for packet in packets[(start + 1) ... end] where values(packet, "btle.data_header.length") != ["0x00"] {
            XCTAssertEqual(values(packet, "btle.encrypted"), ["1"], "packet \(packet.frame.number)")
        }
        // Central to peripheral is Send, as in a phone's own HCI log.
        XCTAssertEqual(packets.first { values($0, "att.opcode") == ["0x02"] }?.frame.direction, .sent)
    }

    func testControlPDUsByNameWithTheirParameters() throws {
        let packets = decode(.leLL)
        func control(_ opcode: String) throws -> Packet { try XCTUnwrap(packets.first { values($0, "btle.control_opcode") == [opcode] }) }
        let version = try control("0x0C")
        XCTAssertTrue(version.summary.contains("LL_VERSION_IND - Bluetooth 5.3 - Nordic Semiconductor ASA"), version.summary)
        let reject = try control("0x11")
        XCTAssertEqual(values(reject, "btle.control.reject_opcode"), ["0x0F"])
        XCTAssertEqual(values(reject, "btle.control.error_code"), ["0x1A"])
        XCTAssertTrue(reject.hasWarning)
        let features = try control("0x08")
        XCTAssertTrue(values(features, "btle.control.feature").contains("LE Data Packet Length Extension"))
        let phyUpdate = try control("0x18")
        XCTAssertEqual(values(phyUpdate, "btle.control.instant"), [], "no PHY changes: the instant is reserved")
        let update = try control("0x00")
        XCTAssertEqual(values(update, "btle.control.interval"), ["0x0028"])
    }

    func testEncryptedLinksAreDecrypted() throws {
        let packets = decode(.nordicBLE)
        let encrypted = packets.filter { values($0, "btle.encrypted") == ["1"] }
        XCTAssertGreaterThan(encrypted.count, 12)
        // The first link: the STK of the Just Works pairing the capture shows; the second: the LTK
        // the sensor distributed over the first, once it was decrypted.
        for packet in encrypted {
            XCTAssertEqual(values(packet, "btle.decrypted"), ["1"], "packet \(packet.frame.number)")
            XCTAssertFalse(packet.hasError, "packet \(packet.frame.number)")
        }
        let notes = packets.flatMap(\.issues).map(\.message).filter { $0.hasPrefix("Decrypted with") }
        XCTAssertEqual(notes, ["Decrypted with STK of legacy pairing, Just Works",
                               "Decrypted with LTK distributed in packet 79"])
        let ltk = try XCTUnwrap(packets.first { values($0, "smp.code") == ["0x06"] })
        XCTAssertEqual(values(ltk, "smp.ltk"), [AirScenario.sensorLTK.reversed().map { String(format: "%02X", $0) }.joined()])
        XCTAssertEqual(packets.last { values($0, "att.opcode") == ["0x1B"] }?.summary, "Handle Value Notification - Handle: 0x0013 - Value: 63")
        XCTAssertEqual(values(packets.last!, "btle.control_opcode"), [], "the last is an empty PDU")
        XCTAssertEqual(values(packets[packets.count - 2], "btle.control_opcode"), ["0x02"], "LL_TERMINATE_IND, decrypted")
    }

    func testPasskeyPairingIsCrackedAsCrackleDoes() {
        let decoder = Decoder()
        let packets = AirScenario.frames(.leLL, passkey: 42).map { decoder.decode($0) }
        let notes = packets.flatMap(\.issues).map(\.message).filter { $0.hasPrefix("Decrypted with") }
        XCTAssertEqual(notes.first, "Decrypted with STK of legacy pairing, TK 000042 (passkey search)")
        XCTAssertTrue(packets.filter { values($0, "btle.encrypted") == ["1"] }.allSatisfy { values($0, "btle.decrypted") == ["1"] })
    }

    func testMissingConfirmsTheMICOfTheFirstEncryptedPacketFindsTheTK() {
        // crackle's third strategy: the sniffer missed both Pairing Confirm PDUs, so no confirm
        // value can check a TK; the randoms and the first encrypted packet's MIC can.
        for (passkey, source) in [(UInt32?.none, "STK of legacy pairing, Just Works"), (42, "STK of legacy pairing, TK 000042 (search by MIC)")] {
            let decoder = Decoder()
            let frames = AirScenario.frames(.ppi, passkey: passkey, missingConfirms: true)
            XCTAssertEqual(frames.count, AirScenario.frames(.ppi, passkey: passkey).count - 2)
            let packets = frames.map { decoder.decode($0) }
            XCTAssertFalse(packets.contains { values($0, "smp.code") == ["0x03"] }, "no confirm left")
            XCTAssertEqual(packets.compactMap { values($0, "btle.key_source").first }.first, source)
            let encrypted = packets.filter { values($0, "btle.encrypted") == ["1"] }
            XCTAssertGreaterThan(encrypted.count, 12)
            XCTAssertTrue(encrypted.allSatisfy { values($0, "btle.decrypted") == ["1"] })
        }
    }

    func testWithoutADirectionFlagTheChannelTellsTheSides() throws {
        // Ubertooth's PPI says no direction: each new data channel opens an event (the central's
        // packet), and the sides then take turns, whatever the host's timestamps say.
        var frames = AirScenario.frames(.ppi)
        let truth = AirScenario.frames(.nordicBLE).map { Decoder().decode($0) }
        // Timestamps that jitter and go backwards, as a host's arrival times do.
        frames = frames.enumerated().map { index, frame in
            Frame(number: frame.number, timestamp: frame.timestamp + (index % 3 == 1 ? -4_000 : 2_500), kind: frame.kind,
                  direction: frame.direction, bytes: Array(frame.bytes))
        }
        let decoder = Decoder()
        let nordic = Decoder()
        let expected = AirScenario.frames(.nordicBLE).map { nordic.decode($0) }
        let packets = frames.map { decoder.decode($0) }
        XCTAssertEqual(truth.count, packets.count)
        var compared = 0
        for (ours, theirs) in zip(packets, expected) where values(theirs, "btle.direction").count == 1 && values(ours, "btle.crc_ok") != ["0"] {
            XCTAssertEqual(values(ours, "btle.direction"), values(theirs, "btle.direction"), "packet \(ours.frame.number): \(ours.summary)")
            compared += 1
        }
        XCTAssertGreaterThan(compared, 60)
    }

    /// Decodes frames as the packet loop does, the frames after each at hand.
    func decodeWithLookahead(_ frames: [Frame]) -> [Packet] {
        let decoder = Decoder()
        var index = 0
        decoder.session.upcoming = { distance in frames.indices.contains(index + distance) ? frames[index + distance] : nil }
        var packets: [Packet] = []
        while index < frames.count {
            packets.append(decoder.decode(frames[index]))
            index += 1
        }
        return packets
    }

    func testADamagedPacketThePeerAcknowledgedIsDecoded() throws {
        // The nRF Sniffer got a damaged copy of a PDU the peer took (its next packet's NESN
        // moved on): decoded and reassembled, marked. The scenario's own damaged notification,
        // which neither side took (both sent their last packet again), stays undecoded.
        var frames = AirScenario.frames(.nordicBLE)
        let plain = decodeWithLookahead(frames)
        let target = try XCTUnwrap(plain.first { $0.frame.direction == .received && $0.typeName == "ATT" && values($0, "btle.encrypted") != ["1"]
                && values($0, "btle.retransmission") != ["1"] })
        let old = frames[target.frame.number - 1]
        var bytes = Array(old.bytes)
        bytes[8] &= 0xFE // the nRF Sniffer's flags: CRC bad
        frames[target.frame.number - 1] = Frame(number: old.number, timestamp: old.timestamp, kind: old.kind, direction: .none, bytes: bytes)
        let packets = decodeWithLookahead(frames)
        let damaged = packets[target.frame.number - 1]
        XCTAssertEqual(values(damaged, "btle.crc_ok"), ["0"])
        XCTAssertEqual(damaged.typeName, "ATT", damaged.summary)
        XCTAssertEqual(damaged.summary, target.summary)
        XCTAssertEqual(values(damaged, "btle.damaged_acknowledged"), [String(target.frame.number + 1)])
        XCTAssertTrue(damaged.issues.contains { $0.message.contains("damaged at the sniffer, acknowledged by the peer") })
        XCTAssertFalse(damaged.hasError)
        // Without the frames after it at hand (live input), it stays as it was.
        let streamed = Decoder()
        let live = frames.map { streamed.decode($0) }[target.frame.number - 1]
        XCTAssertEqual(live.typeName, "LE LL")
        XCTAssertTrue(live.hasError)
        // The scenario's damaged packet, sent again by both sides, is not decoded.
        let unacknowledged = try XCTUnwrap(plain.first { values($0, "btle.crc_ok") == ["0"] })
        XCTAssertEqual(packets[unacknowledged.frame.number - 1].typeName, "LE LL")
        XCTAssertEqual(values(packets[unacknowledged.frame.number - 1], "btle.damaged_acknowledged"), [])
    }

    func testARepeatedSequenceNumberWithNewBytesIsNoRetransmission() throws {
        // Same SN, other payload: a packet between was missed, or the sides were told apart
        // wrongly; dropping it as a copy would lose a PDU. Only the same bytes again are a copy.
        var frames = AirScenario.frames(.nordicBLE)
        let plain = frames.map { Decoder().decode($0) }
        let decoder = Decoder()
        let original = frames.map { decoder.decode($0) }
        let copy = try XCTUnwrap(original.first { values($0, "btle.retransmission") == ["1"] && values($0, "btle.encrypted") != ["1"] })
        XCTAssertFalse(plain.isEmpty)
        var bytes = Array(frames[copy.frame.number - 1].bytes)
        bytes[bytes.count - 4] ^= 0x01 // the payload's last byte (the nRF Sniffer's CRC verdict stands)
        let old = frames[copy.frame.number - 1]
        frames[copy.frame.number - 1] = Frame(number: old.number, timestamp: old.timestamp, kind: old.kind, direction: .none, bytes: bytes)
        let again = Decoder()
        let changed = frames.map { again.decode($0) }[copy.frame.number - 1]
        XCTAssertEqual(values(changed, "btle.retransmission"), [], changed.summary)
        XCTAssertEqual(values(changed, "btle.data_header.sequence_number"), values(copy, "btle.data_header.sequence_number"))
        XCTAssertNotEqual(changed.typeName, "LE LL", "its L2CAP is decoded: \(changed.summary)")
    }

    func testADamagedFirstEncryptedPacketDoesNotLeaveTheLinkUndecrypted() throws {
        // The nRF Sniffer's CRC verdict stands, so a payload byte changed after it reads as a
        // MIC failure: the central's LL_START_ENC_RSP. The peripheral's, next, finds the key.
        var frames = AirScenario.frames(.nordicBLE)
        let decoder = Decoder()
        let plain = frames.map { decoder.decode($0) }
        let first = try XCTUnwrap(plain.firstIndex { values($0, "btle.encrypted") == ["1"] })
        var bytes = Array(frames[first].bytes)
        bytes[bytes.count - 8] ^= 0x01 // the encrypted opcode
        frames[first] = Frame(number: first + 1, timestamp: frames[first].timestamp, kind: frames[first].kind, direction: .none, bytes: bytes)
        let again = Decoder()
        let packets = frames.map { again.decode($0) }
        XCTAssertEqual(values(packets[first], "btle.decrypted"), [])
        XCTAssertEqual(values(packets[first + 1], "btle.decrypted"), ["1"])
        XCTAssertEqual(values(packets[first + 1], "btle.control_opcode"), ["0x06"])
        let decrypted = packets[(first + 1)...].filter { values($0, "btle.encrypted") == ["1"] }
        XCTAssertTrue(decrypted.allSatisfy { values($0, "btle.decrypted") == ["1"] })
        // Its packet counter moved on by two: the sniffer missed one packet of that side.
        XCTAssertTrue(packets.contains { values($0, "btle.missed") == ["1"] })
        XCTAssertTrue(packets.flatMap(\.issues).contains { $0.message.hasPrefix("The sniffer missed a packet from the ") })
    }

    func testAGivenKeyDecryptsALinkWhosePairingTheCaptureLacks() throws {
        // Only the second connection: btlog has not seen the key distributed.
        let frames = AirScenario.frames(.leLL)
        let second = try XCTUnwrap(frames.lastIndex { $0.bytes.count > 20 && $0.bytes[4] & 0x0F == 0x05 && $0.bytes[0 ..< 4] == [0xD6, 0xBE, 0x89, 0x8E] })
        func run(_ keys: [[UInt8]]) -> [Packet] {
            var options = DecodeOptions()
            options.linkLayerKeys = keys
            let decoder = Decoder(options: options)
            return frames[second...].map { decoder.decode($0) }
        }
        let without = run([])
        XCTAssertTrue(without.flatMap(\.issues).contains { $0.message.hasPrefix("Encrypted with a key btlog does not have") })
        XCTAssertTrue(without.allSatisfy { values($0, "btle.decrypted").isEmpty })
        for key in [AirScenario.sensorLTK, AirScenario.sensorLTK.reversed()] {
            let with = run([[UInt8](repeating: 0x11, count: 16), key])
            XCTAssertEqual(with.filter { values($0, "btle.decrypted") == ["1"] }.count, without.filter { values($0, "btle.encrypted") == ["1"] }.count)
            XCTAssertTrue(with.contains { values($0, "att.opcode") == ["0x1B"] })
        }
    }

    func testKeysFiles() throws {
        let keys = try LinkLayerKeys.parse(file: "# sensor\n7A1F3C55900BE26418D72B9E41C603F8\n\n0x4c:68:38:41:39:f5:74:d8:36:bc:f3:4e:9d:fb:01:bf # sample\n", name: "k")
        XCTAssertEqual(keys, [AirScenario.sensorLTK, [0x4C, 0x68, 0x38, 0x41, 0x39, 0xF5, 0x74, 0xD8, 0x36, 0xBC, 0xF3, 0x4E, 0x9D, 0xFB, 0x01, 0xBF]])
        XCTAssertThrowsError(try LinkLayerKeys.parse(file: "7A1F\n", name: "k")) { XCTAssertEqual("\($0)", "k:1: a key is 32 hex digits (16 octets); this has 4") }
        XCTAssertThrowsError(try LinkLayerKeys.parse(file: "\n\n7A1F3C55900BE26418D72B9E41C603FG\n", name: "k")) { XCTAssertEqual("\($0)", "k:3: 'G' is not a hex digit") }
    }

    func testDamagedRecordsAreIssuesNotCrashes() {
        let decoder = Decoder()
        let good = AirScenario.frames(.nordicBLE)[10].bytes
        for cut in 0 ..< good.count {
            for type in AirLinkType.allCases {
                let packet = decoder.decode(Frame(number: 1, timestamp: 0, kind: .air(type), direction: .none, bytes: Array(good.prefix(cut))))
                XCTAssertFalse(packet.layers.isEmpty)
                if cut < 9 { XCTAssertTrue(packet.hasError, "\(type) cut at \(cut)") }
            }
        }
        // A version the layout does not know says so.
        var future = Array(good)
        future[3] = 9
        let packet = decoder.decode(Frame(number: 1, timestamp: 0, kind: .air(.nordicBLE), direction: .none, bytes: future))
        XCTAssertTrue(packet.issues.contains { $0.message.contains("protocol version 9") })
    }

    /// AirIsochronousScenario: LE Coded advertising, a periodic train with BIGInfo and a chained
    /// BASE, BIS packets (radio header type 6), and a CIS found by its LL_CIS_IND.
    func testPeriodicTrainsAndIsochronousStreams() throws {
        let decoder = Decoder()
        let radio = AirIsochronousScenario.frames(.leLLWithRadioHeader).map { decoder.decode($0) }
        let summaries = radio.map { $0.layers.first { $0.name == "LE LL" }!.summary.description }
        // The coding indicator after the access address, outside the CRC (which checks).
        XCTAssertEqual(values(radio[0], "btle.coding_indicator"), ["0x00"])
        XCTAssertEqual(values(radio[1], "btle.coding_indicator"), ["0x01"])
        XCTAssertTrue(radio.allSatisfy { values($0, "btle.crc_ok") != ["0"] })
        // The SyncInfo in AUX_ADV_IND names the train; its PDUs are advertising, not a connection's.
        XCTAssertEqual(values(radio[1], "btle.extended_advertising_header.sync_info.access_address"), ["0x3D5A7E91"])
        XCTAssertEqual(values(radio[1], "btle.extended_advertising_header.sync_info.crc_init"), ["0x5B1C2D"])
        XCTAssertTrue(summaries[2].hasPrefix("AUX_SYNC_IND - D0:50:40:30:20:10 SID 3"), summaries[2])
        XCTAssertTrue(summaries[3].hasPrefix("AUX_CHAIN_IND"), summaries[3])
        XCTAssertTrue(summaries[4].hasPrefix("AUX_SYNC_IND"), summaries[4])
        XCTAssertNil(radio[2].handle, "a train is no connection")
        // BIGInfo in the ACAD, field by field.
        XCTAssertEqual(values(radio[2], "btle.biginfo.num_bis"), ["0x02"])
        XCTAssertEqual(values(radio[2], "btle.biginfo.iso_interval"), ["0x0008"])
        XCTAssertEqual(values(radio[2], "btle.biginfo.seed_access_address"), ["0x71A2B3C4"])
        XCTAssertEqual(values(radio[2], "btle.biginfo.max_sdu"), ["0x0028"])
        XCTAssertEqual(values(radio[2], "btle.biginfo.framing"), ["1"])
        XCTAssertEqual(values(radio[2], "btle.biginfo.bis_payload_count"), ["0x00000004D2"])
        // The BASE split over AUX_SYNC_IND and AUX_CHAIN_IND is decoded once, whole, at the chain's end.
        XCTAssertEqual(values(radio[2], "adv.ad_type"), [])
        XCTAssertEqual(values(radio[3], "adv.ad_type"), ["0x16"])
        XCTAssertFalse(radio[2].hasError || radio[3].hasError)
        XCTAssertTrue(radio[3].issues.contains { $0.message.contains("Advertising data of 46 bytes") })
        // BIS packets: framed segments with their time offset; the BIG's control PDUs.
        XCTAssertTrue(summaries[5].hasPrefix("BIS 0x4C6D1E2F Framed ISO data - 1 segment"), summaries[5])
        XCTAssertEqual(values(radio[5], "btle.iso.segment.time_offset"), ["0x00002710"])
        XCTAssertEqual(values(radio[5], "btle.iso.segment.data").first?.count, 40 * 2)
        XCTAssertEqual(values(radio[9], "btle.big_control_opcode"), ["0x00"])
        XCTAssertEqual(values(radio[10], "btle.big_control_opcode"), ["0x01"])
        // The CIS: its own handle after the connection's, both directions, the retransmission marked.
        let cis = radio.filter { $0.layers.first { $0.name == "LE LL" }!.summary.description.contains("CIS 1/1") }
        XCTAssertEqual(cis.count, 6)
        XCTAssertEqual(Set(cis.map(\.handle)), [2])
        XCTAssertEqual(cis.map(\.frame.direction), [.sent, .received, .sent, .received, .sent, .received])
        XCTAssertEqual(cis.map { values($0, "btle.retransmission") }, [[], [], [], [], ["1"], []])
        XCTAssertEqual(cis.map { values($0, "btle.data_header.null_pdu_indicator") }, [["0"], ["1"], ["0"], ["1"], ["0"], ["1"]])
        // The nRF Sniffer marks no CIS: btlog finds it by the access address LL_CIS_IND gave,
        // and the direction by the sniffer's flag; the same stream decodes the same.
        let nordicDecoder = Decoder()
        let nordic = AirIsochronousScenario.frames(.nordicBLE).map { nordicDecoder.decode($0) }
        let nordicCIS = nordic.filter { $0.layers.first { $0.name == "LE LL" }!.summary.description.contains("CIS 1/1") }
        XCTAssertEqual(nordicCIS.map { $0.layers.first { $0.name == "LE LL" }!.summary.description },
                       cis.map { $0.layers.first { $0.name == "LE LL" }!.summary.description })
    }
}
