import BTCapture

/// Broadcom, Cypress and Infineon controllers' vendor commands (also inside Apple's): those
/// whose layouts are public (BlueZ's btmon and hciattach, Wireshark's bthci_vendor.broadcom,
/// Broadcom's patchram tools): firmware download, baud rate, address, sleep mode, PCM/I2S set-up.
/// Broadcom documents no vendor event publicly: those stay bytes.
enum BroadcomHCI {
    static let namespace = HCIParameterFields.Namespace(prefix: "broadcom", owner: "Broadcom vendor command", valueNames: [
        "SCO_Routing": [0: "PCM", 1: "Transport", 2: "Codec", 3: "I2S"],
        "PCM_Interface_Rate": [0: "128 kbps", 1: "256 kbps", 2: "512 kbps", 3: "1024 kbps", 4: "2048 kbps"],
        "Frame_Type": [0: "Short", 1: "Long"],
        "Sync_Mode": [0: "Peripheral", 1: "Central"], "Clock_Mode": [0: "Peripheral", 1: "Central"],
        "Sleep_Mode": [0: "No sleep", 1: "UART", 2: "UART with messaging", 3: "USB", 4: "H4IBSS", 5: "USB with Host wake",
                       6: "SDIO", 7: "UART CS-N", 8: "SPI", 9: "H5", 10: "H4DS", 12: "UART with BREAK"],
        "UART_Clock": [1: "48 MHz", 2: "24 MHz"],
        "HID_Emulation_Mode": [0: "Bluetooth", 1: "HID"],
        "Priority": [0: "Normal", 1: "High"],
        "I2S_Enable": [0: "Disabled", 1: "Enabled"], "Is_Central": [0: "Peripheral", 1: "Central"],
        "Sample_Rate": [0: "8 kHz", 1: "16 kHz", 2: "4 kHz"],
        "Clock_Rate": [0: "128 kHz", 1: "256 kHz", 2: "512 kHz", 3: "1024 kHz", 4: "2048 kHz"],
        "WBS_Codec": [0: "None", 1: "CVSD", 2: "mSBC"],
    ], descriptions: [
        "Address": "Controller memory address the firmware block is written to or launched from",
        "Firmware_Data": "A block of the firmware (.hcd) being downloaded",
    ])

    static func command(_ name: String, _ parameters: String = "", returns: String = "", grows: Bool = false) -> VendorCommand {
        VendorCommand(name: name, parameters: VendorHCI.layout(parameters, namespace), returns: VendorHCI.layout(returns, namespace), grows: grows)
    }

    static let commands: [UInt16: VendorCommand] = [
        0xFC01: command("Write BD ADDR", "A BD_ADDR"),
        0xFC18: command("Update Baud Rate", "x16 Encoded_Baud_Rate, !u32 Baud_Rate"),
        0xFC1C: command("Write SCO PCM Int Param", "!u8 SCO_Routing, u8 PCM_Interface_Rate, u8 Frame_Type, u8 Sync_Mode, u8 Clock_Mode"),
        0xFC1E: command("Write PCM Data Format Param", "u8 LSB_First, u8 Fill_Value, u8 Fill_Method, u8 Fill_Num, u8 Right_Justify"),
        0xFC27: command("Set Sleep Mode Param", """
            !u8 Sleep_Mode, u8 Host_Stack_Idle_Threshold, u8 Host_Controller_Idle_Threshold, u8 Wake_Polarity, \
            u8 Host_Wake_Polarity, u8 Allow_Host_Sleep_During_SCO, u8 Combine_Sleep_Mode_And_LPM, u8 Enable_UART_TXD_Tri_State, \
            u8 Sleep_Guard_Time, u8 Wakeup_Guard_Time, u8 TXD_Config, u8 Pulsed_Host_Wake
            """, grows: true),
        0xFC2E: command("Download Minidriver"),
        0xFC3B: command("Enable USB HID Emulation", "!u8 HID_Emulation_Mode"),
        0xFC45: command("Write UART Clock Setting", "!u8 UART_Clock"),
        0xFC4C: command("Write RAM", "!x32 Address, rest Firmware_Data"),
        0xFC4E: command("Launch RAM", "!x32 Address"),
        0xFC57: command("Set ACL Priority", "H, !u8 Priority"),
        0xFC5A: command("Read VID PID", returns: "!x16 VID, !x16 PID"),
        0xFC6D: command("Write I2S PCM Interface Param", "u8 I2S_Enable, u8 Is_Central, !u8 Sample_Rate, u8 Clock_Rate"),
        0xFC6E: command("Read Controller Features", returns: "u64 Features"),
        0xFC79: command("Read Verbose Config Version Info", returns: "!u8 Chip_ID, u8 Target_ID, u16 Build_Base, !u16 Build_Number"),
        0xFC7E: command("Enable WBS", "en WBS_Enable, !x16 WBS_Codec"),
    ]

    static let vendor = VendorHCI(name: "Broadcom", layer: .broadcomHCI, namespace: namespace, commands: commands,
                                  event: nil, eventFields: [])
}

extension LayerKind {
    public static let broadcomHCI = LayerKind("Broadcom HCI", protocol: "broadcom")
}
