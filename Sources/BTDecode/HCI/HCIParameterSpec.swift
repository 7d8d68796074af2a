import BTCapture

/// A compact, data-driven description of HCI parameter layouts (Core Vol 4, Part E, 7), so
/// that every command, return and event is decoded by one interpreter instead of by hand.
///
/// A layout is a comma-separated list of "kind Name". Kinds: u8 u16 u24 u32 u64 i8 i16 (plain
/// integers), x8 x16 x32 (integers read in hex: addresses, masks), bN (N raw bytes), H (Connection_Handle), A (BD_ADDR), S (Status), R (Reason),
/// at (address type), en (enable), t625/t625x3/t1250/t10/t128/s (time units: 0.625 ms as u16
/// or u24, 1.25 ms, 10 ms, 1.28 s as u8, seconds), phy, phys (PHY mask), cod (Class of
/// Device), name (248-byte name), eir (240-byte EIR), ad (u8 length then advertising data),
/// io, auth (IO capability, authentication requirements), role, rest (what remains).
/// "[ ... ]" repeats its items as many times as the integer read just before says.
struct HCIParam {
    enum Kind: String {
        case u8, u16, u24, u32, u64, i8, i16, x8, x16, x32, H, A, S, R, at, en, t625, t625x3, t1250, t10, t128, s
        case phy, phys, cod, name, eir, ad, io, auth, role, rest
        /// Vendor forms: t625l (0.625 ms as u32), ad31 (a length, then 31 bytes of which that
        /// many are advertising data), dm (the rest: data, then a mask of the same length).
        case t625l, ad31, dm
        /// A length byte, then that many bytes (vendor-specific configuration, step data).
        case lv
        case bytes
    }
    var kind: Kind
    var name: String
    /// "LE_Scan_Interval" → "LE Scan Interval", made once with the layout.
    var label: String
    var byteCount = 0
    /// Marked "!" in the layout: the value also goes into the one-line summary.
    var inSummary = false
    var group: [HCIParam] = []
    var field: FieldDefinition
    /// A `dm` parameter's mask field, made once with the layout.
    var companion: FieldDefinition?
    /// A signed parameter's unit (" dBm" for an RSSI or a power, " dB" for an SNR), from its
    /// name once with the layout rather than searched for in the name at every packet.
    var unit = ""
    /// Where the value's name comes from, looked up once with the layout, not per packet.
    var valueNames: HCIValueNames.Source = .none

    static func parse(_ spec: String) -> [HCIParam] { parse(spec, in: .hci) }

    /// A layout whose fields belong to `namespace`: the core's ("hci.") or a vendor's
    /// ("android.", "broadcom."), with that vendor's value names.
    static func parse(_ spec: String, in namespace: HCIParameterFields.Namespace) -> [HCIParam] {
        var tokens = spec.split(separator: ",").map { String($0).trimmingWhitespace }[...]
        return parseList(&tokens, namespace)
    }

    private static func parseList(_ tokens: inout ArraySlice<String>, _ namespace: HCIParameterFields.Namespace) -> [HCIParam] {
        var params: [HCIParam] = []
        while let token = tokens.popFirst() {
            if token == "]" { break }
            if token.hasPrefix("[") {
                var inner = ([String(token.dropFirst()).trimmingWhitespace] + tokens)[...]
                let group = parseList(&inner, namespace)
                tokens = inner
                params.append(HCIParam(kind: .rest, name: "group", label: "group", group: group, field: HCIFields.parameters))
                continue
            }
            var closes = false
            var text = token
            if text.hasSuffix("]") { closes = true; text.removeLast() }
            let summarised = text.hasPrefix("!")
            if summarised { text.removeFirst() }
            let parts = text.split(separator: " ", maxSplits: 1).map(String.init)
            let kindText = parts[0]
            var kind = Kind(rawValue: kindText)
            var count = 0
            if kind == nil, kindText.hasPrefix("b"), let n = Int(kindText.dropFirst()) { kind = .bytes; count = n }
            guard let kind else { preconditionFailure("bad HCI parameter kind \(kindText) in \(token)") }
            let name = parts.count > 1 ? parts[1] : defaultName(kind)
            params.append(HCIParam(kind: kind, name: name, label: HCIParam.label(name), byteCount: count,
                                   inSummary: summarised, field: HCIParameterFields.field(name, kind, in: namespace),
                                   valueNames: namespace.valueNames[name].map { .table($0) } ?? HCIValueNames.source(name)))
            if kind == .dm { params[params.count - 1].companion = HCIParameterFields.maskField(of: params[params.count - 1].field) }
            if kind == .i8 { params[params.count - 1].unit = name.contains("RSSI") || name.contains("Power") ? " dBm" : name.hasSuffix("SNR") ? " dB" : "" }
            if closes { break }
        }
        return params
    }

    /// "LE_Scan_Interval" → "LE Scan Interval" (without Foundation: the tables are parsed at
    /// start-up, where its replacingOccurrences cost more than decoding a small capture).
    static func label(_ name: String) -> String {
        String(decoding: name.utf8.map { $0 == UInt8(ascii: "_") ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
    }

    static func defaultName(_ kind: Kind) -> String {
        switch kind {
        case .H: return "Connection_Handle"
        case .A: return "BD_ADDR"
        case .S: return "Status"
        case .R: return "Reason"
        case .en: return "Enable"
        default: return kind.rawValue
        }
    }

    /// This parameter and those of its repeated group, depth first.
    var flattened: [HCIParam] { group.isEmpty ? [self] : group.flatMap(\.flattened) }

    /// The fields this parameter adds: its own, and a `dm` parameter's mask.
    var fields: [FieldDefinition] { [field] + (companion.map { [$0] } ?? []) }
}

/// The field each parameter name becomes: "hci." + the name in lower case; the common ones
/// (handle, address, status, reason, role...) are the hand-declared HCIFields.
enum HCIParameterFields {
    /// Names some layouts read wider than others (Packet_Type: 2 bytes in Create Connection,
    /// 1 in Enhanced Flush), with the widest type; FieldRegistryTests checks the list is complete.
    static let widerThanSomeLayouts: [String: FieldType] = ["Packet_Type": .uint16, "Bit_Number": .uint16, "Clock_Offset": .uint32, "Subevent_Interval": .uint16,
                                                                   "Service_Data": .uint16, "Skip": .uint16, "Timeout": .uint16]

    /// Pure: the same name and kind always make the same definition, so the tables need no
    /// shared cache and the registry collects the fields by walking the parsed layouts.
    static func field(_ name: String, _ kind: HCIParam.Kind, in namespace: Namespace = .hci) -> FieldDefinition {
        switch kind {
        case .H: return HCIFields.handle
        case .A where namespace.prefix == "hci": return HCIFields.address
        case .S: return HCIFields.status
        case .R: return HCIFields.reason
        default: break
        }
        let key = namespace.prefix + "." + name.lowercased()
        if let known = HCIFields.byName[key] { return known }
        var type: FieldType
        switch kind {
        case .u8, .x8, .at, .en, .t128, .phy, .phys, .io, .auth, .role: type = .uint8
        case .u16, .x16, .t625, .t1250, .t10, .s: type = .uint16
        case .u24, .t625x3, .cod, .u32, .x32, .t625l: type = .uint32
        case .u64: type = .uint64
        case .i8, .i16: type = .int
        case .name: type = .string
        case .A: type = .address
        default: type = .bytes
        }
        // One type per name, whichever layout is parsed first.
        type = widerThanSomeLayouts[name] ?? type
        return FieldDefinition(key, HCIParam.label(name), type, namespace.describe(name))
    }

    /// The mask that follows a `dm` parameter's data: pure, like `field`, so the registry lists it.
    static func maskField(of field: FieldDefinition) -> FieldDefinition {
        FieldDefinition(field.name + "_mask", field.label + " Mask", .bytes, "Which bits of \(field.label) must match (1) or are ignored (0)")
    }

    /// Whose parameters a layout reads: the field prefix, how a field is described in
    /// `btlog fields`, and the names of enumerated values that belong to that owner.
    struct Namespace {
        var prefix: String
        var owner: String
        var valueNames: [String: [UInt64: String]] = [:]
        /// Descriptions written by the vendor's table, by parameter name.
        var descriptions: [String: String] = [:]

        static let hci = Namespace(prefix: "hci", owner: "HCI")

        func describe(_ name: String) -> String { descriptions[name] ?? "\(owner) parameter \(name)" }
    }
}

/// Reads parameters as a layout says, adding one field each and the ones a summary shows to the
/// layer's summary (" - " before each), and keeps the handle and address for the packet.
struct HCIParameterReader {
    var handle: UInt16?
    var address: BDAddr?
    /// The Company_Identifier read (Read Local Version's): which vendor's commands the
    /// controller takes. Kept as read, like the handle, so no decoder reads its field back.
    var companyIdentifier: UInt16?
    /// The run's UUID names, for the UUIDs in EIR and advertising data.
    let names: UUIDNames
    /// The run's described protocols, for manufacturer and service data they lay out; nil
    /// when there are none (most runs: no copy of their tables per packet).
    let describedOrNil: DescribedProtocols?
    var described: DescribedProtocols { describedOrNil ?? DescribedProtocols() }

    init(session: Session) {
        names = session.names
        describedOrNil = session.options.described.isEmpty ? nil : session.options.described
    }

    /// Reads the parameters, onto the layer: fields, summary, issues. A packet too short for
    /// the layout keeps the fields read but no half a summary.
    mutating func read(_ params: [HCIParam], _ c: inout ByteCursor, into layer: inout Layer) throws {
        let summaryBefore = layer.summary.count
        do {
            try read(params, &c, &layer)
        } catch {
            layer.summary.removeLast(layer.summary.count - summaryBefore)
            throw error
        }
    }

    /// What the parameters said about the connection, onto the packet's: handle and peer.
    func apply(handle packetHandle: inout UInt16?, peer: inout BDAddr?, controller: UInt16, session: Session) {
        if let handle {
            packetHandle = packetHandle ?? handle
            peer = peer ?? session.connection(controller: controller, handle: handle)?.peer
        }
        if let address { peer = peer ?? address }
    }

    /// `apply` onto a packet, for the layers (a vendor's) decoded with it.
    func apply(to packet: inout Packet, session: Session) {
        apply(handle: &packet.handle, peer: &packet.peer, controller: packet.frame.controller, session: session)
    }

    /// Reads a layout onto the layer, and what it said about the connection onto the row's packet.
    @discardableResult
    static func read(_ layout: [HCIParam], _ c: inout ByteCursor, _ layer: inout Layer,
                     _ row: inout HCIPacketContext, _ session: Session) throws -> HCIParameterReader {
        var reader = HCIParameterReader(session: session)
        try reader.read(layout, &c, into: &layer)
        reader.apply(handle: &row.handle, peer: &row.peer, controller: row.controller, session: session)
        return reader
    }

    /// The decoder of a row whose packet sets something up that the Session keeps (a CIS, a
    /// BIG, an SCO link): `learn` takes what it needs from the raw parameters, then the layout
    /// is read as any other.
    static func learning(_ learn: @escaping (ArraySlice<UInt8>, UInt16, inout Session) -> Void) -> HCIRowDecoder {
        { layout, c, layer, row, session in
            learn(c.bytes[c.index...], row.controller, &session)
            if let layout { try read(layout, &c, &layer, &row, session) }
        }
    }

    mutating func read(_ params: [HCIParam], _ c: inout ByteCursor, _ layer: inout Layer) throws {
        var lastInteger: UInt64 = 0
        for param in params {
            if !param.group.isEmpty {
                for _ in 0 ..< min(lastInteger, 255) { try read(param.group, &c, &layer) }
                continue
            }
            lastInteger = try readOne(param, &c, &layer)
            if param.field == VendorDecoders.companyIdentifier { companyIdentifier = UInt16(truncatingIfNeeded: lastInteger) }
        }
    }

    /// Returns the integer value read (for repeat counts), 0 for other kinds.
    /// Each field has the bytes of its parameter (redaction rewrites keys and addresses in place).
    mutating func readOne(_ p: HCIParam, _ c: inout ByteCursor, _ layer: inout Layer) throws -> UInt64 {
        let start = c.index
        /// The parameter's bytes read so far.
        func read() -> Range<Int> { layer.range(at: start, count: c.index - start) }
        /// `shown` is how the value reads without its raw form; the tree adds the raw form. A
        /// coded value's name (the parameter's table of names, an address type, a PHY) is added
        /// as its name: JSON's `.name` and `diff` read it so.
        func add(_ value: FieldValue, _ shown: String? = nil, isName: Bool = false) {
            var shown = shown, isName = isName
            if case .unsigned(let v, _) = value, let name = p.valueNames.name(v) { (shown, isName) = (name, true) }
            if isName {
                layer.add(p.field, value, named: shown, at: read())
            } else {
                layer.add(p.field, value, shown.map { "\($0) (\(value.text))" }, at: read())
            }
            guard p.inSummary else { return }
            let text = shown ?? value.displayText
            if p.kind == .en || p.valueNames.isTable {
                layer.summary += " - \(text)"
            } else {
                layer.summary += " - \(p.label): \(text)"
            }
        }
        func time(_ raw: UInt64, _ unit: Double, _ width: Int) -> UInt64 {
            add(.unsigned(raw, width: width), Units.milliseconds(raw, unit))
            return raw
        }
        switch p.kind {
        case .u8: let v = try c.u8(); add(.u8(v), String(v)); return UInt64(v)
        case .u16: let v = try c.u16(); add(.u16(v), String(v)); return UInt64(v)
        case .u24: let v = try c.u24(); add(.unsigned(UInt64(v), width: 6)); return UInt64(v)
        case .u32: let v = try c.u32(); add(.u32(v), String(v)); return UInt64(v)
        case .u64: let v = try c.u64(); add(.unsigned(v, width: 16)); return v
        case .x8: let v = try c.u8(); add(.u8(v)); return UInt64(v)
        case .x16: let v = try c.u16(); add(.u16(v)); return UInt64(v)
        case .x32: let v = try c.u32(); add(.u32(v)); return UInt64(v)
        case .i8:
            let v = try c.i8()
            layer.add(p.field, .signed(Int64(v)), p.unit.isEmpty ? nil : "\(v)\(p.unit)", at: read())
            if p.inSummary { layer.summary += " - \(p.label): \(v)\(p.unit)" }
            return 0
        case .i16: let v = Int16(bitPattern: try c.u16()); layer.add(p.field, .signed(Int64(v)), at: read()); return 0
        case .bytes: layer.add(p.field, .bytes(try c.slice(p.byteCount)), at: read()); return 0
        case .rest: let r = c.rest(); if !r.isEmpty { layer.add(p.field, .bytes(r), at: read()) }; return 0
        case .H:
            let v = try c.u16() & 0x0FFF
            layer.add(p.field, .u16(v), at: read())
            if handle == nil { handle = v; layer.summary += " - Handle: \(hex: v)" }
            return UInt64(v)
        case .A:
            let v = try c.address()
            layer.add(p.field, .address(v), at: read())
            if address == nil { address = v; layer.summary += " - \(v)" }
            return 0
        case .S:
            let v = try c.u8()
            let name = HCIErrorNames.name(v)
            layer.add(p.field, .u8(v), named: name, at: read())
            if v != 0 {
                layer.summary += " - \(name)"
                layer.addIssue(HCIErrorNames.severity(ofStatus: v), "Status: \(name) (\(Hex.u8(v)))")
            }
            return UInt64(v)
        case .R:
            let v = try c.u8()
            layer.add(p.field, .u8(v), named: HCIErrorNames.name(v), at: read())
            layer.summary += " - Reason: \(HCIErrorNames.name(v))"
            return UInt64(v)
        case .at: let v = try c.u8(); add(.u8(v), HCICommandDecoder.addressTypeName(v), isName: true); return UInt64(v)
        case .en:
            let v = try c.u8()
            layer.add(p.field, .u8(v), v == 0 ? "Disabled" : v == 1 ? "Enabled" : Hex.u8(v), at: read())
            layer.summary += v == 0 ? " - Disable" : v == 1 ? " - Enable" : " - \(p.label): \(hex: v)"
            return UInt64(v)
        case .t625: return time(UInt64(try c.u16()), 0.625, 4)
        case .t625x3: return time(UInt64(try c.u24()), 0.625, 6)
        case .t625l: return time(UInt64(try c.u32()), 0.625, 8)
        case .ad31:
            let length = try c.u8()
            let blockStart = c.index
            let block = try c.slice(31)
            let bytes = block.prefix(Int(length))
            layer.add(p.field, .bytes(bytes), at: layer.range(at: blockStart, count: bytes.count))
            if length > 31 { layer.addIssue(.warning, "\(p.label) length \(length) exceeds the 31 bytes it is carried in") }
            let digest = AdvertisingData.decode(bytes, into: &layer, names: names, described: described)
            if let name = digest.name { layer.summary += " - \"\(name)\"" }
            return UInt64(length)
        case .dm:
            let rest = c.rest()
            let half = rest.count / 2
            layer.add(p.field, .bytes(rest.prefix(half)), at: layer.range(at: start, count: half))
            if let mask = p.companion { layer.add(mask, .bytes(rest.suffix(rest.count - half)), at: layer.range(at: start + half, count: rest.count - half)) }
            if rest.count % 2 != 0 { layer.addIssue(.warning, "\(p.label) and its mask differ in length (\(rest.count) bytes in all)") }
            if p.inSummary { layer.summary += " - \(p.label): \(Hex.bytes(rest.prefix(half)))" }
            return 0
        case .t1250: return time(UInt64(try c.u16()), 1.25, 4)
        case .t10: return time(UInt64(try c.u16()), 10, 4)
        case .t128: return time(UInt64(try c.u8()), 1280, 2)
        case .s: let v = try c.u16(); add(.u16(v), "\(v) s"); return UInt64(v)
        case .phy: let v = try c.u8(); add(.u8(v), HCIValueNames.phy(v), isName: true); return UInt64(v)
        case .phys:
            let v = try c.u8()
            add(.u8(v), LinkLayerControl.phyBits(v))
            return UInt64(v)
        case .cod:
            let v = try c.u24()
            add(.unsigned(UInt64(v), width: 6), ClassOfDevice.describe(v))
            return UInt64(v)
        case .name:
            let bytes = try c.slice(min(248, c.remaining))
            let text = ReadableText.untilNUL(bytes)
            layer.add(p.field, .text(text), "\"\(text)\"", at: read())
            layer.summary += " - \"\(text)\""
            return 0
        case .eir:
            let bytes = try c.slice(min(240, c.remaining))
            layer.add(p.field, .bytes(bytes), at: read())
            let digest = AdvertisingData.decode(bytes, into: &layer, names: names, described: described)
            if let name = digest.name { layer.summary += " - \"\(name)\"" }
            return 0
        case .lv:
            let length = try c.u8()
            let bytesStart = c.index
            let bytes = try c.slice(Int(length))
            if !bytes.isEmpty { layer.add(p.field, .bytes(bytes), at: layer.range(at: bytesStart, count: bytes.count)) }
            return UInt64(length)
        case .ad:
            let length = try c.u8()
            let bytesStart = c.index
            let bytes = try c.slice(Int(length))
            layer.add(p.field, .bytes(bytes), at: layer.range(at: bytesStart, count: bytes.count))
            let digest = AdvertisingData.decode(bytes, into: &layer, names: names, described: described)
            if let name = digest.name { layer.summary += " - \"\(name)\"" }
            return UInt64(length)
        case .io:
            let v = try c.u8()
            add(.u8(v), SMPDecoder.ioNames[v] ?? "Reserved", isName: true)
            return UInt64(v)
        case .auth:
            let v = try c.u8()
            add(.u8(v), HCIValueNames.authenticationRequirements[safe: Int(v)] ?? "Reserved", isName: true)
            return UInt64(v)
        case .role:
            let v = try c.u8()
            add(.u8(v), v == 0 ? "Central" : v == 1 ? "Peripheral" : "Reserved", isName: true)
            return UInt64(v)
        }
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { index >= 0 && index < count ? self[index] : nil }
}

/// Names of enumerated parameter values, by parameter name (Core Vol 4, Part E, 7).
enum HCIValueNames {
    static let tables: [String: [UInt64: String]] = [
        "Scan_Enable": [0: "No Scans", 1: "Inquiry Scan", 2: "Page Scan", 3: "Inquiry and Page Scan"],
        "LE_Scan_Type": [0: "Passive", 1: "Active"],
        "Advertising_Type": [0: "ADV_IND", 1: "ADV_DIRECT_IND (high duty)", 2: "ADV_SCAN_IND", 3: "ADV_NONCONN_IND", 4: "ADV_DIRECT_IND (low duty)"],
        "Link_Type": [0: "SCO", 1: "ACL", 2: "eSCO"],
        "Key_Type": [0: "Combination", 3: "Debug Combination", 4: "Unauthenticated P-192", 5: "Authenticated P-192",
                     6: "Changed Combination", 7: "Unauthenticated P-256", 8: "Authenticated P-256"],
        "Current_Mode": [0: "Active", 1: "Hold", 2: "Sniff"],
        "Filter_Duplicates": [0: "Disabled", 1: "Enabled", 2: "Enabled, reset each scan period"],
        "Notification_Type": [0: "Passkey entry started", 1: "Passkey digit entered", 2: "Passkey digit erased",
                              3: "Passkey cleared", 4: "Passkey entry completed"],
        "OOB_Data_Present": [0: "Not present", 1: "P-192 present", 2: "P-256 present", 3: "P-192 and P-256 present"],
        "Inquiry_Mode": [0: "Standard", 1: "With RSSI", 2: "With RSSI or Extended"],
        "Operation": [0: "Intermediate fragment", 1: "First fragment", 2: "Last fragment", 3: "Complete data", 4: "Unchanged data"],
        "Channel_Selection_Algorithm": [0: "Algorithm #1", 1: "Algorithm #2"],
        "Data_Path_Direction": [0: "Input (Host to Controller)", 1: "Output (Controller to Host)"],
        "Privacy_Mode": [0: "Network Privacy", 1: "Device Privacy"],
        "Authentication_Enable": [0: "Disabled", 1: "Enabled"],
        "Page_Scan_Type": [0: "Standard", 1: "Interlaced"], "Inquiry_Scan_Type": [0: "Standard", 1: "Interlaced"],
        "Read_All": [0: "Specified BD_ADDR", 1: "All"], "Delete_All": [0: "Specified BD_ADDR", 1: "All"],
        "Type": [0: "Current", 1: "Maximum"],
        "Which_Clock": [0: "Local Clock", 1: "Piconet Clock"],
    ]

    static let coreVersions = ["1.0b", "1.1", "1.2", "2.0+EDR", "2.1+EDR", "3.0+HS", "4.0", "4.1", "4.2", "5.0", "5.1",
                               "5.2", "5.3", "5.4", "6.0", "6.1"]

    /// A version code (HCI, LMP, the link layer's LL_VERSION_IND) as people name it: "Bluetooth 5.3".
    static func coreVersion(_ value: UInt64) -> String? {
        value < UInt64(coreVersions.count) ? "Bluetooth \(coreVersions[Int(value)])" : nil
    }

    /// BR/EDR Authentication_Requirements (Core Vol 4, Part E, 7.1.29).
    static let authenticationRequirements = [
        "MITM Protection Not Required - No Bonding", "MITM Protection Required - No Bonding",
        "MITM Protection Not Required - Dedicated Bonding", "MITM Protection Required - Dedicated Bonding",
        "MITM Protection Not Required - General Bonding", "MITM Protection Required - General Bonding",
    ]

    /// PHY values (Core Vol 4, Part E, 7.8.47 and 7.7.65.12): 0 means none where a PHY is optional.
    static func phy(_ value: UInt8) -> String {
        ["No PHY", "LE 1M", "LE 2M", "LE Coded", "LE Coded S=2"][safe: Int(value)] ?? "Reserved"
    }

    /// Where a parameter's value names come from.
    enum Source {
        case none, company, coreVersion
        case table([UInt64: String])

        func name(_ value: UInt64) -> String? {
            switch self {
            case .none: return nil
            case .company: return AssignedNumbers.company(UInt16(truncatingIfNeeded: value))
            case .coreVersion: return HCIValueNames.coreVersion(value)
            case .table(let names): return names[value]
            }
        }

        var isTable: Bool { if case .table = self { true } else { false } }
    }

    static func source(_ parameter: String) -> Source {
        switch parameter {
        case "Company_Identifier": return .company
        case "HCI_Version", "LMP_Version", "Version": return .coreVersion
        default: return tables[parameter].map { .table($0) } ?? .none
        }
    }
}
