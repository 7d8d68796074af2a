import BTCapture
import BTDecode

/// One device under the addresses it took: each resolvable private address a known identity
/// key resolved (`Packet.peerIdentity`), with the identity, the key's packet and when the
/// address was in use. Bounded by the addresses, not the packets.
struct IdentityTracker {
    private var rows: [BDAddr: ResolvedAddress] = [:]
    private var order: [BDAddr] = []

    mutating func see(_ packet: Packet) {
        guard let identity = packet.peerIdentity, let peer = packet.peer else { return }
        let time = packet.frame.timestamp
        if rows[peer] == nil {
            order.append(peer)
            rows[peer] = ResolvedAddress(address: peer, identity: identity.address, keyFrame: identity.keyFrame,
                                         firstFrame: packet.frame.number, first: time, last: time)
        }
        rows[peer]!.packets += 1
        rows[peer]!.last = time
        if rows[peer]!.identity == nil { rows[peer]!.identity = identity.address }
        // A key a merge found ahead: its packet, once decoding reached it.
        if rows[peer]!.keyFrame < 0 { rows[peer]!.keyFrame = identity.keyFrame }
    }

    func finish() -> [ResolvedAddress] { order.map { rows[$0]! } }
}
