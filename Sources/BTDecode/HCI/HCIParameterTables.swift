import Foundation

/// Parameter layouts of HCI commands, their Command Complete return parameters (after the
/// status), events and LE subevents, in the notation of HCIParam. Packets whose decoding
/// changes Session state (connections, addresses, names) keep their hand-written decoders.
enum HCIParameterTables {
    static let commandSpecs: [UInt16: String] = [
        // Link Control
        0x0401: "u24 LAP, !t128 Inquiry_Length, u8 Num_Responses",
        0x0403: "u16 Max_Period_Length, u16 Min_Period_Length, u24 LAP, t128 Inquiry_Length, u8 Num_Responses",
        0x0405: "A, u16 Packet_Type, u8 Page_Scan_Repetition_Mode, u8 Reserved, u16 Clock_Offset, u8 Allow_Role_Switch",
        0x0406: "H, R", 0x0408: "A", 0x0409: "A, role Role", 0x040A: "A, R",
        0x040B: "A, b16 Link_Key", 0x040C: "A", 0x040D: "A, u8 PIN_Code_Length, b16 PIN_Code", 0x040E: "A",
        0x040F: "H, u16 Packet_Type", 0x0411: "H", 0x0413: "H, en Encryption_Enable", 0x0415: "H", 0x0417: "u8 Key_Flag",
        0x0419: "A, u8 Page_Scan_Repetition_Mode, u8 Reserved, u16 Clock_Offset", 0x041A: "A",
        0x041B: "H", 0x041C: "H, u8 Page_Number", 0x041D: "H", 0x041F: "H",
        0x0428: "H, u32 Transmit_Bandwidth, u32 Receive_Bandwidth, u16 Max_Latency, u16 Voice_Setting, u8 Retransmission_Effort, u16 Packet_Type",
        0x0429: "A, u32 Transmit_Bandwidth, u32 Receive_Bandwidth, u16 Max_Latency, u16 Voice_Setting, u8 Retransmission_Effort, u16 Packet_Type",
        0x042A: "A, R",
        0x042B: "A, !io IO_Capability, u8 OOB_Data_Present, !auth Authentication_Requirements",
        0x042C: "A", 0x042D: "A", 0x042E: "A, u32 Numeric_Value", 0x042F: "A",
        0x0430: "A, b16 C, b16 R_Value", 0x0433: "A", 0x0434: "A, R",
        0x0445: "A, b16 C_192, b16 R_192, b16 C_256, b16 R_256",
        // Link Policy
        0x0801: "H, t625 Hold_Mode_Max_Interval, t625 Hold_Mode_Min_Interval",
        0x0803: "H, !t625 Sniff_Max_Interval, !t625 Sniff_Min_Interval, u16 Sniff_Attempt, u16 Sniff_Timeout",
        0x0804: "H", 0x0809: "H", 0x080B: "A, role Role", 0x080C: "H", 0x080D: "H, u16 Link_Policy_Settings",
        0x080F: "u16 Default_Link_Policy_Settings",
        0x0811: "H, u16 Max_Latency, u16 Min_Remote_Timeout, u16 Min_Local_Timeout",
        // Controller & Baseband
        0x0C01: "u64 Event_Mask", 0x0C0D: "A, u8 Read_All", 0x0C11: "u8 Num_Keys_To_Write, [A, b16 Link_Key]",
        0x0C12: "A, u8 Delete_All", 0x0C13: "name Name", 0x0C16: "t625 Connection_Accept_Timeout", 0x0C18: "t625 Page_Timeout",
        0x0C1A: "!u8 Scan_Enable", 0x0C1C: "t625 Page_Scan_Interval, t625 Page_Scan_Window",
        0x0C1E: "t625 Inquiry_Scan_Interval, t625 Inquiry_Scan_Window", 0x0C20: "u8 Authentication_Enable",
        0x0C24: "!cod Class_Of_Device", 0x0C26: "u16 Voice_Setting", 0x0C28: "H, t625 Flush_Timeout",
        0x0C2D: "H, u8 Type", 0x0C31: "u8 Flow_Control_Enable",
        0x0C33: "u16 Host_ACL_Data_Packet_Length, u8 Host_Synchronous_Data_Packet_Length, u16 Host_Total_Num_ACL_Data_Packets, u16 Host_Total_Num_Synchronous_Data_Packets",
        0x0C35: "u8 Num_Handles, [H, u16 Host_Num_Completed_Packets]",
        0x0C36: "H", 0x0C37: "H, t625 Link_Supervision_Timeout", 0x0C3A: "u8 Num_Current_IAC, [u24 IAC_LAP]",
        0x0C43: "u8 Inquiry_Scan_Type", 0x0C45: "u8 Inquiry_Mode", 0x0C47: "u8 Page_Scan_Type",
        0x0C52: "u8 FEC_Required, eir Extended_Inquiry_Response", 0x0C53: "H",
        0x0C56: "en Simple_Pairing_Mode", 0x0C59: "i8 TX_Power", 0x0C5B: "u8 Erroneous_Data_Reporting",
        0x0C5F: "H, u8 Packet_Type", 0x0C60: "A, u8 Notification_Type", 0x0C63: "u64 Event_Mask_Page_2",
        0x0C6D: "u8 LE_Supported_Host, u8 Unused", 0x0C7A: "en Secure_Connections_Host_Support",
        0x0C7B: "H", 0x0C7C: "H, t10 Authenticated_Payload_Timeout",
        // Informational, Status
        0x1004: "u8 Page_Number", 0x100E: "b5 Codec_ID, u8 Logical_Transport_Type, u8 Direction",
        0x100F: "b5 Codec_ID, u8 Logical_Transport_Type, u8 Direction, u8 Codec_Configuration_Length, rest", 0x1401: "H", 0x1402: "H", 0x1403: "H", 0x1405: "H", 0x1406: "H",
        0x1407: "H, u8 Which_Clock", 0x1408: "H",
        // LE Controller
        0x2001: "u64 LE_Event_Mask", 0x2005: "A Random_Address",
        0x2006: "!t625 Advertising_Interval_Min, !t625 Advertising_Interval_Max, !u8 Advertising_Type, at Own_Address_Type, at Peer_Address_Type, A Peer_Address, u8 Advertising_Channel_Map, u8 Advertising_Filter_Policy",
        0x2008: "ad Advertising_Data", 0x2009: "ad Scan_Response_Data", 0x200A: "en Advertising_Enable",
        0x200B: "!u8 LE_Scan_Type, !t625 LE_Scan_Interval, !t625 LE_Scan_Window, at Own_Address_Type, u8 Scanning_Filter_Policy",
        0x200C: "en LE_Scan_Enable, u8 Filter_Duplicates",
        0x200D: "t625 LE_Scan_Interval, t625 LE_Scan_Window, u8 Initiator_Filter_Policy, at Peer_Address_Type, A Peer_Address, at Own_Address_Type, t1250 Connection_Interval_Min, t1250 Connection_Interval_Max, u16 Max_Latency, t10 Supervision_Timeout, t625 Min_CE_Length, t625 Max_CE_Length",
        0x2011: "at Address_Type, A Address", 0x2012: "at Address_Type, A Address",
        0x2013: "H, !t1250 Connection_Interval_Min, !t1250 Connection_Interval_Max, u16 Max_Latency, t10 Supervision_Timeout, t625 Min_CE_Length, t625 Max_CE_Length",
        0x2014: "b5 Channel_Map", 0x2015: "H", 0x2016: "H", 0x2017: "b16 Key, b16 Plaintext_Data",
        0x2019: "H, u64 Random_Number, u16 Encrypted_Diversifier, b16 Long_Term_Key",
        0x201A: "H, b16 Long_Term_Key", 0x201B: "H", 0x201D: "u8 RX_Channel",
        0x201E: "u8 TX_Channel, u8 Test_Data_Length, u8 Packet_Payload",
        0x2020: "H, t1250 Interval_Min, t1250 Interval_Max, u16 Max_Latency, t10 Timeout, t625 Min_CE_Length, t625 Max_CE_Length",
        0x2021: "H, R", 0x2022: "H, !u16 TX_Octets, !u16 TX_Time", 0x2024: "u16 Suggested_Max_TX_Octets, u16 Suggested_Max_TX_Time",
        0x2026: "b32 Key_X_Coordinate, b32 Key_Y_Coordinate",
        0x2027: "at Peer_Identity_Address_Type, A Peer_Identity_Address, b16 Peer_IRK, b16 Local_IRK",
        0x2028: "at Peer_Identity_Address_Type, A Peer_Identity_Address",
        0x202B: "at Peer_Identity_Address_Type, A Peer_Identity_Address", 0x202C: "at Peer_Identity_Address_Type, A Peer_Identity_Address",
        0x202D: "en Address_Resolution_Enable", 0x202E: "s RPA_Timeout", 0x2030: "H",
        0x2031: "u8 All_PHYs, !phys TX_PHYs, !phys RX_PHYs", 0x2032: "H, u8 All_PHYs, phys TX_PHYs, phys RX_PHYs, u16 PHY_Options",
        0x2033: "u8 RX_Channel, phy PHY, u8 Modulation_Index", 0x2034: "u8 TX_Channel, u8 Test_Data_Length, u8 Packet_Payload, phy PHY",
        0x2035: "u8 Advertising_Handle, A Random_Address",
        0x2036: "u8 Advertising_Handle, u16 Advertising_Event_Properties, t625x3 Primary_Advertising_Interval_Min, t625x3 Primary_Advertising_Interval_Max, u8 Primary_Advertising_Channel_Map, at Own_Address_Type, at Peer_Address_Type, A Peer_Address, u8 Advertising_Filter_Policy, i8 Advertising_TX_Power, phy Primary_Advertising_PHY, u8 Secondary_Advertising_Max_Skip, phy Secondary_Advertising_PHY, u8 Advertising_SID, u8 Scan_Request_Notification_Enable",
        0x2037: "u8 Advertising_Handle, u8 Operation, u8 Fragment_Preference, ad Advertising_Data",
        0x2038: "u8 Advertising_Handle, u8 Operation, u8 Fragment_Preference, ad Scan_Response_Data",
        0x2039: "en Enable, u8 Num_Sets, [u8 Advertising_Handle, t10 Duration, u8 Max_Extended_Advertising_Events]",
        0x203C: "u8 Advertising_Handle",
        0x203E: "u8 Advertising_Handle, t1250 Periodic_Advertising_Interval_Min, t1250 Periodic_Advertising_Interval_Max, u16 Periodic_Advertising_Properties",
        0x203F: "u8 Advertising_Handle, u8 Operation, ad Advertising_Data", 0x2040: "en Enable, u8 Advertising_Handle",
        0x2041: "at Own_Address_Type, u8 Scanning_Filter_Policy, phys Scanning_PHYs, rest",
        0x2042: "en Enable, u8 Filter_Duplicates, t10 Duration, u16 Period",
        0x2043: "u8 Initiator_Filter_Policy, at Own_Address_Type, at Peer_Address_Type, A Peer_Address, phys Initiating_PHYs, rest",
        0x2044: "u8 Options, u8 Advertising_SID, at Advertiser_Address_Type, A Advertiser_Address, u16 Skip, t10 Sync_Timeout, u8 Sync_CTE_Type",
        0x2046: "u16 Sync_Handle", 0x2047: "at Advertiser_Address_Type, A Advertiser_Address, u8 Advertising_SID",
        0x2048: "at Advertiser_Address_Type, A Advertiser_Address, u8 Advertising_SID",
        0x204D: "i16 RF_TX_Path_Compensation_Value, i16 RF_RX_Path_Compensation_Value",
        0x204E: "at Peer_Identity_Address_Type, A Peer_Identity_Address, u8 Privacy_Mode",
        0x2052: "u8 Advertising_Handle, en CTE_Enable", 0x2057: "H, en Enable",
        0x2056: "H, en Enable, u16 CTE_Request_Interval, u8 Requested_CTE_Length, u8 Requested_CTE_Type",
        0x2059: "u16 Sync_Handle, en Enable", 0x205A: "H, u16 Service_Data, u16 Sync_Handle",
        0x205B: "H, u16 Service_Data, u8 Advertising_Handle", 0x205C: "H, u8 Mode, u16 Skip, t10 Sync_Timeout, u8 CTE_Type",
        0x205D: "u8 Mode, u16 Skip, t10 Sync_Timeout, u8 CTE_Type", 0x205E: "b32 Key_X_Coordinate, b32 Key_Y_Coordinate, u8 Key_Type",
        0x205F: "u8 Action", 0x2061: "H",
        0x2062: "u8 CIG_ID, u24 SDU_Interval_C_To_P, u24 SDU_Interval_P_To_C, u8 Worst_Case_SCA, u8 Packing, u8 Framing, u16 Max_Transport_Latency_C_To_P, u16 Max_Transport_Latency_P_To_C, u8 CIS_Count, [u8 CIS_ID, u16 Max_SDU_C_To_P, u16 Max_SDU_P_To_C, phys PHY_C_To_P, phys PHY_P_To_C, u8 RTN_C_To_P, u8 RTN_P_To_C]",
        0x2064: "u8 CIS_Count, [u16 CIS_Connection_Handle, u16 ACL_Connection_Handle]", 0x2065: "u8 CIG_ID",
        0x2066: "H", 0x2067: "H, R",
        0x2068: "u8 BIG_Handle, u8 Advertising_Handle, u8 Num_BIS, u24 SDU_Interval, u16 Max_SDU, u16 Max_Transport_Latency, u8 RTN, phys PHY, u8 Packing, u8 Framing, u8 Encryption, b16 Broadcast_Code",
        0x206A: "u8 BIG_Handle, R",
        0x206B: "u8 BIG_Handle, u16 Sync_Handle, u8 Encryption, b16 Broadcast_Code, u8 MSE, t10 BIG_Sync_Timeout, u8 Num_BIS, rest",
        0x206C: "u8 BIG_Handle", 0x206D: "H",
        0x206E: "H, u8 Data_Path_Direction, u8 Data_Path_ID, b5 Codec_ID, u24 Controller_Delay, u8 Codec_Configuration_Length, rest",
        0x206F: "H, u8 Data_Path_Direction", 0x2070: "H, u8 Payload_Type", 0x2071: "H, u8 Payload_Type", 0x2072: "H", 0x2073: "H",
        0x2074: "u8 Bit_Number, u8 Bit_Value", 0x2075: "H", 0x2076: "H, phy PHY", 0x2077: "H, phy PHY",
        0x2078: "H, u8 High_Threshold, u8 High_Hysteresis, u8 Low_Threshold, u8 Low_Hysteresis, u16 Min_Time_Spent",
        0x2079: "H, en Enable", 0x207A: "H, en Local_Enable, en Remote_Enable", 0x207C: "u8 Advertising_Handle, u8 Change_Reasons",
        0x207D: "u16 Subrate_Min, u16 Subrate_Max, u16 Max_Latency, u16 Continuation_Number, t10 Supervision_Timeout",
        0x207E: "H, u16 Subrate_Min, u16 Subrate_Max, u16 Max_Latency, u16 Continuation_Number, t10 Supervision_Timeout",
        0x207F: "u8 Advertising_Handle, u16 Advertising_Event_Properties, t625x3 Primary_Advertising_Interval_Min, t625x3 Primary_Advertising_Interval_Max, u8 Primary_Advertising_Channel_Map, at Own_Address_Type, at Peer_Address_Type, A Peer_Address, u8 Advertising_Filter_Policy, i8 Advertising_TX_Power, phy Primary_Advertising_PHY, u8 Secondary_Advertising_Max_Skip, phy Secondary_Advertising_PHY, u8 Advertising_SID, u8 Scan_Request_Notification_Enable, u8 Primary_Advertising_PHY_Options, u8 Secondary_Advertising_PHY_Options",
    ]

    /// Command Complete return parameters after the status byte.
    static let returnSpecs: [UInt16: String] = [
        0x0408: "A", 0x040B: "A", 0x040C: "A", 0x040D: "A", 0x040E: "A", 0x041A: "A", 0x042B: "A", 0x042C: "A",
        0x042D: "A", 0x042E: "A", 0x042F: "A", 0x0430: "A", 0x0433: "A", 0x0434: "A", 0x0445: "A",
        0x0809: "H, role Current_Role", 0x080C: "H, u16 Link_Policy_Settings", 0x080D: "H",
        0x080E: "u16 Default_Link_Policy_Settings", 0x0811: "H",
        0x0C0D: "u16 Max_Num_Keys, u16 Num_Keys_Read", 0x0C14: "name Name", 0x0C11: "u8 Num_Keys_Written", 0x0C12: "u16 Num_Keys_Deleted",
        0x0C15: "t625 Connection_Accept_Timeout", 0x0C17: "t625 Page_Timeout", 0x0C19: "!u8 Scan_Enable",
        0x0C1B: "t625 Page_Scan_Interval, t625 Page_Scan_Window", 0x0C1D: "t625 Inquiry_Scan_Interval, t625 Inquiry_Scan_Window",
        0x0C1F: "u8 Authentication_Enable", 0x0C23: "!cod Class_Of_Device", 0x0C25: "u16 Voice_Setting",
        0x0C27: "H, t625 Flush_Timeout", 0x0C28: "H", 0x0C2D: "H, i8 TX_Power_Level", 0x0C36: "H, t625 Link_Supervision_Timeout",
        0x0C37: "H", 0x0C38: "u8 Num_Supported_IAC", 0x0C39: "u8 Num_Current_IAC, [u24 IAC_LAP]", 0x0C42: "u8 Inquiry_Scan_Type",
        0x0C44: "u8 Inquiry_Mode", 0x0C46: "u8 Page_Scan_Type", 0x0C51: "u8 FEC_Required, eir Extended_Inquiry_Response",
        0x0C55: "en Simple_Pairing_Mode", 0x0C57: "b16 C, b16 R_Value", 0x0C58: "i8 TX_Power", 0x0C5A: "u8 Erroneous_Data_Reporting",
        0x0C6C: "u8 LE_Supported_Host, u8 Unused", 0x0C79: "en Secure_Connections_Host_Support",
        0x0C7B: "H, t10 Authenticated_Payload_Timeout", 0x0C7C: "H", 0x0C7D: "b16 C_192, b16 R_192, b16 C_256, b16 R_256",
        0x1001: "!u8 HCI_Version, u16 HCI_Subversion, u8 LMP_Version, !u16 Company_Identifier, u16 LMP_Subversion",
        0x1002: "b64 Supported_Commands", 0x1003: "u64 LMP_Features",
        0x1004: "u8 Page_Number, u8 Max_Page_Number, u64 Extended_LMP_Features",
        0x1005: "u16 ACL_Data_Packet_Length, u8 Synchronous_Data_Packet_Length, u16 Total_Num_ACL_Data_Packets, u16 Total_Num_Synchronous_Data_Packets",
        0x100B: "u8 Num_Supported_Standard_Codecs, [u8 Standard_Codec_ID], u8 Num_Supported_Vendor_Specific_Codecs, [u32 Vendor_Specific_Codec_ID]",
        0x100D: "u8 Num_Supported_Standard_Codecs, [u8 Standard_Codec_ID, u8 Standard_Codec_Transport], u8 Num_Supported_Vendor_Specific_Codecs, [u32 Vendor_Specific_Codec_ID, u8 Vendor_Specific_Codec_Transport]",
        0x100E: "u8 Num_Codec_Capabilities, rest", 0x100F: "u24 Min_Controller_Delay, u24 Max_Controller_Delay",
        0x1401: "H, u16 Failed_Contact_Counter", 0x1402: "H", 0x1403: "H, u8 Link_Quality", 0x1405: "H, !i8 RSSI",
        0x1406: "H, b10 AFH_Channel_Map", 0x1407: "H, u32 Clock, u16 Accuracy", 0x1408: "H, !u8 Key_Size",
        0x2002: "u16 LE_ACL_Data_Packet_Length, u8 Total_Num_LE_ACL_Data_Packets", 0x2003: "u64 LE_Features",
        0x2007: "i8 TX_Power_Level", 0x200F: "u8 Filter_Accept_List_Size", 0x2015: "H, b5 Channel_Map",
        0x2017: "b16 Encrypted_Data", 0x2018: "u64 Random_Number", 0x201A: "H", 0x201B: "H", 0x201C: "u64 LE_States",
        0x201F: "u16 Num_Packets", 0x2020: "H", 0x2021: "H", 0x2022: "H",
        0x2023: "u16 Suggested_Max_TX_Octets, u16 Suggested_Max_TX_Time", 0x202A: "u8 Resolving_List_Size",
        0x202B: "A Peer_Resolvable_Address", 0x202C: "A Local_Resolvable_Address",
        0x202F: "u16 Supported_Max_TX_Octets, u16 Supported_Max_TX_Time, u16 Supported_Max_RX_Octets, u16 Supported_Max_RX_Time",
        0x2030: "H, phy TX_PHY, phy RX_PHY", 0x2036: "i8 Selected_TX_Power", 0x203A: "u16 Max_Advertising_Data_Length",
        0x203B: "u8 Num_Supported_Advertising_Sets", 0x204A: "u8 Periodic_Advertiser_List_Size",
        0x204B: "i8 Min_TX_Power, i8 Max_TX_Power", 0x204C: "i16 RF_TX_Path_Compensation_Value, i16 RF_RX_Path_Compensation_Value",
        0x2058: "u8 Supported_Switching_Sampling_Rates, u8 Num_Antennae, u8 Max_Switching_Pattern_Length, u8 Max_CTE_Length",
        0x2060: "u16 LE_ACL_Data_Packet_Length, u8 Total_Num_LE_ACL_Data_Packets, u16 ISO_Data_Packet_Length, u8 Total_Num_ISO_Data_Packets",
        0x2061: "H, u16 Packet_Sequence_Number, u32 TX_Time_Stamp, u24 Time_Offset",
        0x2062: "u8 CIG_ID, u8 CIS_Count, [u16 CIS_Connection_Handle]", 0x2065: "u8 CIG_ID", 0x2067: "H", 0x206C: "u8 BIG_Handle",
        0x206E: "H", 0x206F: "H", 0x2070: "H", 0x2071: "H",
        0x2072: "H, u32 Received_SDU_Count, u32 Missed_SDU_Count, u32 Failed_SDU_Count",
        0x2073: "H, u32 Received_SDU_Count, u32 Missed_SDU_Count, u32 Failed_SDU_Count",
        0x2075: "H, u32 TX_UnACKed_Packets, u32 TX_Flushed_Packets, u32 TX_Last_Subevent_Packets, u32 Retransmitted_Packets, u32 CRC_Error_Packets, u32 RX_Unreceived_Packets, u32 Duplicate_Packets",
        0x2076: "H, phy PHY, i8 Current_TX_Power_Level, i8 Max_TX_Power_Level", 0x2078: "H", 0x2079: "H", 0x207A: "H",
    ]

    static let eventSpecs: [UInt8: String] = [
        0x01: "S", 0x04: "A, cod Class_Of_Device, !u8 Link_Type", 0x06: "S, H", 0x07: "S, A, name Remote_Name",
        0x09: "S, H", 0x0A: "S, H, u8 Key_Flag", 0x0B: "S, H, u64 LMP_Features",
        0x0C: "S, H, u8 Version, u16 Company_Identifier, u16 Subversion", 0x10: "u8 Hardware_Code", 0x11: "H",
        0x12: "S, A, !role New_Role", 0x14: "S, H, !u8 Current_Mode, !t625 Interval", 0x15: "u8 Num_Keys, [A, b16 Link_Key]",
        0x16: "A", 0x17: "A", 0x18: "A, b16 Link_Key, !u8 Key_Type", 0x1A: "u8 Link_Type", 0x1B: "H, u8 LMP_Max_Slots",
        0x1C: "S, H, u16 Clock_Offset", 0x1D: "S, H, u16 Packet_Type", 0x1E: "H", 0x20: "A, u8 Page_Scan_Repetition_Mode",
        0x02: "u8 Num_Responses, [A, u8 Page_Scan_Repetition_Mode, u8 Reserved_1, u8 Reserved_2, cod Class_Of_Device, u16 Clock_Offset]",
        0x22: "u8 Num_Responses, [A, u8 Page_Scan_Repetition_Mode, u8 Reserved_1, cod Class_Of_Device, u16 Clock_Offset, i8 RSSI]",
        0x23: "S, H, u8 Page_Number, u8 Max_Page_Number, u64 Extended_LMP_Features",
        0x2C: "S, H, A, u8 Link_Type, u8 Transmission_Interval, u8 Retransmission_Window, u16 RX_Packet_Length, u16 TX_Packet_Length, u8 Air_Mode",
        0x2D: "S, H, u8 Transmission_Interval, u8 Retransmission_Window, u16 RX_Packet_Length, u16 TX_Packet_Length",
        0x2E: "S, H, u16 Max_TX_Latency, u16 Max_RX_Latency, u16 Min_Remote_Timeout, u16 Min_Local_Timeout",
        0x2F: "u8 Num_Responses, A, u8 Page_Scan_Repetition_Mode, u8 Reserved, cod Class_Of_Device, u16 Clock_Offset, i8 RSSI, eir Extended_Inquiry_Response",
        0x30: "S, H", 0x31: "A", 0x32: "A, !io IO_Capability, u8 OOB_Data_Present, !auth Authentication_Requirements",
        0x33: "A, !u32 Numeric_Value", 0x34: "A", 0x35: "A", 0x36: "S, A", 0x38: "H, t625 Link_Supervision_Timeout",
        0x39: "H", 0x3B: "A, !u32 Passkey", 0x3C: "A, u8 Notification_Type", 0x3D: "A, u64 Host_Supported_Features",
        0x57: "H",
    ]

    static let subeventSpecs: [UInt8: String] = [
        0x04: "S, H, u64 LE_Features", 0x05: "H, u64 Random_Number, u16 Encrypted_Diversifier",
        0x06: "H, t1250 Interval_Min, t1250 Interval_Max, u16 Max_Latency, t10 Timeout",
        0x07: "H, !u16 Max_TX_Octets, u16 Max_TX_Time, !u16 Max_RX_Octets, u16 Max_RX_Time",
        0x08: "S, b64 Local_P256_Public_Key", 0x09: "S, b32 DHKey",
        0x0B: "u8 Num_Reports, [u8 Event_Type, at Address_Type, A Address, at Direct_Address_Type, A Direct_Address, i8 RSSI]",
        0x0C: "S, H, !phy TX_PHY, !phy RX_PHY",
        0x0E: "S, u16 Sync_Handle, u8 Advertising_SID, at Advertiser_Address_Type, A Advertiser_Address, phy Advertiser_PHY, t1250 Periodic_Advertising_Interval, u8 Advertiser_Clock_Accuracy",
        0x0F: "u16 Sync_Handle, i8 TX_Power, i8 RSSI, u8 CTE_Type, u8 Data_Status, ad Data",
        0x10: "u16 Sync_Handle", 0x11: "",
        0x12: "S, u8 Advertising_Handle, H, u8 Num_Completed_Extended_Advertising_Events",
        0x13: "u8 Advertising_Handle, at Scanner_Address_Type, A Scanner_Address", 0x14: "H, u8 Channel_Selection_Algorithm",
        0x18: "S, H, u16 Service_Data, u16 Sync_Handle, u8 Advertising_SID, at Advertiser_Address_Type, A Advertiser_Address, phy Advertiser_PHY, t1250 Periodic_Advertising_Interval, u8 Advertiser_Clock_Accuracy",
        0x19: "S, H, u24 CIG_Sync_Delay, u24 CIS_Sync_Delay, u24 Transport_Latency_C_To_P, u24 Transport_Latency_P_To_C, phy PHY_C_To_P, phy PHY_P_To_C, u8 NSE, u8 BN_C_To_P, u8 BN_P_To_C, u8 FT_C_To_P, u8 FT_P_To_C, u16 Max_PDU_C_To_P, u16 Max_PDU_P_To_C, t1250 ISO_Interval",
        0x1A: "H, u16 CIS_Connection_Handle, u8 CIG_ID, u8 CIS_ID",
        0x1B: "S, u8 BIG_Handle, u24 BIG_Sync_Delay, u24 Transport_Latency_BIG, phy PHY, u8 NSE, u8 BN, u8 PTO, u8 IRC, u16 Max_PDU, t1250 ISO_Interval, u8 Num_BIS, [u16 BIS_Connection_Handle]",
        0x1C: "u8 BIG_Handle, R", 0x1E: "u8 BIG_Handle, R",
        0x1D: "S, u8 BIG_Handle, u24 Transport_Latency_BIG, u8 NSE, u8 BN, u8 PTO, u8 IRC, u16 Max_PDU, t1250 ISO_Interval, u8 Num_BIS, [u16 BIS_Connection_Handle]",
        0x1F: "S, H, u8 Peer_Clock_Accuracy", 0x20: "H, u8 Current_Path_Loss, u8 Zone_Entered",
        0x21: "S, H, u8 Reason_Code, phy PHY, i8 TX_Power_Level, u8 TX_Power_Level_Flag, i8 Delta",
        0x22: "u16 Sync_Handle, u8 Num_BIS, u8 NSE, t1250 ISO_Interval, u8 BN, u8 PTO, u8 IRC, u16 Max_PDU, u24 SDU_Interval, u16 Max_SDU, phy PHY, u8 Framing, u8 Encryption",
        0x23: "S, H, u16 Subrate_Factor, u16 Peripheral_Latency, u16 Continuation_Number, t10 Supervision_Timeout",
    ]

    static let commands = ParsedLayouts(commandSpecs)
    static let returns = ParsedLayouts(returnSpecs)
    static let events = ParsedLayouts(eventSpecs)
    static let subevents = ParsedLayouts(subeventSpecs)

    /// Every field the layouts make, once each, in name order, for the registry.
    static let fields: [FieldDefinition] = {
        let all = (commands.all + returns.all + events.all + subevents.all).flatMap { $0.flatMap(\.flattened) }.map(\.field)
        return Dictionary(all.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a }).values.sorted { $0.name < $1.name }
    }()
}

/// A table of layouts parsed from their specs the first time each is used: a capture meets a few
/// dozen of the hundreds, and parsing them all made every run start about 5 ms later (25 million
/// instructions). Shared by every decoder of the process, so the cache is guarded by a lock,
/// which is never held while parsing: parsing makes field definitions (their own lock, static
/// tables), and nothing it starts can then wait on this one.
final class ParsedLayouts<Key: Hashable & Comparable>: @unchecked Sendable { // `parsed` is only touched under `lock`
    private let specs: [Key: String]
    private let lock = NSLock()
    private var parsed: [Key: [HCIParam]] = [:]

    init(_ specs: [Key: String]) { self.specs = specs }

    subscript(key: Key) -> [HCIParam]? {
        if let known = lock.withLock({ parsed[key] }) { return known }
        guard let spec = specs[key] else { return nil }
        // Two threads may parse the same spec at once: the same layout either way (parsing is
        // pure); the first stored is the one every later lookup gets.
        let layout = HCIParam.parse(spec)
        return lock.withLock {
            if let stored = parsed[key] { return stored }
            parsed[key] = layout
            return layout
        }
    }

    /// Every layout, in key order.
    var all: [[HCIParam]] { specs.keys.sorted().compactMap { self[$0] } }
}
