import BTCapture

/// Where an RFCOMM frame's information travels: the L2CAP channel, the DLCI, and the service
/// class its server channel was found to carry.
struct RFCOMMContext {
    var l2cap: L2CAPContext
    var dlci: UInt8
    var serviceClass: UInt16
}

/// Per link: the service each server channel carries when SDP did not say but the traffic did
/// (a hands-free unit's first command is always AT+BRSF).
public struct RFCOMMState: ProtocolState {
    public static var slot: Int { StateSlot.rfcomm.rawValue }

    struct ChannelKey: WordKey {
        var link: Session.LinkKey
        var channel: UInt8

        var hashWord: UInt64 { UInt64(link.packed) << 8 | UInt64(channel) }
    }

    var recognised: [ChannelKey: UInt16] = [:]

    public init() {}

    public mutating func close(_ link: Session.LinkKey) -> [String] {
        recognised = recognised.filter { $0.key.link != link }
        return []
    }

    public mutating func finish() -> [SessionReport] { [] }
}

extension Session {
    public var rfcomm: RFCOMMState { _read { yield self[RFCOMMState.self] } _modify { yield &self[RFCOMMState.self] } }
}

/// RFCOMM (Bluetooth RFCOMM specification, a profile of 3GPP TS 07.10) on PSM 0x0003: the
/// frame (address, control, length, credits, FCS), the multiplexer commands on DLCI 0, and the
/// data of the server channels.
enum RFCOMMDecoder {
    static let descriptor = ProtocolDescriptor(name: "RFCOMM", fields: RFCOMMFields.all, layers: [.rfcomm], state: RFCOMMState.self,
                                               registrations: [.psm(0x0003, "RFCOMM", decode)],
                                               valueNames: [(RFCOMMFields.frameType, frameTypes.map { ValueName(UInt64($0.key), $0.value.short) }),
                                                            (RFCOMMFields.mccType, commandNames.map { ValueName(UInt64($0.key), $0.value.short) })],
                                               conversation: RFCOMMFields.conversation)

    /// The frame type that carries data, credits and the multiplexer's commands.
    static let uih: UInt8 = 0xEF

    /// Frame types by control field without the P/F bit (TS 07.10, 5.2.1.3).
    static let frameTypes: [UInt8: (short: String, name: String)] = [
        0x2F: ("SABM", "Set Asynchronous Balanced Mode"),
        0x63: ("UA", "Unnumbered Acknowledgement"),
        0x0F: ("DM", "Disconnected Mode"),
        0x43: ("DISC", "Disconnect"),
        0xEF: ("UIH", "Unnumbered Information with Header check"),
    ]

    static func decode(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session, context: L2CAPContext) throws {
        var layer = packet.makeLayer(.rfcomm, over: c, showsDirection: true)
        var handOff: (ArraySlice<UInt8>, RFCOMMContext, RFCOMMServiceDecoder)?
        do {
            handOff = try decodeFrame(&c, &layer, session: &session, context: context)
        } catch {
            packet.append(taking: &layer)
            throw error
        }
        packet.append(taking: &layer)
        // The service's protocol stands on the RFCOMM layer.
        if let (information, serviceContext, decodeService) = handOff {
            var payload = ByteCursor(information)
            try decodeService(&payload, &packet, &session, serviceContext)
        }
    }

    /// Whether `bytes` are one whole RFCOMM frame: address with its EA bit, a frame type the
    /// specification defines, a length that accounts for every byte, and an FCS that checks.
    /// What L2CAP asks of a channel no capture showed opening (a capture begun mid-connection).
    static func isFrame(_ bytes: ArraySlice<UInt8>) -> Bool {
        var c = ByteCursor(bytes)
        guard bytes.count >= 4, let address = try? c.u8(), address & 1 == 1, let control = try? c.u8(),
              frameTypes[control & 0xEF] != nil, let first = try? c.u8() else { return false }
        var length = Int(first >> 1)
        if first & 1 == 0 {
            guard let second = try? c.u8() else { return false }
            length |= Int(second) << 7
        }
        let headerEnd = c.index
        let credits = control & 0xEF == uih && address >> 2 != 0 && control & 0x10 != 0 ? 1 : 0
        guard headerEnd - bytes.startIndex + credits + length + 1 == bytes.count else { return false }
        let covered = bytes[bytes.startIndex ..< (control & 0xEF == uih ? bytes.startIndex + 2 : headerEnd)]
        return fcs(covered) == bytes.last
    }

    /// The frame onto the layer; returns the information and its decoder when the server
    /// channel carries a service some protocol registered for.
    static func decodeFrame(_ c: inout ByteCursor, _ layer: inout Layer, session: inout Session,
                            context: L2CAPContext) throws -> (ArraySlice<UInt8>, RFCOMMContext, RFCOMMServiceDecoder)? {
        let frame = c.bytes[c.index...]
        // Offsets in the layer's source of what `c` reads next.

        // The FCS is the frame's last octet (as the kernel and btmon read it), whatever the
        // length field says.
        var fcsCursor = try c.trailer(1)
        let fcsIndex = fcsCursor.index
        let fcs = try fcsCursor.u8()

        let address = try c.u8()
        let dlci = address >> 2
        layer.add(RFCOMMFields.dlci, .u8(dlci), inDecimal: true, at: layer.range(at: frame.startIndex))
        layer.add(RFCOMMFields.channel, .count(Int(dlci >> 1)), at: layer.range(at: frame.startIndex))
        layer.add(RFCOMMFields.direction, .count(Int(dlci & 1)), at: layer.range(at: frame.startIndex))
        layer.add(RFCOMMFields.cr, .count(Int(address >> 1 & 1)), at: layer.range(at: frame.startIndex))
        if address & 1 == 0 { layer.addIssue(.warning, "Address EA bit is 0: a longer address is not used by RFCOMM") }

        let control = try c.u8()
        let type = control & 0xEF, pf = control >> 4 & 1
        let names = frameTypes[type]
        layer.add(RFCOMMFields.frameType, .u8(type), named: names?.name ?? "Unknown", at: layer.range(at: frame.startIndex + 1))
        layer.add(RFCOMMFields.pf, .count(Int(pf)), at: layer.range(at: frame.startIndex + 1))
        if names == nil { layer.addIssue(.error, "Unknown RFCOMM frame type \(Hex.u8(type))") }

        // The length: 7 bits with EA set, else 15 bits over two octets.
        let lengthStart = c.index
        let first = try c.u8()
        let length = first & 1 == 1 ? Int(first >> 1) : Int(first >> 1) | Int(try c.u8()) << 7
        layer.add(RFCOMMFields.length, .count(length), at: layer.range(at: lengthStart, count: c.index - lengthStart))
        let headerEnd = c.index

        var credits: UInt8?
        if type == uih, dlci != 0, pf == 1 {
            // With credit-based flow control, P/F on UIH data says a credits octet comes first.
            credits = try c.u8()
            layer.add(RFCOMMFields.credits, .count(Int(credits!)), at: layer.range(at: headerEnd))
        }
        let information = c.rest()
        var service = dlci == 0 ? nil : serviceClass(dlci >> 1, session: session, link: context.link)
        if type == uih, dlci != 0, service == nil, let recognised = recognise(information) {
            session.rfcomm.recognised[RFCOMMState.ChannelKey(link: context.link, channel: dlci >> 1)] = recognised
            service = recognised
        }
        if information.count != length {
            layer.addIssue(.error, "Length \(length) but \(information.count) byte\(information.count == 1 ? "" : "s") of information before the FCS")
        }

        // The FCS covers address and control, and the length too except on UIH frames.
        let covered = frame[frame.startIndex ..< (type == uih ? frame.startIndex + 2 : headerEnd)]
        let expected = Self.fcs(covered)
        layer.add(RFCOMMFields.fcs, .u8(fcs), fcs == expected ? "\(Hex.u8(fcs)) (correct)" : "\(Hex.u8(fcs)) (incorrect, should be \(Hex.u8(expected)))",
                  at: layer.range(at: fcsIndex))
        layer.add(RFCOMMFields.fcsValid, .bool(fcs == expected))
        if fcs != expected { layer.addIssue(.error, "Bad FCS \(Hex.u8(fcs)), expected \(Hex.u8(expected))") }

        layer.summary.set("\(names?.short ?? "Unknown \(Hex.u8(type))")")
        if dlci == 0 {
            layer.summary += " - Multiplexer"
        } else if let name = service.flatMap({ SDPNames.serviceClasses[$0] }) {
            // SDP (or the traffic) said which profile the server channel carries.
            layer.summary += " - Channel \(dlci >> 1) (DLCI \(dlci), \(name))"
        } else {
            layer.summary += " - Channel \(dlci >> 1) (DLCI \(dlci))"
        }
        if let credits { layer.summary += " - Credits: \(credits)" }
        guard type == 0xEF, !information.isEmpty else {
            if type != 0xEF, !information.isEmpty { layer.addIssue(.warning, "\(names?.short ?? "Frame") with \(information.count) bytes of information") }
            return nil
        }
        if dlci == 0 {
            var commands = ByteCursor(information)
            try decodeMultiplexer(&commands, &layer)
            return nil
        }
        layer.add(RFCOMMFields.payload, .bytes(information), at: layer.range(at: information.startIndex, count: information.count))
        layer.summary += " - \(information.count) byte\(information.count == 1 ? "" : "s")"
        let described = session.options.described
        if !described.isEmpty || !session.options.decodeAs.isEmpty,
           let target = session.options.decodeAs.rfcommChannels[dlci >> 1]
            ?? described.rfcomm(channel: dlci >> 1, serviceName: session.sdp.service(context.link, rfcommChannel: dlci >> 1)?.name) {
            return (information, RFCOMMContext(l2cap: context, dlci: dlci, serviceClass: service ?? 0), { c, packet, session, context in
                target.decode(&c, into: &packet, session: &session, stream: .rfcomm(context.dlci, context.l2cap))
            })
        }
        if let service, let decodeService = DissectorTables.rfcommServices[service] {
            return (information, RFCOMMContext(l2cap: context, dlci: dlci, serviceClass: service), decodeService)
        }
        if let text = printable(information) {
            layer.add(RFCOMMFields.text, .text(text), at: layer.range(at: information.startIndex, count: information.count))
            layer.summary += " - \"\(text)\""
        }
        return nil
    }

    /// The service class a server channel carries: from SDP, else from what the traffic showed.
    static func serviceClass(_ channel: UInt8, session: Session, link: Session.LinkKey) -> UInt16? {
        if let classes = session.sdp.service(link, rfcommChannel: channel)?.classes,
           let known = classes.first(where: { DissectorTables.rfcommServices[$0] != nil }) ?? classes.first {
            return known
        }
        return session.rfcomm.recognised[RFCOMMState.ChannelKey(link: link, channel: channel)]
    }

    /// A service whose first message says what it is: HFP's AT+BRSF (or its +BRSF answer), the
    /// Headset profile's AT+CKPD. Nothing else is guessed.
    static func recognise(_ information: ArraySlice<UInt8>) -> UInt16? {
        let start = information.drop { $0 == 0x0D || $0 == 0x0A }
        if start.starts(with: "AT+BRSF=".utf8) || start.starts(with: "+BRSF:".utf8) { return 0x111E }
        if start.starts(with: "AT+CKPD".utf8) { return 0x1108 }
        return nil
    }

    // MARK: Multiplexer control commands (TS 07.10, 5.4.6.3; RFCOMM 6.5)

    static let commandNames: [UInt8: (short: String, name: String)] = [
        0x20: ("PN", "DLC Parameter Negotiation"), 0x08: ("Test", "Test"), 0x28: ("FCon", "Flow Control On"),
        0x18: ("FCoff", "Flow Control Off"), 0x38: ("MSC", "Modem Status"), 0x04: ("NSC", "Non Supported Command"),
        0x24: ("RPN", "Remote Port Negotiation"), 0x14: ("RLS", "Remote Line Status"), 0x10: ("PSC", "Power Saving Control"),
        0x30: ("CLD", "Multiplexer Close Down"),
    ]
    static let baudRates = ["2400", "4800", "7200", "9600", "19200", "38400", "57600", "115200", "230400"]

    static func decodeMultiplexer(_ c: inout ByteCursor, _ layer: inout Layer) throws {
        while !c.isAtEnd {
            let typeIndex = c.index
            let typeOctet = try c.u8()
            let type = typeOctet >> 2, isCommand = typeOctet & 0x02 != 0
            let names = commandNames[type]
            layer.add(RFCOMMFields.mccType, .u8(type), named: names?.name ?? "Unknown", at: layer.range(at: typeIndex))
            layer.add(RFCOMMFields.mccCR, .count(isCommand ? 1 : 0), isCommand ? "Command" : "Response", at: layer.range(at: typeIndex))
            let lengthIndex = c.index
            var length = 0, shift = 0
            while true {
                let octet = try c.u8()
                length |= Int(octet >> 1) << shift
                shift += 7
                if octet & 1 == 1 || shift > 14 { break }
            }
            layer.add(RFCOMMFields.mccLength, .count(length), at: layer.range(at: lengthIndex, count: c.index - lengthIndex))
            let value = try c.slice(length)
            var v = ByteCursor(value)
            layer.summary += " - \(names?.short ?? "Unknown Command \(Hex.u8(type))") \(isCommand ? "Command" : "Response")"
            if names == nil { layer.addIssue(.warning, "Unknown multiplexer command \(Hex.u8(type))") }

            func dlciOctet() throws {
                let index = v.index
                let dlci = try v.u8() >> 2
                layer.add(RFCOMMFields.mccDLCI, .u8(dlci), inDecimal: true, at: layer.range(at: index))
                layer.add(RFCOMMFields.mccChannel, .count(Int(dlci >> 1)), at: layer.range(at: index))
                layer.summary += " - Channel \(dlci >> 1) (DLCI \(dlci))"
            }
            switch type {
            case 0x20 where length >= 8: // PN
                let dlciIndex = v.index
                let dlci = try v.u8() & 0x3F
                layer.add(RFCOMMFields.mccDLCI, .u8(dlci), inDecimal: true, at: layer.range(at: dlciIndex))
                layer.add(RFCOMMFields.mccChannel, .count(Int(dlci >> 1)), at: layer.range(at: dlciIndex))
                let (flags, flagsAt) = try layer.reading(&v) { try $0.u8() }
                let cl = flags >> 4
                layer.add(RFCOMMFields.pnFrameType, .unsigned(UInt64(flags & 0x0F), width: 1), named: flags & 0x0F == 0 ? "UIH frames" : nil, at: flagsAt)
                let clName = cl == 0xF ? "Credit-based flow control requested" : cl == 0xE ? "Credit-based flow control accepted" : cl == 0 ? "No credit-based flow control" : "Reserved"
                layer.add(RFCOMMFields.pnCL, .unsigned(UInt64(cl), width: 1), named: clName, at: flagsAt)
                let (priorityOctet, priorityAt) = try layer.reading(&v) { try $0.u8() }
                let priority = priorityOctet & 0x3F
                layer.add(RFCOMMFields.pnPriority, .count(Int(priority)), at: priorityAt)
                try layer.readCount(RFCOMMFields.pnTimer, &v, as: UInt8.self)
                let frameSize = try layer.readCount(RFCOMMFields.pnFrameSize, &v, as: UInt16.self)
                try layer.readCount(RFCOMMFields.pnRetransmissions, &v, as: UInt8.self)
                let (creditsOctet, creditsAt) = try layer.reading(&v) { try $0.u8() }
                let credits = creditsOctet & 0x07
                layer.add(RFCOMMFields.pnCredits, .count(Int(credits)), at: creditsAt)
                layer.summary += " - Channel \(dlci >> 1) (DLCI \(dlci)) - Frame Size: \(frameSize)"
                if cl == 0xF || cl == 0xE { layer.summary += " - Credits: \(credits)" }
            case 0x38 where length >= 2: // MSC
                try dlciOctet()
                let (signals, signalsAt) = try layer.reading(&v) { try $0.u8() }
                let bits: [(FieldDefinition, UInt8, String)] = [(RFCOMMFields.mscFC, 0x02, "FC"), (RFCOMMFields.mscRTC, 0x04, "RTC"),
                                                                (RFCOMMFields.mscRTR, 0x08, "RTR"), (RFCOMMFields.mscIC, 0x40, "IC"),
                                                                (RFCOMMFields.mscDV, 0x80, "DV")]
                var set: [String] = []
                for (field, mask, name) in bits {
                    layer.add(field, .bool(signals & mask != 0), at: signalsAt)
                    if signals & mask != 0 { set.append(name) }
                }
                layer.summary += " - Signals: \(set.isEmpty ? "none" : set.joined(separator: " "))"
                if !v.isAtEnd {
                    try layer.read(RFCOMMFields.mscBreak, &v, as: UInt8.self, display: { breakOctet in breakOctet & 0x02 != 0 ? "Break, \(Int(breakOctet >> 4) * 200) ms" : "No break" })
                }
            case 0x24 where length >= 1: // RPN
                try dlciOctet()
                guard length >= 8 else {
                    layer.summary += " - Request"
                    break
                }
                let baud = try layer.read(RFCOMMFields.rpnBaud, &v, as: UInt8.self, named: { baud in baudRates[safe: Int(baud)].map { "\($0) baud" } ?? "Reserved" })
                let (line, lineAt) = try layer.reading(&v) { try $0.u8() }
                let parityNames = ["odd", "even", "mark", "space"]
                let lineText = "\(5 + Int(line & 0x03)) data bits, \(line & 0x04 == 0 ? "1" : "1.5") stop bit\(line & 0x04 == 0 ? "" : "s"), "
                    + (line & 0x08 == 0 ? "no parity" : "\(parityNames[Int(line >> 4 & 0x03)]) parity")
                layer.add(RFCOMMFields.rpnLine, .u8(line), lineText, at: lineAt)
                try layer.read(RFCOMMFields.rpnFlow, &v, as: UInt8.self)
                try layer.read(RFCOMMFields.rpnXON, &v, as: UInt8.self)
                try layer.read(RFCOMMFields.rpnXOFF, &v, as: UInt8.self)
                try layer.read(RFCOMMFields.rpnMask, &v, as: UInt16.self)
                layer.summary += " - \(baudRates[safe: Int(baud)] ?? "reserved") baud, \(lineText)"
            case 0x14 where length >= 2: // RLS
                try dlciOctet()
                let (status, statusAt) = try layer.reading(&v) { try $0.u8() }
                let errors = [(0x02, "overrun"), (0x04, "parity"), (0x08, "framing")].filter { status & UInt8($0.0) != 0 }.map(\.1)
                layer.add(RFCOMMFields.rlsStatus, .u8(status), status & 1 == 0 ? "No error" : "Error: \(errors.joined(separator: ", "))",
                          at: statusAt)
                layer.summary += status & 1 == 0 ? " - No error" : " - Error: \(errors.joined(separator: ", "))"
            case 0x04 where length >= 1: // NSC
                let (octet, octetAt) = try layer.reading(&v) { try $0.u8() }
                let unsupported = octet >> 2
                layer.add(RFCOMMFields.nscType, .u8(unsupported), named: commandNames[unsupported]?.name ?? "Unknown",
                          at: octetAt)
                layer.summary += " - \(commandNames[unsupported]?.short ?? Hex.u8(unsupported)) not supported"
            case 0x08: // Test
                if !value.isEmpty { layer.add(RFCOMMFields.testData, .bytes(value), at: layer.range(at: value.startIndex, count: value.count)) }
                layer.summary += " - \(value.count) byte\(value.count == 1 ? "" : "s")"
            case 0x28, 0x18, 0x10, 0x30:
                break
            case 0x20, 0x38, 0x24, 0x14, 0x04:
                layer.addIssue(.error, "\(names!.short) with \(length) bytes of value, too short")
            default:
                if !value.isEmpty { layer.add(RFCOMMFields.payload, .bytes(value), at: layer.range(at: value.startIndex, count: value.count)) }
            }
        }
    }

    // MARK: FCS and text

    /// TS 07.10's CRC-8 (x^8 + x^2 + x + 1, reflected), table-driven.
    static let crcTable: [UInt8] = (0 ..< 256).map { i in
        var crc = UInt8(i)
        for _ in 0 ..< 8 { crc = crc & 1 == 1 ? crc >> 1 ^ 0xE0 : crc >> 1 }
        return crc
    }

    /// The FCS a sender puts after `bytes`: the ones' complement of the CRC.
    static func fcs(_ bytes: ArraySlice<UInt8>) -> UInt8 {
        var crc: UInt8 = 0xFF
        for byte in bytes { crc = crcTable[Int(crc ^ byte)] }
        return 0xFF &- crc
    }

    /// The data as text when every byte is printable ASCII, CR, LF or tab (AT commands,
    /// serial consoles), with those three escaped; nil otherwise.
    static func printable(_ bytes: ArraySlice<UInt8>) -> String? {
        guard ReadableText.isLineText(bytes) else { return nil }
        var text = ""
        text.reserveCapacity(bytes.count + 8)
        for byte in bytes {
            switch byte {
            case 0x0D: text += "\\r"
            case 0x0A: text += "\\n"
            case 0x09: text += "\\t"
            case UInt8(ascii: "\""): text += "\\\""
            case UInt8(ascii: "\\"): text += "\\\\"
            default: text.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return text
    }
}

/// The layers this decoder makes.
extension LayerKind {
    public static let rfcomm = LayerKind("RFCOMM", protocol: "rfcomm")
}
