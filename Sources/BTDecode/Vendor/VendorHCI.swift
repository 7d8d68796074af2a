import BTCapture

/// A vendor's HCI commands and events (OGF 0x3F and event 0xFF), as the vendor or a public
/// stack documents them: each command's parameters and Command Complete return parameters as
/// HCIParam layouts, the vendor event's decoder, and the layer and field namespace they make.
/// What no public source documents stays bytes, under the vendor's name: never guessed.
struct VendorHCI {
    let name: String
    let layer: LayerKind
    let namespace: HCIParameterFields.Namespace
    let commands: [UInt16: VendorCommand]
    /// The vendor event (0xFF) after its code and length, onto the vendor's layer; nil when the
    /// vendor documents none (its events stay bytes). It may hand back the decoder of a layer
    /// above (Android's quality report), which runs once the vendor's layer is appended.
    let event: ((inout ByteCursor, inout Layer, inout Packet, inout Session) throws -> UpperLayer?)?

    typealias UpperLayer = (inout ByteCursor, inout Packet, inout Session) throws -> Void
    /// Fields the event decoder adds by hand (not from layouts).
    let eventFields: [FieldDefinition]

    /// Every field the layouts and the event decoder make, once each, for the registry.
    var fields: [FieldDefinition] {
        var all: [FieldDefinition] = []
        for opcode in commands.keys.sorted() { all += commands[opcode]!.fields }
        all += eventFields
        var seen = Set<String>()
        return all.filter { seen.insert($0.name).inserted && !$0.name.hasPrefix("hci.") }
    }

    /// A layout in this vendor's namespace.
    static func layout(_ spec: String, _ namespace: HCIParameterFields.Namespace) -> [HCIParam] {
        HCIParam.parse(spec, in: namespace)
    }
}

/// One vendor command: its name, parameters and return parameters (after the status); or, when
/// its first parameter is a sub-command code, one such description per sub-command.
struct VendorCommand {
    var name: String
    var parameters: [HCIParam] = []
    var returns: [HCIParam] = []
    var subcommands: [UInt8: VendorCommand] = [:]
    /// The field the sub-command code is read into: one per command, since a code means
    /// something else under another command (tshark's bthci_vendor fields do the same).
    var subcommandField: FieldDefinition?
    /// Whether the return parameters repeat the sub-command code after the status (Android's do).
    var returnEchoesSubcommand = false
    /// Whether shorter forms end at a parameter's boundary (later parameters came with later
    /// versions, or belong to one action only): stopping there is no truncation.
    var grows = false
    /// The owner names the command but publishes no layout for its parameters: they are
    /// shown as bytes, and the packet says why.
    var parametersUnpublished = false
    /// Parameters no layout can say (entries sized by their own length byte): read by hand
    /// after the layout, onto the vendor's layer.
    var parametersAfter: ((inout ByteCursor, inout Layer) throws -> Void)?
    /// Return parameters in another form than the layout's (Intel's TLV version): read by hand
    /// when it says so (true), else the layout is read.
    var returnsInOtherForm: ((inout ByteCursor, inout Layer) throws -> Bool)?
    /// Return parameters whose layout depends on one read before (batch scan records by report
    /// format): given the return layout's last integer, the layout of what follows.
    var returnsAfter: ((UInt64) -> [HCIParam]?)?

    var fields: [FieldDefinition] {
        (subcommandField.map { [$0] } ?? []) + (parameters + returns).flatMap(\.flattened).flatMap(\.fields)
            + subcommands.keys.sorted().flatMap { subcommands[$0]!.fields }
    }
}

/// What the capture tells about each controller's vendor: the manufacturer (Read Local Version
/// Information, or the monitor's Index Info), failing that the vendor whose firmware download it
/// sees, and the version of Android's vendor capabilities (which lays out a quality report).
public struct VendorState: ProtocolState {
    public static var slot: Int { StateSlot.vendor.rawValue }

    /// Company identifier by controller, from Read Local Version Information.
    public internal(set) var manufacturers: [UInt16: UInt16] = [:]
    /// The vendor whose firmware-download commands a controller was seen taking, when its
    /// manufacturer is not in the capture.
    var recognised: [UInt16: String] = [:]
    /// Android vendor capabilities' version_supported by controller (0x0098, 0x0100, 0x0104...).
    public internal(set) var androidCapabilityVersion: [UInt16: UInt16] = [:]
    /// Commands sent and not yet answered, by controller and opcode: which sub-command a return
    /// answers (Android's returns echo it; Broadcom's and Intel's do not need it).
    var pendingSubcommand: [UInt32: UInt8] = [:]

    public init() {}
    public mutating func close(_ link: Session.LinkKey) -> [String] { [] }
    public mutating func finish() -> [SessionReport] { [] }
}

extension Session {
    public var vendor: VendorState { _read { yield self[VendorState.self] } _modify { yield &self[VendorState.self] } }
}

enum VendorDecoders {
    static let all: [VendorHCI] = [AndroidHCI.vendor, BroadcomHCI.vendor, IntelHCI.vendor, RealtekHCI.vendor, QualcommHCI.vendor]

    /// Vendors by the company identifiers that make their controllers (Assigned Numbers).
    static let byCompany: [UInt16: VendorHCI] = [
        0x000F: BroadcomHCI.vendor, 0x0131: BroadcomHCI.vendor, 0x0009: BroadcomHCI.vendor, // Broadcom, Cypress, Infineon
        0x0002: IntelHCI.vendor,
        0x005D: RealtekHCI.vendor,
        0x001D: QualcommHCI.vendor, 0x00D7: QualcommHCI.vendor, 0x00B8: QualcommHCI.vendor, // Qualcomm, QTI, QuIC
    ]

    /// Opcodes only one vendor's firmware download uses: a controller taking one is that vendor's
    /// when the capture does not say who made it. Chosen so no other vendor documents the opcode.
    static let recognisingOpcodes: [UInt16: String] = [
        0xFC2E: "Broadcom", 0xFC4C: "Broadcom", 0xFC4E: "Broadcom",
        0xFC05: "Intel", 0xFC09: "Intel", 0xFC0D: "Intel", 0xFC8B: "Intel",
        0xFC20: "Realtek", 0xFC00: "Qualcomm",
    ]

    /// The vendor a controller's vendor opcode belongs to: Android's host-defined commands on
    /// any controller, else the controller's manufacturer, else the vendor its firmware download showed.
    static func vendor(for opcode: UInt16, controller: UInt16, session: Session) -> VendorHCI? {
        if AndroidHCI.vendor.commands[opcode] != nil { return AndroidHCI.vendor }
        return vendor(controller: controller, session: session)
    }

    static func vendor(controller: UInt16, session: Session) -> VendorHCI? {
        let state = session.vendor
        if let company = state.manufacturers[controller] ?? session.controllers[controller]?.manufacturer {
            return byCompany[company]
        }
        if let name = state.recognised[controller] { return all.first { $0.name == name } }
        return nil
    }

    /// How a Command Complete or Status names a vendor opcode: a description's name for it, the
    /// vendor's, or nil.
    static func commandName(_ opcode: UInt16, controller: UInt16, session: Session) -> String? {
        guard opcode >> 10 == 0x3F else { return nil }
        if !session.options.described.isEmpty, let described = session.options.described.commandName(opcode) { return described }
        guard let vendor = vendor(for: opcode, controller: controller, session: session),
              let command = vendor.commands[opcode] else { return nil }
        return command.name
    }

    /// Read Local Version Information's Company_Identifier, as its return layout names it.
    static let companyIdentifier = HCIParameterFields.field("Company_Identifier", .u16)

    // MARK: Commands

    /// A controller whose manufacturer the capture does not name is recognised by the firmware
    /// download it takes: the vendor newly recognised, if this opcode recognised one.
    @discardableResult
    static func recognise(_ opcode: UInt16, controller: UInt16, _ session: inout Session) -> String? {
        guard let name = recognisingOpcodes[opcode], session.vendor.recognised[controller] == nil,
              session.vendor.manufacturers[controller] == nil, session.controllers[controller]?.manufacturer == nil else { return nil }
        session.vendor.recognised[controller] = name
        return name
    }

    /// The vendor layer of a vendor command, above the HCI Command layer already appended.
    static func decodeCommand(_ vendor: VendorHCI, _ opcode: UInt16, _ c: inout ByteCursor, _ packet: inout Packet, _ session: inout Session) throws {
        let controller = packet.frame.controller
        var layer = packet.makeLayer(vendor.layer, over: c)
        layer.keepEveryField() // fields read back: the sub-command, the capability version
        defer { packet.append(taking: &layer) }
        guard let command = vendor.commands[opcode] else {
            layer.summary.set("\(vendor.name) Command \(hex: opcode)")
            layer.addIssue(.note, "\(vendor.name) does not document vendor command \(Hex.u16(opcode)) publicly: its parameters are shown as bytes")
            addRest(&c, vendor, &layer)
            return
        }
        layer.summary.set("\(command.name)")
        var reader = HCIParameterReader(session: session)
        if let field = command.subcommandField {
            let code = try layer.reading(&c) { try $0.u8() }
            let sub = command.subcommands[code.value]
            layer.add(field, .u8(code.value), named: sub?.name ?? "Unknown", at: code.range)
            session.vendor.pendingSubcommand[UInt32(controller) << 16 | UInt32(opcode)] = code.value
            guard let sub else {
                layer.summary += " - Sub-command \(hex: code.value)"
                layer.addIssue(.warning, "Unknown \(command.name) sub-command \(Hex.u8(code.value))")
                addRest(&c, vendor, &layer)
                return
            }
            layer.summary += " - \(sub.name)"
            try read(sub.parameters, &c, &reader, &layer, vendor, sub.name, grows: sub.grows)
        } else {
            try read(command.parameters, &c, &reader, &layer, vendor, command.name, grows: command.grows)
            do {
                try command.parametersAfter?(&c, &layer)
            } catch DecodeError.truncated(let needed, let available, let at) {
                layer.addIssue(.warning, "\(vendor.name) \(command.name) stops short of its parameters: \(needed) bytes needed at offset \(at), \(available) left")
            }
        }
        reader.apply(to: &packet, session: session)
        if command.parametersUnpublished, !c.isAtEnd {
            layer.addIssue(.note, "\(vendor.name) publishes no layout for \(command.name)'s parameters: shown as bytes")
        }
        addRest(&c, vendor, &layer)
    }

    /// The vendor layer of a Command Complete for a vendor opcode, from its status on.
    static func decodeReturn(_ vendor: VendorHCI, _ opcode: UInt16, _ c: inout ByteCursor, _ packet: inout Packet, _ session: inout Session) throws {
        let controller = packet.frame.controller
        var layer = packet.makeLayer(vendor.layer, over: c)
        layer.keepEveryField() // fields read back: the sub-command, the capability version
        defer { packet.append(taking: &layer) }
        guard let command = vendor.commands[opcode] else {
            layer.summary.set("Command Complete: \(vendor.name) Command \(hex: opcode)")
            addRest(&c, vendor, &layer)
            return
        }
        layer.summary.set("Command Complete: \(command.name)")
        let status = try layer.reading(&c) { try $0.u8() }
        HCIEventDecoder.addStatus(status, &layer)
        var reader = HCIParameterReader(session: session)
        var returns = command.returns, name = command.name, grows = command.grows, after = command.returnsAfter
        if let field = command.subcommandField {
            let key = UInt32(controller) << 16 | UInt32(opcode)
            var code = session.vendor.pendingSubcommand.removeValue(forKey: key)
            if command.returnEchoesSubcommand, !c.isAtEnd {
                let echoed = try layer.reading(&c) { try $0.u8() }
                layer.add(field, .u8(echoed.value), named: command.subcommands[echoed.value]?.name ?? "Unknown", at: echoed.range)
                code = echoed.value
            }
            if let code, let sub = command.subcommands[code] {
                layer.summary += " - \(sub.name)"
                returns = sub.returns
                name = sub.name
                grows = sub.grows
                after = sub.returnsAfter
            } else {
                returns = []
            }
        }
        if status.value == 0, let other = command.returnsInOtherForm {
            do {
                if try other(&c, &layer) { returns = [] }
            } catch DecodeError.truncated(let needed, let available, let at) {
                layer.addIssue(.warning, "\(vendor.name) \(name) stops short of its return parameters: \(needed) bytes needed at offset \(at), \(available) left")
                returns = []
            }
        }
        if status.value == 0 {
            try read(returns, &c, &reader, &layer, vendor, name, grows: grows)
            if let after, case .unsigned(let chosen, _)? = layer.lastFieldValue, let more = after(chosen) {
                try read(more, &c, &reader, &layer, vendor, name, grows: false)
            }
        }
        if opcode == AndroidHCI.vendorCapabilities, status.value == 0,
           case .unsigned(let version, _)? = layer.fields.first(where: { $0.definition.name == "android.version_supported" }).map(layer.value(of:)) {
            session.vendor.androidCapabilityVersion[controller] = UInt16(truncatingIfNeeded: version)
        }
        reader.apply(to: &packet, session: session)
        addRest(&c, vendor, &layer)
    }

    /// Reads a layout; a packet too short for it keeps the fields read and says what it lacks.
    static func read(_ params: [HCIParam], _ c: inout ByteCursor, _ reader: inout HCIParameterReader, _ layer: inout Layer,
                     _ vendor: VendorHCI, _ name: String, grows: Bool) throws {
        do {
            if grows { try reader.read(params, &c, &layer) } else { try reader.read(params, &c, into: &layer) }
        } catch DecodeError.truncated(let needed, let available, let at) {
            if grows && available == 0 { return }
            layer.addIssue(.warning, "\(vendor.name) \(name) stops short of its parameters: \(needed) bytes needed at offset \(at), \(available) left")
        }
    }

    /// What a layout leaves unread, as the vendor's bytes.
    static func addRest(_ c: inout ByteCursor, _ vendor: VendorHCI, _ layer: inout Layer) {
        addRest(&c, vendorData(vendor), &layer)
    }

    static func addRest(_ c: inout ByteCursor, _ field: FieldDefinition, _ layer: inout Layer) {
        guard !c.isAtEnd else { return }
        let start = c.index
        let rest = c.rest()
        layer.add(field, .bytes(rest), at: layer.range(at: start, count: rest.count))
    }

    static func vendorData(_ vendor: VendorHCI) -> FieldDefinition {
        VendorFields.data[vendor.namespace.prefix] ?? HCIFields.parameters
    }

    // MARK: Events

    /// The vendor layer of a vendor event (0xFF), after the event code and length.
    static func decodeEvent(_ c: inout ByteCursor, _ packet: inout Packet, _ session: inout Session) throws {
        let controller = packet.frame.controller
        let owner = vendor(controller: controller, session: session)
        // Android's sub-events come from any controller vendor that implements Android's
        // extensions, Intel's events from Intel's: the manufacturer decides where both could.
        let vendor: VendorHCI
        if let first = try? c.peekU8(), AndroidHCI.eventNames[first] != nil, owner?.name != "Intel" {
            vendor = AndroidHCI.vendor
        } else if let owner {
            vendor = owner
        } else {
            return
        }
        var layer = packet.makeLayer(vendor.layer, over: c)
        layer.keepEveryField() // fields read back: the sub-command, the capability version
        guard let decode = vendor.event else {
            layer.summary.set("\(vendor.name) Vendor Event")
            layer.addIssue(.note, "\(vendor.name) does not document its vendor events publicly: shown as bytes")
            addRest(&c, vendor, &layer)
            packet.append(taking: &layer)
            return
        }
        let upper: VendorHCI.UpperLayer?
        do {
            upper = try decode(&c, &layer, &packet, &session)
        } catch {
            packet.append(taking: &layer)
            throw error
        }
        if upper == nil { addRest(&c, vendor, &layer) }
        packet.append(taking: &layer)
        try upper?(&c, &packet, &session)
    }
}

/// The fields every vendor has: what its layouts leave as bytes.
enum VendorFields {
    static let data: [String: FieldDefinition] = Dictionary(uniqueKeysWithValues: ["android", "bqr", "broadcom", "intel", "realtek", "qualcomm"].map {
        ($0, FieldDefinition("\($0).data", "Data", .bytes, "Vendor parameters no public source documents, as bytes"))
    })
}

extension VendorHCI {
    /// The names of every enumerated parameter's values, for filters (`android.action == "Add"`),
    /// with the sub-command and event codes' names.
    func valueNames(extra: [(FieldDefinition, [ValueName])] = []) -> [(FieldDefinition, [ValueName])] {
        var result = extra
        var seen = Set(extra.map(\.0.name))
        func walk(_ params: [HCIParam]) {
            for param in params.flatMap(\.flattened) {
                guard case .table(let table) = param.valueNames, !param.field.name.hasPrefix("hci."),
                      seen.insert(param.field.name).inserted else { continue }
                result.append((param.field, FieldValueNames.from(table)))
            }
        }
        func walk(_ command: VendorCommand) {
            walk(command.parameters + command.returns)
            for code in command.subcommands.keys.sorted() { walk(command.subcommands[code]!) }
        }
        for opcode in commands.keys.sorted() { walk(commands[opcode]!) }
        for opcode in commands.keys.sorted() {
            guard let command = commands[opcode], let field = command.subcommandField, seen.insert(field.name).inserted else { continue }
            result.append((field, FieldValueNames.from(command.subcommands.mapValues(\.name))))
        }
        return result
    }

    /// The vendor as a protocol of the catalog.
    func descriptor(state: (any ProtocolState.Type)? = nil, extraFields: [FieldDefinition] = [],
                    extraNames: [(FieldDefinition, [ValueName])] = []) -> ProtocolDescriptor {
        let vendor = self
        return ProtocolDescriptor(name: "\(name) HCI", fields: vendor.fields + extraFields + [VendorDecoders.vendorData(vendor)], layers: [layer],
                                  state: state, valueNames: vendor.valueNames(extra: extraNames))
    }
}

extension AndroidHCI {
    /// The vendor choice of every controller is kept with Android's protocol, the one every
    /// vendor's controller may speak.
    static let descriptor = vendor.descriptor(state: VendorState.self, extraNames: [(subevent, FieldValueNames.from(eventNames))])
}

extension BluetoothQualityReport {
    static let descriptor = ProtocolDescriptor(
        name: "BQR", fields: fields + [VendorFields.data["bqr"]!], layers: [.bqr],
        valueNames: [(reportID, FieldValueNames.from(reportNames)), (failReason, FieldValueNames.from(HCIErrorNames.errors))]
            + namespace.valueNames.keys.sorted().compactMap { name in
                fields.first { $0.name == "bqr." + name.lowercased() }.map { ($0, FieldValueNames.from(namespace.valueNames[name]!)) }
            })
}

extension BroadcomHCI { static let descriptor = vendor.descriptor() }
extension IntelHCI {
    static let descriptor = vendor.descriptor(extraNames: [(eventCode, FieldValueNames.from(events.mapValues(\.name))), (tlvType, FieldValueNames.from(tlvNames)),
                                                           (imageType, [ValueName(1, "Bootloader"), ValueName(2, "Intermediate loader"), ValueName(3, "Operational firmware")])])
}
extension RealtekHCI { static let descriptor = vendor.descriptor() }
extension QualcommHCI { static let descriptor = vendor.descriptor() }
