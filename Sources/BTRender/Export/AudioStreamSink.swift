import BTCapture
import BTDecode
import BTQuery

/// `export --format sbc|msbc|cvsd`: the audio of one stream, as a file a decoder plays.
/// - sbc: the SBC frames of an A2DP stream (RTP payloads after their media payload header;
///   a frame sent in fragments is joined), which `sbcdec` or ffmpeg decodes;
/// - msbc: the 57-byte mSBC frames of an HFP eSCO link, found after their H2 headers wherever
///   the controller cut the SCO packets (`sbcdec -m` decodes them);
/// - cvsd: the SCO payloads of a link whose air mode or HFP codec is CVSD, as the controller
///   handed them to the host (usually 16-bit little-endian PCM at 8 kHz).
/// Streams are numbered from 1 in the order their first audio packet appears; a stream is one
/// direction of one channel (A2DP: handle and L2CAP channel; SCO: handle).
public struct AudioStreamSink: PacketSink {
    public enum Codec: String, Sendable { case sbc, msbc, cvsd }

    public struct Stream: Hashable, Sendable {
        public let handle: UInt16
        /// The media channel's CID for A2DP; nil for SCO.
        public let channel: UInt16?
        public let sent: Bool
    }

    let codec: Codec
    let wanted: Int
    let out: OutputWriter
    /// Every stream of the codec seen, numbered in order of appearance, with its first packet.
    public private(set) var streams: [(stream: Stream, firstPacket: Int, frames: Int)] = []
    var numbers: [Stream: Int] = [:]
    /// An SBC frame arriving in fragments, or SCO bytes not yet making a whole mSBC frame.
    var pending: [UInt8] = []

    public init(codec: Codec, stream: Int, out: OutputWriter) {
        self.codec = codec
        self.wanted = stream
        self.out = out
    }

    public mutating func consume(_ packet: Packet) throws {
        switch codec {
        case .sbc: try consumeSBC(packet)
        case .msbc, .cvsd: try consumeSCO(packet)
        }
    }

    /// The stream's number, numbering it if new.
    mutating func number(of stream: Stream, packet: Int) -> Int {
        if let known = numbers[stream] { return known }
        streams.append((stream, packet, 0))
        numbers[stream] = streams.count
        return streams.count
    }

    mutating func consumeSBC(_ packet: Packet) throws {
        guard let media = packet.layers.last(where: { $0.kind == .a2dpMedia }),
              media.fields.contains(where: { $0.definition == MediaFields.frames }),
              case .bytes(let payload)? = media.value(MediaFields.payload) else { return }
        var channel: UInt16?
        if let l2cap = packet.layers.last(where: { $0.kind == .l2cap }),
           case .unsigned(let cid, _)? = l2cap.value(L2CAPFields.cid) {
            channel = UInt16(truncatingIfNeeded: cid)
        }
        let stream = Stream(handle: packet.handle ?? 0, channel: channel, sent: packet.frame.direction == .sent)
        let number = number(of: stream, packet: packet.frame.number)
        guard number == wanted else { return }
        var fragmented = false, start = false, last = false
        if case .bool(let flag)? = media.value(MediaFields.fragmented) { fragmented = flag }
        if fragmented, let header = Self.mediaHeader(of: packet, media: media) {
            start = header & 0x40 != 0
            last = header & 0x20 != 0
        }
        if !fragmented {
            if case .unsigned(let count, _)? = media.value(MediaFields.frames) {
                streams[number - 1].frames += Int(count)
            }
            return try write(payload)
        }
        if start { pending.removeAll(keepingCapacity: true) }
        pending.append(contentsOf: payload)
        if last {
            streams[number - 1].frames += 1
            try write(pending[...])
            pending.removeAll(keepingCapacity: true)
        }
    }

    /// The SBC media payload header byte (F, S, L, frame count), just before the frames.
    static func mediaHeader(of packet: Packet, media: Layer) -> UInt8? {
        guard let field = media.fields.first(where: { $0.definition == MediaFields.frames }), let range = field.range,
              let bytes = packet.bytes(of: media, range), let byte = bytes.first else { return nil }
        return byte
    }

    mutating func consumeSCO(_ packet: Packet) throws {
        guard let sco = packet.layers.first(where: { $0.kind == .sco }),
              case .text(let linkCodec)? = sco.value(DataFields.scoCodec),
              linkCodec == (codec == .msbc ? "mSBC" : "CVSD"),
              case .bytes(let payload)? = sco.value(DataFields.payload) else { return }
        let stream = Stream(handle: packet.handle ?? 0, channel: nil, sent: packet.frame.direction == .sent)
        let number = number(of: stream, packet: packet.frame.number)
        guard number == wanted else { return }
        if codec == .cvsd {
            streams[number - 1].frames += 1
            return try write(payload)
        }
        // mSBC: H2 header (0x01 and a sequence byte), then a 57-byte frame starting 0xAD.
        pending.append(contentsOf: payload)
        var index = 0
        while index + 2 + Self.msbcFrameLength <= pending.count {
            if pending[index] == 0x01, Self.h2Sequences.contains(pending[index + 1]), pending[index + 2] == 0xAD {
                streams[number - 1].frames += 1
                try write(pending[index + 2 ..< index + 2 + Self.msbcFrameLength])
                index += 2 + Self.msbcFrameLength
            } else {
                index += 1
            }
        }
        pending.removeFirst(index)
    }

    static let msbcFrameLength = 57
    static let h2Sequences: Set<UInt8> = [0x08, 0x38, 0xC8, 0xF8]

    func write(_ bytes: ArraySlice<UInt8>) throws {
        try out.lines { text in bytes.withUnsafeBufferPointer { text.put($0) } }
    }

    /// What was written and what else there was, for standard error.
    public var report: String {
        guard !streams.isEmpty else { return "no \(codec.rawValue) audio in the selected packets" }
        let lines = streams.enumerated().map { index, entry in
            let stream = entry.stream
            let channel = stream.channel.map { ", channel \(Hex.format($0, width: 4))" } ?? ""
            return "\(index + 1 == wanted ? "wrote" : "     ") stream \(index + 1): handle \(Hex.format(stream.handle, width: 4))\(channel), \(stream.sent ? "sent" : "received"), from packet \(entry.firstPacket)\(index + 1 == wanted ? ", \(entry.frames) \(codec == .cvsd ? "packets" : "frames")" : "")"
        }
        var text = lines.joined(separator: "\n")
        if wanted > streams.count { text += "\nno stream \(wanted): the capture has \(streams.count)" }
        else if streams.count > 1 { text += "\n(--stream N chooses another)" }
        return text
    }
}
