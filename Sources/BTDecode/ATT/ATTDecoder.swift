import BTCapture

/// The Attribute Protocol (Core Vol 3, Part F, 3.4) with GATT on top: requests paired with
/// responses, the server's database learnt from discovery, handles named from it.
enum ATTDecoder {
    /// On the LE fixed channel, and on BR/EDR and enhanced (EATT) dynamic channels.
    static let descriptor = ProtocolDescriptor(name: "ATT", fields: ATTFields.all, layers: [.att], state: ATTState.self,
                                               registrations: [.fixedChannel(0x0004, "ATT", decode), .psm(0x001F, "ATT", decode), .psm(0x0027, "EATT", decode)],
                                               valueNames: [(ATTFields.opcode, opcodes.map { ValueName(UInt64($0.code), $0.name) }),
                                                            (ATTFields.requestOpcode, opcodes.map { ValueName(UInt64($0.code), $0.name) }),
                                                            (ATTFields.error, FieldValueNames.from(errorNames))],
                                               values: [ATTFields.value.name],
                                               conversation: ATTFields.conversation)

    /// What kind of PDU an opcode is (Core Vol 3, Part F, 3.3): who sends it and what answers it.
    enum Kind {
        case request, response, command, notification, indication, confirmation
    }

    /// One opcode, one row, as btmon keeps them: its name, its kind, and how its parameters are
    /// decoded. (No minimum length: the cursor stops a short PDU where it runs out, so what was
    /// there is still shown, and the packet says which bytes were missing.)
    struct Opcode {
        let code: UInt8
        let name: String
        let kind: Kind
        /// What it does to one attribute's value, for the activity per characteristic.
        let access: ATTOpcode.Access?
        /// Part of discovering the server's database (Find Information, Find By Type Value,
        /// Read By Type, Read By Group Type, each request and response).
        let discovers: Bool
        let decode: (inout Body, inout Session) throws -> Void

        init(_ code: UInt8, _ name: String, _ kind: Kind, access: ATTOpcode.Access? = nil, discovers: Bool = false,
             _ decode: @escaping (inout Body, inout Session) throws -> Void) {
            self.code = code
            self.name = name
            self.kind = kind
            self.access = access
            self.discovers = discovers
            self.decode = decode
        }
    }

    static let opcodes: [Opcode] = [
        Opcode(0x01, "Error Response", .response) { try $0.errorResponse(&$1) },
        Opcode(0x02, "Exchange MTU Request", .request) { try $0.exchangeMTU(&$1) },
        Opcode(0x03, "Exchange MTU Response", .response) { try $0.exchangeMTU(&$1) },
        Opcode(0x04, "Find Information Request", .request, discovers: true) { try $0.findInformationRequest(&$1) },
        Opcode(0x05, "Find Information Response", .response, discovers: true) { try $0.findInformationResponse(&$1) },
        Opcode(0x06, "Find By Type Value Request", .request, discovers: true) { try $0.findByTypeValueRequest(&$1) },
        Opcode(0x07, "Find By Type Value Response", .response, discovers: true) { try $0.findByTypeValueResponse(&$1) },
        Opcode(0x08, "Read By Type Request", .request, discovers: true) { try $0.readByTypeRequest(&$1) },
        Opcode(0x09, "Read By Type Response", .response, discovers: true) { try $0.readByTypeResponse(&$1) },
        Opcode(0x0A, "Read Request", .request) { try $0.readRequest(&$1) },
        Opcode(0x0B, "Read Response", .response, access: .read) { try $0.readResponse(&$1) },
        Opcode(0x0C, "Read Blob Request", .request) { try $0.readBlobRequest(&$1) },
        Opcode(0x0D, "Read Blob Response", .response, access: .read) { try $0.readResponse(&$1) },
        Opcode(0x0E, "Read Multiple Request", .request) { try $0.readMultipleRequest(&$1) },
        Opcode(0x0F, "Read Multiple Response", .response) { try $0.readMultipleResponse(&$1) },
        Opcode(0x10, "Read By Group Type Request", .request, discovers: true) { try $0.readByTypeRequest(&$1) },
        Opcode(0x11, "Read By Group Type Response", .response, discovers: true) { try $0.readByTypeResponse(&$1) },
        Opcode(0x12, "Write Request", .request, access: .write) { try $0.handleAndValue(&$1) },
        Opcode(0x13, "Write Response", .response) { try $0.answerWithoutHandle(&$1) },
        Opcode(0x16, "Prepare Write Request", .request, access: .write) { try $0.prepareWrite(&$1) },
        Opcode(0x17, "Prepare Write Response", .response) { try $0.prepareWrite(&$1) },
        Opcode(0x18, "Execute Write Request", .request) { try $0.executeWriteRequest(&$1) },
        Opcode(0x19, "Execute Write Response", .response) { _, _ in },
        Opcode(0x1B, "Handle Value Notification", .notification, access: .notify) { try $0.handleAndValue(&$1) },
        Opcode(0x1D, "Handle Value Indication", .indication, access: .indicate) { try $0.handleAndValue(&$1) },
        Opcode(0x1E, "Handle Value Confirmation", .confirmation) { try $0.answerWithoutHandle(&$1) },
        Opcode(0x20, "Read Multiple Variable Request", .request) { try $0.readMultipleRequest(&$1) },
        Opcode(0x21, "Read Multiple Variable Response", .response) { try $0.readMultipleVariableResponse(&$1) },
        Opcode(0x23, "Multiple Handle Value Notification", .notification) { try $0.multipleHandleValueNotification(&$1) },
        Opcode(0x52, "Write Command", .command, access: .writeWithoutResponse) { try $0.handleAndValue(&$1) },
        Opcode(0xD2, "Signed Write Command", .command, access: .writeWithoutResponse) { try $0.signedWriteCommand(&$1) },
    ]

    /// The rows by opcode value, for a lookup without hashing on every PDU.
    static let byCode: [Opcode?] = {
        var table = [Opcode?](repeating: nil, count: 256)
        for row in opcodes {
            precondition(table[Int(row.code)] == nil, "ATT opcode \(row.code) listed twice")
            table[Int(row.code)] = row
        }
        return table
    }()

    static let errorNames: [UInt8: String] = [
        0x01: "Invalid Handle", 0x02: "Read Not Permitted", 0x03: "Write Not Permitted", 0x04: "Invalid PDU",
        0x05: "Insufficient Authentication", 0x06: "Request Not Supported", 0x07: "Invalid Offset",
        0x08: "Insufficient Authorization", 0x09: "Prepare Queue Full", 0x0A: "Attribute Not Found",
        0x0B: "Attribute Not Long", 0x0C: "Encryption Key Size Too Short", 0x0D: "Invalid Attribute Value Length",
        0x0E: "Unlikely Error", 0x0F: "Insufficient Encryption", 0x10: "Unsupported Group Type",
        0x11: "Insufficient Resources", 0x12: "Database Out Of Sync", 0x13: "Value Not Allowed",
        0xFC: "Write Request Rejected", 0xFD: "Client Characteristic Configuration Descriptor Improperly Configured",
        0xFE: "Procedure Already in Progress", 0xFF: "Out of Range",
    ]

    static func opcodeName(_ opcode: UInt8) -> String { byCode[Int(opcode)]?.name ?? "Unknown Opcode \(Hex.u8(opcode))" }

    static func errorName(_ code: UInt8) -> String {
        if let name = errorNames[code] { return name }
        if (0x80 ... 0x9F).contains(code) { return "Application Error" }
        if (0xE0 ... 0xFB).contains(code) { return "Common Profile and Service Error" }
        return "Reserved"
    }

    /// The kinds alone, by opcode: asked on every PDU, so read without copying a row.
    static let kinds: [Kind?] = byCode.map { $0?.kind }

    /// PDUs a client sends (requests, commands, confirmations); the rest come from the server.
    static func isFromClient(_ opcode: UInt8) -> Bool {
        switch kinds[Int(opcode)] {
        case .request?, .command?, .confirmation?: return true
        default: return false
        }
    }

    static func isResponse(_ opcode: UInt8) -> Bool { kinds[Int(opcode)] == .response }

    static func decode(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session, context: L2CAPContext) throws {
        var handoff: GATTHandoff?
        try decodePDU(&c, into: &packet, session: &session, context: context, handoff: &handoff)
        // The profile's layer goes above ATT's, after it.
        if var handoff { try handoff.decode(&handoff.value, &packet, &session, handoff.context) }
    }

    static func decodePDU(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session, context: L2CAPContext,
                          handoff: inout GATTHandoff?) throws {
        guard let opcode = try? c.peekU8() else {
            let index = packet.openLayer(.att, over: c, showsDirection: true)
            packet.layers[index].addIssue(.error, "Empty ATT PDU")
            return
        }
        let index = packet.openLayer(.att, over: c, showsDirection: true)
        var body = Body(c: c, pdu: PDU(opcode: opcode, packet: packet, session: session, context: context))
        defer {
            c = body.c
            // Moved, not copied: most PDUs hand nothing on, and copying and destroying an
            // Optional of this size goes through the runtime's generic value witnesses.
            if body.handoff != nil { swap(&handoff, &body.handoff) }
        }
        // The layer written in its slot through the Body for the PDU's decoding, which reads
        // nothing else of the packet.
        try packet.layers.withLayer(index) { slot in
            body.slot = slot
            defer { body.slot = nil }
            try decodeBody(&body, opcode, &session)
        }
    }

    /// The PDU after its opcode, into the layer the Body lends.
    private static func decodeBody(_ body: inout Body, _ opcode: UInt8, _ session: inout Session) throws {
        if !session.options.gattCache.isEmpty { session.gatt.seed(body.pdu.server, from: session.options.gattCache) }
        // The row read in place: a copy of it (its name and closure) costs a retain and release each.
        let known = kinds[Int(opcode)] != nil
        try body.slot!.pointee.read(ATTFields.opcode, &body.c, as: UInt8.self, named: { opcodeName($0) })
        if known {
            byCode.withUnsafeBufferPointer { rows in body.layer.summary.set("\(rows[Int(opcode)]!.name)") }
        } else {
            body.layer.summary.set("Unknown Opcode \(hex: opcode)")
            body.layer.addIssue(.warning, "Unknown ATT opcode \(Hex.u8(opcode))")
        }
        body.request = body.pdu.pair(&session, &body.slot!.pointee)
        if known {
            try byCode.withUnsafeBufferPointer { rows in try rows[Int(opcode)]!.decode(&body, &session) }
        } else if !body.c.isAtEnd {
            try body.readValue()
        }
        if !body.c.isAtEnd {
            try body.readValue()
            body.layer.addIssue(.warning, "\(opcodeName(opcode)): unexpected bytes after the PDU")
        }
        if kinds[Int(opcode)] == .request || kinds[Int(opcode)] == .indication { body.pdu.remember(&session, opcode: opcode, &body.slot!.pointee) }
    }
}

/// The layers this decoder makes.
extension LayerKind {
    public static let att = LayerKind("ATT", protocol: "att")
}
