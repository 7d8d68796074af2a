/// BlueZ's monitor protocol over a serial line: what btmon `-d/--tty` reads, and what embedded
/// stacks write to a UART (Zephyr's CONFIG_BT_DEBUG_MONITOR_UART, NimBLE's monitor, others).
///
/// Each frame: data length (16 bits, little-endian: everything after this field), opcode (the
/// monitor's: 2 command, 3 event, 4/5 ACL, 12 system note, 13 user logging, ...), flags,
/// extended header length, the extended header (type-value pairs: drop counters since the
/// last frame, one octet each, types 1-7; a 32-bit timestamp in units of 100 µs, type 8), and
/// the payload a monitor socket would carry. The line has no controller index: every frame is
/// hci0's, as btmon records it.
public enum SerialMonitor {
    /// data length (2), opcode (2), flags (1), extended header length (1).
    public static let headerSize = 6
    /// The highest opcode the monitor protocol defines (19: ISO data received).
    public static let highestOpcode: UInt16 = 19

    public enum Extension: UInt8, CaseIterable, Sendable {
        case commandDrops = 1, eventDrops, aclSentDrops, aclReceivedDrops, scoSentDrops, scoReceivedDrops, otherDrops
        case timestamp = 8

        /// How a drop counter is named in a warning.
        var dropName: String {
            switch self {
            case .commandDrops: return "commands"
            case .eventDrops: return "events"
            case .aclSentDrops: return "ACL sent"
            case .aclReceivedDrops: return "ACL received"
            case .scoSentDrops: return "SCO sent"
            case .scoReceivedDrops: return "SCO received"
            case .otherDrops: return "other"
            case .timestamp: return "timestamp"
            }
        }
    }

    /// One frame as a board writes it: the timestamp (100 µs units) and drop counters in the
    /// extended header when given (tests, and re-encoding captures for the serial path).
    public static func encode(opcode: UInt16, payload: [UInt8], timestamp: UInt32? = nil,
                              drops: [(Extension, UInt8)] = [], flags: UInt8 = 0) -> [UInt8] {
        var extended: [UInt8] = []
        for (type, count) in drops { extended += [type.rawValue, count] }
        if let timestamp {
            extended.append(Extension.timestamp.rawValue)
            extended.appendLE(timestamp)
        }
        var out: [UInt8] = []
        out.appendLE(UInt16(truncatingIfNeeded: 4 + extended.count + payload.count))
        out.appendLE(opcode)
        out.append(flags)
        out.append(UInt8(truncatingIfNeeded: extended.count))
        return out + extended + payload
    }

    /// Whether a payload of `n` bytes, starting with `p` (its first four bytes, or all of it if
    /// shorter), is what the opcode carries: an HCI packet whose own length field says `n`, an
    /// index frame of its fixed size. On a line with noise this is what tells a real frame from
    /// bytes that only look like a header, before waiting for a length that noise announced.
    static func payloadFits(opcode: UInt16, prefix p: ArraySlice<UInt8>, length n: Int) -> Bool {
        let s = p.startIndex
        func le16(_ at: Int) -> Int { Int(p[s + at]) | Int(p[s + at + 1]) << 8 }
        switch opcode {
        case 0: return n == 16                                    // New Index: type, bus, address, name
        case 1, 8, 9: return n == 0                               // Delete, Open, Close Index
        case 10: return n == 8                                    // Index Info: address, manufacturer
        case 2: return n >= 3 && Int(p[s + 2]) == n - 3           // command
        case 3: return n >= 2 && Int(p[s + 1]) == n - 2           // event
        case 4, 5: return n >= 4 && le16(2) == n - 4              // ACL
        case 6, 7: return n >= 3 && Int(p[s + 2]) == n - 3        // SCO
        case 18, 19: return n >= 4 && le16(2) & 0x3FFF == n - 4   // ISO
        case 13: return n >= 2 && p[s] <= 7 && 2 + Int(p[s + 1]) <= n && n <= maximumOtherPayload  // User Logging: priority, ident length, ident, text
        case 12: return n <= maximumOtherPayload                 // System Note: text
        case 15: return n == 4                                    // Control Close: cookie
        case 14: return n >= 14 && n <= maximumOtherPayload        // Control Open: cookie, format, version, flags, ident length, ident
        case 11, 16, 17: return n <= maximumOtherPayload           // vendor diagnostic; control command, event: cookie, opcode, parameters
        default: return false
        }
    }

    /// What the payload of a frame whose length fields agreed must also be, where its length
    /// fields say little: text that is text (a note, a log line), a control frame's lengths,
    /// flags 0 where the payload is free-form. `p` may be the payload's first part only (while
    /// the rest is on its way): a part that fails already is noise without waiting for more.
    static func payloadValid(opcode: UInt16, flags: UInt8, _ p: ArraySlice<UInt8>, complete: Bool) -> Bool {
        func isText(_ bytes: ArraySlice<UInt8>) -> Bool {
            // Printable ASCII, tabs and line ends, terminal colours (ESC: the kernel's testers
            // log in colour), UTF-8's bytes above 0x7F, a terminating NUL.
            var body = bytes
            if complete, body.last == 0 { body = body.dropLast() }
            return body.allSatisfy { $0 >= 0x20 && $0 != 0x7F || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0x1B }
        }
        let s = p.startIndex
        switch opcode {
        case 12: return isText(p)
        case 13:
            guard p.count >= 2 else { return true }
            let identEnd = s + 2 + Int(p[s + 1])
            let ident = p[(s + 2) ..< min(identEnd, p.endIndex)]
            // The ident ends with its NUL inside its length; the message is text after it.
            if identEnd <= p.endIndex, let last = ident.last, last != 0 { return false }
            return isText(ident.dropLast(identEnd <= p.endIndex ? 1 : 0)) && (identEnd >= p.endIndex || isText(p[identEnd...]))
        case 14:
            guard p.count >= 14 else { return true }
            return !complete || 14 + Int(p[s + 13]) == p.count
        case 11, 15, 16, 17: return flags == 0
        default: return true
        }
    }

    /// A note, a log line, a vendor diagnostic or a control frame longer than this is taken
    /// for noise: a board's log lines and notes are short, and a frame announcing 60 KiB of
    /// text would hold up every real frame behind it until that much arrived.
    static let maximumOtherPayload = 4096
}

/// A reader of a byte stream that skips what is not a packet (a serial line's noise), and counts it.
public protocol NoiseSkipping: AnyObject {
    /// Bytes skipped because they were not a frame.
    var skippedBytes: Int { get }
}

/// Reads the serial monitor protocol from a byte stream (a serial line, or a file of its bytes),
/// finding frames again after noise: a header is taken only when its lengths agree with each
/// other and with the payload it announces; otherwise one byte is skipped and counted.
///
/// Timestamps are the board's where it sends them (type 8, 100 µs units, unwrapped across
/// the 32-bit counter's wrap every 4.97 days), placed on the wall clock at the first one's
/// arrival; frames without one get their arrival time.
public final class SerialMonitorReader: FrameReaderBase, FrameReader, NoiseSkipping {
    let input: BufferedReader
    /// The wall clock (µs since the Unix epoch) when the bytes read last arrived.
    let arrival: () -> Int64
    /// Board time (100 µs units, unwrapped) → wall clock: set by the first timestamp.
    private var anchor: (board: Int64, wall: Int64)?
    private var lastBoardTime: UInt32?
    private var boardTimeWraps: Int64 = 0
    /// Drops the board reported (extended header counters), in total.
    public private(set) var drops: UInt32 = 0
    /// Bytes skipped because they were not a frame (noise, or a line at the wrong speed).
    public private(set) var skippedBytes = 0
    private var skippedSinceFrame = 0
    private var nextNoiseNotice = 256
    /// Told how many bytes were skipped since the last frame, at 256 and every sixteenfold
    /// after: a line at the wrong speed gives only noise, and `next()` would say nothing until
    /// a frame came.
    public var noticeNoise: ((Int) -> Void)?

    public init(_ input: BufferedReader, name: String, arrival: @escaping () -> Int64) {
        self.input = input
        self.arrival = arrival
        super.init(name: name)
    }

    public var formatDescription: String { "BlueZ monitor over serial" }
    public var nativeFormat: CaptureFileFormat { .btsnoopMonitor }

    public func next() throws -> Frame? {
        while try input.ensure(SerialMonitor.headerSize) {
            let header = input.peek(SerialMonitor.headerSize)
            let h = header.startIndex
            let dataLength = Int(header[h]) | Int(header[h + 1]) << 8
            let opcode = UInt16(header[h + 2]) | UInt16(header[h + 3]) << 8
            let extendedLength = Int(header[h + 5])
            guard opcode <= SerialMonitor.highestOpcode, dataLength >= 4 + extendedLength else {
                skip()
                continue
            }
            let payloadLength = dataLength - 4 - extendedLength
            // The extended header and the payload's first bytes tell a frame from noise before
            // waiting for the whole length noise may have announced.
            let start = SerialMonitor.headerSize + extendedLength
            guard try input.ensure(start + min(payloadLength, 4)) else { break }
            let known = input.peek(start + min(payloadLength, 4))
            let flags = header[h + 4]
            guard let fields = parseExtended(known.dropFirst(SerialMonitor.headerSize).prefix(extendedLength)),
                  SerialMonitor.payloadFits(opcode: opcode, prefix: known.dropFirst(start), length: payloadLength),
                  SerialMonitor.payloadValid(opcode: opcode, flags: flags, input.peek(min(input.available, 2 + dataLength)).dropFirst(start),
                                             complete: input.available >= 2 + dataLength) else {
                skip()
                continue
            }
            guard try input.ensure(2 + dataLength) else { break }
            let payload = input.peek(2 + dataLength).dropFirst(start)
            guard SerialMonitor.payloadValid(opcode: opcode, flags: flags, payload, complete: true) else {
                skip()
                continue
            }
            // The reader's buffer slice, as the file readers hand theirs on: no copy per frame.
            return frame(opcode: opcode, payload: input.take(2 + dataLength).dropFirst(start), fields: fields)
        }
        if input.available > 0 {
            let left = input.available
            skippedBytes += left
            warn("the line ended inside a frame: its last \(left) byte\(left == 1 ? "" : "s") were not a whole frame")
        }
        return nil
    }

    private func skip() {
        input.skip(1)
        skippedBytes += 1
        skippedSinceFrame += 1
        if skippedSinceFrame == nextNoiseNotice {
            noticeNoise?(skippedSinceFrame)
            nextNoiseNotice = nextNoiseNotice.multipliedReportingOverflow(by: 16).partialValue
        }
    }

    /// The extended header's timestamp and drop counters; nil when it does not parse (an
    /// unknown type, a value cut short), which on a noisy line means this is no frame.
    private func parseExtended(_ bytes: ArraySlice<UInt8>) -> (timestamp: UInt32?, drops: [(SerialMonitor.Extension, UInt8)])? {
        var timestamp: UInt32?
        var drops: [(SerialMonitor.Extension, UInt8)] = []
        var i = bytes.startIndex
        while i < bytes.endIndex {
            guard let type = SerialMonitor.Extension(rawValue: bytes[i]) else { return nil }
            i += 1
            if type == .timestamp {
                guard bytes.endIndex - i >= 4 else { return nil }
                timestamp = UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24
                i += 4
            } else {
                guard i < bytes.endIndex else { return nil }
                drops.append((type, bytes[i]))
                i += 1
            }
        }
        return (timestamp, drops)
    }

    private func frame(opcode: UInt16, payload: ArraySlice<UInt8>, fields: (timestamp: UInt32?, drops: [(SerialMonitor.Extension, UInt8)])) -> Frame {
        let number = nextNumber()
        if skippedSinceFrame > 0 {
            warn("\(skippedSinceFrame) byte\(skippedSinceFrame == 1 ? "" : "s") that were no monitor frame skipped before frame \(number)")
            skippedSinceFrame = 0
            nextNoiseNotice = 256
        }
        let dropped = fields.drops.reduce(0) { $0 + Int($1.1) }
        if dropped > 0 {
            drops = drops &+ UInt32(dropped)
            let detail = fields.drops.filter { $0.1 > 0 }.map { "\($0.0.dropName) \($0.1)" }.joined(separator: ", ")
            warn("the board dropped \(dropped) frame\(dropped == 1 ? "" : "s") before frame \(number) (\(detail))")
        }
        var timestamp = arrival()
        if let board = fields.timestamp {
            if let last = lastBoardTime, board < last, last - board > UInt32.max / 2 { boardTimeWraps += 1 }
            lastBoardTime = board
            let unwrapped = boardTimeWraps << 32 | Int64(board)
            if anchor == nil { anchor = (unwrapped, timestamp) }
            if let anchor { timestamp = anchor.wall &+ (unwrapped &- anchor.board) &* 100 }
        }
        let (kind, direction) = MonitorOpcode.kind(for: opcode)
        return Frame(number: number, timestamp: timestamp, kind: kind, direction: direction, controller: 0,
                     bytes: payload, drops: drops)
    }
}
