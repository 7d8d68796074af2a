import BTCapture
import BTDecode

/// ANSI colour, on only when asked for (or when the output is a terminal and NO_COLOR is unset).
public struct Style: Sendable, Equatable {
    public var enabled: Bool
    public init(enabled: Bool) { self.enabled = enabled }

    public static let red = "\u{1B}[31m", green = "\u{1B}[32m", yellow = "\u{1B}[33m", blue = "\u{1B}[34m"
    public static let magenta = "\u{1B}[35m", cyan = "\u{1B}[36m", dim = "\u{1B}[2m", bold = "\u{1B}[1m"
    public static let reset = "\u{1B}[0m"

    public func paint(_ text: String, _ code: String) -> String {
        enabled && !text.isEmpty ? code + text + Style.reset : text
    }

    /// Errors red, warnings yellow; otherwise sent blue, received magenta, the rest plain.
    public func colour(for packet: Packet) -> String? {
        if packet.hasError { return Style.red }
        if packet.hasWarning { return Style.yellow }
        switch packet.frame.direction {
        case .sent: return Style.blue
        case .received: return Style.magenta
        case .none: return packet.frame.kind.isText || packet.frame.kind == .syslog ? Style.green : nil
        }
    }
}
