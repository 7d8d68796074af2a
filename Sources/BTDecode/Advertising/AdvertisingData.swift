import BTCapture

/// Advertising data, scan responses and EIR: a sequence of length, AD type, data structures
/// (Core Vol 3, Part C, 11; Core Specification Supplement, Part A; Assigned Numbers 2.3).
public enum AdvertisingData {
    /// Advertising data, scan responses and EIR; manufacturer formats register by company.
    static let descriptor = ProtocolDescriptor(name: "Advertising Data", fields: AdvertisingFields.all)

    static let typeNames: ByteNames = [
        0x01: "Flags", 0x02: "Incomplete List of 16-bit Service UUIDs", 0x03: "Complete List of 16-bit Service UUIDs",
        0x04: "Incomplete List of 32-bit Service UUIDs", 0x05: "Complete List of 32-bit Service UUIDs",
        0x06: "Incomplete List of 128-bit Service UUIDs", 0x07: "Complete List of 128-bit Service UUIDs",
        0x08: "Shortened Local Name", 0x09: "Complete Local Name", 0x0A: "TX Power Level", 0x0D: "Class of Device",
        0x0E: "Simple Pairing Hash C-192", 0x0F: "Simple Pairing Randomizer R-192", 0x10: "Device ID / Security Manager TK Value",
        0x11: "Security Manager Out of Band Flags", 0x12: "Peripheral Connection Interval Range",
        0x14: "List of 16-bit Service Solicitation UUIDs", 0x15: "List of 128-bit Service Solicitation UUIDs",
        0x16: "Service Data - 16-bit UUID", 0x17: "Public Target Address", 0x18: "Random Target Address",
        0x19: "Appearance", 0x1A: "Advertising Interval", 0x1B: "LE Bluetooth Device Address", 0x1C: "LE Role",
        0x1D: "Simple Pairing Hash C-256", 0x1E: "Simple Pairing Randomizer R-256",
        0x1F: "List of 32-bit Service Solicitation UUIDs", 0x20: "Service Data - 32-bit UUID",
        0x21: "Service Data - 128-bit UUID", 0x22: "LE Secure Connections Confirmation Value",
        0x23: "LE Secure Connections Random Value", 0x24: "URI", 0x25: "Indoor Positioning",
        0x26: "Transport Discovery Data", 0x27: "LE Supported Features", 0x28: "Channel Map Update Indication",
        0x29: "PB-ADV", 0x2A: "Mesh Message", 0x2B: "Mesh Beacon", 0x2C: "BIGInfo", 0x2D: "Broadcast_Code",
        0x2E: "Resolvable Set Identifier", 0x2F: "Advertising Interval - long", 0x30: "Broadcast Name",
        0x31: "Encrypted Advertising Data", 0x32: "Periodic Advertising Response Timing Information",
        0x34: "Electronic Shelf Label", 0x3D: "3D Information Data", 0xFF: "Manufacturer Specific Data",
    ]

    /// What a summary wants from the data: the device's name.
    public struct Digest {
        public var name: String?
    }

    /// Adds one field per AD structure (and per value inside it) to `layer`.
    @discardableResult
    /// `ranged`: `data` lies in the layer's own bytes, so each field has its range (not so for
    /// data joined from several packets).
    static func decode(_ data: ArraySlice<UInt8>, into layer: inout Layer, names uuidNames: UUIDNames, described: DescribedProtocols = DescribedProtocols(),
                       ranged: Bool = true) -> Digest {
        var digest = Digest()
        var c = ByteCursor(data)
        while !c.isAtEnd {
            guard let length = try? c.u8() else { break }
            if length == 0 {
                // The significant part ends here; what follows must be zero padding (EIR is 240 bytes).
                if c.rest().contains(where: { $0 != 0 }) { layer.addIssue(.warning, "Advertising data continues after a zero-length structure") }
                break
            }
            let typeRange = ranged ? layer.range(at: c.index) : nil
            guard Int(length) <= c.remaining, let type = try? c.u8(), var value = try? c.slice(Int(length) - 1) else {
                layer.addIssue(.warning, "AD structure of length \(length) runs past the end of the data (\(c.remaining) bytes left)")
                _ = c.rest()
                break
            }
            var name: String { typeNames[type] ?? "Unknown AD Type" }
            var v = ByteCursor(value)
            let first = layer.fields.count
            let text = describe(type, &v, &layer, &digest, uuidNames, described, ranged: ranged)
            // The structure's own line comes before the values decoded from it.
            // The mask's rule (Layer.keeps) as of before the structure's values: kept if the first.
            if first == 0 || layer.keptFields.keeps(AdvertisingFields.adType) {
                let display = layer.keepsDisplays ? ASCII.concat(name, " (", Hex.u8(type), "): ", text ?? Hex.bytes(value)) : nil
                let field = layer.made(AdvertisingFields.adType, .u8(type), display: display, range: typeRange, form: .text)
                layer.fields.insert(field, at: first)
            }
            if !v.isAtEnd, type != 0xFF {
                value = v.rest()
                layer.addIssue(.warning, "\(name): \(value.count) unexpected bytes")
            }
        }
        return digest
    }

    /// `decode`, repeated from `memo` when the same bytes were decoded before for the same view.
    static func decode(_ data: ArraySlice<UInt8>, into layer: inout Layer, names uuidNames: UUIDNames, described: DescribedProtocols = DescribedProtocols(),
                       ranged: Bool = true, memo: inout AdvertisingDataMemo) -> Digest {
        guard data.count <= AdvertisingDataMemo.longestData else {
            return decode(data, into: &layer, names: uuidNames, described: described, ranged: ranged)
        }
        let key = AdvertisingDataMemo.Key(bytes: data, ranged: ranged, layerWasEmpty: layer.fields.isEmpty)
        // Where the data's first byte lies in the layer's ranges.
        let shift = data.startIndex - layer.cursorBase
        if let digest = memo.replay(key, into: &layer, shift: shift) { return digest }
        let fieldsBefore = layer.fields.count, fieldBytesBefore = layer.fieldBytes.count, issuesBefore = layer.issues.count
        let digest = decode(data, into: &layer, names: uuidNames, described: described, ranged: ranged)
        memo.remember(key, from: layer, fieldsBefore: fieldsBefore, fieldBytesBefore: fieldBytesBefore, issuesBefore: issuesBefore,
                      shift: shift, digest: digest)
        return digest
    }

    /// The Flags structure's bits, from bit 0 (Core Specification Supplement, Part A, 1.3).
    static let flagNames = ["LE Limited Discoverable", "LE General Discoverable", "BR/EDR Not Supported",
                            "Simultaneous LE and BR/EDR (Controller)", "Simultaneous LE and BR/EDR (Host)"]

    /// The tree's text of each Flags value ("0x06 LE General Discoverable, BR/EDR Not
    /// Supported"), made once on first use: nearly every advertisement carries Flags, and
    /// joining the names was a tenth of its structures' text.
    static let flagTexts: [String] = (0 ... 255).map { (flags: Int) in
        let names = flagNames.indices.filter { flags & (1 << $0) != 0 }.map { flagNames[$0] }
        return ASCII.concat(Hex.u8(UInt8(flags)), " ", names.joined(separator: ", "))
    }

    /// Adds the structure's fields and returns its text for the tree (empty when no tree is
    /// printed: the text costs more than the fields).
    static func describe(_ type: UInt8, _ c: inout ByteCursor, _ layer: inout Layer, _ digest: inout Digest, _ uuidNames: UUIDNames,
                         _ described: DescribedProtocols, ranged: Bool) -> String? {
        let wantsText = layer.keepsDisplays
        /// Adds a field whose bytes are those read since `start`.
        func add(_ definition: FieldDefinition, _ value: FieldValue, _ display: @autoclosure () -> String? = nil, from start: Int) {
            layer.add(definition, value, display(), at: ranged ? layer.range(at: start, count: c.index - start) : nil)
        }
        func uuids(_ size: Int) -> String {
            var names: [String] = []
            var start = c.index
            while c.remaining >= size, let bytes = try? c.slice(size), let uuid = BTUUID(littleEndian: bytes) {
                add(AdvertisingFields.uuid, .uuid(uuid), uuidNames.labelled(uuid), from: start)
                start = c.index
                if wantsText { names.append(uuidNames.labelled(uuid)) }
            }
            return wantsText ? names.joined(separator: ", ") : ""
        }
        func serviceData(_ size: Int) -> String? {
            let start = c.index
            guard let bytes = try? c.slice(size), let uuid = BTUUID(littleEndian: bytes) else { return nil }
            add(AdvertisingFields.serviceDataUUID, .uuid(uuid), uuidNames.labelled(uuid), from: start)
            let dataStart = c.index
            let data = c.rest()
            add(AdvertisingFields.serviceData, .bytes(data), from: dataStart)
            if !described.isEmpty, let target = described.serviceData[uuid] {
                let text = describedData(target, data)
                return wantsText ? ASCII.concat(uuidNames.labelled(uuid), ": ", text) : ""
            }
            return wantsText ? ASCII.concat(uuidNames.labelled(uuid), ": ", Hex.bytes(data)) : ""
        }
        /// Data a described protocol lays out, its fields on this layer: its summary words.
        func describedData(_ target: DescribedTarget, _ data: ArraySlice<UInt8>) -> String {
            let before = layer.fields.count
            var d = ByteCursor(data)
            let words = DescribedDecoder.decodeFields(target.described, target.message, &d, into: &layer)
            if !ranged { for index in before ..< layer.fields.count { layer.fields[index].range = nil } }
            return ASCII.concat(target.described.name, " ", words)
        }
        let start = c.index
        switch type {
        case 0x01:
            guard let flags = try? c.u8() else { return nil }
            add(AdvertisingFields.flags, .u8(flags), from: start)
            guard wantsText else { return "" }
            return flagTexts[Int(flags)]
        case 0x02, 0x03, 0x14: return uuids(2)
        case 0x04, 0x05, 0x1F: return uuids(4)
        case 0x06, 0x07, 0x15: return uuids(16)
        case 0x08, 0x09, 0x30:
            let name = ReadableText.decode(c.rest())
            add(AdvertisingFields.name, .text(name), from: start)
            if type != 0x30 || digest.name == nil { digest.name = name }
            return wantsText ? ASCII.concat("\"", name, "\"") : ""
        case 0x0A:
            guard let power = try? c.i8() else { return nil }
            add(AdvertisingFields.txPower, .signed(Int64(power)), ASCII.concat(String(power), " dBm"), from: start)
            return wantsText ? ASCII.concat(String(power), " dBm") : ""
        case 0x0D:
            guard let cod = try? c.u24() else { return nil }
            add(AdvertisingFields.classOfDevice, .unsigned(UInt64(cod), width: 6), from: start)
            return wantsText ? ClassOfDevice.describe(cod) : ""
        case 0x12:
            guard let min = try? c.u16(), let max = try? c.u16() else { return nil }
            return wantsText ? "\(Units.milliseconds(min, 1.25)) - \(Units.milliseconds(max, 1.25))" : ""
        case 0x16: return serviceData(2)
        case 0x20: return serviceData(4)
        case 0x21: return serviceData(16)
        case 0x17, 0x18:
            var addresses: [String] = []
            while c.remaining >= 6, let address = try? c.address() { addresses.append(address.description) }
            return wantsText ? addresses.joined(separator: ", ") : ""
        case 0x19:
            guard let appearance = try? c.u16() else { return nil }
            layer.add(AdvertisingFields.appearance, .u16(appearance), named: AssignedNumbers.appearance(appearance) ?? "Unknown",
                      at: ranged ? layer.range(at: start, count: 2) : nil)
            return wantsText ? "\(AssignedNumbers.appearance(appearance) ?? "Unknown") (\(Hex.u16(appearance)))" : ""
        case 0x1A:
            guard let interval = try? c.u16() else { return nil }
            add(AdvertisingFields.interval, .u16(interval), Units.milliseconds(interval, 0.625), from: start)
            return wantsText ? Units.milliseconds(interval, 0.625) : ""
        case 0x1B:
            guard let address = try? c.address(), let kind = try? c.u8() else { return nil }
            return wantsText ? "\(address) (\(kind & 1 == 0 ? "Public" : "Random"))" : ""
        case 0x1C:
            guard let role = try? c.u8() else { return nil }
            let roles = ["Only Peripheral Role supported", "Only Central Role supported",
                         "Peripheral and Central Role supported, Peripheral preferred",
                         "Peripheral and Central Role supported, Central preferred"]
            add(AdvertisingFields.leRole, .u8(role), Int(role) < roles.count ? roles[Int(role)] : "Reserved", from: start)
            return wantsText ? (Int(role) < roles.count ? roles[Int(role)] : "Reserved (\(Hex.u8(role)))") : ""
        case 0x24:
            guard let scheme = try? c.u8() else { return nil }
            // The first UTF-8 code point names the scheme (Assigned Numbers, URI Scheme Name String Mapping).
            let schemes: [UInt8: String] = [0x01: "", 0x16: "http:", 0x17: "https:", 0x0E: "ftp:", 0x1C: "mailto:", 0x3D: "tel:"]
            let uri = (schemes[scheme] ?? "scheme(\(Hex.u8(scheme))):") + ReadableText.decode(c.rest())
            add(AdvertisingFields.uri, .text(uri), from: start)
            return wantsText ? uri : ""
        case 0x2F:
            guard let interval = try? c.u24() else { return nil }
            return wantsText ? Units.milliseconds(interval, 0.625) : ""
        case 0xFF:
            guard let company = try? c.u16() else { return nil }
            // The company's name only where text is printed: the lookup costs more than the rest.
            var companyName: String { AssignedNumbers.company(company) ?? "Unknown" }
            layer.add(AdvertisingFields.company, .u16(company), named: companyName, at: ranged ? layer.range(at: start, count: 2) : nil)
            let dataStart = c.index
            let data = c.rest()
            add(AdvertisingFields.manufacturerData, .bytes(data), from: dataStart)
            let before = layer.fields.count
            if !described.isEmpty, let target = described.manufacturer(company, data) {
                let text = describedData(target, data)
                return wantsText ? ASCII.concat(companyName, ": ", text) : ""
            }
            let described = DissectorTables.manufacturerData[company].flatMap { describe in describe(data, &layer) }
            // The company's decoder places its fields in `data`: not this packet's bytes when it was joined.
            if !ranged { for index in before ..< layer.fields.count { layer.fields[index].range = nil } }
            if let text = described {
                return wantsText ? ASCII.concat(companyName, ": ", text) : ""
            }
            return wantsText ? ASCII.concat(companyName, " (", Hex.u16(company), "): ", Hex.bytes(data)) : ""
        default:
            return nil
        }
    }
}

/// Class of Device (Assigned Numbers, Baseband): service classes and major/minor device class.
enum ClassOfDevice {
    static let majors = ["Miscellaneous", "Computer", "Phone", "LAN/Network Access Point", "Audio/Video",
                         "Peripheral", "Imaging", "Wearable", "Toy", "Health"]
    static let services: [(Int, String)] = [(13, "Limited Discoverable"), (14, "LE Audio"), (16, "Positioning"),
                                            (17, "Networking"), (18, "Rendering"), (19, "Capturing"), (20, "Object Transfer"),
                                            (21, "Audio"), (22, "Telephony"), (23, "Information")]

    static func describe(_ cod: UInt32) -> String {
        let major = Int(cod >> 8 & 0x1F)
        var text = "\(Hex.format(cod, width: 6)) " + (major < majors.count ? majors[major] : major == 0x1F ? "Uncategorized" : "Reserved")
        let names = services.filter { cod & (1 << UInt32($0.0)) != 0 }.map(\.1)
        if !names.isEmpty { text += " (\(names.joined(separator: ", ")))" }
        return text
    }
}
