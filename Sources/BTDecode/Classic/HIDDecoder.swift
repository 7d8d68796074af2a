import BTCapture

/// The HID profile's fields (HID Profile 1.1, 3.1), named as tshark's bthid.* where both have one.
public enum HIDFields {
    static let f = FieldDefinition.maker("hid")
    public static let type = f("type", "Transaction Type", .uint8,
                               "0x0 Handshake, 0x1 HID Control, 0x4 Get Report, 0x5 Set Report, 0x6 Get Protocol, 0x7 Set Protocol, 0xA Data")
    public static let result = f("result", "Result Code", .uint8, "Handshake: 0 Successful, 1 Not Ready, 2 Invalid Report ID, 3 Unsupported Request, 4 Invalid Parameter, 0xE Unknown, 0xF Fatal")
    public static let control = f("control", "Control Operation", .uint8, "0 NOP, 1 Hard Reset, 2 Soft Reset, 3 Suspend, 4 Exit Suspend, 5 Virtual Cable Unplug")
    public static let reportType = f("report_type", "Report Type", .uint8, "1 Input, 2 Output, 3 Feature")
    public static let reportID = f("report_id", "Report ID", .uint8, "Which of the device's reports (when its descriptor declares IDs)")
    public static let bufferSize = f("buffer_size", "Buffer Size", .uint16, "Get Report: the most bytes the host takes")
    public static let protocolMode = f("protocol", "Protocol", .uint8, "0 Boot, 1 Report")
    public static let idleRate = f("idle_rate", "Idle Rate", .uint8, "Units of 4 ms; 0 reports only on change")
    public static let data = f("data", "Data", .bytes, "The report's bytes")
    public static let usage = f("usage", "Usage", .string, "A key, button or control the report has active (\"Left Shift\", \"H\", \"Volume Increment\")")
    public static let value = f("value", "Value", .int, "A variable control's value (an axis, a wheel), with its usage shown")

    public static let all = [type, result, control, reportType, reportID, bufferSize, protocolMode, idleRate, data, usage, value]
}

/// Per link: the protocol mode the host set (Boot or Report), what a Get request is waiting
/// for on the control channel, and the device's report descriptor read from its SDP record.
public struct HIDState: ProtocolState {
    public static var slot: Int { StateSlot.hid.rawValue }

    enum Mode: UInt8 { case boot = 0, report = 1 }

    var modes: [Session.LinkKey: Mode] = [:]
    var pendingMode: [Session.LinkKey: Mode] = [:]
    /// The transaction type (and report type) of a Get request the next DATA on the control channel answers.
    var pendingGet: [Session.LinkKey: (type: UInt8, reportType: UInt8)] = [:]
    var descriptors: [Session.LinkKey: (bytes: [UInt8], parsed: HIDReportDescriptor?)] = [:]

    public init() {}

    public mutating func close(_ link: Session.LinkKey) -> [String] {
        modes[link] = nil
        pendingMode[link] = nil
        pendingGet[link] = nil
        descriptors[link] = nil
        return []
    }

    public mutating func finish() -> [SessionReport] { [] }
}

extension Session {
    public var hid: HIDState { _read { yield self[HIDState.self] } _modify { yield &self[HIDState.self] } }

    /// The report descriptor of the HID service SDP described on this link, read once.
    mutating func hidDescriptor(_ link: Session.LinkKey) -> HIDReportDescriptor? {
        guard let bytes = sdp.services[link]?.last(where: { $0.hidDescriptor != nil })?.hidDescriptor else { return nil }
        if let known = hid.descriptors[link], known.bytes == bytes { return known.parsed }
        let parsed = try? HIDReportDescriptor(bytes[...])
        hid.descriptors[link] = (bytes, parsed)
        return parsed
    }
}

/// HID over L2CAP (PSM 0x0011 control, 0x0013 interrupt): every transaction with its
/// parameters; reports read through the device's report descriptor when SDP gave it (keys,
/// buttons, axes, consumer controls by name), or as the boot keyboard and mouse reports in
/// Boot mode; otherwise the report's bytes.
enum HIDDecoder {
    static let descriptor = ProtocolDescriptor(name: "HID", fields: HIDFields.all, layers: [.hid], state: HIDState.self,
                                               registrations: [.psm(0x0011, "HID Control", decode), .psm(0x0013, "HID Interrupt", decode)],
                                               valueNames: [(HIDFields.type, FieldValueNames.from(types)),
                                                            (HIDFields.result, FieldValueNames.from(results))])

    static let types: [UInt8: String] = [
        0x0: "Handshake", 0x1: "HID Control", 0x4: "Get Report", 0x5: "Set Report", 0x6: "Get Protocol", 0x7: "Set Protocol",
        0x8: "Get Idle", 0x9: "Set Idle", 0xA: "Data", 0xB: "Data Continuation",
    ]
    static let results: [UInt8: String] = [
        0x0: "Successful", 0x1: "Not Ready", 0x2: "Invalid Report ID", 0x3: "Unsupported Request", 0x4: "Invalid Parameter",
        0xE: "Unknown", 0xF: "Fatal",
    ]
    static let controls = ["NOP", "Hard Reset", "Soft Reset", "Suspend", "Exit Suspend", "Virtual Cable Unplug"]
    static let reportTypes = ["Other", "Input", "Output", "Feature"]

    static func decode(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session, context: L2CAPContext) throws {
        var layer = packet.makeLayer(.hid, over: c, showsDirection: true)
        defer { packet.append(taking: &layer) }
        let onControl = context.channel?.psm != 0x0013
        let (header, headerAt) = try layer.reading(&c) { try $0.u8() }
        let type = header >> 4, parameter = header & 0x0F
        let typeName = types[type] ?? "Reserved \(Hex.u8(type))"
        layer.add(HIDFields.type, .u8(type), named: typeName, at: headerAt)
        layer.summary.set("\(typeName)")
        let link = context.link

        switch type {
        case 0x0:
            let name = results[parameter] ?? "Reserved \(Hex.u8(parameter))"
            layer.add(HIDFields.result, .u8(parameter), name, at: headerAt)
            layer.summary += ": \(name)"
            if parameter == 0, let mode = session.hid.pendingMode[link] { session.hid.modes[link] = mode }
            session.hid.pendingMode[link] = nil
            session.hid.pendingGet[link] = nil
            if parameter != 0 { layer.addIssue(.warning, "HID handshake: \(name)") }
        case 0x1:
            let name = controls[safe: Int(parameter)] ?? "Reserved \(Hex.u8(parameter))"
            layer.add(HIDFields.control, .u8(parameter), name, at: headerAt)
            layer.summary += ": \(name)"
            if parameter == 5 { session.hid.modes[link] = nil }
        case 0x4:
            let reportType = parameter & 0x03
            layer.add(HIDFields.reportType, .count(Int(reportType)), reportTypes[Int(reportType)], at: headerAt)
            layer.summary += ": \(reportTypes[Int(reportType)])"
            let sized = parameter & 0x08 != 0
            if c.remaining - (sized ? 2 : 0) >= 1 {
                let id = try layer.readCount(HIDFields.reportID, &c, as: UInt8.self)
                layer.summary += " - report \(id)"
            }
            if sized {
                let size = try layer.readCount(HIDFields.bufferSize, &c, as: UInt16.self)
                layer.summary += " - up to \(size) bytes"
            }
            session.hid.pendingGet[link] = (type, reportType)
        case 0x5, 0xA, 0xB:
            let reportType = parameter & 0x03
            layer.add(HIDFields.reportType, .count(Int(reportType)), reportTypes[Int(reportType)], at: headerAt)
            if type == 0xA, onControl, let pending = session.hid.pendingGet.removeValue(forKey: link), pending.type != 0x4 {
                // The answer to Get Protocol or Get Idle.
                let (value, valueAt) = try layer.reading(&c) { try $0.u8() }
                if pending.type == 0x6 {
                    let mode = HIDState.Mode(rawValue: value)
                    layer.add(HIDFields.protocolMode, .count(Int(value)), mode == .boot ? "Boot" : mode == .report ? "Report" : nil,
                              at: valueAt)
                    layer.summary += ": Protocol \(mode == .boot ? "Boot" : mode == .report ? "Report" : Hex.u8(value))"
                    if let mode { session.hid.modes[link] = mode }
                } else {
                    layer.add(HIDFields.idleRate, .count(Int(value)), value == 0 ? "Infinite" : "\(Int(value) * 4) ms", at: valueAt)
                    layer.summary += ": Idle Rate \(value == 0 ? "infinite" : "\(Int(value) * 4) ms")"
                }
            } else {
                if type == 0xA { session.hid.pendingGet[link] = nil }
                let kind = HIDReportDescriptor.Kind(rawValue: reportType)
                layer.summary += ": "
                try report(kind, &c, &layer, &session, link: link)
            }
        case 0x6, 0x8:
            session.hid.pendingGet[link] = (type, 0)
        case 0x7:
            let mode: HIDState.Mode = parameter & 0x01 == 0 ? .boot : .report
            layer.add(HIDFields.protocolMode, .count(Int(mode.rawValue)), mode == .boot ? "Boot" : "Report", at: headerAt)
            layer.summary += ": \(mode == .boot ? "Boot" : "Report")"
            session.hid.pendingMode[link] = mode
        case 0x9:
            let rate = try layer.readCount(HIDFields.idleRate, &c, as: UInt8.self, display: { rate in rate == 0 ? "Infinite" : "\(Int(rate) * 4) ms" })
            layer.summary += ": \(rate == 0 ? "infinite" : "\(Int(rate) * 4) ms")"
        default:
            layer.addIssue(.warning, "Reserved HID transaction type \(Hex.u8(type))")
        }
        if !c.isAtEnd {
            layer.add(HIDFields.data, .bytes(c.bytes[c.index...]), at: layer.range(at: c.index, count: c.remaining))
            layer.addIssue(.warning, "\(c.remaining) bytes after the \(typeName) parameters")
            _ = c.rest()
        }
    }

    // MARK: Reports

    /// A report's ID and bytes, read through the descriptor (or the boot layout) when there is one.
    static func report(_ kind: HIDReportDescriptor.Kind?, _ c: inout ByteCursor, _ layer: inout Layer, _ session: inout Session,
                       link: Session.LinkKey) throws {
        let kindName = reportTypes[Int(kind?.rawValue ?? 0)]
        let boot = session.hid.modes[link] == .boot
        let descriptor = boot ? nil : session.hidDescriptor(link)
        var id: UInt8 = 0
        if boot || descriptor?.usesReportIDs == true, !c.isAtEnd {
            id = try layer.readCount(HIDFields.reportID, &c, as: UInt8.self)
        }
        let start = c.index
        let bytes = c.rest()
        if !bytes.isEmpty { layer.add(HIDFields.data, .bytes(bytes), at: layer.range(at: start, count: bytes.count)) }

        var active: [String] = []
        var name: String?
        if boot, kind == .input, id == 1 || id == 2 {
            name = id == 1 ? "Boot Keyboard" : "Boot Mouse"
            active = id == 1 ? bootKeyboard(bytes, &layer) : bootMouse(bytes, &layer)
        } else if let descriptor, let kind, let layout = descriptor.report(kind, id: id) {
            name = layout.application.map(HIDUsages.name)
            active = fields(layout, bytes, &layer)
            if bytes.count * 8 < layout.bits {
                layer.addIssue(.warning, "\(kindName) report \(id) is \(bytes.count) bytes; the descriptor gives it \((layout.bits + 7) / 8)")
            }
        } else if descriptor != nil {
            layer.addIssue(.warning, "The report descriptor has no \(kindName.lowercased()) report \(id)")
        }
        let label = descriptor?.usesReportIDs == true || boot ? "\(kindName) Report \(id)" : "\(kindName) Report"
        let heading = name.map { "\(label) (\($0))" } ?? label
        layer.summary += "\(heading)"
        if name != nil {
            // Keys read as a chord ("Left Shift + H"), other controls as a list; a repeated usage once.
            var shown: [String] = []
            for usage in active where !shown.contains(usage) { shown.append(usage) }
            let chord = name == "Keyboard" || name == "Keypad" || name == "Boot Keyboard"
            layer.summary += " - \(shown.isEmpty ? "none" : shown.joined(separator: chord ? " + " : ", "))"
        } else {
            layer.summary += " - \(bytes.count) byte\(bytes.count == 1 ? "" : "s")"
            if !bytes.isEmpty { layer.summary += " \(preview: bytes)" }
        }
    }

    /// Every field of a report: the usages it has active and the values of its variable controls.
    static func fields(_ layout: HIDReportDescriptor.Report, _ bytes: ArraySlice<UInt8>, _ layer: inout Layer) -> [String] {
        var reader = HIDReportReader(bytes: bytes)
        var active: [String] = []
        for field in layout.fields {
            for index in 0 ..< field.count {
                let bit = reader.bit
                guard let raw = reader.read(field.size, signed: field.logicalMinimum < 0 && field.isVariable) else { return active }
                // The bytes that hold the control's bits.
                let range = layer.range(at: bytes.startIndex + bit / 8, count: (bit + field.size + 7) / 8 - bit / 8)
                guard !field.isConstant else { continue }
                if field.isVariable {
                    guard raw != 0, let usage = field.usage(at: index) else { continue }
                    let name = HIDUsages.name(usage)
                    if field.size == 1 {
                        layer.add(HIDFields.usage, .text(name), at: range)
                        active.append(name)
                    } else {
                        layer.add(HIDFields.value, .signed(raw), "\(name): \(raw)", at: range)
                        active.append(field.isRelative ? "\(name) \(raw > 0 ? "+" : "")\(raw)" : "\(name) \(raw)")
                    }
                } else {
                    // An array: each value selects a usage; the first usage (0 on the keyboard page) is none.
                    let selected = Int(raw - field.logicalMinimum)
                    guard let usage = field.usage(at: selected), usage & 0xFFFF != 0 else { continue }
                    let name = HIDUsages.name(usage)
                    layer.add(HIDFields.usage, .text(name), at: range)
                    active.append(name)
                }
            }
        }
        return active
    }

    /// The boot keyboard input report (HID 1.11, Appendix B.1): modifiers, reserved, six keys.
    static func bootKeyboard(_ bytes: ArraySlice<UInt8>, _ layer: inout Layer) -> [String] {
        guard let modifiers = bytes.first else { return [] }
        var active: [String] = []
        for bit in 0 ..< 8 where modifiers >> bit & 1 == 1 {
            active.append(HIDUsages.modifiers[bit])
            layer.add(HIDFields.usage, .text(HIDUsages.modifiers[bit]), at: layer.range(at: bytes.startIndex))
        }
        for (index, key) in bytes.dropFirst(2).prefix(6).enumerated() where key > 0 {
            active.append(HIDUsages.key(UInt16(key)))
            layer.add(HIDFields.usage, .text(HIDUsages.key(UInt16(key))), at: layer.range(at: bytes.startIndex + 2 + index))
        }
        return active
    }

    /// The boot mouse input report (Appendix B.2): buttons, X, Y, and a wheel when sent.
    static func bootMouse(_ bytes: ArraySlice<UInt8>, _ layer: inout Layer) -> [String] {
        guard let buttons = bytes.first else { return [] }
        var active: [String] = []
        for bit in 0 ..< 3 where buttons >> bit & 1 == 1 {
            active.append("Button \(bit + 1)")
            layer.add(HIDFields.usage, .text("Button \(bit + 1)"), at: layer.range(at: bytes.startIndex))
        }
        for (offset, axis) in ["X", "Y", "Wheel"].enumerated() {
            guard let byte = bytes.dropFirst(1 + offset).first, byte != 0 else { continue }
            let value = Int64(Int8(bitPattern: byte))
            layer.add(HIDFields.value, .signed(value), "\(axis): \(value)", at: layer.range(at: bytes.startIndex + 1 + offset))
            active.append("\(axis) \(value > 0 ? "+" : "")\(value)")
        }
        return active
    }
}

/// The layers this decoder makes.
extension LayerKind {
    public static let hid = LayerKind("HID", protocol: "hid")
}
