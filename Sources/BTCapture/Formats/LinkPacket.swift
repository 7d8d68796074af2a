/// BCSP and HCI three-wire (H5) link packets, as btsnoop datalinks 1003 and 1004 store them.
///
/// Both share a 4-byte header: byte 0 sequence/ack/CRC-present/reliable bits; the low nibble
/// of byte 1 is the packet type (H5) or channel (BCSP); the payload length is 12 bits, the high
/// nibble of byte 1 being its low part; byte 3 checks the header. Packets may still carry SLIP
/// framing (0xC0 ... 0xC0 with 0xDB escapes), which is removed first.
struct LinkPacket {
    var kind: FrameKind
    var payload: ArraySlice<UInt8>

    static func parse(_ raw: ArraySlice<UInt8>, bcsp: Bool, received: Bool) -> LinkPacket {
        let bytes = unslip(raw)
        guard bytes.count >= 4 else { return LinkPacket(kind: .linkControl, payload: bytes) }
        let b0 = bytes[bytes.startIndex], b1 = bytes[bytes.startIndex + 1], b2 = bytes[bytes.startIndex + 2]
        let type = b1 & 0x0F
        let length = Int(b1 >> 4) | Int(b2) << 4
        let payloadStart = bytes.startIndex + 4
        let hasCRC = b0 & 0x40 != 0
        let available = bytes.count - 4 - (hasCRC ? 2 : 0)
        guard length <= max(0, available) else { return LinkPacket(kind: .linkControl, payload: bytes) }
        let payload = bytes[payloadStart ..< payloadStart + length]
        let kind: FrameKind?
        if bcsp {
            switch type {
            case 5: kind = received ? .event : .command
            case 6: kind = .aclData
            case 7: kind = .scoData
            default: kind = nil
            }
        } else {
            switch type {
            case 1: kind = .command
            case 2: kind = .aclData
            case 3: kind = .scoData
            case 4: kind = .event
            case 5: kind = .isoData
            default: kind = nil
            }
        }
        if let kind { return LinkPacket(kind: kind, payload: payload) }
        return LinkPacket(kind: .linkControl, payload: bytes)
    }

    static func unslip(_ raw: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        guard raw.first == 0xC0 else { return raw }
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var escape = false
        for byte in raw.dropFirst() {
            if escape {
                out.append(byte == 0xDC ? 0xC0 : byte == 0xDD ? 0xDB : byte)
                escape = false
            } else if byte == 0xDB {
                escape = true
            } else if byte == 0xC0 {
                break
            } else {
                out.append(byte)
            }
        }
        return out[...]
    }
}
