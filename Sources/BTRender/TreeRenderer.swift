import BTCapture
import BTDecode
import BTQuery

/// PacketLogger's hierarchical view: every layer of a packet, highest first, with all its
/// fields; issues below; `-x` adds the bytes as hex and ASCII.
public struct TreeRenderer: PacketRenderer {
    var options: RenderOptions
    var table: TableRenderer

    public init(options: RenderOptions) {
        self.options = options
        var plain = options
        plain.width = nil
        self.table = TableRenderer(options: plain)
    }

    public mutating func render(_ packet: Packet, to out: OutputWriter) throws {
        try out.line(table.row(packet))
        for layer in packet.layers.reversed() {
            try out.line("    " + options.style.paint(padded(layer.name, 12), Style.bold) + " ▼ " + layer.summary)
            for field in layer.fields {
                try out.line("        \(field.definition.label): \(field.text)")
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
