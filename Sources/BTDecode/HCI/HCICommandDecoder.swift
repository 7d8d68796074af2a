import BTCapture

enum HCICommandDecoder {
    static func decode(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session) throws {
        var recognised: String?
        let above = try HCIPacketContext.decode(.hciCommand, over: c, into: &packet) { layer, row in
            try decodeCommand(&c, &layer, &row, &recognised, &session)
        }
        guard let above else { return }
        try above.decode(into: &packet, session: &session)
        if let recognised { packet.addIssue(.note, recognisedNote(recognised)) }
    }

    /// The command's layer; `recognised`, the manufacturer a firmware download command shows,
    /// when the capture names none.
    private static func decodeCommand(_ c: inout ByteCursor, _ layer: inout Layer, _ row: inout HCIPacketContext,
                                      _ recognised: inout String?, _ session: inout Session) throws {
        let start = c.offset
        let opcodeIndex = c.index
        let opcode = try c.u16()
        let isVendor = opcode >> 10 == 0x3F
        let isBTstack = BTstack.isDaemonCommand(opcode)
        let command = isVendor || isBTstack ? nil : HCICommands.command(opcode)
        let name = isVendor ? VendorDecoders.commandName(opcode, controller: row.controller, session: session) ?? "Vendor"
                            : isBTstack ? BTstack.commands[opcode & 0x3FF].map { "BTstack Daemon \($0.name)" } ?? "BTstack Daemon"
                            : command?.name
        let ogf = UInt8(opcode >> 10), ocf = opcode & 0x3FF
        layer.add(HCIFields.opcode, .u16(opcode), named: name ?? "Unknown", at: start ..< start + 2)
        layer.add(HCIFields.ogf, .u8(ogf), at: start ..< start + 2)
        layer.add(HCIFields.ocf, .unsigned(UInt64(ocf), width: 3), at: start ..< start + 2)
        let length = try c.u8()
        layer.add(HCIFields.parameterLength, .u8(length), inDecimal: true, at: 2 ..< 3)
        if let name, name != "Vendor" { layer.summary.set("\(name)") } else { layer.summary.set("\(name == nil ? "Unknown" : "Vendor") Command \(hex: opcode)") }
        if name == nil { layer.addIssue(.warning, "Unknown command opcode \(Hex.u16(opcode))") }
        if Int(length) != c.remaining {
            layer.addIssue(.warning, "Parameter length \(length) but \(c.remaining) bytes follow")
        }
        var params = try c.cursor(min(Int(length), c.remaining))
        if isBTstack {
            // BTstack's daemon logs its applications' requests: its layer stands on the HCI one.
            row.above = .btstackCommand(opcode: opcode, whole: ByteCursor(c.bytes[opcodeIndex...]), params)
            return
        }
        if isVendor {
            layer.summary.set("Vendor Command \(hex: opcode)")
            recognised = VendorDecoders.recognise(opcode, controller: row.controller, &session)
            let described = session.options.described
            if !described.isEmpty, let describedName = described.commandName(opcode) {
                // A description of the user's wins over btlog's vendor tables: they know their
                // controller. Named but not laid out, its parameters are bytes (below).
                layer.summary.set("\(describedName)")
                if let target = described.hciCommands[opcode] { row.above = .described(target, params) }
            } else if let vendor = VendorDecoders.vendor(for: opcode, controller: row.controller, session: session) {
                // The vendor's layer stands on the HCI layer, which is complete without the parameters.
                row.above = .vendorCommand(vendor, opcode: opcode, params)
            } else {
                layer.addIssue(.note, "Vendor command: parameters are specific to the controller's manufacturer, which the capture does not name")
            }
            // With a layer above, the note goes on it once decoded (`decode`); else on this one.
            if row.above != nil { return }
            if let recognised { layer.addIssue(.note, recognisedNote(recognised)) }
        }
        if let command { try decodeParameters(command, &params, &layer, &row, &session) }
        layer.addUnreadHCIParameters(&params, header: 3)
    }

    private static func recognisedNote(_ manufacturer: String) -> String {
        "The capture does not name the controller's manufacturer (no Read Local Version Information): taken to be \(manufacturer) from this firmware download command"
    }

    /// A command's parameters: its row's decoder, else its layout.
    static func decodeParameters(_ command: HCICommand, _ c: inout ByteCursor, _ layer: inout Layer,
                                 _ row: inout HCIPacketContext, _ session: inout Session) throws {
        let layout = command.parameters == nil ? nil : HCICommands.parameterLayouts[command.opcode]
        if let decode = command.decode {
            try decode(layout, &c, &layer, &row, &session)
        } else if let layout {
            try HCIParameterReader.read(layout, &c, &layer, &row, session)
        }
    }

    /// A successful Command Complete's return parameters after the status: the command's row's
    /// return decoder, else its return layout.
    static func decodeReturn(_ command: HCICommand, _ c: inout ByteCursor, _ layer: inout Layer,
                             _ row: inout HCIPacketContext, _ session: inout Session) throws {
        let layout = command.returns == nil ? nil : HCICommands.returnLayouts[command.opcode]
        if let decode = command.decodeReturn {
            try decode(layout, &c, &layer, &row, &session)
        } else if let layout {
            try HCIParameterReader.read(layout, &c, &layer, &row, session)
        }
    }

    // The rows' decoders, for what a command or its return tells the Session beside its fields.

    /// Reset: the controller's links are gone.
    static func resetReturned(_ layout: [HCIParam]?, _ c: inout ByteCursor, _ layer: inout Layer,
                              _ row: inout HCIPacketContext, _ session: inout Session) throws {
        session.endController(row.controller, by: "Reset", into: &layer)
    }

    /// Read BD_ADDR: the controller's own address, which names it from then on.
    static func readBDADDRReturned(_ layout: [HCIParam]?, _ c: inout ByteCursor, _ layer: inout Layer,
                                   _ row: inout HCIPacketContext, _ session: inout Session) throws {
        let address = try layer.read(HCIFields.address, &c, as: BDAddr.self)
        layer.summary += " - \(address)"
        session.controllerAddresses[row.controller] = address
    }

    /// Read Local Version Information: the manufacturer, as the layout read it, says which
    /// vendor's commands this controller takes.
    static func readLocalVersionReturned(_ layout: [HCIParam]?, _ c: inout ByteCursor, _ layer: inout Layer,
                                         _ row: inout HCIPacketContext, _ session: inout Session) throws {
        guard let layout else { return }
        let reader = try HCIParameterReader.read(layout, &c, &layer, &row, session)
        if let company = reader.companyIdentifier { session.vendor.manufacturers[row.controller] = company }
    }

    static func addressTypeName(_ type: UInt8) -> String {
        switch type {
        case 0: return "Public"
        case 1: return "Random"
        case 2: return "Public Identity"
        case 3: return "Random Identity"
        default: return "Type \(Hex.u8(type))"
        }
    }
}
