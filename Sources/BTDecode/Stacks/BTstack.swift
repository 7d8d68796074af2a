import BTCapture

/// Records BTstack writes into its own HCI log beside the controller's traffic (PacketLogger,
/// btsnoop): its daemon's commands (OGF 0x3D, which the Core specification leaves unassigned)
/// and the events it raises for its applications, on codes the specification never assigns
/// (0x60-0xF7). Neither ever crossed the HCI transport: the controller did not see the
/// commands and did not send the events, so they are named as BTstack's and kept out of what
/// btlog says about the controller. Names and layouts from BTstack's public header
/// (src/btstack_defines.h: its `@format` notes); what the header does not lay out stays bytes.
public enum BTstack {
    /// The OGF of BTstack's daemon commands.
    public static let daemonOGF: UInt16 = 0x3D

    /// Whether a command opcode is one of BTstack's daemon commands (never sent to a controller).
    public static func isDaemonCommand(_ opcode: UInt16) -> Bool { opcode >> 10 == daemonOGF }

    /// Whether an event code is one BTstack raises for itself (never sent by a controller).
    public static func isStackEvent(_ code: UInt8) -> Bool { events[code] != nil && HCIEvents.name(code) == nil }

    static let namespace = HCIParameterFields.Namespace(prefix: "btstack", owner: "BTstack", valueNames: [
        // BTstack reports the HCI error codes (ERROR_CODE_*) as its events' status.
        "Status": Dictionary(uniqueKeysWithValues: HCIErrorNames.errors.map { (UInt64($0.key), $0.value) }),
        "State": [0: "Off", 1: "Initializing", 2: "Working", 3: "Halting", 4: "Sleeping", 5: "Falling Asleep"],
        "Power_Mode": [0: "Off", 1: "On", 2: "Sleep"],
        "Mode": [0: "Basic", 1: "Enhanced Retransmission", 2: "Streaming"],
        "Incoming": [0: "Outgoing", 1: "Incoming"],
    ], descriptions: [
        "State": "BTstack's HCI state (BTSTACK_EVENT_STATE)",
        "Local_CID": "The L2CAP channel's CID on this host",
        "RFCOMM_CID": "BTstack's identifier of an RFCOMM channel",
    ])

    /// A record's name and, where the header lays its parameters out, their layout (parsed the
    /// first time a capture holds the record: most captures hold none).
    struct Record {
        let name: String
        let spec: String?
    }

    static func record(_ name: String, _ spec: String? = nil) -> Record { Record(name: name, spec: spec) }

    static let eventLayouts = ParsedLayouts<UInt8>(events.compactMapValues(\.spec), in: namespace)
    static let commandLayouts = ParsedLayouts<UInt16>(commands.compactMapValues(\.spec), in: namespace)

    static let channelOpened = "u8 Status, at Address_Type, A Address, H, u8 Incoming, !x16 PSM, !x16 Local_CID, x16 Remote_CID, u16 Local_MTU, u16 Remote_MTU"
    static let identity = "H, at Address_Type, A Address, at Identity_Address_Type, A Identity_Address, u16 Index"

    /// The events BTstack raises itself, by code.
    static let events: [UInt8: Record] = [
        0x60: record("BTstack State", "!u8 State"),
        0x61: record("BTstack Number Of Connections Changed", "!u8 Number_Connections"),
        0x62: record("BTstack Power On Failed", ""),
        0x63: record("Daemon Version", "u8 Major, u8 Minor, u16 Revision"),
        0x64: record("Daemon System Bluetooth Enabled", "u8 System_Bluetooth_Enabled"),
        0x65: record("Daemon Remote Name Cached", "u8 Status, A Address, rest Name"),
        0x66: record("BTstack Scan Mode Changed", "u8 Discoverable, u8 Connectable"),
        0x67: record("Daemon Connection Opened", ""),
        0x68: record("Daemon Connection Closed", ""),
        0x69: record("Transport Sleep Mode", "u8 Active"),
        0x6A: record("Transport USB Info", "x16 Vendor_ID, x16 Product_ID, u8 Path_Length, rest Path"),
        0x6B: record("BIS Can Send Now", "u8 BIG_Handle, u8 BIS_Index, H"),
        0x6C: record("CIS Can Send Now", "H"),
        0x6D: record("Transport Ready", ""),
        0x6E: record("Transport Packet Sent", ""),
        0x6F: record("SCO Can Send Now", ""),
        0x70: record("L2CAP Channel Opened", "u8 Status, A Address, H, !x16 PSM, !x16 Local_CID, x16 Remote_CID, u16 Local_MTU, u16 Remote_MTU, u16 Flush_Timeout, u8 Incoming, u8 Mode, u8 FCS"),
        0x71: record("L2CAP Channel Closed", "!x16 Local_CID"),
        0x72: record("L2CAP Incoming Connection", "A Address, H, !x16 PSM, !x16 Local_CID, x16 Remote_CID"),
        0x73: record("L2CAP Timeout Check", "H"),
        0x74: record("Daemon L2CAP Credits", "x16 Local_CID, u8 Credits"),
        0x75: record("Daemon L2CAP Service Registered", "u8 Status, !x16 PSM"),
        0x76: record("L2CAP Connection Parameter Update Request", "H, u16 Interval_Min, u16 Interval_Max, u16 Latency, u16 Timeout_Multiplier"),
        0x77: record("L2CAP Connection Parameter Update Response", "H, u16 Result"),
        0x78: record("L2CAP Information Response", "H, x16 Extended_Feature_Mask, x16 Fixed_Channels_Supported"),
        0x79: record("L2CAP Can Send Now", "x16 Local_CID"),
        0x7A: record("L2CAP Packet Sent", "x16 Local_CID"),
        0x7B: record("L2CAP ERTM Buffer Released", "x16 Local_CID"),
        0x7C: record("L2CAP Credit-Based Incoming Connection", "at Address_Type, A Address, H, !x16 PSM, !x16 Local_CID, x16 Remote_CID, u16 Remote_MTU"),
        0x7D: record("L2CAP Credit-Based Channel Opened", channelOpened),
        0x7E: record("L2CAP Trigger Run", ""),
        0x7F: record("L2CAP Enhanced Credit-Based Incoming Connection", "at Address_Type, A Address, H, !x16 PSM, u8 Num_Channels, x16 Local_CID"),
        0x80: record("RFCOMM Channel Opened", "u8 Status, A Address, H, !u8 Server_Channel, x16 RFCOMM_CID, u16 Max_Frame_Size, u8 Incoming"),
        0x81: record("RFCOMM Channel Closed", "x16 RFCOMM_CID"),
        0x82: record("RFCOMM Incoming Connection", "A Address, !u8 Server_Channel, x16 RFCOMM_CID, H"),
        0x83: record("RFCOMM Remote Line Status", "x16 RFCOMM_CID, x8 Line_Status"),
        0x85: record("Daemon RFCOMM Service Registered", "u8 Status, u8 Channel_ID"),
        0x86: record("Daemon RFCOMM Persistent Channel", "u8 Status, u8 Server_Channel_ID"),
        0x87: record("RFCOMM Remote Modem Status", "x16 RFCOMM_CID, x8 Modem_Status"),
        0x88: record("RFCOMM Port Configuration", "x16 RFCOMM_CID"),
        0x89: record("RFCOMM Can Send Now", "x16 RFCOMM_CID"),
        0x8A: record("L2CAP Enhanced Credit-Based Channel Opened", channelOpened),
        0x8B: record("L2CAP Enhanced Credit-Based Reconfigured", "x16 Remote_CID, u16 MTU, u16 MPS"),
        0x8C: record("L2CAP Enhanced Credit-Based Reconfiguration Complete", "x16 Local_CID, u16 Reconfigure_Result"),
        0x90: record("Daemon SDP Service Registered", "u8 Status, x32 Service_Record_Handle"),
        0x91: record("SDP Query Complete", "u8 Status"),
        0x92: record("SDP Query RFCOMM Service", "!u8 RFCOMM_Channel, rest Name"),
        0x93: record("SDP Query Attribute Byte", "u16 Record_ID, x16 Attribute_ID, u16 Attribute_Length, u16 Data_Offset, x8 Data"),
        0x94: record("SDP Query Attribute Value", "u16 Record_ID, x16 Attribute_ID, u16 Attribute_Length, rest Attribute_Value"),
        0x95: record("SDP Query Service Record Handle", "u16 Total_Count, u16 Record_Index, x32 Record_Handle"),
        0xA0: record("GATT Query Complete", "H, u8 ATT_Status"),
        0xA1: record("GATT Service Query Result", "H, rest Service"),
        0xA2: record("GATT Characteristic Query Result", "H, rest Characteristic"),
        0xA3: record("GATT Included Service Query Result", "H, x16 Include_Handle, rest Service"),
        0xA4: record("GATT All Characteristic Descriptors Query Result", "H, rest Characteristic_Descriptor"),
        0xA5: record("GATT Characteristic Value Query Result", "H, !x16 Value_Handle, u16 Value_Length, rest Value"),
        0xA6: record("GATT Long Characteristic Value Query Result", "H, !x16 Value_Handle, u16 Value_Offset, u16 Value_Length, rest Value"),
        0xA7: record("GATT Notification", "H, !x16 Value_Handle, u16 Value_Length, rest Value"),
        0xA8: record("GATT Indication", "H, !x16 Value_Handle, u16 Value_Length, rest Value"),
        0xA9: record("GATT Characteristic Descriptor Query Result", "H, !x16 Descriptor_Handle, u16 Descriptor_Length, rest Descriptor"),
        0xAA: record("GATT Long Characteristic Descriptor Query Result", "H, !x16 Descriptor_Handle, u16 Descriptor_Offset, u16 Descriptor_Length, rest Descriptor"),
        0xAB: record("GATT MTU", "H, !u16 MTU"),
        0xAC: record("GATT Can Write Without Response", "H"),
        0xAD: record("GATT Connected", "u8 Status, A Address, H"),
        0xAE: record("GATT Disconnected", "H"),
        0xAF: record("GATT Service Changed", "H, x16 Attribute_Handle_Start, x16 Attribute_Handle_End"),
        0xB3: record("ATT Connected", "at Address_Type, A Address, H"),
        0xB4: record("ATT Disconnected", "H"),
        0xB5: record("ATT MTU Exchange Complete", "H, !u16 MTU"),
        0xB6: record("ATT Handle Value Indication Complete", "u8 Status, H, x16 Attribute_Handle"),
        0xB7: record("ATT Can Send Now", ""),
        0xC0: record("BNEP Service Registered", "u8 Status, x16 Service_UUID"),
        0xC1: record("BNEP Channel Opened", "u8 Status, x16 BNEP_CID, x16 Source_UUID, x16 Destination_UUID, u16 MTU, A Address, H"),
        0xC2: record("BNEP Channel Closed", "x16 BNEP_CID, x16 Source_UUID, x16 Destination_UUID, A Address"),
        0xC3: record("BNEP Channel Timeout", "x16 BNEP_CID, x16 Source_UUID, x16 Destination_UUID, A Address, u8 Channel_State"),
        0xC4: record("BNEP Can Send Now", "x16 BNEP_CID, x16 Source_UUID, x16 Destination_UUID, A Address"),
        0xC8: record("SM Just Works Request", "H, at Address_Type, A Address, u8 Secure_Connection"),
        0xC9: record("SM Passkey Display Number", "H, at Address_Type, A Address, u8 Secure_Connection, !u32 Passkey"),
        0xCA: record("SM Passkey Display Cancel", "H, at Address_Type, A Address"),
        0xCB: record("SM Passkey Input Number", "H, at Address_Type, A Address, u8 Secure_Connection"),
        0xCC: record("SM Numeric Comparison Request", "H, at Address_Type, A Address, u8 Secure_Connection, !u32 Passkey"),
        0xCD: record("SM Identity Resolving Started", "H, at Address_Type, A Address"),
        0xCE: record("SM Identity Resolving Failed", "H, at Address_Type, A Address"),
        0xCF: record("SM Identity Resolving Succeeded", identity),
        0xD0: record("SM Authorization Request", "H, at Address_Type, A Address"),
        0xD1: record("SM Authorization Result", "H, at Address_Type, A Address, u8 Authorization_Result"),
        0xD2: record("SM Keypress Notification", "H, u8 Action"),
        0xD3: record("SM Identity Created", identity),
        0xD4: record("SM Pairing Started", "H, at Address_Type, A Address"),
        0xD5: record("SM Pairing Complete", "H, at Address_Type, A Address, u8 Status, u8 Reason"),
        0xD6: record("SM Reencryption Started", "H, at Address_Type, A Address"),
        0xD7: record("SM Reencryption Complete", "H, at Address_Type, A Address, u8 Status"),
        0xD8: record("GAP Security Level", "H, !u8 Security_Level"),
        0xD9: record("GAP Dedicated Bonding Completed", "u8 Status, A Address"),
        0xDA: record("GAP Advertising Report", "u8 Advertising_Event_Type, at Address_Type, A Address, i8 RSSI, ad Data"),
        0xDB: record("GAP Extended Advertising Report", "u16 Advertising_Event_Type, at Address_Type, A Address, phy Primary_PHY, phy Secondary_PHY, u8 Advertising_SID, i8 TX_Power, i8 RSSI, u16 Periodic_Advertising_Interval, at Direct_Address_Type, A Direct_Address, ad Data"),
        0xDC: record("GAP Inquiry Result", "A Address, u8 Page_Scan_Repetition_Mode, cod Class_Of_Device, u16 Clock_Offset, u8 RSSI_Available, i8 RSSI, u8 Device_ID_Available, x16 Device_ID_Vendor_ID_Source, x16 Device_ID_Vendor_ID, x16 Device_ID_Product_ID, x16 Device_ID_Version, u8 Name_Available, u8 Name_Length, rest Name"),
        0xDD: record("GAP Inquiry Complete", "u8 Status"),
        0xDE: record("GAP RSSI Measurement", "H, !i8 RSSI"),
        0xDF: record("GAP Local OOB Data", "u8 OOB_Data_Present, b16 C_192, b16 R_192, b16 C_256, b16 R_256"),
        0xE0: record("GAP Pairing Started", "H, A Address, u8 SSP, u8 Initiator"),
        0xE1: record("GAP Pairing Complete", "H, A Address, u8 Status"),
        0xE7: record("GAP Meta", "!x8 Subevent_Code"),
        0xE8: record("HSP Meta", "!x8 Subevent_Code"),
        0xE9: record("HFP Meta", "!x8 Subevent_Code"),
        0xEA: record("ANCS Meta", "!x8 Subevent_Code"),
        0xEB: record("AVDTP Meta", "!x8 Subevent_Code"),
        0xEC: record("AVRCP Meta", "!x8 Subevent_Code"),
        0xED: record("GOEP Meta", "!x8 Subevent_Code"),
        0xEE: record("PBAP Meta", "!x8 Subevent_Code"),
        0xEF: record("HID Meta", "!x8 Subevent_Code"),
        0xF0: record("A2DP Meta", "!x8 Subevent_Code"),
        0xF1: record("HIDS Meta", "!x8 Subevent_Code"),
        0xF2: record("GATT Service Meta", "!x8 Subevent_Code"),
        0xF3: record("BIP Meta", "!x8 Subevent_Code"),
        0xF4: record("MAP Meta", "!x8 Subevent_Code"),
        0xF5: record("Mesh Meta", "!x8 Subevent_Code"),
        0xF6: record("LE Audio Meta", "!x8 Subevent_Code"),
        0xF7: record("OPP Meta", "!x8 Subevent_Code"),
    ]

    /// The daemon's commands, by OCF (OGF 0x3D).
    static let commands: [UInt16: Record] = [
        0x01: record("Get State", ""),
        0x02: record("Set Power Mode", "!u8 Power_Mode"),
        0x03: record("Set ACL Capture Mode", "u8 On"),
        0x04: record("Get Version", ""),
        0x05: record("Get System Bluetooth Enabled", ""),
        0x06: record("Set System Bluetooth Enabled", "u8 Enabled"),
        0x07: record("Set Discoverable", "u8 Discoverable"),
        0x08: record("Set Bluetooth Enabled", "u8 Enabled"),
        0x20: record("L2CAP Create Channel", "A Address, !x16 PSM"),
        0x21: record("L2CAP Disconnect", "!x16 Channel, u8 Reason"),
        0x22: record("L2CAP Register Service", "!x16 PSM, u16 MTU"),
        0x23: record("L2CAP Unregister Service", "!x16 PSM"),
        0x24: record("L2CAP Accept Connection", "A Address, x16 Destination_CID"),
        0x25: record("L2CAP Decline Connection", "A Address, x16 Destination_CID, u8 Reason"),
        0x26: record("L2CAP Create Channel MTU", "A Address, !x16 PSM, u16 MTU"),
        0x27: record("L2CAP Request Can Send Now", "x16 Local_CID"),
        0x30: record("SDP Register Service Record"),
        0x31: record("SDP Unregister Service Record"),
        0x32: record("SDP Client Query RFCOMM Services"),
        0x33: record("SDP Client Query Services"),
        0x40: record("RFCOMM Create Channel"),
        0x41: record("RFCOMM Disconnect"),
        0x42: record("RFCOMM Register Service"),
        0x43: record("RFCOMM Unregister Service"),
        0x44: record("RFCOMM Accept Connection"),
        0x45: record("RFCOMM Decline Connection"),
        0x46: record("RFCOMM Persistent Channel"),
        0x47: record("RFCOMM Create Channel With Credits"),
        0x48: record("RFCOMM Register Service With Credits"),
        0x49: record("RFCOMM Grant Credits"),
        0x4A: record("RFCOMM Request Can Send Now"),
        0x50: record("GAP Disconnect"),
        0x51: record("GAP Inquiry Start"),
        0x52: record("GAP Inquiry Stop"),
        0x53: record("GAP Remote Name Request"),
        0x54: record("GAP Drop Link Key For BD_ADDR"),
        0x55: record("GAP Delete All Link Keys"),
        0x56: record("GAP PIN Code Response"),
        0x57: record("GAP PIN Code Negative"),
        0x60: record("GAP LE Scan Start"),
        0x61: record("GAP LE Scan Stop"),
        0x62: record("GAP LE Connect"),
        0x63: record("GAP LE Connect Cancel"),
        0x64: record("GAP LE Set Scan Parameters"),
        0x70: record("GATT Discover All Primary Services"),
        0x71: record("GATT Discover Primary Services By UUID16"),
        0x72: record("GATT Discover Primary Services By UUID128"),
        0x73: record("GATT Find Included Services For Service"),
        0x74: record("GATT Discover Characteristics For Service"),
        0x75: record("GATT Discover Characteristics For Service By UUID128"),
        0x76: record("GATT Discover Characteristic Descriptors"),
        0x77: record("GATT Read Value Of Characteristic"),
        0x78: record("GATT Read Long Value Of Characteristic"),
        0x79: record("GATT Write Value Of Characteristic Without Response"),
        0x7A: record("GATT Write Value Of Characteristic"),
        0x7B: record("GATT Write Long Value Of Characteristic"),
        0x7C: record("GATT Reliable Write Long Value Of Characteristic"),
        0x7D: record("GATT Read Characteristic Descriptor"),
        0x7E: record("GATT Read Long Characteristic Descriptor"),
        0x7F: record("GATT Write Characteristic Descriptor"),
        0x80: record("GATT Write Long Characteristic Descriptor"),
        0x81: record("GATT Write Client Characteristic Configuration"),
        0x82: record("GATT Get MTU"),
        0x90: record("SM Set Authentication Requirements"),
        0x92: record("SM Set IO Capabilities"),
        0x93: record("SM Bonding Decline"),
        0x94: record("SM Just Works Confirm"),
        0x95: record("SM Numeric Comparison Confirm"),
        0x96: record("SM Passkey Input"),
    ]

    public static let command = FieldDefinition("btstack.command", "Daemon Command", .uint16, "BTstack daemon command (OCF of OGF 0x3D): a request from an application to the BTstack daemon, logged by BTstack, never sent to a controller")
    public static let event = FieldDefinition("btstack.event", "Event", .uint8, "An event BTstack raises for its applications and logs beside the controller's (a code the Core specification leaves unassigned): not from a controller")
    public static let parameters = FieldDefinition("btstack.parameters", "Parameters", .bytes, "Parameters BTstack's header does not lay out, as bytes")

    static let stackNote = "BTstack's own record, logged beside the HCI traffic: never sent to or from the controller"

    /// A daemon command's BTstack layer, above the HCI Command layer already decoded; `whole`
    /// reads the command from its opcode, `c` its parameters.
    static func decodeCommand(_ opcode: UInt16, whole: ByteCursor, _ c: inout ByteCursor, _ packet: inout Packet, _ session: inout Session) throws {
        let ocf = opcode & 0x3FF
        let record = commands[ocf]
        _ = try HCIPacketContext.decode(.btstack, over: whole, into: &packet) { layer, row in
            layer.add(command, .u16(ocf), named: record?.name ?? "Unknown", at: layer.range(at: whole.index, count: 2))
            layer.summary.set("Daemon: \(record?.name ?? "Command \(Hex.u16(ocf))")")
            layer.addIssue(.note, stackNote)
            try read(commandLayouts[ocf], &c, &layer, &row, session)
        }
    }

    /// A BTstack event's layer, above the HCI Event layer already decoded; `whole` reads the
    /// event from its code, `c` its parameters.
    static func decodeEvent(_ code: UInt8, whole: ByteCursor, _ c: inout ByteCursor, _ packet: inout Packet, _ session: inout Session) throws {
        let record = events[code]
        _ = try HCIPacketContext.decode(.btstack, over: whole, into: &packet) { layer, row in
            layer.add(event, .u8(code), named: record?.name ?? "Unknown", at: layer.range(at: whole.index))
            layer.summary.set("\(record?.name ?? "Event \(Hex.u8(code))")")
            layer.addIssue(.note, stackNote)
            try read(eventLayouts[code], &c, &layer, &row, session)
        }
    }

    /// The parameters as the layout says; what is left (or all, without a layout) as bytes. A
    /// record shorter than the header's layout (an older BTstack) keeps what was read.
    static func read(_ layout: [HCIParam]?, _ c: inout ByteCursor, _ layer: inout Layer, _ row: inout HCIPacketContext, _ session: Session) throws {
        if let layout {
            var reader = HCIParameterReader(session: session)
            do {
                try reader.read(layout, &c, into: &layer)
            } catch DecodeError.truncated {
                layer.addIssue(.note, "Shorter than the layout of BTstack's current header (an older BTstack): the parameters read so far stand")
            }
            reader.apply(handle: &row.handle, peer: &row.peer, controller: row.controller, session: session)
        }
        if !c.isAtEnd {
            let at = c.index
            let rest = c.rest()
            layer.add(parameters, .bytes(rest), at: layer.range(at: at, count: rest.count))
        }
    }

    /// Every field the layouts make, once each, for the registry (made when it is asked for).
    static var parameterFields: [FieldDefinition] {
        var seen = Set<String>()
        return (eventLayouts.all + commandLayouts.all).flatMap { $0.flatMap(\.flattened) }.flatMap(\.fields)
            .filter { !$0.name.hasPrefix("hci.") && seen.insert($0.name).inserted }.sorted { $0.name < $1.name }
    }

    static var valueNames: [(FieldDefinition, [ValueName])] {
        let fields = parameterFields
        return [(command, FieldValueNames.from(commands.mapValues(\.name))), (event, FieldValueNames.from(events.mapValues(\.name)))]
            + namespace.valueNames.sorted { $0.key < $1.key }.compactMap { parameter, table in
                fields.first { $0.name == "btstack." + parameter.lowercased() }.map { ($0, FieldValueNames.from(table)) }
            }
    }

    static let descriptor = ProtocolDescriptor(name: "BTstack", fields: [command, event] + parameterFields + [parameters], layers: [.btstack],
                                               valueNames: valueNames)
}

extension LayerKind {
    public static let btstack = LayerKind("BTstack", protocol: "btstack")
}
