import BTCapture

/// Fields of Apple's manufacturer data (company 0x004C) in advertising data and EIR.
public enum AppleFields {
    static let f = FieldDefinition.maker("apple")
    public static let type = f("type", "Message Type", .uint8,
                               "0x02 iBeacon, 0x05 AirDrop, 0x07 Proximity Pairing, 0x09 AirPlay Target, 0x0C Handoff, 0x0F Nearby Action, 0x10 Nearby Info, 0x12 Find My ...")
    public static let length = f("length", "Message Length", .uint8, "Bytes of the message after type and length")
    public static let data = f("data", "Message Data", .bytes, "The message's bytes")
    public static let uuid = f("ibeacon.uuid", "Proximity UUID", .uuid, "iBeacon: the beacon's organisation or app")
    public static let major = f("ibeacon.major", "Major", .uint16, "iBeacon: a group of beacons")
    public static let minor = f("ibeacon.minor", "Minor", .uint16, "iBeacon: one beacon of the group")
    public static let power = f("ibeacon.power", "Measured Power", .int, "iBeacon: RSSI at 1 m, in dBm")
    public static let model = f("model", "Device Model", .uint16, "Proximity Pairing: the accessory (0x0220 AirPods, 0x0E20 AirPods Pro ...)")
    public static let action = f("action", "Action Code", .uint8, "Nearby Info: what the device's user is doing (low nibble of the first byte)")
    public static let actionType = f("action_type", "Action Type", .uint8, "Nearby Action: the setup or sharing flow offered")

    public static let all = [type, length, data, uuid, major, minor, power, model, action, actionType]
}

/// Apple's manufacturer data: a list of type, length, value messages (the Continuity protocol).
/// Every message is named by its type with its length; iBeacon is decoded entirely, and the
/// fields public research documents (the accessory model of Proximity Pairing, the action of
/// Nearby Info and Nearby Action) are read; the rest is shown as bytes, never guessed at.
enum AppleAdvertising {
    static let descriptor = ProtocolDescriptor(name: "Apple Advertising", fields: AppleFields.all,
                                               registrations: [.manufacturerData(0x004C, decode)])

    static let types: ByteNames = [
        0x02: "iBeacon", 0x03: "AirPrint", 0x05: "AirDrop", 0x06: "HomeKit", 0x07: "Proximity Pairing", 0x08: "Hey Siri",
        0x09: "AirPlay Target", 0x0A: "AirPlay Source", 0x0B: "Magic Switch", 0x0C: "Handoff", 0x0D: "Tethering Target Presence",
        0x0E: "Tethering Source Presence", 0x0F: "Nearby Action", 0x10: "Nearby Info", 0x12: "Find My",
    ]
    static let models: [UInt16: String] = [
        0x0220: "AirPods", 0x0F20: "AirPods (2nd generation)", 0x1320: "AirPods (3rd generation)", 0x0E20: "AirPods Pro",
        0x1420: "AirPods Pro (2nd generation)", 0x0A20: "AirPods Max", 0x0320: "Powerbeats3", 0x0B20: "Powerbeats Pro",
        0x0C20: "Beats Solo Pro", 0x1120: "Beats Studio Buds", 0x0520: "BeatsX", 0x0620: "Beats Solo3", 0x0920: "Beats Studio3",
        0x1020: "Beats Flex",
    ]
    static let nearbyActions: [UInt8: String] = [
        0x00: "Activity Level Unknown", 0x01: "Activity Reporting Disabled", 0x03: "Idle User", 0x05: "Audio Playing, Screen Locked",
        0x07: "Active User", 0x09: "Screen On, Video Playing", 0x0A: "Watch on Wrist and Unlocked", 0x0B: "Recent User Interaction",
        0x0D: "User Driving", 0x0E: "Phone or FaceTime Call",
    ]
    static let nearbyActionTypes: [UInt8: String] = [
        0x01: "Apple TV Setup", 0x04: "Mobile Backup", 0x05: "Watch Setup", 0x06: "Apple TV Pair", 0x07: "Internet Relay",
        0x08: "Wi-Fi Password", 0x09: "iOS Setup", 0x0A: "Repair", 0x0B: "Speaker Setup", 0x0C: "Apple Pay",
        0x0D: "Whole Home Audio Setup", 0x0E: "Developer Tools Pairing Request", 0x0F: "Answered Call", 0x10: "Ended Call",
        0x11: "DD Ping", 0x12: "DD Pong", 0x13: "Remote Auto Fill", 0x14: "Companion Link Proximity", 0x15: "Remote Management",
        0x16: "Remote Auto Fill Pong", 0x17: "Remote Display",
    ]

    /// The messages, as fields and (when the layer keeps display text) a line.
    static func decode(_ data: ArraySlice<UInt8>, _ layer: inout Layer) -> String? {
        var c = ByteCursor(data)
        var shown: [String] = []
        while !c.isAtEnd {
            let start = c.index
            guard c.remaining >= 2, let type = try? c.u8(), let length = try? c.u8() else {
                layer.addIssue(.warning, "Apple manufacturer data: a byte left after the last message")
                break
            }
            let name = layer.keepsDisplays ? types[type] ?? "Type \(Hex.u8(type))" : ""
            layer.add(AppleFields.type, .u8(type), named: name, at: layer.range(at: start))
            layer.add(AppleFields.length, .count(Int(length)), at: layer.range(at: start + 1))
            guard let value = try? c.slice(Int(length)) else {
                layer.addIssue(.warning, "Apple \(types[type] ?? "type \(Hex.u8(type))") message of length \(length) runs past the data (\(c.remaining) bytes left)")
                let rest = c.rest()
                layer.add(AppleFields.data, .bytes(rest), at: layer.range(at: rest.startIndex, count: rest.count))
                if layer.keepsDisplays { shown.append("\(name) (truncated)") }
                break
            }
            layer.add(AppleFields.data, .bytes(value), at: layer.range(at: value.startIndex, count: value.count))
            let text = message(type, name, value, &layer)
            if layer.keepsDisplays { shown.append(text) }
        }
        return layer.keepsDisplays ? shown.joined(separator: "; ") : ""
    }

    static func message(_ type: UInt8, _ name: String, _ value: ArraySlice<UInt8>, _ layer: inout Layer) -> String {
        var c = ByteCursor(value)
        switch type {
        case 0x02 where value.count == 21:
            guard let bytes = try? c.slice(16), let uuid = BTUUID(bigEndian: bytes), let major = try? c.u16be(), let minor = try? c.u16be(),
                  let power = try? c.i8() else { break }
            let at = value.startIndex
            layer.add(AppleFields.uuid, .uuid(uuid), at: layer.range(at: at, count: 16))
            layer.add(AppleFields.major, .count(Int(major)), at: layer.range(at: at + 16, count: 2))
            layer.add(AppleFields.minor, .count(Int(minor)), at: layer.range(at: at + 18, count: 2))
            layer.add(AppleFields.power, .signed(Int64(power)), "\(power) dBm", at: layer.range(at: at + 20))
            guard layer.keepsDisplays else { return "" }
            return "iBeacon \(uuid.longForm) Major: \(major) Minor: \(minor) Measured Power: \(power) dBm"
        case 0x07 where value.count >= 3:
            _ = try? c.u8()
            guard let model = try? c.u16be() else { break }
            layer.add(AppleFields.model, .u16(model), named: models[model], at: layer.range(at: value.startIndex + 1, count: 2))
            guard layer.keepsDisplays else { return "" }
            return ASCII.concat("Proximity Pairing: ", models[model] ?? "model \(Hex.u16(model))", " - ", String(value.count), " bytes")
        case 0x10 where value.count >= 1:
            let action = value[value.startIndex] & 0x0F
            layer.add(AppleFields.action, .u8(action), named: nearbyActions[action], at: layer.range(at: value.startIndex))
            guard layer.keepsDisplays else { return "" }
            return ASCII.concat("Nearby Info: ", nearbyActions[action] ?? "action \(Hex.u8(action))", " - ", String(value.count), " bytes")
        case 0x0F where value.count >= 2:
            let actionType = value[value.startIndex + 1]
            layer.add(AppleFields.actionType, .u8(actionType), named: nearbyActionTypes[actionType], at: layer.range(at: value.startIndex + 1))
            guard layer.keepsDisplays else { return "" }
            return ASCII.concat("Nearby Action: ", nearbyActionTypes[actionType] ?? "type \(Hex.u8(actionType))", " - ", String(value.count), " bytes")
        default:
            break
        }
        return layer.keepsDisplays ? ASCII.concat(name, " (", String(value.count), " bytes)") : ""
    }
}
