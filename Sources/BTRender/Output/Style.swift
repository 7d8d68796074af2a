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
        switch Tint(for: packet) {
        case .error?: return Style.red
        case .warning?: return Style.yellow
        case .sent?: return Style.blue
        case .received?: return Style.magenta
        case .text?: return Style.green
        case nil: return nil
        }
    }

    /// What a packet's row is coloured by, whatever draws it (ANSI here, a terminal's cells in
    /// `btlog browse`): its worst issue, else its direction, else text and system frames.
    public enum Tint: Sendable, Equatable {
        case error, warning, sent, received, text

        public init?(for packet: Packet) {
            if packet.hasError { self = .error; return }
            if packet.hasWarning { self = .warning; return }
            switch packet.frame.direction {
            case .sent: self = .sent
            case .received: self = .received
            case .none:
                guard packet.frame.kind.isText || packet.frame.kind == .syslog else { return nil }
                self = .text
            }
        }
    }
}
