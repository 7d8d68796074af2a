import BTCapture

/// Android's vendor HCI extensions (OCF 0x153-0x15F), which the Android Bluetooth stack sends to
/// any controller that implements them (Broadcom, Qualcomm, Realtek, MediaTek...), and the
/// vendor event's sub-events, the Bluetooth Quality Report (0x58) among them. Layouts from
/// AOSP's public sources: hcidefs.h, the stack's vendor-capability, multi-advertising, batch
/// scan, APCF, energy, A2DP offload, BQR and dynamic audio buffer code (Apache 2.0; facts only).
enum AndroidHCI {
    static let vendorCapabilities: UInt16 = 0xFD53

    static let namespace = HCIParameterFields.Namespace(prefix: "android", owner: "Android vendor command", valueNames: [
        "Action": [0: "Add", 1: "Delete", 2: "Clear"],
        "Report_Action": [0: "Add", 1: "Delete", 2: "Clear"],
        "Scan_Mode": [0: "Disabled", 1: "Truncated", 2: "Full", 3: "Truncated and Full"],
        "Report_Format": [1: "Truncated", 2: "Full"],
        "Discard_Rule": [0: "Oldest advertisement", 1: "Weakest RSSI"],
        "Delivery_Mode": [0: "Immediate", 1: "On found", 2: "Batched"],
        "Filter_Logic_Type": [0: "OR", 1: "AND"],
        "Scan_Type": [0: "Passive", 1: "Active"],
        "Advertiser_State": [0: "Lost", 1: "Found"],
        "Codec_Type": [0x1: "SBC", 0x2: "AAC", 0x4: "aptX", 0x8: "aptX HD", 0x10: "LDAC"],
        "Channel_Mode": [0: "Unknown", 1: "Mono", 2: "Stereo"],
        "Bits_Per_Sample": [1: "16 bits", 2: "24 bits", 4: "32 bits"],
        "Filtering_Support": [0: "Not supported", 1: "Supported"],
        "Activity_Energy_Info_Support": [0: "Not supported", 1: "Supported"],
        "Extended_Scan_Support": [0: "Not supported", 1: "Supported"],
        "Debug_Logging_Supported": [0: "Not supported", 1: "Supported"],
        "LE_Address_Generation_Offloading_Support": [0: "Not supported", 1: "Supported"],
        "Bluetooth_Quality_Report_Support": [0: "Not supported", 1: "Supported"],
    ], descriptions: [
        "Version_Supported": "Android vendor capabilities version: 0x0095 L, 0x0098 M, 0x0100 S, 0x0101 BQR v4 (ISO), 0x0104 BQR v6",
        "Feature_Selection": "APCF features the filter uses: bit 0 address, 1 service data, 2 service UUID, 3 solicitation UUID, 4 local name, 5 manufacturer data, 6 service data",
        "Quality_Event_Mask": "BQR reports asked for: bit 0 quality monitor, 1 approaching LSTO, 2 A2DP choppy, 3 SCO choppy, 4 root inflammation, 5 energy monitor, 6 LE Audio choppy, 7 connect fail",
    ])

    static func layout(_ spec: String) -> [HCIParam] { VendorHCI.layout(spec, namespace) }

    static func command(_ name: String, _ parameters: String = "", returns: String = "") -> VendorCommand {
        VendorCommand(name: name, parameters: layout(parameters), returns: layout(returns), grows: growingLayouts.contains(name))
    }

    /// A command whose first parameter picks a sub-command, whose return echoes it.
    static func withSubcommands(_ name: String, _ key: String, _ subcommands: [UInt8: VendorCommand]) -> VendorCommand {
        VendorCommand(name: name, subcommands: subcommands,
                      subcommandField: FieldDefinition("android.\(key)_subcommand", "\(name) Sub-command", .uint8, "Sub-command (sub-opcode) of \(name)"),
                      returnEchoesSubcommand: true)
    }

    /// Batch scan records (AOSP's ScanManager reads them): 11 bytes each when truncated; with the
    /// advertising data and scan response when full.
    static let truncatedRecords = layout("!u8 Num_Records, [A Address, at Address_Type, i8 TX_Power, i8 RSSI, u16 Timestamp]")
    static let fullRecords = layout("!u8 Num_Records, [A Address, at Address_Type, i8 TX_Power, i8 RSSI, u16 Timestamp, ad Advertising_Data, ad Scan_Response_Data]")

    static let apcfReturn = "u8 Action, u8 Available_Spaces"
    static func apcf(_ name: String, _ parameters: String) -> VendorCommand {
        command(name, "!u8 Action, !u8 Filter_Index" + (parameters.isEmpty ? "" : ", " + parameters), returns: apcfReturn)
    }

    static let commands: [UInt16: VendorCommand] = [
        0xFD53: command("LE Get Vendor Capabilities", returns: """
            u8 Max_Advt_Instances, u8 Offloaded_Resolution_Of_Private_Address, u16 Total_Scan_Results_Storage, \
            u8 Max_IRK_List_Size, u8 Filtering_Support, u8 Max_Filter, u8 Activity_Energy_Info_Support, \
            !x16 Version_Supported, u16 Total_Num_Of_Advt_Tracked, u8 Extended_Scan_Support, u8 Debug_Logging_Supported, \
            u8 LE_Address_Generation_Offloading_Support, x32 A2DP_Source_Offload_Capability_Mask, \
            u8 Bluetooth_Quality_Report_Support, x32 Dynamic_Audio_Buffer_Support
            """),
        0xFD54: withSubcommands("LE Multi-Advertising", "multi_adv", [
            0x01: command("Set Parameters", """
                t625 Advertising_Interval_Min, t625 Advertising_Interval_Max, !u8 Advertising_Type, at Own_Address_Type, \
                A Own_Address, at Peer_Address_Type, A Peer_Address, x8 Advertising_Channel_Map, u8 Advertising_Filter_Policy, \
                !u8 Instance, i8 TX_Power
                """),
            0x02: command("Set Advertising Data", "ad31 Advertising_Data, !u8 Instance"),
            0x03: command("Set Scan Response Data", "ad31 Scan_Response_Data, !u8 Instance"),
            0x04: command("Set Random Address", "A Random_Address, !u8 Instance"),
            0x05: command("Set Enable", "en Advertising_Enable, !u8 Instance"),
        ]),
        0xFD56: withSubcommands("LE Batch Scan", "batch_scan", [
            0x01: command("Enable Customer Specific Feature", "en Enable"),
            0x02: command("Set Storage Parameters", "u8 Full_Max, u8 Truncated_Max, !u8 Notify_Threshold"),
            // The window before the interval (AOSP's btm_ble_set_batchscan_param).
            0x03: command("Set Scan Parameters", "!u8 Scan_Mode, t625l Scan_Window, !t625l Scan_Interval, at Own_Address_Type, u8 Discard_Rule"),
            0x04: VendorCommand(name: "Read Results", parameters: layout("!u8 Scan_Mode"), returns: layout("!u8 Report_Format"),
                                returnsAfter: { format in format == 1 ? truncatedRecords : format == 2 ? fullRecords : nil }),
        ]),
        0xFD57: withSubcommands("LE Advertising Packet Content Filter", "apcf", [
            0x00: command("Set Enable", "en Enable", returns: "u8 Enable_State"),
            0x01: apcf("Set Filtering Parameters", """
                x16 Feature_Selection, x16 List_Logic_Type, u8 Filter_Logic_Type, i8 RSSI_High_Threshold, !u8 Delivery_Mode, \
                u16 Onfound_Timeout, u8 Onfound_Timeout_Count, i8 RSSI_Low_Threshold, u16 Onlost_Timeout, u16 Num_Of_Tracking_Entries
                """),
            0x02: apcf("Broadcaster Address", "A Broadcaster_Address, at Broadcaster_Address_Type"),
            0x03: apcf("Service UUID", "!dm Service_UUID"),
            0x04: apcf("Solicitation UUID", "!dm Solicitation_UUID"),
            0x05: apcf("Local Name", "name Local_Name"),
            0x06: apcf("Manufacturer Data", "!dm Manufacturer_Data"),
            0x07: apcf("Service Data", "!dm Service_Data"),
            0x08: apcf("Transport Discovery Data", "rest Transport_Discovery_Data"),
            0x09: apcf("AD Type", "!x8 AD_Type, u8 AD_Data_Length, dm AD_Data"),
        ]),
        // AOSP defines the opcode but lays out no parameters for it.
        0xFD58: VendorCommand(name: "LE Track Advertiser", parametersUnpublished: true),
        0xFD59: command("LE Energy Info", returns: "u32 Total_TX_Time, u32 Total_RX_Time, u32 Total_Idle_Time, u32 Total_Energy_Used"),
        0xFD5A: command("LE Extended Scan Parameters", "!u8 Scan_Type, !t625l Scan_Interval, !t625l Scan_Window, at Own_Address_Type, u8 Scan_Filter_Policy"),
        0xFD5B: command("Controller Debug Info"),
        0xFD5D: withSubcommands("A2DP Hardware Offload", "a2dp_offload", [
            0x01: command("Start", """
                !x32 Codec_Type, u16 Max_Latency, x16 SCMS_T_Enable, !u32 Sampling_Frequency, u8 Bits_Per_Sample, u8 Channel_Mode, \
                u32 Encoded_Audio_Bitrate, H, x16 L2CAP_CID, u16 L2CAP_MTU, b32 Codec_Information
                """),
            0x02: command("Stop"),
        ]),
        0xFD5E: command("BQR Configuration", "!u8 Report_Action, !x32 Quality_Event_Mask, u16 Minimum_Report_Interval, x32 Vendor_Quality_Mask, x32 Vendor_Trace_Mask",
                        returns: "x32 Current_Quality_Event_Mask, x32 Current_Vendor_Quality_Mask, x32 Current_Vendor_Trace_Mask"),
        0xFD5F: withSubcommands("Dynamic Audio Buffer", "dab", [
            0x01: command("Get Buffer Time", returns: "x32 Audio_Codec_Type_Supported, rest Buffer_Times"),
            0x02: command("Set Buffer Time", "!u16 Buffer_Time"),
        ]),
    ]

    /// Commands whose later parameters depend on the capabilities version or the action:
    /// stopping at a parameter's boundary is their shorter form, not a truncation.
    static let growingLayouts: Set<String> = ["LE Get Vendor Capabilities", "BQR Configuration", "Set Filtering Parameters", "Broadcaster Address",
                                              "Service UUID", "Solicitation UUID", "Local Name", "Manufacturer Data", "Service Data", "AD Type"]

    static let subevent = FieldDefinition("android.subevent", "Sub-event", .uint8, "Android vendor event's sub-event code (0x58 Bluetooth Quality Report)")

    static let eventNames: [UInt8: String] = [
        0x54: "Batch Scan Storage Threshold", 0x55: "Multi-Advertising State Change", 0x56: "Advertisement Tracking",
        0x57: "Controller Debug Info", 0x58: "Bluetooth Quality Report",
    ]

    static let eventLayouts: [UInt8: [HCIParam]] = [
        0x55: layout("!u8 Instance, u8 State_Change_Reason, H"),
        0x56: layout("!u8 Filter_Index, !u8 Advertiser_State, u8 Advertiser_Info_Present, A Advertiser_Address, at Advertiser_Address_Type, i8 TX_Power, i8 RSSI, u16 Timestamp, ad Advertising_Data, ad Scan_Response_Data"),
    ]

    static let vendor = VendorHCI(
        name: "Android", layer: .androidHCI, namespace: namespace, commands: commands,
        event: decodeEvent, eventFields: [subevent] + (Array(eventLayouts.keys.sorted().map { eventLayouts[$0]! }) + [fullRecords])
            .flatMap { $0.flatMap(\.flattened).flatMap(\.fields) })

    /// An Android vendor event: its sub-event, then the sub-event's parameters.
    static func decodeEvent(_ c: inout ByteCursor, _ layer: inout Layer, _ packet: inout Packet, _ session: inout Session) throws -> VendorHCI.UpperLayer? {
        let code = try layer.reading(&c) { try $0.u8() }
        let name = eventNames[code.value]
        layer.add(subevent, .u8(code.value), named: name ?? "Unknown", at: code.range)
        if let name { layer.summary.set("\(name)") } else { layer.summary.set("Android Vendor Event \(hex: code.value)") }
        switch code.value {
        case 0x58:
            return BluetoothQualityReport.decode
        case 0x57:
            layer.addIssue(.note, "Controller debug information: its format is the controller vendor's")
        default:
            guard let params = eventLayouts[code.value] else { return nil }
            var reader = HCIParameterReader(session: session)
            do {
                try reader.read(params, &c, into: &layer)
            } catch DecodeError.truncated {
                // Tracking events carry the advertiser's data only when Advertiser_Info_Present says so.
                if code.value != 0x56 { layer.addIssue(.warning, "\(name ?? "Android vendor event") stops short of its parameters") }
            }
            reader.apply(to: &packet, session: session)
        }
        return nil
    }
}

extension LayerKind {
    public static let androidHCI = LayerKind("Android HCI", protocol: "android")
}
