/// HCI event, LE Meta subevent and error code names, from the Core specification, Vol 4, Part E, 7.7 and Vol 1, Part F.
public enum HCIEventNames {
    public static func name(_ code: UInt8) -> String? { eventsByCode[Int(code)] }
    public static func subeventName(_ code: UInt8) -> String? { subeventsByCode[Int(code)] }

    /// The same names indexed by code: asked for every event, so read without hashing.
    private static let eventsByCode: [String?] = (0 ... 0xFF).map { events[UInt8($0)] }
    private static let subeventsByCode: [String?] = (0 ... 0xFF).map { subevents[UInt8($0)] }

    static let events: [UInt8: String] = [
        0x01: "Inquiry Complete", 0x02: "Inquiry Result", 0x03: "Connection Complete",
        0x04: "Connection Request", 0x05: "Disconnection Complete", 0x06: "Authentication Complete",
        0x07: "Remote Name Request Complete", 0x08: "Encryption Change", 0x09: "Change Connection Link Key Complete",
        0x0A: "Link Key Type Changed", 0x0B: "Read Remote Supported Features Complete",
        0x0C: "Read Remote Version Information Complete", 0x0D: "QoS Setup Complete",
        0x0E: "Command Complete", 0x0F: "Command Status", 0x10: "Hardware Error", 0x11: "Flush Occurred",
        0x12: "Role Change", 0x13: "Number Of Completed Packets", 0x14: "Mode Change",
        0x15: "Return Link Keys", 0x16: "PIN Code Request", 0x17: "Link Key Request",
        0x18: "Link Key Notification", 0x19: "Loopback Command", 0x1A: "Data Buffer Overflow",
        0x1B: "Max Slots Change", 0x1C: "Read Clock Offset Complete", 0x1D: "Connection Packet Type Changed",
        0x1E: "QoS Violation", 0x20: "Page Scan Repetition Mode Change", 0x21: "Flow Specification Complete",
        0x22: "Inquiry Result with RSSI", 0x23: "Read Remote Extended Features Complete",
        0x2C: "Synchronous Connection Complete", 0x2D: "Synchronous Connection Changed",
        0x2E: "Sniff Subrating", 0x2F: "Extended Inquiry Result", 0x30: "Encryption Key Refresh Complete",
        0x31: "IO Capability Request", 0x32: "IO Capability Response", 0x33: "User Confirmation Request",
        0x34: "User Passkey Request", 0x35: "Remote OOB Data Request", 0x36: "Simple Pairing Complete",
        0x38: "Link Supervision Timeout Changed", 0x39: "Enhanced Flush Complete",
        0x3B: "User Passkey Notification", 0x3C: "Keypress Notification",
        0x3D: "Remote Host Supported Features Notification", 0x3E: "LE Meta",
        // 0x40-0x4D were AMP's (removed in Core 5.3); Number Of Completed Data Blocks stays named.
        0x48: "Number Of Completed Data Blocks", 0x4E: "Triggered Clock Capture",
        0x4F: "Synchronization Train Complete", 0x50: "Synchronization Train Received",
        0x51: "Connectionless Peripheral Broadcast Receive", 0x52: "Connectionless Peripheral Broadcast Timeout",
        0x53: "Truncated Page Complete", 0x54: "Peripheral Page Response Timeout",
        0x55: "Connectionless Peripheral Broadcast Channel Map Change", 0x56: "Inquiry Response Notification",
        0x57: "Authenticated Payload Timeout Expired", 0x58: "SAM Status Change", 0x59: "Encryption Change v2",
        0xFF: "Vendor",
    ]

    static let subevents: [UInt8: String] = [
        0x01: "Connection Complete", 0x02: "Advertising Report", 0x03: "Connection Update Complete",
        0x04: "Read Remote Features Complete", 0x05: "Long Term Key Request",
        0x06: "Remote Connection Parameter Request", 0x07: "Data Length Change",
        0x08: "Read Local P-256 Public Key Complete", 0x09: "Generate DHKey Complete",
        0x0A: "Enhanced Connection Complete", 0x0B: "Directed Advertising Report", 0x0C: "PHY Update Complete",
        0x0D: "Extended Advertising Report", 0x0E: "Periodic Advertising Sync Established",
        0x0F: "Periodic Advertising Report", 0x10: "Periodic Advertising Sync Lost", 0x11: "Scan Timeout",
        0x12: "Advertising Set Terminated", 0x13: "Scan Request Received", 0x14: "Channel Selection Algorithm",
        0x15: "Connectionless IQ Report", 0x16: "Connection IQ Report", 0x17: "CTE Request Failed",
        0x18: "Periodic Advertising Sync Transfer Received", 0x19: "CIS Established", 0x1A: "CIS Request",
        0x1B: "Create BIG Complete", 0x1C: "Terminate BIG Complete", 0x1D: "BIG Sync Established",
        0x1E: "BIG Sync Lost", 0x1F: "Request Peer SCA Complete", 0x20: "Path Loss Threshold",
        0x21: "Transmit Power Reporting", 0x22: "BIGInfo Advertising Report", 0x23: "Subrate Change",
        0x24: "Periodic Advertising Sync Established v2", 0x25: "Periodic Advertising Report v2",
        0x26: "Periodic Advertising Sync Transfer Received v2", 0x27: "Periodic Advertising Subevent Data Request",
        0x28: "Periodic Advertising Response Report", 0x29: "Enhanced Connection Complete v2",
        0x2A: "CIS Established v2", 0x2B: "Read All Remote Features Complete",
        0x2C: "CS Read Remote Supported Capabilities Complete", 0x2D: "CS Read Remote FAE Table Complete",
        0x2E: "CS Security Enable Complete", 0x2F: "CS Config Complete", 0x30: "CS Procedure Enable Complete",
        0x31: "CS Subevent Result", 0x32: "CS Subevent Result Continue", 0x33: "CS Test End Complete",
        0x34: "Monitored Advertisers Report", 0x35: "Frame Space Update Complete",
    ]
}

public enum HCIErrorNames {
    public static func name(_ code: UInt8) -> String { errors[code] ?? "Unknown" }

    /// How bad a non-zero status is: radio conditions (timeouts, failed establishment) are
    /// warnings; a controller refusing what the host asked, or a security failure, is an error.
    public static func severity(ofStatus code: UInt8) -> Issue.Severity {
        [0x04, 0x08, 0x09, 0x0D, 0x0E, 0x0F, 0x22, 0x3C, 0x3E, 0x44].contains(code) ? .warning : .error
    }

    /// Disconnection reasons that end links in the ordinary way are not issues at all.
    public static func severity(ofDisconnectReason code: UInt8) -> Issue.Severity? {
        switch code {
        case 0x13, 0x14, 0x15, 0x16: return nil
        case 0x05, 0x06, 0x3D: return .error
        default: return .warning
        }
    }

    static let errors: [UInt8: String] = [
        0x00: "Success", 0x01: "Unknown HCI Command", 0x02: "Unknown Connection Identifier",
        0x03: "Hardware Failure", 0x04: "Page Timeout", 0x05: "Authentication Failure",
        0x06: "PIN or Key Missing", 0x07: "Memory Capacity Exceeded", 0x08: "Connection Timeout",
        0x09: "Connection Limit Exceeded", 0x0A: "Synchronous Connection Limit To A Device Exceeded",
        0x0B: "Connection Already Exists", 0x0C: "Command Disallowed",
        0x0D: "Connection Rejected due to Limited Resources", 0x0E: "Connection Rejected Due To Security Reasons",
        0x0F: "Connection Rejected due to Unacceptable BD_ADDR", 0x10: "Connection Accept Timeout Exceeded",
        0x11: "Unsupported Feature or Parameter Value", 0x12: "Invalid HCI Command Parameters",
        0x13: "Remote User Terminated Connection", 0x14: "Remote Device Terminated Connection due to Low Resources",
        0x15: "Remote Device Terminated Connection due to Power Off", 0x16: "Connection Terminated By Local Host",
        0x17: "Repeated Attempts", 0x18: "Pairing Not Allowed", 0x19: "Unknown LMP PDU",
        0x1A: "Unsupported Remote Feature", 0x1B: "SCO Offset Rejected", 0x1C: "SCO Interval Rejected",
        0x1D: "SCO Air Mode Rejected", 0x1E: "Invalid LMP Parameters / Invalid LL Parameters",
        0x1F: "Unspecified Error", 0x20: "Unsupported LMP Parameter Value / Unsupported LL Parameter Value",
        0x21: "Role Change Not Allowed", 0x22: "LMP Response Timeout / LL Response Timeout",
        0x23: "LMP Error Transaction Collision / LL Procedure Collision", 0x24: "LMP PDU Not Allowed",
        0x25: "Encryption Mode Not Acceptable", 0x26: "Link Key cannot be Changed",
        0x27: "Requested QoS Not Supported", 0x28: "Instant Passed", 0x29: "Pairing With Unit Key Not Supported",
        0x2A: "Different Transaction Collision", 0x2C: "QoS Unacceptable Parameter", 0x2D: "QoS Rejected",
        0x2E: "Channel Classification Not Supported", 0x2F: "Insufficient Security",
        0x30: "Parameter Out Of Mandatory Range", 0x32: "Role Switch Pending", 0x34: "Reserved Slot Violation",
        0x35: "Role Switch Failed", 0x36: "Extended Inquiry Response Too Large",
        0x37: "Secure Simple Pairing Not Supported By Host", 0x38: "Host Busy - Pairing",
        0x39: "Connection Rejected due to No Suitable Channel Found", 0x3A: "Controller Busy",
        0x3B: "Unacceptable Connection Parameters", 0x3C: "Advertising Timeout",
        0x3D: "Connection Terminated due to MIC Failure", 0x3E: "Connection Failed to be Established / Synchronization Timeout",
        0x40: "Coarse Clock Adjustment Rejected but Will Try to Adjust Using Clock Dragging",
        0x41: "Type0 Submap Not Defined", 0x42: "Unknown Advertising Identifier", 0x43: "Limit Reached",
        0x44: "Operation Cancelled by Host", 0x45: "Packet Too Long", 0x46: "Too Late", 0x47: "Too Early",
    ]
}
