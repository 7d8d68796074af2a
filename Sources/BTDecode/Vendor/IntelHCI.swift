import BTCapture

/// Intel controllers' vendor commands and events whose layouts are public (BlueZ's btmon and
/// the Linux driver, Wireshark's bthci_vendor.intel): reset, version, secure boot and firmware
/// download (secure send), DDC, manufacturer mode, traces, exceptions. The rest stays bytes.
enum IntelHCI {
    static let namespace = HCIParameterFields.Namespace(prefix: "intel", owner: "Intel vendor command", valueNames: [
        "Reset_Type": [0: "Soft Software Reset", 1: "Hard Software Reset"],
        "Patch_Enable": [0: "Disabled", 1: "Enabled"], "DDC_Reload": [0: "Disabled", 1: "Reload from OTP"],
        "Boot_Option": [0: "Current image", 1: "Specified address"],
        "Secure_Send_Type": [0: "Init", 1: "Data", 2: "Sign", 3: "PKey"],
        "Source": [0: "Bootloader", 1: "Operational Firmware", 2: "Self Test Firmware"],
        "Bootup_Reset_Type": [0: "Hardware Reset", 1: "Soft Watchdog Reset", 2: "Soft Software Reset", 3: "Hard Watchdog Reset", 4: "Hard Software Reset"],
        "Reset_Reason": [0: "Power On", 1: "Reset Command", 2: "Intel Reset Command", 3: "Watchdog", 4: "Fatal Exception", 5: "System Exception", 0xFF: "Unknown"],
        "DDC_Status": [0: "Firmware Default", 1: "Firmware Default Plus OTP", 2: "Persistent RAM", 3: "Not Used"],
        "Secure_Send_Result": [0: "Success", 1: "General Failure", 2: "Hardware Failure", 3: "Signature Verification Failed",
                               4: "Parsing Error of Command Buffer", 5: "Command Execution Failure", 6: "Command Parameters Error", 7: "Command Missing"],
        "Link_PDU_Trace_Type": [0: "LMP Rx", 1: "LMP Tx", 2: "LMP Ack", 3: "LL Rx", 4: "LL Tx", 5: "LL Ack"],
        "Exception_Type": [0: "No Exception", 1: "Undefined Instruction", 2: "Prefetch Abort", 3: "Data Abort"],
        "Mode_Switch": [0: "Disabled", 1: "Enabled"],
        "Manufacturer_Reset": [0: "No reset", 1: "Reset and deactivate patches", 2: "Reset and activate patches"],
        "Hardware_Platform": [0x37: "Intel Bluetooth"], "Firmware_Variant": [0x06: "Bootloader", 0x23: "Operational firmware"],
    ])

    static func layout(_ spec: String) -> [HCIParam] { VendorHCI.layout(spec, namespace) }

    static func command(_ name: String, _ parameters: String = "", returns: String = "", grows: Bool = false) -> VendorCommand {
        VendorCommand(name: name, parameters: layout(parameters), returns: layout(returns), grows: grows)
    }

    static let commands: [UInt16: VendorCommand] = [
        0xFC01: command("Reset", "!u8 Reset_Type, u8 Patch_Enable, u8 DDC_Reload, u8 Boot_Option, x32 Boot_Address"),
        0xFC02: command("No Operation"),
        0xFC05: VendorCommand(name: "Read Version", parameters: layout("x8 Requested_Type"), returns: layout("""
            x8 Hardware_Platform, !x8 Hardware_Variant, x8 Hardware_Revision, !x8 Firmware_Variant, x8 Firmware_Revision, \
            u8 Firmware_Build_Number, u8 Firmware_Build_Week, u8 Firmware_Build_Year, u8 Firmware_Patch_Number
            """), grows: true, returnsInOtherForm: versionTLVs),
        0xFC06: command("Set UART Baudrate", "x8 Baudrate"),
        0xFC07: command("Enable LPM"),
        0xFC08: command("PCM Write Configuration"),
        0xFC09: command("Secure Send", "!u8 Secure_Send_Type, rest Secure_Send_Data"),
        0xFC0D: command("Read Secure Boot Params", returns: """
            u8 OTP_Format, u8 OTP_Content, u8 OTP_Patch, x16 Device_Revision_ID, !u8 Secure_Boot, u8 Key_From_Header, u8 Key_Type, \
            u8 OTP_Lock, u8 API_Lock, u8 Debug_Lock, A OTP_BD_ADDR, u8 Minimum_Firmware_Build_Number, u8 Minimum_Firmware_Build_Week, \
            u8 Minimum_Firmware_Build_Year, u8 Limited_CCE, u8 Unlocked_State
            """, grows: true),
        0xFC0E: command("Write Secure Boot Params"),
        0xFC0F: command("Unlock"),
        0xFC10: command("Change UART Baudrate"),
        0xFC11: command("Manufacturer Mode", "!u8 Mode_Switch, u8 Manufacturer_Reset"),
        0xFC12: command("Read Link RSSI"),
        0xFC22: command("Get Exception Info"),
        0xFC24: command("Clear Exception Info"),
        0xFC2F: command("Write BD Data", "A BD_ADDR, rest BD_Data"),
        0xFC30: command("Read BD Data"),
        0xFC31: command("Write BD Address", "A BD_ADDR"),
        0xFC32: command("Flow Specification"),
        0xFC34: command("Read Secure ID"),
        0xFC38: command("Set Synchronous USB Interface Type"),
        0xFC39: command("Config Synchronous Interface"),
        0xFC3F: command("SW RF Kill"),
        0xFC43: command("Activate/Deactivate Traces", "u8 Transmit_Traces, u8 Transmit_ARQ, u8 Receive_Traces"),
        0xFC4D: command("Stimulate Exception", "!u8 Stimulated_Exception_Type"),
        0xFC50: command("Read HW Version"),
        0xFC52: command("Set Event Mask", "u64 Event_Mask"),
        0xFC53: command("Config Link Controller"),
        0xFC89: command("DDC Write"),
        0xFC8A: command("DDC Read"),
        0xFC8B: VendorCommand(name: "DDC Config Write", returns: layout("!x16 Identifier"), parametersAfter: ddcEntries),
        0xFC8C: command("DDC Config Read"),
        0xFC8D: command("Memory Read", "!x32 Memory_Address, u8 Memory_Mode, u8 Memory_Length"),
        0xFC8E: command("Memory Write", "!x32 Memory_Address, u8 Memory_Mode, u8 Memory_Length, rest Memory_Data"),
    ]

    static let ddcLength = FieldDefinition("intel.ddc_length", "DDC Entry Length", .uint8, "Length of a DDC entry: its identifier and data")
    /// The same field DDC Config Write's return names with its layout.
    static let ddcIdentifier = HCIParameterFields.field("Identifier", .x16, in: namespace)
    static let ddcData = FieldDefinition("intel.ddc_data", "DDC Data", .bytes, "A DDC parameter's value")

    /// DDC Config Write's entries: a length (of the identifier and data), a 16-bit identifier,
    /// the data; as many as the parameters hold.
    static func ddcEntries(_ c: inout ByteCursor, _ layer: inout Layer) throws {
        while !c.isAtEnd {
            let length = try layer.reading(&c) { try $0.u8() }
            layer.add(ddcLength, .u8(length.value), inDecimal: true, at: length.range)
            guard length.value >= 2 else {
                layer.addIssue(.warning, "DDC entry length \(length.value) is shorter than its identifier")
                return
            }
            let identifier = try layer.reading(&c) { try $0.u16() }
            layer.add(ddcIdentifier, .u16(identifier.value), at: identifier.range)
            let data = try layer.reading(&c) { try $0.slice(Int(length.value) - 2) }
            layer.add(ddcData, .bytes(data.value), at: data.range)
        }
    }

    static let tlvType = FieldDefinition("intel.tlv_type", "TLV Type", .uint8, "Type of an entry of Read Version's TLV form (newer controllers)")
    static let tlvValue = FieldDefinition("intel.tlv_value", "TLV Value", .bytes, "Value of an entry of Read Version's TLV form")
    static let imageType = FieldDefinition("intel.image_type", "Image Type", .uint8, "What the controller runs: 0x01 bootloader, 0x02 intermediate loader, 0x03 operational firmware")

    /// Read Version's TLV entries' names (the types btmon names; BlueZ's and Linux's btintel).
    static let tlvNames: [UInt8: String] = [
        0x10: "CNVi TOP", 0x11: "CNVr TOP", 0x12: "CNVi BT", 0x13: "CNVr BT", 0x14: "CNVi OTP", 0x15: "CNVr OTP",
        0x16: "Device Rev ID", 0x17: "USB VID", 0x18: "USB PID", 0x19: "PCIe VID", 0x1A: "PCIe DID", 0x1B: "PCIe Subsystem ID",
        0x1C: "Image Type", 0x1D: "Time Stamp", 0x1E: "Build Type", 0x1F: "Build Num", 0x20: "FW Build Product",
        0x21: "FW Build HW", 0x22: "FW Build Step", 0x23: "BT Spec", 0x24: "Manufacturer", 0x25: "HCI Revision",
        0x26: "LMP SubVersion", 0x27: "OTP Patch Version", 0x28: "Secure Boot", 0x29: "Key From Header", 0x2A: "OTP Lock",
        0x2B: "API Lock", 0x2C: "Debug Lock", 0x2D: "Minimum FW", 0x2E: "Limited CCE", 0x2F: "SBE Type", 0x30: "OTP BD_ADDR",
        0x31: "Unlocked State",
    ]

    /// Read Version's return in TLV form (asked for with Requested_Type 0xFF): type, length,
    /// value, as many as the parameters hold. The legacy form is 9 bytes after the status.
    static func versionTLVs(_ c: inout ByteCursor, _ layer: inout Layer) throws -> Bool {
        guard c.remaining != 9 else { return false }
        while !c.isAtEnd {
            let type = try layer.reading(&c) { try $0.u8() }
            layer.add(tlvType, .u8(type.value), named: tlvNames[type.value] ?? "Unknown", at: type.range)
            let length = try c.u8()
            let value = try layer.reading(&c) { try $0.slice(Int(length)) }
            let number = value.value.count <= 4 ? value.value.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) } : nil
            layer.add(tlvValue, .bytes(value.value), number.map { "\($0) (\(Hex.format($0, width: value.value.count * 2)))" }, at: value.range)
            if type.value == 0x1C, let image = value.value.first {
                layer.add(imageType, .u8(image), named: ["Bootloader", "Intermediate loader", "Operational firmware"][safe: Int(image) - 1] ?? "Unknown",
                          at: value.range.lowerBound ..< value.range.lowerBound + 1)
                layer.summary += " - \(["Bootloader", "Intermediate loader", "Operational firmware"][safe: Int(image) - 1] ?? "Image \(Hex.u8(image))")"
            }
        }
        return true
    }

    static let eventCode = FieldDefinition("intel.event", "Intel Event", .uint8, "Intel vendor event code (the first byte of event 0xFF)")

    static let events: [UInt8: (name: String, params: [HCIParam])] = [
        0x01: ("Fatal Exception", layout("!u16 Line, u8 Module, !u8 Reason")),
        0x02: ("Bootup", layout("u8 Zero, u8 Number_Of_Packets, !u8 Source, u8 Bootup_Reset_Type, !u8 Reset_Reason, u8 DDC_Status")),
        0x05: ("Default BD Data", layout("rest BD_Data")),
        0x06: ("Secure Send Commands Result", layout("!u8 Secure_Send_Result, x16 Secure_Send_Opcode, S")),
        0x08: ("Debug Exception", layout("rest Exception_Data")),
        0x0F: ("LE Link Established", layout("H, x32 Access_Address, rest Link_Data")),
        0x11: ("Scan Status", layout("x8 Scan_Status")),
        0x16: ("Activate/Deactivate Traces Complete", layout("S")),
        0x17: ("Link PDU Trace", layout("!u8 Link_PDU_Trace_Type, H, x32 Clock, rest PDU")),
        0x19: ("Write BD Data Complete", layout("S")),
        0x25: ("SCO Rejected via LMP", layout("A, R")),
        0x26: ("PTT Switch Notification", layout("H, rest PTT_Data")),
        0x29: ("System Exception", layout("!u8 Exception_Type, rest Exception_Data")),
        0x2C: ("FW Trace String", layout("rest Trace")),
        0x2E: ("FW Trace Binary", layout("rest Trace")),
    ]

    static let vendor = VendorHCI(
        name: "Intel", layer: .intelHCI, namespace: namespace, commands: commands, event: decodeEvent,
        eventFields: [eventCode, ddcLength, ddcIdentifier, ddcData, tlvType, tlvValue, imageType] + events.keys.sorted().flatMap { events[$0]!.params.flatMap(\.flattened).flatMap(\.fields) })

    static func decodeEvent(_ c: inout ByteCursor, _ layer: inout Layer, _ packet: inout Packet, _ session: inout Session) throws -> VendorHCI.UpperLayer? {
        let code = try layer.reading(&c) { try $0.u8() }
        let event = events[code.value]
        layer.add(eventCode, .u8(code.value), named: event?.name ?? "Unknown", at: code.range)
        if let name = event?.name { layer.summary.set("\(name)") } else { layer.summary.set("Intel Vendor Event \(hex: code.value)") }
        guard let event else {
            layer.addIssue(.note, "Intel does not document vendor event \(Hex.u8(code.value)) publicly: shown as bytes")
            return nil
        }
        var reader = HCIParameterReader(session: session)
        do {
            try reader.read(event.params, &c, into: &layer)
        } catch DecodeError.truncated(let needed, let available, let at) {
            layer.addIssue(.warning, "Intel \(event.name) stops short: \(needed) bytes needed at offset \(at), \(available) left")
        }
        reader.apply(to: &packet, session: session)
        switch code.value {
        case 0x01: layer.addIssue(.error, "Controller firmware fatal exception")
        case 0x29: layer.addIssue(.error, "Controller firmware system exception")
        case 0x06:
            if let result = layer.fields.first(where: { $0.definition.name == "intel.secure_send_result" }), case .unsigned(let v, _) = layer.value(of: result), v != 0 {
                layer.addIssue(.error, "Firmware download (secure send) failed: \(namespace.valueNames["Secure_Send_Result"]?[v] ?? Hex.format(v, width: 2))")
            }
        default: break
        }
        return nil
    }
}

extension LayerKind {
    public static let intelHCI = LayerKind("Intel HCI", protocol: "intel")
}
