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

    static let layerIndent = Array("    ".utf8), arrow = Array(" ▼ ".utf8)

    /// The tree adds only what the packet holds to its table row.
    public var renderedPacketAlone: Bool { table.renderedPacketAlone }
    public mutating func account(for packet: Packet) { table.account(for: packet) }

    public mutating func render(_ packet: Packet, to out: OutputWriter) throws {
        if options.style.enabled {
            try out.line(table.row(packet))
        } else {
            try table.render(packet, to: out)
        }
        let style = options.style
        // Layers and fields are read in place (through buffer pointers), not copied out one by one.
        try out.lines { text in
            packet.layers.withUnsafeBufferPointer { layers in
                for index in layers.indices.reversed() {
                    Self.layerIndent.withUnsafeBufferPointer { text.put($0) }
                    let name = layers[index].name
                    if style.enabled {
                        ASCII.append(style.paint(padded(name, 12), Style.bold), to: &text)
                    } else {
                        ASCII.append(name, to: &text)
                        ASCII.appendSpaces(12 - name.utf8.count, to: &text) // layer names are ASCII
                    }
                    Self.arrow.withUnsafeBufferPointer { text.put($0) }
                    layers[index].summary.withBytes { text.put($0) }
                    text.put(0x0A)
                    // Through the layer's stored properties: a method of the layer called here
                    // would copy it (retaining each of its arrays) for every layer of every packet.
                    layers[index].fieldBytes.withUnsafeBufferPointer { bytes in layers[index].fields.withUnsafeBufferPointer { fields in
                        guard var field = fields.baseAddress else { return }
                        for _ in 0 ..< fields.count {
                            text.put(field.pointee.definition.treePrefix)
                            Self.appendText(of: field, in: bytes, to: &text)
                            text.put(0x0A)
                            field += 1
                        }
                    } }
                }
            }
        }
        if let origin = packet.frame.origin {
            for line in Self.originLines(origin) { try out.line(line) }
        }
        if let identity = packet.peerIdentity, let peer = packet.peer {
            for line in Self.identityLines(identity, peer: peer) { try out.line(line) }
        }
        for layer in packet.layers {
            for issue in layer.issues {
                try out.line("    " + options.style.paint(Self.issueLine(issue), issue.severity == .error ? Style.red : Style.yellow))
            }
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

    /// A field as the tree shows it: the text `FieldCopy.text` makes, written in place from
    /// the field and its layer's bytes; a long byte string shows its start and its length, as
    /// tshark's tree does (-x prints every byte).
    static func appendText<O: ASCIIOutput>(of field: UnsafePointer<Field>, in bytes: UnsafeBufferPointer<UInt8>, to text: inout O) {
        switch field.pointee.form {
        case .decimal:
            field.pointee.writeDecimal(in: bytes, to: &text)
            return
        case .named:
            field.pointee.writeWrittenDisplay(in: bytes, to: &text)
            text.put(UInt8(ascii: " "))
            text.put(UInt8(ascii: "("))
            field.pointee.writeDisplayText(in: bytes, to: &text)
            text.put(UInt8(ascii: ")"))
            return
        case .text:
            if field.pointee.hasWrittenDisplay { return field.pointee.writeWrittenDisplay(in: bytes, to: &text) }
        }
        let count = field.pointee.byteCount
        guard count > TreeRenderer.longBytes, let value = field.pointee.storedBytes(in: bytes) else {
            return field.pointee.writeDisplayText(in: bytes, to: &text)
        }
        Hex.append(bytes: UnsafeBufferPointer(rebasing: value.prefix(TreeRenderer.shownBytes)), to: &text)
        ASCII.append(" … (", to: &text)
        ASCII.appendDecimal(UInt64(count), to: &text)
        ASCII.append(" bytes)", to: &text)
    }

    public mutating func finish(_ statistics: CaptureStatistics, to out: OutputWriter) throws {
        try out.line(options.style.paint(statistics.statusLine, Style.bold))
    }

    /// The device behind the peer's resolvable private address, under the layers.
    public static func identityLines(_ identity: PrivateAddresses.Resolved, peer: BDAddr) -> [String] {
        let key = identity.keyFrame > 0 ? "the key in packet \(identity.keyFrame)"
            : identity.keyFrame == 0 ? "the key given with --irk" : "the key a merged capture shows further on"
        let who = identity.address.map { "of \($0)" } ?? "of the device whose key it is (its identity address not in the capture)"
        var lines = ["    " + padded("Identity", 12) + " ▼ \(peer) is a resolvable private address \(who), by \(key)"]
        if let address = identity.address { lines.append("        Identity Address: \(address)") }
        lines.append("        Key In: " + (identity.keyFrame > 0 ? "\(identity.keyFrame)" : identity.keyFrame == 0 ? "--irk" : "a later packet"))
        return lines
    }

    /// A merged packet's source, and the other end of a PDU both hosts logged, under the layers.
    public static func originLines(_ origin: FrameOrigin) -> [String] {
        var summary = "\(origin.name) #\(origin.number)"
        if let match = origin.match {
            let latency = StatisticsText.milliseconds(Double(match.latency))
            summary += match.isSender ? ", received by \(match.sourceName) #\(match.number) \(latency) later"
                : ", sent by \(match.sourceName) #\(match.number) \(latency) before"
        }
        var time = UTCTimeFormatter()
        var lines = ["    " + padded("Merge", 12) + " ▼ " + summary,
                     "        Source: \(origin.name)",
                     "        Source Number: \(origin.number)",
                     "        Time In Its Own Clock: \(time.format(origin.sourceTime))"]
        if let match = origin.match {
            lines += ["        Role: \(match.isSender ? "sender" : "receiver")",
                      "        Other End: #\(match.number) (\(match.sourceName), " + (match.accessAddress.map { "air, access address \(Hex.format($0, width: 8))" }
                          ?? "hci\(match.controller), handle \(Hex.u16(match.handle))") + ")",
                      "        Latency: \(StatisticsText.milliseconds(Double(match.latency)))"]
        }
        return lines
    }

    /// A field's line of the tree, without its indentation: "Handle: 0x0040" (`btlog browse`
    /// draws the tree a line at a time).
    public static func fieldLine(_ field: Field, of layer: Layer) -> String {
        var text: [UInt8] = []
        text.append(contentsOf: field.definition.treePrefix.drop { $0 == UInt8(ascii: " ") })
        withUnsafePointer(to: field) { field in layer.fieldBytes.withUnsafeBufferPointer { appendText(of: field, in: $0, to: &text) } }
        return String(decoding: text, as: UTF8.self)
    }

    /// A layer's line of the tree, after its marker: its name, then its summary.
    public static func layerLine(_ layer: Layer) -> String {
        padded(layer.name, 12) + " " + layer.summary.description
    }

    /// An issue's line of the tree.
    public static func issueLine(_ issue: Issue) -> String {
        "\(issue.severity == .error ? "Error" : issue.severity == .warning ? "Warning" : "Note"): \(issue.message)"
    }
}

public enum HexDump {
    /// "00000000: 4400 0B00 0700 0400 0818 00FF FF03 28    D.............(" — 16 bytes a line.
    public static func lines(_ bytes: ArraySlice<UInt8>) -> [String] {
        stride(from: bytes.startIndex, to: bytes.endIndex, by: 16).map { start in
            let chunk = bytes[start ..< min(start + 16, bytes.endIndex)]
            var line: [UInt8] = []
            line.reserveCapacity(76)
            let offset = UInt64(start - bytes.startIndex)
            for shift in stride(from: 24, through: 0, by: -8) { Hex.append(UInt8(truncatingIfNeeded: offset >> UInt64(shift)), to: &line) }
            ASCII.append(": ", to: &line)
            let hexStart = line.count
            for (i, byte) in chunk.enumerated() {
                Hex.append(byte, to: &line)
                if i % 2 == 1 { line.append(UInt8(ascii: " ")) }
            }
            ASCII.appendSpaces(40 - (line.count - hexStart) + 1, to: &line)
            for byte in chunk { line.append(byte >= 0x20 && byte < 0x7F ? byte : UInt8(ascii: ".")) }
            return String(decoding: line, as: UTF8.self)
        }
    }
}

@inline(__always) func padded(_ text: String, _ width: Int) -> String {
    let count = text.count
    return count >= width ? text : text + String(repeating: " ", count: width - count)
}
