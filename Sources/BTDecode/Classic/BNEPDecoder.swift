import BTCapture

/// BNEP's fields (BNEP 1.0) and those of the packet it carries, named as tshark's btbnep.*
/// where both have one.
public enum BNEPFields {
    static let f = FieldDefinition.maker("bnep")
    public static let type = f("type", "BNEP Type", .uint8,
                               "0x00 General Ethernet, 0x01 Control, 0x02 Compressed Ethernet, 0x03 Source Only, 0x04 Destination Only")
    public static let extensionFlag = f("extension_flag", "Extension Flag", .bool, "Extension headers follow")
    public static let controlType = f("control_type", "Control Type", .uint8,
                                      "0x00 Command Not Understood, 0x01 Setup Connection Request ... 0x06 Filter Multicast Address Response")
    public static let uuidSize = f("uuid_size", "UUID Size", .uint8, "Setup Connection: 2, 4 or 16 bytes per UUID")
    public static let destinationService = f("destination_service", "Destination Service UUID", .uuid, "0x1115 PANU, 0x1116 NAP, 0x1117 GN")
    public static let sourceService = f("source_service", "Source Service UUID", .uuid, "0x1115 PANU, 0x1116 NAP, 0x1117 GN")
    public static let response = f("response", "Response Message", .uint16, "0x0000 success, otherwise the reason")
    public static let listLength = f("list_length", "List Length", .uint16, "Bytes of filter ranges that follow")
    public static let networkTypeStart = f("network_type_start", "Network Type Range Start", .uint16, "First EtherType a filter passes")
    public static let networkTypeEnd = f("network_type_end", "Network Type Range End", .uint16, "Last EtherType a filter passes")
    public static let multicastStart = f("multicast_start", "Multicast Address Start", .address, "First multicast address a filter passes")
    public static let multicastEnd = f("multicast_end", "Multicast Address End", .address, "Last multicast address a filter passes")
    public static let unknownControlType = f("unknown_control_type", "Unknown Control Type", .uint8, "Command Not Understood: the control type refused")
    public static let extensionType = f("extension_type", "Extension Type", .uint8, "0x00 Extension Control")
    public static let extensionLength = f("extension_length", "Extension Length", .uint8, "Bytes of the extension header's payload")
    public static let destination = f("dst", "Destination", .address, "Ethernet destination address")
    public static let source = f("src", "Source", .address, "Ethernet source address")
    public static let ethertype = f("ethertype", "EtherType", .uint16, "Protocol carried: 0x0800 IPv4, 0x0806 ARP, 0x86DD IPv6, 0x8100 VLAN")
    public static let vlan = f("vlan", "VLAN ID", .uint16, "802.1Q tag's VLAN identifier")
    public static let ipSource = f("ip.src", "IP Source", .string, "IPv4 or IPv6 source address")
    public static let ipDestination = f("ip.dst", "IP Destination", .string, "IPv4 or IPv6 destination address")
    public static let ipProtocol = f("ip.protocol", "IP Protocol", .uint8, "IPv4 protocol or IPv6 next header: 1 ICMP, 6 TCP, 17 UDP, 58 ICMPv6")
    public static let arpOpcode = f("arp.opcode", "ARP Opcode", .uint16, "1 request, 2 reply")
    public static let payload = f("payload", "Payload", .bytes, "The network packet's bytes beyond its header")

    public static let all = [type, extensionFlag, controlType, uuidSize, destinationService, sourceService, response, listLength,
                             networkTypeStart, networkTypeEnd, multicastStart, multicastEnd, unknownControlType, extensionType,
                             extensionLength, destination, source, ethertype, vlan, ipSource, ipDestination, ipProtocol, arpOpcode, payload]
}

/// BNEP (PSM 0x000F, BNEP 1.0): Ethernet frames between PAN devices, whole or with the
/// addresses the link implies left out; control packets that set up the connection and the
/// filters; extension headers; and the packet carried named down to its addresses (IPv4,
/// IPv6 with ICMPv6 messages, ARP).
enum BNEPDecoder {
    static let descriptor = ProtocolDescriptor(name: "BNEP", fields: BNEPFields.all, layers: [.bnep], registrations: [.psm(0x000F, "BNEP", decode)],
                                               valueNames: [(BNEPFields.type, types.enumerated().map { ValueName(UInt64($0.offset), $0.element) }),
                                                            (BNEPFields.controlType, controlTypes.enumerated().map { ValueName(UInt64($0.offset), $0.element) })])

    static let types = ["General Ethernet", "Control", "Compressed Ethernet", "Compressed Ethernet Source Only",
                        "Compressed Ethernet Destination Only"]
    static let controlTypes = ["Command Not Understood", "Setup Connection Request", "Setup Connection Response",
                               "Filter Net Type Set", "Filter Net Type Response", "Filter Multicast Address Set",
                               "Filter Multicast Address Response"]
    static let setupResponses = ["Operation Successful", "Invalid Destination Service UUID", "Invalid Source Service UUID",
                                 "Invalid Service UUID Size", "Connection Not Allowed"]
    static let filterResponses = ["Operation Successful", "Unsupported Request", "Invalid Range", "Too Many Filters",
                                  "Security Failure"]
    static let ethertypes: [UInt16: String] = [0x0800: "IPv4", 0x0806: "ARP", 0x86DD: "IPv6", 0x8100: "802.1Q VLAN", 0x88CC: "LLDP",
                                               0x8035: "RARP", 0x888E: "EAPOL"]

    static func decode(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session, context: L2CAPContext) throws {
        var layer = packet.makeLayer(.bnep, over: c, showsDirection: true)
        defer { packet.append(taking: &layer) }
        let header = try c.u8()
        let type = header & 0x7F, hasExtensions = header & 0x80 != 0
        let typeName = types[safe: Int(type)] ?? "Reserved \(Hex.u8(type))"
        layer.add(BNEPFields.type, .u8(type), named: typeName, at: layer.range(at: c.index - 1))
        layer.add(BNEPFields.extensionFlag, .bool(hasExtensions), at: layer.range(at: c.index - 1))

        switch type {
        case 0x01:
            try control(&c, &layer)
            if hasExtensions { try extensions(&c, &layer) }
            if !c.isAtEnd { layer.addIssue(.warning, "\(c.remaining) bytes after the control packet") }
            return
        case 0x00, 0x02, 0x03, 0x04:
            var destination: BDAddr?, source: BDAddr?
            if type == 0x00 || type == 0x04 {
                destination = BDAddr(networkOrder: try c.slice(6))
                layer.add(BNEPFields.destination, .address(destination!), at: layer.range(at: c.index - 6, count: 6))
            }
            if type == 0x00 || type == 0x03 {
                source = BDAddr(networkOrder: try c.slice(6))
                layer.add(BNEPFields.source, .address(source!), at: layer.range(at: c.index - 6, count: 6))
            }
            var ethertype = try c.u16be()
            layer.add(BNEPFields.ethertype, .u16(ethertype), ethertypes[ethertype].map { "\($0) (\(Hex.u16(ethertype)))" },
                      at: layer.range(at: c.index - 2, count: 2))
            if hasExtensions { try extensions(&c, &layer) }
            if ethertype == 0x8100, c.remaining >= 4 {
                let tag = try c.u16be()
                layer.add(BNEPFields.vlan, .count(Int(tag & 0x0FFF)), at: layer.range(at: c.index - 2, count: 2))
                ethertype = try c.u16be()
                layer.add(BNEPFields.ethertype, .u16(ethertype), ethertypes[ethertype].map { "\($0) (\(Hex.u16(ethertype)))" },
                          at: layer.range(at: c.index - 2, count: 2))
            }
            layer.summary.set("\(typeName)")
            if destination != nil || source != nil {
                layer.summary += " - \(source.map(\.description) ?? "peer") → \(destination.map(\.description) ?? "peer")"
            }
            let carried = try network(ethertype, &c, &layer)
            layer.summary += " - \(carried)"
        default:
            layer.summary.set("\(typeName)")
            layer.addIssue(.warning, "Reserved BNEP type \(Hex.u8(type))")
            if !c.isAtEnd { layer.add(BNEPFields.payload, .bytes(c.rest())) }
        }
    }

    // MARK: Control

    static func control(_ c: inout ByteCursor, _ layer: inout Layer) throws {
        let type = try c.u8()
        let name = controlTypes[safe: Int(type)] ?? "Reserved Control \(Hex.u8(type))"
        layer.add(BNEPFields.controlType, .u8(type), named: name, at: layer.range(at: c.index - 1))
        layer.summary.set("\(name)")
        switch type {
        case 0x00:
            let unknown = try c.u8()
            layer.add(BNEPFields.unknownControlType, .u8(unknown), at: layer.range(at: c.index - 1))
            layer.summary += " - \(controlTypes[safe: Int(unknown)] ?? "control type \(Hex.u8(unknown))")"
            layer.addIssue(.warning, "BNEP: the peer did not understand control type \(Hex.u8(unknown))")
        case 0x01:
            let size = Int(try c.u8())
            layer.add(BNEPFields.uuidSize, .count(size), at: layer.range(at: c.index - 1))
            guard [2, 4, 16].contains(size) else {
                layer.addIssue(.error, "BNEP Setup Connection with a UUID size of \(size)")
                _ = c.rest()
                return
            }
            let destination = try uuid(&c, size), source = try uuid(&c, size)
            layer.add(BNEPFields.destinationService, .uuid(destination), at: layer.range(at: c.index - 2 * size, count: size))
            layer.add(BNEPFields.sourceService, .uuid(source), at: layer.range(at: c.index - size, count: size))
            layer.summary += " - \(serviceName(source)) to \(serviceName(destination))"
        case 0x02, 0x04, 0x06:
            let code = try c.u16be()
            let names = type == 0x02 ? setupResponses : filterResponses
            let text = names[safe: Int(code)] ?? "Reserved \(Hex.u16(code))"
            layer.add(BNEPFields.response, .u16(code), text, at: layer.range(at: c.index - 2, count: 2))
            layer.summary += " - \(text)"
            if code != 0 { layer.addIssue(.warning, "BNEP \(name): \(text)") }
        case 0x03, 0x05:
            let length = Int(try c.u16be())
            layer.add(BNEPFields.listLength, .count(length), at: layer.range(at: c.index - 2, count: 2))
            var list = ByteCursor(try c.slice(length))
            var ranges: [String] = []
            let width = type == 0x03 ? 2 : 6
            while list.remaining >= 2 * width {
                if type == 0x03 {
                    let start = try list.u16be(), end = try list.u16be()
                    layer.add(BNEPFields.networkTypeStart, .u16(start), at: layer.range(at: list.index - 4, count: 2))
                    layer.add(BNEPFields.networkTypeEnd, .u16(end), at: layer.range(at: list.index - 2, count: 2))
                    ranges.append(start == end ? Hex.u16(start) : "\(Hex.u16(start))-\(Hex.u16(end))")
                } else {
                    let start = BDAddr(networkOrder: try list.slice(6)), end = BDAddr(networkOrder: try list.slice(6))
                    layer.add(BNEPFields.multicastStart, .address(start), at: layer.range(at: list.index - 12, count: 6))
                    layer.add(BNEPFields.multicastEnd, .address(end), at: layer.range(at: list.index - 6, count: 6))
                    ranges.append(start == end ? start.description : "\(start)-\(end)")
                }
            }
            if !list.isAtEnd { layer.addIssue(.warning, "BNEP filter list: \(list.remaining) bytes that are not a range") }
            layer.summary += ranges.isEmpty ? " - no filter" : " - \(ranges.joined(separator: ", "))"
        default:
            layer.addIssue(.warning, "Reserved BNEP control type \(Hex.u8(type))")
            _ = c.rest()
        }
    }

    static func uuid(_ c: inout ByteCursor, _ size: Int) throws -> BTUUID {
        switch size {
        case 2: return BTUUID(try c.u16be())
        case 4: return BTUUID(try c.u32be())
        default: return BTUUID(bigEndian: try c.slice(16))!
        }
    }

    static func serviceName(_ uuid: BTUUID) -> String {
        switch uuid.uuid16 {
        case 0x1115: return "PANU"
        case 0x1116: return "NAP"
        case 0x1117: return "GN"
        default: return uuid.description
        }
    }

    /// Extension headers: type (bit 7: another follows), length, payload; a control extension
    /// carries a control packet.
    static func extensions(_ c: inout ByteCursor, _ layer: inout Layer) throws {
        var more = true
        var count = 0
        while more, count < 16 {
            count += 1
            let header = try c.u8()
            more = header & 0x80 != 0
            let type = header & 0x7F
            layer.add(BNEPFields.extensionType, .u8(type), type == 0 ? "Extension Control (0x00)" : nil, at: layer.range(at: c.index - 1))
            let length = Int(try c.u8())
            layer.add(BNEPFields.extensionLength, .count(length), at: layer.range(at: c.index - 1))
            let body = try c.slice(length)
            if type == 0x00 {
                var inner = ByteCursor(body)
                let extensionSummary = try layer.summaryText { try control(&inner, &$0) }
                layer.addIssue(.note, "Extension: \(extensionSummary)")
            }
        }
    }

    // MARK: The packet carried

    static func network(_ ethertype: UInt16, _ c: inout ByteCursor, _ layer: inout Layer) throws -> String {
        switch ethertype {
        case 0x0806 where c.remaining >= 28:
            let start = c.index
            _ = try c.slice(6) // hardware type, protocol type, sizes
            let opcode = try c.u16be()
            layer.add(BNEPFields.arpOpcode, .u16(opcode), opcode == 1 ? "Request" : opcode == 2 ? "Reply" : nil,
                      at: layer.range(at: c.index - 2, count: 2))
            let senderMAC = BDAddr(networkOrder: try c.slice(6))
            let senderAt = c.index
            let senderIP = ipv4(try c.slice(4))
            _ = try c.slice(6)
            let targetIP = ipv4(try c.slice(4))
            layer.add(BNEPFields.ipSource, .text(senderIP), at: layer.range(at: senderAt, count: 4))
            layer.add(BNEPFields.ipDestination, .text(targetIP), at: layer.range(at: c.index - 4, count: 4))
            rest(&c, &layer, from: start)
            switch opcode {
            case 1: return "ARP Request: who has \(targetIP)? Tell \(senderIP)"
            case 2: return "ARP Reply: \(senderIP) is at \(senderMAC)"
            default: return "ARP opcode \(opcode)"
            }
        case 0x0800 where c.remaining >= 20:
            let start = c.index
            let versionLength = try c.u8()
            let headerLength = Int(versionLength & 0x0F) * 4
            _ = try c.slice(8)
            let proto = try c.u8()
            layer.add(BNEPFields.ipProtocol, .count(Int(proto)), ipProtocols[proto], at: layer.range(at: c.index - 1))
            _ = try c.slice(2)
            let source = ipv4(try c.slice(4)), destination = ipv4(try c.slice(4))
            layer.add(BNEPFields.ipSource, .text(source), at: layer.range(at: c.index - 8, count: 4))
            layer.add(BNEPFields.ipDestination, .text(destination), at: layer.range(at: c.index - 4, count: 4))
            if headerLength > 20 { _ = try? c.slice(min(headerLength - 20, c.remaining)) }
            let transport = try transport(proto, &c, v6: false)
            rest(&c, &layer, from: start)
            return "IPv4 \(source) → \(destination) \(transport)"
        case 0x86DD where c.remaining >= 40:
            let start = c.index
            _ = try c.slice(6) // version, class, flow label, payload length
            let next = try c.u8()
            layer.add(BNEPFields.ipProtocol, .count(Int(next)), ipProtocols[next], at: layer.range(at: c.index - 1))
            _ = try c.u8()
            let source = ipv6(try c.slice(16)), destination = ipv6(try c.slice(16))
            layer.add(BNEPFields.ipSource, .text(source), at: layer.range(at: c.index - 32, count: 16))
            layer.add(BNEPFields.ipDestination, .text(destination), at: layer.range(at: c.index - 16, count: 16))
            let transport = try transport(next, &c, v6: true)
            rest(&c, &layer, from: start)
            return "IPv6 \(source) → \(destination) \(transport)"
        default:
            let start = c.index
            let count = c.remaining
            rest(&c, &layer, from: start)
            if [0x0806, 0x0800, 0x86DD].contains(ethertype) { layer.addIssue(.warning, "\(ethertypes[ethertype]!) packet of \(count) bytes is truncated") }
            return "\(ethertypes[ethertype] ?? "EtherType \(Hex.u16(ethertype))") - \(count) bytes"
        }
    }

    static func rest(_ c: inout ByteCursor, _ layer: inout Layer, from start: Int) {
        let end = c.index + c.remaining
        _ = c.rest()
        guard end > start else { return }
        layer.add(BNEPFields.payload, .bytes(c.bytes[start ..< end]), at: layer.range(at: start, count: end - start))
    }

    static let ipProtocols: [UInt8: String] = [1: "ICMP", 2: "IGMP", 6: "TCP", 17: "UDP", 58: "ICMPv6"]
    static let icmpv6Types: [UInt8: String] = [
        1: "Destination Unreachable", 2: "Packet Too Big", 3: "Time Exceeded", 128: "Echo Request", 129: "Echo Reply",
        133: "Router Solicitation", 134: "Router Advertisement", 135: "Neighbor Solicitation", 136: "Neighbor Advertisement",
        143: "Multicast Listener Report v2",
    ]
    static let icmpTypes: [UInt8: String] = [0: "Echo Reply", 3: "Destination Unreachable", 8: "Echo Request", 11: "Time Exceeded"]

    /// "UDP 68 → 67", "ICMPv6 Neighbor Solicitation": the transport header's first words.
    static func transport(_ proto: UInt8, _ c: inout ByteCursor, v6: Bool) throws -> String {
        var peek = c
        switch proto {
        case 6, 17:
            guard peek.remaining >= 4 else { return ipProtocols[proto]! }
            let source = try peek.u16be(), destination = try peek.u16be()
            return "\(ipProtocols[proto]!) \(source) → \(destination)"
        case 1, 58:
            guard let type = try? peek.u8() else { return ipProtocols[proto]! }
            return "\(ipProtocols[proto]!) \((proto == 58 ? icmpv6Types : icmpTypes)[type] ?? "type \(type)")"
        default:
            return ipProtocols[proto] ?? "protocol \(proto)"
        }
    }

    static func ipv4(_ b: ArraySlice<UInt8>) -> String { b.map(String.init).joined(separator: ".") }

    /// RFC 5952 text: lower-case hex groups, the longest run of two or more zero groups as "::".
    static func ipv6(_ b: ArraySlice<UInt8>) -> String {
        let groups: [UInt16] = stride(from: b.startIndex, to: b.endIndex, by: 2).map { (i: Int) -> UInt16 in UInt16(b[i]) << 8 | UInt16(b[i + 1]) }
        var best = (start: -1, length: 0), run = (start: -1, length: 0)
        for (index, group) in groups.enumerated() {
            if group == 0 {
                run = run.start < 0 ? (index, 1) : (run.start, run.length + 1)
                if run.length > best.length { best = run }
            } else {
                run = (-1, 0)
            }
        }
        let text = groups.map { String($0, radix: 16) }
        guard best.length >= 2 else { return text.joined(separator: ":") }
        return text[..<best.start].joined(separator: ":") + "::" + text[(best.start + best.length)...].joined(separator: ":")
    }
}

/// The layers this decoder makes.
extension LayerKind {
    public static let bnep = LayerKind("BNEP", protocol: "bnep")
}
