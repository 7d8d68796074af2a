import BTCapture

/// Qualcomm (QCA) controllers' vendor commands and events whose layouts are public (the Linux
/// driver's patch and NVM loader, btqca): the EDL patch command and its sub-commands, and the
/// EDL response events that answer them (the controller answers with a vendor event, not a
/// Command Complete): version, TLV download, build information, board ID.
enum QualcommHCI {
    static let namespace = HCIParameterFields.Namespace(prefix: "qualcomm", owner: "Qualcomm vendor command", valueNames: [
        "Response_Type": [0x02: "Version", 0x04: "TLV Download", 0x20: "Build Info", 0x23: "Board ID"],
        "Command_Response": [0x00: "Command Response"],
        "TLV_Response": [0x00: "Success"],
    ])
    static let subcommand = FieldDefinition("qualcomm.subcommand", "Sub-command", .uint8, "Qualcomm EDL patch command's sub-command")

    static let commands: [UInt16: VendorCommand] = [
        0xFC00: VendorCommand(name: "EDL Patch", subcommands: [
            0x19: VendorCommand(name: "Get Version"),
            0x1E: VendorCommand(name: "TLV Download", parameters: VendorHCI.layout("!u8 Segment_Length, rest Segment", namespace)),
            0x20: VendorCommand(name: "Get Build Info"),
            0x23: VendorCommand(name: "Get Board ID"),
        ], subcommandField: subcommand),
    ]

    /// The EDL response event: a response code (0x00), the response's type, then its data.
    static let responseHeader = VendorHCI.layout("x8 Command_Response, !x8 Response_Type", namespace)
    static let responses: [UInt8: [HCIParam]] = [
        0x02: VendorHCI.layout("x32 Product_ID, !x16 Patch_Version, !x16 ROM_Version, x32 SoC_ID", namespace),
        0x04: VendorHCI.layout("!x8 TLV_Response", namespace),
        0x20: VendorHCI.layout("u8 Build_Label_Length, name Build_Label", namespace),
        // The board ID is big-endian (the driver reads data[1] << 8 | data[2]).
        0x23: VendorHCI.layout("u8 Board_ID_Length, b2 Board_ID", namespace),
    ]

    static let vendor = VendorHCI(name: "Qualcomm", layer: .qualcommHCI, namespace: namespace, commands: commands, event: decodeEvent,
                                  eventFields: (responseHeader + responses.keys.sorted().flatMap { responses[$0]! }).flatMap(\.flattened).flatMap(\.fields))

    static func decodeEvent(_ c: inout ByteCursor, _ layer: inout Layer, _ packet: inout Packet, _ session: inout Session) throws -> VendorHCI.UpperLayer? {
        layer.summary.set("EDL Response")
        var reader = HCIParameterReader(session: session)
        do {
            try reader.read(responseHeader, &c, &layer)
            guard case .unsigned(let code, _)? = layer.lastFieldValue, let params = responses[UInt8(truncatingIfNeeded: code)] else {
                layer.addIssue(.note, "Qualcomm does not document this EDL response publicly: shown as bytes")
                return nil
            }
            try reader.read(params, &c, &layer)
            if code == 0x04, case .unsigned(let result, _)? = layer.lastFieldValue, result != 0 {
                layer.addIssue(.error, "Firmware download (TLV segment) refused by the controller: response \(Hex.format(result, width: 2))")
            }
        } catch DecodeError.truncated(let needed, let available, let at) {
            layer.addIssue(.warning, "Qualcomm EDL response stops short: \(needed) bytes needed at offset \(at), \(available) left")
        }
        return nil
    }
}

extension LayerKind {
    public static let qualcommHCI = LayerKind("Qualcomm HCI", protocol: "qualcomm")
}
