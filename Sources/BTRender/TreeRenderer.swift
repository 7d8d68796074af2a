import BTCapture
import BTDecode
import BTQuery

/// PacketLogger's hierarchical view: every layer of a packet, highest first, with all its
/// fields; issues below; `-x` adds the bytes as hex and ASCII.
public struct TreeRenderer: PacketRenderer {
    var options: RenderOptions
    var table: TableRenderer

    /// Byte fields longer than this show their first `shownBytes` bytes and their length.
    static let longBytes = 64, shownBytes = 32

    public init(options: RenderOptions) {
        self.options = options
        var plain = options
        plain.width = nil
        self.table = TableRenderer(options: plain)
    }

    public mutating func render(_ packet: Packet, to out: OutputWriter) throws {
        if options.style.enabled {
            try out.line(table.row(packet))
        } else {
            table.build(packet)
            try out.line(bytes: table.line)
        }
        for layer in packet.layers.reversed() {
            out.append("    ")
            if options.style.enabled {
                out.append(options.style.paint(padded(layer.name, 12), Style.bold))
            } else {
                out.append(layer.name)
                out.appendSpaces(12 - layer.name.count)
            }
            out.append(" ▼ ")
            out.append(layer.summary)
            try out.endLine()
            for field in layer.fields {
                out.append("        ")
                out.append(field.definition.label)
                out.append(": ")
                if let display = field.display { out.append(display) } else { field.value.appendDisplay(to: out) }
                try out.endLine()
            }
        }
        for issue in packet.issues {
            let label = issue.severity == .error ? "Error" : issue.severity == .warning ? "Warning" : "Note"
            try out.line("    " + options.style.paint("\(label): \(issue.message)", issue.severity == .error ? Style.red : Style.yellow))
        }
        if options.hex {
            for line in HexDump.lines(packet.frame.bytes) { try out.line("    " + line) }
            if let pdu = packet.reassembledPDU {
                try out.line("    Reassembled (\(pdu.count) bytes):")
                for line in HexDump.lines(pdu) { try out.line("    " + line) }
            }
        }
        try out.line("")
    }

    public mutating func finish(_ statistics: CaptureStatistics, to out: OutputWriter) throws {
        try out.line(options.style.paint(statistics.statusLine, Style.bold))
    }
}

public enum HexDump {
    /// "00000000: 4400 0B00 0700 0400 0818 00FF FF03 28    D.............(" — 16 bytes a line.
    public static func lines(_ bytes: ArraySlice<UInt8>) -> [String] {
        var out: [String] = []
        var offset = 0
        let data = Array(bytes)
        while offset < data.count {
            let chunk = data[offset ..< min(offset + 16, data.count)]
            var line = Hex.format(UInt32(offset), width: 8).dropFirst(2) + ": "
            var hex = ""
            for (i, byte) in chunk.enumerated() {
                hex.append(Hex.digit(byte >> 4))
                hex.append(Hex.digit(byte & 0xF))
                if i % 2 == 1 { hex.append(" ") }
            }
            line += hex + String(repeating: " ", count: max(0, 40 - hex.count)) + " "
            line += String(chunk.map { $0 >= 0x20 && $0 < 0x7F ? Character(UnicodeScalar($0)) : "." })
            out.append(String(line))
            offset += 16
        }
        return out
    }
}

@inline(__always) func padded(_ text: String, _ width: Int) -> String {
    let count = text.count
    return count >= width ? text : text + String(repeating: " ", count: width - count)
}

extension FieldValue {
    /// Writes `displayText` straight into the output: most fields are numbers and byte
    /// strings, and the tree prints every one of them.
    func appendDisplay(to out: OutputWriter) {
        switch self {
        case .unsigned(let v, 0):
            appendDecimal(v, width: 1, to: &out.buffer)
        case .unsigned(let v, let width) where width <= 16:
            out.buffer.append(UInt8(ascii: "0"))
            out.buffer.append(UInt8(ascii: "x"))
            for i in stride(from: width - 1, through: 0, by: -1) {
                out.buffer.append(Hex.asciiDigits[Int(truncatingIfNeeded: v >> UInt64(i * 4)) & 0xF])
            }
        case .signed(let v):
            if v < 0 { out.buffer.append(UInt8(ascii: "-")) }
            appendDecimal(v.magnitude, width: 1, to: &out.buffer)
        case .bytes(let bytes):
            // A long payload shows its start, as tshark's tree does; -x prints every byte.
            let shown = bytes.count > TreeRenderer.longBytes ? bytes.prefix(TreeRenderer.shownBytes) : bytes
            var first = true
            for byte in shown {
                if !first { out.buffer.append(UInt8(ascii: " ")) }
                first = false
                Hex.append(byte, to: &out.buffer)
            }
            if shown.count < bytes.count {
                out.append(" … (")
                appendDecimal(UInt64(bytes.count), width: 1, to: &out.buffer)
                out.append(" bytes)")
            }
        case .address(let address):
            withUnsafeBytes(of: address.bytes) { raw in
                for i in 0 ..< 6 {
                    if i > 0 { out.buffer.append(UInt8(ascii: ":")) }
                    Hex.append(raw[i], to: &out.buffer)
                }
            }
        default:
            out.append(displayText)
        }
    }
}
