import BTCapture
import BTDecode

/// The counts behind the closing status line, PacketLogger's
/// "1109 total (0 Err / 0 HCI / 0 ACL / 0 SCO / 0 Misc) Δ 0.443 s".
public struct CaptureStatistics: Sendable {
    public private(set) var packets = 0
    public private(set) var errors = 0
    public private(set) var warnings = 0
    public private(set) var commands = 0
    public private(set) var events = 0
    public private(set) var acl = 0
    public private(set) var sco = 0
    public private(set) var iso = 0
    /// Packets taken from the air by a sniffer: the LE link layer, and BR/EDR baseband.
    public private(set) var air = 0
    public private(set) var baseband = 0
    public private(set) var other = 0
    public private(set) var firstTimestamp: Int64?
    public private(set) var lastTimestamp: Int64?
    public private(set) var drops: UInt32 = 0
    /// Records the capture cut short (original length above what it kept), the bytes it left
    /// out, and the first 20 such records.
    public private(set) var truncated = 0
    public private(set) var truncatedBytes = 0
    public private(set) var truncatedFrames: [Int] = []

    public init() {}

    public mutating func add(_ packet: Packet) {
        packets += 1
        if packet.hasError { errors += 1 } else if packet.hasWarning { warnings += 1 }
        switch packet.frame.kind {
        case .command: commands += 1
        case .event: events += 1
        case .aclData: acl += 1
        case .scoData: sco += 1
        case .isoData: iso += 1
        case .air(.bredrBB): baseband += 1
        case .air: air += 1
        default: other += 1
        }
        let t = packet.frame.timestamp
        if firstTimestamp == nil || t < firstTimestamp! { firstTimestamp = t }
        if lastTimestamp == nil || t > lastTimestamp! { lastTimestamp = t }
        drops = max(drops, packet.frame.drops)
        if packet.frame.isTruncated {
            truncated += 1
            truncatedBytes = truncatedBytes.saturatingAdd(packet.frame.originalLength - packet.frame.bytes.count)
            if truncatedFrames.count < 20 { truncatedFrames.append(packet.frame.number) }
        }
    }

    /// Adds another run's counts (export of several captures ends with one status line).
    public mutating func merge(_ other: CaptureStatistics) {
        packets += other.packets
        errors += other.errors
        warnings += other.warnings
        commands += other.commands
        events += other.events
        acl += other.acl
        sco += other.sco
        iso += other.iso
        air += other.air
        baseband += other.baseband
        self.other += other.other
        if let t = other.firstTimestamp, firstTimestamp.map({ t < $0 }) ?? true { firstTimestamp = t }
        if let t = other.lastTimestamp, lastTimestamp.map({ t > $0 }) ?? true { lastTimestamp = t }
        drops = max(drops, other.drops)
        truncated += other.truncated
        truncatedBytes = truncatedBytes.saturatingAdd(other.truncatedBytes)
        truncatedFrames = Array((truncatedFrames + other.truncatedFrames).prefix(20))
    }

    /// Time from the earliest to the latest packet, in microseconds.
    public var span: Int64 { Microseconds.difference(lastTimestamp ?? 0, firstTimestamp ?? 0) }

    public var statusLine: String {
        var parts = ["\(packets) packet\(packets == 1 ? "" : "s") (\(errors) error\(errors == 1 ? "" : "s"))"]
        // An air capture has no HCI: its line counts what it has.
        if air + baseband < packets {
            parts += ["\(commands) HCI command\(commands == 1 ? "" : "s")", "\(events) event\(events == 1 ? "" : "s")", "\(acl) ACL", "\(sco) SCO"]
        }
        if iso > 0 { parts.append("\(iso) ISO") }
        if air > 0 { parts.append("\(air) LE link layer") }
        if baseband > 0 { parts.append("\(baseband) BR/EDR baseband") }
        parts.append("\(other) other")
        if drops > 0 { parts.append("\(drops) dropped") }
        let seconds = Double(span) / 1_000_000
        parts.append(String(format: "%.3f s", seconds))
        return parts.joined(separator: " · ")
    }
}
