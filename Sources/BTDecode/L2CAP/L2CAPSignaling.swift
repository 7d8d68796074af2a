import BTCapture

/// Signaling commands on CID 0x0001 (BR/EDR, several per PDU) and 0x0005 (LE, one per PDU),
/// Core Vol 3, Part A, 4. Requests and responses open and close the dynamic channels that
/// later data is dispatched on.
public enum L2CAPSignaling {
    static let codeNames: [UInt8: String] = [
        0x01: "Command Reject", 0x02: "Connection Request", 0x03: "Connection Response",
        0x04: "Configuration Request", 0x05: "Configuration Response", 0x06: "Disconnection Request",
        0x07: "Disconnection Response", 0x08: "Echo Request", 0x09: "Echo Response",
        0x0A: "Information Request", 0x0B: "Information Response", 0x0C: "Create Channel Request",
        0x0D: "Create Channel Response", 0x0E: "Move Channel Request", 0x0F: "Move Channel Response",
        0x10: "Move Channel Confirmation", 0x11: "Move Channel Confirmation Response",
        0x12: "Connection Parameter Update Request", 0x13: "Connection Parameter Update Response",
        0x14: "LE Credit Based Connection Request", 0x15: "LE Credit Based Connection Response",
        0x16: "Flow Control Credit Indication", 0x17: "Credit Based Connection Request",
        0x18: "Credit Based Connection Response", 0x19: "Credit Based Reconfigure Request",
        0x1A: "Credit Based Reconfigure Response",
    ]

    static func decode(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session, context: L2CAPContext) throws {
        var layer = packet.layers.removeLast()
        defer { packet.append(taking: &layer) }
        var summaries: [String] = []
        defer { if !summaries.isEmpty { layer.summary.set("\(summaries.joined(separator: "; "))") } }
        repeat {
            let code = try c.u8()
            let ident = try c.u8()
            let length = try c.u16()
            let name = codeNames[code] ?? "Unknown Command \(Hex.u8(code))"
            layer.add(L2CAPFields.code, .u8(code), named: name)
            layer.add(L2CAPFields.ident, .u8(ident))
            layer.add(L2CAPFields.commandLength, .u16(length), inDecimal: true)
            if codeNames[code] == nil { layer.addIssue(.warning, "Unknown signaling command \(Hex.u8(code))") }
            if ident == 0 { layer.addIssue(.warning, "Signaling identifier 0x00 is not allowed") }
            if Int(length) > c.remaining {
                layer.addIssue(.error, "\(name): length \(length) but \(c.remaining) bytes follow")
            }
            var command = try c.cursor(min(Int(length), c.remaining))
            var summary = name
            try decodeCommand(code, ident: ident, &command, &layer, &summary, &packet, &session, context)
            if !command.isAtEnd {
                let rest = command.rest()
                layer.add(L2CAPFields.data, .bytes(rest))
            }
            summaries.append(summary)
        } while context.cid == 0x0001 && c.remaining >= 4
        if !c.isAtEnd {
            layer.add(L2CAPFields.payload, .bytes(c.rest()))
            layer.addIssue(.warning, "Bytes after the last signaling command")
        }
    }

    static func decodeCommand(_ code: UInt8, ident: UInt8, _ c: inout ByteCursor, _ layer: inout Layer, _ summary: inout String,
                              _ packet: inout Packet, _ session: inout Session, _ context: L2CAPContext) throws {
        let link = context.link, sent = context.sent
        func psmText(_ psm: UInt16) -> String { "\(L2CAPProtocols.name(psm: psm)) (\(Hex.u16(psm)))" }
        func result(_ value: UInt16, _ names: [UInt16: String], successes: Set<UInt16> = [0]) {
            let name = names[value] ?? "Reserved"
            layer.add(L2CAPFields.result, .u16(value), named: name)
            summary += " - Result: \(name)"
            if !successes.contains(value) { layer.addIssue(.warning, "\(codeNames[code] ?? ""): \(name)") }
        }
        switch code {
        case 0x01:
            let reason = try c.u16()
            let reasons = rejectReasons
            layer.add(L2CAPFields.rejectReason, .u16(reason), named: reasons[reason] ?? "Reserved")
            summary += " - Reason: \(reasons[reason] ?? "Reserved")"
            layer.addIssue(.warning, "Command Reject: \(reasons[reason] ?? "Reserved")")
            if reason == 1 { layer.add(L2CAPFields.mtu, .u16(try c.u16())) }
            if reason == 2 {
                layer.add(L2CAPFields.scid, .u16(try c.u16()))
                layer.add(L2CAPFields.dcid, .u16(try c.u16()))
            }
        case 0x02, 0x0C:
            let psm = try c.u16(), scid = try c.u16()
            layer.add(L2CAPFields.psm, .u16(psm), psmText(psm))
            layer.add(L2CAPFields.scid, .u16(scid))
            summary += " - PSM: \(psmText(psm)) - Source CID: \(Hex.u16(scid))"
            if code == 0x0C { summary += " - Controller ID: \(try c.u8())" }
            session.l2cap.requests[.init(link: link, requesterIsLocal: sent, ident: ident)] = .init(psm: psm, sourceCIDs: [scid], mode: .basic)
        case 0x03, 0x0D:
            let dcid = try c.u16(), scid = try c.u16(), value = try c.u16(), status = try c.u16()
            layer.add(L2CAPFields.dcid, .u16(dcid))
            layer.add(L2CAPFields.scid, .u16(scid))
            summary += " - Destination CID: \(Hex.u16(dcid)) - Source CID: \(Hex.u16(scid))"
            result(value, connectionResults, successes: [0, 1])
            if value == 1 {
                let statuses: [UInt16: String] = [0: "No further information", 1: "Authentication pending", 2: "Authorization pending"]
                layer.add(L2CAPFields.status, .u16(status), named: statuses[status] ?? "Reserved")
            }
            let key = L2CAPState.RequestKey(link: link, requesterIsLocal: !sent, ident: ident)
            if value == 0, let request = session.l2cap.requests.removeValue(forKey: key) {
                let local = !sent ? scid : dcid, remote = !sent ? dcid : scid
                session.l2cap.open(link, L2CAPChannel(psm: request.psm, localCID: local, remoteCID: remote, mode: request.mode))
                layer.add(L2CAPFields.psm, .u16(request.psm), psmText(request.psm))
                summary += " - \(L2CAPProtocols.name(psm: request.psm))"
            } else if value != 1 {
                session.l2cap.requests[key] = nil
            }
        case 0x04:
            let dcid = try c.u16(), flags = try c.u16()
            layer.add(L2CAPFields.dcid, .u16(dcid))
            layer.add(L2CAPFields.flags, .u16(flags), flags & 1 == 1 ? "Continuation" : "Complete")
            summary += " - Destination CID: \(Hex.u16(dcid))"
            let options = try decodeOptions(&c, &layer)
            if !options.summary.isEmpty { summary += " - " + options.summary }
            // Nothing is in force yet: the response accepts the request, or refuses it with a
            // counter-proposal and the requester tries again.
            session.l2cap.await(.init(link: link, requesterIsLocal: sent, ident: ident), .init(cids: [dcid], options: options))
        case 0x05:
            let scid = try c.u16(), flags = try c.u16(), value = try c.u16()
            layer.add(L2CAPFields.scid, .u16(scid))
            layer.add(L2CAPFields.flags, .u16(flags), flags & 1 == 1 ? "Continuation" : "Complete")
            summary += " - Source CID: \(Hex.u16(scid))"
            result(value, configurationResults, successes: [0, 4])
            let options = try decodeOptions(&c, &layer)
            if !options.summary.isEmpty { summary += " - " + options.summary }
            // A pending result (4) is followed by the final one, which settles the request.
            let key = L2CAPState.RequestKey(link: link, requesterIsLocal: !sent, ident: ident)
            if value != 4, let request = session.l2cap.configurations.removeValue(forKey: key) {
                let requesterIsLocal = !sent
                if value == 0 {
                    session.l2cap.update(link, cid: scid, sent: sent) { channel in
                        // Options in a successful response are the values agreed (a mode the
                        // responder adjusted); the rest stand as requested.
                        if let mode = options.mode ?? request.options.mode { channel.mode = mode }
                        var agreed = channel.configured[requesterIsLocal] ?? L2CAPChannel.Configuration()
                        if let mtu = request.options.mtu { agreed.mtu = mtu }
                        if let timeout = options.flushTimeout ?? request.options.flushTimeout { agreed.flushTimeout = timeout }
                        if request.options.fcs != nil { agreed.noFCS = request.options.noFCS }
                        channel.configured[requesterIsLocal] = agreed
                    }
                } else if let channel = session.l2cap.channel(link, cid: scid, sent: sent) {
                    let proposed = request.options.summary.isEmpty ? "" : " (\(request.options.summary))"
                    let counter = options.summary.isEmpty ? "" : "; counter-proposal: \(options.summary)"
                    layer.addIssue(.note, "Configuration refused\(proposed)\(counter): the channel stays in \(channel.mode.name) mode until a request is accepted")
                }
            }
        case 0x06, 0x07:
            let dcid = try c.u16(), scid = try c.u16()
            layer.add(L2CAPFields.dcid, .u16(dcid))
            layer.add(L2CAPFields.scid, .u16(scid))
            // Both carry the requester's view: DCID is the receiving endpoint of the request.
            let localCID = code == 0x06 ? (sent ? scid : dcid) : (sent ? dcid : scid)
            if let channel = session.l2cap.channels[link]?.first(where: { $0.localCID == localCID }) {
                layer.add(L2CAPFields.psm, .u16(channel.psm), psmText(channel.psm))
                summary += " - \(channel.protocolName)"
                if code == 0x07 { session.l2cap.remove(link, localCID: localCID) }
            }
            summary += " - Destination CID: \(Hex.u16(dcid)) - Source CID: \(Hex.u16(scid))"
        case 0x08, 0x09:
            let data = c.rest()
            if !data.isEmpty { layer.add(L2CAPFields.data, .bytes(data)) }
        case 0x0A:
            let type = try c.u16()
            layer.add(L2CAPFields.infoType, .u16(type), named: infoTypes[type] ?? "Reserved")
            summary += " - \(infoTypes[type] ?? "Reserved")"
        case 0x0B:
            let type = try c.u16(), value = try c.u16()
            layer.add(L2CAPFields.infoType, .u16(type), named: infoTypes[type] ?? "Reserved")
            summary += " - \(infoTypes[type] ?? "Reserved")"
            result(value, [0: "Success", 1: "Not supported"])
            guard value == 0 else { break }
            switch type {
            case 1:
                let mtu = try c.u16()
                layer.add(L2CAPFields.mtu, .u16(mtu), inDecimal: true)
                summary += " - MTU: \(mtu)"
            case 2:
                let mask = try c.u32()
                let names = bitNames(UInt64(mask), featureBits)
                layer.add(L2CAPFields.features, .u32(mask), "\(Hex.format(mask, width: 8)) (\(names.joined(separator: ", ")))")
                if !names.isEmpty { summary += " - " + names.joined(separator: ", ") }
            case 3:
                let mask = try c.u64()
                let names = bitNames(mask, fixedChannelBits)
                layer.add(L2CAPFields.fixedChannels, .unsigned(mask, width: 16), "\(Hex.format(mask, width: 16)) (\(names.joined(separator: ", ")))")
                if !names.isEmpty { summary += " - " + names.joined(separator: ", ") }
            default: break
            }
        case 0x0E:
            layer.add(L2CAPFields.scid, .u16(try c.u16()))
            summary += " - Destination Controller ID: \(try c.u8())"
        case 0x0F, 0x10:
            layer.add(L2CAPFields.scid, .u16(try c.u16()))
            result(try c.u16(), code == 0x0F ? moveResults : [0: "Success", 1: "Failure"], successes: [0, 1])
        case 0x11:
            layer.add(L2CAPFields.scid, .u16(try c.u16()))
        case 0x12:
            let min = try c.u16(), max = try c.u16(), latency = try c.u16(), timeout = try c.u16()
            layer.add(L2CAPFields.intervalMin, .u16(min), Units.milliseconds(min, 1.25))
            layer.add(L2CAPFields.intervalMax, .u16(max), Units.milliseconds(max, 1.25))
            layer.add(L2CAPFields.latency, .u16(latency), inDecimal: true)
            layer.add(L2CAPFields.timeout, .u16(timeout), Units.milliseconds(timeout, 10))
            summary += " - Interval: \(Units.milliseconds(min, 1.25))-\(Units.milliseconds(max, 1.25)) - Latency: \(latency) - Timeout: \(Units.milliseconds(timeout, 10))"
            if min > max { layer.addIssue(.warning, "Interval minimum above maximum") }
        case 0x13:
            result(try c.u16(), [0: "Accepted", 1: "Rejected"])
        case 0x14:
            let spsm = try c.u16(), scid = try c.u16(), mtu = try c.u16(), mps = try c.u16(), credits = try c.u16()
            layer.add(L2CAPFields.psm, .u16(spsm), psmText(spsm))
            layer.add(L2CAPFields.scid, .u16(scid))
            creditFields(mtu, mps, credits, &layer, &summary)
            summary = "\(codeNames[code]!) - SPSM: \(psmText(spsm)) - Source CID: \(Hex.u16(scid))" + summary.dropFirst(codeNames[code]!.count)
            session.l2cap.requests[.init(link: link, requesterIsLocal: sent, ident: ident)] = .init(psm: spsm, sourceCIDs: [scid], mode: .leCreditBased)
        case 0x15:
            let dcid = try c.u16(), mtu = try c.u16(), mps = try c.u16(), credits = try c.u16(), value = try c.u16()
            layer.add(L2CAPFields.dcid, .u16(dcid))
            summary += " - Destination CID: \(Hex.u16(dcid))"
            creditFields(mtu, mps, credits, &layer, &summary)
            result(value, leCreditResults)
            let key = L2CAPState.RequestKey(link: link, requesterIsLocal: !sent, ident: ident)
            if let request = session.l2cap.requests.removeValue(forKey: key), value == 0, let scid = request.sourceCIDs.first {
                let local = !sent ? scid : dcid, remote = !sent ? dcid : scid
                session.l2cap.open(link, L2CAPChannel(psm: request.psm, localCID: local, remoteCID: remote, mode: request.mode))
                layer.add(L2CAPFields.psm, .u16(request.psm), psmText(request.psm))
                summary += " - \(L2CAPProtocols.name(psm: request.psm))"
            }
        case 0x16:
            let cid = try c.u16(), credits = try c.u16()
            layer.add(L2CAPFields.cid, .u16(cid))
            layer.add(L2CAPFields.credits, .u16(credits), inDecimal: true)
            summary += " - CID: \(Hex.u16(cid)) - Credits: \(credits)"
        case 0x17:
            let spsm = try c.u16(), mtu = try c.u16(), mps = try c.u16(), credits = try c.u16()
            layer.add(L2CAPFields.psm, .u16(spsm), psmText(spsm))
            summary += " - SPSM: \(psmText(spsm))"
            creditFields(mtu, mps, credits, &layer, &summary)
            var cids: [UInt16] = []
            while c.remaining >= 2 { cids.append(try c.u16()) }
            for cid in cids { layer.add(L2CAPFields.scid, .u16(cid)) }
            summary += " - Source CIDs: " + cids.map(Hex.u16).joined(separator: ", ")
            if cids.isEmpty || cids.count > 5 { layer.addIssue(.warning, "\(cids.count) source CIDs; 1 to 5 are allowed") }
            session.l2cap.requests[.init(link: link, requesterIsLocal: sent, ident: ident)] = .init(psm: spsm, sourceCIDs: cids, mode: .enhancedCreditBased)
        case 0x18:
            let mtu = try c.u16(), mps = try c.u16(), credits = try c.u16(), value = try c.u16()
            creditFields(mtu, mps, credits, &layer, &summary)
            result(value, enhancedCreditResults, successes: [0, 0x0D, 0x0E, 0x0F])
            var cids: [UInt16] = []
            while c.remaining >= 2 { cids.append(try c.u16()) }
            for cid in cids { layer.add(L2CAPFields.dcid, .u16(cid)) }
            summary += " - Destination CIDs: " + cids.map(Hex.u16).joined(separator: ", ")
            let key = L2CAPState.RequestKey(link: link, requesterIsLocal: !sent, ident: ident)
            if let request = session.l2cap.requests.removeValue(forKey: key) {
                for (scid, dcid) in zip(request.sourceCIDs, cids) where dcid != 0 {
                    let local = !sent ? scid : dcid, remote = !sent ? dcid : scid
                    session.l2cap.open(link, L2CAPChannel(psm: request.psm, localCID: local, remoteCID: remote, mode: request.mode))
                }
                layer.add(L2CAPFields.psm, .u16(request.psm), psmText(request.psm))
                summary += " - \(L2CAPProtocols.name(psm: request.psm))"
            }
        case 0x19:
            let mtu = try c.u16(), mps = try c.u16()
            layer.add(L2CAPFields.mtu, .u16(mtu), inDecimal: true)
            layer.add(L2CAPFields.mps, .u16(mps), inDecimal: true)
            summary += " - MTU: \(mtu) - MPS: \(mps)"
            // The requester's own endpoints, whose receive MTU and MPS change once accepted.
            var cids: [UInt16] = []
            while c.remaining >= 2, cids.count < 5 {
                let cid = try c.u16()
                layer.add(L2CAPFields.dcid, .u16(cid))
                cids.append(cid)
            }
            var options = Options()
            options.mtu = mtu
            options.mps = mps
            session.l2cap.await(.init(link: link, requesterIsLocal: sent, ident: ident), .init(cids: cids, options: options))
        case 0x1A:
            let value = try c.u16()
            result(value, [0: "Reconfiguration successful", 1: "Reduction of MTU not allowed",
                           2: "Reduction of MPS not allowed for more than one channel",
                           3: "One or more Destination CIDs invalid", 4: "Unacceptable parameters"])
            let key = L2CAPState.RequestKey(link: link, requesterIsLocal: !sent, ident: ident)
            if let request = session.l2cap.configurations.removeValue(forKey: key) {
                if value == 0 {
                    // The requester's own CIDs: the local ones when the local host asked (and
                    // so the answer was received).
                    for cid in request.cids {
                        session.l2cap.update(link, cid: cid, sent: sent) { channel in
                            var agreed = channel.configured[!sent] ?? L2CAPChannel.Configuration()
                            agreed.mtu = request.options.mtu
                            agreed.mps = request.options.mps
                            channel.configured[!sent] = agreed
                        }
                    }
                    if let mtu = request.options.mtu, let mps = request.options.mps {
                        summary += " - MTU: \(mtu) - MPS: \(mps) for \(request.cids.map(Hex.u16).joined(separator: ", "))"
                    }
                } else {
                    layer.addIssue(.note, "Reconfiguration refused: the channels keep their MTU and MPS")
                }
            }
        default:
            break
        }
    }

    static func creditFields(_ mtu: UInt16, _ mps: UInt16, _ credits: UInt16, _ layer: inout Layer, _ summary: inout String) {
        layer.add(L2CAPFields.mtu, .u16(mtu), inDecimal: true)
        layer.add(L2CAPFields.mps, .u16(mps), inDecimal: true)
        layer.add(L2CAPFields.credits, .u16(credits), inDecimal: true)
        summary += " - MTU: \(mtu) - MPS: \(mps) - Credits: \(credits)"
    }

    /// What a configuration PDU proposed (or a response agreed or counter-proposed).
    struct Options {
        var summary = ""
        var mode: L2CAPChannel.Mode?
        var mtu: UInt16?
        var mps: UInt16?
        var flushTimeout: UInt16?
        /// The FCS option's value, where the PDU had one.
        var fcs: UInt8?
        var noFCS: Bool { fcs == 0 }
    }

    /// Configuration options (Core Vol 3, Part A, 5): type (bit 7 a hint), length, value.
    static func decodeOptions(_ c: inout ByteCursor, _ layer: inout Layer) throws -> Options {
        var options = Options()
        var parts: [String] = []
        while c.remaining >= 2 {
            let type = try c.u8(), length = try c.u8()
            var value = try c.cursor(min(Int(length), c.remaining))
            let kind = type & 0x7F
            layer.add(L2CAPFields.option, .u8(type), "\(optionNames[kind] ?? "Unknown") (\(Hex.u8(type)))\(type & 0x80 != 0 ? " hint" : "")")
            switch kind {
            case 0x01 where length == 2:
                let mtu = try value.u16()
                layer.add(L2CAPFields.mtu, .u16(mtu), inDecimal: true)
                options.mtu = mtu
                parts.append("MTU: \(mtu)")
            case 0x02 where length == 2:
                let timeout = try value.u16()
                options.flushTimeout = timeout
                layer.add(L2CAPFields.flushTimeout, .u16(timeout), timeout == 0xFFFF ? "Infinite" : "\(timeout) ms")
                parts.append("Flush Timeout: \(timeout == 0xFFFF ? "Infinite" : "\(timeout) ms")")
            case 0x03 where length == 22:
                _ = try value.u8()
                let service = try value.u8()
                layer.add(L2CAPFields.serviceType, .u8(service), serviceTypes[service] ?? "Reserved")
                layer.add(L2CAPFields.tokenRate, .u32(try value.u32()))
                _ = try value.u32()
                layer.add(L2CAPFields.peakBandwidth, .u32(try value.u32()))
                layer.add(L2CAPFields.flowSpecLatency, .u32(try value.u32()))
                _ = try value.u32()
                parts.append("QoS: \(serviceTypes[service] ?? "Reserved")")
            case 0x04 where length == 9:
                let modeValue = try value.u8()
                let mode = L2CAPChannel.Mode(rawValue: modeValue).flatMap { $0.isCreditBased ? nil : $0 }
                layer.add(L2CAPFields.mode, .u8(modeValue), mode?.name ?? "Reserved")
                let window = try value.u8(), transmit = try value.u8()
                layer.add(L2CAPFields.txWindow, .u8(window), inDecimal: true)
                layer.add(L2CAPFields.maxTransmit, .u8(transmit), inDecimal: true)
                let retransmission = try value.u16(), monitor = try value.u16()
                layer.add(L2CAPFields.retransmissionTimeout, .u16(retransmission), "\(retransmission) ms")
                layer.add(L2CAPFields.monitorTimeout, .u16(monitor), "\(monitor) ms")
                let mps = try value.u16()
                layer.add(L2CAPFields.mps, .u16(mps), inDecimal: true)
                options.mode = mode
                parts.append("Mode: \(mode?.name ?? "Reserved \(Hex.u8(modeValue))")")
            case 0x05 where length == 1:
                let fcs = try value.u8()
                layer.add(L2CAPFields.fcs, .u8(fcs), fcs == 0 ? "No FCS" : fcs == 1 ? "16-bit FCS" : "Reserved")
                options.fcs = fcs
                parts.append(fcs == 0 ? "No FCS" : "FCS")
            case 0x06 where length == 16:
                _ = try value.u8()
                let service = try value.u8()
                layer.add(L2CAPFields.serviceType, .u8(service), serviceTypes[service] ?? "Reserved")
                layer.add(L2CAPFields.maxSDU, .u16(try value.u16()))
                _ = try value.u32()
                layer.add(L2CAPFields.flowSpecLatency, .u32(try value.u32()))
                _ = try value.u32()
                parts.append("Extended Flow Spec: \(serviceTypes[service] ?? "Reserved")")
            case 0x07 where length == 2:
                let window = try value.u16()
                layer.add(L2CAPFields.windowSize, .u16(window), inDecimal: true)
                parts.append("Extended Window: \(window)")
            default:
                layer.add(L2CAPFields.optionData, .bytes(value.rest()))
                parts.append(optionNames[kind].map { "\($0) (length \(length))" } ?? "Option \(Hex.u8(type))")
            }
        }
        options.summary = parts.joined(separator: " - ")
        return options
    }

    static func bitNames(_ mask: UInt64, _ names: [Int: String]) -> [String] {
        names.keys.sorted().filter { mask & (1 << UInt64($0)) != 0 }.map { names[$0]! }
    }

    static let rejectReasons: [UInt16: String] = [0: "Command not understood", 1: "Signaling MTU exceeded", 2: "Invalid CID in request"]

    /// The name of a result (or a Command Reject's reason) as the answer with this signaling
    /// code defines it: connection responses have their own tables.
    public static func resultName(code: Int, result: Int) -> String? {
        let value = UInt16(truncatingIfNeeded: result)
        switch code {
        case 0x01: return rejectReasons[value]
        case 0x03, 0x0D: return connectionResults[value]
        case 0x05: return configurationResults[value]
        case 0x15: return leCreditResults[value]
        case 0x18: return enhancedCreditResults[value]
        case 0x13: return [0: "Accepted", 1: "Rejected"][value]
        default: return nil
        }
    }

    static let connectionResults: [UInt16: String] = [
        0: "Connection successful", 1: "Connection pending", 2: "Connection refused - PSM not supported",
        3: "Connection refused - security block", 4: "Connection refused - no resources available",
        6: "Connection refused - invalid Source CID", 7: "Connection refused - Source CID already allocated",
    ]
    static let configurationResults: [UInt16: String] = [
        0: "Success", 1: "Failure - unacceptable parameters", 2: "Failure - rejected", 3: "Failure - unknown options",
        4: "Pending", 5: "Failure - flow spec rejected",
    ]
    static let leCreditResults: [UInt16: String] = [
        0x00: "Connection successful", 0x02: "Connection refused - SPSM not supported",
        0x04: "Connection refused - no resources available", 0x05: "Connection refused - insufficient authentication",
        0x06: "Connection refused - insufficient authorization", 0x07: "Connection refused - encryption key size too short",
        0x08: "Connection refused - insufficient encryption", 0x09: "Connection refused - invalid Source CID",
        0x0A: "Connection refused - Source CID already allocated", 0x0B: "Connection refused - unacceptable parameters",
    ]
    static let enhancedCreditResults: [UInt16: String] = [
        0x00: "All connections successful", 0x02: "Some refused - SPSM not supported",
        0x04: "Some refused - insufficient resources", 0x05: "All refused - insufficient authentication",
        0x06: "All refused - insufficient authorization", 0x07: "All refused - encryption key size too short",
        0x08: "All refused - insufficient encryption", 0x09: "Some refused - invalid Source CID",
        0x0A: "Some refused - Source CID already allocated", 0x0B: "All refused - unacceptable parameters",
        0x0C: "All refused - invalid parameters", 0x0D: "All pending - no further information",
        0x0E: "All pending - authentication pending", 0x0F: "All pending - authorization pending",
    ]
    static let moveResults: [UInt16: String] = [
        0: "Success", 1: "Pending", 2: "Controller ID not supported", 3: "New Controller ID is same as old",
        4: "Configuration not supported", 5: "Move Channel collision", 6: "Channel not allowed to be moved",
    ]
    static let infoTypes: [UInt16: String] = [1: "Connectionless MTU", 2: "Extended Features Supported", 3: "Fixed Channels Supported"]
    static let optionNames: [UInt8: String] = [
        1: "MTU", 2: "Flush Timeout", 3: "Quality of Service", 4: "Retransmission and Flow Control",
        5: "Frame Check Sequence", 6: "Extended Flow Specification", 7: "Extended Window Size",
    ]
    static let serviceTypes: [UInt8: String] = [0: "No Traffic", 1: "Best Effort", 2: "Guaranteed"]
    static let featureBits: [Int: String] = [
        0: "Flow Control Mode", 1: "Retransmission Mode", 2: "Bi-directional QoS", 3: "Enhanced Retransmission Mode",
        4: "Streaming Mode", 5: "FCS Option", 6: "Extended Flow Specification", 7: "Fixed Channels",
        8: "Extended Window Size", 9: "Unicast Connectionless Data Reception", 10: "Enhanced Credit Based Flow Control Mode",
    ]
    static let fixedChannelBits: [Int: String] = [
        1: "L2CAP Signaling", 2: "Connectionless", 3: "AMP Manager", 7: "BR/EDR Security Manager", 63: "AMP Test Manager",
    ]
}
