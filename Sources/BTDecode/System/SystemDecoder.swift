import BTCapture

/// Records that are not HCI packets: notes and logs interleaved by PacketLogger and btmon,
/// and the Linux monitor's index and control frames.
public enum SystemDecoder {
    /// Notes, logs and the monitor's index and control frames.
    static let descriptor = ProtocolDescriptor(name: "System", fields: SystemFields.all)

    /// The layer of a record; for the HCI packets and air captures, the layer of their
    /// protocol, which a packet too short for its decoder is shown as ("Malformed").
    static func layerKind(_ kind: FrameKind) -> LayerKind {
        switch kind {
        case .command: return .hciCommand
        case .event: return .hciEvent
        case .aclData: return .acl
        case .scoData: return .sco
        case .isoData: return .iso
        case .air(.bredrBB): return .baseband
        case .air: return .linkLayer
        case .unrecognized: return unknownRecord
        default: return recordKinds[kind] ?? unknownRecord
        }
    }

    /// A kind per record, made once (kinds are static: compared by identity, never freed).
    static let recordKinds: [FrameKind: LayerKind] = {
        let records: [FrameKind] = [.vendorDiagnostic, .lmp, .note, .userLogging, .syslog, .kernel, .kernelDebug, .error, .power, .config,
                                    .newController, .newIndex, .deleteIndex, .openIndex, .closeIndex, .indexInfo, .controlOpen,
                                    .controlClose, .controlCommand, .controlEvent, .linkControl]
        return Dictionary(uniqueKeysWithValues: records.map { ($0, LayerKind(named: recordName($0))) })
    }()
    static let unknownRecord = LayerKind(named: recordName(.unrecognized(0)))

    /// What PacketLogger and btmon call a record that is not an HCI packet.
    static func recordName(_ kind: FrameKind) -> String {
        switch kind {
        case .command, .event, .aclData, .scoData, .isoData, .air: return layerKind(kind).name
        case .vendorDiagnostic: return "Diagnostic"
        case .lmp: return "LMP"
        case .note: return "Note"
        case .userLogging: return "User Log"
        case .syslog: return "Syslog"
        case .kernel: return "Kernel"
        case .kernelDebug: return "Kernel Debug"
        case .error: return "Error"
        case .power: return "Power"
        case .config: return "Config"
        case .newController: return "New Controller"
        case .newIndex: return "New Index"
        case .deleteIndex: return "Delete Index"
        case .openIndex: return "Open Index"
        case .closeIndex: return "Close Index"
        case .indexInfo: return "Index Info"
        case .controlOpen: return "MGMT Open"
        case .controlClose: return "MGMT Close"
        case .controlCommand: return "MGMT Command"
        case .controlEvent: return "MGMT Event"
        case .linkControl: return "Link Control"
        case .unrecognized: return "Unknown"
        }
    }

    static func decode(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session) throws {
        let kind = packet.frame.kind
        // LMP says which way it went, as ACL does ("LMP Receive"); a vendor's diagnostic record
        // is named alone, as btmon marks it with no direction ("Diagnostic Receive" would not
        // fit the Type column).
        var layer = packet.makeLayer(layerKind(kind), over: c, showsDirection: kind == .lmp)
        defer { packet.append(taking: &layer) }
        /// Reads with `read` and adds the value as `definition`, with the bytes it was read from.
        @discardableResult
        func field<T>(_ definition: FieldDefinition, _ read: (inout ByteCursor) throws -> T, _ value: (T) -> FieldValue,
                      _ display: (T) -> String? = { _ in nil }) throws -> T {
            let start = c.index
            let read = try read(&c)
            layer.add(definition, value(read), display(read), at: layer.range(at: start, count: c.index - start))
            return read
        }
        func text(_ definition: FieldDefinition, _ read: (inout ByteCursor) -> String) -> String {
            (try? field(definition, { read(&$0) }, { .text($0) })) ?? ""
        }
        switch kind {
        case _ where kind.isText:
            let text = text(SystemFields.text) { readableText($0.rest()) }
            layer.summary.set("\(text)")
            if kind == .error { layer.addIssue(.warning, "Error record: \(text)") }
        case .syslog:
            try layer.read(SystemFields.syslogPID, &c, as: UInt32.self)
            try layer.read(SystemFields.syslogLevel, &c, as: UInt8.self)
            let process = text(SystemFields.syslogProcess) { $0.cString() }
            _ = text(SystemFields.syslogSender) { $0.cString() }
            let subsystem = text(SystemFields.syslogSubsystem) { $0.cString() }
            let category = text(SystemFields.syslogCategory) { $0.cString() }
            let message = text(SystemFields.syslogMessage) { readableText($0.rest()) }
            let origin = [process, subsystem, category].filter { !$0.isEmpty }.joined(separator: " ")
            layer.summary.set("\(origin.isEmpty ? message : "\(origin): \(message)")")
        case .userLogging:
            try layer.read(SystemFields.logPriority, &c, as: UInt8.self)
            let identLength = Int(try c.u8())
            let name = try field(SystemFields.logIdent, { var ident = try $0.cursor(identLength); return ident.cString() }, { .text($0) })
            let message = text(SystemFields.syslogMessage) { readableText($0.rest()) }
            layer.summary.set("\(name.isEmpty ? message : "\(name): \(message)")")
        case .newIndex:
            let type = try layer.read(SystemFields.indexType, &c, as: UInt8.self, display: { controllerTypeName($0) })
            let bus = try layer.read(SystemFields.indexBus, &c, as: UInt8.self, display: { busName($0) })
            let address = try layer.read(SystemFields.indexAddress, &c, as: BDAddr.self)
            let name = try field(SystemFields.indexName, { var name = try $0.cursor(min(8, $0.remaining)); return name.cString() }, { .text($0) })
            layer.summary.set("\(name) \(controllerTypeName(type)) \(busName(bus)) \(address)")
            session.controllerAddresses[packet.frame.controller] = address
            var info = ControllerInfo(index: packet.frame.controller)
            (info.name, info.type, info.bus, info.address) = (name, type, bus, address)
            session.controllers[packet.frame.controller] = info
        case .indexInfo:
            let address = try layer.read(SystemFields.indexAddress, &c, as: BDAddr.self)
            let manufacturer = try layer.read(SystemFields.indexManufacturer, &c, as: UInt16.self, display: { AssignedNumbers.company($0) ?? "Unknown" })
            let company = AssignedNumbers.company(manufacturer) ?? "Unknown"
            layer.summary.set("\(address) - Manufacturer: \(company) (\(manufacturer))")
            let index = packet.frame.controller
            session.controllers[index, default: ControllerInfo(index: index)].address = address
            session.controllers[index]?.manufacturer = manufacturer
        case .controlOpen:
            // The kernel announces each raw, user-channel and management socket: which process
            // opened it and whether it is privileged (net/bluetooth/hci_sock.c).
            try layer.read(SystemFields.controlCookie, &c, as: UInt32.self)
            func channelName(_ format: UInt16) -> String { format == 0 ? "RAW" : format == 1 ? "USER" : format == 2 ? "MGMT" : "Format \(format)" }
            let format = try layer.read(SystemFields.controlFormat, &c, as: UInt16.self, display: channelName)
            let (version, revision) = try field(SystemFields.controlVersion, { (try $0.u8(), try $0.u16()) }, { .text("\($0.0).\($0.1)") })
            let flags = try layer.read(SystemFields.controlFlags, &c, as: UInt32.self, display: { $0 & 1 != 0 ? "privileged" : "unprivileged" })
            let nameLength = Int(try c.u8())
            let process = try field(SystemFields.controlName, { var name = try $0.cursor(min(nameLength, $0.remaining)); return name.cString() }, { .text($0) })
            layer.summary.set("\(channelName(format)) Open: \(process)\(flags & 1 != 0 ? " (privileged)" : "") version \(version).\(revision)")
        case .controlClose:
            let cookie = try layer.read(SystemFields.controlCookie, &c, as: UInt32.self)
            layer.summary.set("Socket \(Hex.format(cookie, width: 8))")
        case .controlCommand, .controlEvent:
            let cookie = try layer.read(SystemFields.controlCookie, &c, as: UInt32.self)
            let isCommand = kind == .controlCommand
            let code = try layer.read(isCommand ? SystemFields.controlOpcode : SystemFields.controlEvent, &c, as: UInt16.self)
            let rest = try layer.read(DataFields.payload, &c, bytes: c.remaining)
            layer.summary.set("\(isCommand ? "Command" : "Event") \(hex: code) - \(rest.count) bytes - Socket \(Hex.format(cookie, width: 8))")
        case .deleteIndex, .openIndex, .closeIndex:
            let index = packet.frame.controller
            layer.summary.set("hci\(index)")
            switch kind {
            case .openIndex: session.controllers[index, default: ControllerInfo(index: index)].isUp = true
            case .closeIndex:
                session.controllers[index]?.isUp = false
                session.endController(index, by: "Close Index", into: &layer)
            default:
                session.controllers[index] = nil
                session.endController(index, by: "Delete Index", into: &layer)
            }
        default:
            let rest = try layer.read(DataFields.payload, &c, bytes: c.remaining)
            layer.summary.set("\(rest.isEmpty ? "" : "\(rest.count) bytes")")
        }
    }

    /// The controller type of a New Index frame.
    public static func controllerTypeName(_ type: UInt8) -> String {
        type == 0 ? "Primary" : type == 1 ? "AMP" : "Type \(type)"
    }

    public static func busName(_ bus: UInt8) -> String {
        let names = ["Virtual", "USB", "PC Card", "UART", "RS232", "PCI", "SDIO", "SPI", "I2C", "SMD", "VIRTIO", "IPC"]
        return Int(bus) < names.count ? names[Int(bus)] : "Bus \(bus)"
    }

    /// Text with the NUL padding removed and control characters made visible.
    static func readableText(_ bytes: ArraySlice<UInt8>) -> String {
        ReadableText.untilNUL(bytes).trimmingTrailingSpaces()
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var s = self
        while s.last == " " { s.removeLast() }
        return s
    }
}
