/// One datagram of the HCI monitor channel: a 6-byte header (opcode, controller index and
/// payload length, little-endian) and the payload. The socket delivers one frame per read.
public enum MonitorDatagram {
    public static let headerSize = 6

    /// The Frame a datagram holds, and what was wrong with it if anything. A datagram too short
    /// for its own header carries nothing to keep and gives no Frame.
    public static func frame(_ datagram: ArraySlice<UInt8>, timestamp: Int64, number: Int, drops: UInt32)
        -> (frame: Frame?, problem: String?)
    {
        guard datagram.count >= headerSize else {
            return (nil, "a monitor frame of \(datagram.count) byte\(datagram.count == 1 ? "" : "s"), shorter than the 6-byte header, was skipped")
        }
        let s = datagram.startIndex
        let opcode = UInt16(datagram[s]) | UInt16(datagram[s + 1]) << 8
        let index = UInt16(datagram[s + 2]) | UInt16(datagram[s + 3]) << 8
        let length = Int(UInt16(datagram[s + 4]) | UInt16(datagram[s + 5]) << 8)
        let payload = datagram.dropFirst(headerSize)
        let (kind, direction) = MonitorOpcode.kind(for: opcode)
        var problem: String?
        var kept = payload
        if payload.count < length {
            problem = "monitor frame \(number) says \(length) bytes but holds \(payload.count); kept as a truncated packet"
        } else if payload.count > length {
            problem = "monitor frame \(number) holds \(payload.count - length) bytes past its length of \(length); they were ignored"
            kept = payload.prefix(length)
        }
        let frame = Frame(number: number, timestamp: timestamp, kind: kind, direction: direction,
                          controller: index, bytes: Array(kept)[...], originalLength: length, drops: drops)
        return (frame, problem)
    }

    /// Header + payload, as the kernel sends a frame (tests, and the harness's replays).
    public static func bytes(opcode: UInt16, controller: UInt16, payload: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.appendLE(opcode)
        out.appendLE(controller)
        out.appendLE(UInt16(truncatingIfNeeded: payload.count))
        return out + payload
    }
}
