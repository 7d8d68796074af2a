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
        let nordic = decode(.nordicBLE), radio = decode(.leLLWithRadioHeader), bare = decode(.leLL)
        XCTAssertEqual(nordic.count, bare.count)
        for (index, packet) in bare.enumerated() {
            // The headers differ; from the link layer up every layer and summary is the same.
            let tail = { (p: Packet) in p.layers.drop { $0.name != "LE LL" }.map { "\($0.name): \($0.summary.description)" } }
            XCTAssertEqual(tail(packet), tail(nordic[index]), "packet \(index + 1)")
            XCTAssertEqual(tail(packet), tail(radio[index]), "packet \(index + 1)")
            XCTAssertEqual(packet.frame.direction, nordic[index].frame.direction, "packet \(index + 1): direction inferred from timing")
        }
        XCTAssertEqual(nordic.first?.layers.map(\.name), ["nRF Sniffer", "LE LL"])
        XCTAssertEqual(radio.first?.layers.map(\.name), ["LE Radio", "LE LL"])
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
        // After the peripheral's LL_START_ENC_REQ every payload is encrypted, empty PDUs aside.
        let start = try XCTUnwrap(packets.firstIndex { values($0, "btle.control_opcode") == ["0x05"] })
        for packet in packets[(start + 1)...] where values(packet, "btle.data_header.length") != ["0x00"] {
            XCTAssertEqual(values(packet, "btle.encrypted"), ["1"], "packet \(packet.frame.number)")
            XCTAssertEqual(packet.layers.last?.name, "LE LL")
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
}
