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
        var layer = packet.makeLayer(layerKind(kind), over: c,
                          showsDirection: kind == .lmp || kind == .vendorDiagnostic)
        defer { packet.append(taking: &layer) }
        switch kind {
        case _ where kind.isText:
            let text = readableText(c.rest())
            layer.add(SystemFields.text, .text(text))
            layer.summary.set("\(text)")
            if kind == .error { layer.addIssue(.warning, "Error record: \(text)") }
        case .syslog:
            layer.add(SystemFields.syslogPID, .u32(try c.u32()))
            layer.add(SystemFields.syslogLevel, .u8(try c.u8()))
            let process = c.cString(), sender = c.cString(), subsystem = c.cString(), category = c.cString()
            let message = readableText(c.rest())
            layer.add(SystemFields.syslogProcess, .text(process))
            layer.add(SystemFields.syslogSender, .text(sender))
            layer.add(SystemFields.syslogSubsystem, .text(subsystem))
            layer.add(SystemFields.syslogCategory, .text(category))
            layer.add(SystemFields.syslogMessage, .text(message))
            let origin = [process, subsystem, category].filter { !$0.isEmpty }.joined(separator: " ")
            layer.summary.set("\(origin.isEmpty ? message : "\(origin): \(message)")")
        case .userLogging:
            let priority = try c.u8()
            let identLength = Int(try c.u8())
            var ident = try c.cursor(identLength)
            let name = ident.cString()
            let message = readableText(c.rest())
            layer.add(SystemFields.logPriority, .u8(priority))
            layer.add(SystemFields.logIdent, .text(name))
            layer.add(SystemFields.syslogMessage, .text(message))
            layer.summary.set("\(name.isEmpty ? message : "\(name): \(message)")")
        case .newIndex:
            let type = try c.u8(), bus = try c.u8()
            let address = try c.address()
            var nameCursor = try c.cursor(min(8, c.remaining))
            let name = nameCursor.cString()
            layer.add(SystemFields.indexType, .u8(type), controllerTypeName(type))
            layer.add(SystemFields.indexBus, .u8(bus), busName(bus))
            layer.add(SystemFields.indexAddress, .address(address))
            layer.add(SystemFields.indexName, .text(name))
            layer.summary.set("\(name) \(controllerTypeName(type)) \(busName(bus)) \(address)")
            session.controllerAddresses[packet.frame.controller] = address
            var info = ControllerInfo(index: packet.frame.controller)
            (info.name, info.type, info.bus, info.address) = (name, type, bus, address)
            session.controllers[packet.frame.controller] = info
        case .indexInfo:
            let address = try c.address()
            let manufacturer = try c.u16()
            layer.add(SystemFields.indexAddress, .address(address))
            let company = AssignedNumbers.company(manufacturer) ?? "Unknown"
            layer.add(SystemFields.indexManufacturer, .u16(manufacturer), company)
            layer.summary.set("\(address) - Manufacturer: \(company) (\(manufacturer))")
            let index = packet.frame.controller
            session.controllers[index, default: ControllerInfo(index: index)].address = address
            session.controllers[index]?.manufacturer = manufacturer
        case .controlOpen:
            // The kernel announces each raw, user-channel and management socket: which process
            // opened it and whether it is privileged (net/bluetooth/hci_sock.c).
            layer.add(SystemFields.controlCookie, .u32(try c.u32()))
            let format = try c.u16()
            let version = try c.u8(), revision = try c.u16()
            let flags = try c.u32()
            let nameLength = Int(try c.u8())
            var nameCursor = try c.cursor(min(nameLength, c.remaining))
            let process = nameCursor.cString()
            let channel = format == 0 ? "RAW" : format == 1 ? "USER" : format == 2 ? "MGMT" : "Format \(format)"
            layer.add(SystemFields.controlFormat, .u16(format), channel)
            layer.add(SystemFields.controlVersion, .text("\(version).\(revision)"))
            layer.add(SystemFields.controlFlags, .u32(flags), flags & 1 != 0 ? "privileged" : "unprivileged")
            layer.add(SystemFields.controlName, .text(process))
            layer.summary.set("\(channel) Open: \(process)\(flags & 1 != 0 ? " (privileged)" : "") version \(version).\(revision)")
        case .controlClose:
            let cookie = try c.u32()
            layer.add(SystemFields.controlCookie, .u32(cookie))
            layer.summary.set("Socket \(Hex.format(cookie, width: 8))")
        case .controlCommand, .controlEvent:
            let cookie = try c.u32()
            let code = try c.u16()
            layer.add(SystemFields.controlCookie, .u32(cookie))
            let isCommand = kind == .controlCommand
            layer.add(isCommand ? SystemFields.controlOpcode : SystemFields.controlEvent, .u16(code))
            let rest = c.rest()
            layer.add(DataFields.payload, .bytes(rest))
            layer.summary.set("\(isCommand ? "Command" : "Event") \(hex: code) - \(rest.count) bytes - Socket \(Hex.format(cookie, width: 8))")
        case .deleteIndex, .openIndex, .closeIndex:
            let index = packet.frame.controller
            layer.summary.set("hci\(index)")
            switch kind {
            case .openIndex: session.controllers[index, default: ControllerInfo(index: index)].isUp = true
            case .closeIndex: session.controllers[index]?.isUp = false
            default: session.controllers[index] = nil
            }
        default:
            let rest = c.rest()
            layer.add(DataFields.payload, .bytes(rest))
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
