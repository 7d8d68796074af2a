import BTCapture
import BTDecode
import BTQuery

/// L2CAP signaling on each link: the channels opened (PSM, CIDs, MTU, MPS and credits each
/// way), refused and closed; credit use on credit-based channels; connection parameter
/// update requests and their answers. Requests and answers are paired here (by link, side and
/// identifier, as the decoder's L2CAPState pairs them): a stage sees packets, not the decoder's
/// Session, which runs ahead of it on the decoding thread, and an answer's packet says nothing
/// of its request but what a user sees (a `request_in` field, as ATT has, would be new output).
struct ChannelTracker {
    typealias LinkKey = Session.LinkKey
    typealias SignalingKey = StatisticsCollector.SignalingKey

    struct ChannelRequest {
        var psm: Int
        var sourceCIDs: [Int]
        var mtu: Int?, mps: Int?, credits: Int?
        var mode: String
    }

    private var channelRequests: [SignalingKey: ChannelRequest] = [:]
    private var parameterRequests: [SignalingKey: ParameterEvent] = [:]

    mutating func signaling(_ layer: Layer, _ packet: Packet, _ connection: inout ConnectionReport, key: LinkKey, sent: Bool) {
        guard let code = layer.integer(L2CAPFields.code), let ident = layer.integer(L2CAPFields.ident) else { return }
        let requestKey = SignalingKey(link: key, requesterSent: sent, ident: ident)
        let answerKey = SignalingKey(link: key, requesterSent: !sent, ident: ident)
        let result = layer.integer(L2CAPFields.result) ?? 0
        let frame = packet.frame
        switch code {
        case 0x02, 0x14, 0x17: // Connection Request: BR/EDR, LE credit-based, enhanced credit-based
            guard let psm = layer.integer(L2CAPFields.psm) else { return }
            channelRequests[requestKey] = ChannelRequest(psm: psm, sourceCIDs: layer.integers(L2CAPFields.scid), mtu: layer.integer(L2CAPFields.mtu),
                                                         mps: layer.integer(L2CAPFields.mps), credits: layer.integer(L2CAPFields.credits),
                                                         mode: code == 0x02 ? "BR/EDR" : code == 0x14 ? "LE credit-based" : "enhanced credit-based")
        case 0x03, 0x15, 0x18:
            if code == 0x03 && result == 1 { return } // pending: the final response follows
            let destinations = code == 0x03 ? [layer.integer(L2CAPFields.dcid) ?? 0] : layer.integers(L2CAPFields.dcid)
            let request = channelRequests.removeValue(forKey: answerKey)
            if result != 0 && (code != 0x18 || destinations.allSatisfy { $0 == 0 }) {
                connection.refusedChannels.append(RefusedChannel(frame: frame.number, psm: request?.psm, code: code, result: result, byLocal: sent))
            }
            guard result == 0 || code == 0x18, let request else { return }
            for (source, destination) in zip(request.sourceCIDs, destinations) where destination != 0 {
                // The requester's side is local when the response was received.
                let localIsRequester = !sent
                var channel = ChannelReport(frame: frame.number, time: frame.timestamp, psm: request.psm,
                                            protocolName: L2CAPProtocols.name(psm: UInt16(truncatingIfNeeded: request.psm)),
                                            localCID: localIsRequester ? source : destination,
                                            remoteCID: localIsRequester ? destination : source, mode: request.mode)
                let answer = (mtu: layer.integer(L2CAPFields.mtu), mps: layer.integer(L2CAPFields.mps), credits: layer.integer(L2CAPFields.credits))
                if localIsRequester {
                    (channel.localMTU, channel.localMPS, channel.localCredits) = (request.mtu, request.mps, request.credits)
                    (channel.remoteMTU, channel.remoteMPS, channel.remoteCredits) = answer
                } else {
                    (channel.remoteMTU, channel.remoteMPS, channel.remoteCredits) = (request.mtu, request.mps, request.credits)
                    (channel.localMTU, channel.localMPS, channel.localCredits) = answer
                }
                channel.localSendCredits = channel.remoteCredits ?? 0
                channel.remoteSendCredits = channel.localCredits ?? 0
                connection.channels.append(channel)
            }
        case 0x01: // Command Reject
            connection.refusedChannels.append(RefusedChannel(frame: frame.number, psm: nil, code: code,
                                                             result: layer.integer(L2CAPFields.rejectReason) ?? 0, byLocal: sent))
        case 0x16: // Flow Control Credit Indication: credits for the channel whose receiving end is the CID
            // The indication's own CID, after the basic header's (0x0005, the signaling channel).
            guard let cid = layer.integers(L2CAPFields.cid).last, let credits = layer.integer(L2CAPFields.credits),
                  let channel = connection.openChannel(receivingCID: cid, sent: !sent)
            else { return }
            if sent { connection.channels[channel].remoteSendCredits += credits } else { connection.channels[channel].localSendCredits += credits }
        case 0x04: // Configuration Request: the MTU its sender can receive, for the channel its DCID names
            guard let mtu = layer.integer(L2CAPFields.mtu), let dcid = layer.integer(L2CAPFields.dcid) else { return }
            if let channel = connection.openChannel(receivingCID: dcid, sent: sent) {
                if sent { connection.channels[channel].localMTU = mtu } else { connection.channels[channel].remoteMTU = mtu }
            }
        case 0x07: // Disconnection Response
            guard let dcid = layer.integer(L2CAPFields.dcid), let scid = layer.integer(L2CAPFields.scid) else { return }
            let local = sent ? dcid : scid
            if let channel = connection.openChannel(receivingCID: local, sent: false) {
                connection.channels[channel].closedFrame = frame.number
            }
        case 0x12: // Connection Parameter Update Request
            var items: [ReportItem] = []
            if let min = layer.integer(L2CAPFields.intervalMin), let max = layer.integer(L2CAPFields.intervalMax) {
                items.append(ReportItem("interval_min", .milliseconds(Double(min) * 1.25)))
                items.append(ReportItem("interval_max", .milliseconds(Double(max) * 1.25)))
            }
            if let latency = layer.integer(L2CAPFields.latency) { items.append(ReportItem("latency", .count(latency))) }
            if let timeout = layer.integer(L2CAPFields.timeout) { items.append(ReportItem("supervision_timeout", .milliseconds(Double(timeout) * 10))) }
            let event = ParameterEvent(frame: frame.number, time: frame.timestamp,
                                       event: "Connection Parameter Update Request (\(sent ? "local" : "peer"))", values: items)
            parameterRequests[requestKey] = event
            connection.timeline.append(event)
        case 0x13: // Connection Parameter Update Response
            guard parameterRequests.removeValue(forKey: answerKey) != nil else { return }
            connection.record(packet, "Connection Parameter Update Response", [ReportItem("result", .text(result == 0 ? "accepted" : "rejected"))],
                              failure: result == 0 ? nil : "rejected by the \(sent ? "local host" : "peer")")
        default: break
        }
    }

    /// A K-frame on a credit-based channel uses one of its sender's credits.
    static func useCredit(_ connection: inout ConnectionReport, cid: Int, sent: Bool, frame: Int) {
        guard let channel = connection.openChannel(receivingCID: cid, sent: sent), connection.channels[channel].isCreditBased else { return }
        var c = connection.channels[channel]
        let left = sent ? c.localSendCredits : c.remoteSendCredits
        if left <= 0 {
            c.creditViolations.append(frame)
        } else if left == 1 {
            if sent { c.localCreditsExhausted += 1 } else { c.remoteCreditsExhausted += 1 }
            if c.firstExhaustedFrame == nil { c.firstExhaustedFrame = frame }
        }
        if sent { c.localSendCredits = max(0, left - 1) } else { c.remoteSendCredits = max(0, left - 1) }
        connection.channels[channel] = c
    }

    /// A link ends: its channels close with it, its requests go unanswered.
    mutating func close(_ key: LinkKey, _ connection: inout ConnectionReport) {
        for channel in connection.channels.indices where connection.channels[channel].closedFrame == nil {
            connection.channels[channel].closedFrame = connection.endFrame
        }
        channelRequests = channelRequests.filter { $0.key.link != key }
        parameterRequests = parameterRequests.filter { $0.key.link != key }
    }
}
