import XCTest
import BTCapture
import BTDecode

/// The Packet model's own promises, over every fixture: each issue sits on the layer of the
/// protocol it concerns.
final class ModelTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// Every capture in Fixtures/ and the third-party captures beside them, decoded once for
    /// all the tests that read them.
    static func decodeFixtures() throws -> [(String, [Packet])] { try decoded.get() }

    private static let decoded: Result<[(String, [Packet])], Error> = Result {
        var out: [(String, [Packet])] = []
        // The fixtures, and every third-party capture (crackle's, the Android logs).
        let sources = ((try? FileManager.default.contentsOfDirectory(atPath: fixtures.path + "/third-party")) ?? []).sorted()
        let thirdParty = sources.flatMap { source in
            (((try? FileManager.default.contentsOfDirectory(atPath: fixtures.path + "/third-party/" + source)) ?? []).sorted())
                .filter { $0.hasSuffix(".pcap") || $0.hasSuffix(".log") }.map { "third-party/\(source)/" + $0 }
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: fixtures.path).sorted()
            .filter { name in [".btsnoop", ".pklg", ".pcap", ".pcapng"].contains { name.hasSuffix($0) } }
            + thirdParty
        for name in names {
            let reader = try CaptureInput.open(bytes: [UInt8](try Data(contentsOf: fixtures.appendingPathComponent(name))))
            let decoder = Decoder()
            var packets: [Packet] = []
            while let frame = try reader.next() { packets.append(decoder.decode(frame)) }
            out.append((name, packets))
        }
        return out
    }

    func testIssuesLandOnTheLayerTheyConcern() throws {
        // Message beginnings, and the layer each belongs to.
        let owners: [(String, String)] = [
            ("ATT error:", "ATT"), ("Response without a request", "ATT"), ("Request sent before", "ATT"),
            ("Pairing failed", "SMP"), ("L2CAP length mismatch", "L2CAP"), ("New L2CAP PDU started before", "L2CAP"),
            ("ACL continuation fragment without a start", "L2CAP"), ("Command Reject", "L2CAP"),
            ("Status:", "HCI"), ("Disconnected:", "HCI Event"), ("AD structure", "HCI Event"),
            ("ACL length", "ACL"), ("Unknown command opcode", "HCI Command"), ("Attribute Not Found", "ATT"),
        ]
        var checked = Set<String>()
        for (name, packets) in try Self.decodeFixtures() {
            for packet in packets {
                for (index, layer) in packet.layers.enumerated() {
                    for issue in layer.issues {
                        XCTAssertEqual(issue.layer, index, "\(name) #\(packet.frame.number): \(issue.message)")
                        for (prefix, owner) in owners where issue.message.hasPrefix(prefix) {
                            XCTAssertTrue(layer.name.hasPrefix(owner), "\(name) #\(packet.frame.number): '\(issue.message)' on \(layer.name)")
                            checked.insert(prefix)
                        }
                    }
                }
                XCTAssertEqual(packet.issues, packet.layers.flatMap(\.issues))
                XCTAssertEqual(packet.worstIssue?.severity, packet.issues.map(\.severity).max())
            }
        }
        // These the fixtures hold, so the checks above are not vacuous.
        XCTAssertEqual(checked.sorted(), ["ACL continuation fragment without a start", "ATT error:", "Attribute Not Found",
                                          "Command Reject", "Disconnected:", "New L2CAP PDU started before", "Pairing failed",
                                          "Request sent before", "Response without a request", "Status:"])
    }

    /// Issues found before the layer they concern exists travel to it: an L2CAP length that
    /// disagrees with the ACL length is found while reading ACL, and reported on L2CAP.
    func testIssueFoundBelowItsLayerTravelsUp() {
        let decoder = Decoder()
        _ = decoder.decode(Frame(number: 1, timestamp: 0, kind: .event, direction: .received, bytes:
            [0x3E, 0x13, 0x01, 0x00, 0x40, 0x00, 0x00, 0x01, 0x56, 0x34, 0x12, 0xEE, 0xFF, 0xC0, 0x18, 0x00, 0x00, 0x00, 0x48, 0x00, 0x00]))
        // L2CAP says 3 bytes on the ATT channel (Exchange MTU Request 0x02, MTU 0x0100); ACL carries 2 more.
        let packet = decoder.decode(Frame(number: 2, timestamp: 0, kind: .aclData, direction: .sent, bytes:
            [0x40, 0x20, 0x09, 0x00, 0x03, 0x00, 0x04, 0x00, 0x02, 0x00, 0x01, 0xAA, 0xBB]))
        XCTAssertEqual(packet.layers.map(\.name), ["ACL", "L2CAP", "ATT"])
        XCTAssertEqual(packet.layers[1].issues.map(\.message), ["L2CAP length mismatch: header says 3 bytes, ACL carries 5"])
        XCTAssertEqual(packet.issues.map(\.layer), [1])
    }
}

/// The byte cursor's reads, peeks, sub-cursors and trailers, at their bounds.
final class ByteCursorTests: XCTestCase {
    func testReadsPeeksAndBounds() throws {
        var c = ByteCursor([0x34, 0x12, 0xAA, 0xBB, 0xCC, 0xDD, 0x01, 0x02, 0xFC, 0x9E])
        XCTAssertEqual(try c.peekU16(), 0x1234)
        XCTAssertEqual(try c.peekU8(), 0x34)
        XCTAssertEqual(c.offset, 0, "peeks do not move")
        XCTAssertEqual(try c.u16(), 0x1234)
        XCTAssertEqual(try c.u32be(), 0xAABB_CCDD)
        var fcs = try c.trailer(2)
        XCTAssertEqual(try fcs.u16(), 0x9EFC)
        XCTAssertEqual(c.remaining, 2, "the trailer is no longer part of what is left")
        var sub = try c.cursor(2)
        XCTAssertEqual(try sub.u16be(), 0x0102)
        XCTAssertTrue(c.isAtEnd)
        XCTAssertThrowsError(try c.peekU8())
        XCTAssertThrowsError(try c.trailer(1))
        XCTAssertThrowsError(try c.cursor(1)) { error in
            XCTAssertEqual(error as? DecodeError, .truncated(needed: 1, available: 0, at: 8))
        }
        XCTAssertThrowsError(try c.cursor(-1), "a negative count is refused, not a crash")
    }

    func testUUIDsFromBothByteOrders() {
        XCTAssertEqual(BTUUID(littleEndian: [0x0D, 0x18][...]), BTUUID(UInt16(0x180D)))
        XCTAssertEqual(BTUUID(littleEndian: [0xAA, 0xFE, 0x00, 0x00][...])?.description, "FEAA")
        let bytes: [UInt8] = [0xE2, 0xC5, 0x6D, 0xB5, 0xDF, 0xFB, 0x48, 0xD2, 0xB0, 0x60, 0xD0, 0xF5, 0xA7, 0x10, 0x96, 0xE0]
        XCTAssertEqual(BTUUID(bigEndian: bytes[...])?.longForm, "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")
        XCTAssertEqual(BTUUID(littleEndian: Array(bytes.reversed())[...]), BTUUID(bigEndian: bytes[...]))
        XCTAssertNil(BTUUID(littleEndian: [1, 2, 3][...]))
        XCTAssertNil(BTUUID(bigEndian: bytes.prefix(15)))
    }
}

/// Ranges mean one thing everywhere: offsets in the layer's source (the frame, or the PDU
/// reassembled from several frames), so hex highlighting and JSON offsets can trust them.
final class RangeTests: XCTestCase {
    func testLayerAndFieldRangesReadBackTheirValues() throws {
        var checkedFields = 0, checkedLayers = 0, reassembledLayers = 0
        for (name, packets) in try ModelTests.decodeFixtures() {
            for packet in packets {
                for layer in packet.layers {
                    let where_ = "\(name) #\(packet.frame.number) \(layer.name)"
                    guard let bytes = packet.bytes(of: layer) else { XCTFail("\(where_): range \(layer.range) outside its source"); continue }
                    if case .reassembled = layer.source { reassembledLayers += 1 }
                    // A layer's bytes begin with what it decodes first.
                    let first: FieldDefinition? = ["L2CAP": L2CAPFields.length, "ATT": ATTFields.opcode, "SMP": SMPFields.code,
                                                   "HCI Command": HCIFields.opcode, "HCI Event": HCIFields.event][layer.name]
                    if let first, let field = layer.fieldCopies.first, field.definition == first, case .unsigned(let value, let width) = field.value {
                        var c = ByteCursor(bytes)
                        let raw = width == 2 ? UInt64(try c.u8()) : UInt64(try c.u16())
                        XCTAssertEqual(raw, value, where_)
                        checkedLayers += 1
                    }
                    for field in layer.fieldCopies {
                        guard let range = field.range else { continue }
                        guard let covered = packet.bytes(of: layer, range) else { XCTFail("\(where_) \(field.definition.name): \(range) outside"); continue }
                        // An empty field (advertising data of length 0) sits where it would be, up to the layer's end.
                        XCTAssertTrue(layer.range.lowerBound <= range.lowerBound && range.upperBound <= layer.range.upperBound
                                      && (range.isEmpty || layer.range.contains(range.lowerBound)), "\(where_) \(field.definition.name)")
                        // AT commands carry their numbers as text: the range is the line they were read from.
                        let fromText = field.definition.protocolName == "hfp"
                        switch field.value {
                        case _ where fromText: break
                        case .bytes(let value) where value.count == covered.count && covered != value:
                            // A bit field of several bytes (BIGInfo's 37-bit channel map beside its PHY bits): its bits are there.
                            XCTAssertTrue(zip(covered, value).allSatisfy { $0 & $1 == $1 }, "\(where_) \(field.definition.name)")
                        case .bytes(let value): XCTAssertEqual(Array(covered), Array(value), "\(where_) \(field.definition.name)")
                        case .unsigned(let value, _) where field.definition.name == "btle.crc":
                            // Sent from the register's top bit down, each captured byte least significant bit first.
                            let reversed = covered.reduce(UInt64(0)) { value, byte in
                                (0 ..< 8).reduce(value << 8) { $0 | UInt64(byte >> $1 & 1) << UInt64(7 - $1) }
                            }
                            XCTAssertEqual(reversed, value, "\(where_) btle.crc")
                        case .unsigned(let value, let width):
                            let raw = covered.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                            let bigEndian = covered.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                            // Equal (little-endian, or big-endian as SDP and RTP write), or a bit field
                            // (a 12-bit handle, the OGF, the boundary flag) whose bits are there.
                            XCTAssertTrue(raw == value || bigEndian == value || (width < covered.count * 2 || raw > value)
                                && [raw, bigEndian].contains { word in (0 ..< covered.count * 8).contains { word >> UInt64($0) & value == value } },
                                "\(where_) \(field.definition.name)")
                        default: break
                        }
                        checkedFields += 1
                    }
                }
            }
        }
        XCTAssertGreaterThan(checkedFields, 1000)
        XCTAssertGreaterThan(checkedLayers, 1000)
        XCTAssertGreaterThan(reassembledLayers, 10, "fixtures reassemble PDUs, so that source is checked too")
    }

    /// Every protocol of the catalog, with the fields that have no bytes of their own: those
    /// computed from other packets or state (Wireshark's generated fields). Every other field
    /// has its range (read with `Layer.read`, or given), which is what `--redact` zeroes and
    /// what the tree's hex highlights.
    static let fullyRanged: [String: Set<String>] = [
        "smp": ["smp.method"],
        "att": ["att.request_in", "att.response_time", "att.name"],
        // The service and characteristic a handle belongs to, learnt from discovery.
        "gatt": ["gatt.service", "gatt.characteristic"],
        // The PSM is read in a connection request; responses, disconnections and data repeat
        // their channel's.
        "l2cap": ["l2cap.protocol", "l2cap.fragment", "l2cap.fragments", "l2cap.psm"],
        "hci": [], "acl": [], "sco": ["sco.codec"], "iso": [],
        "adv": [], "apple": [], "ancs": [], "ams": [],
        "control": [], "index": [], "log": [], "note": [], "syslog": [],
        // The sniffer's (or btlog's) verdict on the CRC, and btlog's number for the piconet link.
        "btbredr_rf": ["btbredr_rf.crc_ok", "btbredr_rf.handle"], "btbredr_fhs": [],
        "avdtp": [], "hfp": ["hfp.joined"], "bnep": [], "avctp": [], "avrcp": ["avrcp.joined"], "rfcomm": ["rfcomm.fcs_valid"],
        // The values SBC's header codes stand for, and the RTP packets a gap says were lost.
        "rtp": ["rtp.lost"], "sbc": ["sbc.sampling", "sbc.blocks", "sbc.subbands", "sbc.bitrate"], "hid": [],
        // LE Audio: the values codes stand for (sampling frequencies, frame durations), and the
        // direction the characteristic (Sink or Source PAC) says.
        "bap": ["bap.sampling_frequency", "bap.frame_duration"], "ascs": [], "bass": [], "pacs": ["pacs.direction"],
        "mcs": [], "vcs": [], "csis": [], "tbs": [],
        // What the sniffer's header said (channel, RSSI) and btlog's verdicts on the link: its
        // number, who sent the packet, encryption and the key, a retransmission, a damaged PDU
        // the peer acknowledged; whether a BIGInfo is encrypted, told by its length.
        "btle": ["btle.handle", "btle.channel", "btle.direction", "btle.rssi", "btle.encrypted", "btle.decrypted", "btle.key_source",
                 "btle.retransmission", "btle.damaged_acknowledged", "btle.le_secure_connections", "btle.biginfo.encrypted"],
        "btle_rf": [], "nordic_ble": [], "ppi": [], "sdp": [], "aac": [], "data": [], "aics": [], "vocs": [],
        // Vendor HCI (Realtek's and Qualcomm's are in no fixture: VendorDecoderTests checks them).
        "android": [], "bqr": [], "broadcom": [], "intel": [], "realtek": [], "qualcomm": [],
        // BTstack's own records in its logs (btstack-daemon.pklg).
        "btstack": [],
    ]
    /// Fields an answer repeats from its request (a Read Response's handle): without bytes
    /// only in a layer that answers a request.
    static let repeatedFromRequest: Set<String> = ["att.handle"]

    static func isJoined(_ protocolName: String, _ layer: Layer, _ packet: Packet) -> Bool {
        switch protocolName {
        case "ancs", "hfp": return layer.summary.description.contains("(joined from ")
        case "adv", "apple": return packet.issues.contains { $0.message.contains("from the PDUs before this one in the chain") }
        // A signal's continue and end packets: its parameters came in the packets before.
        // An SDP attribute list joined from several responses.
        case "sdp": return layer.fields.contains { $0.definition.name == "sdp.fragments" }
        // A decrypted PDU's fields: their bytes are the plaintext, not the frame's.
        case "btle": return layer.fields.contains { $0.definition.name == "btle.decrypted" }
        case "avdtp", "avctp", "avrcp":
            return layer.summary.description.contains("(started in packet ") || layer.summary.description.contains("joined from ")
                || !packet.reassembled.isEmpty
        default: return false
        }
    }

    func testEveryFieldHasItsBytes() throws {
        var checked: [String: Int] = [:]
        for (name, packets) in try ModelTests.decodeFixtures() {
            for packet in packets {
                for layer in packet.layers {
                    for field in layer.fields {
                        let protocolName = field.definition.protocolName
                        guard let generated = Self.fullyRanged[protocolName], !generated.contains(field.definition.name) else { continue }
                        if Self.repeatedFromRequest.contains(field.definition.name), field.range == nil,
                           layer.fields.contains(where: { $0.definition.name == "att.request_in" }) { continue }
                        // What was joined from several packets has no bytes of its own in the last one: an
                        // ANCS answer from several notifications, advertising data from an AUX_CHAIN_IND chain.
                        if field.range == nil, Self.isJoined(protocolName, layer, packet) { continue }
                        // A reassembled SDU no decoder takes is its own buffer, not the L2CAP layer's.
                        if field.definition.name == "l2cap.payload", field.range == nil, layer.source == .frame,
                           !packet.reassembled.isEmpty { continue }
                        XCTAssertNotNil(field.range, "\(name) #\(packet.frame.number): \(field.definition.name) has no range")
                        checked[protocolName, default: 0] += 1
                    }
                }
            }
        }
        // Every protocol of the catalog is held to it (a new one must say which of its fields
        // have no bytes), and each is seen in the fixtures (AICS and VOCS are in none yet).
        // frame.*, merge.* and identity.* are the record's (and the packet's) properties, not a layer's fields.
        let catalogued = Set(ProtocolCatalog.all.flatMap { $0.fields.map(\.protocolName) }).subtracting(["frame", "merge", "identity"])
        XCTAssertEqual(catalogued.subtracting(Self.fullyRanged.keys), [], "protocols whose fields' ranges no test holds")
        for protocolName in Self.fullyRanged.keys where !["aics", "vocs", "realtek", "qualcomm"].contains(protocolName) {
            XCTAssertGreaterThan(checked[protocolName, default: 0], 0, protocolName)
        }
    }

    /// A K-frame that finishes an SDU and itself arrives in two ACL fragments: the packet
    /// reassembles twice, and each layer's bytes are in its own buffer (L2CAP in the PDU, ATT
    /// in the SDU).
    func testTwoReassembliesInOnePacketKeepTheirOwnBytes() throws {
        let decoder = Decoder()
        var number = 0
        func feed(_ kind: FrameKind, sent: Bool, _ bytes: [UInt8]) -> Packet {
            number += 1
            return decoder.decode(Frame(number: number, timestamp: Int64(number), kind: kind, direction: sent ? .sent : .received, bytes: bytes))
        }
        _ = feed(.event, sent: false, [0x3E, 0x13, 0x01, 0x00, 0x40, 0x00, 0x00, 0x01, 0x56, 0x34, 0x12, 0xEE, 0xFF, 0xC0, 0x18, 0x00, 0x00, 0x00, 0x48, 0x00, 0x00])
        // LE Credit Based Connection Request (SPSM 0x0027: ATT, SCID 0x0040, MTU 100, MPS 64, 10 credits) and its Response (DCID 0x0041, success).
        _ = feed(.aclData, sent: true, [0x40, 0x20, 0x12, 0x00, 0x0E, 0x00, 0x05, 0x00, 0x14, 0x01, 0x0A, 0x00,
                                         0x27, 0x00, 0x40, 0x00, 0x64, 0x00, 0x40, 0x00, 0x0A, 0x00])
        _ = feed(.aclData, sent: false, [0x40, 0x20, 0x12, 0x00, 0x0E, 0x00, 0x05, 0x00, 0x15, 0x01, 0x0A, 0x00,
                                          0x41, 0x00, 0x64, 0x00, 0x40, 0x00, 0x0A, 0x00, 0x00, 0x00])
        // K-frame 1: SDU length 7, then Write Request opcode and handle 0x0003.
        let start = feed(.aclData, sent: true, [0x40, 0x20, 0x09, 0x00, 0x05, 0x00, 0x41, 0x00, 0x07, 0x00, 0x12, 0x03, 0x00])
        XCTAssertTrue(start.summary.contains("SDU start"), start.summary)
        // K-frame 2 (4 bytes of value) in two ACL fragments.
        _ = feed(.aclData, sent: true, [0x40, 0x20, 0x06, 0x00, 0x04, 0x00, 0x41, 0x00, 0x01, 0x02])
        let end = feed(.aclData, sent: true, [0x40, 0x10, 0x02, 0x00, 0x03, 0x04])
        XCTAssertEqual(end.layers.map(\.name), ["ACL", "L2CAP", "ATT"])
        XCTAssertEqual(end.reassembled.map(Array.init), [[0x04, 0x00, 0x41, 0x00, 0x01, 0x02, 0x03, 0x04], [0x12, 0x03, 0x00, 0x01, 0x02, 0x03, 0x04]])
        XCTAssertEqual(end.layers[1].source, .reassembled(0))
        XCTAssertEqual(end.layers[2].source, .reassembled(1))
        XCTAssertEqual(end.bytes(of: end.layers[1]).map(Array.init), [0x04, 0x00, 0x41, 0x00, 0x01, 0x02, 0x03, 0x04])
        XCTAssertEqual(end.bytes(of: end.layers[2]).map(Array.init), [0x12, 0x03, 0x00, 0x01, 0x02, 0x03, 0x04])
        XCTAssertEqual(end.reassembledPDU.map(Array.init), [0x12, 0x03, 0x00, 0x01, 0x02, 0x03, 0x04], "the tree's dump shows the SDU, as before")
    }
}
