import BTCapture

public enum FixtureFiles {
    /// PacketLogger's older big-endian layout (macOS), which btlog does not write itself:
    /// length, seconds, microseconds big-endian, then type and payload.
    public static func bigEndianPacketLogger(_ frames: [Frame]) -> [UInt8] {
        var out: [UInt8] = []
        for frame in frames {
            guard let type = PacketLogger.type(for: frame.kind, direction: frame.direction) else { continue }
            out += be32(UInt32(9 + frame.bytes.count))
            out += be32(UInt32(frame.timestamp / 1_000_000)) + be32(UInt32(frame.timestamp % 1_000_000))
            out.append(type)
            out += frame.bytes
        }
        return out
    }
}
