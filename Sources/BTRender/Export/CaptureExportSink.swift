import BTCapture
import BTDecode
import BTQuery

/// `export --format btsnoop|pklg|pcap|pcapng`: the kept packets' Frames written back unchanged,
/// in one capture format. pcapng carries each packet's comment, and says when it is flagged,
/// as packet comments (Wireshark's frame.comment). Frames the format cannot hold (a syslog
/// record in btsnoop) are counted by kind for the user, not written.
public struct CaptureExportSink: PacketSink {
    let writer: CaptureWriter
    public private(set) var written = 0
    public private(set) var skipped: [String: Int] = [:]
    /// What a flagged packet's extra comment says.
    public static let flaggedComment = "btlog: flagged"

    public init(writer: CaptureWriter) { self.writer = writer }

    public mutating func consume(_ packet: Packet) throws {
        let wrote: Bool
        if let pcapng = writer as? PcapNGWriter {
            var comments: [String] = []
            if let comment = packet.comment { comments.append(comment) }
            if packet.flagged { comments.append(Self.flaggedComment) }
            wrote = try pcapng.write(packet.frame, comments: comments)
        } else {
            wrote = try writer.write(packet.frame)
        }
        if wrote {
            written += 1
        } else {
            skipped[packet.typeName, default: 0] += 1
        }
    }

    /// "3 Syslog, 1 Power records": what was left out, for a warning; nil when nothing was.
    public var skippedDescription: String? {
        guard !skipped.isEmpty else { return nil }
        return skipped.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
    }
}
