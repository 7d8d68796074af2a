/// AVDTP signaling (AVDTP 1.3) and the A2DP codec information elements (A2DP 1.4), named as
/// tshark's btavdtp.* where both have one.
public enum AVDTPFields {
    static let f = FieldDefinition.maker("avdtp")
    public static let transaction = f("transaction", "Transaction Label", .uint8, "Matches a response to its command")
    public static let packetType = f("packet_type", "Packet Type", .uint8, "0 single, 1 start, 2 continue, 3 end")
    public static let messageType = f("message_type", "Message Type", .uint8, "0 command, 1 general reject, 2 response accept, 3 response reject")
    public static let signal = f("signal", "Signal", .uint8, "Signal identifier: 0x01 Discover ... 0x0C Get All Capabilities, 0x0D Delay Report")
    public static let signalPackets = f("signal_packets", "Number of Signal Packets", .uint8, "Packets a fragmented signal spans")
    public static let errorCode = f("error_code", "Error Code", .uint8, "AVDTP or A2DP error of a reject")
    public static let seid = f("seid", "ACP SEID", .uint8, "Stream endpoint the signal is about (or a discovered one)")
    public static let intSEID = f("int_seid", "INT SEID", .uint8, "The initiator's stream endpoint (Set Configuration)")
    public static let inUse = f("in_use", "In Use", .bool, "Discover: the endpoint is in use")
    public static let mediaType = f("media_type", "Media Type", .uint8, "0 audio, 1 video, 2 multimedia")
    public static let tsep = f("tsep", "TSEP", .uint8, "Endpoint type: 0 source, 1 sink")
    public static let category = f("category", "Service Category", .uint8, "0x01 Media Transport ... 0x07 Media Codec, 0x08 Delay Reporting")
    public static let codec = f("codec", "Media Codec", .uint8, "0x00 SBC, 0x01 MPEG-1,2 Audio, 0x02 MPEG-2,4 AAC, 0x03 MPEG-D USAC, 0x04 ATRAC, 0xFF vendor")
    public static let vendorID = f("vendor_id", "Vendor ID", .uint32, "Vendor codec: the company identifier")
    public static let vendorCodec = f("vendor_codec", "Vendor Codec ID", .uint16, "Vendor codec: the vendor's codec number")
    public static let codecInfo = f("codec_info", "Codec Information", .bytes, "The codec's information element as sent")
    public static let contentProtection = f("content_protection", "Content Protection Type", .uint16, "0x0001 DTCP, 0x0002 SCMS-T")
    public static let delay = f("delay", "Delay", .uint16, "Delay report, in 1/10 ms")
    public static let samplingFrequencies = f("sampling", "Sampling Frequencies", .string, "The sampling frequencies offered or chosen")
    public static let channelModes = f("channel_mode", "Channel Modes", .string, "The channel modes offered or chosen")
    public static let sbcBlockLengths = f("sbc.block_length", "Block Lengths", .string, "SBC block lengths offered or chosen")
    public static let sbcSubbands = f("sbc.subbands", "Subbands", .string, "SBC subbands offered or chosen")
    public static let sbcAllocation = f("sbc.allocation", "Allocation Method", .string, "SBC allocation: SNR, Loudness")
    public static let sbcMinBitpool = f("sbc.min_bitpool", "Minimum Bitpool", .uint8, "SBC minimum bitpool")
    public static let sbcMaxBitpool = f("sbc.max_bitpool", "Maximum Bitpool", .uint8, "SBC maximum bitpool")
    public static let aacObjectTypes = f("aac.object_type", "Object Types", .string, "AAC object types offered or chosen")
    public static let aacVBR = f("aac.vbr", "VBR", .bool, "AAC/MPEG variable bit rate")
    public static let aacBitrate = f("aac.bitrate", "Bit Rate", .uint32, "AAC bit rate in bit/s (0: not specified)")
    public static let mpegLayers = f("mpeg.layer", "Layers", .string, "MPEG-1,2 Audio layers offered or chosen")

    public static let all = [transaction, packetType, messageType, signal, signalPackets, errorCode, seid, intSEID, inUse, mediaType,
                             tsep, category, codec, vendorID, vendorCodec, codecInfo, contentProtection, delay, samplingFrequencies,
                             channelModes, sbcBlockLengths, sbcSubbands, sbcAllocation, sbcMinBitpool, sbcMaxBitpool, aacObjectTypes,
                             aacVBR, aacBitrate, mpegLayers]
}

extension AVDTPFields {
    public static let conversation = ConversationDescription("AVDTP", rank: 6, operations: [signal], qualifier: messageType, ignored: [
        transaction, packetType, signalPackets, seid, intSEID,
    ], values: [delay])
}
