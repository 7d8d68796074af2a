import BTCapture
import BTDecode
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A moment as a person writes it in a filter: seconds since the epoch (1557356668.5), a local
/// date and time (2019-05-08 23:04:39.8, with T or a space, Z for UTC), or a time of day
/// (23:04:39.8) on the day the capture starts, as the table's time column shows it.
enum TimeLiteral: Equatable {
    case absolute(Int64)
    /// Microseconds after local midnight.
    case timeOfDay(Int64)

    static func parse(_ text: String) -> TimeLiteral? {
        if case .time(let t)? = FieldValue.parse(text, as: .time) { return .absolute(t) }
        var rest = Substring(text.trimmingWhitespace)
        var date: (year: Int, month: Int, day: Int)?
        if rest.count >= 10, rest[rest.index(rest.startIndex, offsetBy: 4)] == "-" {
            let parts = rest.prefix(10).split(separator: "-")
            guard parts.count == 3, let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
                  (1 ... 12).contains(m), (1 ... 31).contains(d) else { return nil }
            date = (y, m, d)
            rest = rest.dropFirst(10)
            if let first = rest.first {
                guard first == "T" || first == " " else { return nil }
                rest = rest.dropFirst()
            }
        }
        var utc = false
        if rest.last == "Z" { utc = true; rest = rest.dropLast() }
        guard let ofDay = timeOfDay(rest.isEmpty && date != nil ? "00:00" : rest) else { return nil }
        guard let date else { return utc ? nil : .timeOfDay(ofDay) }
        var parts = tm()
        parts.tm_year = Int32(date.year - 1900)
        parts.tm_mon = Int32(date.month - 1)
        parts.tm_mday = Int32(date.day)
        parts.tm_isdst = -1
        let midnight = Int64(utc ? timegm(&parts) : mktime(&parts))
        return .absolute(midnight * 1_000_000 + ofDay)
    }

    /// "HH:MM", "HH:MM:SS" or "HH:MM:SS.ffffff" → microseconds after midnight.
    private static func timeOfDay(_ text: Substring) -> Int64? {
        let pieces = text.split(separator: ":", omittingEmptySubsequences: false)
        guard pieces.count == 2 || pieces.count == 3,
              let hours = Int64(pieces[0]), let minutes = Int64(pieces[1]), (0 ..< 24).contains(hours), (0 ..< 60).contains(minutes)
        else { return nil }
        var micros = (hours * 3600 + minutes * 60) * 1_000_000
        if pieces.count == 3 {
            guard let seconds = SecondsLiteral.parse(String(pieces[2])), seconds >= 0, seconds < 61_000_000 else { return nil }
            micros += seconds
        }
        return micros
    }

    /// The moment this names for a capture whose first packet is at `start`: a time of day is
    /// taken on the local date of the first packet, or the day after when that is more than
    /// twelve hours before it (a capture running past midnight).
    func resolved(captureStart start: Int64) -> Int64 {
        switch self {
        case .absolute(let t): return t
        case .timeOfDay(let ofDay):
            var seconds = time_t(Microseconds.split(start).seconds)
            var parts = tm()
            localtime_r(&seconds, &parts)
            parts.tm_hour = 0
            parts.tm_min = 0
            parts.tm_sec = 0
            parts.tm_isdst = -1
            var moment = Int64(mktime(&parts)) * 1_000_000 + ofDay
            if moment < start - 12 * 3600 * 1_000_000 { moment += 24 * 3600 * 1_000_000 }
            return moment
        }
    }
}

/// Seconds with up to six decimals ("12.5", "-3", "0.000250") as microseconds.
enum SecondsLiteral {
    static func parse(_ text: String) -> Int64? {
        var digits = Substring(text.trimmingWhitespace)
        var negative = false
        if digits.first == "-" { negative = true; digits = digits.dropFirst() }
        let halves = digits.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = halves.first, !whole.isEmpty, whole.allSatisfy({ $0.isASCII && $0.isNumber }),
              whole.count <= 12, let seconds = Int64(whole) else { return nil }
        var micros = seconds * 1_000_000
        if halves.count == 2 {
            let fraction = halves[1]
            guard !fraction.isEmpty, fraction.count <= 6, fraction.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let value = Int64(fraction) else { return nil }
            micros += value * [1, 100_000, 10_000, 1_000, 100, 10, 1][fraction.count]
        }
        return negative ? -micros : micros
    }
}

