/// A payload for each opcode of the BlueZ monitor protocol, as a board sends it over a serial
/// line (and the kernel over its monitor socket): each HCI packet's own length fields right,
/// each index and control frame of its layout. For the serial capture's tests.
public enum SerialMonitorSamples {
    public static let payloads: [UInt16: [UInt8]] = [
        0: [0x00, 0x01] + [0x01, 0x02, 0x03, 0x04, 0x05, 0x06] + Array("hci0\0\0\0\0".utf8),   // New Index: type, bus, address, name
        1: [], 8: [], 9: [],                                                                  // Delete, Open, Close Index
        10: [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x02, 0x00],                                  // Index Info: address, manufacturer
        2: [0x03, 0x0C, 0x00],                                                                // Reset
        3: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00],                                              // Command Complete for it
        4: [0x40, 0x20, 0x05, 0x00, 0x01, 0x00, 0x04, 0x00, 0x0A],                            // ATT on 0x0040
        5: [0x40, 0x20, 0x03, 0x00, 0x01, 0x02, 0x03],
        6: [0x41, 0x00, 0x02, 0xAA, 0xBB], 7: [0x41, 0x00, 0x01, 0xCC],                       // SCO
        11: [0x01, 0x02, 0x03],                                                               // Vendor Diagnostic
        12: Array("Bluetooth subsystem version 2.22\0".utf8),                                 // System Note
        13: [0x06, 0x04] + Array("app\0".utf8) + Array("connected\0".utf8),                    // User Logging: priority, ident, text
        14: [0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01, 0x16, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07] + Array("btmgmt\0".utf8),   // Control Open
        15: [0x01, 0x00, 0x00, 0x00],                                                          // Control Close: cookie
        16: [0x01, 0x00, 0x00, 0x00, 0x05, 0x00], 17: [0x01, 0x00, 0x00, 0x00, 0x01, 0x00],    // Control Command, Event
        18: [0x60, 0x00, 0x02, 0x00, 0x11, 0x22], 19: [0x60, 0x00, 0x01, 0x00, 0x33],         // ISO
    ]
}
