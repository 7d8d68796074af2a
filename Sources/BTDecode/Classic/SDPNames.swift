/// Names SDP records use (Bluetooth Assigned Numbers: Protocol Identifiers, Service Class
/// Profile Identifiers, SDP attribute identifiers).
enum SDPNames {
    static let protocols: [UInt16: String] = [
        0x0001: "SDP", 0x0002: "UDP", 0x0003: "RFCOMM", 0x0004: "TCP", 0x0005: "TCS-BIN", 0x0006: "TCS-AT",
        0x0007: "ATT", 0x0008: "OBEX", 0x0009: "IP", 0x000A: "FTP", 0x000C: "HTTP", 0x000E: "WSP", 0x000F: "BNEP",
        0x0010: "UPNP", 0x0011: "HIDP", 0x0012: "HardcopyControlChannel", 0x0014: "HardcopyDataChannel",
        0x0016: "HardcopyNotification", 0x0017: "AVCTP", 0x0019: "AVDTP", 0x001B: "CMTP", 0x001E: "MCAPControlChannel",
        0x001F: "MCAPDataChannel", 0x0100: "L2CAP",
    ]

    static let serviceClasses: [UInt16: String] = [
        0x1000: "Service Discovery Server", 0x1001: "Browse Group Descriptor", 0x1002: "Public Browse Root",
        0x1101: "Serial Port", 0x1102: "LAN Access Using PPP", 0x1103: "Dialup Networking", 0x1104: "IrMC Sync",
        0x1105: "OBEX Object Push", 0x1106: "OBEX File Transfer", 0x1107: "IrMC Sync Command", 0x1108: "Headset",
        0x1109: "Cordless Telephony", 0x110A: "Audio Source", 0x110B: "Audio Sink", 0x110C: "A/V Remote Control Target",
        0x110D: "Advanced Audio Distribution", 0x110E: "A/V Remote Control", 0x110F: "A/V Remote Control Controller",
        0x1110: "Intercom", 0x1111: "Fax", 0x1112: "Headset - Audio Gateway", 0x1113: "WAP", 0x1114: "WAP Client",
        0x1115: "PANU", 0x1116: "NAP", 0x1117: "GN", 0x1118: "Direct Printing", 0x1119: "Reference Printing",
        0x111A: "Basic Imaging Profile", 0x111B: "Imaging Responder", 0x111C: "Imaging Automatic Archive",
        0x111D: "Imaging Referenced Objects", 0x111E: "Handsfree", 0x111F: "Handsfree Audio Gateway",
        0x1120: "Direct Printing Reference Objects", 0x1121: "Reflected UI", 0x1122: "Basic Printing",
        0x1123: "Printing Status", 0x1124: "Human Interface Device", 0x1125: "Hardcopy Cable Replacement",
        0x1126: "HCR Print", 0x1127: "HCR Scan", 0x1128: "Common ISDN Access", 0x112D: "SIM Access",
        0x112E: "Phonebook Access - PCE", 0x112F: "Phonebook Access - PSE", 0x1130: "Phonebook Access",
        0x1131: "Headset - HS", 0x1132: "Message Access Server", 0x1133: "Message Notification Server",
        0x1134: "Message Access Profile", 0x1135: "GNSS", 0x1136: "GNSS Server", 0x1137: "3D Display",
        0x1138: "3D Glasses", 0x1139: "3D Synchronization", 0x113A: "MPS Profile", 0x113B: "MPS Class",
        0x113C: "CTN Access Service", 0x113D: "CTN Notification Service", 0x113E: "CTN Profile",
        0x1200: "PnP Information", 0x1201: "Generic Networking", 0x1202: "Generic File Transfer",
        0x1203: "Generic Audio", 0x1204: "Generic Telephony", 0x1205: "UPNP Service", 0x1206: "UPNP IP Service",
        0x1300: "ESDP UPNP IP PAN", 0x1301: "ESDP UPNP IP LAP", 0x1302: "ESDP UPNP L2CAP",
        0x1303: "Video Source", 0x1304: "Video Sink", 0x1305: "Video Distribution", 0x1400: "HDP", 0x1401: "HDP Source",
        0x1402: "HDP Sink",
    ]

    /// Universal attributes (Core Vol 3, Part B, 5.1), by ID.
    static let attributes: [UInt16: String] = [
        0x0000: "ServiceRecordHandle", 0x0001: "ServiceClassIDList", 0x0002: "ServiceRecordState", 0x0003: "ServiceID",
        0x0004: "ProtocolDescriptorList", 0x0005: "BrowseGroupList", 0x0006: "LanguageBaseAttributeIDList",
        0x0007: "ServiceInfoTimeToLive", 0x0008: "ServiceAvailability", 0x0009: "BluetoothProfileDescriptorList",
        0x000A: "DocumentationURL", 0x000B: "ClientExecutableURL", 0x000C: "IconURL",
        0x000D: "AdditionalProtocolDescriptorLists",
        // Offsets from the primary language base 0x0100.
        0x0100: "ServiceName", 0x0101: "ServiceDescription", 0x0102: "ProviderName",
    ]

    /// Attributes whose meaning depends on the service class (the profiles' own IDs).
    static func attribute(_ id: UInt16, serviceClasses: [UInt16]) -> String? {
        if let name = attributes[id] { return name }
        let has = { (classes: Set<UInt16>) in serviceClasses.contains { classes.contains($0) } }
        switch id {
        case 0x0200 where has([0x1000]): return "VersionNumberList"
        case 0x0201 where has([0x1000]): return "ServiceDatabaseState"
        case 0x0200 where has([0x1001]): return "GroupID"
        case 0x0200 where has([0x1200]): return "SpecificationID"
        case 0x0201 where has([0x1200]): return "VendorID"
        case 0x0202 where has([0x1200]): return "ProductID"
        case 0x0203 where has([0x1200]): return "Version"
        case 0x0204 where has([0x1200]): return "PrimaryRecord"
        case 0x0205 where has([0x1200]): return "VendorIDSource"
        case 0x0200 where has([0x1105, 0x1106, 0x112F, 0x1132, 0x1133]): return "GoepL2capPsm"
        case 0x0301 where has([0x111F]): return "Network"
        case 0x0302 where has([0x1108, 0x1131]): return "RemoteAudioVolumeControl"
        case 0x0311: return "SupportedFeatures"
        case 0x0201...0x0210 where has([0x1124]):
            return ["HIDParserVersion", "HIDDeviceSubclass", "HIDCountryCode", "HIDVirtualCable", "HIDReconnectInitiate",
                    "HIDDescriptorList", "HIDLANGIDBaseList", "HIDSDPDisable", "HIDBatteryPower", "HIDRemoteWake",
                    "HIDProfileVersion", "HIDSupervisionTimeout", "HIDNormallyConnectable", "HIDBootDevice",
                    "HIDSSRHostMaxLatency", "HIDSSRHostMinTimeout"][Int(id - 0x0201)]
        case 0x030A where has([0x1115, 0x1116, 0x1117]): return "SecurityDescription"
        case 0x030B where has([0x1116, 0x1117]): return "NetAccessType"
        case 0x030C where has([0x1116, 0x1117]): return "MaxNetAccessrate"
        case 0x0314 where has([0x112F]): return "SupportedRepositories"
        case 0x0317 where has([0x112F, 0x1132]): return "PbapSupportedFeatures"
        default: return nil
        }
    }

    /// A UUID as SDP uses it: protocol, service class or profile name.
    static func name(_ uuid: BTUUID) -> String? {
        guard let short = uuid.uuid16 else { return nil }
        return protocols[short] ?? serviceClasses[short]
    }
}
