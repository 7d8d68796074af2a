public enum L2CAPFields {
    static let f = FieldDefinition.maker("l2cap")
    public static let length = f("length", "Length", .uint16, "L2CAP PDU payload length from the basic header")
    public static let cid = f("cid", "Channel ID", .uint16, "Destination channel ID of the PDU")
    public static let psm = f("psm", "PSM", .uint16, "Protocol/service multiplexer of the channel (requests and data on a known channel)")
    public static let channelProtocol = f("protocol", "Protocol", .string, "Protocol carried by the channel, from its PSM or fixed CID")
    public static let fragment = f("fragment", "Fragment", .uint16, "Fragment number of an L2CAP PDU still being reassembled, from 1")
    public static let fragmentCount = f("fragments", "Reassembled From", .uint16, "Number of ACL fragments the PDU was reassembled from")
    public static let payload = f("payload", "Payload", .bytes, "Payload not decoded further")
    public static let code = f("code", "Command Code", .uint8, "Signaling command code")
    public static let ident = f("ident", "Identifier", .uint8, "Signaling identifier matching a request to its response")
    public static let commandLength = f("cmd_length", "Command Length", .uint16, "Signaling command data length")
    public static let scid = f("scid", "Source CID", .uint16, "Source channel ID in a signaling command")
    public static let dcid = f("dcid", "Destination CID", .uint16, "Destination channel ID in a signaling command")
    public static let result = f("result", "Result", .uint16, "Result of a connection, configuration or update response")
    public static let status = f("status", "Status", .uint16, "Status of a pending connection response")
    public static let rejectReason = f("reject_reason", "Reason", .uint16, "Command Reject reason")
    public static let flags = f("flags", "Flags", .uint16, "Configuration continuation flags")
    public static let option = f("option", "Option", .uint8, "Configuration option type (bit 7: hint)")
    public static let mtu = f("mtu", "MTU", .uint16, "Maximum transmission unit")
    public static let mps = f("mps", "MPS", .uint16, "Maximum PDU payload size of a credit-based channel")
    public static let credits = f("credits", "Credits", .uint16, "Credits given to the peer")
    public static let flushTimeout = f("flush_timeout", "Flush Timeout", .uint16, "Flush timeout option in ms")
    public static let mode = f("mode", "Mode", .uint8, "Channel mode: 0 basic, 1 retransmission, 2 flow control, 3 enhanced retransmission, 4 streaming")
    public static let txWindow = f("tx_window", "TxWindow Size", .uint8, "Transmit window of the retransmission option")
    public static let maxTransmit = f("max_transmit", "Max Transmit", .uint8, "Maximum transmissions of an I-frame")
    public static let retransmissionTimeout = f("retransmission_timeout", "Retransmission Timeout", .uint16, "Retransmission time-out in ms")
    public static let monitorTimeout = f("monitor_timeout", "Monitor Timeout", .uint16, "Monitor time-out in ms")
    public static let fcs = f("fcs", "FCS", .uint8, "FCS option: 0 none, 1 16-bit FCS")
    public static let serviceType = f("service_type", "Service Type", .uint8, "QoS or extended flow spec service type")
    public static let tokenRate = f("token_rate", "Token Rate", .uint32, "QoS token rate in bytes/s")
    public static let peakBandwidth = f("peak_bandwidth", "Peak Bandwidth", .uint32, "QoS peak bandwidth in bytes/s")
    public static let flowSpecLatency = f("qos_latency", "Latency", .uint32, "QoS or flow spec latency in µs")
    public static let maxSDU = f("max_sdu", "Maximum SDU Size", .uint16, "Extended flow spec maximum SDU size")
    public static let windowSize = f("ext_window", "Extended Window Size", .uint16, "Extended window size option")
    public static let optionData = f("option_data", "Option Data", .bytes, "An option's value not decoded further")
    public static let infoType = f("info_type", "Info Type", .uint16, "Information request type: 1 connectionless MTU, 2 extended features, 3 fixed channels")
    public static let features = f("features", "Extended Features", .uint32, "Extended feature mask")
    public static let fixedChannels = f("fixed_channels", "Fixed Channels", .uint64, "Fixed channels supported, bit n for CID n")
    public static let intervalMin = f("interval_min", "Interval Min", .uint16, "Connection interval minimum in 1.25 ms units")
    public static let intervalMax = f("interval_max", "Interval Max", .uint16, "Connection interval maximum in 1.25 ms units")
    public static let latency = f("latency", "Peripheral Latency", .uint16, "Peripheral latency in connection events")
    public static let timeout = f("timeout", "Timeout Multiplier", .uint16, "Supervision timeout in 10 ms units")
    public static let controlField = f("control", "Control", .uint16, "Enhanced control field of an ERTM or streaming frame")
    public static let txSeq = f("txseq", "TxSeq", .uint8, "Send sequence number of an I-frame")
    public static let reqSeq = f("reqseq", "ReqSeq", .uint8, "Acknowledged sequence number")
    public static let sar = f("sar", "SAR", .uint8, "Segmentation and reassembly: 0 unsegmented, 1 start, 2 end, 3 continuation")
    public static let supervisory = f("s", "Supervisory Function", .uint8, "S-frame function: 0 RR, 1 REJ, 2 RNR, 3 SREJ")
    public static let sduLength = f("sdu_length", "SDU Length", .uint16, "Length of the SDU that starts in this frame")
    public static let fcsValue = f("fcs_value", "FCS", .uint16, "Frame check sequence")
    public static let data = f("data", "Data", .bytes, "Echo data or a rejected command's data")

    public static let all = [length, cid, psm, channelProtocol, fragment, fragmentCount, payload, code, ident, commandLength,
                             scid, dcid, result, status, rejectReason, flags, option, mtu, mps, credits, flushTimeout, mode,
                             txWindow, maxTransmit, retransmissionTimeout, monitorTimeout, fcs, serviceType, tokenRate,
                             peakBandwidth, flowSpecLatency, maxSDU, windowSize, optionData, infoType, features,
                             fixedChannels, intervalMin, intervalMax, latency, timeout, controlField, txSeq, reqSeq, sar,
                             supervisory, sduLength, fcsValue, data]
}

extension L2CAPFields {
    /// Signaling's steps, without identifiers and channel numbers; credits given as they are
    /// used (LE Flow Control Credit) are timing, not behaviour, and no step.
    public static let conversation = ConversationDescription("L2CAP", rank: 2, operations: [code], ignored: [
        length, cid, ident, commandLength, scid, dcid, fragment, fragmentCount, payload, channelProtocol, data,
    ], isStep: { layer in layer.integer(code) != Int(L2CAPSignaling.flowControlCreditIndication) })
}
