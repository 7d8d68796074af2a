/// One capture record, whatever file or socket it came from.
///
/// Every reader produces Frames and every writer consumes them; nothing after the reader
/// knows which format the bytes were stored in.
public struct Frame: Sendable, Equatable {
    /// 1-based position in the capture.
    public var number: Int
    /// Microseconds since the Unix epoch (UTC).
    public var timestamp: Int64
    public var kind: FrameKind
    public var direction: Direction
    /// Controller index (hci0 = 0); `Frame.systemController` for frames of no controller.
    public var controller: UInt16
    /// The HCI packet without any transport type byte (H4 indicator), or the record's payload
    /// for non-HCI kinds (notes, syslog, index frames).
    public var bytes: ArraySlice<UInt8>
    /// The length the packet had on the wire; larger than `bytes.count` when the record was
    /// truncated by a snap length.
    public var originalLength: Int
    /// Cumulative count of packets the source reported as dropped (btsnoop's drops field, the
    /// kernel's drop count in live capture).
    public var drops: UInt32
    /// What few frames carry (a record's comment, a merge's origin), out of line: a Frame is
    /// moved by value at every stage of every packet (reader, pipeline, decoder), and with
    /// these inline it was three times the size and a fifth of the table's memory copying.
    @usableFromInline var rare: FrameRarities?

    /// A comment the capture file holds for the record (a pcapng packet comment).
    public var comment: String? {
        @inlinable get { rare?.comment }
        set { rare = FrameRarities.make(comment: newValue, origin: rare?.origin) }
    }
    /// Where the frame came from when several captures are read as one timeline (`btlog
    /// merge`, `--merge`); nil for a frame read from one capture.
    public var origin: FrameOrigin? {
        // Inlinable: the table asks every row whether it is a merge's.
        @inlinable get { rare?.origin }
        set { rare = FrameRarities.make(comment: rare?.comment, origin: newValue) }
    }

    public static let systemController: UInt16 = 0xFFFF

    public init(number: Int = 0, timestamp: Int64, kind: FrameKind, direction: Direction,
                controller: UInt16 = 0, bytes: ArraySlice<UInt8>, originalLength: Int? = nil,
                drops: UInt32 = 0) {
        self.number = number
        self.timestamp = timestamp
        self.kind = kind
        self.direction = direction
        self.controller = controller
        self.bytes = bytes
        self.originalLength = originalLength ?? bytes.count
        self.drops = drops
    }

    public init(number: Int = 0, timestamp: Int64, kind: FrameKind, direction: Direction,
                controller: UInt16 = 0, bytes: [UInt8]) {
        self.init(number: number, timestamp: timestamp, kind: kind, direction: direction,
                  controller: controller, bytes: bytes[...])
    }

    @inlinable public var isTruncated: Bool { originalLength > bytes.count }

    /// Same packet regardless of where it sits in a capture and how its bytes are stored.
    public static func == (a: Frame, b: Frame) -> Bool {
        a.number == b.number && a.timestamp == b.timestamp && a.kind == b.kind
            && a.direction == b.direction && a.controller == b.controller
            && a.bytes.elementsEqual(b.bytes) && a.originalLength == b.originalLength
            && a.drops == b.drops && a.origin == b.origin
    }
}

/// A Frame's rarely present parts. Immutable, so frames that share one stay values: setting
/// either part makes a new one.
@usableFromInline final class FrameRarities: Sendable {
    @usableFromInline let comment: String?
    @usableFromInline let origin: FrameOrigin?

    private init(comment: String?, origin: FrameOrigin?) {
        self.comment = comment
        self.origin = origin
    }

    static func make(comment: String?, origin: FrameOrigin?) -> FrameRarities? {
        comment == nil && origin == nil ? nil : FrameRarities(comment: comment, origin: origin)
    }
}

/// A merged frame's source: which capture, its number and controller there, its time there
/// before alignment, and the frame of another source that carried the same PDU.
public struct FrameOrigin: Sendable, Equatable {
    /// The source's position among the merged captures, from 1.
    public var source: Int
    /// The source's name (its file name): the Source column, `frame.source`.
    public var name: String
    /// The frame's number in its own capture.
    public var number: Int
    /// The controller index the source gave the frame (the merge gives every source's
    /// controllers their own indexes in `Frame.controller`).
    public var controller: UInt16
    /// The time in the source's own clock, before alignment.
    public var sourceTime: Int64
    /// The same PDU seen by another source, when the merge matched one.
    public var match: FrameMatch?

    public init(source: Int, name: String, number: Int, controller: UInt16, sourceTime: Int64, match: FrameMatch? = nil) {
        self.source = source
        self.name = name
        self.number = number
        self.controller = controller
        self.sourceTime = sourceTime
        self.match = match
    }
}

/// Controller indexes for the frames of several sources read as one: each source's own
/// (source, controller) pair gets an index of its own, in order of appearance, so two
/// captures' hci0 stay two controllers for the decoder.
public struct ControllerIndexes: Sendable {
    private var indexes: [Int: UInt16] = [:]
    private var next: UInt16 = 0

    public init() {}

    public mutating func index(source: Int, controller: UInt16) -> UInt16 {
        let key = source << 16 | Int(controller)
        if let index = indexes[key] { return index }
        let index = next
        // Short of the system's index: past it, the last index is shared (65,534 controllers).
        if next < Frame.systemController - 1 { next += 1 }
        indexes[key] = index
        return index
    }
}

/// One PDU seen at both ends: the host that sent it logged it going to its controller, the
/// other host logged it arriving from its own.
public struct FrameMatch: Sendable, Equatable {
    /// The other end's source (from 1) and its frame number in the merged timeline.
    public var source: Int
    public var sourceName: String
    public var number: Int
    /// The other end's controller index and connection handle, as its own capture gives them.
    public var controller: UInt16
    public var handle: UInt16
    /// Microseconds from the sender's HCI to the receiver's, on the aligned clock.
    public var latency: Int64
    /// Whether this frame is the sending end.
    public var isSender: Bool
    /// The other end is a sniffer's copy of the PDU: the link's access address (its handle
    /// is then the air decoder's number for the link).
    public var accessAddress: UInt32?

    public init(source: Int, sourceName: String, number: Int, controller: UInt16, handle: UInt16, latency: Int64, isSender: Bool,
                accessAddress: UInt32? = nil) {
        self.source = source
        self.sourceName = sourceName
        self.number = number
        self.controller = controller
        self.handle = handle
        self.latency = latency
        self.isSender = isSender
        self.accessAddress = accessAddress
    }
}

public enum Direction: UInt8, Sendable {
    /// Host to controller (PacketLogger's "Send").
    case sent
    /// Controller to host (PacketLogger's "Receive").
    case received
    /// Not a packet between host and controller (notes, index frames).
    case none
}

/// What a Frame holds. HCI kinds carry an HCI packet; the others carry the record payload.
/// The set is the union of the Linux monitor opcodes and the PacketLogger record types.
public enum FrameKind: Hashable, Sendable {
    case command, event, aclData, scoData, isoData
    /// Vendor diagnostic data (monitor opcode 11).
    case vendorDiagnostic
    /// LMP traffic logged by the controller (PacketLogger types 0x0A/0x0B).
    case lmp
    /// Free text note (monitor System Note, PacketLogger Note).
    case note
    /// Monitor User Logging: priority, identifier, message.
    case userLogging
    /// PacketLogger syslog record: pid, level, process, sender, subsystem, category, message.
    case syslog
    /// PacketLogger text records.
    case kernel, kernelDebug, error, power, config, newController
    /// Linux monitor index and control-channel frames.
    case newIndex, deleteIndex, openIndex, closeIndex, indexInfo
    case controlOpen, controlClose, controlCommand, controlEvent
    /// A BCSP or H5 (three-wire) link packet that carries no HCI packet (acks, link setup).
    case linkControl
    /// A packet a sniffer took from the air (nRF Sniffer, Ubertooth, a radio-header capture):
    /// the record as the capture holds it, its pseudo-header included, by its pcap link type.
    case air(AirLinkType)
    /// A record type the reader does not know; the code is the source format's own type
    /// value, kept so a same-format round trip preserves it.
    case unrecognized(UInt16)

    /// A packet a sniffer took from the air.
    public var isAir: Bool {
        if case .air = self { return true }
        return false
    }

    public var isHCI: Bool {
        switch self {
        case .command, .event, .aclData, .scoData, .isoData: return true
        default: return false
        }
    }

    /// The kind as one lower-case word, as export's `kind` member and `--type` write it.
    public var word: String {
        switch self {
        case .command: return "command"
        case .event: return "event"
        case .aclData: return "acl"
        case .scoData: return "sco"
        case .isoData: return "iso"
        case .vendorDiagnostic: return "vendor_diagnostic"
        case .lmp: return "lmp"
        case .note: return "note"
        case .userLogging: return "user_logging"
        case .syslog: return "syslog"
        case .kernel: return "kernel"
        case .kernelDebug: return "kernel_debug"
        case .error: return "error"
        case .power: return "power"
        case .config: return "config"
        case .newController: return "new_controller"
        case .newIndex: return "new_index"
        case .deleteIndex: return "delete_index"
        case .openIndex: return "open_index"
        case .closeIndex: return "close_index"
        case .indexInfo: return "index_info"
        case .controlOpen: return "control_open"
        case .controlClose: return "control_close"
        case .controlCommand: return "control_command"
        case .controlEvent: return "control_event"
        case .linkControl: return "link_control"
        case .air(let type): return type.word
        case .unrecognized: return "unknown"
        }
    }

    /// Kinds whose payload is human-readable text.
    public var isText: Bool {
        switch self {
        case .note, .kernel, .kernelDebug, .error, .power, .config, .newController: return true
        default: return false
        }
    }
}

/// The pcap link types of over-the-air captures (tcpdump.org's LINKTYPE_ list): what the
/// record holds in front of the packet taken from the air.
public enum AirLinkType: Int32, Sendable, CaseIterable {
    /// The LE link-layer packet alone: access address, header, payload, CRC.
    case leLL = 251
    /// A 10-byte radio header (channel, signal and noise power, access-address offenses,
    /// reference access address, flags) in front of the LE link-layer packet.
    case leLLWithRadioHeader = 256
    /// Nordic's nRF Sniffer: a board byte, the sniffer's header (protocol version, counter,
    /// flags, channel, RSSI, event counter, time) in front of the LE link-layer packet.
    case nordicBLE = 272
    /// PPI (per-packet information) with the data link DLT_USER0 (147) for the LE link layer and
    /// Ubertooth's BTLE field (channel, clock, RSSI), as Ubertooth's older tools write it.
    case ppi = 192
    /// BR/EDR baseband packets (an Ubertooth following a piconet): a 22-byte pseudo-header
    /// (RF channel, signal, noise, access code offenses, transport and rate, corrected bits,
    /// LAP, reference LAP/UAP, the 18-bit packet header, flags) and the payload.
    case bredrBB = 255

    /// The kind as export's `kind` member and `--type` write it.
    public var word: String { self == .bredrBB ? "bredr_bb" : "le_ll" }
    /// An LE link-layer packet (not BR/EDR baseband).
    public var isLE: Bool { self != .bredrBB }
}

/// The H4 (UART) packet indicator of each HCI kind: the byte btsnoop 1002, pcap 187/201
/// and Android's logs put in front of the packet.
public enum H4 {
    public static func indicator(for kind: FrameKind) -> UInt8? {
        switch kind {
        case .command: return 0x01
        case .aclData: return 0x02
        case .scoData: return 0x03
        case .event: return 0x04
        case .isoData: return 0x05
        default: return nil
        }
    }

    public static func kind(for indicator: UInt8) -> FrameKind? {
        switch indicator {
        case 0x01: return .command
        case 0x02: return .aclData
        case 0x03: return .scoData
        case 0x04: return .event
        case 0x05: return .isoData
        default: return nil
        }
    }

    /// Direction implied by the packet type where the transport does not record one.
    public static func impliedDirection(for kind: FrameKind) -> Direction {
        switch kind {
        case .command: return .sent
        case .event: return .received
        default: return .none
        }
    }
}

/// The Linux HCI monitor channel's opcodes (btsnoop datalink 2001, pcap link type 254 and
/// the live monitor socket all use them).
public enum MonitorOpcode {
    public static func opcode(for kind: FrameKind, direction: Direction) -> UInt16? {
        switch kind {
        case .newIndex: return 0
        case .deleteIndex: return 1
        case .command: return 2
        case .event: return 3
        case .aclData: return direction == .received ? 5 : 4
        case .scoData: return direction == .received ? 7 : 6
        case .openIndex: return 8
        case .closeIndex: return 9
        case .indexInfo: return 10
        case .vendorDiagnostic, .lmp: return 11
        case .note: return 12
        case .userLogging: return 13
        case .controlOpen: return 14
        case .controlClose: return 15
        case .controlCommand: return 16
        case .controlEvent: return 17
        case .isoData: return direction == .received ? 19 : 18
        case .unrecognized(let code): return code
        default: return nil
        }
    }

    public static func kind(for opcode: UInt16) -> (FrameKind, Direction) {
        switch opcode {
        case 0: return (.newIndex, .none)
        case 1: return (.deleteIndex, .none)
        case 2: return (.command, .sent)
        case 3: return (.event, .received)
        case 4: return (.aclData, .sent)
        case 5: return (.aclData, .received)
        case 6: return (.scoData, .sent)
        case 7: return (.scoData, .received)
        case 8: return (.openIndex, .none)
        case 9: return (.closeIndex, .none)
        case 10: return (.indexInfo, .none)
        case 11: return (.vendorDiagnostic, .received)
        case 12: return (.note, .none)
        case 13: return (.userLogging, .none)
        case 14: return (.controlOpen, .none)
        case 15: return (.controlClose, .none)
        case 16: return (.controlCommand, .sent)
        case 17: return (.controlEvent, .received)
        case 18: return (.isoData, .sent)
        case 19: return (.isoData, .received)
        default: return (.unrecognized(opcode), .none)
        }
    }
}

/// Timestamp arithmetic that holds for any 64-bit value a file may contain.
public enum Microseconds {
    /// Whole seconds (rounded down) and the microseconds past them (0 ..< 1,000,000).
    public static func split(_ micros: Int64) -> (seconds: Int64, micros: Int64) {
        let seconds = micros / 1_000_000, rest = micros % 1_000_000
        return rest < 0 ? (seconds - 1, rest + 1_000_000) : (seconds, rest)
    }

    /// seconds * 1,000,000 + micros, clamped to the representable range: a pcapng timestamp
    /// is 64 bits of any unit, so a corrupt one can exceed what microseconds since 1970 hold.
    public static func combine(seconds: Int64, micros: Int64) -> Int64 {
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, carry) = scaled.addingReportingOverflow(micros)
        return carry ? (micros < 0 ? .min : .max) : sum
    }

    /// "1557356668.123456": seconds with six decimals, as `--fields` and JSON write times.
    public static func secondsText(_ micros: Int64) -> String { ASCII.string(capacity: 24) { appendSeconds(micros, to: &$0) } }

    public static func appendSeconds<O: ASCIIOutput>(_ micros: Int64, to out: inout O) {
        if micros < 0 { out.put(UInt8(ascii: "-")) }
        let magnitude = micros.magnitude
        ASCII.appendDecimal(magnitude / 1_000_000, width: 1, to: &out)
        out.put(UInt8(ascii: "."))
        ASCII.appendDecimal(magnitude % 1_000_000, width: 6, to: &out)
    }

    /// a - b, clamped to the representable range instead of trapping.
    public static func difference(_ a: Int64, _ b: Int64) -> Int64 {
        let (value, overflow) = a.subtractingReportingOverflow(b)
        return overflow ? (a < b ? .min : .max) : value
    }
}

/// Arithmetic on numbers read from a capture (times, lengths, counters): a mutated file must
/// never trap, so sums and differences stop at the type's ends instead of overflowing.
extension FixedWidthInteger {
    @inline(__always)
    public func saturatingAdd(_ other: Self) -> Self {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other < 0 ? .min : .max) : sum
    }

    @inline(__always)
    public func saturatingSubtract(_ other: Self) -> Self {
        let (difference, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other < 0 ? .max : .min) : difference
    }

    @inline(__always)
    public func saturatingMultiply(_ other: Self) -> Self {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        return overflow ? ((self < 0) != (other < 0) ? .min : .max) : product
    }
}
