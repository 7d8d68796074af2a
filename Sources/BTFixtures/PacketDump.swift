import BTCapture
import BTDecode

/// Everything a view or a filter reads of a decoded packet, as text: what tests compare when
/// a packet is decoded two ways that must agree (a reused Packet and a new one; a packet
/// decoded again from a saved Session and the first pass).
public enum PacketDump {
    public static func text(of packet: Packet) -> String {
        var out = "\(packet.frame.number) \(packet.handle.map(String.init) ?? "-") \(packet.peer?.description ?? "-") \(packet.worstSeverity.map { "\($0)" } ?? "-")\n"
        for layer in packet.layers {
            out += "\(layer.name) [\(layer.range)] \(layer.source) \(layer.summary)\n"
            for field in layer.fieldCopies {
                out += "  \(field.definition.name)=\(field.value.text) \(field.display ?? "") \(field.range.map { "\($0)" } ?? "")\n"
            }
            for issue in layer.issues { out += "  ! \(issue.severity) \(issue.layer) \(issue.message)\n" }
        }
        for buffer in packet.reassembled { out += "reassembled \(Hex.bytes(buffer))\n" }
        return out
    }
}
