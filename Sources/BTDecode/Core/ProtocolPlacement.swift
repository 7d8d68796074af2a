import BTCapture

/// Which kinds of frame can hold a protocol's fields, as `Decoder.decodeLayers` hands frames
/// to decoders: HCI commands and events go to the HCI decoders, which never reach L2CAP; ACL,
/// SCO and ISO data and air captures go to the data and link-layer decoders, which never make
/// an HCI command or event layer. A filter asks before a packet is decoded: a packet whose kind
/// can hold none of the fields it tests cannot match, so its summary need not be written
/// (`Decoder.decode(_:into:keeping:buildsDisplayText:)`). `ForesightTests` checks the rule on
/// every capture in Fixtures, and the decoder's fuzz target on every frame it makes.
public enum ProtocolPlacement {
    /// Whether a field of the protocol named `protocolName` (FieldDefinition.protocolName) can
    /// be in a packet of `kind`; true whenever the rule does not know.
    @inline(__always)
    public static func mayAppear(_ protocolName: String, in kind: FrameKind) -> Bool {
        family(protocolName)?.mayAppear(in: kind) ?? true
    }

    /// The family a protocol belongs to, if the rule knows it.
    public static func family(_ protocolName: String) -> Family? {
        if protocolName == "hci" { return .hciCommandsAndEvents }
        if carriedOnlyByL2CAP.contains(protocolName) { return .aboveL2CAP }
        return nil
    }

    public enum Family: Sendable {
        /// `hci.*`: the HCI command and event decoders' fields (vendor commands and events have
        /// their own protocols, which the rule leaves alone).
        case hciCommandsAndEvents
        /// Protocols reached only through an L2CAP channel (ACL data, or an air capture's data
        /// PDUs). Not GATT's value fields, nor LE Audio's and Apple's: advertising data (in HCI
        /// events and commands too) can carry them; nor SMP's, whose pairing method an HCI
        /// event's layer names (the tests found it).
        case aboveL2CAP

        public func mayAppear(in kind: FrameKind) -> Bool {
            switch self {
            case .hciCommandsAndEvents:
                switch kind {
                case .aclData, .scoData, .isoData, .air: return false
                default: return true
                }
            case .aboveL2CAP:
                switch kind {
                case .command, .event, .scoData: return false
                default: return true
                }
            }
        }
    }

    /// The first field or layer of `packet` whose protocol the rule says cannot be in a frame of
    /// its kind: what the tests and the fuzz targets look for (nil: none).
    public static func violation(in packet: Packet) -> String? {
        let kind = packet.frame.kind
        for layer in packet.layers {
            if let name = layer.kind.protocolName, !mayAppear(name, in: kind) {
                return "a \(name) layer (\(layer.name)) in a \(kind.word) frame"
            }
            for field in layer.fields where !mayAppear(field.definition.protocolName, in: kind) {
                return "\(field.definition.name) in a \(kind.word) frame"
            }
        }
        return nil
    }

    static let carriedOnlyByL2CAP: Set<String> = ["l2cap", "att", "sdp", "rfcomm", "hfp", "avdtp", "sbc", "aac", "rtp",
                                                   "avctp", "avrcp", "bnep", "ancs", "ams"]
}
