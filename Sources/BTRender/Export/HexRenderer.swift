import BTCapture
import BTDecode
import BTQuery

/// `export --format hex`: each HCI packet as a hex dump text2pcap reads back,
///
///     # 12 ATT Send: Write Request Handle 0x002A ...
///     O 2019-05-08T21:04:39.824123Z
///     000000 02 40 00 09 00 05 00 04 00 12 2a 00 01 00
///
/// a comment line with the number and summary, the direction (O sent, I received) and the time,
/// then the H4 packet (type byte first) sixteen bytes a line with hex offsets. Read back with
/// `text2pcap -D -t ISO -l 187 FILE out.pcapng` (link type 187: Bluetooth H4). Records that are
/// not HCI packets (notes, index records) are comment lines only.
public struct HexRenderer: PacketRenderer {
    public init() {}

    public mutating func render(_ packet: Packet, to out: OutputWriter) throws {
        let frame = packet.frame
        try out.lines { text in
            text.put(UInt8(ascii: "#"))
            text.put(UInt8(ascii: " "))
            ASCII.appendDecimal(UInt64(max(0, frame.number)), to: &text)
            text.put(UInt8(ascii: " "))
            Self.appendPrintable(packet.typeLabel.utf8, to: &text)
            if let top = packet.top, !top.summary.isEmpty {
                text.put(UInt8(ascii: ":"))
                text.put(UInt8(ascii: " "))
                Self.appendPrintable(top.summary.bytes, to: &text)
            }
            text.put(0x0A)
            guard let indicator = H4.indicator(for: frame.kind) else { return }
            let direction = frame.direction == .none ? H4.impliedDirection(for: frame.kind) : frame.direction
            text.put(direction == .sent ? UInt8(ascii: "O") : UInt8(ascii: "I"))
            text.put(UInt8(ascii: " "))
            var time = UTCTimeFormatter()
            time.append(frame.timestamp, to: &text)
            text.put(0x0A)
            var offset = 0
            func put(_ byte: UInt8) {
                if offset % 16 == 0 {
                    if offset > 0 { text.put(0x0A) }
                    for shift in [16, 8, 0] { Hex.append(UInt8(truncatingIfNeeded: offset >> shift), to: &text) }
                }
                text.put(UInt8(ascii: " "))
                Hex.append(byte, to: &text)
                offset += 1
            }
            put(indicator)
            for byte in frame.bytes { put(byte) }
            text.put(0x0A)
        }
    }

    public mutating func finish(_ statistics: CaptureStatistics, to out: OutputWriter) throws {}

    /// A comment line's text: control characters (a summary quoting a device name) as '.'.
    static func appendPrintable<C: Sequence>(_ bytes: C, to text: inout OutputBuffer) where C.Element == UInt8 {
        for byte in bytes { text.put(byte < 0x20 || byte == 0x7F ? UInt8(ascii: ".") : byte) }
    }
}
