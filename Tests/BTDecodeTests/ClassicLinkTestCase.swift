import XCTest
import BTCapture
import BTDecode

/// A BR/EDR link to 00:1A:7D:DA:71:13 on handle 0x000B and helpers to put L2CAP frames on it,
/// for the profile decoders' tests.
class ClassicLinkTestCase: XCTestCase {
    var decoder = Decoder()
    var number = 0
    static let handle: UInt16 = 0x000B

    override func setUp() {
        decoder = Decoder()
        number = 0
        // Connection Complete: status 0, handle 0x000B, 00:1A:7D:DA:71:13, ACL, no encryption.
        feed(.event, .received, [0x03, 0x0B, 0x00, 0x0B, 0x00, 0x13, 0x71, 0xDA, 0x7D, 0x1A, 0x00, 0x01, 0x00])
    }

    @discardableResult
    func feed(_ kind: FrameKind, _ direction: Direction, _ bytes: [UInt8]) -> Packet {
        number += 1
        return decoder.decode(Frame(number: number, timestamp: Int64(number) * 1000, kind: kind, direction: direction, bytes: bytes))
    }

    /// A whole L2CAP basic frame on `cid` in one ACL packet.
    @discardableResult
    func l2cap(_ cid: UInt16, _ payload: [UInt8], sent: Bool) -> Packet {
        let pdu = [UInt8(payload.count & 0xFF), UInt8(payload.count >> 8), UInt8(cid & 0xFF), UInt8(cid >> 8)] + payload
        return feed(.aclData, sent ? .sent : .received,
                    [UInt8(Self.handle & 0xFF), UInt8(Self.handle >> 8) | 0x20, UInt8(pdu.count & 0xFF), UInt8(pdu.count >> 8)] + pdu)
    }

    /// Opens a channel for `psm`: the host's CID `local` (0x0040), the peer's `remote` (0x0041).
    func open(psm: UInt16, local: UInt8 = 0x40, remote: UInt8 = 0x41) {
        l2cap(0x0001, [0x02, 0x01, 0x04, 0x00, UInt8(psm & 0xFF), UInt8(psm >> 8), local, 0x00], sent: true)
        l2cap(0x0001, [0x03, 0x01, 0x08, 0x00, remote, 0x00, local, 0x00, 0x00, 0x00, 0x00, 0x00], sent: false)
    }

    func values(_ packet: Packet, _ field: FieldDefinition) -> [String] {
        packet.layers.flatMap { $0.fieldCopies.filter { $0.definition == field }.map(\.value.text) }
    }
}
