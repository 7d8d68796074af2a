import BTCapture
import BTDecode
import BTQuery

/// `--collapse`: a run of consecutive packets that differ only in their counters (the same
/// Type, handle and summary once every decimal number is set aside; hex codes and handles
/// count as identity) prints as its first row with the run's length, "× 412". A packet with
/// an issue, a comment or a flag is never folded: it prints on its own.
public struct CollapsingSink: PacketSink {
    var inner: RenderingSink
    /// The first packet of the run being folded, and its length.
    private var held: Packet?
    private var heldShape: [UInt8] = []
    private var runLength = 0
    private let scratch = OutputWriter.capturing()
    /// "×" where the locale is UTF-8, "x" elsewhere.
    let times: String

    public init(_ inner: RenderingSink, times: String = "×") {
        self.inner = inner
        self.times = times
    }

    public mutating func consume(_ packet: Packet) throws {
        guard packet.worstSeverity == nil, packet.comment == nil, !packet.flagged else {
            try release()
            try inner.consume(packet)
            return
        }
        let shape = CollapsingSink.shape(of: packet)
        if held != nil, shape == heldShape {
            runLength += 1
            return
        }
        try release()
        held = packet
        heldShape = shape
        runLength = 1
    }

    public var runsOnItsOwnThread: Bool { inner.runsOnItsOwnThread }

    /// Prints the run being held, if any.
    mutating func release() throws {
        guard let first = held else { return }
        held = nil
        if runLength == 1 { return try inner.consume(first) }
        try inner.renderer.render(first, to: scratch)
        let count = runLength
        var row: [UInt8] = scratch.drain { Array($0) }
        if row.last == 0x0A { row.removeLast() }
        // The count goes after the row's first line (a comment line cannot follow: commented
        // packets are never folded).
        row.append(contentsOf: "  \(times) \(count)".utf8)
        try inner.out.line(bytes: row)
    }

    /// The view's ending, after the last run.
    public mutating func finish(_ statistics: CaptureStatistics) throws {
        try release()
        try inner.finish(statistics)
    }

    /// Type, handle and the summary with each decimal number that stands alone (not inside a
    /// word such as A2DP) replaced by '#'; hex codes written 0x... are kept.
    static func shape(of packet: Packet) -> [UInt8] {
        var shape = Array(packet.typeLabel.utf8)
        shape.append(0)
        if let handle = packet.handle { Hex.append(UInt64(handle), width: 4, to: &shape) }
        shape.append(0)
        guard let top = packet.layers.indices.last else { return shape }
        let summary = packet.layers[top].summary.bytes
        var index = 0
        while index < summary.count {
            let byte = summary[index]
            if byte == UInt8(ascii: "0"), index + 1 < summary.count, summary[index + 1] == UInt8(ascii: "x") {
                // A code or handle: part of what the packet is, kept whole.
                shape.append(contentsOf: [byte, summary[index + 1]])
                index += 2
                while index < summary.count, isHexDigit(summary[index]) { shape.append(summary[index]); index += 1 }
                continue
            }
            if isDigit(byte), index == 0 || !isLetter(summary[index - 1]) {
                // A count, a length, a measurement: 12, 0.812.
                while index < summary.count, isDigit(summary[index]) || (summary[index] == UInt8(ascii: ".")
                                                                           && index + 1 < summary.count && isDigit(summary[index + 1])) {
                    index += 1
                }
                shape.append(UInt8(ascii: "#"))
                continue
            }
            shape.append(byte)
            index += 1
        }
        return shape
    }

    private static func isHexDigit(_ b: UInt8) -> Bool { isDigit(b) || ((b | 0x20) >= 0x61 && (b | 0x20) <= 0x66) }
    private static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
    private static func isLetter(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }
}
