import BTCapture
import BTDecode
import BTQuery

/// `btlog diagnose`: the problems a capture's statistics show, each with its packets and one
/// line a developer can act on; in the order they first happened.
public enum Diagnosis {
    public static func problems(in report: CaptureReport) -> [Problem] {
        var found: [Problem] = []
        found += security(report)
        found += att(report)
        found += connections(report)
        found += audio(report)
        found += hci(report)
        found += air(report)
        found += linkQuality(report)
        return merged(found).sorted { ($0.frames.first ?? 0, $0.severity == .error ? 0 : 1) < ($1.frames.first ?? 0, $1.severity == .error ? 0 : 1) }
    }

    /// The same problem found several times (a link key missing on every reconnection) as one,
    /// with all its packets.
    static func merged(_ problems: [Problem]) -> [Problem] {
        var result: [Problem] = []
        var index: [String: Int] = [:]
        for problem in problems {
            let key = "\(problem.severity)|\(problem.category)|\(problem.summary)"
            guard let at = index[key] else {
                index[key] = result.count
                result.append(problem)
                continue
            }
            result[at].count += problem.count
            result[at].frames = Array((result[at].frames + problem.frames).prefix(20))
        }
        for at in result.indices where result[at].count > 1 && !result[at].summary.contains(" × ") {
            result[at].summary += " × \(result[at].count)"
        }
        return result
    }

    static func hex(_ v: UInt8) -> String { Hex.u8(v) }

    static func status(_ code: UInt8) -> String { "\(FieldValueNames.name(of: UInt64(code), for: HCIFields.status) ?? "Status") (\(hex(code)))" }

    static func command(_ opcode: UInt16) -> String { FieldValueNames.name(of: UInt64(opcode), for: HCIFields.opcode) ?? "Command \(Hex.u16(opcode))" }

    static func attOpcode(_ opcode: UInt8) -> String { FieldValueNames.name(of: UInt64(opcode), for: ATTFields.opcode) ?? "Opcode \(hex(opcode))" }

    static func on(_ handle: UInt16?, _ address: BDAddr?) -> String {
        switch (handle, address) {
        case let (handle?, address?): return " on \(Hex.u16(handle)) \(address)"
        case let (handle?, nil): return " on \(Hex.u16(handle))"
        case let (nil, address?): return " with \(address)"
        default: return ""
        }
    }

    // MARK: Pairing and encryption

    static func security(_ report: CaptureReport) -> [Problem] {
        var found: [Problem] = []
        for f in report.security.pairingFailures {
            switch f.source {
            case .smp:
                let reason = "\(FieldValueNames.name(of: UInt64(f.reason), for: SMPFields.reason) ?? "Reason") (\(hex(f.reason)))"
                found.append(Problem(.error, .pairing, "Pairing failed: \(reason), sent by the \(f.byLocal ? "local host" : "peer")\(on(f.handle, f.address))",
                                     advice: Advice.smp[f.reason] ?? "pairing failed for a reason the specification leaves to the peer",
                                     frames: [f.frame], handle: f.handle, address: f.address))
            case .controller:
                found.append(Problem(.error, .pairing, "Pairing failed: \(status(f.reason))\(on(f.handle, f.address))",
                                     advice: Advice.status[f.reason] ?? "the controller reports the pairing failed",
                                     frames: [f.frame], handle: f.handle, address: f.address))
            }
        }
        for f in report.security.encryptionFailures {
            switch f.kind {
            case .change:
                found.append(Problem(.error, .encryption, "Encryption did not start: \(status(f.status))\(on(f.handle, f.address))",
                                     advice: Advice.status[f.status] ?? "the link could not be encrypted",
                                     frames: [f.frame], handle: f.handle, address: f.address))
            case .ltkMissing:
                found.append(Problem(.error, .encryption, "No LTK for the peer: LE Long Term Key Request Negative Reply\(on(f.handle, f.address))",
                                     advice: "the peer encrypts with a bond this host does not have (it lost or never stored the keys): delete the pairing on both sides and pair again",
                                     frames: [f.frame], handle: f.handle, address: f.address))
            case .linkKeyMissing:
                // A first pairing: the host had no key and the pairing that followed made one.
                guard f.pairedIn == nil else { continue }
                found.append(Problem(.warning, .encryption, "No stored link key: Link Key Request Negative Reply\(on(f.handle, f.address))",
                                     advice: "no pairing followed in the capture: if the devices were paired, this host lost its key (delete the pairing on both sides and pair again); a first pairing that completes is not reported",
                                     frames: [f.frame], handle: f.handle, address: f.address))
            }
        }
        return found
    }

    // MARK: ATT

    static func att(_ report: CaptureReport) -> [Problem] {
        var found: [Problem] = []
        for e in report.att.errors {
            // Attribute Not Found ends every discovery: it is how the server says "no more".
            if e.error == ATTError.attributeNotFound && ATTOpcode.isDiscoveryRequest(e.requestOpcode) { continue }
            let error = "\(FieldValueNames.name(of: UInt64(e.error), for: ATTFields.error) ?? (e.error >= 0x80 && e.error <= 0x9F ? "Application Error" : "Error")) (\(hex(e.error)))"
            let advice = Advice.att[e.error]
                ?? (e.error >= 0x80 && e.error <= 0x9F ? "an error the profile (or the server's application) defines: see the service's specification"
                    : "the server refused the request")
            found.append(Problem(.warning, .att,
                                 "\(error) for \(attOpcode(e.requestOpcode))\(e.count > 1 ? " × \(e.count)" : "")",
                                 advice: advice, frames: e.frames, count: e.count))
        }
        // Requests nothing answered, grouped by what came instead.
        var groups: [String: (frames: [Int], count: Int, problem: Problem)] = [:]
        var order: [String] = []
        for u in report.att.unanswered {
            let request = attOpcode(u.opcode)
            let seconds = ASCII.decimal(Double(u.waited) / 1_000_000, decimals: 1)
            let problem: Problem
            switch u.end {
            case .superseded:
                problem = Problem(.error, .att, "\(request) superseded by another request before its response",
                                  advice: "a client may have one request outstanding per bearer: wait for the response (or the 30 s timeout) before the next",
                                  frames: [])
            case .disconnected:
                problem = Problem(.warning, .att, "\(request) unanswered when the link went down",
                                  advice: u.waited >= 30_000_000 ? "the server never answered (ATT's 30 s timeout passed): a server bug; the link had to be dropped"
                                      : "the link ended before the server answered: see the disconnection's reason",
                                  frames: [])
            case .notCaptured:
                continue // the capture's gap, not the server's (Diagnosis.completeness)
            case .captureEnded:
                guard u.waited >= 30_000_000 else { continue } // the capture stopped too soon to tell
                problem = Problem(.error, .att, "\(request) not answered within ATT's 30 s transaction timeout (waited \(seconds) s)",
                                  advice: "the server never answered: after 30 s the bearer is unusable until the link is re-established; look for a server-side stall",
                                  frames: [])
            }
            let key = problem.summary
            if groups[key] == nil {
                groups[key] = ([], 0, problem)
                order.append(key)
            }
            groups[key]!.count += 1
            if groups[key]!.frames.count < 20 { groups[key]!.frames.append(u.frame) }
        }
        for key in order {
            var problem = groups[key]!.problem
            problem.frames = groups[key]!.frames
            problem.count = groups[key]!.count
            if problem.count > 1 { problem.summary += " × \(problem.count)" }
            found.append(problem)
        }
        for late in report.att.lateResponses {
            found.append(Problem(.error, .att, "Response to \(attOpcode(late.opcode)) \(ASCII.decimal(Double(late.delay) / 1_000_000, decimals: 1)) s after it, past ATT's 30 s timeout",
                                 advice: "the client should have dropped the link at 30 s: the server is too slow (a blocking operation on its side), or the client ignores the timeout",
                                 frames: [late.requestFrame, late.responseFrame], count: 1))
        }
        return found
    }

    // MARK: Links

    static func connections(_ report: CaptureReport) -> [Problem] {
        var found: [Problem] = []
        for c in report.connections {
            let place = on(c.handle, c.address)
            // A link from the air that ended for failed MICs is said once, with its packets (air).
            let endedForMIC = c.disconnectReason == 0x3D && (c.air?.micFailures ?? 0) > 0
            if let reason = c.disconnectReason, !Advice.normalDisconnections.contains(reason), let frame = c.endFrame, !endedForMIC {
                found.append(Problem(Advice.failedDisconnections.contains(reason) ? .error : .warning, .disconnection,
                                     "Disconnected: \(status(reason))\(place)",
                                     advice: Advice.status[reason] ?? "the link ended for this reason", frames: [frame],
                                     handle: c.handle, address: c.address))
            }
            for event in c.timeline where event.failure != nil && event.event != "Encryption Change" {
                let parameters = event.event.contains("Parameter") || event.event.contains("Connection Update")
                found.append(Problem(.warning, parameters ? .connectionParameters : .hci,
                                     "\(event.event) failed: \(event.failure!)\(place)",
                                     advice: parameters ? "the parameters were refused: stay within the peripheral's preferred range (PPCP), interval × (latency + 1) × 2 below the supervision timeout; retry later if a procedure was in progress"
                                         : event.failure!.contains("LL_UNKNOWN_RSP") ? "the peer's controller does not implement this procedure: check the features it announced (LL_FEATURE_RSP) before starting it"
                                         : "the procedure failed: see the status",
                                     frames: [event.frame], handle: c.handle, address: c.address))
            }
            for refused in c.refusedChannels {
                let result = L2CAPSignaling.resultName(code: refused.code, result: refused.result) ?? "result \(refused.result)"
                let psm = refused.psm.map { " for \(L2CAPProtocols.name(psm: UInt16(truncatingIfNeeded: $0)))" } ?? ""
                let what = refused.code == 0x01 ? "Command Reject: \(result)" : "L2CAP connection refused\(psm): \(result)"
                found.append(Problem(.warning, .l2cap, "\(what), by the \(refused.byLocal ? "local host" : "peer")\(place)",
                                     advice: Advice.l2cap(code: refused.code, result: refused.result), frames: [refused.frame],
                                     handle: c.handle, address: c.address))
            }
            for channel in c.channels where channel.isCreditBased {
                let name = "\(channel.protocolName) channel \(Hex.u16(UInt16(truncatingIfNeeded: channel.localCID)))"
                if !channel.creditViolations.isEmpty {
                    found.append(Problem(.error, .credits, "K-frames sent without credits on the \(name)\(place)",
                                         advice: "a stack sent more K-frames than it was given credits for: a bug in its flow control; the receiver may disconnect the channel",
                                         frames: channel.creditViolations, handle: c.handle, address: c.address))
                }
                let exhausted = channel.localCreditsExhausted + channel.remoteCreditsExhausted
                if exhausted > 0, let first = channel.firstExhaustedFrame {
                    let who = channel.localCreditsExhausted > 0 && channel.remoteCreditsExhausted > 0 ? "both sides"
                        : channel.localCreditsExhausted > 0 ? "the local host" : "the peer"
                    found.append(Problem(.warning, .credits, "Credits exhausted \(exhausted) time\(exhausted == 1 ? "" : "s") on the \(name): \(who) had to wait\(place)",
                                         advice: "the receiver returns credits slower than the sender uses them: give more initial credits, and return them as each SDU is consumed",
                                         frames: [first], count: exhausted, handle: c.handle, address: c.address))
                }
            }
        }
        return found
    }

    // MARK: Audio

    static func audio(_ report: CaptureReport) -> [Problem] {
        var found: [Problem] = []
        for s in report.a2dpStreams where s.gaps > 0 {
            found.append(Problem(.warning, .audio,
                                 "A2DP stream on \(Hex.u16(s.handle)) lost \(s.lostPackets) RTP packet\(s.lostPackets == 1 ? "" : "s") in \(s.gaps) gap\(s.gaps == 1 ? "" : "s")",
                                 advice: "audio dropouts: the link could not carry the stream (interference, Wi-Fi coexistence, sniff mode, or a bitpool too high for the link): lower the bitpool or check coexistence",
                                 frames: s.firstGapFrame.map { [$0] } ?? [], count: s.gaps, handle: s.handle, address: s.address))
        }
        for r in report.avdtpRejects {
            let signal = FieldValueNames.name(of: UInt64(r.signal), for: AVDTPFields.signal) ?? "signal \(hex(r.signal))"
            let error = r.error.map { "\(FieldValueNames.name(of: UInt64($0), for: AVDTPFields.errorCode) ?? "error") (\(hex($0)))" } ?? "general reject"
            found.append(Problem(.warning, .audio, "AVDTP \(signal) rejected: \(error) on \(Hex.u16(r.handle))",
                                 advice: r.error == 0x13 ? "the stream end point is in use (another stream, or a stale one never closed): close it or pick another SEP"
                                     : r.error == 0x29 ? "the codec configuration is not supported: configure from the peer's Get Capabilities answer"
                                     : "the peer refused the signal: compare the request with its capabilities and the stream's state",
                                 frames: [r.frame], handle: r.handle))
        }
        for s in report.synchronousStreams where s.lost > 0 {
            found.append(Problem(.warning, .audio,
                                 "\(s.kind.rawValue) stream on \(Hex.u16(s.handle)) (\(s.sent ? "sent" : "received")): \(s.lost) packet\(s.lost == 1 ? "" : "s") lost or damaged",
                                 advice: s.kind == .sco ? "voice dropouts: the controller flagged the data as lost or damaged (interference, or eSCO retransmissions too few)"
                                     : "audio dropouts: SDUs missing or flagged invalid (interference, or too few retransmissions in the CIG/BIG parameters)",
                                 frames: s.firstLossFrame.map { [$0] } ?? [], count: s.lost, handle: s.handle))
        }
        return found
    }

    // MARK: HCI and the controller

    static func hci(_ report: CaptureReport) -> [Problem] {
        var found: [Problem] = []
        for e in report.hci.commandErrors {
            found.append(Problem(.warning, .hci, "\(command(e.opcode)) failed: \(status(e.status))\(e.count > 1 ? " × \(e.count)" : "")",
                                 advice: Advice.status[e.status] ?? "the controller refused the command",
                                 frames: e.frames, count: e.count))
        }
        for c in report.hci.unansweredCommands {
            found.append(Problem(.error, .controller,
                                 "\(command(c.opcode)) never answered (no Command Complete or Command Status in \(ASCII.decimal(Double(c.waited) / 1_000_000, decimals: 1)) s)",
                                 advice: "the controller stopped answering: a firmware hang, or a transport fault (UART out of sync, USB reset); the host usually resets it",
                                 frames: [c.frame]))
        }
        for u in report.hci.unsupportedCommands {
            let named = FieldValueNames.name(of: UInt64(u.opcode), for: HCIFields.opcode).map { "\($0) (\(Hex.u16(u.opcode)))" } ?? "Vendor command \(Hex.u16(u.opcode))"
            found.append(Problem(.warning, .hci, "\(named) answered with opcode 0xFFFF: not supported",
                                 advice: "the controller does not implement this vendor command: a host (or a vendor library) probing for a feature; harmless unless the feature was needed, then check the controller's firmware version",
                                 frames: [u.frame, u.answerFrame], count: 1))
        }
        for e in report.hci.hardwareErrors {
            found.append(Problem(.error, .controller, "Hardware Error, code \(hex(e.code)), on hci\(e.controller)",
                                 advice: "the controller reported a fault of its own (the code is vendor-defined): a firmware or transport problem; collect the vendor's diagnostics",
                                 frames: [e.frame]))
        }
        return found
    }

    // MARK: Links taken from the air

    /// Rates worth a warning: at least 5 packets and a tenth of the link's data PDUs.
    static func often(_ count: Int, of total: Int) -> Bool { count >= 5 && count * 10 >= total }

    static func percent(_ count: Int, of total: Int) -> String { "\(ASCII.decimal(Double(count) * 100 / Double(max(total, 1)), decimals: 1))%" }

    static func air(_ report: CaptureReport) -> [Problem] {
        var found: [Problem] = []
        for c in report.connections {
            guard let q = c.air, q.dataPDUs > 0 else { continue }
            let place = on(c.handle, c.address)
            if often(q.retransmissions, of: q.dataPDUs), let first = q.firstRetransmission {
                found.append(Problem(.warning, .radio, "\(q.retransmissions) of \(q.dataPDUs) data PDUs sent again, not acknowledged (\(percent(q.retransmissions, of: q.dataPDUs)))\(place)",
                                     advice: "the receiving device did not take them: interference or range on the link itself; throughput and latency suffer, and a supervision timeout follows if it lasts",
                                     frames: [first], count: q.retransmissions, handle: c.handle, address: c.address))
            }
            // A MIC failure is the devices' only where they end the link for it; failed checks
            // on a link that went on, and links without a key, are the capture's (completeness).
            if q.micFailures > 0, c.disconnectReason == 0x3D, let end = c.endFrame {
                found.append(Problem(.error, .encryption, "MIC failure: \(plural(q.micFailures, "encrypted packet")) did not authenticate, then the link ended for it (MIC Failure, 0x3D)\(place)",
                                     advice: Advice.status[0x3D]!, frames: q.micFailureFrames + [end], count: q.micFailures, handle: c.handle, address: c.address))
            }
        }
        return found
    }

    // MARK: The controller's quality reports

    /// RSSI below this on a link's quality reports is a weak link.
    public static let weakRSSI = -85
    /// Retransmissions above this share of the packets sent (BQR v4 counts both) is a poor link.
    public static let retransmissionThreshold = 0.10

    static func linkQuality(_ report: CaptureReport) -> [Problem] {
        var found: [Problem] = []
        for c in report.connections where !c.quality.isEmpty {
            let place = on(c.handle, c.address)
            let lsto = c.quality.filter { $0.report == 0x02 }
            if !lsto.isEmpty {
                if c.disconnectReason == 0x08, let end = c.endFrame {
                    found.append(Problem(.error, .radio, "Link approached its supervision timeout (quality report), then timed out\(place)",
                                         advice: "the controller stopped hearing the peer before the link was lost: the quality reports before it say why (RSSI and SNR falling: range or an obstacle; unused AFH channels rising: interference); move closer, check coexistence, or lengthen the supervision timeout",
                                         frames: lsto.map(\.frame) + [end], count: 1, handle: c.handle, address: c.address))
                } else {
                    found.append(Problem(.warning, .radio, "Link approached its supervision timeout (quality report)\(place)",
                                         advice: "the controller went most of the supervision timeout without hearing the peer; the link survived this time: look at RSSI, SNR and AFH channels in the reports before it",
                                         frames: lsto.map(\.frame), count: lsto.count, handle: c.handle, address: c.address))
                }
            }
            for (id, kind) in [(0x03, "A2DP audio"), (0x04, "SCO voice")] {
                let choppy = c.quality.filter { $0.report == id }
                guard let first = choppy.first else { continue }
                let glitches = choppy.compactMap(\.glitches).reduce(0, +)
                found.append(Problem(.warning, .audio, "\(kind) choppy (quality report\(choppy.count == 1 ? "" : "s")), \(glitches) glitch\(glitches == 1 ? "" : "es"): \(choppyCause(first))\(place)",
                                     advice: choppyAdvice(first),
                                     frames: choppy.map(\.frame), count: choppy.count, handle: c.handle, address: c.address))
            }
            let weak = c.quality.filter { ($0.rssi ?? 0) < weakRSSI }
            if !weak.isEmpty, let lowest = weak.compactMap(\.rssi).min() {
                found.append(Problem(.warning, .radio, "Weak signal: RSSI down to \(lowest) dBm, below \(weakRSSI) dBm in \(weak.count) of \(c.quality.count) quality reports\(place)",
                                     advice: "the devices are near the edge of range or something absorbs the signal (a body, a pocket, a wall): retransmissions and dropouts follow; move them closer or check the antenna",
                                     frames: weak.map(\.frame), count: 1, handle: c.handle, address: c.address))
            }
            let poor = c.quality.filter { ($0.retransmissionRate ?? 0) > retransmissionThreshold }
            if !poor.isEmpty, let worst = poor.compactMap(\.retransmissionRate).max() {
                found.append(Problem(.warning, .radio, "Retransmissions above \(percent(Int(retransmissionThreshold * 1000), of: 1000)) of packets sent in \(poor.count) of \(c.quality.count) quality reports (up to \(percent(Int((worst * 1000).rounded()), of: 1000)))\(place)",
                                     advice: "packets are sent again because the peer did not acknowledge them: interference or range; throughput falls and latency rises; compare unused AFH channels (interference) with RSSI (range)",
                                     frames: poor.map(\.frame), count: 1, handle: c.handle, address: c.address))
            }
        }
        for failure in report.connectFailures {
            found.append(Problem(.warning, .hci, "Connection failed (quality report): \(status(failure.reason))\(on(nil, failure.address))",
                                 advice: Advice.status[failure.reason] ?? "the controller could not make the connection",
                                 frames: [failure.frame], address: failure.address))
        }
        return found
    }

    /// What a choppy report says caused it, from its own counters.
    static func choppyCause(_ sample: LinkQualitySample) -> String {
        if let denials = sample.coexistenceDenials, denials > 0 { return "coexistence denied the radio \(denials) time\(denials == 1 ? "" : "s")" }
        if let rssi = sample.rssi, rssi < weakRSSI { return "weak signal (RSSI \(rssi) dBm)" }
        if let queue = sample.aclQueue, queue > 8 { return "\(queue) ACL packets queued in the controller" }
        if let detail = sample.detail { return "link quality \(detail)" }
        return "cause not reported"
    }

    static func choppyAdvice(_ sample: LinkQualitySample) -> String {
        if let denials = sample.coexistenceDenials, denials > 0 {
            return "the controller's coexistence arbiter gave the antenna to Wi-Fi or LTE: check Wi-Fi traffic on 2.4 GHz at that time, or the coexistence configuration"
        }
        if let rssi = sample.rssi, rssi < weakRSSI { return "the link is too weak to carry the stream: move the devices closer, or lower the bit rate (bitpool, codec)" }
        return "the link could not carry the audio in time: look at retransmissions and unused AFH channels around it; lower the bit rate or reduce other traffic"
    }
}
