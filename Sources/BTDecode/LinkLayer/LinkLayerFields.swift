/// The LE link layer's fields, named as Wireshark's btle dissector names them wherever it has
/// the field, so that a filter written for Wireshark reads the same here; btle.channel,
/// btle.rssi, btle.crc_ok, btle.direction and btle.handle are btlog's own (whichever sniffer
/// header they came from).
public enum LinkLayerFields {
    static let f = FieldDefinition.maker("btle")
    public static let accessAddress = f("access_address", "Access Address", .uint32, "The link's access address (0x8E89BED6 on advertising channels)")
    public static let channel = f("channel", "Channel Index", .uint8, "LE channel index 0-39 (37-39 primary advertising), from the sniffer's header")
    public static let rssi = f("rssi", "RSSI", .int, "Signal strength in dBm, from the sniffer's header")
    public static let direction = f("direction", "Direction", .string, "Central to Peripheral, Peripheral to Central, or Unknown where the sniffer does not say and the channel and timing cannot tell (data channel)")
    public static let handle = f("handle", "Connection", .uint16, "btlog's number for the connection (its access address), as an HCI handle")
    public static let crcOK = f("crc_ok", "CRC Valid", .bool, "Whether the CRC matches, as the sniffer checked or btlog computed")
    public static let crc = f("crc", "CRC", .uint32, "The 24-bit CRC as received")
    public static let encrypted = f("encrypted", "Encrypted", .bool, "The payload is encrypted (after LL_START_ENC)")
    public static let mic = f("mic", "MIC", .bytes, "Message integrity check of an encrypted payload")
    public static let decrypted = f("decrypted", "Decrypted", .bool, "btlog decrypted the payload (its MIC checked)")
    public static let micOK = f("mic_ok", "MIC Valid", .bool, "Whether an encrypted payload authenticates: with the key btlog found, or as the sniffer checked")
    public static let encryptedPayload = f("encrypted_payload", "Encrypted Payload", .bytes, "A payload btlog cannot decrypt")
    public static let retransmission = f("retransmission", "Retransmission", .bool, "The same sequence number and payload again from the same side: the peer did not acknowledge it")
    public static let acknowledgedDamaged = f("damaged_acknowledged", "Damaged at the Sniffer, Acknowledged In", .uint64, "The packet the sniffer received with a bad CRC, decoded all the same: the peer's next packet (this number) acknowledged it")
    public static let keySource = f("key_source", "Key", .string, "How btlog found the link's key, on the packet it first opened: \"STK of legacy pairing, TK 461140 (passkey search)\", \"LTK from --ltk\", \"LTK distributed in packet N\", \"LTK the host gave its controller in packet N (...)\" (a host's log merged with the air capture)")
    public static let missed = f("missed", "Missed Before", .uint64, "Packets of this link the sniffer missed just before this one (at least this many): the other side acknowledged a packet the sniffer never heard, or the sender's encrypted packet counter moved on by more than one")
    public static let secureConnections = f("le_secure_connections", "LE Secure Connections", .bool, "The link was paired with LE Secure Connections, whose key no sniffer can recover: give the LTK")

    // Advertising channel PDU header (Core Vol 6, Part B, 2.3)
    public static let advHeader = f("advertising_header", "Packet Header", .uint16, "Advertising channel PDU header")
    public static let pduType = f("advertising_header.pdu_type", "PDU Type", .uint8, "0 ADV_IND, 1 ADV_DIRECT_IND, 2 ADV_NONCONN_IND, 3 SCAN_REQ, 4 SCAN_RSP, 5 CONNECT_IND, 6 ADV_SCAN_IND, 7 ADV_EXT_IND/AUX, 8 AUX_CONNECT_RSP")
    public static let chSel = f("advertising_header.ch_sel", "Channel Selection Algorithm", .bool, "ChSel: the advertiser supports Channel Selection Algorithm #2")
    public static let txAdd = f("advertising_header.randomized_tx", "Tx Address", .bool, "TxAdd: the sender's address is random")
    public static let rxAdd = f("advertising_header.randomized_rx", "Rx Address", .bool, "RxAdd: the target's address is random")
    public static let advLength = f("advertising_header.length", "Length", .uint8, "Payload length")
    public static let advertisingAddress = f("advertising_address", "Advertising Address", .address, "AdvA")
    public static let initiatorAddress = f("initiator_address", "Initiator Address", .address, "InitA of CONNECT_IND")
    public static let targetAddress = f("target_address", "Target Address", .address, "TargetA of a directed PDU")
    public static let scanningAddress = f("scanning_address", "Scanning Address", .address, "ScanA of SCAN_REQ")

    // CONNECT_IND's LLData
    public static let connAccessAddress = f("link_layer_data.access_address", "Access Address", .uint32, "The new connection's access address")
    public static let crcInit = f("link_layer_data.crc_init", "CRC Init", .uint32, "The new connection's CRC initial value")
    public static let windowSize = f("link_layer_data.window_size", "Window Size", .uint8, "Transmit window size, 1.25 ms units")
    public static let windowOffset = f("link_layer_data.window_offset", "Window Offset", .uint16, "Transmit window offset, 1.25 ms units")
    public static let interval = f("link_layer_data.interval", "Interval", .uint16, "Connection interval, 1.25 ms units")
    public static let latency = f("link_layer_data.latency", "Latency", .uint16, "Peripheral latency, connection events")
    public static let timeout = f("link_layer_data.timeout", "Timeout", .uint16, "Supervision timeout, 10 ms units")
    public static let channelMap = f("link_layer_data.channel_map", "Channel Map", .bytes, "Used data channels, one bit each (37 bits)")
    public static let hop = f("link_layer_data.hop", "Hop", .uint8, "Hop increment of Channel Selection Algorithm #1")
    public static let sca = f("link_layer_data.sleep_clock_accuracy", "Sleep Clock Accuracy", .uint8, "Central's sleep clock accuracy code (0: 251-500 ppm ... 7: 0-20 ppm)")

    // Extended advertising (Core Vol 6, Part B, 2.3.4)
    public static let extHeaderLength = f("extended_advertising_header.length", "Extended Header Length", .uint8, "Length of the extended header")
    public static let advMode = f("extended_advertising_header.mode", "Advertising Mode", .uint8, "0 non-connectable non-scannable, 1 connectable, 2 scannable")
    public static let extFlags = f("extended_advertising_header.flags", "Extended Header Flags", .uint8, "Which extended header fields are present")
    public static let adiDID = f("extended_advertising.advertising_data_info.did", "Advertising Data ID", .uint16, "ADI's DID")
    public static let adiSID = f("extended_advertising.advertising_data_info.sid", "Advertising Set ID", .uint16, "ADI's SID")
    public static let auxChannel = f("extended_advertising_header.aux_pointer.channel", "Aux Channel Index", .uint8, "Channel of the auxiliary packet")
    public static let auxOffset = f("extended_advertising_header.aux_pointer.aux_offset", "Aux Offset", .uint16, "When the auxiliary packet starts, in offset units")
    public static let auxPHY = f("extended_advertising_header.aux_pointer.aux_phy", "Aux PHY", .uint16, "0 LE 1M, 1 LE 2M, 2 LE Coded")
    /// SyncInfo's fields, as the extended header and LL_PERIODIC_SYNC_IND carry it.
    static func syncInfoNames(_ prefix: String) -> SyncInfo.Names {
        SyncInfo.Names(offset: f(prefix + "sync_offset", "Sync Offset", .uint16, "When the train's next packet starts, in offset units"),
                       units: f(prefix + "offset_units", "Offset Units", .bool, "0: 30 µs, 1: 300 µs"),
                       adjust: f(prefix + "offset_adjust", "Offset Adjust", .bool, "Add 2.4576 s to the offset"),
                       interval: f(prefix + "interval", "Interval", .uint16, "Periodic advertising interval, 1.25 ms units"),
                       channelMap: f(prefix + "channel_map", "Channel Map", .bytes, "The train's data channels (37 bits; the top 3 bits are the SCA)"),
                       sca: f(prefix + "sleep_clock_accuracy", "Sleep Clock Accuracy", .uint8, "The advertiser's sleep clock accuracy code"),
                       accessAddress: f(prefix + "access_address", "Access Address", .uint32, "Access address of the periodic advertising train"),
                       crcInit: f(prefix + "crc_init", "CRC Init", .uint32, "The train's CRC initial value"),
                       eventCounter: f(prefix + "event_counter", "Event Counter", .uint16, "paEventCounter"))
    }
    static let extendedSyncInfo = syncInfoNames("extended_advertising_header.sync_info.")
    static let controlSyncInfo = syncInfoNames("control.sync_info.")
    public static let codingIndicator = f("coding_indicator", "Coding Indicator", .uint8, "LE Coded PHY: 0 the PDU coded with S=8, 1 with S=2")
    public static let acadType = f("extended_advertising_header.acad.type", "ACAD Type", .uint8, "AD type of an ACAD structure btlog does not read field by field")
    public static let txPower = f("extended_advertising_header.tx_power", "TX Power", .int, "Advertiser's transmit power, dBm")
    public static let cteInfo = f("extended_advertising_header.cte_info", "CTE Info", .uint8, "Constant tone extension time and type")
    public static let acad = f("extended_advertising_header.acad", "Additional Controller Advertising Data", .bytes, "ACAD")

    // Data channel PDU header (Core Vol 6, Part B, 2.4)
    public static let llid = f("data_header.llid", "LLID", .uint8, "1 continuation or empty, 2 start or complete L2CAP, 3 LL Control")
    public static let nesn = f("data_header.next_expected_sequence_number", "Next Expected Sequence Number", .uint8, "NESN")
    public static let sn = f("data_header.sequence_number", "Sequence Number", .uint8, "SN")
    public static let moreData = f("data_header.more_data", "More Data", .bool, "MD: the sender has more to send in this event")
    public static let ctePresent = f("data_header.cte_info_present", "CTE Info", .bool, "CP: a CTEInfo byte follows the header")
    public static let dataLength = f("data_header.length", "Length", .uint8, "Payload length (MIC included when encrypted)")

    // LL Control PDUs (Core Vol 6, Part B, 2.4.2)
    public static let controlOpcode = f("control_opcode", "Control Opcode", .uint8, "LL Control PDU opcode")
    public static let windowSizeUpdate = f("control.window_size", "Window Size", .uint8, "Transmit window size, 1.25 ms units")
    public static let windowOffsetUpdate = f("control.window_offset", "Window Offset", .uint16, "Transmit window offset, 1.25 ms units")
    public static let intervalUpdate = f("control.interval", "Interval", .uint16, "Connection interval, 1.25 ms units")
    public static let latencyUpdate = f("control.latency", "Latency", .uint16, "Peripheral latency, connection events")
    public static let timeoutUpdate = f("control.timeout", "Timeout", .uint16, "Supervision timeout, 10 ms units")
    public static let instant = f("control.instant", "Instant", .uint16, "Connection event counter at which the change applies")
    public static let channelMapUpdate = f("control.channel_map", "Channel Map", .bytes, "Used data channels (37 bits)")
    public static let errorCode = f("control.error_code", "Error Code", .uint8, "HCI error code")
    public static let randomNumber = f("control.random_number", "Rand", .uint64, "Rand of the LTK (LL_ENC_REQ)")
    public static let ediv = f("control.encrypted_diversifier", "EDIV", .uint16, "Encrypted diversifier (LL_ENC_REQ)")
    public static let skdC = f("control.master_session_key_diversifier", "SKDc", .uint64, "Central's session key diversifier")
    public static let ivC = f("control.master_session_initialization_vector", "IVc", .uint32, "Central's part of the initialization vector")
    public static let skdP = f("control.slave_session_key_diversifier", "SKDp", .uint64, "Peripheral's session key diversifier")
    public static let ivP = f("control.slave_session_initialization_vector", "IVp", .uint32, "Peripheral's part of the initialization vector")
    public static let unknownType = f("control.unknown_type", "Unknown Type", .uint8, "The opcode LL_UNKNOWN_RSP answers")
    public static let featureSet = f("control.feature_set", "Feature Set", .uint64, "LE features (Core Vol 6, Part B, 4.6)")
    public static let feature = f("control.feature", "Feature", .string, "A supported LE feature by name")
    public static let versionNumber = f("control.version_number", "Version Number", .uint8, "Link layer version (Assigned Numbers)")
    public static let companyID = f("control.company_id", "Company Id", .uint16, "Controller manufacturer")
    public static let subversionNumber = f("control.subversion_number", "Subversion Number", .uint16, "Implementation's own version")
    public static let intervalMin = f("control.interval.min", "Interval Min", .uint16, "1.25 ms units")
    public static let intervalMax = f("control.interval.max", "Interval Max", .uint16, "1.25 ms units")
    public static let preferredPeriodicity = f("control.preferred_periodicity", "Preferred Periodicity", .uint8, "Connection events")
    public static let referenceEventCount = f("control.reference_connection_event_count", "Reference Connection Event Count", .uint16, "The event the offsets count from")
    public static let offsets = f("control.offset", "Offset", .uint16, "Preferred anchor offsets, 1.25 ms units (0xFFFF: none)")
    public static let rejectOpcode = f("control.reject_opcode", "Reject Opcode", .uint8, "The opcode LL_REJECT_EXT_IND rejects")
    public static let maxRxOctets = f("control.max_rx_octets", "Max RX octets", .uint16, "Largest payload the sender receives")
    public static let maxRxTime = f("control.max_rx_time", "Max RX time", .uint16, "Microseconds")
    public static let maxTxOctets = f("control.max_tx_octets", "Max TX octets", .uint16, "Largest payload the sender transmits")
    public static let maxTxTime = f("control.max_tx_time", "Max TX time", .uint16, "Microseconds")
    public static let txPHYs = f("control.tx_phys", "TX PHYs", .uint8, "Bits: 0 LE 1M, 1 LE 2M, 2 LE Coded")
    public static let rxPHYs = f("control.rx_phys", "RX PHYs", .uint8, "Bits: 0 LE 1M, 1 LE 2M, 2 LE Coded")
    public static let phyCToP = f("control.m_to_s_phy", "Central to Peripheral PHY", .uint8, "Bits: 0 LE 1M, 1 LE 2M, 2 LE Coded (0: unchanged)")
    public static let phyPToC = f("control.s_to_m_phy", "Peripheral to Central PHY", .uint8, "Bits: 0 LE 1M, 1 LE 2M, 2 LE Coded (0: unchanged)")
    public static let phys = f("control.phys", "PHYs", .uint8, "Bits: 0 LE 1M, 1 LE 2M, 2 LE Coded")
    public static let minUsedChannels = f("control.min_used_channels", "Minimum Used Channels", .uint8, "Channels")
    public static let controlSCA = f("control.sleep_clock_accuracy", "Sleep Clock Accuracy", .uint8, "Sleep clock accuracy code")
    public static let cigID = f("control.cig_id", "CIG_ID", .uint8, "Connected isochronous group")
    public static let cisID = f("control.cis_id", "CIS_ID", .uint8, "Connected isochronous stream")
    public static let maxSDUCToP = f("control.max_sdu_m_to_s", "Max_SDU_C_To_P", .uint16, "Octets")
    public static let maxSDUPToC = f("control.max_sdu_s_to_m", "Max_SDU_P_To_C", .uint16, "Octets")
    public static let framed = f("control.framed", "Framed", .bool, "Framed ISO data")
    public static let sduIntervalCToP = f("control.sdu_interval_m_to_s", "SDU_Interval_C_To_P", .uint32, "Microseconds")
    public static let sduIntervalPToC = f("control.sdu_interval_s_to_m", "SDU_Interval_P_To_C", .uint32, "Microseconds")
    public static let maxPDUCToP = f("control.max_pdu_m_to_s", "Max_PDU_C_To_P", .uint16, "Octets")
    public static let maxPDUPToC = f("control.max_pdu_s_to_m", "Max_PDU_P_To_C", .uint16, "Octets")
    public static let nse = f("control.num_sub_events", "NSE", .uint8, "Subevents per ISO interval")
    public static let subInterval = f("control.sub_interval", "Sub_Interval", .uint32, "Microseconds")
    public static let bnCToP = f("control.bn_m_to_s", "BN_C_To_P", .uint8, "Burst number")
    public static let bnPToC = f("control.bn_s_to_m", "BN_P_To_C", .uint8, "Burst number")
    public static let ftCToP = f("control.ft_m_to_s", "FT_C_To_P", .uint8, "Flush timeout, ISO intervals")
    public static let ftPToC = f("control.ft_s_to_m", "FT_P_To_C", .uint8, "Flush timeout, ISO intervals")
    public static let isoInterval = f("control.iso_interval", "ISO_Interval", .uint16, "1.25 ms units")
    public static let cisOffsetMin = f("control.cis_offset_min", "CIS_Offset_Min", .uint32, "Microseconds")
    public static let cisOffsetMax = f("control.cis_offset_max", "CIS_Offset_Max", .uint32, "Microseconds")
    public static let connEventCount = f("control.conn_event_count", "connEventCount", .uint16, "Connection event the CIS offsets count from")
    public static let cisAccessAddress = f("control.access_address", "Access Address", .uint32, "The CIS's access address")
    public static let cisOffset = f("control.cis_offset", "CIS_Offset", .uint32, "Microseconds")
    public static let cigSyncDelay = f("control.cig_sync_delay", "CIG_Sync_Delay", .uint32, "Microseconds")
    public static let cisSyncDelay = f("control.cis_sync_delay", "CIS_Sync_Delay", .uint32, "Microseconds")
    public static let powerPHY = f("control.pwr_phy", "Power PHY", .uint8, "Bits: 0 LE 1M, 1 LE 2M, 2 LE Coded S=8, 3 LE Coded S=2")
    public static let powerDelta = f("control.delta", "Delta", .int, "Change of transmit power, dB")
    public static let powerTx = f("control.txpower", "TxPower", .int, "Transmit power, dBm (127: not available, 126: at maximum, -127: at minimum)")
    public static let powerFlags = f("control.pwrflags", "Power Flags", .uint8, "Bit 0 at minimum, bit 1 at maximum")
    public static let acceptableReduction = f("control.acceptable_power_reduction", "Acceptable Power Reduction", .uint8, "dB (0xFF: not available)")
    public static let subrateFactor = f("control.subrate_factor", "Subrate Factor", .uint16, "Connection events per subrated event")
    public static let subrateFactorMin = f("control.subrate_factor_min", "Subrate Factor Min", .uint16, "")
    public static let subrateFactorMax = f("control.subrate_factor_max", "Subrate Factor Max", .uint16, "")
    public static let subrateBaseEvent = f("control.subrate_base_event", "Subrate Base Event", .uint16, "")
    public static let continuationNumber = f("control.continuation_number", "Continuation Number", .uint16, "")
    public static let cteMinLength = f("control.cte.min_len_req", "MinCTELenReq", .uint8, "Minimum CTE length, 8 µs units")
    public static let cteType = f("control.cte.type_req", "CTETypeReq", .uint8, "0 AoA, 1 AoD 1 µs slots, 2 AoD 2 µs slots")
    public static let syncID = f("control.sync.id", "ID", .uint16, "The host's identifier of the periodic advertising")
    public static let syncConnEventCount = f("control.sync.conn_event_count", "connEventCount", .uint16, "")
    public static let syncLastPAEventCounter = f("control.sync.last_pa_event_counter", "lastPaEventCounter", .uint16, "")
    public static let syncSID = f("control.sync.sid", "SID", .uint8, "Advertising set")
    public static let syncAType = f("control.sync.atype", "AType", .bool, "The advertiser's address is random")
    public static let syncSCA = f("control.sync.sleep_clock_accuracy", "Sleep Clock Accuracy", .uint8, "")
    public static let syncAdvA = f("control.sync.adva", "AdvA", .address, "The periodic advertiser")
    public static let syncSyncConnEventCount = f("control.sync.sync_conn_event_count", "syncConnEventCount", .uint16, "")
    public static let reportingEnable = f("control.reporting_enable", "Enable", .bool, "Channel classification reporting on")
    public static let reportingMinSpacing = f("control.min_spacing", "Min_Spacing", .uint8, "200 ms units")
    public static let reportingMaxDelay = f("control.max_delay", "Max_Delay", .uint8, "200 ms units")
    public static let channelClassification = f("control.channel_classification", "Channel Classification", .bytes, "Two bits per data channel: 0 unknown, 1 good, 3 bad")
    public static let controlData = f("control.data", "Parameters", .bytes, "Control PDU parameters btlog does not read field by field")

    public static let payload = f("payload", "Payload", .bytes, "The PDU's payload")

    // Isochronous PDUs (Core Vol 6, Part B, 2.6): a CIS's and a BIS's header, BIG Control
    // PDUs, and framed PDUs' segments (Core Vol 6, Part G, 2).
    public static let closeIsochronousEvent = f("data_header.close_isochronous_event", "Close Isochronous Event", .bool, "CIE: the sender ends the CIS event after this packet")
    public static let nullPDU = f("data_header.null_pdu_indicator", "Null PDU Indicator", .bool, "NPI: a null PDU, no data")
    public static let controlSubeventSN = f("data_header.control_subevent_sequence_number", "Control Subevent Sequence Number", .uint8, "CSSN: the BIG Control PDU's sequence number")
    public static let controlSubeventFlag = f("data_header.control_subevent_transmission_flag", "Control Subevent Transmission Flag", .bool, "CSTF: a BIG Control PDU is sent in this event")
    public static let bigControlOpcode = f("big_control_opcode", "BIG Control Opcode", .uint8, "0 BIG_CHANNEL_MAP_IND, 1 BIG_TERMINATE_IND")
    public static let isochronousData = f("isochronous_data", "Isochronous Data", .bytes, "An ISO PDU's payload (an SDU or a fragment of one)")
    public static let segmentContinuation = f("iso.segment.sc", "Segment Continuation", .bool, "SC: the segment continues an SDU")
    public static let segmentComplete = f("iso.segment.cmplt", "Segment Complete", .bool, "CMPLT: the segment ends its SDU")
    public static let segmentLength = f("iso.segment.length", "Segment Length", .uint8, "Bytes after the segmentation header")
    public static let segmentTimeOffset = f("iso.segment.time_offset", "Time Offset", .uint32, "Microseconds from the SDU's reference to the BIG/CIG reference (a first segment)")
    public static let segmentData = f("iso.segment.data", "Segment Data", .bytes, "The segment's SDU bytes")

    public static let all = [accessAddress, channel, rssi, direction, handle, crcOK, crc, encrypted, mic, decrypted, micOK, encryptedPayload, retransmission, acknowledgedDamaged, missed, keySource, secureConnections,
                             advHeader, pduType, chSel, txAdd, rxAdd, advLength, advertisingAddress, initiatorAddress, targetAddress,
                             scanningAddress, connAccessAddress, crcInit, windowSize, windowOffset, interval, latency, timeout, channelMap,
                             hop, sca, extHeaderLength, advMode, extFlags, adiDID, adiSID, auxChannel, auxOffset, auxPHY, txPower, cteInfo, acad, llid, nesn, sn, moreData, ctePresent, dataLength,
                             controlOpcode, windowSizeUpdate, windowOffsetUpdate, intervalUpdate, latencyUpdate, timeoutUpdate, instant,
                             channelMapUpdate, errorCode, randomNumber, ediv, skdC, ivC, skdP, ivP, unknownType, featureSet, feature,
                             versionNumber, companyID, subversionNumber, intervalMin, intervalMax, preferredPeriodicity,
                             referenceEventCount, offsets, rejectOpcode, maxRxOctets, maxRxTime, maxTxOctets, maxTxTime, txPHYs, rxPHYs,
                             phyCToP, phyPToC, phys, minUsedChannels, controlSCA, cigID, cisID, maxSDUCToP, maxSDUPToC, framed,
                             sduIntervalCToP, sduIntervalPToC, maxPDUCToP, maxPDUPToC, nse, subInterval, bnCToP, bnPToC, ftCToP, ftPToC,
                             isoInterval, cisOffsetMin, cisOffsetMax, connEventCount, cisAccessAddress, cisOffset, cigSyncDelay,
                             cisSyncDelay, powerPHY, powerDelta, powerTx, powerFlags, acceptableReduction, subrateFactor,
                             subrateFactorMin, subrateFactorMax, subrateBaseEvent, continuationNumber, cteMinLength, cteType, syncID, syncConnEventCount, syncLastPAEventCounter,
                             syncSID, syncAType, syncSCA, syncAdvA, syncSyncConnEventCount, reportingEnable, reportingMinSpacing,
                             reportingMaxDelay, channelClassification, controlData, payload, codingIndicator, acadType,
                             closeIsochronousEvent, nullPDU, controlSubeventSN, controlSubeventFlag, bigControlOpcode, isochronousData,
                             segmentContinuation, segmentComplete, segmentLength, segmentTimeOffset, segmentData]
        + syncInfoFields(extendedSyncInfo) + syncInfoFields(controlSyncInfo) + BIGInfoFields.all

    static func syncInfoFields(_ n: SyncInfo.Names) -> [FieldDefinition] {
        [n.offset, n.units, n.adjust, n.interval, n.channelMap, n.sca, n.accessAddress, n.crcInit, n.eventCounter]
    }
}

/// The sniffers' own headers, named as Wireshark's nordic_ble and btle_rf dissectors name them.
public enum SnifferHeaderFields {
    static let n = FieldDefinition.maker("nordic_ble")
    public static let boardID = n("board_id", "Board", .uint8, "The sniffer board's number")
    public static let payloadLength = n("plen", "Length of payload", .uint16, "Bytes after the 6-byte header")
    public static let protocolVersion = n("protover", "Protocol version", .uint8, "nRF Sniffer protocol version (2 or 3)")
    public static let packetCounter = n("packet_counter", "Packet counter", .uint16, "The sniffer's count of packets sent to the host")
    public static let packetID = n("packet_id", "Packet ID", .uint8, "0x02 advertising PDU (version 3), 0x06 packet")
    public static let packetLength = n("len", "Length of packet", .uint8, "Bytes of the packet header, this byte included")
    public static let flags = n("flags", "Flags", .uint8, "Bit 0 CRC OK, 1 direction, 2 encrypted, 3 MIC OK (address resolved on advertising channels), 4-6 PHY")
    public static let crcOK = n("crcok", "CRC", .bool, "The sniffer found the CRC good")
    public static let direction = n("direction", "Direction", .bool, "1: Central to Peripheral")
    public static let encrypted = n("encrypted", "Encrypted", .bool, "The sniffer found the link encrypted")
    public static let micOK = n("micok", "MIC", .bool, "The sniffer found the MIC good")
    public static let phy = n("phy", "PHY", .uint8, "0 LE 1M, 1 LE 2M, 2 LE Coded")
    public static let channel = n("channel", "Channel Index", .uint8, "LE channel index")
    public static let rssi = n("rssi", "RSSI", .int, "dBm")
    public static let eventCounter = n("event_counter", "Event counter", .uint16, "Connection event counter")
    public static let deltaTime = n("delta_time", "Delta time (end to start)", .uint32, "Microseconds from the end of the previous packet (version 2)")
    public static let time = n("time", "Timestamp", .uint32, "The sniffer's clock at the packet, microseconds (version 3)")

    static let r = FieldDefinition.maker("btle_rf")
    public static let rfChannel = r("channel", "RF Channel", .uint8, "RF channel 0-39 (2402 + 2n MHz)")
    public static let signal = r("signal_dbm", "Signal dBm", .int, "Signal power")
    public static let noise = r("noise_dbm", "Noise dBm", .int, "Noise power")
    public static let offenses = r("access_address_offenses", "Access Address Offenses", .uint8, "Bits of the access address that did not match")
    public static let referenceAccessAddress = r("reference_access_address", "Reference Access Address", .uint32, "The access address the receiver looked for")
    public static let rfFlags = r("flags", "Flags", .uint16, "Which values are valid, CRC and MIC checks, PDU type, PHY")
    public static let pduType = r("pdu_type", "PDU Type", .uint16, "0 advertising or data (direction unknown), 1 auxiliary advertising, 2 data C→P, 3 data P→C, 4/5 CIS, 6 BIS")
    public static let crcChecked = r("flags.crc_checked", "CRC Checked", .bool, "")
    public static let crcValid = r("flags.crc_valid", "CRC Valid", .bool, "")
    public static let micChecked = r("flags.mic_checked", "MIC Checked", .bool, "")
    public static let micValid = r("flags.mic_valid", "MIC Valid", .bool, "")
    public static let decrypted = r("flags.decrypted", "Decrypted", .bool, "The payload was decrypted by the sniffer")
    public static let rfPHY = r("phy", "PHY", .uint16, "0 LE 1M, 1 LE 2M, 2 LE Coded")

    static let p = FieldDefinition.maker("ppi")
    public static let ppiVersion = p("version", "Version", .uint8, "PPI header version (0)")
    public static let ppiFlags = p("flags", "Flags", .uint8, "Bit 0: fields 32-bit aligned")
    public static let ppiLength = p("length", "Header length", .uint16, "Bytes of the PPI header and its fields")
    public static let ppiDLT = p("dlt", "DLT", .uint32, "The data link of the packet after the header (147 DLT_USER0: Ubertooth's LE link layer)")
    public static let ppiFieldType = p("field_type", "Field type", .uint16, "30006: Ubertooth's BTLE field")
    public static let ppiFieldLength = p("field_len", "Field length", .uint16, "Bytes of the field's data")
    public static let ppiBTLEChannel = p("btle.channel", "Channel", .uint16, "Ubertooth's BTLE field: the frequency in MHz (or RF channel)")
    public static let ppiBTLEClock = p("btle.clk100ns", "Clock", .uint32, "Ubertooth's clock at the packet, 100 ns units")
    public static let ppiBTLERSSIMax = p("btle.rssi_max", "RSSI Max", .int, "dBm")
    public static let ppiBTLERSSIMin = p("btle.rssi_min", "RSSI Min", .int, "dBm")
    public static let ppiBTLERSSIAvg = p("btle.rssi_avg", "RSSI Average", .int, "dBm")
    public static let ppiBTLERSSICount = p("btle.rssi_count", "RSSI Count", .uint8, "Samples averaged")

    public static let ppi = [ppiVersion, ppiFlags, ppiLength, ppiDLT, ppiFieldType, ppiFieldLength, ppiBTLEChannel, ppiBTLEClock,
                             ppiBTLERSSIMax, ppiBTLERSSIMin, ppiBTLERSSIAvg, ppiBTLERSSICount]

    public static let nordic = [boardID, payloadLength, protocolVersion, packetCounter, packetID, packetLength, flags, crcOK, direction,
                                encrypted, micOK, phy, channel, rssi, eventCounter, deltaTime, time]
    public static let radio = [rfChannel, signal, noise, offenses, referenceAccessAddress, rfFlags, pduType, crcChecked, crcValid,
                               micChecked, micValid, decrypted, rfPHY]
}
