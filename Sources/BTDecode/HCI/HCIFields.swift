public enum HCIFields {
    public static let opcode = FieldDefinition("hci.opcode", "Opcode", .uint16, "HCI command opcode (OGF << 10 | OCF)")
    public static let ogf = FieldDefinition("hci.ogf", "OGF", .uint8, "Opcode group field")
    public static let ocf = FieldDefinition("hci.ocf", "OCF", .uint16, "Opcode command field")
    public static let parameterLength = FieldDefinition("hci.plen", "Parameter Total Length", .uint8, "Length of the command or event parameters")
    public static let parameters = FieldDefinition("hci.parameters", "Parameters", .bytes, "Parameters not decoded further")
    public static let event = FieldDefinition("hci.event", "Event Code", .uint8, "HCI event code")
    public static let subevent = FieldDefinition("hci.subevent", "Subevent Code", .uint8, "LE Meta event subevent code")
    public static let status = FieldDefinition("hci.status", "Status", .uint8, "Status or error code of a command or event")
    public static let commandOpcode = FieldDefinition("hci.event_opcode", "Command Opcode", .uint16, "Opcode of the command a Command Complete or Command Status answers")
    public static let numCommands = FieldDefinition("hci.ncmd", "Num HCI Command Packets", .uint8, "Commands the controller can accept now")
    public static let handle = FieldDefinition("hci.handle", "Connection Handle", .uint16, "Connection handle in a command or event")
    public static let address = FieldDefinition("hci.address", "Address", .address, "Bluetooth device address in a command or event")
    public static let addressType = FieldDefinition("hci.address_type", "Address Type", .uint8, "Public (0), random (1) or identity types")
    public static let reason = FieldDefinition("hci.reason", "Reason", .uint8, "Disconnection reason (an HCI error code)")
    public static let role = FieldDefinition("hci.role", "Role", .uint8, "Central (0) or peripheral (1)")
    public static let linkType = FieldDefinition("hci.link_type", "Link Type", .uint8, "SCO (0), ACL (1) or eSCO (2)")
    public static let encryption = FieldDefinition("hci.encryption", "Encryption Enabled", .uint8, "Encryption state from Encryption Change")
    public static let interval = FieldDefinition("hci.interval", "Connection Interval", .uint16, "LE connection interval in units of 1.25 ms")
    public static let latency = FieldDefinition("hci.latency", "Peripheral Latency", .uint16, "LE peripheral latency in connection events")
    public static let timeout = FieldDefinition("hci.supervision_timeout", "Supervision Timeout", .uint16, "LE supervision timeout in units of 10 ms")
    public static let completedPackets = FieldDefinition("hci.completed_packets", "Number Of Completed Packets", .uint16, "Packets completed on a handle")
    public static let numReports = FieldDefinition("hci.num_reports", "Num Reports", .uint8, "Reports in an advertising report event")
    public static let name = FieldDefinition("hci.name", "Name", .string, "Local or remote device name")
    public static let version = FieldDefinition("hci.version", "HCI Version", .uint8, "HCI version of the controller")
    public static let manufacturer = FieldDefinition("hci.manufacturer", "Manufacturer", .uint16, "Company identifier of the controller")
    public static let enable = FieldDefinition("hci.enable", "Enable", .uint8, "Enable flag of a set-enable command")
    public static let keySize = FieldDefinition("hci.key_size", "Encryption Key Size", .uint8, "Key size in bytes from Encryption Change v2")
    public static let primaryPHY = FieldDefinition("hci.primary_phy", "Primary PHY", .uint8, "PHY of the primary advertising channel")
    public static let secondaryPHY = FieldDefinition("hci.secondary_phy", "Secondary PHY", .uint8, "PHY of the secondary advertising channel")
    public static let sid = FieldDefinition("hci.advertising_sid", "Advertising SID", .uint8, "Advertising set identifier")
    public static let periodicInterval = FieldDefinition("hci.periodic_advertising_interval", "Periodic Advertising Interval", .uint16, "Periodic advertising interval in 1.25 ms units")
    public static let directAddressType = FieldDefinition("hci.direct_address_type", "Direct Address Type", .uint8, "Target address type of directed advertising")
    public static let directAddress = FieldDefinition("hci.direct_address", "Direct Address", .address, "Target address of directed advertising")

    public static let all = [opcode, ogf, ocf, parameterLength, parameters, event, subevent, status, commandOpcode,
                             numCommands, handle, address, addressType, reason, role, linkType, encryption, interval,
                             latency, timeout, completedPackets, numReports, name, version, manufacturer, enable, keySize,
                             primaryPHY, secondaryPHY, sid, periodicInterval, directAddressType, directAddress]
}

extension HCIFields {
    /// The hand-declared HCI fields by name: the parameter layouts reuse these before making their own.
    static let byName: [String: FieldDefinition] = Dictionary(all.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
}

public enum AdvertisingFields {
    public static let eventType = FieldDefinition("adv.event_type", "Event Type", .uint8, "Advertising report event type")
    public static let addressType = FieldDefinition("adv.address_type", "Address Type", .uint8, "Advertiser address type")
    public static let address = FieldDefinition("adv.address", "Address", .address, "Advertiser address")
    public static let rssi = FieldDefinition("adv.rssi", "RSSI", .int, "Received signal strength in dBm")
    public static let data = FieldDefinition("adv.data", "Data", .bytes, "Advertising data")
    public static let adType = FieldDefinition("adv.ad_type", "AD Structure", .uint8, "Type of each AD structure in advertising data or EIR")
    public static let flags = FieldDefinition("adv.flags", "Flags", .uint8, "Flags AD type: discoverable mode and BR/EDR support")
    public static let uuid = FieldDefinition("adv.uuid", "Service UUID", .uuid, "Service UUIDs listed or solicited")
    public static let name = FieldDefinition("adv.name", "Local Name", .string, "Complete or shortened local name")
    public static let txPower = FieldDefinition("adv.tx_power", "TX Power Level", .int, "Advertised TX power in dBm")
    public static let appearance = FieldDefinition("adv.appearance", "Appearance", .uint16, "GAP appearance value")
    public static let company = FieldDefinition("adv.company", "Company", .uint16, "Company identifier of manufacturer specific data")
    public static let manufacturerData = FieldDefinition("adv.manufacturer_data", "Manufacturer Data", .bytes, "Manufacturer specific data after the company identifier")
    public static let serviceDataUUID = FieldDefinition("adv.service_data_uuid", "Service Data UUID", .uuid, "UUID of a service data AD structure")
    public static let serviceData = FieldDefinition("adv.service_data", "Service Data", .bytes, "Service data after its UUID")
    public static let uri = FieldDefinition("adv.uri", "URI", .string, "Advertised URI with its scheme")
    public static let leRole = FieldDefinition("adv.le_role", "LE Role", .uint8, "Supported and preferred LE roles")
    public static let interval = FieldDefinition("adv.interval", "Advertising Interval", .uint16, "Advertising interval in 0.625 ms units")
    public static let classOfDevice = FieldDefinition("adv.class_of_device", "Class of Device", .uint32, "Class of Device in EIR")
    public static let all = [eventType, addressType, address, rssi, data, adType, flags, uuid, name, txPower, appearance,
                             company, manufacturerData, serviceDataUUID, serviceData, uri, leRole, interval, classOfDevice]
}

public enum DataFields {
    public static let aclHandle = FieldDefinition("acl.handle", "Handle", .uint16, "ACL connection handle")
    public static let aclPB = FieldDefinition("acl.pb", "Packet Boundary Flag", .uint8, "0 first non-flushable, 1 continuing, 2 first flushable, 3 complete")
    public static let aclBC = FieldDefinition("acl.bc", "Broadcast Flag", .uint8, "0 point-to-point")
    public static let aclLength = FieldDefinition("acl.length", "Data Total Length", .uint16, "ACL payload length")
    public static let scoHandle = FieldDefinition("sco.handle", "Handle", .uint16, "SCO connection handle")
    public static let scoStatus = FieldDefinition("sco.status", "Packet Status Flag", .uint8, "Erroneous data reporting status")
    public static let scoLength = FieldDefinition("sco.length", "Data Total Length", .uint8, "SCO payload length")
    public static let isoHandle = FieldDefinition("iso.handle", "Handle", .uint16, "ISO connection handle")
    public static let isoPB = FieldDefinition("iso.pb", "Packet Boundary Flag", .uint8, "0 first fragment, 1 continuation, 2 complete, 3 last")
    public static let isoTS = FieldDefinition("iso.ts", "Time Stamp Flag", .uint8, "1 when a time stamp is present")
    public static let isoLength = FieldDefinition("iso.length", "Data Total Length", .uint16, "ISO data load length")
    public static let scoCodec = FieldDefinition("sco.codec", "Codec", .string, "What the link carries: CVSD, mSBC, LC3-SWB (HFP's choice on the ACL link) or the air mode")
    public static let scoH2Sequence = FieldDefinition("sco.h2_sequence", "H2 Sequence", .uint8, "mSBC/LC3-SWB frame sequence number 0-3 from the H2 header")
    public static let isoTimestamp = FieldDefinition("iso.timestamp", "Time Stamp", .uint32, "SDU time stamp in microseconds")
    public static let isoSequence = FieldDefinition("iso.sequence", "Packet Sequence Number", .uint16, "SDU sequence number; a gap is lost data")
    public static let isoSDULength = FieldDefinition("iso.sdu_length", "ISO SDU Length", .uint16, "Length of the whole SDU")
    public static let isoStatus = FieldDefinition("iso.status", "Packet Status Flag", .uint8, "Received SDU: 0 valid, 1 possibly invalid, 2 lost data")
    public static let payload = FieldDefinition("data.payload", "Data", .bytes, "Payload not decoded further")
    public static let all = [aclHandle, aclPB, aclBC, aclLength, scoHandle, scoStatus, scoLength, scoCodec, scoH2Sequence, isoHandle, isoPB,
                             isoTS, isoLength, isoTimestamp, isoSequence, isoSDULength, isoStatus, payload]
}

/// Parameters only the layouts declare (the rows of HCICommands and HCIEvents), that analysis reads: the layouts'
/// own definitions, found once by name here, next to HCI's other fields, so that no stage
/// outside BTDecode spells them. FieldRegistryTests checks each is the registry's.
extension HCIFields {
    static func declaredByLayouts(_ name: String) -> FieldDefinition {
        guard let field = FieldRegistry.lookup(name) else { preconditionFailure("no HCI layout declares \(name)") }
        return field
    }
    public static let newRole = declaredByLayouts("hci.new_role"), currentMode = declaredByLayouts("hci.current_mode")
    public static let hardwareCode = declaredByLayouts("hci.hardware_code"), remoteName = declaredByLayouts("hci.remote_name")
    public static let rssi = declaredByLayouts("hci.rssi")
    public static let txPHY = declaredByLayouts("hci.tx_phy"), rxPHY = declaredByLayouts("hci.rx_phy")
    public static let maxTxOctets = declaredByLayouts("hci.max_tx_octets"), maxTxTime = declaredByLayouts("hci.max_tx_time")
    public static let maxRxOctets = declaredByLayouts("hci.max_rx_octets"), maxRxTime = declaredByLayouts("hci.max_rx_time")
    public static let subrateFactor = declaredByLayouts("hci.subrate_factor"), peripheralLatency = declaredByLayouts("hci.peripheral_latency")
    public static let intervalMin = declaredByLayouts("hci.interval_min"), intervalMax = declaredByLayouts("hci.interval_max")

    /// Every one of them (FieldRegistryTests).
    static var declaredByLayoutsAll: [FieldDefinition] {
        [newRole, currentMode, hardwareCode, remoteName, rssi, txPHY, rxPHY, maxTxOctets, maxTxTime, maxRxOctets, maxRxTime,
         subrateFactor, peripheralLatency, intervalMin, intervalMax]
    }
}
