import BTCapture

/// Android's Bluetooth Quality Report (vendor event 0xFF, sub-event 0x58): what the controller
/// says about a link's quality, periodically and when trouble starts. Layouts from AOSP's
/// public sources (btif_bqr, BluetoothQualityReport.java, the Bluetooth HAL's bqr_types):
/// a common part that grew with each BQR version (48 bytes up to v3, 72 with v4's ISO
/// counters, 79 with v5's address, 85 with v6's), then a part per report.
enum BluetoothQualityReport {
    static let namespace = HCIParameterFields.Namespace(prefix: "bqr", owner: "Bluetooth Quality Report", valueNames: [
        "Packet_Type": [1: "ID", 2: "NULL", 3: "POLL", 4: "FHS", 5: "HV1", 6: "HV2", 7: "HV3", 8: "DV", 9: "EV3", 10: "EV4",
                        11: "EV5", 12: "2-EV3", 13: "2-EV5", 14: "3-EV3", 15: "3-EV5", 16: "DM1", 17: "DH1", 18: "DM3",
                        19: "DH3", 20: "DM5", 21: "DH5", 22: "AUX1", 23: "2-DH1", 24: "2-DH3", 25: "2-DH5", 26: "3-DH1",
                        27: "3-DH3", 28: "3-DH5"],
        "Connection_State": [0x00: "Idle", 0x81: "Active", 0x02: "Hold", 0x03: "Sniff Idle", 0x84: "Sniff Active",
                             0x85: "Sniff Central Transition", 0x06: "Park", 0x47: "Park Pending", 0x08: "Unpark Pending",
                             0x89: "Unpark Active", 0x4A: "Disconnect Pending", 0x0B: "Paging", 0x0C: "Page Scan",
                             0x0D: "Local Loopback", 0x0E: "LE Active", 0x0F: "ANT Active", 0x10: "Trigger Scan",
                             0x11: "Reconnecting", 0x12: "Semi-connected"],
        "Air_Format": [0: "µ-law", 1: "A-law", 2: "CVSD", 3: "Transparent (mSBC)"],
        "Link_Quality": [0: "Ultra High", 1: "High", 2: "Standard", 3: "Medium", 4: "Low"],
    ], descriptions: [
        "RSSI": "Received signal strength of the link in dBm",
        "SNR": "Signal-to-noise ratio averaged over the channels the link uses, in dB",
        "Retransmission_Count": "Packets retransmitted since the last report",
        "Unused_AFH_Channel_Count": "Channels AFH leaves out of the 79 (BR/EDR) or 37 (LE)",
        "LSTO": "Link supervision timeout setting, in 0.625 ms slots",
        "Glitch_Count": "Audio glitches since the last report",
    ])

    static func layout(_ spec: String) -> [HCIParam] { VendorHCI.layout(spec, namespace) }

    static let reportID = FieldDefinition("bqr.report_id", "Quality Report ID", .uint8, "Which report: 0x01 quality monitor, 0x02 approaching LSTO, 0x03 A2DP choppy, 0x04 SCO choppy, 0x08 connect fail...")
    static let failReason = FieldDefinition("bqr.fail_reason", "Fail Reason", .uint8, "Connect fail report: why the connection failed (an HCI error code)")

    static let reportNames: [UInt8: String] = [
        0x01: "Quality Monitor", 0x02: "Approaching LSTO", 0x03: "A2DP Choppy", 0x04: "SCO Choppy", 0x05: "Root Inflammation",
        0x06: "Energy Monitor", 0x07: "LE Audio Choppy", 0x08: "Connect Fail", 0x09: "Advance RF Stats",
        0x0A: "Advance RF Stats (Periodic)", 0x0B: "Controller Health Monitor", 0x0C: "Controller Health Monitor (Periodic)",
        0x10: "Vendor Specific Quality", 0x11: "LMP/LL Message Trace", 0x12: "BT Scheduling Trace", 0x13: "Controller Debug Info",
        0x14: "CHRE Debug Info", 0x20: "Vendor Specific Trace",
    ]

    /// The common part of the link-quality reports, by the BQR version that added each piece.
    static let commonV3 = layout("""
        u8 Packet_Type, H, role Connection_Role, i8 TX_Power_Level, !i8 RSSI, !i8 SNR, u8 Unused_AFH_Channel_Count, \
        u8 AFH_Select_Unideal_Channel_Count, t625 LSTO, x32 Connection_Piconet_Clock, !u32 Retransmission_Count, u32 No_RX_Count, \
        u32 NAK_Count, x32 Last_TX_ACK_Timestamp, u32 Flow_Off_Count, x32 Last_Flow_On_Timestamp, u32 Buffer_Overflow_Bytes, \
        u32 Buffer_Underflow_Bytes
        """)
    static let isoCounters = layout("u32 TX_Total_Packets, u32 TX_Unacked_Packets, u32 TX_Flushed_Packets, u32 TX_Last_Subevent_Packets, u32 CRC_Error_Packets, u32 RX_Duplicate_Packets")
    static let v5Part = layout("A Remote_Address, u8 Calibration_Failed_Item_Count")
    static let v6Part = layout("u32 RX_Unreceived_Packets, x16 Coex_Info_Mask")

    /// The common part's length with the report ID, and its layout, by version.
    static let commonForms: [(length: Int, params: [HCIParam])] = [
        (85, commonV3 + v5Part + isoCounters + v6Part), (79, commonV3 + v5Part + isoCounters),
        (72, commonV3 + isoCounters), (48, commonV3),
    ]

    /// The part each link-quality report adds after the common part, and its length.
    static let reportParts: [UInt8: (length: Int, params: [HCIParam])] = [
        0x02: (23, layout("u8 Connection_State, x32 Baseband_Stats, u32 Slots_Used, u16 CXM_Denials, u16 TX_Skipped, u16 RF_Loss, x32 Native_Clock, x32 Last_TX_ACK_Timestamp_At_Issue")),
        0x03: (16, layout("x32 Arrival_Time, x32 Schedule_Time, !u16 Glitch_Count, u16 TX_CXM_Denials, u16 RX_CXM_Denials, u8 ACL_TX_Queue_Length, !u8 Link_Quality")),
        0x04: (33, layout("""
            !u16 Glitch_Count, u8 eSCO_Interval, u8 eSCO_Window, !u8 Air_Format, u16 Instance_Count, u16 TX_CXM_Denials, \
            u16 RX_CXM_Denials, u16 TX_Abort_Count, u16 Late_Dispatch, u16 Mic_Interrupt_Miss, u16 LPA_Interrupt_Miss, \
            u16 SPR_Interrupt_Miss, u16 PLC_Fill_Count, u16 PLC_Discard_Count, u16 Missed_Instance_Count, \
            u16 TX_Retransmit_Slot_Count, u16 RX_Retransmit_Slot_Count, u16 Good_RX_Frame_Count
            """)),
        0x08: (1, []),
    ]

    /// Reports that are not about one link's quality, after the report ID.
    static let otherReports: [UInt8: [HCIParam]] = [
        0x05: layout("!x8 Error_Code, !x8 Vendor_Error_Code"),
        0x09: layout("u8 Extension_Info, u32 Period, u32 TX_Power_iPA_BF, u32 TX_Power_ePA_BF, u32 TX_Power_iPA_Div, u32 TX_Power_ePA_Div, u32 RSSI_Chain_Above_50, u32 RSSI_Chain_50_55, u32 RSSI_Chain_55_60, u32 RSSI_Chain_60_65, u32 RSSI_Chain_65_70, u32 RSSI_Chain_70_75, u32 RSSI_Chain_75_80, u32 RSSI_Chain_80_85, u32 RSSI_Chain_85_90, u32 RSSI_Chain_Below_90, u32 RSSI_Delta_Below_2, u32 RSSI_Delta_2_5, u32 RSSI_Delta_5_8, u32 RSSI_Delta_8_11, u32 RSSI_Delta_Above_11"),
        0x0A: layout("u8 Extension_Info, u32 Period, u32 TX_Power_iPA_BF, u32 TX_Power_ePA_BF, u32 TX_Power_iPA_Div, u32 TX_Power_ePA_Div, u32 RSSI_Chain_Above_50, u32 RSSI_Chain_50_55, u32 RSSI_Chain_55_60, u32 RSSI_Chain_60_65, u32 RSSI_Chain_65_70, u32 RSSI_Chain_70_75, u32 RSSI_Chain_75_80, u32 RSSI_Chain_80_85, u32 RSSI_Chain_85_90, u32 RSSI_Chain_Below_90, u32 RSSI_Delta_Below_2, u32 RSSI_Delta_2_5, u32 RSSI_Delta_5_8, u32 RSSI_Delta_8_11, u32 RSSI_Delta_Above_11"),
        0x11: layout("H"), 0x12: layout("H"),
    ]

    static var fields: [FieldDefinition] {
        let layouts = commonForms[0].params + reportParts.keys.sorted().flatMap { reportParts[$0]!.params }
            + otherReports.keys.sorted().flatMap { otherReports[$0]! }
        var seen = Set<String>()
        return ([reportID, failReason] + layouts.flatMap(\.flattened).flatMap(\.fields)).filter { !$0.name.hasPrefix("hci.") && seen.insert($0.name).inserted }
    }

    /// Which common part a report of `length` bytes (with its ID) carries: the version the
    /// controller's vendor capabilities named, else the longest form that leaves room for the
    /// report's own part.
    static func commonForm(length: Int, partLength: Int, capabilityVersion: UInt16?) -> [HCIParam] {
        if let version = capabilityVersion {
            let wanted = version >= 0x0104 ? 85 : version >= 0x0103 ? 79 : version >= 0x0101 ? 72 : 48
            if let form = commonForms.first(where: { $0.length == wanted }), wanted + partLength <= length { return form.params }
        }
        if partLength > 0, let exact = commonForms.first(where: { $0.length + partLength == length }) { return exact.params }
        return (commonForms.first { $0.length + partLength <= length } ?? commonForms[commonForms.count - 1]).params
    }

    /// The report as a layer of its own, above the Android vendor event that carries it.
    static func decode(_ c: inout ByteCursor, _ packet: inout Packet, _ session: inout Session) throws {
        var layer = packet.makeLayer(.bqr, over: c)
        layer.keepEveryField() // rare, and the statistics read every report field
        defer { packet.append(taking: &layer) }
        layer.summary.set("Bluetooth Quality Report")
        try decode(&c, &layer, &packet, &session)
        VendorDecoders.addRest(&c, VendorFields.data["bqr"]!, &layer)
    }

    static func decode(_ c: inout ByteCursor, _ layer: inout Layer, _ packet: inout Packet, _ session: inout Session) throws {
        let length = c.remaining
        let id = try layer.reading(&c) { try $0.u8() }
        let name = reportNames[id.value]
        layer.add(reportID, .u8(id.value), named: name ?? "Unknown", at: id.range)
        layer.summary += " - \(name ?? "Report \(Hex.u8(id.value))")"
        var reader = HCIParameterReader(session: session)
        defer { reader.apply(to: &packet, session: session) }
        if let part = reportParts[id.value] ?? (id.value == 0x01 ? (0, []) : nil) {
            let common = commonForm(length: length, partLength: part.length,
                                    capabilityVersion: session.vendor.androidCapabilityVersion[packet.frame.controller])
            do {
                try reader.read(common, &c, &layer)
                if id.value == 0x08 {
                    let reason = try layer.reading(&c) { try $0.u8() }
                    let text = HCIErrorNames.name(reason.value)
                    layer.add(failReason, .u8(reason.value), named: text, at: reason.range)
                    layer.summary += " - \(text)"
                    layer.addIssue(.warning, "Connection failed: \(text) (\(Hex.u8(reason.value)))")
                } else {
                    try reader.read(part.params, &c, &layer)
                }
            } catch DecodeError.truncated(let needed, _, let at) {
                layer.addIssue(.warning, "Quality report stops short: \(needed) more bytes needed at offset \(at) (\(length) bytes, the shortest \(name ?? "report") has \(48 + part.length))")
            }
            switch id.value {
            case 0x02: layer.addIssue(.warning, "Link approaching its supervision timeout: the controller has not heard the peer for most of it")
            case 0x03: layer.addIssue(.warning, "A2DP audio choppy on this link")
            case 0x04: layer.addIssue(.warning, "SCO voice choppy on this link")
            default: break
            }
        } else if let params = otherReports[id.value] {
            do {
                try reader.read(params, &c, &layer)
            } catch DecodeError.truncated(let needed, _, let at) {
                layer.addIssue(.warning, "Quality report stops short: \(needed) more bytes needed at offset \(at)")
            }
            if id.value == 0x05 { layer.addIssue(.error, "Controller root inflammation: the controller reports a fatal error and expects a restart") }
        } else if name == nil {
            layer.addIssue(.warning, "Unknown quality report ID \(Hex.u8(id.value))")
        }
    }
}

extension LayerKind {
    public static let bqr = LayerKind("BQR", protocol: "bqr")
}

/// The quality reports' fields analysis reads (link quality over time): the report ID and fail
/// reason declared by hand, the rest the layouts' own definitions, found once here by name.
public enum BQRFields {
    static func declaredByLayouts(_ parameter: String) -> FieldDefinition {
        guard let field = BluetoothQualityReport.fields.first(where: { $0.name == "bqr." + parameter }) else {
            preconditionFailure("no quality report layout declares \(parameter)")
        }
        return field
    }
    public static let reportID = BluetoothQualityReport.reportID, failReason = BluetoothQualityReport.failReason
    public static let rssi = declaredByLayouts("rssi"), snr = declaredByLayouts("snr")
    public static let unusedChannels = declaredByLayouts("unused_afh_channel_count")
    public static let retransmissions = declaredByLayouts("retransmission_count"), nak = declaredByLayouts("nak_count")
    public static let txTotal = declaredByLayouts("tx_total_packets"), txFlushed = declaredByLayouts("tx_flushed_packets")
    public static let glitches = declaredByLayouts("glitch_count"), airFormat = declaredByLayouts("air_format")
    public static let linkQuality = declaredByLayouts("link_quality"), remoteAddress = declaredByLayouts("remote_address")
    public static let txDenials = declaredByLayouts("tx_cxm_denials"), rxDenials = declaredByLayouts("rx_cxm_denials")
    public static let aclQueue = declaredByLayouts("acl_tx_queue_length")

    /// Every one of them (FieldRegistryTests).
    static var all: [FieldDefinition] {
        [reportID, failReason, rssi, snr, unusedChannels, retransmissions, nak, txTotal, txFlushed, glitches, airFormat, linkQuality,
         remoteAddress, txDenials, rxDenials, aclQueue]
    }
}
