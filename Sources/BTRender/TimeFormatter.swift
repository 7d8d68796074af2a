import BTCapture
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The time column: PacketLogger's "May 08 23:04:39.824" (local time) by default.
public struct TimeFormatter {
    public enum Mode: String, CaseIterable, Sendable {
        /// Month, day and time of day in local time, milliseconds.
        case abs
        /// Seconds since the first packet.
        case rel
        /// Seconds since the previous packet.
        case delta
        /// Seconds since the Unix epoch, microseconds.
        case epoch
    }

    public let mode: Mode
    var first: Int64?
    var previous: Int64?
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    public init(mode: Mode) { self.mode = mode }

    public mutating func format(_ micros: Int64) -> String {
        defer { previous = micros; if first == nil { first = micros } }
        switch mode {
        case .abs:
            let split = Microseconds.split(micros)
            var seconds = time_t(split.seconds)
            let millis = Int(split.micros / 1000)
            var parts = tm()
            localtime_r(&seconds, &parts)
            let month = TimeFormatter.months[Int(parts.tm_mon) % 12]
            return "\(month) \(pad(Int(parts.tm_mday), 2)) \(pad(Int(parts.tm_hour), 2)):\(pad(Int(parts.tm_min), 2)):\(pad(Int(parts.tm_sec), 2)).\(pad(millis, 3))"
        case .rel:
            return TimeFormatter.seconds(Microseconds.difference(micros, first ?? micros))
        case .delta:
            return TimeFormatter.seconds(Microseconds.difference(micros, previous ?? micros))
        case .epoch:
            return TimeFormatter.seconds(micros)
        }
    }

    /// "12.345678", sign included, microseconds always shown.
    public static func seconds(_ micros: Int64) -> String {
        let sign = micros < 0 ? "-" : ""
        let magnitude = micros.magnitude
        return "\(sign)\(magnitude / 1_000_000).\(pad(Int(magnitude % 1_000_000), 6))"
    }
}

@inline(__always) func pad(_ value: Int, _ width: Int) -> String {
    let digits = String(value)
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
}
