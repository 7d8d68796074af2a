import BTCapture
import BTDecode
import BTQuery

/// ATT on every bearer: PDUs by opcode, transactions (latency, errors, requests never
/// answered, answers after the 30-second timeout), the MTU each link agreed, and activity per
/// characteristic. Which answer closes which transaction is the decoder's to say
/// (`att.request_in`); the tracker keeps only each open transaction's time.
struct ATTTracker {
    typealias LinkKey = Session.LinkKey
    typealias SideKey = StatisticsCollector.SideKey

    /// Where a transaction runs: a client's requests and a server's indications wait apart.
    struct BearerKey: Hashable { var link: LinkKey; var cid: UInt16; var requesterSent: Bool; var indication: Bool }
    struct Waiting {
        var link: LinkKey; var bearer: BearerKey; var time: Int64; var opcode: UInt8
        /// The sniffer missed packets of the link since: the answer may have been among them.
        var snifferMissed = false
    }
    struct CharacteristicKey: Hashable { var address: BDAddr?; var handle: UInt16 }

    private var report = ATTReport()
    private var characteristics: [CharacteristicActivity] = []
    private var characteristicIndex: [CharacteristicKey: Int] = [:]
    /// ATT PDUs by opcode (the report's dictionary is made from it at the end).
    private var opcodeCounts = [Int](repeating: 0, count: 256)
    private var errorIndex: [UInt16: Int] = [:]
    /// Requests and indications not answered yet, by packet number.
    private var waiting: [Int: Waiting] = [:]
    /// The packet of the transaction open on each bearer and side: a new one there replaces it
    /// unanswered (the decoder stops waiting for it too).
    private var openOnBearer: [BearerKey: Int] = [:]
    /// The MTU the client offered in Exchange MTU Request, per link and client side.
    private var offeredMTU: [SideKey: Int] = [:]

    /// Counts the PDU and follows its transaction; returns the application bytes it carried
    /// and the peer's name when it read GAP's Device Name.
    mutating func consume(_ layer: Layer, _ packet: Packet, _ connection: inout ConnectionReport, key: LinkKey, cid: UInt16,
                          sent: Bool) -> (bytes: Int, name: String?) {
        guard let code = layer.integer(ATTFields.opcode) else { return (0, nil) }
        let opcode = UInt8(truncatingIfNeeded: code)
        let frame = packet.frame
        opcodeCounts[Int(opcode)] += 1
        // A dynamic channel (EATT) has a CID at each end: name the bearer by the local one.
        var bearerCID = cid
        if sent, cid >= 0x0040, let channel = connection.openChannel(receivingCID: Int(cid), sent: true) {
            bearerCID = UInt16(truncatingIfNeeded: connection.channels[channel].localCID)
        }
        let role = ATTTransactions.role(of: opcode)
        if role == .opens {
            let bearer = BearerKey(link: key, cid: bearerCID, requesterSent: sent, indication: opcode == ATTOpcode.indication)
            if let previous = openOnBearer[bearer], let superseded = waiting.removeValue(forKey: previous) {
                report.unanswered.append(UnansweredRequest(frame: previous, opcode: superseded.opcode,
                                                           waited: frame.timestamp.saturatingSubtract(superseded.time),
                                                           end: superseded.snifferMissed ? .notCaptured : .superseded))
            }
            openOnBearer[bearer] = frame.number
            waiting[frame.number] = Waiting(link: key, bearer: bearer, time: frame.timestamp, opcode: opcode)
        } else if role == .answers, let answered = layer.integer(ATTFields.requestIn), let request = waiting.removeValue(forKey: answered) {
            if openOnBearer[request.bearer] == answered { openOnBearer[request.bearer] = nil }
            let latency = frame.timestamp.saturatingSubtract(request.time)
            if latency > 30_000_000 {
                report.lateResponses.append(LateResponse(requestFrame: answered, responseFrame: frame.number, opcode: request.opcode, delay: latency))
            }
            if opcode != ATTOpcode.confirmation {
                report.latency.add(latency)
                report.latencyByRequest[request.opcode, default: Distribution()].add(latency)
            }
            if opcode == ATTOpcode.errorResponse { countError(layer, request: request.opcode, frame: frame.number) }
        } else if opcode == ATTOpcode.errorResponse {
            // An error with no request seen (the capture began after it).
            countError(layer, request: nil, frame: frame.number)
        }

        switch opcode {
        case ATTOpcode.exchangeMTURequest:
            if let mtu = layer.integer(ATTFields.mtu) { offeredMTU[SideKey(link: key, sent: sent)] = mtu }
        case ATTOpcode.exchangeMTUResponse:
            if let mtu = layer.integer(ATTFields.mtu) {
                let offered = offeredMTU.removeValue(forKey: SideKey(link: key, sent: !sent))
                let agreed = max(23, offered.map { min($0, mtu) } ?? mtu)
                connection.parameters.mtu = agreed
                var items = [ReportItem("mtu", .count(agreed))]
                if let offered { items += [ReportItem("client_mtu", .count(offered)), ReportItem("server_mtu", .count(mtu))] }
                connection.record(packet, "ATT MTU Exchange", items, change: .mtu(agreed))
            }
        default: break
        }

        let values = layer.byteCount(ATTFields.value)
        // A Read (Blob) Response names the handle its request read, as Wireshark does.
        guard let handle = layer.integer(ATTFields.handle).map({ UInt16(truncatingIfNeeded: $0) }),
              let access = ATTOpcode.access(of: opcode) else { return (values, nil) }
        switch access {
        case .write, .writeWithoutResponse, .notify, .indicate:
            // The link's traffic counts PDUs (a prepared write's parts are not Write Requests);
            // the characteristic's, what was done to its value.
            switch access {
            case .write where opcode == ATTOpcode.writeRequest:
                sent ? (connection.trafficSent.writeRequests += 1) : (connection.trafficReceived.writeRequests += 1)
            case .writeWithoutResponse: sent ? (connection.trafficSent.writeCommands += 1) : (connection.trafficReceived.writeCommands += 1)
            case .notify: sent ? (connection.trafficSent.notifications += 1) : (connection.trafficReceived.notifications += 1)
            case .indicate: sent ? (connection.trafficSent.indications += 1) : (connection.trafficReceived.indications += 1)
            default: break
            }
            let activity = characteristic(handle, layer, address: connection.address)
            switch access {
            case .write: characteristics[activity].writes += 1
            case .writeWithoutResponse: characteristics[activity].writeCommands += 1
            case .notify: characteristics[activity].notifications += 1
            default: characteristics[activity].indications += 1
            }
            characteristics[activity].bytes += values
        case .read:
            guard layer.value(ATTFields.requestIn) != nil else { return (values, nil) }
            let activity = characteristic(handle, layer, address: connection.address)
            characteristics[activity].reads += 1
            characteristics[activity].bytes += values
            // GAP Device Name read from the peer names the device.
            if !sent, layer.uuid(GATTFields.characteristic) == BTUUID(UInt16(0x2A00)),
               case .bytes(let bytes)? = layer.value(ATTFields.value), let name = String(validating: Array(bytes), as: UTF8.self) {
                return (values, name)
            }
        }
        return (values, nil)
    }

    /// An Error Response by the request it names (or the request it answered) and its code.
    private mutating func countError(_ layer: Layer, request: UInt8?, frame: Int) {
        guard let error = layer.integer(ATTFields.error) else { return }
        let requested = UInt8(truncatingIfNeeded: layer.integer(ATTFields.requestOpcode) ?? Int(request ?? 0))
        let key = UInt16(requested) << 8 | UInt16(truncatingIfNeeded: error)
        if let position = errorIndex[key] {
            report.errors[position].count += 1
            if report.errors[position].frames.count < 20 { report.errors[position].frames.append(frame) }
        } else {
            errorIndex[key] = report.errors.count
            report.errors.append(ATTErrorCount(requestOpcode: requested, error: UInt8(truncatingIfNeeded: error), count: 1,
                                               firstFrame: frame, frames: [frame]))
        }
    }

    private mutating func characteristic(_ handle: UInt16, _ layer: Layer, address: BDAddr?) -> Int {
        let key = CharacteristicKey(address: address, handle: handle)
        let name = layer.text(ATTFields.name)
        if let index = characteristicIndex[key] {
            if characteristics[index].name == nil, let name { characteristics[index].name = name }
            return index
        }
        characteristicIndex[key] = characteristics.count
        characteristics.append(CharacteristicActivity(address: address, handle: handle, name: name))
        return characteristics.count - 1
    }

    /// The sniffer missed packets of `link` (an air capture): any answer still awaited there
    /// may have been among them.
    mutating func snifferMissed(on link: LinkKey) {
        for (frame, request) in waiting where request.link == link && !request.snifferMissed { waiting[frame]!.snifferMissed = true }
    }

    /// A link ends at `end`: what still waits on it is never answered.
    mutating func close(_ link: LinkKey, at end: Int64, disconnected: Bool) {
        for (frame, request) in waiting where request.link == link {
            report.unanswered.append(UnansweredRequest(frame: frame, opcode: request.opcode, waited: end.saturatingSubtract(request.time),
                                                       end: request.snifferMissed ? .notCaptured : disconnected ? .disconnected : .captureEnded))
        }
        waiting = waiting.filter { $0.value.link != link }
        openOnBearer = openOnBearer.filter { $0.key.link != link }
        offeredMTU = offeredMTU.filter { $0.key.link != link }
    }

    /// The end of a file: its links are closed already.
    mutating func closeAll() {
        waiting.removeAll()
        openOnBearer.removeAll()
    }

    /// The ATT report (unanswered requests in capture order) and the characteristics by activity.
    func finish() -> (ATTReport, [CharacteristicActivity]) {
        var result = report
        result.unanswered.sort { $0.frame < $1.frame }
        for (opcode, count) in opcodeCounts.enumerated() where count > 0 { result.opcodes[UInt8(opcode)] = count }
        let sorted = characteristics.sorted { $0.total != $1.total ? $0.total > $1.total : $0.handle < $1.handle }
        return (result, sorted)
    }
}
