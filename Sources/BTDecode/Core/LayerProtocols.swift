/// Which protocol (by its field prefix) each decoder's layer belongs to: a field of one
/// protocol may sit in another's layer (the pairing method SMP learnt, shown in HCI's
/// Encryption Change), so a filter's `att` and export's `"protocol"` go by layer name.
public enum LayerProtocols {
    /// The layers each protocol's decoder makes, by the protocol's field prefix.
    public static let layerNames: [String: [String]] = [
        "hci": ["HCI Command", "HCI Event"], "btle": ["LE LL"], "nordic_ble": ["nRF Sniffer"], "btle_rf": ["LE Radio"], "ppi": ["PPI"], "acl": ["ACL"], "sco": ["SCO"], "iso": ["ISO"], "l2cap": ["L2CAP"],
        "att": ["ATT"], "smp": ["SMP"], "sdp": ["SDP"], "rfcomm": ["RFCOMM"], "avdtp": ["A2DP Control"], "rtp": ["A2DP Data"],
        "avctp": ["AVCTP"], "avrcp": ["AVRCP"], "hid": ["HID"], "bnep": ["BNEP"], "hfp": ["HFP", "HSP"],
        "ancs": ["ANCS"], "ams": ["AMS"], "pacs": ["PACS"], "ascs": ["ASCS"], "bass": ["BASS"], "vcs": ["VCS"],
        "vocs": ["VOCS"], "aics": ["AICS"], "mcs": ["MCS"], "tbs": ["TBS"], "csis": ["CSIS"],
    ]

    static let byLayerName: [String: String] = {
        var table: [String: String] = [:]
        for (prefix, names) in layerNames { for name in names { table[name] = prefix } }
        return table
    }()

    /// Whether the layer name alone says its protocol (a decoder's own layer name above).
    public static func isNamedLayer(_ name: String) -> Bool { byLayerName[name] != nil }

    /// The protocol a layer belongs to: its name's entry above, else the prefix of its first
    /// field (GATT profiles, system records), else its name as a word ("Link Control" → link_control).
    public static func protocolName(of layer: Layer) -> String {
        if let known = byLayerName[layer.name] { return known }
        if let first = layer.fields.first { return first.definition.protocolName }
        return ValueName.key(layer.name)
    }
}
