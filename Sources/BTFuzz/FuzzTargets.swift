import BTBrowse
import BTCapture
import Foundation
import BTDecode
import BTFixtures
import BTAnalysis
import BTQuery
import BTRender
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The byte-parsing entry points btlog exposes to untrusted input, one per fuzz target.
/// `btlog-fuzz` runs one of them under libFuzzer (Scripts/fuzz.sh); the regression tests run
/// every checked-in input (Tests/FuzzInputs/TARGET/) through the same function.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// BTSnoopReader over the input (every datalink; the 16-byte header included).
    case btsnoop
    /// PacketLoggerReader; the first byte's low bit picks the byte order, the rest is the file.
    case pklg
    /// SerialMonitorReader (BlueZ's monitor protocol on a board's UART, with noise): the first
    /// byte sets how many bytes each read hands over (a live line delivers a few at a time).
    /// Every frame fits the protocol, and skipped and framed bytes add up to the input.
    case serialMonitor = "serial-monitor"
    /// H4WireReader (one wire of a tapped UART, with noise): the first byte picks the wire
    /// (low bit) and how many bytes each read hands over. Every packet is one the wire carries,
    /// whole by its own header, and skipped and taken bytes add up to the input.
    case h4Wire = "h4-wire"
    /// What adb prints (`capture --android`): the first byte's low bit picks `adb devices -l`
    /// or the phone's getprop and clock; the rest is the text. A device list parses into
    /// devices with a serial and a state, a choice is a usable device or a message, and the
    /// phone's settings and clock give a mode, advice and a window without trapping.
    case adbOutput = "adb-output"
    /// An iOS device's packet logger service (`capture --ios`): the first byte sets how many
    /// bytes each read hands over; the rest goes through the service's record framing, and what
    /// it gives through the PacketLogger reader. Only whole, self-consistent records come out,
    /// never more bytes than went in.
    case iosPacketLogger = "ios-packet-logger"
    /// libpcap (pcap and pcapng) over the input in memory.
    case pcap
    /// The gzip stream, then whatever it inflates to through format detection.
    case gzip
    /// Format detection and every container on the whole input: tar (sysdiagnose), btsnooz
    /// text, zip (bugreport); the seeds decide which one a run explores.
    case tar, btsnooz, zip
    /// Raw HCI packets (DecoderInput records) decoded after a warm session, then rendered as
    /// the tree, the table and the hex dump.
    case decoder
    /// Packets taken from the air (AirInput records: the selector picks link type 251, 256 or
    /// 272), decoded through the link layer and what it hands L2CAP, then rendered.
    case air
    /// A keys file (`--keys`): it reads as keys of 16 octets each, or is refused with a message.
    case keys
    /// Field-value literals (what the filter language will compare fields with): the first byte
    /// picks the field type, the rest is two literals split at a 0 byte. Each must parse or be
    /// refused, compare without trapping, and a parsed value must survive its own text.
    case literal
    /// The protocols L2CAP hands a dynamic channel to by PSM (RFCOMM, and every one registered
    /// later): the first byte picks the PSM among `L2CAPProtocols.decodedPSMs`, the rest are
    /// SDUs (ChannelInput records) delivered on a channel opened for it.
    case channel
    /// A HID report descriptor (as a peer's SDP record carries it) and a report read through it:
    /// [descriptor length, 2 bytes LE][descriptor][report] (HIDReportInput).
    case hidDescriptor = "hid-descriptor"
    /// The profiles above GATT (ANCS, AMS, and every one registered later) on an LE link whose
    /// discovery declared each of their characteristics: GATTValueInput records.
    case gattValue = "gatt-value"
    /// A filter expression (the input as UTF-8): it compiles or is refused with a message whose
    /// caret lies inside the expression; one that compiles is run over decoded packets of the
    /// heart-rate and classic fixtures.
    case filter
    /// A notes file (`CAPTURE.btlog-notes.json`): parsed or refused with a reason; what parses
    /// is written back and must read back the same.
    case notes
    /// `export --redact --redact-values` over DecoderInput records: every frame comes out, in
    /// order, of the same kind, direction and length (redaction rewrites bytes, never adds or
    /// drops any), and decodes.
    case redact
    /// `btlog stats` and `diagnose` over DecoderInput records: the collector follows whatever
    /// the decoded packets claim (connections, channels, transactions, streams, credits), the
    /// report, its JSON, the throughput view and plot and the diagnosis render, and the counts
    /// add up to the packets fed.
    case stats
    /// A whole capture file as a user hands it over: format detection, every record's header
    /// and timestamp, the decoders, the table and tree, statistics with the throughput series
    /// and plot, and the diagnosis. Seeded with the fixtures and the third-party captures, so
    /// mutations reach the record headers and timestamps of real captures (a timestamp years
    /// from the others, lengths at their limits).
    case capture
    /// `btlog browse` driven by keys over a capture: [key count][keys, a byte each][DecoderInput
    /// records]. Every key (movement, the filter field and its completion, quick filters,
    /// search, go to, folding, clicks, resizes) is handed to the model and the screen drawn;
    /// the selection stays within the rows and the tree, the grid is the screen's size.
    case browse
    /// Vendor HCI (Android's extensions and quality reports, Broadcom, Intel, Realtek,
    /// Qualcomm): [selector][DecoderInput records]. The selector names the controller's
    /// manufacturer (none, or one of the vendors) and the Android capabilities version that
    /// lays out quality reports, as Command Completes decoded before the records.
    case vendor
    /// `btlog diff`: [n][DecoderInput records]. The records are compared with themselves
    /// decoded again (which must show no difference) and with the records less every n-th
    /// (n = 2...9), renumbered; the text report, --stat and the JSON render.
    case diff
    /// A protocol description (the input as YAML text): it compiles or is refused with an
    /// error at a place in the file; one that compiles decodes the input's bytes as each message.
    case description
    /// Described decoders: [n][n bytes choosing a generated description][payload]. Every
    /// generated description compiles; the payload decodes as each of its messages.
    case described
    /// `btlog merge` and `--merge`: [clock][DecoderInput records], the records dealt to two to
    /// five sources by controller, each source's clock moved and skewed by the clock byte. The
    /// alignment (with a small anchor sample), the merged timeline, its decoding, statistics,
    /// tree, JSON and flow chart, and the pcapng it writes read back: every frame once, each match naming
    /// its other end, the pcapng's sources those of the merge.
    case merge

    /// Runs the input; returns normally for every input (errors are the expected outcome of
    /// most inputs), crashes only on a bug.
    public func run(_ input: [UInt8]) {
        switch self {
        case .btsnoop:
            readAll { try BTSnoopReader(BufferedReader(MemoryStream(input), chunkSize: 4096), name: "fuzz") }
        case .pklg:
            guard let first = input.first else { return }
            readAll {
                PacketLoggerReader(BufferedReader(MemoryStream(Array(input.dropFirst())), chunkSize: 4096), name: "fuzz",
                                   littleEndian: first & 1 == 0)
            }
        case .pcap:
            readAll { try PcapReader(memory: input, name: "fuzz") }
        case .h4Wire:
            guard let first = input.first else { return }
            let wire: H4WireReader.Wire = first & 1 == 0 ? .host : .controller
            let reader = H4WireReader(BufferedReader(MemoryStream(Array(input.dropFirst())), chunkSize: 1 + Int(first >> 1)),
                                      name: "fuzz", wire: wire, arrival: { 0 })
            var taken = 0
            while let frame = try? reader.next() {
                let type = H4.indicator(for: frame.kind)!
                precondition(reader.carries(type), "a packet of a type the wire does not carry")
                precondition(H4WireReader.payloadLength(type: type, header: frame.bytes.prefix(H4WireReader.headerLength(type)))
                    == frame.bytes.count - H4WireReader.headerLength(type), "a packet that is not whole by its header")
                taken += 1 + frame.bytes.count
            }
            precondition(reader.skippedBytes + taken == input.count - 1, "skipped and taken bytes do not add up to the input")
        case .adbOutput:
            guard let first = input.first else { return }
            let text = String(decoding: input.dropFirst(), as: UTF8.self)
            if first & 1 == 0 {
                let devices = AndroidDebugBridge.parseDevices(text)
                for device in devices {
                    precondition(!device.serial.isEmpty && !device.state.isEmpty, "a device without a serial or a state")
                }
                if let chosen = try? AndroidDebugBridge.choose(devices, requested: devices.first?.serial) {
                    precondition(chosen.state == "device", "a phone chosen that adb cannot use")
                }
                _ = try? AndroidDebugBridge.choose(devices, requested: nil)
            } else {
                let settings = AndroidSettings(getprop: text)
                _ = AndroidAdvice.refusal(settings, serial: "fuzz")
                _ = AndroidAdvice.filtered(settings)
                precondition(!settings.filteredOut.isEmpty, "a filtered log said to hide nothing")
                if let clock = settings.clock {
                    for last in [Int64.min, 0, clock.seconds, Int64.max] {
                        _ = AndroidLogPull.logClockShift(lastRecord: last, stop: clock.seconds, utcOffset: clock.utcOffset)
                    }
                }
            }
        case .iosPacketLogger:
            guard let first = input.first else { return }
            var framing = RecordFraming()
            var records: [UInt8] = []
            let step = 1 + Int(first)
            var offset = 1
            while offset < input.count {
                let end = min(offset + step, input.count)
                guard let whole = framing.feed(input[offset ..< end]) else { break }
                records += whole
                offset = end
            }
            precondition(records.count <= input.count, "more record bytes than went in")
            readAll { PacketLoggerReader(BufferedReader(MemoryStream(records), chunkSize: 4096), name: "fuzz", littleEndian: false) }
        case .serialMonitor:
            guard let first = input.first else { return }
            let reader = SerialMonitorReader(BufferedReader(MemoryStream(Array(input.dropFirst())), chunkSize: 1 + Int(first)),
                                             name: "fuzz", arrival: { 1_700_000_000_000_000 })
            var framed = 0
            while let frame = try? reader.next() {
                // The header (6), an extended header at most 255 + 4 per opcode-fitting payload.
                precondition(frame.bytes.count <= 0xFFFF, "a frame longer than the 16-bit length allows")
                framed += SerialMonitor.headerSize + frame.bytes.count
            }
            precondition(reader.skippedBytes + framed <= input.count - 1, "skipped and framed bytes exceed the input")
        case .gzip:
            guard let inflated = try? InflateStream(source: MemoryStream(input), name: "fuzz") else { return }
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            // A small input can inflate a thousandfold: stop at 8 MiB (enough for any seed).
            while bytes.count < 8 << 20 {
                guard let n = try? chunk.withUnsafeMutableBytes({ try inflated.read(into: $0) }), n > 0 else { break }
                bytes += chunk[0 ..< n]
            }
            readAll { try CaptureInput.open(bytes: bytes) }
        case .tar, .btsnooz, .zip:
            readAll { try CaptureInput.open(bytes: input) }
        case .decoder:
            FuzzDecoder.shared.run(DecoderInput.frames(from: input))
        case .air:
            FuzzDecoder.shared.run(AirInput.frames(from: input))
        case .keys:
            if let keys = try? LinkLayerKeys.parse(file: String(decoding: input, as: UTF8.self), name: "fuzz") {
                precondition(keys.allSatisfy { $0.count == 16 }, "a key that is not 16 octets was accepted")
            }
        case .literal:
            LiteralInput.run(input)
        case .channel:
            FuzzDecoder.shared.run(ChannelInput.frames(from: input))
        case .hidDescriptor:
            HIDReportInput.run(input)
        case .gattValue:
            FuzzDecoder.shared.run(GATTValueInput.frames(from: input))
        case .filter:
            FilterInput.run(input)
        case .redact:
            RedactInput.run(input)
        case .stats:
            StatsInput.run(input)
        case .capture:
            CaptureFileInput.run(input)
        case .browse:
            BrowseInput.run(input)
        case .vendor:
            FuzzDecoder.shared.run(VendorInput.frames(from: input))
        case .diff:
            DiffFuzzInput.run(input)
        case .description:
            DescribedInput.runDescription(input)
        case .described:
            DescribedInput.runDescribed(input)
        case .merge:
            MergeFuzzInput.run(input)
        case .notes:
            guard let document = try? NotesDocument.parse(Data(input)) else { return }
            guard let again = try? NotesDocument.parse(document.serialized()), again == document else {
                preconditionFailure("a notes file does not read back the same after writing")
            }
        }
    }

    private func readAll(_ open: () throws -> FrameReader) {
        guard let reader = try? open() else { return }
        var frames = 0
        while frames < 1_000_000, let frame = try? reader.next() {
            frames += 1
            // Touch what a consumer touches: the bytes and the declared length.
            _ = frame.bytes.last
            _ = frame.isTruncated
        }
        _ = reader.warnings
    }
}

/// The literal target: [type][literal]0[literal], both literals read as UTF-8 (invalid
/// sequences replaced, as a command line would hand them over).
public enum LiteralInput {
    public static let types: [FieldType] = [.uint8, .uint16, .uint32, .uint64, .int, .bool, .string, .bytes, .address, .uuid, .time]

    public static func run(_ input: [UInt8]) {
        guard let selector = input.first else { return }
        let type = types[Int(selector) % types.count]
        let parts = input.dropFirst().split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
        let texts = parts.map { String(decoding: $0, as: UTF8.self) }
        var values: [FieldValue] = []
        for text in texts {
            guard let value = FieldValue.parse(text, as: type) else { continue }
            // The value's own text reads back as the same value: what --fields prints can be
            // pasted into a filter.
            guard let again = FieldValue.parse(value.text, as: type), again == value, again.matches(value) else {
                preconditionFailure("literal '\(text)' as \(type) gives \(value), whose text '\(value.text)' does not read back")
            }
            values.append(value)
        }
        for a in values {
            for b in values {
                _ = a.compare(b)
                _ = a.contains(b)
                if let order = a.compare(b), let reverse = b.compare(a), order != -reverse {
                    preconditionFailure("\(a) and \(b) compare \(order) one way and \(reverse) the other")
                }
            }
            _ = a.displayText
        }
    }

    /// Seeds: a literal of every type, valid and not.
    public static let seeds: [(String, [UInt8])] = {
        let samples: [(FieldType, String, String)] = [
            (.uint8, "0x1b", "27"), (.uint16, "0x0004", "65536"), (.uint32, "4294967295", "0x"), (.uint64, "0xFFFFFFFFFFFFFFFF", "18446744073709551616"),
            (.int, "-70", "-9223372036854775808"), (.bool, "true", "maybe"), (.string, "Heart Rate", ""),
            (.bytes, "0a:1b:2c", "0a1"), (.address, "C0:FF:EE:12:34:56", "c0:ff:ee:12:34"), (.uuid, "180d", "0000180D-0000-1000-8000-00805F9B34FB"),
            (.time, "1557356668.5", "-0.25"),
        ]
        return samples.map { type, a, b in
            ("\(type.rawValue).txt", [UInt8(types.firstIndex(of: type)!)] + Array(a.utf8) + [0] + Array(b.utf8))
        }
    }()
}

/// The records the decoder and air targets read: [selector][length low][length high][bytes],
/// the last record cut where the input ends.
enum SelectorRecords {
    static func split(_ input: [UInt8]) -> [(selector: UInt8, bytes: ArraySlice<UInt8>)] {
        var records: [(selector: UInt8, bytes: ArraySlice<UInt8>)] = []
        var i = 0
        while i < input.count {
            let declared = i + 2 < input.count ? Int(input[i + 1]) | Int(input[i + 2]) << 8 : 0
            let start = min(i + 3, input.count)
            let end = min(start + declared, input.count)
            records.append((input[i], input[start ..< end]))
            i = end
        }
        return records
    }

    static func append(_ selector: UInt8, _ payload: ArraySlice<UInt8>, to bytes: inout [UInt8]) {
        let count = min(payload.count, 0xFFFF)
        bytes += [selector, UInt8(count & 0xFF), UInt8(count >> 8)] + payload.prefix(count)
    }
}

/// The air target's input: records of [selector][length low][length high][bytes], the
/// selector's low 3 bits picking the link type (its pseudo-header is part of the bytes), so a
/// run can hold a CONNECT_IND and the data PDUs of its connection.
public enum AirInput {
    public static let types: [AirLinkType] = [.leLL, .leLLWithRadioHeader, .nordicBLE, .ppi, .bredrBB]

    public static func frames(from input: [UInt8]) -> [Frame] {
        SelectorRecords.split(input).enumerated().map { number, record in
            // Timestamps 200 µs apart: within a connection event, so direction inference alternates.
            Frame(number: number + 1, timestamp: Int64(number) * 200 + Int64(record.selector >> 3) * 10_000,
                  kind: .air(types[Int(record.selector & 0x07) % types.count]), direction: .none, bytes: record.bytes)
        }
    }

    public static func encode(_ frames: [Frame]) -> [UInt8] {
        var bytes: [UInt8] = []
        for frame in frames {
            guard case .air(let type) = frame.kind, let selector = types.firstIndex(of: type) else { continue }
            SelectorRecords.append(UInt8(selector), frame.bytes, to: &bytes)
        }
        return bytes
    }
}

/// The decoder target's input: records of [selector][length low][length high][bytes]. The
/// selector's low 4 bits pick the kind, bit 4 the direction, bits 5-7 the controller index, so
/// libFuzzer can build multi-packet sequences (fragments, requests and their responses).
public enum DecoderInput {
    public static let kinds: [FrameKind] = [
        .command, .event, .aclData, .scoData, .isoData, .aclData, .event, .aclData,
        .note, .userLogging, .syslog, .newIndex, .indexInfo, .controlOpen, .controlCommand, .vendorDiagnostic,
    ]

    public static func frames(from input: [UInt8]) -> [Frame] {
        SelectorRecords.split(input).enumerated().map { number, record in
            Frame(number: number + 1, timestamp: Int64(number) * 1000, kind: kinds[Int(record.selector & 0x0F)],
                  direction: record.selector & 0x10 != 0 ? .received : .sent, controller: UInt16(record.selector >> 5), bytes: record.bytes)
        }
    }

    /// The inverse: frames of a fixture as a seed input (kinds outside the table are skipped).
    public static func encode(_ frames: [Frame]) -> [UInt8] {
        var bytes: [UInt8] = []
        for frame in frames {
            guard let index = kinds.firstIndex(of: frame.kind), frame.bytes.count <= 0xFFFF else { continue }
            SelectorRecords.append(UInt8(index) | (frame.direction == .received ? 0x10 : 0) | UInt8(min(frame.controller, 7)) << 5,
                                   frame.bytes, to: &bytes)
        }
        return bytes
    }
}

/// The vendor target's input: [selector][DecoderInput records]. The selector's low bits pick the
/// manufacturer Read Local Version Information reports, the high bits the Android vendor
/// capabilities version; both are decoded before the records, on controller 0.
public enum VendorInput {
    static let companies: [UInt16?] = [nil, 0x000F, 0x0002, 0x005D, 0x001D, 0x0131]
    static let versions: [UInt16] = [0x0095, 0x0098, 0x0100, 0x0101, 0x0103, 0x0104]

    public static func frames(from input: [UInt8]) -> [Frame] {
        guard let selector = input.first else { return [] }
        var setup: [[UInt8]] = []
        if let company = companies[Int(selector & 0x0F) % companies.count] {
            setup.append([0x0E, 0x0C, 0x01, 0x01, 0x10, 0x00, 0x09, 0x00, 0x01, 0x09, UInt8(company & 0xFF), UInt8(company >> 8), 0x00, 0x01])
        }
        let version = versions[Int(selector >> 4) % versions.count]
        setup.append([0x0E, 0x12, 0x01, 0x53, 0xFD, 0x00, 4, 1, 0, 4, 8, 1, 8, 1, UInt8(version & 0xFF), UInt8(version >> 8), 8, 0, 1, 1])
        let head = setup.enumerated().map { i, bytes in
            Frame(number: i + 1, timestamp: Int64(i), kind: .event, direction: .received, bytes: bytes)
        }
        let records = DecoderInput.frames(from: Array(input.dropFirst()))
        return head + records.enumerated().map { i, frame in
            Frame(number: head.count + i + 1, timestamp: Int64(head.count + i) * 1000, kind: frame.kind, direction: frame.direction,
                  controller: 0, bytes: frame.bytes)
        }
    }

    /// A seed: the frames of a vendor fixture with the selector naming its manufacturer.
    public static func encode(company: UInt16?, version: UInt16, _ frames: [Frame]) -> [UInt8] {
        let c = companies.firstIndex(of: company) ?? 0, v = versions.firstIndex(of: version) ?? 0
        return [UInt8(v << 4 | c)] + DecoderInput.encode(frames)
    }
}

/// The channel target's input: [PSM selector] then records of [flags][length low][length high]
/// [SDU], flags bit 0 for the direction (set: received). The frames connect a BR/EDR link,
/// open a channel for the PSM, and carry each SDU in one ACL packet.
public enum ChannelInput {
    static let handle: UInt16 = 0x0001

    public static func frames(from input: [UInt8]) -> [Frame] {
        let psms = L2CAPProtocols.decodedPSMs
        guard let selector = input.first, !psms.isEmpty else { return [] }
        let psm = psms[Int(selector) % psms.count]
        var frames: [Frame] = []
        func add(_ kind: FrameKind, _ direction: Direction, _ bytes: [UInt8]) {
            frames.append(Frame(number: frames.count + 1, timestamp: Int64(frames.count) * 1000, kind: kind, direction: direction, bytes: bytes))
        }
        func l2cap(_ cid: UInt16, _ payload: ArraySlice<UInt8>, received: Bool) {
            let pdu = [UInt8(payload.count & 0xFF), UInt8(payload.count >> 8), UInt8(cid & 0xFF), UInt8(cid >> 8)] + payload
            add(.aclData, received ? .received : .sent,
                [UInt8(handle & 0xFF), UInt8(handle >> 8) | 0x20, UInt8(pdu.count & 0xFF), UInt8(pdu.count >> 8)] + pdu)
        }
        // Connection Complete (BR/EDR ACL), then the host's Connection Request and the peer's
        // response: the host's CID 0x0040, the peer's 0x0041.
        add(.event, .received, [0x03, 0x0B, 0x00, UInt8(handle), 0x00, 0x13, 0x71, 0xDA, 0x7D, 0x1A, 0x00, 0x01, 0x00])
        l2cap(0x0001, [0x02, 0x01, 0x04, 0x00, UInt8(psm & 0xFF), UInt8(psm >> 8), 0x40, 0x00], received: false)
        l2cap(0x0001, [0x03, 0x01, 0x08, 0x00, 0x41, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00], received: true)
        var i = 1
        while i < input.count {
            let flags = input[i]
            let declared = i + 2 < input.count ? Int(input[i + 1]) | Int(input[i + 2]) << 8 : 0
            let start = min(i + 3, input.count)
            let end = min(start + min(declared, 0xFFF0), input.count)
            let received = flags & 1 != 0
            l2cap(received ? 0x0040 : 0x0041, input[start ..< end], received: received)
            i = end
        }
        return frames
    }

    /// A seed: the PSM's selector and the SDUs, each with its direction.
    public static func encode(psm: UInt16, _ sdus: [(received: Bool, bytes: ArraySlice<UInt8>)]) -> [UInt8]? {
        guard let index = L2CAPProtocols.decodedPSMs.firstIndex(of: psm) else { return nil }
        var bytes = [UInt8(index)]
        for sdu in sdus where sdu.bytes.count <= 0xFFF0 {
            bytes += [sdu.received ? 1 : 0, UInt8(sdu.bytes.count & 0xFF), UInt8(sdu.bytes.count >> 8)] + sdu.bytes
        }
        return bytes
    }
}

/// The gatt-value target's input: records of [characteristic selector][opcode selector]
/// [length][value]. The frames connect an LE link whose GATT discovery declared every
/// characteristic a profile registers (`GATTProfiles.characteristics`, value handles 0x0101,
/// 0x0104 ...); each record writes (request or command), notifies, indicates, reads, or answers
/// a write with an Error Response (the value's first byte the error code), as the opcode
/// selector says.
public enum GATTValueInput {
    static let handle: UInt16 = 0x0002
    public static let opcodes: [UInt8] = [0x12, 0x52, 0x1B, 0x1D, 0x0B, 0x01]

    static func valueHandle(_ index: Int) -> UInt16 { UInt16(0x0101 + 3 * index) }

    public static func frames(from input: [UInt8]) -> [Frame] {
        let characteristics = GATTProfiles.characteristics
        guard !characteristics.isEmpty else { return [] }
        var frames: [Frame] = []
        func add(_ kind: FrameKind, _ direction: Direction, _ bytes: [UInt8]) {
            frames.append(Frame(number: frames.count + 1, timestamp: Int64(frames.count) * 1000, kind: kind, direction: direction, bytes: bytes))
        }
        func att(_ pdu: [UInt8], received: Bool) {
            let l2cap = [UInt8(pdu.count & 0xFF), UInt8(pdu.count >> 8), 0x04, 0x00] + pdu
            add(.aclData, received ? .received : .sent,
                [UInt8(handle & 0xFF), UInt8(handle >> 8) | 0x20, UInt8(l2cap.count & 0xFF), UInt8(l2cap.count >> 8)] + l2cap)
        }
        func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        // LE Connection Complete, then one characteristic declaration per registered UUID.
        add(.event, .received, [0x3E, 0x13, 0x01, 0x00] + le16(handle) + [0x00, 0x00, 0x33, 0x22, 0x11, 0xE6, 0xF7, 0x5C, 0x18, 0x00, 0x00, 0x00, 0x48, 0x00, 0x00])
        for (index, uuid) in characteristics.enumerated() {
            let declaration = valueHandle(index) - 1
            let bytes = uuid.uuid16.map { le16($0) } ?? uuid.littleEndianBytes
            att([0x08] + le16(declaration) + [0xFF, 0xFF, 0x03, 0x28], received: false)
            att([0x09, UInt8(5 + bytes.count)] + le16(declaration) + [0x3A] + le16(declaration + 1) + bytes, received: true)
        }
        var i = 0
        while i + 2 < input.count {
            let index = Int(input[i]) % characteristics.count, opcode = opcodes[Int(input[i + 1]) % opcodes.count]
            let start = i + 3, end = min(start + Int(input[i + 2]), input.count)
            let value = Array(input[start ..< end])
            let handle = le16(valueHandle(index))
            switch opcode {
            case 0x0B:
                att([0x0A] + handle, received: false)
                att([0x0B] + value, received: true)
            case 0x01:
                att([0x12] + handle + value, received: false)
                att([0x01, 0x12] + handle + [value.first ?? 0xA0], received: true)
            default:
                att([opcode] + handle + value, received: opcode == 0x1B || opcode == 0x1D)
            }
            i = end
        }
        return frames
    }

    public static func encode(_ records: [(characteristic: BTUUID, opcode: UInt8, value: ArraySlice<UInt8>)]) -> [UInt8] {
        var bytes: [UInt8] = []
        for record in records where record.value.count < 256 {
            guard let index = GATTProfiles.characteristics.firstIndex(of: record.characteristic),
                  let opcode = opcodes.firstIndex(of: record.opcode) else { continue }
            bytes += [UInt8(index), UInt8(opcode), UInt8(record.value.count)] + record.value
        }
        return bytes
    }
}

/// Decodes fuzz packets after a session that has already seen connections, L2CAP channels,
/// GATT discovery and pairing, so stateful paths (reassembly, channel maps, the GATT database)
/// are reached. The warm Session is a value: each input starts from the same copy, so a crash
/// reproduces from its input alone.
final class FuzzDecoder {
    nonisolated(unsafe) static let shared = FuzzDecoder()

    let warm: Session
    let output: OutputWriter

    init() {
        var frames = Scenarios.heartRateSession() + Scenarios.classicL2CAPSession()
        BenchmarkSessions.leSession(packets: 1500) { frames += $0 }
        BenchmarkSessions.audioSession(packets: 600) { frames += $0 }
        let decoder = Decoder()
        for frame in frames { _ = decoder.decode(frame) }
        warm = decoder.session
        output = OutputWriter(fd: open("/dev/null", O_WRONLY | O_CLOEXEC))
    }

    func run(_ frames: [Frame]) {
        let decoder = Decoder()
        decoder.session = warm
        var options = RenderOptions()
        options.hex = true
        options.time = .rel
        var tree: PacketRenderer = TreeRenderer(options: options)
        var table: PacketRenderer = TableRenderer(options: RenderOptions())
        var statistics = CaptureStatistics()
        for frame in frames {
            let packet = decoder.decode(frame)
            if let violation = ProtocolPlacement.violation(in: packet) {
                preconditionFailure("ProtocolPlacement is wrong: \(violation)")
            }
            statistics.add(packet)
            try? tree.render(packet, to: output)
            try? table.render(packet, to: output)
        }
        _ = decoder.finish()
        try? tree.finish(statistics, to: output)
        try? output.flush()
    }
}

/// The filter target: the whole input is one expression.
public enum FilterInput {
    /// Decoded once: what a compiled filter is run over.
    static let packets: [Packet] = {
        let decoder = Decoder()
        return (Scenarios.heartRateSession() + Scenarios.classicL2CAPSession()).map { decoder.decode($0) }
    }()

    public static func run(_ input: [UInt8]) {
        let expression = String(decoding: input.prefix(4096), as: UTF8.self)
        do {
            let filter = try PacketFilter(expression)
            let context = StageContext(captureStart: packets.first?.frame.timestamp ?? 0)
            for packet in packets where filter.matches(packet, context: context) {
                // What the filter foresaw from the frame's kind holds once decoded.
                precondition(filter.mayMatch(packet.frame.kind), "filter '\(expression)' foresaw no match in a \(packet.frame.kind.word) frame, then matched")
            }
        } catch let error as FilterError {
            let length = expression.unicodeScalars.count
            guard error.span.lowerBound >= 0, error.span.upperBound <= max(length, 1), !error.message.isEmpty else {
                preconditionFailure("filter '\(expression)': span \(error.span) outside the expression (\(length))")
            }
            _ = error.description
        } catch {
            preconditionFailure("filter '\(expression)' threw \(error), not a FilterError")
        }
    }

    /// Seeds: expressions of every form, valid and not.
    public static let seeds: [String] = [
        "att", "att.opcode == write_req and att.handle == 0x002a", "hci.event == disconnection_complete || smp",
        "not (l2cap.cid in {0x0001 0x0005..0x0007})", "att.value contains 01:ff", "adv.name matches \"(?i)^hrm\"",
        "all att.handle >= 0x10", "any att.handle != 1", "address == C0:FF:EE:12:34:56 and direction == sent",
        "time >= \"23:04:39.8\" and reltime < 12.5", "number in {1..10 20}", "comment contains \"x\" or flagged or error",
        "att.uuid == 2a37", "hci.status == connection_timeout", "att.opcod == 1", "(att and", "att.handle contains \"x\"",
        "{..}", "\"unterminated", "a &", "!!!att", "att.opcode in {0x12..0x10}",
    ]
}

/// The redact target: the decoder target's frames through a RedactingReader.
public enum RedactInput {
    public static func run(_ input: [UInt8]) {
        let frames = DecoderInput.frames(from: input)
        let reader = RedactingReader(ArrayFrameReader(frames: frames, formatDescription: "fuzz", nativeFormat: .btsnoopMonitor),
                                     values: true, pseudonyms: AddressPseudonyms())
        let decoder = Decoder()
        var index = 0
        while let frame = try? reader.next() {
            precondition(index < frames.count, "redaction made a frame")
            let original = frames[index]
            precondition(frame.kind == original.kind && frame.direction == original.direction
                         && frame.bytes.count == original.bytes.count && frame.timestamp == original.timestamp,
                         "redaction changed a frame's kind, direction, time or length")
            _ = decoder.decode(frame)
            index += 1
        }
        precondition(index == frames.count, "redaction lost a frame")
    }
}

/// The stats target: the decoder target's frames into a StatisticsCollector, then both reports.
public enum StatsInput {
    public static func run(_ input: [UInt8]) {
        let frames = DecoderInput.frames(from: input)
        let decoder = Decoder()
        var collector = StatisticsCollector(throughputInterval: 1000)
        collector.beginFile("fuzz")
        for frame in frames { try? collector.consume(decoder.decode(frame)) }
        collector.endFile(session: decoder.session)
        renderReports(&collector, packets: frames.count)
    }

    /// Every report `stats` and `diagnose` make, from what the collector gathered over `packets`.
    static func renderReports(_ collector: inout StatisticsCollector, packets: Int) {
        let report = collector.finish()
        let totals = report.totals
        precondition(totals.packets == packets, "stats counted \(totals.packets) of \(packets) packets")
        precondition(totals.commands + totals.events + totals.acl + totals.sco + totals.iso + totals.air + totals.baseband + totals.other == totals.packets,
                     "the kinds do not add up to the packets")
        _ = StatisticsReport(report, style: Style(enabled: true)).lines
        _ = StatisticsJSON(report, files: ["fuzz"], throughput: collector.throughput).text
        if let series = collector.throughput {
            precondition(series.binCount <= ThroughputSeries.maxBins, "the throughput series grew past its bound")
            _ = ThroughputReport(report, series: series, style: Style(enabled: false)).lines
            _ = ThroughputPlot(report, series: series, title: "fuzz").svg
        }
        let problems = Diagnosis.problems(in: report)
        _ = DiagnosisReport(problems, gaps: Diagnosis.completeness(in: report), packets: totals.packets, files: ["fuzz"], style: Style(enabled: true)).document
    }
}

/// The diff target: a capture against itself, and against itself with packets left out.
public enum DiffFuzzInput {
    public static func run(_ input: [UInt8]) {
        guard let every = input.first else { return }
        let frames = DecoderInput.frames(from: Array(input.dropFirst()))
        let n = Int(every % 8) + 2
        let fewer = frames.enumerated().filter { ($0.offset + 1) % n != 0 }.enumerated().map { index, element -> Frame in
            var frame = element.element
            frame.number = index + 1
            return frame
        }
        let a = DiffRecorder.side(of: frames), again = DiffRecorder.side(of: frames), b = DiffRecorder.side(of: fewer)
        let itself = CaptureDiff(a, again)
        precondition(itself.isEmpty, "a capture differs from itself: \(itself.aspects.flatMap(\.items).first?.summary ?? "")")
        for diff in [CaptureDiff(a, b), CaptureDiff(b, a, ignoringValues: true, tolerance: DiffTolerance(ratio: 0))] {
            let inputA = BTRender.DiffInput(file: "a", packets: frames.count), inputB = BTRender.DiffInput(file: "b", packets: fewer.count)
            var text = DiffReport(diff, a: inputA, b: inputB, style: Style(enabled: true)).lines
            text += [DiffJSON(diff, a: inputA, b: inputB).text]
            precondition(!text.isEmpty)
        }
    }

    /// A seed: the frames, and which to leave out.
    public static func encode(every: UInt8, _ frames: [Frame]) -> [UInt8] { [every] + DecoderInput.encode(frames) }
}

public enum MergeFuzzInput {
    public static func run(_ input: [UInt8]) {
        guard let clock = input.first else { return }
        // Control-channel commands stand for packets taken from the air (a sniffer's source):
        // the controller index picks the sniffer's link type.
        let frames = DecoderInput.frames(from: Array(input.dropFirst())).map { frame -> Frame in
            guard frame.kind == .controlCommand else { return frame }
            var air = frame
            air.kind = .air(AirLinkType.allCases[Int(frame.controller) % AirLinkType.allCases.count])
            air.direction = .none
            return air
        }
        let count = Int(clock >> 6) + 2
        var sources = Array(repeating: [Frame](), count: count)
        for frame in frames { sources[Int(frame.controller) % count].append(frame) }
        // Every source but the first on a clock of its own: hours ahead or behind, tens of ppm.
        let offset = Int64(Int8(bitPattern: clock << 2)) * 97_000_003
        let ppm = Int64(clock & 0x0F) * 7 - 50
        for index in sources.indices.dropFirst() {
            for position in sources[index].indices {
                let time = sources[index][position].timestamp
                sources[index][position].timestamp = time.saturatingAdd(offset.saturatingMultiply(Int64(index)))
                    .saturatingAdd(time.saturatingMultiply(ppm) / 1_000_000)
                sources[index][position].number = position + 1
            }
        }
        let inputs = sources.enumerated().map { index, list in
            MergeInput(name: "s\(index)") { ArrayFrameReader(frames: list, formatDescription: "fuzz", nativeFormat: .btsnoopMonitor) }
        }
        guard let alignments = try? MergePlan.align(inputs, anchorLimit: 16 + Int(clock & 0x3F)),
              let reader = try? MergePlan.reader(inputs, alignments) else { return }
        precondition(alignments.count == count)
        for alignment in alignments { precondition(!alignment.summary.isEmpty) }
        let decoder = Decoder()
        var collector = StatisticsCollector()
        var tree: PacketRenderer = TreeRenderer(options: RenderOptions())
        var json: PacketRenderer = JSONRenderer(layout: .lines)
        let output = FuzzDecoder.shared.output
        let sink = MemorySink()
        guard let writer = try? PcapNGWriter(sink: sink) else { return }
        var merged: [Frame] = []
        var flow = FlowChart(limit: 200, sources: inputs.map(\.name))
        while let frame = try? reader.next() {
            merged.append(frame)
            let packet = decoder.decode(frame)
            flow.add(packet)
            try? collector.consume(packet)
            try? tree.render(packet, to: output)
            try? json.render(packet, to: output)
            _ = try? writer.write(frame)
        }
        try? writer.close()
        precondition(merged.count == frames.count, "a merge lost or repeated frames")
        for frame in merged {
            guard let match = frame.origin?.match else { continue }
            let other = merged[match.number - 1]
            precondition(other.origin?.match != nil, "a match names an end that names nothing")
            // Two hosts' ends name each other; an air copy and a host's end may name another.
            if !frame.kind.isAir, !other.kind.isAir, other.origin?.match?.source != nil, !(merged[other.origin!.match!.number - 1].kind.isAir) {
                precondition(other.origin?.match?.number == frame.number, "a match names an end that does not name it")
            }
        }
        _ = StatisticsJSON(collector.finish(), files: ["fuzz"]).text
        precondition(!flow.textLines().isEmpty && flow.svg(title: "fuzz").hasSuffix("</svg>\n"))
        // The pcapng names its sources as the merge did.
        guard let back = try? PcapReader(memory: sink.bytes, name: "fuzz") else { return }
        while let frame = try? back.next() {
            if let origin = frame.origin { precondition(origin.name.hasPrefix("s") || origin.name.hasPrefix("interface")) }
        }
    }

    /// A seed: the frames (their controllers choose the sources) and the clock byte. Air frames
    /// are written as `run` reads them back: control commands on the controller whose index
    /// picks their link type.
    public static func encode(clock: UInt8, _ frames: [Frame]) -> [UInt8] {
        [clock] + DecoderInput.encode(frames.map { frame -> Frame in
            guard case .air(let type) = frame.kind, let index = AirLinkType.allCases.firstIndex(of: type) else { return frame }
            var record = frame
            record.kind = .controlCommand
            record.controller = UInt16(index)
            return record
        })
    }
}

/// The capture target: the input is a capture file; at most 20,000 of its records are read.
public enum CaptureFileInput {
    public static func run(_ input: [UInt8]) {
        guard let reader = try? CaptureInput.open(bytes: input, name: "fuzz") else { return }
        let decoder = Decoder()
        var collector = StatisticsCollector(throughputInterval: 1000)
        collector.beginFile("fuzz")
        var options = RenderOptions()
        options.hex = true
        options.time = .rel
        var tree: PacketRenderer = TreeRenderer(options: options)
        var table: PacketRenderer = TableRenderer(options: RenderOptions())
        let output = FuzzDecoder.shared.output
        var count = 0
        while count < 20_000, let frame = try? reader.next() {
            let packet = decoder.decode(frame)
            try? collector.consume(packet)
            try? tree.render(packet, to: output)
            try? table.render(packet, to: output)
            count += 1
        }
        collector.endFile(session: decoder.session)
        try? output.flush()
        StatsInput.renderReports(&collector, packets: count)
    }
}
