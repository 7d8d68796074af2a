import BTCapture
import BTDecode
import BTQuery

/// The status line's counts, packets and bytes per protocol, and packets per controller.
struct TotalsTracker {
    private var totals = CaptureStatistics()
    private var protocols: [ProtocolUsage] = []
    private var protocolIndex: [String: Int] = [:]
    /// Layer kind → the report's protocol position, for the kinds that always mean the same
    /// protocol (a capture has a dozen; most packets repeat the previous one's).
    private var kindPositions: [(kind: LayerKind, position: Int)] = []
    private var controllers: [ControllerUsage] = []
    private var controllerIndex: [UInt16: Int] = [:]

    var lastTimestamp: Int64? { totals.lastTimestamp }

    mutating func count(_ packet: Packet) {
        totals.add(packet)
        let frame = packet.frame
        if frame.controller != Frame.systemController, !frame.kind.isAir {
            if let index = controllerIndex[frame.controller] {
                controllers[index].packets += 1
            } else {
                controllerIndex[frame.controller] = controllers.count
                controllers.append(ControllerUsage(index: frame.controller, packets: 1))
            }
        }
        for index in packet.layers.indices {
            let position = protocolPosition(packet, index)
            protocols[position].packets += 1
            protocols[position].bytes += packet.layers[index].range.count
        }
    }

    /// The report's position of the protocol a packet's layer belongs to.
    private mutating func protocolPosition(_ packet: Packet, _ index: Int) -> Int {
        let kind = packet.layers[index].kind
        // GATT profile and system layers go by their first field's protocol: only kinds that
        // always mean the same protocol are remembered.
        for entry in kindPositions where entry.kind == kind { return entry.position }
        let name = packet.layers[index].protocolName
        let position: Int
        if let known = protocolIndex[name] {
            position = known
        } else {
            position = protocols.count
            protocolIndex[name] = position
            protocols.append(ProtocolUsage(name: name))
        }
        if kind.protocolName != nil { kindPositions.append((kind, position)) }
        return position
    }

    /// What the decoder's Session learnt of the controllers (addresses, names) once a file ends.
    mutating func endFile(session: Session) {
        for (index, position) in controllerIndex {
            if controllers[position].address == nil {
                controllers[position].address = session.controllerAddresses[index] ?? session.controllers[index]?.address
            }
            if let name = session.controllers[index]?.name, !name.isEmpty { controllers[position].name = name }
        }
    }

    /// Protocols by activity, controllers by index.
    func report(into report: inout CaptureReport) {
        report.totals = totals
        report.protocols = protocols.sorted { $0.packets != $1.packets ? $0.packets > $1.packets : $0.name < $1.name }
        report.controllers = controllers.sorted { $0.index < $1.index }
    }
}
