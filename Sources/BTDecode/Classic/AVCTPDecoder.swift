import BTCapture

/// AVCTP's fields (AVCTP 1.4, 6.1), named as tshark's btavctp.*.
public enum AVCTPFields {
    static let f = FieldDefinition.maker("avctp")
    public static let transaction = f("transaction", "Transaction Label", .uint8, "Matches a response to its command")
    public static let packetType = f("packet_type", "Packet Type", .uint8, "0 single, 1 start, 2 continue, 3 end")
    public static let cr = f("cr", "C/R", .uint8, "0 command, 1 response")
    public static let ipid = f("ipid", "IPID", .bool, "Set in a response: the profile identifier was not valid")
    public static let pid = f("pid", "Profile Identifier", .uint16, "Service class of the profile carried: 0x110E A/V Remote Control")
    public static let packets = f("nop", "Number of Packets", .uint8, "Packets a fragmented message spans (start packet)")
    public static let payload = f("payload", "Payload", .bytes, "A message for a profile btlog does not decode")

    public static let all = [transaction, packetType, cr, ipid, pid, packets, payload]
}

/// Per link: AVCTP messages arriving in fragments, and AVRCP responses the target sends in
/// parts (AVRCP 1.6, 6.8) until the last one arrives.
public struct AVCTPState: ProtocolState {
    public static var slot: Int { StateSlot.avctp.rawValue }

    struct FlowKey: WordKey {
        var link: Session.LinkKey
        var sent: Bool
        var browsing: Bool

        var hashWord: UInt64 { UInt64(link.packed) << 2 | (sent ? 2 : 0) | (browsing ? 1 : 0) }
    }

    struct Fragmented {
        var pid: UInt16
        var bytes: [UInt8]
        var firstFrame: Int
        var packets: Int
    }

    /// An AVRCP vendor-dependent response arriving in parts: its PDU and the parameters so far.
    struct AVRCPParts {
        var pdu: UInt8
        var bytes: [UInt8]
        var firstFrame: Int
        var parts: Int
    }

    var fragments: [FlowKey: Fragmented] = [:]
    var avrcpParts: [FlowKey: AVRCPParts] = [:]
    /// A message or AVRCP response is at most a few kilobytes; more is not one.
    static let maximumMessage = 1 << 16

    public init() {}

    public mutating func close(_ link: Session.LinkKey) -> [String] {
        fragments = fragments.filter { $0.key.link != link }
        avrcpParts = avrcpParts.filter { $0.key.link != link }
        return []
    }

    public mutating func finish() -> [SessionReport] { [] }
}

extension Session {
    public var avctp: AVCTPState { _read { yield self[AVCTPState.self] } _modify { yield &self[AVCTPState.self] } }
}

/// What AVCTP hands the profile above it: where the message travels and how it was framed.
struct AVCTPContext {
    var l2cap: L2CAPContext
    var browsing: Bool
    var isResponse: Bool
    var transaction: UInt8
}

/// AVCTP (PSM 0x0017 control, 0x001B browsing): the header, messages fragmented over several
/// L2CAP packets joined, and the message handed to AVRCP when the profile is A/V Remote Control.
enum AVCTPDecoder {
    static let descriptor = ProtocolDescriptor(name: "AVCTP", fields: AVCTPFields.all, layers: [.avctp], state: AVCTPState.self,
                                               registrations: [.psm(0x0017, "AVCTP", decode), .psm(0x001B, "AVCTP Browsing", decode)])

    static let packetTypes = ["Single", "Start", "Continue", "End"]
    static let remoteControl: UInt16 = 0x110E

    static func decode(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session, context: L2CAPContext) throws {
        let browsing = context.channel?.psm == 0x001B
        var layer = packet.makeLayer(.avctp, over: c, showsDirection: true)
        let (header, headerAt) = try layer.reading(&c) { try $0.u8() }
        let transaction = header >> 4, packetType = header >> 2 & 0x03, isResponse = header & 0x02 != 0, invalidPID = header & 0x01 != 0
        layer.add(AVCTPFields.transaction, .count(Int(transaction)), at: headerAt)
        layer.add(AVCTPFields.packetType, .count(Int(packetType)), packetTypes[Int(packetType)], at: headerAt)
        layer.add(AVCTPFields.cr, .count(isResponse ? 1 : 0), isResponse ? "Response" : "Command", at: headerAt)
        layer.add(AVCTPFields.ipid, .bool(invalidPID), at: headerAt)
        let flow = AVCTPState.FlowKey(link: context.link, sent: context.sent, browsing: browsing)
        let kind = isResponse ? "Response" : "Command"

        var pid: UInt16
        var message: ByteCursor
        switch packetType {
        case 0:
            pid = try layer.read(AVCTPFields.pid, &c, as: UInt16.self, .bigEndian, named: pidName)
            message = c
            layer.summary.set("\(kind) - \(pidName(pid))")
        case 1:
            let count = Int(try layer.readCount(AVCTPFields.packets, &c, as: UInt8.self))
            pid = try layer.read(AVCTPFields.pid, &c, as: UInt16.self, .bigEndian, named: pidName)
            session.avctp.fragments[flow] = .init(pid: pid, bytes: Array(c.rest()), firstFrame: packet.frame.number,
                                                  packets: count)
            layer.summary.set("\(kind) - \(pidName(pid)) - fragment 1 of \(count)")
            packet.append(taking: &layer)
            return
        default:
            guard var pending = session.avctp.fragments.removeValue(forKey: flow) else {
                layer.summary.set("\(packetTypes[Int(packetType)]) packet without a start")
                layer.addIssue(.warning, "AVCTP \(packetTypes[Int(packetType)].lowercased()) packet without a start packet")
                packet.append(taking: &layer)
                return
            }
            pending.bytes += c.rest()
            pid = pending.pid
            layer.add(AVCTPFields.pid, .u16(pid), named: pidName(pid))
            guard pending.bytes.count <= AVCTPState.maximumMessage else {
                layer.summary.set("\(kind) - fragments dropped")
                layer.addIssue(.error, "AVCTP message started in packet \(pending.firstFrame) grew past \(AVCTPState.maximumMessage) bytes: dropped")
                packet.append(taking: &layer)
                return
            }
            if packetType == 2 {
                session.avctp.fragments[flow] = pending
                layer.summary.set("\(kind) - \(pidName(pid)) - continued (started in packet \(pending.firstFrame))")
                packet.append(taking: &layer)
                return
            }
            packet.reassembledPDU = pending.bytes[...]
            message = ByteCursor(pending.bytes[...])
            layer.summary.set("\(kind) - \(pidName(pid)) - joined from \(pending.packets) packets")
        }
        if invalidPID { layer.addIssue(.warning, "The target does not support profile \(pidName(pid)) (IPID set)") }
        guard let profile = DissectorTables.avctpProfiles[pid], !invalidPID else {
            // A message joined from several packets is its own buffer, not this layer's bytes.
            if !message.isAtEnd {
                let rest = message.rest()
                layer.add(AVCTPFields.payload, .bytes(rest), at: packet.reassembledPDU == nil ? layer.range(at: rest.startIndex, count: rest.count) : nil)
            }
            packet.append(taking: &layer)
            return
        }
        packet.append(taking: &layer)
        let avctp = AVCTPContext(l2cap: context, browsing: browsing, isResponse: isResponse, transaction: transaction)
        try profile(&message, &packet, &session, avctp)
    }

    static func pidName(_ pid: UInt16) -> String {
        SDPNames.serviceClasses[pid] ?? "Profile \(Hex.u16(pid))"
    }
}

/// The layers this decoder makes.
extension LayerKind {
    public static let avctp = LayerKind("AVCTP", protocol: "avctp")
}
