import BTCapture

/// Turns Frames into Packets, in capture order, keeping the Session between them.
public final class Decoder {
    public var session: Session

    public init(options: DecodeOptions = DecodeOptions()) {
        session = Session(options: options)
    }

    public var options: DecodeOptions { session.options }

    public func decode(_ frame: Frame) -> Packet {
        var packet = Packet(frame: frame, buildsDisplayText: session.options.buildsDisplayText, keptFields: session.options.keptFields)
        decodeLayers(into: &packet)
        return packet
    }

    /// A packet holding nothing yet, with this decoder's options: storage for `decode(_:into:)`.
    public func blankPacket() -> Packet {
        Packet(frame: Frame(timestamp: 0, kind: .note, direction: .none, bytes: []), buildsDisplayText: session.options.buildsDisplayText,
               keptFields: session.options.keptFields)
    }

    /// Decodes `frame` into `packet`, replacing what it held but reusing its storage: the packet
    /// loop decodes a whole capture into one Packet this way. The packet keeps the fields and
    /// display text it was made with (`blankPacket`), or last given by the call below.
    public func decode(_ frame: consuming Frame, into packet: inout Packet) {
        packet.reset(for: consume frame)
        decodeLayers(into: &packet)
    }

    /// `decode(_:into:)` keeping other fields than the options say, and display text or not:
    /// for a packet the stages know they will drop (`PacketStage.foresight`), only what the
    /// stages read, and no summary. Its issues and the Session it leaves are the same.
    public func decode(_ frame: consuming Frame, into packet: inout Packet, keeping fields: FieldMask, buildsDisplayText: Bool) {
        packet.keptFields = fields
        packet.buildsDisplayText = buildsDisplayText
        packet.reset(for: consume frame)
        decodeLayers(into: &packet)
    }

    private func decodeLayers(into packet: inout Packet) {
        defer {
            // A resolvable private address a known key resolves: the device behind it.
            if !session.privateAddresses.isEmpty, let peer = packet.peer, let identity = session.privateAddresses.resolve(peer) {
                packet.peerIdentity = PrivateAddresses.Resolved(address: identity.address, keyFrame: identity.frame)
            }
        }
        var cursor = ByteCursor(packet.frame.bytes)
        do {
            switch packet.frame.kind {
            case .command: try HCICommandDecoder.decode(&cursor, into: &packet, session: &session)
            case .event: try HCIEventDecoder.decode(&cursor, into: &packet, session: &session)
            case .aclData: try DataDecoder.decodeACL(&cursor, into: &packet, session: &session)
            case .scoData: try DataDecoder.decodeSCO(&cursor, into: &packet, session: &session)
            case .isoData: try DataDecoder.decodeISO(&cursor, into: &packet, session: &session)
            case .air(.bredrBB): try BasebandDecoder.decode(&cursor, into: &packet, session: &session)
            case .air(let type): try LinkLayerDecoder.decode(&cursor, type: type, into: &packet, session: &session)
            default: try SystemDecoder.decode(&cursor, into: &packet, session: &session)
            }
        } catch DecodeError.truncated(let needed, let available, let at) {
            if packet.layers.isEmpty {
                packet.append(packet.makeLayer(SystemDecoder.layerKind(packet.frame.kind), summary: "Malformed", range: 0 ..< packet.frame.bytes.count))
            }
            packet.addIssue(.error, "Truncated: needed \(needed) bytes at offset \(at), \(available) left")
        } catch DecodeError.malformed(let message) {
            packet.addIssue(.error, message)
        } catch {
            packet.addIssue(.error, "\(error)")
        }
        if packet.frame.isTruncated {
            packet.addIssue(.warning, "Captured \(packet.frame.bytes.count) of \(packet.frame.originalLength) bytes")
        }
        packet.noteIssuesOfOpenedLayers()
    }

    /// The end of the capture: what was still open (PDUs being reassembled, requests never
    /// answered), reported against the packets that opened it.
    public func finish() -> [SessionReport] { session.finish() }
}
