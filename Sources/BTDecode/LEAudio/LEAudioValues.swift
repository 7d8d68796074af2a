import BTCapture

/// What the LE Audio services share (BAP, Assigned Numbers 6.12): codec IDs, the LC3 codec
/// capability and configuration LTVs, metadata, audio contexts and audio locations.
public enum LEAudioFields {
    static let f = FieldDefinition.maker("bap")
    public static let codec = f("codec", "Coding Format", .uint8, "0x06 LC3, 0x02 CVSD, 0x05 mSBC, 0x03 transparent, 0xFF vendor")
    public static let vendorCodec = f("vendor_codec", "Vendor Codec", .uint32, "Vendor codec: company ID << 16 | the vendor's codec ID")
    public static let ltvType = f("ltv.type", "LTV Type", .uint8, "Codec capability, configuration or metadata type")
    public static let sampling = f("sampling_frequency", "Sampling Frequency", .uint32, "Hz, configured (or each one supported)")
    public static let frameDuration = f("frame_duration", "Frame Duration", .uint16, "Microseconds: 7500 or 10000")
    public static let allocation = f("audio_channel_allocation", "Audio Channel Allocation", .uint32, "Audio location bits: 0x1 Front Left, 0x2 Front Right ...")
    public static let octetsPerFrame = f("octets_per_frame", "Octets per Codec Frame", .uint16, "Bytes of one LC3 frame (or the range supported)")
    public static let framesPerSDU = f("frames_per_sdu", "Codec Frame Blocks per SDU", .uint8, "Frames in one SDU")
    public static let contexts = f("contexts", "Audio Contexts", .uint16, "Bits: Conversational, Media, Game, Instructional, Voice Assistants, Live, Sound Effects, Notifications, Ringtone, Alerts, Emergency Alarm")
    public static let locations = f("audio_locations", "Audio Locations", .uint32, "Bits: 0x1 Front Left, 0x2 Front Right, 0x4 Front Center ...")
    public static let metadata = f("metadata", "Metadata", .string, "A metadata entry as a person reads it")

    public static let all = [codec, vendorCodec, ltvType, sampling, frameDuration, allocation, octetsPerFrame, framesPerSDU, contexts,
                             locations, metadata]
}

enum LEAudioValues {
    static let codingFormats: [UInt8: String] = [0x00: "µ-law", 0x01: "A-law", 0x02: "CVSD", 0x03: "Transparent", 0x04: "Linear PCM",
                                                 0x05: "mSBC", 0x06: "LC3", 0x07: "G.729A", 0xFF: "Vendor"]
    static let samplingFrequencies: [UInt32] = [8000, 11025, 16000, 22050, 24000, 32000, 44100, 48000, 88200, 96000, 176400, 192000, 384000]
    static let contextNames = ["Unspecified", "Conversational", "Media", "Game", "Instructional", "Voice Assistants", "Live",
                               "Sound Effects", "Notifications", "Ringtone", "Alerts", "Emergency Alarm"]
    static let locationNames = ["Front Left", "Front Right", "Front Center", "Low Frequency Effects 1", "Back Left", "Back Right",
                                "Front Left of Center", "Front Right of Center", "Back Center", "Low Frequency Effects 2", "Side Left",
                                "Side Right", "Top Front Left", "Top Front Right", "Top Front Center", "Top Center", "Top Back Left",
                                "Top Back Right", "Top Side Left", "Top Side Right", "Top Back Center", "Bottom Front Center",
                                "Bottom Front Left", "Bottom Front Right", "Front Left Wide", "Front Right Wide", "Left Surround",
                                "Right Surround"]

    static func bits(_ value: UInt64, _ names: [String]) -> String {
        let set = names.indices.filter { value >> UInt64($0) & 1 == 1 }.map { names[$0] }
        return set.isEmpty ? "none" : set.joined(separator: ", ")
    }
    static func contexts(_ value: UInt16) -> String { bits(UInt64(value), contextNames) }
    static func locations(_ value: UInt32) -> String { value == 0 ? "Mono (no location)" : bits(UInt64(value), locationNames) }

    static func khz(_ hz: UInt32) -> String {
        hz % 1000 == 0 ? "\(hz / 1000) kHz" : "\(Double(hz) / 1000) kHz"
    }

    /// Codec_ID (5 bytes): "LC3", or "Vendor 0x005D:0x0001".
    static func codecID(_ c: inout ByteCursor, _ layer: inout Layer) throws -> (format: UInt8, name: String) {
        let (format, formatAt) = try layer.reading(&c) { try $0.u8() }
        // The company and its codec ID: one field of both.
        let ((company, vendor), vendorAt) = try layer.reading(&c) { (try $0.u16(), try $0.u16()) }
        layer.add(LEAudioFields.codec, .u8(format), named: codingFormats[format] ?? "Reserved", at: formatAt)
        guard format == 0xFF else { return (format, codingFormats[format] ?? "Coding format \(Hex.u8(format))") }
        layer.add(LEAudioFields.vendorCodec, .u32(UInt32(company) << 16 | UInt32(vendor)), at: vendorAt)
        return (format, "Vendor \(AssignedNumbers.company(company) ?? Hex.u16(company)) codec \(Hex.u16(vendor))")
    }

    enum LTVKind { case capabilities, configuration, metadata }

    /// A list of length, type, value structures; returns what a summary says of them.
    static func ltvs(_ bytes: ArraySlice<UInt8>, _ kind: LTVKind, lc3: Bool, _ layer: inout Layer) -> [String] {
        var c = ByteCursor(bytes)
        var shown: [String] = []
        while !c.isAtEnd {
            guard let length = try? c.u8(), length > 0 else { continue }
            let typeAt = c.index
            guard let type = try? c.u8(), let value = try? c.slice(Int(length) - 1) else {
                layer.addIssue(.warning, "LTV of length \(length) runs past its list (\(c.remaining) bytes left)")
                break
            }
            layer.add(LEAudioFields.ltvType, .u8(type), at: layer.range(at: typeAt))
            var v = ByteCursor(value)
            if let text = describe(kind, lc3: lc3, type, &v, &layer) { shown.append(text) } else { shown.append("type \(Hex.u8(type)) \(Hex.bytes(value))") }
        }
        return shown
    }

    /// The values an LTV holds; each field has the bytes it was read from, but for sampling
    /// frequencies and frame durations, values its codes stand for.
    static func describe(_ kind: LTVKind, lc3: Bool, _ type: UInt8, _ v: inout ByteCursor, _ layer: inout Layer) -> String? {
        let start = v.index
        /// The value's bytes read so far.
        func read() -> Range<Int> { layer.range(at: start, count: v.index - start) }
        switch (kind, type) {
        case (.capabilities, 0x01) where lc3:
            guard let bits = try? v.u16() else { return nil }
            let rates = samplingFrequencies.indices.filter { bits >> $0 & 1 == 1 }.map { samplingFrequencies[$0] }
            for rate in rates { layer.add(LEAudioFields.sampling, .count(Int(rate))) }
            return rates.map(khz).joined(separator: " ")
        case (.capabilities, 0x02) where lc3:
            guard let bits = try? v.u8() else { return nil }
            var durations: [String] = []
            if bits & 0x01 != 0 { durations.append("7.5 ms\(bits & 0x10 != 0 ? " (preferred)" : "")") }
            if bits & 0x02 != 0 { durations.append("10 ms\(bits & 0x20 != 0 ? " (preferred)" : "")") }
            return durations.joined(separator: " ")
        case (.capabilities, 0x03) where lc3:
            guard let bits = try? v.u8() else { return nil }
            let counts: [String] = (0 ..< 8).filter { (bit: Int) -> Bool in bits >> UInt8(bit) & 1 == 1 }.map { (bit: Int) -> String in String(bit + 1) }
            return "channels " + counts.joined(separator: ",")
        case (.capabilities, 0x04) where lc3:
            guard let low = try? v.u16(), let high = try? v.u16() else { return nil }
            layer.add(LEAudioFields.octetsPerFrame, .count(Int(low)), at: layer.range(at: start, count: 2))
            layer.add(LEAudioFields.octetsPerFrame, .count(Int(high)), at: layer.range(at: start + 2, count: 2))
            return "\(low)-\(high) octets per frame"
        case (.capabilities, 0x05) where lc3:
            guard let frames = try? v.u8() else { return nil }
            return "up to \(frames) frames per SDU"
        case (.configuration, 0x01) where lc3:
            guard let index = try? v.u8(), let rate = samplingFrequencies[safe: Int(index) - 1] else { return nil }
            layer.add(LEAudioFields.sampling, .count(Int(rate)))
            return khz(rate)
        case (.configuration, 0x02) where lc3:
            guard let duration = try? v.u8(), duration <= 1 else { return nil }
            layer.add(LEAudioFields.frameDuration, .count(duration == 0 ? 7500 : 10000))
            return duration == 0 ? "7.5 ms" : "10 ms"
        case (.configuration, 0x03) where lc3:
            guard let allocation = try? v.u32() else { return nil }
            layer.add(LEAudioFields.allocation, .u32(allocation), locations(allocation), at: read())
            return locations(allocation)
        case (.configuration, 0x04) where lc3:
            guard let octets = try? v.u16() else { return nil }
            layer.add(LEAudioFields.octetsPerFrame, .count(Int(octets)), at: read())
            return "\(octets) octets"
        case (.configuration, 0x05) where lc3:
            guard let blocks = try? v.u8() else { return nil }
            layer.add(LEAudioFields.framesPerSDU, .count(Int(blocks)), at: read())
            return "\(blocks) frame\(blocks == 1 ? "" : "s") per SDU"
        case (.metadata, 0x01), (.metadata, 0x02):
            guard let bits = try? v.u16() else { return nil }
            let text = "\(type == 1 ? "Preferred" : "Streaming"): \(contexts(bits))"
            layer.add(LEAudioFields.contexts, .u16(bits), contexts(bits), at: read())
            layer.add(LEAudioFields.metadata, .text(text), at: read())
            return text
        case (.metadata, 0x03):
            let text = "Program: \"\(String(decoding: v.rest(), as: UTF8.self))\""
            layer.add(LEAudioFields.metadata, .text(text), at: read())
            return text
        case (.metadata, 0x04):
            let text = "Language: \(String(decoding: v.rest(), as: UTF8.self))"
            layer.add(LEAudioFields.metadata, .text(text), at: read())
            return text
        case (.metadata, 0x05):
            let text = "CCIDs: \(v.rest().map(String.init).joined(separator: ","))"
            layer.add(LEAudioFields.metadata, .text(text), at: read())
            return text
        default:
            return nil
        }
    }

    /// A 24-bit little-endian value in microseconds.
    static func micros(_ c: inout ByteCursor) throws -> UInt32 { try c.u24() }
}
