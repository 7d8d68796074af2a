/// Produces the Frames of one capture, one at a time, in file order.
public protocol FrameReader: AnyObject {
    /// The next Frame, or nil at the end of the capture. Damage that ends the capture early
    /// (a truncated last record) is reported through `warnings`, not thrown.
    func next() throws -> Frame?
    /// Human-readable name of the format, e.g. "btsnoop (datalink 1002, HCI UART)".
    var formatDescription: String { get }
    /// The writer format that keeps everything this input can hold.
    var nativeFormat: CaptureFileFormat { get }
    /// Warnings produced so far; the caller drains them.
    var warnings: [CaptureWarning] { get set }
    /// Whether there are any: asked after every frame, so answered without copying the list.
    var hasWarnings: Bool { get }
    /// Whether reading it is work enough to be worth a thread of its own beside the decoding
    /// (a merge's: several captures read, their PDUs paired), where a CPU is free for it.
    var worthItsOwnThread: Bool { get }
    /// Keys found in the captures before their first frame is given: what the frames' decoder
    /// knows from the start (a merge reads every source whole to align the clocks).
    var keysAhead: KeysAhead { get }
}

extension FrameReader {
    public var hasWarnings: Bool { !warnings.isEmpty }
    public var worthItsOwnThread: Bool { false }
    public var keysAhead: KeysAhead { KeysAhead() }
}

/// Keys a reader found ahead of the frames it gives: a key one capture shows unlocks another
/// from its first packet. (Long-term keys are not among them: the air's decoder takes those from
/// the host's own command, which comes before the link's encryption starts, and says so.)
public struct KeysAhead: Sendable, Equatable {
    /// An identity resolving key, most significant octet first, with the identity address
    /// SMP sent after it (Identity Address Information), where one did.
    public struct IdentityKey: Sendable, Equatable {
        public var irk: [UInt8]
        public var address: BDAddr?

        public init(irk: [UInt8], address: BDAddr?) {
            self.irk = irk
            self.address = address
        }
    }

    public var identityKeys: [IdentityKey] = []

    public init(identityKeys: [IdentityKey] = []) { self.identityKeys = identityKeys }

    public var isEmpty: Bool { identityKeys.isEmpty }

    /// The other's keys not already here, after these (an address a key lacked filled in).
    public mutating func add(_ other: KeysAhead) {
        for key in other.identityKeys {
            if let index = identityKeys.firstIndex(where: { $0.irk == key.irk }) {
                if identityKeys[index].address == nil { identityKeys[index].address = key.address }
            } else if identityKeys.count < Self.mostIdentityKeys {
                identityKeys.append(key)
            }
        }
    }

    /// As many as a decoder keeps (PrivateAddresses): each new address is tried against each.
    public static let mostIdentityKeys = 256
}

/// A reader over another reader (look-ahead, redaction, progress): the format and the
/// warnings are the other reader's.
public protocol FrameReaderWrapper: FrameReader {
    var base: FrameReader { get }
}

extension FrameReaderWrapper {
    public var formatDescription: String { base.formatDescription }
    public var nativeFormat: CaptureFileFormat { base.nativeFormat }
    public var warnings: [CaptureWarning] {
        get { base.warnings }
        set { base.warnings = newValue }
    }
    public var hasWarnings: Bool { base.hasWarnings }
    public var worthItsOwnThread: Bool { base.worthItsOwnThread }
    public var keysAhead: KeysAhead { base.keysAhead }
}

/// A reader that can show the frames after the current one: the link layer looks at what
/// follows a damaged packet before deciding how to show it. A failure met while looking ahead
/// is thrown when reading reaches it, so nothing is lost or reordered.
public final class LookaheadReader: FrameReaderWrapper {
    public let base: FrameReader
    var buffered: [Frame] = []
    var pendingError: Error?
    var ended = false
    /// How far ahead anyone may look.
    public static let limit = 8

    public init(_ base: FrameReader) { self.base = base }

    /// Asked after every frame. Its own, not the wrapper protocol's: that one reads `base`
    /// through the protocol's getter, which hands out a retained reference (a retain and a
    /// release a packet); the stored property is read in place.
    public var hasWarnings: Bool { base.hasWarnings }

    public func next() throws -> Frame? {
        if !buffered.isEmpty { return buffered.removeFirst() }
        if let error = pendingError {
            pendingError = nil
            throw error
        }
        if ended { return nil }
        return try base.next()
    }

    /// The frame `distance` after the last one returned (1: the next), if the input has it.
    public func peek(_ distance: Int) -> Frame? {
        guard distance >= 1, distance <= Self.limit else { return nil }
        while buffered.count < distance, pendingError == nil, !ended {
            do {
                if let frame = try base.next() { buffered.append(frame) } else { ended = true }
            } catch {
                pendingError = error
            }
        }
        return distance <= buffered.count ? buffered[distance - 1] : nil
    }
}

/// Frames already decoded into memory (btsnooz sections, which are small ring buffers; the live monitor's replay).
public final class ArrayFrameReader: FrameReader {
    let frames: [Frame]
    var index = 0
    public var warnings: [CaptureWarning] = []
    public let formatDescription: String
    public let nativeFormat: CaptureFileFormat

    public init(frames: [Frame], formatDescription: String, nativeFormat: CaptureFileFormat) {
        self.frames = frames
        self.formatDescription = formatDescription
        self.nativeFormat = nativeFormat
    }

    public func next() throws -> Frame? {
        guard index < frames.count else { return nil }
        index += 1
        return frames[index - 1]
    }
}

/// How a multi-record source counts frames and hands out warnings.
public class FrameReaderBase {
    public var warnings: [CaptureWarning] = []
    public var hasWarnings: Bool { !warnings.isEmpty }
    var count = 0
    let name: String
    init(name: String) { self.name = name }

    func nextNumber() -> Int {
        count += 1
        return count
    }

    func warn(_ text: String) { warnings.append(CaptureWarning("\(name): \(text)")) }
}

/// The formats btlog writes.
public enum CaptureFileFormat: String, CaseIterable, Sendable {
    /// btsnoop datalink 1001: HCI packets without a type byte (only commands, events, ACL).
    case btsnoopHCI = "btsnoop-hci"
    /// btsnoop datalink 1002: H4 (UART) packets, as Android writes.
    case btsnoopH4 = "btsnoop"
    /// btsnoop datalink 2001: Linux monitor frames with controller index, as `btmon -w` writes.
    case btsnoopMonitor = "btsnoop-monitor"
    /// Apple PacketLogger, little-endian layout.
    case pklg
    /// pcap, link type 201 (BLUETOOTH_HCI_H4_WITH_PHDR).
    case pcapH4 = "pcap"
    /// pcap, link type 254 (BLUETOOTH_LINUX_MONITOR).
    case pcapMonitor = "pcap-monitor"
    /// pcapng with one interface of link type 254.
    case pcapng
    /// pcap of packets from the air, link type 251 (BLUETOOTH_LE_LL).
    case pcapLELL = "pcap-le-ll"
    /// pcap of packets from the air, link type 256 (BLUETOOTH_LE_LL_WITH_PHDR).
    case pcapLELLWithRadioHeader = "pcap-le-ll-phdr"
    /// pcap of packets from the air, link type 272 (NORDIC_BLE, the nRF Sniffer's).
    case pcapNordicBLE = "pcap-nordic-ble"
    /// pcap of packets from the air, link type 192 (PPI) around the LE link layer (Ubertooth).
    case pcapPPI = "pcap-ppi"
    /// pcap of BR/EDR baseband packets from the air, link type 255 (BLUETOOTH_BREDR_BB).
    case pcapBREDRBB = "pcap-bredr-bb"
}
