import BTCapture

/// The link parameters and traffic of one LE throughput regime: what `stats --throughput` and
/// its diagnosis are tested on, each number chosen so the expected throughput and ceiling can be
/// worked out by hand.
public struct ThroughputRegime: Sendable {
    public enum Transfer: Sendable, Equatable {
        /// The peer notifies the host.
        case notifications
        /// The host writes without response.
        case writeCommands
        /// The host writes with response: one write, its response in the next connection event.
        case writeRequests
        /// The host sends K-frames of MPS bytes on an LE credit-based channel.
        case creditBased(mps: UInt16)
    }

    /// Connection interval in 1.25 ms units.
    public var interval: UInt16 = 24
    /// The ATT MTU both sides agree (23: no exchange).
    public var mtu: UInt16 = 23
    /// LL data length each way (27: no Data Length Change).
    public var dataLength: UInt16 = 27
    /// 1 LE 1M, 2 LE 2M, 3 LE Coded (1: no PHY update).
    public var phy: UInt8 = 1
    public var transfer = Transfer.notifications
    /// ATT PDUs (or K-frames) in each connection event; write requests send one every two events.
    public var perEvent = 4
    public var seconds = 3

    public init(interval: UInt16 = 24, mtu: UInt16 = 23, dataLength: UInt16 = 27, phy: UInt8 = 1,
                transfer: Transfer = .notifications, perEvent: Int = 4, seconds: Int = 3) {
        self.interval = interval
        self.mtu = mtu
        self.dataLength = dataLength
        self.phy = phy
        self.transfer = transfer
        self.perEvent = perEvent
        self.seconds = seconds
    }

    /// Application bytes each PDU carries: an ATT value of MTU - 3, or a K-frame's MPS.
    public var payload: Int {
        if case .creditBased(let mps) = transfer { return Int(mps) }
        return Int(mtu) - 3
    }
}

extension Scenarios {
    public static let throughputPeer = "C0:FF:EE:00:00:01"

    /// A central (the host) and a peripheral on handle 0x0040: the link made with the regime's
    /// interval, data length and PHY changed, the MTU exchanged, then `seconds` of traffic in
    /// connection events exactly one interval apart, the first one second and 500 µs after the
    /// capture's first packet (so one-second bins hold whole events); then the peer ends the
    /// link (Remote User Terminated Connection).
    public static func throughputSession(_ regime: ThroughputRegime) -> [Frame] {
        throughputSession(phases: [regime])
    }

    /// The same link through several regimes one after another: between phases the parameters
    /// that differ change as a stack changes them (Connection Update Complete, Data Length
    /// Change, PHY Update Complete, an MTU exchange when the MTU grows from 23), each phase's
    /// traffic starting on a whole second from the first packet.
    public static func throughputSession(phases: [ThroughputRegime]) -> [Frame] {
        guard let first = phases.first else { return [] }
        var b = PacketBuilder(start: demoStart + 7_200_000_000)
        let handle: UInt16 = 0x0040
        let origin = b.clock + 1000 // the first packet's time: bins start there
        b.exchange(0x0C03)
        b.command(0x200D, le16(0x0060) + le16(0x0030) + [0x00, 0x01] + addressBytes(throughputPeer) + [0x00]
                  + le16(first.interval) + le16(first.interval) + le16(0) + le16(400) + le16(0) + le16(0))
        b.commandStatus(0x200D)
        b.leConnectionComplete(handle: handle, role: 0, peerType: 1, peer: throughputPeer, interval: first.interval,
                               latency: 0, timeout: 400)
        var current = ThroughputRegime()
        current.interval = first.interval
        var channelOpen = false
        var start = origin + 1_000_000 + 500
        for regime in phases {
            let fragment = Int(regime.dataLength)
            if regime.interval != current.interval {
                b.event(0x3E, [0x03, 0x00] + le16(handle) + le16(regime.interval) + le16(0) + le16(400))
            }
            if regime.dataLength != current.dataLength {
                let time = UInt16((Int(regime.dataLength) + 14) * 8)
                b.event(0x3E, [0x07] + le16(handle) + le16(regime.dataLength) + le16(time) + le16(regime.dataLength) + le16(time))
            }
            if regime.phy != current.phy {
                b.command(0x2032, le16(handle) + [0x00, 1 << (regime.phy - 1), 1 << (regime.phy - 1)] + le16(0))
                b.commandStatus(0x2032)
                b.event(0x3E, [0x0C, 0x00] + le16(handle) + [regime.phy, regime.phy])
            }
            if regime.mtu != current.mtu && current.mtu == 23 {
                b.l2cap(handle: handle, cid: 0x0004, [0x02] + le16(regime.mtu), sent: true, fragment: fragment)
                b.l2cap(handle: handle, cid: 0x0004, [0x03] + le16(regime.mtu), sent: false, fragment: fragment)
            }
            if case .creditBased(let mps) = regime.transfer, !channelOpen {
                b.l2cap(handle: handle, cid: 0x0005, [0x14, 0x01] + le16(10) + le16(0x0080) + le16(0x0040) + le16(2048) + le16(mps) + le16(64),
                        sent: true, fragment: fragment)
                b.l2cap(handle: handle, cid: 0x0005, [0x15, 0x01] + le16(10) + le16(0x0050) + le16(2048) + le16(mps) + le16(64) + le16(0),
                        sent: false, fragment: fragment)
                channelOpen = true
            }
            current = regime
            let end = traffic(&b, regime, handle: handle, from: start)
            b.clock = end
            // The next phase from the next whole second.
            start = origin + 500 + ((end - origin) + 999_999) / 1_000_000 * 1_000_000
        }
        b.disconnectionComplete(handle: handle, reason: 0x13)
        return b.frames
    }

    /// `seconds` of a regime's traffic in connection events from `start`; the time after the last event.
    static func traffic(_ b: inout PacketBuilder, _ regime: ThroughputRegime, handle: UInt16, from start: Int64) -> Int64 {
        let intervalMicros = Int64(regime.interval) * 1250
        let events = Int64(regime.seconds) * 1_000_000 / intervalMicros
        let fragment = Int(regime.dataLength)
        let value = (0 ..< regime.payload).map { UInt8(truncatingIfNeeded: $0) }
        for event in 0 ..< events {
            b.clock = start + event * intervalMicros
            switch regime.transfer {
            case .notifications:
                for _ in 0 ..< regime.perEvent {
                    b.l2cap(handle: handle, cid: 0x0004, [0x1B] + le16(0x0010) + value, sent: false, fragment: fragment, after: 10)
                }
            case .writeCommands:
                for _ in 0 ..< regime.perEvent {
                    b.l2cap(handle: handle, cid: 0x0004, [0x52] + le16(0x0012) + value, sent: true, fragment: fragment, after: 10)
                }
            case .writeRequests:
                if event % 2 == 0 {
                    b.l2cap(handle: handle, cid: 0x0004, [0x12] + le16(0x0012) + value, sent: true, fragment: fragment, after: 10)
                } else {
                    b.l2cap(handle: handle, cid: 0x0004, [0x13], sent: false, fragment: fragment, after: 10)
                }
            case .creditBased(let mps):
                // Each K-frame a whole SDU: its length, then MPS - 2 bytes.
                let sdu = le16(mps - 2) + value.prefix(Int(mps) - 2)
                for _ in 0 ..< regime.perEvent {
                    b.l2cap(handle: handle, cid: 0x0050, sdu, sent: true, fragment: fragment, after: 10)
                }
            }
        }
        return start + events * intervalMicros
    }
}
