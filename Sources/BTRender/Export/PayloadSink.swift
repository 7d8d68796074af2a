import BTCapture
import BTDecode
import BTQuery

/// `export --payload PROTOCOL`: what one protocol's layer carries, for the packets that have
/// that layer: the layer decoded above it (an L2CAP channel's ATT PDU, an RFCOMM channel's AT
/// command), else the layer's own undecoded payload field (NAME.payload, att.value, gatt.value).
/// Written as a hex line per packet, or (`binary`) the bytes themselves, one after another.
public struct PayloadSink: PacketSink {
    let protocolName: String
    let binary: Bool
    let out: OutputWriter
    public private(set) var written = 0

    public init(protocolName: String, binary: Bool, out: OutputWriter) {
        self.protocolName = protocolName
        self.binary = binary
        self.out = out
    }

    public mutating func consume(_ packet: Packet) throws {
        guard let index = packet.layers.firstIndex(where: { $0.protocolName == protocolName }),
              let bytes = Self.payload(ofLayer: index, in: packet) else { return }
        written += 1
        try out.lines { text in
            if binary {
                bytes.withUnsafeBufferPointer { text.put($0) }
            } else {
                for byte in bytes { Hex.append(byte, to: &text) }
                text.put(0x0A)
            }
        }
    }

    /// The bytes the layer at `index` carries, or nil when it carries none of its own.
    public static func payload(ofLayer index: Int, in packet: Packet) -> ArraySlice<UInt8>? {
        let layer = packet.layers[index]
        if index + 1 < packet.layers.count {
            return packet.bytes(of: packet.layers[index + 1])
        }
        for field in layer.fields.reversed() {
            guard payloadFields.contains(field.definition), let bytes = layer.bytesValue(of: field) else { continue }
            return bytes
        }
        return nil
    }

    /// What a layer carries for the layer above when none was decoded: each protocol's payload
    /// field (named so by convention), and an attribute's value.
    static let payloadFields: Set<FieldDefinition> = Set(FieldRegistry.all.filter { $0.name.hasSuffix(".payload") } + [ATTFields.value])
}
