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
    /// The local date and time of day of the last second formatted ("May 08 23:04:28"):
    /// consecutive packets mostly share their second, and localtime_r is slow.
    var cachedSecond: Int64 = .min
    var cachedPrefix: [UInt8] = []
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    public init(mode: Mode) { self.mode = mode }

    public mutating func format(_ micros: Int64) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(24)
        append(micros, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the time as ASCII to a line being built.
    public mutating func append<O: ASCIIOutput>(_ micros: Int64, to out: inout O) {
        defer { previous = micros; if first == nil { first = micros } }
        switch mode {
        case .abs:
            let split = Microseconds.split(micros)
            if split.seconds != cachedSecond {
                cachedSecond = split.seconds
                var seconds = time_t(split.seconds)
                var parts = tm()
                localtime_r(&seconds, &parts)
                cachedPrefix.removeAll(keepingCapacity: true)
                cachedPrefix.append(contentsOf: TimeFormatter.months[Int(parts.tm_mon) % 12].utf8)
                cachedPrefix.append(UInt8(ascii: " "))
                ASCII.appendDecimal(UInt64(parts.tm_mday), width: 2, to: &cachedPrefix)
                cachedPrefix.append(UInt8(ascii: " "))
                ASCII.appendDecimal(UInt64(parts.tm_hour), width: 2, to: &cachedPrefix)
                cachedPrefix.append(UInt8(ascii: ":"))
                ASCII.appendDecimal(UInt64(parts.tm_min), width: 2, to: &cachedPrefix)
                cachedPrefix.append(UInt8(ascii: ":"))
                ASCII.appendDecimal(UInt64(parts.tm_sec), width: 2, to: &cachedPrefix)
                cachedPrefix.append(UInt8(ascii: "."))
            }
            cachedPrefix.withUnsafeBufferPointer { out.put($0) }
            ASCII.appendDecimal(UInt64(split.micros / 1000), width: 3, to: &out)
        case .rel:
            Microseconds.appendSeconds(Microseconds.difference(micros, first ?? micros), to: &out)
        case .delta:
            Microseconds.appendSeconds(Microseconds.difference(micros, previous ?? micros), to: &out)
        case .epoch:
            Microseconds.appendSeconds(micros, to: &out)
        }
    }
}
