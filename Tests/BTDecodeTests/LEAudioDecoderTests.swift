import XCTest
import BTCapture
@testable import BTDecode

/// PACS, ASCS, VCS and the LC3 LTVs on bytes laid out from BAP 1.0, PACS 1.0, ASCS 1.0 and
/// VCS 1.0 (Wireshark 4.0 decodes none of these services, so the specifications are the reference).
final class LEAudioDecoderTests: XCTestCase {
    var decoder = Decoder()
    var number = 0

    @discardableResult
    func att(_ pdu: [UInt8], sent: Bool) -> Packet {
        number += 1
        let l2cap = [UInt8(pdu.count & 0xFF), UInt8(pdu.count >> 8), 0x04, 0x00] + pdu
        return decoder.decode(Frame(number: number, timestamp: Int64(number) * 1000, kind: .aclData, direction: sent ? .sent : .received,
                                    bytes: [0x50, 0x20, UInt8(l2cap.count & 0xFF), UInt8(l2cap.count >> 8)] + l2cap))
    }

    func values(_ packet: Packet, _ field: FieldDefinition) -> [String] {
        packet.layers.flatMap { $0.fieldCopies.filter { $0.definition == field }.map(\.value.text) }
    }

    /// Characteristics at value handles 0x0032 Sink PAC, 0x0042 Sink ASE, 0x0048 ASE Control Point, 0x0052 Volume State,
    /// 0x0054 Volume Control Point.
    override func setUp() {
        decoder = Decoder()
        number = 0
        number += 1
        _ = decoder.decode(Frame(number: number, timestamp: 0, kind: .event, direction: .received,
                                 bytes: [0x3E, 0x13, 0x01, 0x00, 0x50, 0x00, 0x00, 0x00, 0x2E, 0x1D, 0x3C, 0xBF, 0x07, 0xE8, 0x18, 0x00, 0x00,
                                         0x00, 0x48, 0x00, 0x00]))
        att([0x08, 0x01, 0x00, 0xFF, 0xFF, 0x03, 0x28], sent: true)
        att([0x09, 0x07, 0x31, 0x00, 0x12, 0x32, 0x00, 0xC9, 0x2B, 0x41, 0x00, 0x12, 0x42, 0x00, 0xC4, 0x2B, 0x47, 0x00, 0x1C, 0x48, 0x00, 0xC6, 0x2B,
             0x51, 0x00, 0x12, 0x52, 0x00, 0x7D, 0x2B, 0x53, 0x00, 0x08, 0x54, 0x00, 0x7E, 0x2B], sent: false)
    }

    func testPACRecordCapabilities() {
        att([0x0A, 0x32, 0x00], sent: true)
        // One LC3 record: 16/24/48 kHz (0x0094), 7.5 and 10 ms with 10 ms preferred (0x23), 1 or 2 channels, 26-155 octets, 2 frames.
        let capabilities: [UInt8] = [0x03, 0x01, 0x94, 0x00, 0x02, 0x02, 0x23, 0x02, 0x03, 0x03, 0x05, 0x04, 0x1A, 0x00, 0x9B, 0x00, 0x02, 0x05, 0x02]
        let pac = att([0x0B, 0x01, 0x06, 0x00, 0x00, 0x00, 0x00, UInt8(capabilities.count)] + capabilities + [0x00], sent: false)
        XCTAssertEqual(pac.typeLabel, "PACS Receive")
        XCTAssertEqual(pac.summary, "Sink PAC: LC3 16 kHz 24 kHz 48 kHz 7.5 ms 10 ms (preferred) channels 1,2 26-155 octets per frame up to 2 frames per SDU")
        XCTAssertEqual(values(pac, LEAudioFields.sampling), ["16000", "24000", "48000"])
        XCTAssertEqual(values(pac, LEAudioFields.codec), ["0x06"])
        // A record whose capabilities run past the value: malformed.
        att([0x0A, 0x32, 0x00], sent: true)
        XCTAssertEqual(att([0x0B, 0x01, 0x06, 0x00, 0x00, 0x00, 0x00, 0x09, 0x03, 0x01], sent: false).worstSeverity, .error)
    }

    func testASEStatesAndControlPoint() {
        // Config Codec for ASE 3: balanced, 2M, LC3 32 kHz 7.5 ms front right 60 octets.
        let configuration: [UInt8] = [0x02, 0x01, 0x06, 0x02, 0x02, 0x00, 0x05, 0x03, 0x02, 0x00, 0x00, 0x00, 0x03, 0x04, 0x3C, 0x00]
        let config = att([0x52, 0x48, 0x00, 0x01, 0x01, 0x03, 0x02, 0x02, 0x06, 0x00, 0x00, 0x00, 0x00, UInt8(configuration.count)] + configuration,
                         sent: true)
        XCTAssertEqual(config.summary, "Config Codec - ASE 3 LC3 32 kHz 7.5 ms Front Right 60 octets")
        XCTAssertEqual(values(config, ASCSFields.opcode), ["0x01"])
        XCTAssertEqual(values(config, LEAudioFields.frameDuration), ["7500"])
        XCTAssertEqual(values(config, LEAudioFields.allocation), ["0x00000002"])
        // The response: ASE 3 rejected (0x08 Rejected Configuration Parameter Value, reason 0x05 PHY).
        let refused = att([0x1B, 0x48, 0x00, 0x01, 0x01, 0x03, 0x08, 0x05], sent: false)
        XCTAssertEqual(refused.summary, "Config Codec Response - ASE 3 Rejected Configuration Parameter Value (PHY)")
        XCTAssertEqual(refused.worstSeverity, .error)
        // An invalid write: 0xFF ASEs, one entry.
        XCTAssertEqual(att([0x1B, 0x48, 0x00, 0x09, 0xFF, 0x00, 0x01, 0x00], sent: false).summary,
                       "Opcode 0x09 Response - ASE 0 Unsupported Opcode")
        // QoS Configured state: CIG 1 CIS 2, 7500 µs, framed, 2M, 40 bytes, RTN 13, 75 ms, 25 ms.
        let qos = att([0x1B, 0x42, 0x00, 0x03, 0x02, 0x01, 0x02, 0x4C, 0x1D, 0x00, 0x01, 0x02, 0x28, 0x00, 0x0D, 0x4B, 0x00, 0xA8, 0x61, 0x00],
                      sent: false)
        XCTAssertEqual(qos.summary, "Sink ASE 3: QoS Configured - CIG 1 CIS 2 - 7.5 ms SDUs of 40 bytes, framed, RTN 13, latency 75 ms, delay 25000 µs")
        XCTAssertEqual(values(qos, ASCSFields.sduInterval), ["7500"])
        // Streaming with metadata: Streaming Audio Contexts Conversational.
        XCTAssertEqual(att([0x1B, 0x42, 0x00, 0x03, 0x04, 0x01, 0x02, 0x04, 0x03, 0x02, 0x02, 0x00], sent: false).summary,
                       "Sink ASE 3: Streaming - CIG 1 CIS 2 - Streaming: Conversational")
        // Truncated state: malformed, not a crash.
        XCTAssertEqual(att([0x1B, 0x42, 0x00, 0x03, 0x02, 0x01], sent: false).worstSeverity, .error)
    }

    func testVolumeControl() {
        att([0x0A, 0x52, 0x00], sent: true)
        let state = att([0x0B, 0xFF, 0x01, 0x09], sent: false)
        XCTAssertEqual(state.summary, "Volume State: 100%, muted (counter 9)")
        XCTAssertEqual(values(state, VCSFields.mute), ["1"])
        XCTAssertEqual(att([0x12, 0x54, 0x00, 0x01, 0x09], sent: true).summary, "Relative Volume Up (counter 9)")
        let stale = att([0x01, 0x12, 0x54, 0x00, 0x80], sent: false)
        XCTAssertEqual(stale.summary, "Error: Invalid Change Counter")
        XCTAssertEqual(stale.issues.count, 1)
        // An ATT error on the same characteristic stays ATT's.
        att([0x12, 0x54, 0x00, 0x01, 0x09], sent: true)
        let other = att([0x01, 0x12, 0x54, 0x00, 0x03], sent: false)
        XCTAssertEqual(other.typeName, "ATT")
        XCTAssertEqual(other.worstSeverity, .error, "ATT reports its own error")
    }

    /// VOCS, AICS, BASS, MCS and TBS: each characteristic at value handle 0x0101 + 2 × index.
    func testControlServices() {
        let types: [UInt16] = [0x2B80, 0x2B82, 0x2B77, 0x2B78, 0x2B7B, 0x2BC8, 0x2BA4, 0x2BBD]
        var entries: [UInt8] = []
        for (index, type) in types.enumerated() {
            let declaration = UInt16(0x0100 + 2 * index)
            entries += [UInt8(declaration & 0xFF), UInt8(declaration >> 8), 0x1A, UInt8((declaration + 1) & 0xFF), UInt8((declaration + 1) >> 8),
                        UInt8(type & 0xFF), UInt8(type >> 8)]
        }
        att([0x08, 0x00, 0x01, 0xFF, 0x01, 0x03, 0x28], sent: true)
        att([0x09, 0x07] + entries, sent: false)
        func notify(_ index: Int, _ value: [UInt8]) -> Packet { att([0x1B, UInt8(0x01 + 2 * index), 0x01] + value, sent: false) }
        func write(_ index: Int, _ value: [UInt8]) -> Packet { att([0x52, UInt8(0x01 + 2 * index), 0x01] + value, sent: true) }
        let offset = notify(0, [0xF6, 0xFF, 0x03])
        XCTAssertEqual(offset.summary, "Offset State: -10 (counter 3)")
        XCTAssertEqual(values(offset, VOCSFields.offset), ["-10"])
        XCTAssertEqual(values(offset, VOCSFields.changeCounter), ["0x03"])
        let setOffset = write(1, [0x01, 0x03, 0x32, 0x00])
        XCTAssertEqual(setOffset.summary, "Set Volume Offset: 50 (counter 3)")
        XCTAssertEqual(values(setOffset, VOCSFields.opcode), ["0x01"])
        XCTAssertEqual(values(setOffset, VOCSFields.offset), ["50"])
        let input = notify(2, [0xFB, 0x01, 0x02, 0x07])
        XCTAssertEqual(input.summary, "Audio Input State: gain -5 - Muted - Manual (counter 7)")
        XCTAssertEqual([values(input, AICSFields.gain), values(input, AICSFields.mute), values(input, AICSFields.gainMode),
                        values(input, AICSFields.changeCounter)], [["-5"], ["0x01"], ["0x02"], ["0x07"]])
        let properties = notify(3, [0x0A, 0xE2, 0x1E])
        XCTAssertEqual(properties.summary, "Gain Setting Properties: -30 to 30 in steps of 1.0 dB")
        XCTAssertEqual([values(properties, AICSFields.units), values(properties, AICSFields.minimum), values(properties, AICSFields.maximum)],
                       [["0x0A"], ["-30"], ["30"]])
        let setGain = write(4, [0x01, 0x07, 0x0C])
        XCTAssertEqual(setGain.summary, "Set Gain Setting 12 (counter 7)")
        XCTAssertEqual(values(setGain, AICSFields.opcode), ["0x01"])
        XCTAssertEqual(values(setGain, AICSFields.gain), ["12"])
        // Each service's layer belongs to its own protocol: what `-f vocs` and `--type aics` test.
        XCTAssertEqual(offset.top?.protocolName, "vocs")
        XCTAssertEqual(setGain.top?.protocolName, "aics")
        // Broadcast Receive State: source 2, BIG encrypted with a bad code, one subgroup synced to BIS 1 and 2.
        let state = notify(5, [0x02, 0x00, 0x55, 0x44, 0x33, 0x22, 0x11, 0xC2, 0x01, 0x34, 0x12, 0x00, 0x02, 0x03] + [UInt8](repeating: 0, count: 16)
                                + [0x01, 0x03, 0x00, 0x00, 0x00, 0x00])
        XCTAssertEqual(state.summary, "Broadcast Receive State: source 2 - C2:11:22:33:44:55 - Broadcast ID 0x001234 - Synchronized - Bad Code - BIS 1,2")
        XCTAssertEqual(state.worstSeverity, .warning)
        XCTAssertEqual(notify(6, [0x31, 0x03]).summary, "Next Track: Media Player Inactive")
        XCTAssertEqual(notify(7, [0x01, 0x03, 0x01, 0x02, 0x04, 0x00]).summary, "Call State: call 1 Active (outgoing), call 2 Locally Held (incoming)")
        // An empty receive state, and a control point write cut short.
        XCTAssertEqual(notify(5, []).summary, "Broadcast Receive State: empty")
        XCTAssertEqual(write(1, [0x01]).worstSeverity, .error)
    }
}
