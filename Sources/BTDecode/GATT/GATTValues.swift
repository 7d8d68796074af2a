import BTCapture

/// Values of well-known characteristics and descriptors, decoded as the GATT Specification
/// Supplement lays them out. nil: not a type this knows, or a malformed value.
public enum GATTValues {
    /// GATT on ATT: its fields, the databases learnt from discovery, and the value formats it knows.
    static let descriptor = ProtocolDescriptor(name: "GATT", fields: GATTFields.all, state: GATTState.self,
                                               registrations: describers.map { .gattValue($0.0, $0.1) }, values: [GATTFields.value.name])

    /// The decoded value of an attribute of this type, from the registered formats.
    public static func describe(_ type: BTUUID, _ value: ArraySlice<UInt8>) -> String? {
        DissectorTables.gattValues[type]?(value)
    }

    static func type(_ short: UInt16) -> BTUUID { BTUUID(short) }

    /// Value formats by attribute type (GATT Specification Supplement); vendor services add theirs.
    static let describers: [(BTUUID, GATTValueDescriber)] = [
        (type(0x2902), { value in // Client Characteristic Configuration
            var c = ByteCursor(value)
            return (try? c.u16()).map(cccd)
        }),
        (type(0x2A01), { value in
            var c = ByteCursor(value)
            guard let appearance = try? c.u16() else { return nil }
            return "\(AssignedNumbers.appearance(appearance) ?? "Unknown") (\(Hex.u16(appearance)))"
        }),
        (type(0x2A38), { value in
            var c = ByteCursor(value)
            guard let location = try? c.u8() else { return nil }
            let names = ["Other", "Chest", "Wrist", "Finger", "Hand", "Ear Lobe", "Foot"]
            return Int(location) < names.count ? names[Int(location)] : "Reserved (\(Hex.u8(location)))"
        }),
        (type(0x2A19), { value in
            var c = ByteCursor(value)
            return (try? c.u8()).map { "\($0)%" }
        }),
        (type(0x2A50), { value in
            var c = ByteCursor(value)
            guard let source = try? c.u8(), let vendor = try? c.u16(), let product = try? c.u16(), let version = try? c.u16() else { return nil }
            let vendorName = source == 1 ? AssignedNumbers.company(vendor) : source == 2 ? "USB" : nil
            return "Vendor: \(vendorName.map { "\($0) " } ?? "")(\(Hex.u16(vendor))) - Product: \(Hex.u16(product)) - Version: \(Hex.u16(version))"
        }),
        (type(0x2A37), { value in
            var c = ByteCursor(value)
            return heartRate(&c)
        }),
        (type(0x2A05), { value in
            var c = ByteCursor(value)
            guard let start = try? c.u16(), let end = try? c.u16() else { return nil }
            return "Handles \(Hex.u16(start))-\(Hex.u16(end))"
        }),
        (type(0x2B29), { value in
            var c = ByteCursor(value)
            guard let bits = try? c.u8() else { return nil }
            let names = [(0, "Robust Caching"), (1, "Enhanced ATT Bearer"), (2, "Multiple Handle Value Notifications")]
                .filter { bits & (1 << $0.0) != 0 }.map(\.1)
            return names.isEmpty ? "None" : names.joined(separator: ", ")
        }),
        (type(0x2A04), { value in
            var c = ByteCursor(value)
            guard let min = try? c.u16(), let max = try? c.u16(), let latency = try? c.u16(), let timeout = try? c.u16() else { return nil }
            return "Interval: \(Units.milliseconds(min, 1.25))-\(Units.milliseconds(max, 1.25)) - Latency: \(latency) - Timeout: \(Units.milliseconds(timeout, 10))"
        }),
        (type(0x2A2B), { value in
            // Current Time: Exact Time 256 (a Date Time, the day of the week, 1/256 s), then the adjust reason.
            guard value.count >= 8 else { return nil }
            let days = ["", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
            var text = dateTime(value.prefix(7))
            let weekday = value[value.startIndex + 7]
            if weekday >= 1 && weekday <= 7 { text += " \(days[Int(weekday)])" }
            if value.count >= 9 { text += " +\(value[value.startIndex + 8])/256 s" }
            return text
        }),
        (type(0x2AA6), { value in
            var c = ByteCursor(value)
            guard let flag = try? c.u8() else { return nil }
            return flag == 1 ? "Address resolution supported" : "Address resolution not supported"
        }),
    ] + [0x2A00, 0x2A24, 0x2A25, 0x2A26, 0x2A27, 0x2A28, 0x2A29, 0x2901].map { (type($0), quotedText) }

    /// GATT Date Time (GATT Specification Supplement 3.70), seven bytes: "2022-11-28 10:30:00". A
    /// year, month or day of 0 means not known, and reads "unknown". The one Date Time text: of
    /// Current Time here, and of a description's `datetime` values.
    static func dateTime(_ bytes: ArraySlice<UInt8>) -> String {
        func byte(_ i: Int) -> UInt8 { i < bytes.count ? bytes[bytes.startIndex + i] : 0 }
        return ASCII.string(capacity: 32) { out in // "unknown-unknown-unknown 23:59:59" at most
            func part(_ value: UInt64, width: Int) {
                if value == 0 { ASCII.append("unknown", to: &out) } else { ASCII.appendDecimal(value, width: width, to: &out) }
            }
            part(UInt64(byte(0)) | UInt64(byte(1)) << 8, width: 1)
            out.put(UInt8(ascii: "-"))
            part(UInt64(byte(2)), width: 2)
            out.put(UInt8(ascii: "-"))
            part(UInt64(byte(3)), width: 2)
            for (index, i) in [4, 5, 6].enumerated() {
                out.put(UInt8(ascii: index == 0 ? " " : ":"))
                ASCII.appendDecimal(UInt64(byte(i)), width: 2, to: &out)
            }
        }
    }

    /// UTF-8 strings (Device Name, the Device Information strings, User Description).
    static func quotedText(_ value: ArraySlice<UInt8>) -> String? { "\"" + ReadableText.untilNUL(value) + "\"" }

    static func cccd(_ bits: UInt16) -> String {
        var parts: [String] = []
        if bits & 1 != 0 { parts.append("Notification") }
        if bits & 2 != 0 { parts.append("Indication") }
        return parts.isEmpty ? "Disabled" : parts.joined(separator: ", ")
    }

    /// Heart Rate Measurement (Heart Rate Service 3.1): flags, value, energy, RR intervals.
    static func heartRate(_ c: inout ByteCursor) -> String? {
        guard let flags = try? c.u8() else { return nil }
        let rate: UInt16?
        if flags & 1 != 0 { rate = try? c.u16() } else { rate = (try? c.u8()).map(UInt16.init) }
        guard let rate else { return nil }
        var parts = ["\(rate) bpm"]
        switch flags >> 1 & 3 {
        case 2: parts.append("Contact not detected")
        case 3: parts.append("Contact detected")
        default: break
        }
        if flags & 0x08 != 0, let energy = try? c.u16() { parts.append("Energy: \(energy) kJ") }
        if flags & 0x10 != 0 {
            var intervals: [String] = []
            while let rr = try? c.u16() {
                // 1/1024 s to milliseconds, to nearest (ties to even, as printf rounds).
                intervals.append(String(format1000(Int((Double(rr) * 1000 / 1024).rounded(.toNearestOrEven)))))
            }
            if !intervals.isEmpty { parts.append("RR: " + intervals.joined(separator: ", ") + " s") }
        }
        return parts.joined(separator: " - ")
    }

    /// Milliseconds as seconds with three decimals, without Foundation.
    static func format1000(_ ms: Int) -> String {
        let fraction = String(ms % 1000)
        return "\(ms / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
