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
