import BTCapture

/// A2DP's codec information elements (A2DP 1.4, 4.3-4.7): what a capability offers or a
/// configuration chose, onto the layer, and how a summary reads it ("SBC 44.1kHz Joint Stereo
/// 16 blocks 8 subbands Loudness bitpool 2-53").
public enum A2DPCodecs {
    /// A codec's name as AVDTP configures it: the assigned codec types, and the vendor codecs
    /// (aptX, LDAC...) by vendor and codec ID.
    public static func name(codec: UInt8, vendor: UInt32? = nil, vendorCodec: UInt16? = nil) -> String {
        if codec == 0xFF {
            if let vendor, let id = vendorCodec, let name = vendorCodecs[vendor]?[id] { return name }
            return "Vendor codec"
        }
        return codecNames[codec] ?? "Codec \(Hex.u8(codec))"
    }

    static let codecNames: [UInt8: String] = [0x00: "SBC", 0x01: "MPEG-1,2 Audio", 0x02: "AAC", 0x03: "MPEG-D USAC", 0x04: "ATRAC"]

    /// Vendor codecs by vendor (company) and codec ID, as their owners publish them.
    static let vendorCodecs: [UInt32: [UInt16: String]] = [
        0x0000_004F: [0x0001: "aptX"],
        0x0000_00D7: [0x0024: "aptX HD", 0x00AD: "aptX Adaptive"],
        0x0000_000A: [0x0001: "FastStream", 0x0002: "aptX Low Latency"],
        0x0000_012D: [0x00AA: "LDAC"],
        0x0000_00E0: [0x0001: "Opus"],
        0x0000_08A9: [0x0001: "LC3plus HR"],
    ]

    /// Names of the set bits, most significant first (the information elements list options that way).
    static func bits(_ value: UInt8, _ names: [(UInt8, String)]) -> [String] {
        names.filter { value & $0.0 != 0 }.map(\.1)
    }

    /// The element onto the layer; returns the summary's reading.
    static func decode(codec: UInt8, _ info: ArraySlice<UInt8>, _ layer: inout Layer) -> String {
        var c = ByteCursor(info)
        /// The element's bytes from `offset`.
        func at(_ offset: Int, _ count: Int = 1) -> Range<Int> { layer.range(at: info.startIndex + offset, count: count) }
        switch codec {
        case 0x00:
            guard info.count >= 4, let a = try? c.u8(), let b = try? c.u8(), let low = try? c.u8(), let high = try? c.u8() else { break }
            let rates = bits(a, [(0x80, "16kHz"), (0x40, "32kHz"), (0x20, "44.1kHz"), (0x10, "48kHz")])
            let modes = bits(a, [(0x08, "Mono"), (0x04, "Dual Channel"), (0x02, "Stereo"), (0x01, "Joint Stereo")])
            let blocks = bits(b, [(0x80, "4"), (0x40, "8"), (0x20, "12"), (0x10, "16")])
            let subbands = bits(b, [(0x08, "4"), (0x04, "8")])
            let allocation = bits(b, [(0x02, "SNR"), (0x01, "Loudness")])
            layer.add(AVDTPFields.samplingFrequencies, .text(rates.joined(separator: " ")), at: at(0))
            layer.add(AVDTPFields.channelModes, .text(modes.joined(separator: ", ")), at: at(0))
            layer.add(AVDTPFields.sbcBlockLengths, .text(blocks.joined(separator: " ")), at: at(1))
            layer.add(AVDTPFields.sbcSubbands, .text(subbands.joined(separator: " ")), at: at(1))
            layer.add(AVDTPFields.sbcAllocation, .text(allocation.joined(separator: " ")), at: at(1))
            layer.add(AVDTPFields.sbcMinBitpool, .count(Int(low)), at: at(2))
            layer.add(AVDTPFields.sbcMaxBitpool, .count(Int(high)), at: at(3))
            if low > high { layer.addIssue(.warning, "SBC minimum bitpool \(low) above the maximum \(high)") }
            return (["SBC"] + rates + modes + ["\(blocks.joined(separator: "/")) blocks", "\(subbands.joined(separator: "/")) subbands"]
                + allocation + ["bitpool \(low)-\(high)"]).joined(separator: " ")
        case 0x01:
            guard info.count >= 4, let a = try? c.u8(), let b = try? c.u8(), let rate = try? c.u16be() else { break }
            let layers = bits(a, [(0x80, "Layer I"), (0x40, "Layer II"), (0x20, "Layer III")])
            let modes = bits(a, [(0x08, "Mono"), (0x04, "Dual Channel"), (0x02, "Stereo"), (0x01, "Joint Stereo")])
            let rates = bits(b, [(0x20, "16kHz"), (0x10, "22.05kHz"), (0x08, "24kHz"), (0x04, "32kHz"), (0x02, "44.1kHz"), (0x01, "48kHz")])
            layer.add(AVDTPFields.mpegLayers, .text(layers.joined(separator: ", ")), at: at(0))
            layer.add(AVDTPFields.channelModes, .text(modes.joined(separator: ", ")), at: at(0))
            layer.add(AVDTPFields.samplingFrequencies, .text(rates.joined(separator: " ")), at: at(1))
            layer.add(AVDTPFields.aacVBR, .bool(rate & 0x8000 != 0), at: at(2))
            return (["MPEG-1,2 Audio"] + layers + rates + modes + (a & 0x10 != 0 ? ["CRC"] : []) + (rate & 0x8000 != 0 ? ["VBR"] : []))
                .joined(separator: " ")
        case 0x02:
            guard info.count >= 6, let objects = try? c.u8(), let a = try? c.u8(), let b = try? c.u8(), let d = try? c.u8(),
                  let low = try? c.u16be() else { break }
            let types = bits(objects, [(0x80, "MPEG-2 AAC LC"), (0x40, "MPEG-4 AAC LC"), (0x20, "MPEG-4 AAC LTP"), (0x10, "MPEG-4 AAC Scalable"),
                                       (0x08, "MPEG-4 HE-AAC"), (0x04, "MPEG-4 HE-AACv2"), (0x02, "MPEG-4 AAC-ELDv2")])
            let rates = bits(a, [(0x80, "8kHz"), (0x40, "11.025kHz"), (0x20, "12kHz"), (0x10, "16kHz"), (0x08, "22.05kHz"), (0x04, "24kHz"),
                                 (0x02, "32kHz"), (0x01, "44.1kHz")])
                + bits(b, [(0x80, "48kHz"), (0x40, "64kHz"), (0x20, "88.2kHz"), (0x10, "96kHz")])
            let channels = bits(b, [(0x08, "Mono"), (0x04, "Stereo")])
            let vbr = d & 0x80 != 0
            let bitrate = UInt32(d & 0x7F) << 16 | UInt32(low)
            layer.add(AVDTPFields.aacObjectTypes, .text(types.joined(separator: ", ")), at: at(0))
            layer.add(AVDTPFields.samplingFrequencies, .text(rates.joined(separator: " ")), at: at(1, 2))
            layer.add(AVDTPFields.channelModes, .text(channels.joined(separator: ", ")), at: at(2))
            layer.add(AVDTPFields.aacVBR, .bool(vbr), at: at(3))
            layer.add(AVDTPFields.aacBitrate, .count(Int(bitrate)), at: at(3, 3))
            return (["AAC"] + types + rates + channels + (vbr ? ["VBR"] : []) + (bitrate > 0 ? ["\(bitrate / 1000) kb/s"] : []))
                .joined(separator: " ")
        case 0xFF:
            guard info.count >= 6, let vendor = try? c.u32(), let id = try? c.u16() else { break }
            layer.add(AVDTPFields.vendorID, .u32(vendor), named: AssignedNumbers.company(UInt16(truncatingIfNeeded: vendor)),
                      at: at(0, 4))
            layer.add(AVDTPFields.vendorCodec, .u16(id), at: at(4, 2))
            if let name = vendorCodecs[vendor]?[id] {
                let rest = c.rest()
                let settings = vendorSettings(vendor, id, rest)
                // The settings' first byte (aptX: both; LDAC: the frequencies, then a mode byte).
                if !settings.rates.isEmpty { layer.add(AVDTPFields.samplingFrequencies, .text(settings.rates.joined(separator: " ")), at: at(6)) }
                if !settings.modes.isEmpty {
                    layer.add(AVDTPFields.channelModes, .text(settings.modes.joined(separator: ", ")), at: at(vendor == 0x0000_012D ? 7 : 6))
                }
                return ([name] + settings.rates + settings.modes).joined(separator: " ")
            }
            let company = vendor <= 0xFFFF ? AssignedNumbers.company(UInt16(vendor)) : nil
            return "Vendor codec \(Hex.u16(id)) of \(company ?? Hex.format(vendor, width: 8))"
        default:
            return codecNames[codec] ?? "Codec \(Hex.u8(codec))"
        }
        layer.addIssue(.warning, "\(codecNames[codec] ?? "Vendor codec") information element of \(info.count) bytes, too short")
        return codecNames[codec] ?? "Vendor codec"
    }

    /// The settings byte of the vendor codecs whose layout is public (the BlueZ and Android A2DP
    /// codec headers): aptX and aptX HD put the sampling frequencies in the high nibble and the
    /// channel modes in the low one; LDAC has a frequency byte, then a channel-mode byte.
    static func vendorSettings(_ vendor: UInt32, _ id: UInt16, _ rest: ArraySlice<UInt8>) -> (rates: [String], modes: [String]) {
        guard let first = rest.first else { return ([], []) }
        switch (vendor, id) {
        case (0x0000_004F, 0x0001), (0x0000_00D7, 0x0024):
            return (bits(first, [(0x80, "16kHz"), (0x40, "32kHz"), (0x20, "44.1kHz"), (0x10, "48kHz")]),
                    bits(first, [(0x01, "Mono"), (0x02, "Stereo")]))
        case (0x0000_012D, 0x00AA):
            let modes = rest.dropFirst().first.map { bits($0, [(0x04, "Mono"), (0x02, "Dual Channel"), (0x01, "Stereo")]) } ?? []
            return (bits(first, [(0x20, "44.1kHz"), (0x10, "48kHz"), (0x08, "88.2kHz"), (0x04, "96kHz"), (0x02, "176.4kHz"), (0x01, "192kHz")]), modes)
        default:
            return ([], [])
        }
    }
}
