import BTCapture
import BTDecode
import BTQuery

/// Audio: A2DP media streams (codec, configuration, RTP gaps), the AVDTP signals that chose
/// their codec or were rejected, and SCO/eSCO and ISO streams (status errors, lost packets).
struct AudioTracker {
    typealias LinkKey = Session.LinkKey
    struct StreamKey: Hashable { var link: LinkKey; var cid: UInt16; var sent: Bool }
    struct SynchronousKey: Hashable { var link: LinkKey; var sent: Bool }

    private(set) var a2dpStreams: [A2DPStreamReport] = []
    private(set) var synchronousStreams: [SynchronousStreamReport] = []
    /// AVDTP signals the other side rejected.
    private(set) var rejects: [AVDTPReject] = []
    private var a2dpIndex: [StreamKey: Int] = [:]
    private var synchronousIndex: [SynchronousKey: Int] = [:]
    private var lastISOSequence: [SynchronousKey: Int] = [:]
    /// The codec the last AVDTP Set Configuration on a link chose.
    private var configuredCodec: [LinkKey: (name: String, items: [ReportItem])] = [:]

    mutating func avdtp(_ layer: Layer, key: LinkKey, frame: Int) {
        // A response reject (3) or general reject (1).
        if let type = layer.integer(AVDTPFields.messageType), type == 3 || type == 1 {
            rejects.append(AVDTPReject(frame: frame, handle: key.handle, signal: UInt8(truncatingIfNeeded: layer.integer(AVDTPFields.signal) ?? 0),
                                       error: layer.integer(AVDTPFields.errorCode).map { UInt8(truncatingIfNeeded: $0) }))
        }
        // Set Configuration (3) and Reconfigure (7) commands choose the codec.
        guard let signal = layer.integer(AVDTPFields.signal), signal == 0x03 || signal == 0x07,
              layer.integer(AVDTPFields.messageType) == 0, let codec = layer.integer(AVDTPFields.codec) else { return }
        let name = A2DPCodecs.name(codec: UInt8(truncatingIfNeeded: codec), vendor: layer.integer(AVDTPFields.vendorID).map(UInt32.init(truncatingIfNeeded:)),
                                   vendorCodec: layer.integer(AVDTPFields.vendorCodec).map(UInt16.init(truncatingIfNeeded:)))
        var items: [ReportItem] = []
        if let sampling = layer.text(AVDTPFields.samplingFrequencies) { items.append(ReportItem("sampling", .text(sampling))) }
        if let mode = layer.text(AVDTPFields.channelModes) { items.append(ReportItem("channel_mode", .text(mode))) }
        if let low = layer.integer(AVDTPFields.sbcMinBitpool), let high = layer.integer(AVDTPFields.sbcMaxBitpool) {
            items.append(ReportItem("bitpool", .text("\(low)-\(high)")))
        }
        configuredCodec[key] = (name, items)
        // The media that follows is a new stream, even on the same channel.
        for streamKey in a2dpIndex.keys where streamKey.link == key { a2dpIndex[streamKey] = nil }
    }

    /// A media packet of its stream; returns its media payload's bytes.
    mutating func media(_ layer: Layer, _ packet: Packet, key: LinkKey, cid: UInt16, sent: Bool, address: BDAddr?) -> Int {
        let frame = packet.frame
        let streamKey = StreamKey(link: key, cid: cid, sent: sent)
        let index: Int
        if let known = a2dpIndex[streamKey] {
            index = known
        } else {
            index = a2dpStreams.count
            a2dpIndex[streamKey] = index
            var stream = A2DPStreamReport(controller: key.controller, handle: key.handle, cid: cid, sent: sent, address: address,
                                          first: frame.timestamp, last: frame.timestamp)
            if let configured = configuredCodec[key] {
                stream.codec = configured.name
                stream.configuration = configured.items
            }
            a2dpStreams.append(stream)
        }
        let payload = layer.byteCount(MediaFields.payload)
        // In place: a copy of the stream would retain each of its strings and arrays.
        a2dpStreams[index].count(layer, frame, payload: payload)
        return payload
    }

    mutating func synchronous(_ kind: SynchronousStreamReport.Kind, _ packet: Packet) {
        guard let layer = packet.layers.first else { return }
        let frame = packet.frame
        guard let handle = layer.integer(kind == .sco ? DataFields.scoHandle : DataFields.isoHandle) else { return }
        let key = SynchronousKey(link: LinkKey(controller: frame.controller, handle: UInt16(truncatingIfNeeded: handle)), sent: frame.direction == .sent)
        let index: Int
        if let known = synchronousIndex[key] {
            index = known
        } else {
            index = synchronousStreams.count
            synchronousIndex[key] = index
            synchronousStreams.append(SynchronousStreamReport(kind: kind, controller: key.link.controller, handle: key.link.handle,
                                                              sent: key.sent, first: frame.timestamp, last: frame.timestamp))
        }
        var stream = synchronousStreams[index]
        stream.packets += 1
        stream.last = frame.timestamp
        stream.bytes += layer.integer(kind == .sco ? DataFields.scoLength : DataFields.isoLength) ?? 0
        if stream.codec == nil, kind == .sco { stream.codec = packet.layers.lazy.compactMap { $0.text(DataFields.scoCodec) }.first }
        var lost = 0
        if let status = layer.integer(kind == .sco ? DataFields.scoStatus : DataFields.isoStatus), status != 0 {
            stream.badStatus += 1
            lost += 1
        }
        if kind == .iso, let sequence = layer.integer(DataFields.isoSequence) {
            if let last = lastISOSequence[key] {
                let step = (sequence - last) & 0xFFFF
                if step > 1 && step < 0x8000 { lost += step - 1 }
            }
            lastISOSequence[key] = sequence
        }
        if lost > 0 {
            stream.lost += lost
            if stream.firstLossFrame == nil { stream.firstLossFrame = frame.number }
        }
        synchronousStreams[index] = stream
    }

    /// A link ends: the codec it chose goes with it.
    mutating func close(_ key: LinkKey) { configuredCodec[key] = nil }

    /// The end of a file: ISO sequence numbers start again.
    mutating func closeAll() { lastISOSequence.removeAll() }
}

extension A2DPStreamReport {
    /// One media packet of the stream, with `payload` bytes of media.
    mutating func count(_ layer: Layer, _ frame: Frame, payload: Int) {
        packets += 1
        mediaBytes += payload
        last = frame.timestamp
        if codec == nil, layer.value(MediaFields.bitpool) != nil { codec = "SBC" }
        if let bitpool = layer.integer(MediaFields.bitpool), !configuration.contains(where: { $0.name == "bitpool_used" }) {
            configuration.append(ReportItem("bitpool_used", .count(bitpool)))
            if let rate = layer.integer(MediaFields.bitrate) { configuration.append(ReportItem("sbc_bitrate", .count(rate))) }
        }
        if let lost = layer.integer(MediaFields.lost), lost > 0 {
            gaps += 1
            lostPackets += lost
            if firstGapFrame == nil { firstGapFrame = frame.number }
        }
    }
}
