import BTCapture
import BTDecode
import BTQuery

/// Reading one layer's values by definition, as the statistics and the diagnosis do: the first
/// occurrence, as the type the code needs. (The filter language and export read every
/// occurrence through `Packet.forEachValue`.)
extension Layer {
    func value(_ field: FieldDefinition) -> FieldValue? {
        for index in fields.indices where fields[index].definition == field { return fields[index].value }
        return nil
    }

    /// An integer field's value (an unsigned, signed or boolean field).
    func integer(_ field: FieldDefinition) -> Int? {
        switch value(field) {
        case .unsigned(let v, _)?: return Int(truncatingIfNeeded: v)
        case .signed(let v)?: return Int(v)
        case .bool(let v)?: return v ? 1 : 0
        default: return nil
        }
    }

    func address(_ field: FieldDefinition) -> BDAddr? {
        if case .address(let a)? = value(field) { return a }
        return nil
    }

    func text(_ field: FieldDefinition) -> String? {
        if case .text(let s)? = value(field) { return s }
        return nil
    }

    func uuid(_ field: FieldDefinition) -> BTUUID? {
        if case .uuid(let u)? = value(field) { return u }
        return nil
    }

    /// The length of a byte-string field (0 when absent).
    func byteCount(_ field: FieldDefinition) -> Int {
        var total = 0
        for index in fields.indices where fields[index].definition == field { total += fields[index].value.byteCount }
        return total
    }

    /// Every value of an integer field, in order (the CIDs of an enhanced credit-based request).
    func integers(_ field: FieldDefinition) -> [Int] {
        fields.compactMap { field == $0.definition ? $0.value.integer : nil }
    }
}

extension FieldValue {
    var integer: Int? {
        switch self {
        case .unsigned(let v, _): return Int(truncatingIfNeeded: v)
        case .signed(let v): return Int(v)
        case .bool(let v): return v ? 1 : 0
        default: return nil
        }
    }
}

/// The registry's definitions the statistics read, looked up once by name (the names are the
/// same ones filters and export use).
enum StatisticsFields {
    static func field(_ name: String) -> FieldDefinition {
        guard let field = FieldRegistry.lookup(name) else { preconditionFailure("statistics read an unregistered field \(name)") }
        return field
    }
    static let event = field("hci.event"), subevent = field("hci.subevent"), status = field("hci.status")
    static let opcode = field("hci.opcode"), commandOpcode = field("hci.event_opcode")
    static let handle = field("hci.handle"), address = field("hci.address"), addressType = field("hci.address_type")
    static let role = field("hci.role"), newRole = field("hci.new_role"), linkType = field("hci.link_type")
    static let reason = field("hci.reason"), encryption = field("hci.encryption"), keySize = field("hci.key_size")
    static let interval = field("hci.interval"), latency = field("hci.latency"), timeout = field("hci.supervision_timeout")
    static let txPHY = field("hci.tx_phy"), rxPHY = field("hci.rx_phy")
    static let maxTxOctets = field("hci.max_tx_octets"), maxTxTime = field("hci.max_tx_time")
    static let maxRxOctets = field("hci.max_rx_octets"), maxRxTime = field("hci.max_rx_time")
    static let currentMode = field("hci.current_mode"), hardwareCode = field("hci.hardware_code")
    static let remoteName = field("hci.remote_name"), name = field("hci.name"), rssi = field("hci.rssi")
    static let subrateFactor = field("hci.subrate_factor"), peripheralLatency = field("hci.peripheral_latency")
    static let intervalMin = field("hci.interval_min"), intervalMax = field("hci.interval_max")
    static let aclLength = field("acl.length")
    static let btlePDUType = field("btle.advertising_header.pdu_type"), btleAdvAddress = field("btle.advertising_address")
    static let btleTxAdd = field("btle.advertising_header.randomized_tx"), btleRxAdd = field("btle.advertising_header.randomized_rx")
    static let btleRSSI = field("btle.rssi"), btleCRCOK = field("btle.crc_ok"), btleRetransmission = field("btle.retransmission")
    static let btleInterval = field("btle.link_layer_data.interval"), btleLatency = field("btle.link_layer_data.latency")
    static let btleTimeout = field("btle.link_layer_data.timeout"), btleDataLength = field("btle.data_header.length")
    static let btleControlOpcode = field("btle.control_opcode"), btleErrorCode = field("btle.control.error_code")
    static let btleUpdateInterval = field("btle.control.interval"), btleUpdateLatency = field("btle.control.latency")
    static let btleUpdateTimeout = field("btle.control.timeout"), btleInstant = field("btle.control.instant")
    static let btleMaxRxOctets = field("btle.control.max_rx_octets"), btleMaxTxOctets = field("btle.control.max_tx_octets")
    static let btlePHYCToP = field("btle.control.m_to_s_phy"), btlePHYPToC = field("btle.control.s_to_m_phy")
    static let btleMICOK = field("btle.mic_ok"), btleEncryptedPayload = field("btle.encrypted_payload")
    static let btleKeySource = field("btle.key_source"), btleSecureConnections = field("btle.le_secure_connections")
    static let btleCIE = field("btle.data_header.close_isochronous_event"), btleRejectOpcode = field("btle.control.reject_opcode")
    static let btleUnknownType = field("btle.control.unknown_type")
    static let basebandCRCOK = field("btbredr_rf.crc_ok")
    static let advEventType = field("adv.event_type"), advAddress = field("adv.address"), advAddressType = field("adv.address_type")
    static let advRSSI = field("adv.rssi"), advName = field("adv.name")
    static let l2capCID = field("l2cap.cid"), l2capLength = field("l2cap.length"), l2capPayload = field("l2cap.payload")
    static let l2capFragment = field("l2cap.fragment")
    static let l2capCode = field("l2cap.code"), l2capIdent = field("l2cap.ident"), l2capResult = field("l2cap.result")
    static let l2capPSM = field("l2cap.psm"), l2capSCID = field("l2cap.scid"), l2capDCID = field("l2cap.dcid")
    static let l2capMTU = field("l2cap.mtu"), l2capMPS = field("l2cap.mps"), l2capCredits = field("l2cap.credits")
    static let l2capIntervalMin = field("l2cap.interval_min"), l2capIntervalMax = field("l2cap.interval_max")
    static let l2capLatency = field("l2cap.latency"), l2capTimeout = field("l2cap.timeout")
    static let l2capRejectReason = field("l2cap.reject_reason")
    static let attOpcode = field("att.opcode"), attHandle = field("att.handle"), attError = field("att.error")
    static let attRequestOpcode = field("att.request_opcode"), attMTU = field("att.mtu"), attValue = field("att.value")
    static let attName = field("att.name"), attRequestIn = field("att.request_in")
    static let gattCharacteristic = field("gatt.characteristic")
    static let smpCode = field("smp.code"), smpReason = field("smp.reason")
    static let avdtpSignal = field("avdtp.signal"), avdtpMessageType = field("avdtp.message_type")
    static let avdtpCodec = field("avdtp.codec"), avdtpSampling = field("avdtp.sampling")
    static let avdtpChannelMode = field("avdtp.channel_mode"), avdtpErrorCode = field("avdtp.error_code")
    static let avdtpMinBitpool = field("avdtp.sbc.min_bitpool"), avdtpMaxBitpool = field("avdtp.sbc.max_bitpool")
    static let avdtpVendorCodec = field("avdtp.vendor_codec"), avdtpVendorID = field("avdtp.vendor_id")
    static let rtpSequence = field("rtp.sequence"), rtpLost = field("rtp.lost"), rtpPayload = field("rtp.payload")
    static let sbcBitpool = field("sbc.bitpool"), sbcBitrate = field("sbc.bitrate"), sbcSampling = field("sbc.sampling")
    static let sbcChannelMode = field("sbc.channel_mode")
    static let scoHandle = field("sco.handle"), scoStatus = field("sco.status"), scoLength = field("sco.length"), scoCodec = field("sco.codec")
    static let isoHandle = field("iso.handle"), isoSequence = field("iso.sequence"), isoStatus = field("iso.status")
    static let isoLength = field("iso.length"), isoPB = field("iso.pb")
}
