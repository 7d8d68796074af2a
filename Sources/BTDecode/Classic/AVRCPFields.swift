/// AVRCP's fields (AVRCP 1.6 over the AV/C Panel Subunit), named as tshark's btavrcp.* where
/// both have one.
public enum AVRCPFields {
    static let f = FieldDefinition.maker("avrcp")
    public static let ctype = f("ctype", "Command/Response Type", .uint8,
                                "AV/C ctype: 0x0 Control, 0x1 Status, 0x3 Notify ... 0x9 Accepted, 0xA Rejected, 0xC Stable, 0xD Changed, 0xF Interim")
    public static let subunitType = f("subunit_type", "Subunit Type", .uint8, "0x09 Panel, 0x1F Unit")
    public static let subunitID = f("subunit_id", "Subunit ID", .uint8, "Subunit instance")
    public static let opcode = f("opcode", "Opcode", .uint8, "AV/C opcode: 0x00 Vendor Dependent, 0x30 Unit Info, 0x31 Subunit Info, 0x7C Pass Through")
    public static let operation = f("operation", "Operation ID", .uint8, "Pass through operation: 0x41 Volume Up, 0x44 Play, 0x46 Pause, 0x4B Forward ...")
    public static let released = f("released", "Released", .bool, "Pass through state: 0 pressed, 1 released")
    public static let vendorUnique = f("vendor_unique_id", "Vendor Unique ID", .uint16, "Pass through Vendor Unique: the vendor's operation (0x0000 Next Group, 0x0001 Previous Group)")
    public static let companyID = f("company_id", "Company ID", .uint32, "IEEE company ID of a vendor-dependent frame: 0x001958 Bluetooth SIG")
    public static let pdu = f("pdu", "PDU ID", .uint8, "AVRCP PDU: 0x10 Get Capabilities, 0x20 Get Element Attributes, 0x31 Register Notification, 0x50 Set Absolute Volume ...")
    public static let packetType = f("packet_type", "Packet Type", .uint8, "Vendor-dependent fragmentation: 0 single, 1 start, 2 continue, 3 end")
    public static let length = f("length", "Parameter Length", .uint16, "Length of the PDU's parameters")
    public static let joined = f("joined", "Joined Parts", .uint8, "A response sent in parts: how many were joined")
    public static let status = f("status", "Status", .uint8, "Error or status code: 0x00 Invalid Command, 0x01 Invalid Parameter ... 0x04 Success")
    public static let capability = f("capability", "Capability ID", .uint8, "0x02 Company ID, 0x03 Events Supported")
    public static let capabilityCount = f("capability_count", "Capability Count", .uint8, "Number of companies or events listed")
    public static let event = f("event", "Event ID", .uint8, "0x01 Playback Status Changed, 0x02 Track Changed ... 0x0D Volume Changed")
    public static let interval = f("interval", "Playback Interval", .uint32, "Register Notification: seconds between position notifications")
    public static let identifier = f("identifier", "Identifier", .uint64, "The element: 0 is the one playing now")
    public static let attributeCount = f("attribute_count", "Number of Attributes", .uint8, "Attributes asked for or returned")
    public static let attribute = f("attribute", "Attribute ID", .uint32, "Media attribute: 0x1 Title, 0x2 Artist, 0x3 Album, 0x4 Track Number ... 0x8 Cover Art")
    public static let characterSet = f("character_set", "Character Set", .uint16, "IANA MIBenum of a string: 0x006A UTF-8")
    public static let value = f("value", "Value", .string, "An attribute's value or a name, as text")
    public static let volume = f("volume", "Absolute Volume", .uint8, "0x00 (0%) to 0x7F (100%)")
    public static let playStatus = f("play_status", "Play Status", .uint8, "0x00 Stopped, 0x01 Playing, 0x02 Paused, 0x03 Forward Seek, 0x04 Reverse Seek, 0xFF Error")
    public static let songLength = f("song_length", "Song Length", .uint32, "Milliseconds (0xFFFFFFFF: not known)")
    public static let songPosition = f("song_position", "Song Position", .uint32, "Milliseconds (0xFFFFFFFF: not known)")
    public static let trackUID = f("track", "Track Identifier", .uint64, "Track Changed: the track's UID (0xFFFFFFFFFFFFFFFF: none selected)")
    public static let batteryStatus = f("battery_status", "Battery Status", .uint8, "0 Normal, 1 Warning, 2 Critical, 3 External, 4 Full Charge")
    public static let systemStatus = f("system_status", "System Status", .uint8, "0 Power On, 1 Power Off, 2 Unplugged")
    public static let settingAttribute = f("settings.attribute", "Setting Attribute", .uint8, "Player application setting: 0x01 Equalizer, 0x02 Repeat, 0x03 Shuffle, 0x04 Scan")
    public static let settingValue = f("settings.value", "Setting Value", .uint8, "The setting's value (Repeat: 0x01 Off, 0x02 Single Track, 0x03 All Tracks ...)")
    public static let playerID = f("player_id", "Player ID", .uint16, "A media player of the target")
    public static let uidCounter = f("uid_counter", "UID Counter", .uint16, "Changes when the target's UIDs change")
    public static let scope = f("scope", "Scope", .uint8, "0 Media Player List, 1 Virtual Filesystem, 2 Search, 3 Now Playing")
    public static let uid = f("uid", "UID", .uint64, "A media element or folder")
    public static let startItem = f("start_item", "Start Item", .uint32, "Get Folder Items: the first item")
    public static let endItem = f("end_item", "End Item", .uint32, "Get Folder Items: the last item")
    public static let numberOfItems = f("number_of_items", "Number of Items", .uint32, "Items in a folder, a list or a search result")
    public static let itemType = f("item.type", "Item Type", .uint8, "0x01 Media Player, 0x02 Folder, 0x03 Media Element")
    public static let name = f("name", "Displayable Name", .string, "A player's, folder's or element's name")
    public static let direction = f("direction", "Direction", .uint8, "Change Path: 0 up, 1 down")
    public static let folderDepth = f("folder_depth", "Folder Depth", .uint8, "Set Browsed Player: folders to the current one")
    public static let search = f("search", "Search String", .string, "What a Search asks for")
    public static let parameters = f("parameters", "Parameters", .bytes, "Parameters btlog does not decode further")

    public static let all = [ctype, subunitType, subunitID, opcode, operation, released, vendorUnique, companyID, pdu, packetType,
                             length, joined, status, capability, capabilityCount, event, interval, identifier, attributeCount,
                             attribute, characterSet, value, volume, playStatus, songLength, songPosition, trackUID, batteryStatus,
                             systemStatus, settingAttribute, settingValue, playerID, uidCounter, scope, uid, startItem, endItem,
                             numberOfItems, itemType, name, direction, folderDepth, search, parameters]
}

/// AVRCP's numbers and their names (AVRCP 1.6; AV/C Panel Subunit for pass through).
enum AVRCPNames {
    static let ctypes: [UInt8: String] = [
        0x0: "Control", 0x1: "Status", 0x2: "Specific Inquiry", 0x3: "Notify", 0x4: "General Inquiry",
        0x8: "Not Implemented", 0x9: "Accepted", 0xA: "Rejected", 0xB: "In Transition", 0xC: "Stable", 0xD: "Changed", 0xF: "Interim",
    ]
    static let opcodes: [UInt8: String] = [0x00: "Vendor Dependent", 0x30: "Unit Info", 0x31: "Subunit Info", 0x7C: "Pass Through"]
    static let subunitTypes: [UInt8: String] = [0x09: "Panel", 0x1F: "Unit"]
    static let operations: [UInt8: String] = [
        0x00: "Select", 0x01: "Up", 0x02: "Down", 0x03: "Left", 0x04: "Right", 0x05: "Right Up", 0x06: "Right Down", 0x07: "Left Up",
        0x08: "Left Down", 0x09: "Root Menu", 0x0A: "Setup Menu", 0x0B: "Contents Menu", 0x0C: "Favorite Menu", 0x0D: "Exit",
        0x0E: "On Demand Menu", 0x0F: "Apps Menu",
        0x20: "0", 0x21: "1", 0x22: "2", 0x23: "3", 0x24: "4", 0x25: "5", 0x26: "6", 0x27: "7", 0x28: "8", 0x29: "9",
        0x2A: "Dot", 0x2B: "Enter", 0x2C: "Clear", 0x2F: "Display Mode",
        0x30: "Channel Up", 0x31: "Channel Down", 0x32: "Previous Channel", 0x33: "Sound Select", 0x34: "Input Select",
        0x35: "Display Information", 0x36: "Help", 0x37: "Page Up", 0x38: "Page Down", 0x39: "Lock",
        0x40: "Power", 0x41: "Volume Up", 0x42: "Volume Down", 0x43: "Mute", 0x44: "Play", 0x45: "Stop", 0x46: "Pause",
        0x47: "Record", 0x48: "Rewind", 0x49: "Fast Forward", 0x4A: "Eject", 0x4B: "Forward", 0x4C: "Backward", 0x4D: "List",
        0x50: "Angle", 0x51: "Subpicture", 0x71: "F1", 0x72: "F2", 0x73: "F3", 0x74: "F4", 0x75: "F5", 0x7E: "Vendor Unique",
    ]
    static let pdus: [UInt8: String] = [
        0x10: "Get Capabilities", 0x11: "List Player Application Setting Attributes", 0x12: "List Player Application Setting Values",
        0x13: "Get Current Player Application Setting Value", 0x14: "Set Player Application Setting Value",
        0x15: "Get Player Application Setting Attribute Text", 0x16: "Get Player Application Setting Value Text",
        0x17: "Inform Displayable Character Set", 0x18: "Inform Battery Status of CT", 0x20: "Get Element Attributes",
        0x30: "Get Play Status", 0x31: "Register Notification", 0x40: "Request Continuing Response",
        0x41: "Abort Continuing Response", 0x50: "Set Absolute Volume", 0x60: "Set Addressed Player", 0x70: "Set Browsed Player",
        0x71: "Get Folder Items", 0x72: "Change Path", 0x73: "Get Item Attributes", 0x74: "Play Item",
        0x75: "Get Total Number of Items", 0x80: "Search", 0x90: "Add to Now Playing", 0xA0: "General Reject",
    ]
    static let events: [UInt8: String] = [
        0x01: "Playback Status Changed", 0x02: "Track Changed", 0x03: "Track Reached End", 0x04: "Track Reached Start",
        0x05: "Playback Position Changed", 0x06: "Battery Status Changed", 0x07: "System Status Changed",
        0x08: "Player Application Setting Changed", 0x09: "Now Playing Content Changed", 0x0A: "Available Players Changed",
        0x0B: "Addressed Player Changed", 0x0C: "UIDs Changed", 0x0D: "Volume Changed",
    ]
    static let attributes: [UInt32: String] = [
        0x1: "Title", 0x2: "Artist", 0x3: "Album", 0x4: "Track Number", 0x5: "Total Number of Tracks", 0x6: "Genre",
        0x7: "Playing Time", 0x8: "Default Cover Art",
    ]
    static let statuses: [UInt8: String] = [
        0x00: "Invalid Command", 0x01: "Invalid Parameter", 0x02: "Parameter Content Error", 0x03: "Internal Error",
        0x04: "Success", 0x05: "UID Changed", 0x07: "Invalid Direction", 0x08: "Not a Directory", 0x09: "Does Not Exist",
        0x0A: "Invalid Scope", 0x0B: "Range Out of Bounds", 0x0C: "Folder Item Is Not Playable", 0x0D: "Media in Use",
        0x0E: "Now Playing List Full", 0x0F: "Search Not Supported", 0x10: "Search in Progress", 0x11: "Invalid Player ID",
        0x12: "Player Not Browsable", 0x13: "Player Not Addressed", 0x14: "No Valid Search Results", 0x15: "No Available Players",
        0x16: "Addressed Player Changed",
    ]
    static let playStatuses: [UInt8: String] = [0x00: "Stopped", 0x01: "Playing", 0x02: "Paused", 0x03: "Forward Seek", 0x04: "Reverse Seek", 0xFF: "Error"]
    static let batteryStatuses = ["Normal", "Warning", "Critical", "External", "Full Charge"]
    static let systemStatuses = ["Power On", "Power Off", "Unplugged"]
    static let scopes = ["Media Player List", "Virtual Filesystem", "Search", "Now Playing"]
    static let settings: [UInt8: (name: String, values: [UInt8: String])] = [
        0x01: ("Equalizer", [0x01: "Off", 0x02: "On"]),
        0x02: ("Repeat", [0x01: "Off", 0x02: "Single Track", 0x03: "All Tracks", 0x04: "Group"]),
        0x03: ("Shuffle", [0x01: "Off", 0x02: "All Tracks", 0x03: "Group"]),
        0x04: ("Scan", [0x01: "Off", 0x02: "All Tracks", 0x03: "Group"]),
    ]
    static let itemTypes: [UInt8: String] = [0x01: "Media Player", 0x02: "Folder", 0x03: "Media Element"]
    static let folderTypes = ["Mixed", "Titles", "Albums", "Artists", "Genres", "Playlists", "Years"]
}

extension AVRCPFields {
    /// A step is an AVRCP PDU (Get Capabilities, Register Notification...), a pass-through
    /// operation (Play, Volume Up) or another AV/C command, with its command or response type;
    /// a fragmented response's parts and the target's UID counter change between runs.
    public static let conversation = ConversationDescription("AVRCP", rank: 7, operations: [pdu, operation, opcode], qualifier: ctype,
                                                             ignored: [packetType, length, joined, uidCounter, subunitType, subunitID])
}
