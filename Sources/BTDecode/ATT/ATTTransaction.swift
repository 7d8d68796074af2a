import BTCapture

extension ATTDecoder {
    /// One ATT PDU being decoded: which server it concerns, what it names, its issues.
    struct PDU {
        let frame: Int
        let timestamp: Int64
        let context: L2CAPContext
        let opcode: UInt8
        /// The GATT server whose handles this PDU names.
        let server: GATTServerKey
        /// The run's UUID names.
        let names: UUIDNames
        var handle: UInt16?
        var uuid: BTUUID?
        var findValue: BTUUID?
        var writtenValue: [UInt8]?

        init(opcode: UInt8, packet: Packet, session: Session, context: L2CAPContext) {
            self.frame = packet.frame.number
            self.timestamp = packet.frame.timestamp
            self.context = context
            self.opcode = opcode
            names = session.names
            let device: GATTServerKey.Device = session.connections[context.link].map { .address($0.peer) } ?? .handle(context.link.handle)
            // A client PDU goes to the server; a server PDU comes from it.
            let serverIsRemote = ATTDecoder.isFromClient(opcode) ? context.sent : !context.sent
            server = GATTServerKey(controller: context.link.controller, device: device, isRemote: serverIsRemote)
        }

        /// The bearer seen from the client that sends requests (or receives indications).
        func bearer(clientIsLocal: Bool) -> ATTState.BearerKey {
            // A dynamic channel has a CID per end; name the bearer by the local one.
            ATTState.BearerKey(link: context.link, cid: context.channel?.localCID ?? context.cid, clientIsLocal: clientIsLocal)
        }

        /// A response or confirmation: find what it answers, say so, and close the transaction.
        mutating func pair(_ session: inout Session, _ layer: inout Layer) -> ATTState.Transaction? {
            let isResponse = ATTDecoder.isResponse(opcode)
            let transaction: ATTState.Transaction?
            if opcode == 0x1E {
                transaction = session.att.indications.removeValue(forKey: bearer(clientIsLocal: context.sent))
                if transaction == nil { layer.addIssue(.note, "Confirmation without an indication in this capture") }
            } else if isResponse {
                transaction = session.att.requests.removeValue(forKey: bearer(clientIsLocal: !context.sent))
                if let transaction, opcode != 0x01, transaction.opcode + 1 != opcode {
                    layer.addIssue(.warning, "\(ATTDecoder.opcodeName(opcode)) answers \(ATTDecoder.opcodeName(transaction.opcode)) (packet \(transaction.frame))")
                }
                if transaction == nil { layer.addIssue(.note, "Response without a request in this capture") }
            } else {
                return nil
            }
            guard let transaction else { return nil }
            let elapsed = Microseconds.difference(timestamp, transaction.timestamp) / 1000
            layer.add(ATTFields.requestIn, .count(transaction.frame))
            layer.add(ATTFields.responseTime, .count(Int(clamping: elapsed)), "\(elapsed) ms")
            return transaction
        }

        /// A request or indication now waits for its answer.
        mutating func remember(_ session: inout Session, opcode: UInt8, _ layer: inout Layer) {
            let transaction = ATTState.Transaction(opcode: opcode, frame: frame, timestamp: timestamp, handle: handle,
                                                   uuid: uuid, findValue: findValue, value: writtenValue, server: server)
            // On an air capture, what the sniffer missed since the previous one may hold its answer.
            let unheard = " in this capture: the sniffer missed or took damaged packets of the link since, the answer likely among them"
            if opcode == 0x1D {
                let key = bearer(clientIsLocal: !context.sent)
                if let previous = session.att.indications[key] {
                    if previous.unheardSince {
                        layer.addIssue(.note, "Indication sent before the one in packet \(previous.frame) was confirmed\(unheard)")
                    } else {
                        layer.addIssue(.warning, "Indication sent before the one in packet \(previous.frame) was confirmed")
                    }
                }
                session.att.indications[key] = transaction
            } else {
                let key = bearer(clientIsLocal: context.sent)
                if let previous = session.att.requests[key] {
                    if previous.unheardSince {
                        layer.addIssue(.note, "Request sent before \(ATTDecoder.opcodeName(previous.opcode)) in packet \(previous.frame) was answered\(unheard)")
                    } else {
                        layer.addIssue(.warning, "Request sent before \(ATTDecoder.opcodeName(previous.opcode)) in packet \(previous.frame) was answered")
                    }
                }
                session.att.requests[key] = transaction
            }
        }

        /// How a PDU's summary names a handle: " - Handle: 0x002A", then " - Heart Rate
        /// Measurement" when discovery named it. Written here only: a named handle keeps this
        /// as text made once with its naming (`HandleNaming.summaryText`).
        static func handleSummary(_ handle: UInt16, name: String?) -> SummaryPiece {
            guard let name else { return " - Handle: \(hex: handle)" }
            return " - Handle: \(hex: handle) - \(name)"
        }

        /// " - Handle: 0x0009 - Service Changed - Configuration" onto the summary, written in place,
        /// with the name as fields too.
        func appendHandle(_ handle: UInt16, _ naming: GATTDatabase.HandleNaming?, _ layer: inout Layer) {
            guard let naming else {
                layer.summary += Self.handleSummary(handle, name: nil)
                return
            }
            // Asked first: passing the text costs a retain and release even where no summary is written.
            if layer.summary.isWritten { layer.summary.append(naming.summaryText) }
            layer.add(ATTFields.name, .text(naming.name))
            if let service = naming.service { layer.add(GATTFields.service, .uuid(service), names.labelled(service)) }
            if let characteristic = naming.characteristic { layer.add(GATTFields.characteristic, .uuid(characteristic), names.labelled(characteristic)) }
        }

        /// A value written, read or notified: decoded when its type is well known.
        func describeValue(_ bytes: ArraySlice<UInt8>, _ naming: GATTDatabase.HandleNaming?, _ layer: inout Layer) {
            guard let naming else {
                if !bytes.isEmpty { layer.summary += " - Value: \(preview: bytes)" }
                return
            }
            let range = layer.range(at: bytes.startIndex, count: bytes.count)
            if naming.type.uuid16 == 0x2902, let bits = try? ByteCursor(bytes).peekU16() {
                layer.add(GATTFields.cccd, .u16(bits), at: layer.range(at: bytes.startIndex, count: 2))
            }
            // The decoded text is a field's value and the summary's tail, nothing more: not made
            // when neither is kept (a filter's or --fields' view of the packet).
            guard layer.summary.isWritten || layer.keeps(GATTFields.value) else { return }
            if let decoded = naming.describe(bytes) {
                layer.add(GATTFields.value, .text(decoded), at: range)
                layer.summary += " - \(decoded)"
            } else if !bytes.isEmpty {
                layer.summary += " - Value: \(preview: bytes)"
            }
        }
    }
}

/// ATT's transactions as readers of decoded packets see them: a request or an indication
/// opens one, and the PDU that answers it (a response, an Error Response, a confirmation)
/// carries `att.request_in` naming the packet it answers.
public enum ATTTransactions {
    public enum Role { case opens, answers, none }

    public static func role(of opcode: UInt8) -> Role {
        switch ATTDecoder.kinds[Int(opcode)] {
        case .request?, .indication?: return .opens
        case .response?, .confirmation?: return .answers
        default: return .none
        }
    }
}
