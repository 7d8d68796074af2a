import BTCapture

/// Signaling commands on CID 0x0001 (BR/EDR, several per PDU) and 0x0005 (LE, one per PDU),
/// Core Vol 3, Part A, 4. Requests and responses open and close the dynamic channels that
/// later data is dispatched on.
public enum L2CAPSignaling {
    /// Credits an LE or enhanced credit-based channel's receiver gives as it consumes SDUs.
    public static let flowControlCreditIndication: UInt8 = 0x16
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
            let code = try layer.read(L2CAPFields.code, &c, as: UInt8.self, named: { codeNames[$0] ?? "Unknown Command \(Hex.u8($0))" })
            let name = codeNames[code] ?? "Unknown Command \(Hex.u8(code))"
            let ident = try layer.read(L2CAPFields.ident, &c, as: UInt8.self)
            let length = try layer.read(L2CAPFields.commandLength, &c, as: UInt16.self, inDecimal: true)
            if codeNames[code] == nil { layer.addIssue(.warning, "Unknown signaling command \(Hex.u8(code))") }
            if ident == 0 { layer.addIssue(.warning, "Signaling identifier 0x00 is not allowed") }
            if Int(length) > c.remaining {
                layer.addIssue(.error, "\(name): length \(length) but \(c.remaining) bytes follow")
            }
            var command = try c.cursor(min(Int(length), c.remaining))
            var summary = name
            try decodeCommand(code, ident: ident, &command, &layer, &summary, &packet, &session, context)
            if !command.isAtEnd { try layer.read(L2CAPFields.data, &command, bytes: command.remaining) }
            summaries.append(summary)
        } while context.cid == 0x0001 && c.remaining >= 4
        if !c.isAtEnd {
            try layer.read(L2CAPFields.payload, &c, bytes: c.remaining)
            layer.addIssue(.warning, "Bytes after the last signaling command")
        }
    }

    static func decodeCommand(_ code: UInt8, ident: UInt8, _ c: inout ByteCursor, _ layer: inout Layer, _ summary: inout String,
                              _ packet: inout Packet, _ session: inout Session, _ context: L2CAPContext) throws {
        let link = context.link, sent = context.sent
        func psmText(_ psm: UInt16) -> String { "\(L2CAPProtocols.name(psm: psm)) (\(Hex.u16(psm)))" }
        /// A result read and named by the answer's table; a failure is a warning.
        func result(_ names: [UInt16: String], successes: Set<UInt16> = [0]) throws -> UInt16 {
            let value = try layer.read(L2CAPFields.result, &c, as: UInt16.self, named: { names[$0] ?? "Reserved" })
            let name = names[value] ?? "Reserved"
            summary += " - Result: \(name)"
            if !successes.contains(value) { layer.addIssue(.warning, "\(codeNames[code] ?? ""): \(name)") }
            return value
        }
        func cid(_ field: FieldDefinition) throws -> UInt16 { try layer.read(field, &c, as: UInt16.self) }
        func flags() throws -> UInt16 {
            try layer.read(L2CAPFields.flags, &c, as: UInt16.self, display: { $0 & 1 == 1 ? "Continuation" : "Complete" })
        }
        switch code {
        case 0x01:
            let reasons = rejectReasons
            let reason = try layer.read(L2CAPFields.rejectReason, &c, as: UInt16.self, named: { reasons[$0] ?? "Reserved" })
            summary += " - Reason: \(reasons[reason] ?? "Reserved")"
            layer.addIssue(.warning, "Command Reject: \(reasons[reason] ?? "Reserved")")
            if reason == 1 { try layer.read(L2CAPFields.mtu, &c, as: UInt16.self) }
            if reason == 2 {
                _ = try cid(L2CAPFields.scid)
                _ = try cid(L2CAPFields.dcid)
            }
        case 0x02, 0x0C:
            let psm = try layer.read(L2CAPFields.psm, &c, as: UInt16.self, display: psmText)
            let scid = try cid(L2CAPFields.scid)
            summary += " - PSM: \(psmText(psm)) - Source CID: \(Hex.u16(scid))"
            if code == 0x0C { summary += " - Controller ID: \(try c.u8())" }
            session.l2cap.requests[.init(link: link, requesterIsLocal: sent, ident: ident)] = .init(psm: psm, sourceCIDs: [scid], mode: .basic)
        case 0x03, 0x0D:
            let dcid = try cid(L2CAPFields.dcid), scid = try cid(L2CAPFields.scid)
            summary += " - Destination CID: \(Hex.u16(dcid)) - Source CID: \(Hex.u16(scid))"
            let value = try result(connectionResults, successes: [0, 1])
            if value == 1 {
                let statuses: [UInt16: String] = [0: "No further information", 1: "Authentication pending", 2: "Authorization pending"]
                try layer.read(L2CAPFields.status, &c, as: UInt16.self, named: { statuses[$0] ?? "Reserved" })
            } else {
                _ = try c.u16()
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
            let dcid = try cid(L2CAPFields.dcid)
            _ = try flags()
            summary += " - Destination CID: \(Hex.u16(dcid))"
            let options = try decodeOptions(&c, &layer)
            if !options.summary.isEmpty { summary += " - " + options.summary }
            // Nothing is in force yet: the response accepts the request, or refuses it with a
            // counter-proposal and the requester tries again.
            session.l2cap.await(.init(link: link, requesterIsLocal: sent, ident: ident), .init(cids: [dcid], options: options))
        case 0x05:
            let scid = try cid(L2CAPFields.scid)
            _ = try flags()
            summary += " - Source CID: \(Hex.u16(scid))"
            let value = try result(configurationResults, successes: [0, 4])
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
            let dcid = try cid(L2CAPFields.dcid), scid = try cid(L2CAPFields.scid)
            // Both carry the requester's view: DCID is the receiving endpoint of the request.
            let localCID = code == 0x06 ? (sent ? scid : dcid) : (sent ? dcid : scid)
            if let channel = session.l2cap.channels[link]?.first(where: { $0.localCID == localCID }) {
                layer.add(L2CAPFields.psm, .u16(channel.psm), psmText(channel.psm))
                summary += " - \(channel.protocolName)"
                if code == 0x07 { session.l2cap.remove(link, localCID: localCID) }
            }
            summary += " - Destination CID: \(Hex.u16(dcid)) - Source CID: \(Hex.u16(scid))"
        case 0x08, 0x09:
            if !c.isAtEnd { try layer.read(L2CAPFields.data, &c, bytes: c.remaining) }
        case 0x0A:
            let type = try layer.read(L2CAPFields.infoType, &c, as: UInt16.self, named: { infoTypes[$0] ?? "Reserved" })
            summary += " - \(infoTypes[type] ?? "Reserved")"
        case 0x0B:
            let type = try layer.read(L2CAPFields.infoType, &c, as: UInt16.self, named: { infoTypes[$0] ?? "Reserved" })
            summary += " - \(infoTypes[type] ?? "Reserved")"
            let value = try result([0: "Success", 1: "Not supported"])
            guard value == 0 else { break }
            switch type {
            case 1:
                let mtu = try layer.read(L2CAPFields.mtu, &c, as: UInt16.self, inDecimal: true)
                summary += " - MTU: \(mtu)"
            case 2:
                let mask = try layer.read(L2CAPFields.features, &c, as: UInt32.self, display: {
                    "\(Hex.format($0, width: 8)) (\(bitNames(UInt64($0), featureBits).joined(separator: ", ")))"
                })
                let names = bitNames(UInt64(mask), featureBits)
                if !names.isEmpty { summary += " - " + names.joined(separator: ", ") }
            case 3:
                let mask = try layer.read(L2CAPFields.fixedChannels, &c, as: UInt64.self, display: {
                    "\(Hex.format($0, width: 16)) (\(bitNames($0, fixedChannelBits).joined(separator: ", ")))"
                })
                let names = bitNames(mask, fixedChannelBits)
                if !names.isEmpty { summary += " - " + names.joined(separator: ", ") }
            default: break
            }
        case 0x0E:
            _ = try cid(L2CAPFields.scid)
            summary += " - Destination Controller ID: \(try c.u8())"
        case 0x0F, 0x10:
            _ = try cid(L2CAPFields.scid)
            _ = try result(code == 0x0F ? moveResults : [0: "Success", 1: "Failure"], successes: [0, 1])
        case 0x11:
            _ = try cid(L2CAPFields.scid)
        case 0x12:
            let min = try layer.read(L2CAPFields.intervalMin, &c, as: UInt16.self, display: { Units.milliseconds($0, 1.25) })
            let max = try layer.read(L2CAPFields.intervalMax, &c, as: UInt16.self, display: { Units.milliseconds($0, 1.25) })
            let latency = try layer.read(L2CAPFields.latency, &c, as: UInt16.self, inDecimal: true)
            let timeout = try layer.read(L2CAPFields.timeout, &c, as: UInt16.self, display: { Units.milliseconds($0, 10) })
            summary += " - Interval: \(Units.milliseconds(min, 1.25))-\(Units.milliseconds(max, 1.25)) - Latency: \(latency) - Timeout: \(Units.milliseconds(timeout, 10))"
            if min > max { layer.addIssue(.warning, "Interval minimum above maximum") }
        case 0x13:
            _ = try result([0: "Accepted", 1: "Rejected"])
        case 0x14:
            let spsm = try layer.read(L2CAPFields.psm, &c, as: UInt16.self, display: psmText)
            let scid = try cid(L2CAPFields.scid)
            try creditFields(&c, &layer, &summary)
            summary = "\(codeNames[code]!) - SPSM: \(psmText(spsm)) - Source CID: \(Hex.u16(scid))" + summary.dropFirst(codeNames[code]!.count)
            session.l2cap.requests[.init(link: link, requesterIsLocal: sent, ident: ident)] = .init(psm: spsm, sourceCIDs: [scid], mode: .leCreditBased)
        case 0x15:
            let dcid = try cid(L2CAPFields.dcid)
            summary += " - Destination CID: \(Hex.u16(dcid))"
            try creditFields(&c, &layer, &summary)
            let value = try result(leCreditResults)
            let key = L2CAPState.RequestKey(link: link, requesterIsLocal: !sent, ident: ident)
            if let request = session.l2cap.requests.removeValue(forKey: key), value == 0, let scid = request.sourceCIDs.first {
                let local = !sent ? scid : dcid, remote = !sent ? dcid : scid
                session.l2cap.open(link, L2CAPChannel(psm: request.psm, localCID: local, remoteCID: remote, mode: request.mode))
                layer.add(L2CAPFields.psm, .u16(request.psm), psmText(request.psm))
                summary += " - \(L2CAPProtocols.name(psm: request.psm))"
            }
        case flowControlCreditIndication:
            let channel = try cid(L2CAPFields.cid)
            let credits = try layer.read(L2CAPFields.credits, &c, as: UInt16.self, inDecimal: true)
            summary += " - CID: \(Hex.u16(channel)) - Credits: \(credits)"
        case 0x17:
            let spsm = try layer.read(L2CAPFields.psm, &c, as: UInt16.self, display: psmText)
            summary += " - SPSM: \(psmText(spsm))"
            try creditFields(&c, &layer, &summary)
            var cids: [UInt16] = []
            while c.remaining >= 2 { cids.append(try cid(L2CAPFields.scid)) }
            summary += " - Source CIDs: " + cids.map(Hex.u16).joined(separator: ", ")
            if cids.isEmpty || cids.count > 5 { layer.addIssue(.warning, "\(cids.count) source CIDs; 1 to 5 are allowed") }
            session.l2cap.requests[.init(link: link, requesterIsLocal: sent, ident: ident)] = .init(psm: spsm, sourceCIDs: cids, mode: .enhancedCreditBased)
        case 0x18:
            try creditFields(&c, &layer, &summary)
            _ = try result(enhancedCreditResults, successes: [0, 0x0D, 0x0E, 0x0F])
            var cids: [UInt16] = []
            while c.remaining >= 2 { cids.append(try cid(L2CAPFields.dcid)) }
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
            let mtu = try layer.read(L2CAPFields.mtu, &c, as: UInt16.self, inDecimal: true)
            let mps = try layer.read(L2CAPFields.mps, &c, as: UInt16.self, inDecimal: true)
            summary += " - MTU: \(mtu) - MPS: \(mps)"
            // The requester's own endpoints, whose receive MTU and MPS change once accepted.
            var cids: [UInt16] = []
            while c.remaining >= 2, cids.count < 5 { cids.append(try cid(L2CAPFields.dcid)) }
            var options = Options()
            options.mtu = mtu
            options.mps = mps
            session.l2cap.await(.init(link: link, requesterIsLocal: sent, ident: ident), .init(cids: cids, options: options))
        case 0x1A:
            let value = try result([0: "Reconfiguration successful", 1: "Reduction of MTU not allowed",
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

    /// The MTU, MPS and initial credits of a credit-based connection request or response.
    static func creditFields(_ c: inout ByteCursor, _ layer: inout Layer, _ summary: inout String) throws {
        let mtu = try layer.read(L2CAPFields.mtu, &c, as: UInt16.self, inDecimal: true)
        let mps = try layer.read(L2CAPFields.mps, &c, as: UInt16.self, inDecimal: true)
        let credits = try layer.read(L2CAPFields.credits, &c, as: UInt16.self, inDecimal: true)
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
            let type = try layer.read(L2CAPFields.option, &c, as: UInt8.self, display: {
                "\(optionNames[$0 & 0x7F] ?? "Unknown") (\(Hex.u8($0)))\($0 & 0x80 != 0 ? " hint" : "")"
            })
            let length = try c.u8()
            var value = try c.cursor(min(Int(length), c.remaining))
            let kind = type & 0x7F
            switch kind {
            case 0x01 where length == 2:
                let mtu = try layer.read(L2CAPFields.mtu, &value, as: UInt16.self, inDecimal: true)
                options.mtu = mtu
                parts.append("MTU: \(mtu)")
            case 0x02 where length == 2:
                let timeout = try layer.read(L2CAPFields.flushTimeout, &value, as: UInt16.self, display: { $0 == 0xFFFF ? "Infinite" : "\($0) ms" })
                options.flushTimeout = timeout
                parts.append("Flush Timeout: \(timeout == 0xFFFF ? "Infinite" : "\(timeout) ms")")
            case 0x03 where length == 22:
                _ = try value.u8()
                let service = try layer.read(L2CAPFields.serviceType, &value, as: UInt8.self, display: { serviceTypes[$0] ?? "Reserved" })
                try layer.read(L2CAPFields.tokenRate, &value, as: UInt32.self)
                _ = try value.u32()
                try layer.read(L2CAPFields.peakBandwidth, &value, as: UInt32.self)
                try layer.read(L2CAPFields.flowSpecLatency, &value, as: UInt32.self)
                _ = try value.u32()
                parts.append("QoS: \(serviceTypes[service] ?? "Reserved")")
            case 0x04 where length == 9:
                func modeOf(_ value: UInt8) -> L2CAPChannel.Mode? { L2CAPChannel.Mode(rawValue: value).flatMap { $0.isCreditBased ? nil : $0 } }
                let modeValue = try layer.read(L2CAPFields.mode, &value, as: UInt8.self, display: { modeOf($0)?.name ?? "Reserved" })
                let mode = modeOf(modeValue)
                try layer.read(L2CAPFields.txWindow, &value, as: UInt8.self, inDecimal: true)
                try layer.read(L2CAPFields.maxTransmit, &value, as: UInt8.self, inDecimal: true)
                try layer.read(L2CAPFields.retransmissionTimeout, &value, as: UInt16.self, display: { "\($0) ms" })
                try layer.read(L2CAPFields.monitorTimeout, &value, as: UInt16.self, display: { "\($0) ms" })
                try layer.read(L2CAPFields.mps, &value, as: UInt16.self, inDecimal: true)
                options.mode = mode
                parts.append("Mode: \(mode?.name ?? "Reserved \(Hex.u8(modeValue))")")
            case 0x05 where length == 1:
                let fcs = try layer.read(L2CAPFields.fcs, &value, as: UInt8.self, display: { $0 == 0 ? "No FCS" : $0 == 1 ? "16-bit FCS" : "Reserved" })
                options.fcs = fcs
                parts.append(fcs == 0 ? "No FCS" : "FCS")
            case 0x06 where length == 16:
                _ = try value.u8()
                let service = try layer.read(L2CAPFields.serviceType, &value, as: UInt8.self, display: { serviceTypes[$0] ?? "Reserved" })
                try layer.read(L2CAPFields.maxSDU, &value, as: UInt16.self)
                _ = try value.u32()
                try layer.read(L2CAPFields.flowSpecLatency, &value, as: UInt32.self)
                _ = try value.u32()
                parts.append("Extended Flow Spec: \(serviceTypes[service] ?? "Reserved")")
            case 0x07 where length == 2:
                let window = try layer.read(L2CAPFields.windowSize, &value, as: UInt16.self, inDecimal: true)
                parts.append("Extended Window: \(window)")
            default:
                try layer.read(L2CAPFields.optionData, &value, bytes: value.remaining)
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
