import BTCapture

/// Per link: which AVDTP channel is signaling (the first one opened), signals arriving in
/// fragments, each stream endpoint's configured codec, and the media channels' RTP sequence.
public struct AVDTPState: ProtocolState {
    public static var slot: Int { StateSlot.avdtp.rawValue }

    struct FlowKey: WordKey {
        var link: Session.LinkKey
        var sent: Bool

        var hashWord: UInt64 { UInt64(link.packed) << 1 | (sent ? 1 : 0) }
    }

    struct Fragmented {
        var signal: UInt8
        var messageType: UInt8
        var bytes: [UInt8]
        var firstFrame: Int
    }

    /// The local CID of each link's signaling channel.
    var signaling: [Session.LinkKey: UInt16] = [:]
    var fragments: [FlowKey: Fragmented] = [:]
    /// The codec a Set Configuration chose, by link and ACP SEID, as its summary reads.
    public internal(set) var configurations: [Session.LinkKey: [UInt8: String]] = [:]
    /// The codec type last configured on each link (0x00 SBC...), which the media decode follows.
    var codecTypes: [Session.LinkKey: UInt8] = [:]
    var lastSequence: [FlowKey: UInt16] = [:]
    /// A signal is a few hundred bytes; continue packets past this are not one.
    static let maximumSignal = 1 << 16

    public init() {}

    public mutating func close(_ link: Session.LinkKey) -> [String] {
        signaling[link] = nil
        configurations[link] = nil
        codecTypes[link] = nil
        fragments = fragments.filter { $0.key.link != link }
        lastSequence = lastSequence.filter { $0.key.link != link }
        return []
    }

    public mutating func finish() -> [SessionReport] { [] }
}

extension Session {
    public var avdtp: AVDTPState { _read { yield self[AVDTPState.self] } _modify { yield &self[AVDTPState.self] } }
}

/// AVDTP (PSM 0x0019): the first channel of a link carries signaling, later ones media. Every
/// signal with its message type, SEIDs, service capabilities and the codec's information element;
/// media as RTP with the SBC payload header and first frame header.
enum AVDTPDecoder {
    static let descriptor = ProtocolDescriptor(name: "AVDTP", fields: AVDTPFields.all + MediaFields.all, layers: [.avdtp, .a2dpMedia], state: AVDTPState.self,
                                               registrations: [.psm(0x0019, "AVDTP", decode)],
                                               valueNames: [(AVDTPFields.signal, FieldValueNames.from(signalNames)),
                                                            (AVDTPFields.errorCode, FieldValueNames.from(errorNames))],
                                               conversation: AVDTPFields.conversation)

    static let signalNames: [UInt8: String] = [
        0x01: "Discover", 0x02: "Get Capabilities", 0x03: "Set Configuration", 0x04: "Get Configuration", 0x05: "Reconfigure",
        0x06: "Open", 0x07: "Start", 0x08: "Close", 0x09: "Suspend", 0x0A: "Abort", 0x0B: "Security Control",
        0x0C: "Get All Capabilities", 0x0D: "Delay Report",
    ]
    /// PacketLogger's words for the message types.
    static let messageTypes = ["Signal", "General-Reject", "Accept-Response", "Reject-Response"]
    static let categoryNames: [UInt8: String] = [
        0x01: "Media Transport", 0x02: "Reporting", 0x03: "Recovery", 0x04: "Content Protection", 0x05: "Header Compression",
        0x06: "Multiplexing", 0x07: "Media Codec", 0x08: "Delay Reporting",
    ]
    static let errorNames: [UInt8: String] = [
        0x01: "Bad Header Format", 0x11: "Bad Length", 0x12: "Bad ACP SEID", 0x13: "SEP In Use", 0x14: "SEP Not In Use",
        0x17: "Bad Service Category", 0x18: "Bad Payload Format", 0x19: "Not Supported Command", 0x1A: "Invalid Capabilities",
        0x22: "Bad Recovery Type", 0x23: "Bad Media Transport Format", 0x25: "Bad Recovery Format", 0x26: "Bad ROHC Format",
        0x27: "Bad CP Format", 0x28: "Bad Multiplexing Format", 0x29: "Unsupported Configuration", 0x31: "Bad State",
        0xC1: "Invalid Codec Type", 0xC2: "Not Supported Codec Type", 0xC3: "Invalid Sampling Frequency",
        0xC4: "Not Supported Sampling Frequency", 0xC5: "Invalid Channel Mode", 0xC6: "Not Supported Channel Mode",
        0xC7: "Invalid Subbands", 0xC8: "Not Supported Subbands", 0xC9: "Invalid Allocation Method",
        0xCA: "Not Supported Allocation Method", 0xCB: "Invalid Minimum Bitpool Value", 0xCC: "Not Supported Minimum Bitpool Value",
        0xCD: "Invalid Maximum Bitpool Value", 0xCE: "Not Supported Maximum Bitpool Value", 0xCF: "Invalid Layer",
        0xD0: "Not Supported Layer", 0xD1: "Not Supported CRC", 0xD2: "Not Supported MPF", 0xD3: "Not Supported VBR",
        0xD4: "Invalid Bit Rate", 0xD5: "Not Supported Bit Rate", 0xD6: "Invalid Object Type", 0xD7: "Not Supported Object Type",
        0xD8: "Invalid Channels", 0xD9: "Not Supported Channels", 0xDA: "Invalid Version", 0xDB: "Not Supported Version",
        0xDC: "Not Supported Maximum SUL", 0xDD: "Invalid Block Length", 0xE0: "Invalid CP Type", 0xE1: "Invalid CP Format",
        0xE2: "Invalid Code Parameter", 0xE3: "Not Supported Code Parameter",
    ]

    static func decode(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session, context: L2CAPContext) throws {
        let localCID = context.channel.map(\.localCID) ?? context.cid
        let signalingCID = session.avdtp.signaling[context.link] ?? {
            session.avdtp.signaling[context.link] = localCID
            return localCID
        }()
        if localCID == signalingCID {
            try decodeSignal(&c, into: &packet, session: &session, context: context)
        } else {
            try MediaDecoder.decode(&c, into: &packet, session: &session, context: context)
        }
    }

    // MARK: Signaling

    static func decodeSignal(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session, context: L2CAPContext) throws {
        var layer = packet.makeLayer(.avdtp, over: c)
        defer { packet.append(taking: &layer) }

        let (header, headerAt) = try layer.reading(&c) { try $0.u8() }
        let label = header >> 4, packetType = header >> 2 & 0x03, messageType = header & 0x03
        layer.add(AVDTPFields.transaction, .count(Int(label)), at: headerAt)
        layer.add(AVDTPFields.packetType, .count(Int(packetType)), ["Single", "Start", "Continue", "End"][Int(packetType)], at: headerAt)
        layer.add(AVDTPFields.messageType, .count(Int(messageType)), messageTypes[Int(messageType)], at: headerAt)
        let flow = AVDTPState.FlowKey(link: context.link, sent: context.sent)

        var signal: UInt8
        var body: ByteCursor
        // A signal joined from several packets is its own buffer: its fields have no bytes in this layer.
        var joined = false
        switch packetType {
        case 0: // single
            signal = try readSignal(&c, &layer)
            body = c
        case 1: // start: number of packets, then the signal
            let count = try layer.readCount(AVDTPFields.signalPackets, &c, as: UInt8.self)
            signal = try readSignal(&c, &layer)
            session.avdtp.fragments[flow] = AVDTPState.Fragmented(signal: signal, messageType: messageType, bytes: Array(c.rest()),
                                                                   firstFrame: packet.frame.number)
            layer.summary.set("\(signalNames[signal] ?? "Signal \(Hex.u8(signal))"): \(messageTypes[Int(messageType)]) - fragment 1 of \(count)")
            return
        default: // continue, end
            guard var pending = session.avdtp.fragments.removeValue(forKey: flow) else {
                layer.summary.set("\(packetType == 2 ? "Continue" : "End") packet without a start")
                layer.addIssue(.warning, "AVDTP \(packetType == 2 ? "continue" : "end") packet without a start packet")
                return
            }
            pending.bytes += c.rest()
            signal = pending.signal
            layer.add(AVDTPFields.signal, .u8(signal))
            guard pending.bytes.count <= AVDTPState.maximumSignal else {
                layer.summary.set("\(signalNames[signal] ?? "Signal \(Hex.u8(signal))"): fragments dropped")
                layer.addIssue(.error, "AVDTP signal started in packet \(pending.firstFrame) grew past \(AVDTPState.maximumSignal) bytes: dropped")
                return
            }
            if packetType == 2 {
                session.avdtp.fragments[flow] = pending
                layer.summary.set("\(signalNames[signal] ?? "Signal \(Hex.u8(signal))"): continued (started in packet \(pending.firstFrame))")
                return
            }
            packet.reassembledPDU = pending.bytes[...]
            body = ByteCursor(pending.bytes[...])
            joined = true
        }
        let signalName = signalNames[signal] ?? "Unknown Signal \(Hex.u8(signal))"
        layer.summary.set("\(signalName): \(messageTypes[Int(messageType)])")
        if signalNames[signal] == nil { layer.addIssue(.warning, "Unknown AVDTP signal \(Hex.u8(signal))") }
        let firstParameter = layer.fields.count
        try decodeBody(signal, messageType, &body, &layer, &session, context: context)
        if joined { layer.forgetRanges(from: firstParameter) }
        if !body.isAtEnd { layer.addIssue(.warning, "\(body.remaining) bytes after the signal's parameters") }
    }

    /// The signal identifier: the low six bits of its octet.
    static func readSignal(_ c: inout ByteCursor, _ layer: inout Layer) throws -> UInt8 {
        let (octet, at) = try layer.reading(&c) { try $0.u8() }
        let signal = octet & 0x3F
        layer.add(AVDTPFields.signal, .u8(signal), named: signalNames[signal], at: at)
        return signal
    }

    /// A signal's parameters (for a signal joined from several packets, its caller drops the
    /// ranges: those bytes are not the layer's).
    static func decodeBody(_ signal: UInt8, _ messageType: UInt8, _ c: inout ByteCursor, _ layer: inout Layer, _ session: inout Session,
                           context: L2CAPContext) throws {
        /// A stream end-point ID: the high six bits of its octet.
        func seid(_ field: FieldDefinition = AVDTPFields.seid) throws -> UInt8 {
            let (octet, at) = try layer.reading(&c) { try $0.u8() }
            layer.add(field, .count(Int(octet >> 2)), at: at)
            return octet >> 2
        }
        func error() throws {
            let code = try layer.read(AVDTPFields.errorCode, &c, as: UInt8.self, named: { errorNames[$0] ?? "Reserved" })
            let name = errorNames[code] ?? "Reserved"
            layer.summary += " - \(name) (\(hex: code))"
            layer.addIssue(.warning, "AVDTP reject: \(name) (\(Hex.u8(code)))")
        }
        switch (signal, messageType) {
        case (_, 1): // General Reject: no parameters
            layer.addIssue(.warning, "General Reject")
        case (0x01, 0): break
        case (0x01, 2):
            var endpoints: [String] = []
            while c.remaining >= 2 {
                let (first, firstByte) = try layer.reading(&c) { try $0.u8() }
                let (second, secondByte) = try layer.reading(&c) { try $0.u8() }
                let id = first >> 2, inUse = first & 0x02 != 0, media = second >> 4, tsep = second >> 3 & 1
                layer.add(AVDTPFields.seid, .count(Int(id)), at: firstByte)
                layer.add(AVDTPFields.inUse, .bool(inUse), at: firstByte)
                layer.add(AVDTPFields.mediaType, .count(Int(media)), ["Audio", "Video", "Multimedia"][safe: Int(media)], at: secondByte)
                layer.add(AVDTPFields.tsep, .count(Int(tsep)), tsep == 0 ? "Source" : "Sink", at: secondByte)
                endpoints.append("SEID \(id) \(["Audio", "Video", "Multimedia"][safe: Int(media)] ?? "Media \(media)") \(tsep == 0 ? "Source" : "Sink")\(inUse ? " (in use)" : "")")
            }
            layer.summary += " - \(endpoints.joined(separator: ", "))"
        case (0x02, 0), (0x0C, 0), (0x04, 0), (0x06, 0), (0x08, 0), (0x0A, 0):
            let id = try seid()
            layer.summary += " - SEID \(id)"
        case (0x02, 2), (0x0C, 2), (0x04, 2):
            let codecs = try capabilities(&c, &layer)
            if !codecs.isEmpty { layer.summary += " - \(codecs.joined(separator: ", "))" }
        case (0x03, 0):
            let acp = try seid(), int = try seid(AVDTPFields.intSEID)
            layer.summary += " - SEID \(acp) from \(int)"
            var codecType: UInt8?
            let codecs = try capabilities(&c, &layer, codecType: &codecType)
            if let codec = codecs.first {
                layer.summary += " - \(codec)"
                session.avdtp.configurations[context.link, default: [:]][acp] = codec
            }
            if let codecType { session.avdtp.codecTypes[context.link] = codecType }
        case (0x05, 0):
            let id = try seid()
            layer.summary += " - SEID \(id)"
            let codecs = try capabilities(&c, &layer)
            if let codec = codecs.first { layer.summary += " - \(codec)" }
        case (0x03, 3), (0x05, 3):
            try layer.read(AVDTPFields.category, &c, as: UInt8.self, display: { categoryNames[$0] })
            try error()
        case (0x07, 0), (0x09, 0):
            var ids: [String] = []
            while !c.isAtEnd { ids.append(String(try seid())) }
            layer.summary += " - SEID \(ids.joined(separator: ", "))"
        case (0x07, 3), (0x09, 3):
            let id = try seid()
            layer.summary += " - SEID \(id)"
            try error()
        case (0x0B, 0):
            let id = try seid()
            layer.summary += " - SEID \(id)"
            _ = c.rest()
        case (0x0D, 0):
            let id = try seid()
            let delay = try layer.read(AVDTPFields.delay, &c, as: UInt16.self, .bigEndian, display: { "\(Double($0) / 10) ms" })
            layer.summary += " - SEID \(id) - \(Double(delay) / 10) ms"
        case (_, 3):
            try error()
        case (_, 2):
            if signal == 0x0B { _ = c.rest() }
        default:
            break
        }
    }

    /// Service capabilities; returns the codecs' readings (and the last codec type, for a configuration).
    static func capabilities(_ c: inout ByteCursor, _ layer: inout Layer) throws -> [String] {
        var codecType: UInt8?
        return try capabilities(&c, &layer, codecType: &codecType)
    }

    static func capabilities(_ c: inout ByteCursor, _ layer: inout Layer, codecType: inout UInt8?) throws -> [String] {
        var codecs: [String] = []
        /// `count` bytes at `index` of the capability's value.
        func at(_ index: Int, _ count: Int = 1) -> Range<Int> { layer.range(at: index, count: count) }
        while !c.isAtEnd {
            let (category, categoryAt) = try layer.reading(&c) { try $0.u8() }
            let length = try c.u8()
            layer.add(AVDTPFields.category, .u8(category), named: categoryNames[category] ?? "Reserved", at: categoryAt)
            let info = try c.slice(Int(length))
            switch category {
            case 0x07:
                guard info.count >= 2 else {
                    layer.addIssue(.warning, "Media Codec capability of \(info.count) bytes")
                    continue
                }
                let media = info[info.startIndex] >> 4, codec = info[info.startIndex + 1]
                codecType = codec
                layer.add(AVDTPFields.mediaType, .count(Int(media)), ["Audio", "Video", "Multimedia"][safe: Int(media)], at: at(info.startIndex))
                layer.add(AVDTPFields.codec, .u8(codec), named: A2DPCodecs.codecNames[codec] ?? (codec == 0xFF ? "Vendor" : "Reserved"),
                          at: at(info.startIndex + 1))
                let element = info.dropFirst(2)
                if !element.isEmpty { layer.add(AVDTPFields.codecInfo, .bytes(element), at: at(element.startIndex, element.count)) }
                codecs.append(media == 0 ? A2DPCodecs.decode(codec: codec, element, &layer) : "Video codec \(Hex.u8(codec))")
            case 0x04:
                var protection = ByteCursor(info)
                if let type = try? protection.u16() {
                    layer.add(AVDTPFields.contentProtection, .u16(type), named: type == 2 ? "SCMS-T" : type == 1 ? "DTCP" : nil,
                              at: at(info.startIndex, 2))
                }
            default:
                break
            }
        }
        return codecs
    }
}

/// The layers this decoder makes.
extension LayerKind {
    public static let avdtp = LayerKind("A2DP Control", protocol: "avdtp")
}
