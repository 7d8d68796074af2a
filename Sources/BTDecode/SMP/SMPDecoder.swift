import BTCapture

/// Pairing in progress per link: the two feature exchanges decide the method, named once the link is encrypted.
public struct SMPState: ProtocolState {
    public static var slot: Int { StateSlot.smp.rawValue }

    struct Pairing {
        var request: SMPDecoder.Features?
        var method: String?
    }
    var pairings: [Session.LinkKey: Pairing] = [:]
    /// LE legacy pairing's exchanged values by link, for the link layer of an air capture to
    /// find the STK; which way the request went tells the initiator's PDUs.
    var legacy: [Session.LinkKey: (pairing: LinkLayerEncryption.LegacyPairing, requestSent: Bool)] = [:]
    /// LTKs the capture saw distributed (Encryption Information, then Central Identification's
    /// EDIV and Rand), for an air capture's later encrypted link to find its key. The frame is
    /// Encryption Information's: the packet that shows the key.
    var distributedKeys = SharedLog<(ltk: [UInt8], ediv: UInt16, rand: UInt64, frame: Int)>()
    /// Encryption Information's key and packet, per link, until its Central Identification.
    var pendingLTK: [Session.LinkKey: (ltk: [UInt8], frame: Int)] = [:]
    /// Long-term keys a host gave its controller (LE Enable Encryption; LE Long Term Key
    /// Request Reply, with the Rand and EDIV of the request it answers), least significant
    /// octet first as HCI carries them: what an air capture of the same link, merged with
    /// this host's log, decrypts with (LE Secure Connections too: its EDIV and Rand are 0).
    /// Shared logs, not arrays: they grow with every reconnection (`SharedLog`).
    var hostKeys = SharedLog<(ltk: [UInt8], ediv: UInt16, rand: UInt64, frame: Int, command: String)>()
    /// LE Long Term Key Request events waiting for the host's reply, per link.
    var keyRequests: [Session.LinkKey: (rand: UInt64, ediv: UInt16)] = [:]
    /// Every key shown in plain text (SMP's, HCI's), for `btlog keys`.
    var revealed = RevealedKeys()
    /// The identity key each link's Identity Information gave, for the address that follows.
    var identityKeyOf: [Session.LinkKey: Int] = [:]

    public init() {}

    public mutating func close(_ link: Session.LinkKey) -> [String] {
        pairings[link] = nil
        legacy[link] = nil
        pendingLTK[link] = nil
        return []
    }

    public mutating func finish() -> [SessionReport] { [] }

    /// The method of a pairing that just completed (the link became encrypted), once.
    mutating func complete(_ link: Session.LinkKey) -> String? {
        pairings.removeValue(forKey: link)?.method
    }
}

extension Session {
    public var smp: SMPState { _read { yield self[SMPState.self] } _modify { yield &self[SMPState.self] } }
}

/// The Security Manager Protocol (Core Vol 3, Part H, 3) on CID 0x0006 and 0x0007.
enum SMPDecoder {
    static let descriptor = ProtocolDescriptor(name: "SMP", fields: SMPFields.all, layers: [.smp], state: SMPState.self,
                                               registrations: [.fixedChannel(0x0006, "SMP", decode), .fixedChannel(0x0007, "BR/EDR SMP", decode)],
                                               valueNames: [(SMPFields.code, FieldValueNames.from(codeNames)),
                                                            (SMPFields.reason, FieldValueNames.from(reasonNames)),
                                                            (SMPFields.ioCapability, FieldValueNames.from(ioNames))],
                                               secrets: [SMPFields.confirm, SMPFields.random, SMPFields.ltk, SMPFields.ediv, SMPFields.rand, SMPFields.irk,
                                                         SMPFields.csrk, SMPFields.publicKeyX, SMPFields.publicKeyY, SMPFields.dhkeyCheck].map(\.name),
                                               conversation: SMPFields.conversation)

    struct Features {
        var io: UInt8, oob: UInt8, authReq: UInt8
        var mitm: Bool { authReq & 0x04 != 0 }
        var secureConnections: Bool { authReq & 0x08 != 0 }
    }

    static let codeNames: [UInt8: String] = [
        0x01: "Pairing Request", 0x02: "Pairing Response", 0x03: "Pairing Confirm", 0x04: "Pairing Random",
        0x05: "Pairing Failed", 0x06: "Encryption Information", 0x07: "Central Identification",
        0x08: "Identity Information", 0x09: "Identity Address Information", 0x0A: "Signing Information",
        0x0B: "Security Request", 0x0C: "Pairing Public Key", 0x0D: "Pairing DHKey Check",
        0x0E: "Pairing Keypress Notification",
    ]
    static let ioNames: [UInt8: String] = [0: "DisplayOnly", 1: "DisplayYesNo", 2: "KeyboardOnly", 3: "NoInputNoOutput", 4: "KeyboardDisplay"]
    static let reasonNames: [UInt8: String] = [
        0x01: "Passkey Entry Failed", 0x02: "OOB Not Available", 0x03: "Authentication Requirements",
        0x04: "Confirm Value Failed", 0x05: "Pairing Not Supported", 0x06: "Encryption Key Size",
        0x07: "Command Not Supported", 0x08: "Unspecified Reason", 0x09: "Repeated Attempts",
        0x0A: "Invalid Parameters", 0x0B: "DHKey Check Failed", 0x0C: "Numeric Comparison Failed",
        0x0D: "BR/EDR Pairing In Progress", 0x0E: "Cross-transport Key Derivation/Generation Not Allowed",
        0x0F: "Key Rejected", 0x10: "Busy",
    ]
    static func codeName(_ code: UInt8) -> String { codeNames[code] ?? "Unknown Command \(Hex.u8(code))" }
    static func ioName(_ io: UInt8) -> String { ioNames[io] ?? "Reserved" }
    static func reasonName(_ reason: UInt8) -> String { reasonNames[reason] ?? "Reserved" }
    static func keypressName(_ type: UInt8) -> String { keypressNames[type] ?? "Reserved" }

    static let keypressNames: [UInt8: String] = [0: "Passkey Entry Started", 1: "Passkey Digit Entered", 2: "Passkey Digit Erased", 3: "Passkey Cleared", 4: "Passkey Entry Completed"]

    /// ", sent" or ", received" as a host logged it; nothing for a packet from the air.
    static func direction(_ context: L2CAPContext, _ packet: Packet) -> String {
        packet.frame.kind.isAir ? "" : context.sent ? ", sent" : ", received"
    }

    static func decode(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session, context: L2CAPContext) throws {
        var layer = packet.makeLayer(.smp, over: c, showsDirection: true)
        defer { packet.append(taking: &layer) }
        let pdu = c.bytes[c.index...]
        let code = try layer.read(SMPFields.code, &c, as: UInt8.self, named: codeName)
        let name = codeName(code)
        layer.summary.set("\(name)")
        if codeNames[code] == nil { layer.addIssue(.warning, "Unknown SMP code \(Hex.u8(code))") }
        let link = context.link
        switch code {
        case 0x01, 0x02:
            let io = try layer.read(SMPFields.ioCapability, &c, as: UInt8.self, named: ioName)
            let oob = try layer.read(SMPFields.oob, &c, as: UInt8.self, display: { $0 == 1 ? "OOB data present" : "OOB data not present" })
            let authReq = try c.u8()
            authReqFields(authReq, &layer, of: c)
            let features = Features(io: io, oob: oob, authReq: authReq)
            let keySize = try layer.read(SMPFields.maxKeySize, &c, as: UInt8.self, inDecimal: true)
            try layer.read(SMPFields.initiatorKeys, &c, as: UInt8.self, display: keyNames)
            try layer.read(SMPFields.responderKeys, &c, as: UInt8.self, display: keyNames)
            layer.summary += " - \(ioName(features.io)) - \(authReqSummary(features.authReq)) - Key Size: \(keySize)"
            if keySize < 7 || keySize > 16 { layer.addIssue(.warning, "Maximum key size \(keySize) is outside 7-16") }
            if features.io > 4 { layer.addIssue(.warning, "Reserved IO capability \(Hex.u8(features.io))") }
            if code == 0x01 {
                var legacy = LinkLayerEncryption.LegacyPairing()
                legacy.request = Array(pdu.prefix(7))
                session.smp.legacy[link] = (legacy, context.sent)
                session.smp.pairings[link] = SMPState.Pairing(request: features)
            } else if let request = session.smp.pairings[link]?.request {
                session.smp.legacy[link]?.pairing.response = Array(pdu.prefix(7))
                let method = pairingMethod(initiator: request, responder: features)
                session.smp.pairings[link]?.method = method
                layer.add(SMPFields.method, .text(method))
                layer.summary += " - Method: \(method)"
            }
        case 0x03:
            let value = try layer.read(SMPFields.confirm, &c, bytes: 16)
            if let requestSent = session.smp.legacy[link]?.requestSent {
                if context.sent == requestSent { session.smp.legacy[link]?.pairing.initiatorConfirm = Array(value) } else { session.smp.legacy[link]?.pairing.responderConfirm = Array(value) }
            }
        case 0x04:
            let value = try layer.read(SMPFields.random, &c, bytes: 16)
            if let requestSent = session.smp.legacy[link]?.requestSent {
                if context.sent == requestSent { session.smp.legacy[link]?.pairing.initiatorRandom = Array(value) } else { session.smp.legacy[link]?.pairing.responderRandom = Array(value) }
            }
        case 0x05:
            let reason = try layer.read(SMPFields.reason, &c, as: UInt8.self, named: reasonName)
            let reasonText = reasonName(reason)
            layer.summary += " - Reason: \(reasonText) (\(hex: reason))"
            layer.addIssue(.error, "Pairing failed: \(reasonText) (\(Hex.u8(reason)))")
            session.smp.pairings[link] = nil
        case 0x06:
            // Keys are quoted most significant octet first (crackle, --ltk, the Core
            // specification's sample data); the PDU carries them least significant first.
            let ltk = try layer.read(SMPFields.ltk, &c, bytes: 16, display: { "\(Hex.bytes($0)) (LTK \(Hex.bytes($0.reversed(), separator: "")))" })
            let quoted = Hex.bytes(ltk.reversed(), separator: "")
            layer.summary += " - LTK \(quoted)"
            session.smp.pendingLTK[link] = (Array(ltk), packet.frame.number)
        case 0x07:
            let ediv = try layer.read(SMPFields.ediv, &c, as: UInt16.self)
            let rand = try layer.read(SMPFields.rand, &c, as: UInt64.self)
            if let (ltk, frame) = session.smp.pendingLTK.removeValue(forKey: link) {
                session.smp.distributedKeys.append((ltk, ediv, rand, frame))
                session.smp.revealed.add(RevealedKey(kind: .ltk, key: ltk.reversed(), frame: frame, controller: link.controller,
                                                     handle: link.handle, address: packet.peer,
                                                     how: "SMP Encryption Information" + direction(context, packet), ediv: ediv, rand: rand))
            }
            layer.summary += " - EDIV: \(hex: ediv)"
        case 0x08:
            let irk = try layer.read(SMPFields.irk, &c, bytes: 16)
            session.smp.revealed.add(RevealedKey(kind: .irk, key: irk.reversed(), frame: packet.frame.number, controller: link.controller,
                                                 handle: link.handle, address: nil,
                                                 how: "SMP Identity Information" + direction(context, packet)))
            session.smp.identityKeyOf[link] = session.privateAddresses.learn(irk: irk.reversed(), frame: packet.frame.number)
        case 0x09:
            let type = try layer.read(SMPFields.addressType, &c, as: UInt8.self, display: { $0 == 0 ? "Public" : $0 == 1 ? "Static Random" : "Reserved" })
            let address = try layer.read(SMPFields.address, &c, as: BDAddr.self)
            session.smp.revealed.identify(irkOf: link.handle, controller: link.controller, as: address)
            if let index = session.smp.identityKeyOf.removeValue(forKey: link) { session.privateAddresses.identify(index, as: address) }
            layer.summary += " - \(type == 0 ? "Public" : "Static Random") - \(address)"
        case 0x0A:
            let csrk = try layer.read(SMPFields.csrk, &c, bytes: 16)
            session.smp.revealed.add(RevealedKey(kind: .csrk, key: csrk.reversed(), frame: packet.frame.number, controller: link.controller,
                                                 handle: link.handle, address: packet.peer,
                                                 how: "SMP Signing Information" + direction(context, packet)))
        case 0x0B:
            let authReq = try c.u8()
            authReqFields(authReq, &layer, of: c)
            layer.summary += " - \(authReqSummary(authReq))"
        case 0x0C:
            try layer.read(SMPFields.publicKeyX, &c, bytes: 32)
            try layer.read(SMPFields.publicKeyY, &c, bytes: 32)
        case 0x0D:
            try layer.read(SMPFields.dhkeyCheck, &c, bytes: 16)
        case 0x0E:
            let type = try layer.read(SMPFields.keypressType, &c, as: UInt8.self, display: keypressName)
            layer.summary += " - \(keypressName(type))"
        default:
            break
        }
        if !c.isAtEnd {
            layer.addIssue(.warning, "\(name): \(c.remaining) unexpected bytes at the end")
            _ = c.rest()
        }
    }

    /// The AuthReq octet just read from `c`, and its flags (each with the octet's range).
    static func authReqFields(_ authReq: UInt8, _ layer: inout Layer, of c: ByteCursor) {
        layer.addBits(SMPFields.authReq, .u8(authReq), "\(Hex.u8(authReq)) (\(authReqSummary(authReq)))", of: c, width: 1)
        layer.addBits(SMPFields.bonding, .bool(authReq & 0x03 == 0x01), of: c, width: 1)
        layer.addBits(SMPFields.mitm, .bool(authReq & 0x04 != 0), of: c, width: 1)
        layer.addBits(SMPFields.secureConnections, .bool(authReq & 0x08 != 0), of: c, width: 1)
        layer.addBits(SMPFields.keypress, .bool(authReq & 0x10 != 0), of: c, width: 1)
        layer.addBits(SMPFields.ct2, .bool(authReq & 0x20 != 0), of: c, width: 1)
    }

    static func authReqSummary(_ authReq: UInt8) -> String {
        var parts = [authReq & 0x03 == 0x01 ? "Bonding" : "No Bonding"]
        if authReq & 0x04 != 0 { parts.append("MITM") }
        if authReq & 0x08 != 0 { parts.append("SC") }
        if authReq & 0x10 != 0 { parts.append("Keypress") }
        if authReq & 0x20 != 0 { parts.append("CT2") }
        return parts.joined(separator: ", ")
    }

    static func keyNames(_ bits: UInt8) -> String {
        let names = [(0, "EncKey"), (1, "IdKey"), (2, "SignKey"), (3, "LinkKey")].filter { bits & (1 << $0.0) != 0 }.map(\.1)
        return "\(Hex.u8(bits)) (\(names.isEmpty ? "None" : names.joined(separator: ", ")))"
    }

    /// Core Vol 3, Part H, 2.3.5.1: OOB, then MITM, then the IO capability mapping.
    static func pairingMethod(initiator: Features, responder: Features) -> String {
        let sc = initiator.secureConnections && responder.secureConnections
        let kind = sc ? "LE Secure Connections" : "LE Legacy"
        let oob = sc ? (initiator.oob == 1 || responder.oob == 1) : (initiator.oob == 1 && responder.oob == 1)
        if oob { return "\(kind), Out of Band" }
        if !initiator.mitm && !responder.mitm { return "\(kind), Just Works" }
        let i = initiator.io, r = responder.io
        let method: String
        if i > 4 || r > 4 || i == 3 || r == 3 {
            method = "Just Works"
        } else {
            switch (i, r) {
            case (0, 0), (0, 1), (1, 0): method = "Just Works"
            case (1, 1): method = sc ? "Numeric Comparison" : "Just Works"
            case (1, 4), (4, 1), (4, 4): method = sc ? "Numeric Comparison" : "Passkey Entry"
            default: method = "Passkey Entry"
            }
        }
        return "\(kind), \(method)"
    }
}

/// The pairing-method rule, for tests: (IO capability, OOB flag, AuthReq) of each side.
public enum SMPDecoderProbe {
    public static func method(initiator: (UInt8, UInt8, UInt8), responder: (UInt8, UInt8, UInt8)) -> String {
        SMPDecoder.pairingMethod(initiator: .init(io: initiator.0, oob: initiator.1, authReq: initiator.2),
                                 responder: .init(io: responder.0, oob: responder.1, authReq: responder.2))
    }
}

/// The layers this decoder makes.
extension LayerKind {
    public static let smp = LayerKind("SMP", protocol: "smp")
}
