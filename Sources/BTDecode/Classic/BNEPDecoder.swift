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
        let (header, headerAt) = try layer.reading(&c) { try $0.u8() }
        let type = header & 0x7F, hasExtensions = header & 0x80 != 0
        let typeName = types[safe: Int(type)] ?? "Reserved \(Hex.u8(type))"
        layer.add(BNEPFields.type, .u8(type), named: typeName, at: headerAt)
        layer.add(BNEPFields.extensionFlag, .bool(hasExtensions), at: headerAt)

        switch type {
        case 0x01:
            try control(&c, &layer)
            if hasExtensions { try extensions(&c, &layer) }
            if !c.isAtEnd { layer.addIssue(.warning, "\(c.remaining) bytes after the control packet") }
            return
        case 0x00, 0x02, 0x03, 0x04:
            var destination: BDAddr?, source: BDAddr?
            if type == 0x00 || type == 0x04 {
                destination = try layer.read(BNEPFields.destination, &c, as: BDAddr.self, .bigEndian)
            }
            if type == 0x00 || type == 0x03 {
                source = try layer.read(BNEPFields.source, &c, as: BDAddr.self, .bigEndian)
            }
            var ethertype = try layer.read(BNEPFields.ethertype, &c, as: UInt16.self, .bigEndian, named: { ethertypes[$0] })
            if hasExtensions { try extensions(&c, &layer) }
            if ethertype == 0x8100, c.remaining >= 4 {
                let (tag, tagAt) = try layer.reading(&c) { try $0.u16be() }
                layer.add(BNEPFields.vlan, .count(Int(tag & 0x0FFF)), at: tagAt)
                ethertype = try layer.read(BNEPFields.ethertype, &c, as: UInt16.self, .bigEndian, named: { ethertypes[$0] })
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
        let type = try layer.read(BNEPFields.controlType, &c, as: UInt8.self, named: { controlTypes[safe: Int($0)] ?? "Reserved Control \(Hex.u8($0))" })
        let name = controlTypes[safe: Int(type)] ?? "Reserved Control \(Hex.u8(type))"
        layer.summary.set("\(name)")
        switch type {
        case 0x00:
            let unknown = try layer.read(BNEPFields.unknownControlType, &c, as: UInt8.self)
            layer.summary += " - \(controlTypes[safe: Int(unknown)] ?? "control type \(Hex.u8(unknown))")"
            layer.addIssue(.warning, "BNEP: the peer did not understand control type \(Hex.u8(unknown))")
        case 0x01:
            let size = Int(try layer.readCount(BNEPFields.uuidSize, &c, as: UInt8.self))
            guard [2, 4, 16].contains(size) else {
                layer.addIssue(.error, "BNEP Setup Connection with a UUID size of \(size)")
                _ = c.rest()
                return
            }
            let (destination, destinationAt) = try layer.reading(&c) { try uuid(&$0, size) }
            let (source, sourceAt) = try layer.reading(&c) { try uuid(&$0, size) }
            layer.add(BNEPFields.destinationService, .uuid(destination), at: destinationAt)
            layer.add(BNEPFields.sourceService, .uuid(source), at: sourceAt)
            layer.summary += " - \(serviceName(source)) to \(serviceName(destination))"
        case 0x02, 0x04, 0x06:
            let names = type == 0x02 ? setupResponses : filterResponses
            let code = try layer.read(BNEPFields.response, &c, as: UInt16.self, .bigEndian, display: { names[safe: Int($0)] ?? "Reserved \(Hex.u16($0))" })
            let text = names[safe: Int(code)] ?? "Reserved \(Hex.u16(code))"
            layer.summary += " - \(text)"
            if code != 0 { layer.addIssue(.warning, "BNEP \(name): \(text)") }
        case 0x03, 0x05:
            let length = Int(try layer.readCount(BNEPFields.listLength, &c, as: UInt16.self, .bigEndian))
            var list = ByteCursor(try c.slice(length))
            var ranges: [String] = []
            let width = type == 0x03 ? 2 : 6
            while list.remaining >= 2 * width {
                if type == 0x03 {
                    let start = try layer.read(BNEPFields.networkTypeStart, &list, as: UInt16.self, .bigEndian)
                    let end = try layer.read(BNEPFields.networkTypeEnd, &list, as: UInt16.self, .bigEndian)
                    ranges.append(start == end ? Hex.u16(start) : "\(Hex.u16(start))-\(Hex.u16(end))")
                } else {
                    let start = try layer.read(BNEPFields.multicastStart, &list, as: BDAddr.self, .bigEndian)
                    let end = try layer.read(BNEPFields.multicastEnd, &list, as: BDAddr.self, .bigEndian)
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
            let (header, headerAt) = try layer.reading(&c) { try $0.u8() }
            more = header & 0x80 != 0
            let type = header & 0x7F
            layer.add(BNEPFields.extensionType, .u8(type), named: type == 0 ? "Extension Control" : nil, at: headerAt)
            let length = Int(try layer.readCount(BNEPFields.extensionLength, &c, as: UInt8.self))
            let body = try c.slice(length)
            if type == 0x00 {
                var inner = ByteCursor(body)
                let extensionSummary = try layer.summaryText { try control(&inner, &$0) }
                layer.addIssue(.note, "Extension: \(extensionSummary)")
            }
        }
    }

    // MARK: The packet carried

    /// The packet's header fields, read from a copy of the cursor, then the whole packet as the payload.
    static func network(_ ethertype: UInt16, _ c: inout ByteCursor, _ layer: inout Layer) throws -> String {
        var h = c
        switch ethertype {
        case 0x0806 where c.remaining >= 28:
            _ = try h.slice(6) // hardware type, protocol type, sizes
            let opcode = try layer.read(BNEPFields.arpOpcode, &h, as: UInt16.self, .bigEndian,
                                        display: { $0 == 1 ? "Request" : $0 == 2 ? "Reply" : nil })
            let senderMAC = BDAddr(networkOrder: try h.slice(6))
            let (senderIP, senderAt) = try layer.reading(&h) { ipv4(try $0.slice(4)) }
            _ = try h.slice(6)
            let (targetIP, targetAt) = try layer.reading(&h) { ipv4(try $0.slice(4)) }
            layer.add(BNEPFields.ipSource, .text(senderIP), at: senderAt)
            layer.add(BNEPFields.ipDestination, .text(targetIP), at: targetAt)
            payload(&c, &layer)
            switch opcode {
            case 1: return "ARP Request: who has \(targetIP)? Tell \(senderIP)"
            case 2: return "ARP Reply: \(senderIP) is at \(senderMAC)"
            default: return "ARP opcode \(opcode)"
            }
        case 0x0800 where c.remaining >= 20:
            let versionLength = try h.u8()
            let headerLength = Int(versionLength & 0x0F) * 4
            _ = try h.slice(8)
            let proto = try layer.readCount(BNEPFields.ipProtocol, &h, as: UInt8.self, display: { ipProtocols[$0] })
            _ = try h.slice(2)
            let (source, sourceAt) = try layer.reading(&h) { ipv4(try $0.slice(4)) }
            let (destination, destinationAt) = try layer.reading(&h) { ipv4(try $0.slice(4)) }
            layer.add(BNEPFields.ipSource, .text(source), at: sourceAt)
            layer.add(BNEPFields.ipDestination, .text(destination), at: destinationAt)
            if headerLength > 20 { _ = try? h.slice(min(headerLength - 20, h.remaining)) }
            let transport = try transport(proto, h)
            payload(&c, &layer)
            return "IPv4 \(source) → \(destination) \(transport)"
        case 0x86DD where c.remaining >= 40:
            _ = try h.slice(6) // version, class, flow label, payload length
            let next = try layer.readCount(BNEPFields.ipProtocol, &h, as: UInt8.self, display: { ipProtocols[$0] })
            _ = try h.u8()
            let (source, sourceAt) = try layer.reading(&h) { ipv6(try $0.slice(16)) }
            let (destination, destinationAt) = try layer.reading(&h) { ipv6(try $0.slice(16)) }
            layer.add(BNEPFields.ipSource, .text(source), at: sourceAt)
            layer.add(BNEPFields.ipDestination, .text(destination), at: destinationAt)
            let transport = try transport(next, h)
            payload(&c, &layer)
            return "IPv6 \(source) → \(destination) \(transport)"
        default:
            let count = c.remaining
            payload(&c, &layer)
            if [0x0806, 0x0800, 0x86DD].contains(ethertype) { layer.addIssue(.warning, "\(ethertypes[ethertype]!) packet of \(count) bytes is truncated") }
            return "\(ethertypes[ethertype] ?? "EtherType \(Hex.u16(ethertype))") - \(count) bytes"
        }
    }

    static func payload(_ c: inout ByteCursor, _ layer: inout Layer) {
        guard !c.isAtEnd else { return }
        _ = try? layer.read(BNEPFields.payload, &c, bytes: c.remaining)
    }

    static let ipProtocols: [UInt8: String] = [1: "ICMP", 2: "IGMP", 6: "TCP", 17: "UDP", 58: "ICMPv6"]
    static let icmpv6Types: [UInt8: String] = [
        1: "Destination Unreachable", 2: "Packet Too Big", 3: "Time Exceeded", 128: "Echo Request", 129: "Echo Reply",
        133: "Router Solicitation", 134: "Router Advertisement", 135: "Neighbor Solicitation", 136: "Neighbor Advertisement",
        143: "Multicast Listener Report v2",
    ]
    static let icmpTypes: [UInt8: String] = [0: "Echo Reply", 3: "Destination Unreachable", 8: "Echo Request", 11: "Time Exceeded"]

    /// "UDP 68 → 67", "ICMPv6 Neighbor Solicitation": the transport header's first words.
    static func transport(_ proto: UInt8, _ header: ByteCursor) throws -> String {
        var peek = header
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
