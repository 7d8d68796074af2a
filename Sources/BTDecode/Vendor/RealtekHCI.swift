import BTCapture

/// Realtek controllers' vendor commands whose layouts are public (the Linux driver's firmware
/// loader): firmware download and the ROM version. Everything else stays bytes.
enum RealtekHCI {
    static let namespace = HCIParameterFields.Namespace(prefix: "realtek", owner: "Realtek vendor command", descriptions: [
        "Index": "Firmware download fragment number; bit 7 set on the last fragment",
    ])

    static let commands: [UInt16: VendorCommand] = [
        0xFC20: VendorCommand(name: "Download Firmware", parameters: VendorHCI.layout("!x8 Index, rest Firmware_Data", namespace),
                              returns: VendorHCI.layout("!x8 Index", namespace)),
        0xFC6D: VendorCommand(name: "Read ROM Version", returns: VendorHCI.layout("!u8 ROM_Version", namespace)),
    ]

    static let vendor = VendorHCI(name: "Realtek", layer: .realtekHCI, namespace: namespace, commands: commands,
                                  event: nil, eventFields: [])
}

extension LayerKind {
    public static let realtekHCI = LayerKind("Realtek HCI", protocol: "realtek")
}
