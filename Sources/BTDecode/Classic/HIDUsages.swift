import BTCapture

/// Names of the HID usages a Bluetooth keyboard, mouse or remote sends (HID Usage Tables 1.4:
/// Generic Desktop 0x01, Keyboard/Keypad 0x07, LED 0x08, Button 0x09, Consumer 0x0C,
/// Digitizer 0x0D); a usage is page << 16 | id.
enum HIDUsages {
    static let genericDesktop: [UInt16: String] = [
        0x01: "Pointer", 0x02: "Mouse", 0x04: "Joystick", 0x05: "Gamepad", 0x06: "Keyboard", 0x07: "Keypad",
        0x08: "Multi-axis Controller", 0x30: "X", 0x31: "Y", 0x32: "Z", 0x33: "Rx", 0x34: "Ry", 0x35: "Rz", 0x36: "Slider",
        0x37: "Dial", 0x38: "Wheel", 0x39: "Hat Switch", 0x80: "System Control", 0x81: "System Power Down", 0x82: "System Sleep",
        0x83: "System Wake Up",
    ]
    static let consumer: [UInt16: String] = [
        0x01: "Consumer Control", 0x30: "Power", 0x40: "Menu", 0x41: "Menu Pick", 0x42: "Menu Up", 0x43: "Menu Down",
        0x44: "Menu Left", 0x45: "Menu Right", 0x46: "Menu Escape", 0x6F: "Brightness Increment", 0x70: "Brightness Decrement",
        0xB0: "Play", 0xB1: "Pause", 0xB2: "Record", 0xB3: "Fast Forward", 0xB4: "Rewind", 0xB5: "Scan Next Track",
        0xB6: "Scan Previous Track", 0xB7: "Stop", 0xB8: "Eject", 0xCD: "Play/Pause", 0xE2: "Mute", 0xE9: "Volume Increment",
        0xEA: "Volume Decrement", 0x183: "AL Consumer Control Configuration", 0x18A: "AL Email Reader", 0x192: "AL Calculator",
        0x194: "AL Local Machine Browser", 0x221: "AC Search", 0x223: "AC Home", 0x224: "AC Back", 0x225: "AC Forward",
        0x226: "AC Stop", 0x227: "AC Refresh", 0x22A: "AC Bookmarks", 0x238: "AC Pan",
    ]
    static let digitizer: [UInt16: String] = [
        0x01: "Digitizer", 0x02: "Pen", 0x04: "Touch Screen", 0x05: "Touch Pad", 0x22: "Finger", 0x30: "Tip Pressure",
        0x32: "In Range", 0x42: "Tip Switch", 0x47: "Confidence", 0x51: "Contact Identifier", 0x54: "Contact Count",
    ]
    static let modifiers = ["Left Control", "Left Shift", "Left Alt", "Left GUI", "Right Control", "Right Shift", "Right Alt", "Right GUI"]
    static let leds = ["Num Lock", "Caps Lock", "Scroll Lock", "Compose", "Kana"]
    static let keys: [UInt16: String] = [
        0x28: "Enter", 0x29: "Escape", 0x2A: "Backspace", 0x2B: "Tab", 0x2C: "Space", 0x2D: "-", 0x2E: "=", 0x2F: "[",
        0x30: "]", 0x31: "\\", 0x32: "#", 0x33: ";", 0x34: "'", 0x35: "`", 0x36: ",", 0x37: ".", 0x38: "/", 0x39: "Caps Lock",
        0x46: "Print Screen", 0x47: "Scroll Lock", 0x48: "Pause", 0x49: "Insert", 0x4A: "Home", 0x4B: "Page Up",
        0x4C: "Delete", 0x4D: "End", 0x4E: "Page Down", 0x4F: "Right Arrow", 0x50: "Left Arrow", 0x51: "Down Arrow",
        0x52: "Up Arrow", 0x53: "Num Lock", 0x65: "Application", 0x66: "Power", 0x7F: "Mute", 0x80: "Volume Up",
        0x81: "Volume Down",
    ]

    /// A keyboard usage: letters, digits, F-keys, modifiers, the rest by name.
    static func key(_ id: UInt16) -> String {
        switch id {
        case 0x01: return "Error Roll Over"
        case 0x04 ... 0x1D: return String(UnicodeScalar(UInt8(ascii: "A") + UInt8(id - 0x04)))
        case 0x1E ... 0x26: return String(id - 0x1D)
        case 0x27: return "0"
        case 0x3A ... 0x45: return "F\(id - 0x39)"
        case 0x68 ... 0x73: return "F\(id - 0x5B)"
        case 0xE0 ... 0xE7: return modifiers[Int(id - 0xE0)]
        default: return keys[id] ?? "Key \(Hex.u16(id))"
        }
    }

    static func name(_ usage: UInt32) -> String {
        let page = UInt16(usage >> 16), id = UInt16(truncatingIfNeeded: usage)
        switch page {
        case 0x01: return genericDesktop[id] ?? "Generic Desktop \(Hex.u16(id))"
        case 0x07: return key(id)
        case 0x08: return leds[safe: Int(id) - 1] ?? "LED \(Hex.u16(id))"
        case 0x09: return "Button \(id)"
        case 0x0C: return consumer[id] ?? "Consumer \(Hex.u16(id))"
        case 0x0D: return digitizer[id] ?? "Digitizer \(Hex.u16(id))"
        default: return "Usage \(Hex.u16(page)):\(Hex.u16(id))"
        }
    }
}
