import BTCapture
import BTDecode

/// The same L2CAP PDUs as `PDUFingerprinter` finds in a host's log, found in a sniffer's
/// capture, and the link's events as the air carries them (`LinkEvent`: CONNECT_IND,
/// LL_ENC_REQ, LL_TERMINATE_IND). The air needs more than headers: who sent a packet (a
/// sniffer without a direction flag leaves it to the connection event's rhythm), which packets
/// are copies sent again, and the plaintext where a key is known. So the link layer is decoded
/// here, by the decoder that decodes it for display, keeping only the fields read below and no
/// display text; the L2CAP PDU it completes is hashed as a host's is. Air captures are small
/// beside host logs: the second decoding costs little.
public struct AirPDUFingerprinter {
    /// A PDU (or link event) the air carried whole (after reassembly and, where a key is
    /// known, decryption).
    public struct PDU {
        public var fingerprint: PDUFingerprint
        /// The link's number, as the decoder gives it (the packet's handle).
        public var link: UInt16
        public var accessAddress: UInt32?
        /// The central sent it (false: the peripheral; nil: the sniffer could not tell).
        public var fromCentral: Bool?
        /// A link's event rather than a PDU.
        public var event: LinkEvent?
    }

    private let decoder: Decoder
    private var packet: Packet

    static let fieldsRead: [FieldDefinition] = [
        LinkLayerFields.accessAddress, LinkLayerFields.pduType, LinkLayerFields.advertisingAddress, LinkLayerFields.initiatorAddress,
        LinkLayerFields.connAccessAddress, LinkLayerFields.interval, LinkLayerFields.latency, LinkLayerFields.timeout,
        LinkLayerFields.controlOpcode, LinkLayerFields.randomNumber, LinkLayerFields.ediv, LinkLayerFields.errorCode,
    ]

    public init(options: DecodeOptions = DecodeOptions()) {
        var options = options
        options.buildsDisplayText = false
        options.keptFields = .only(Self.fieldsRead)
        decoder = Decoder(options: options)
        packet = decoder.blankPacket()
    }

    /// The identity resolving keys the air's SMP distributed, as its decoder learnt them.
    var identityKeys: KeysAhead {
        KeysAhead(identityKeys: decoder.session.privateAddresses.identities.map { .init(irk: $0.irk, address: $0.address) })
    }

    /// Each PDU or link event the frame completes (a CONNECT_IND is two: the connection as
    /// the central's host names its peer, and as the peripheral's does).
    public mutating func feed(_ frame: Frame, _ body: (PDU) -> Void) {
        guard frame.kind.isAir else { return }
        decoder.decode(frame, into: &packet)
        guard let link = packet.handle else { return }
        let direction = packet.frame.direction
        let fromCentral: Bool? = direction == .none ? nil : direction == .sent
        func integer(_ field: FieldDefinition) -> Int? { packet.value(of: field)?.integer }
        let accessAddress = integer(LinkLayerFields.accessAddress).map { UInt32(truncatingIfNeeded: $0) }
        func emit(_ fingerprint: PDUFingerprint, accessAddress: UInt32? = accessAddress, event: LinkEvent? = nil) {
            body(PDU(fingerprint: fingerprint, link: link, accessAddress: accessAddress, fromCentral: fromCentral, event: event))
        }
        if let index = packet.layers.lastIndex(where: { $0.kind == .l2cap }) {
            // Only a PDU the L2CAP decoder found whole: a fragment's layer, or one it could not
            // read, has fewer bytes than its header's length says.
            guard let bytes = packet.bytes(of: packet.layers[index]), let declared = try? ByteCursor(bytes).peekU16(),
                  Int(declared) + 4 == bytes.count else { return }
            emit(PDUFingerprint(value: PDUFingerprinter.finish(PDUFingerprinter.mix(PDUFingerprinter.seed, bytes))))
            return
        }
        if let opcode = integer(LinkLayerFields.controlOpcode) {
            switch opcode {
            case 0x03:   // LL_ENC_REQ
                guard let rand = integer(LinkLayerFields.randomNumber), let ediv = integer(LinkLayerFields.ediv) else { return }
                emit(LinkEvent.encryption(rand: UInt64(truncatingIfNeeded: rand), ediv: UInt16(truncatingIfNeeded: ediv)), event: .encryption)
            case 0x02:   // LL_TERMINATE_IND
                guard let reason = integer(LinkLayerFields.errorCode) else { return }
                emit(LinkEvent.termination(reason: UInt8(truncatingIfNeeded: reason)), event: .termination)
            default:
                break
            }
            return
        }
        // CONNECT_IND (and AUX_CONNECT_REQ, the same layout): the new link's, as each host names
        // its peer (the central the advertiser, the peripheral the initiator).
        guard integer(LinkLayerFields.pduType) == 5,
              case .address(let advertiser)? = packet.value(of: LinkLayerFields.advertisingAddress),
              case .address(let initiator)? = packet.value(of: LinkLayerFields.initiatorAddress),
              let interval = integer(LinkLayerFields.interval), let latency = integer(LinkLayerFields.latency),
              let timeout = integer(LinkLayerFields.timeout) else { return }
        let newAddress = integer(LinkLayerFields.connAccessAddress).map { UInt32(truncatingIfNeeded: $0) }
        for peer in [advertiser, initiator] {
            emit(LinkEvent.connection(peer: peer, interval: UInt16(truncatingIfNeeded: interval), latency: UInt16(truncatingIfNeeded: latency),
                                      timeout: UInt16(truncatingIfNeeded: timeout)), accessAddress: newAddress, event: .connection)
        }
    }
}
