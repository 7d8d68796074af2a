import BTCapture

/// Long sessions for the benchmark (Scripts/bench.sh): as many packets as asked, built the
/// way a phone's capture of hours of traffic looks, streamed to `emit` in batches so that
/// millions of packets never sit in memory. The same count gives the same bytes on every run.
public enum BenchmarkSessions {
    static let batch = 4096

    /// A phone scanning and talking to four LE peripherals at once: advertising reports from
    /// fifty devices (Apple Continuity, iBeacon, Eddystone, Fast Pair, Microsoft, sensors),
    /// connections set up with Secure Connections pairing and GATT discovery, then
    /// notifications, writes and reads, PDUs fragmented over 27-byte links, Number Of
    /// Completed Packets, connection updates over LE signaling, and links that drop and return.
    public static func leSession(packets: Int, emit: ([Frame]) throws -> Void) rethrows {
        var session = LESession(start: Scenarios.demoStart)
        try stream(packets: packets, emit: emit) { session.step() } drain: { session.b.drain() }
    }

    /// Runs `step` until `packets` frames were built, handing them to `emit` in batches; the
    /// last batch is cut at exactly `packets`, mid-exchange as real captures end.
    static func stream(packets: Int, emit: ([Frame]) throws -> Void, step: () -> Void,
                       drain: () -> [Frame]) rethrows {
        var remaining = packets
        while remaining > 0 {
            var built: [Frame] = []
            while built.count < batch {
                step()
                built += drain()
            }
            let taken = built.prefix(remaining)
            try emit(Array(taken))
            remaining -= taken.count
        }
    }
}

/// A deterministic pseudo-random source (SplitMix64): fixtures must not change between runs.
public struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    public init(state: UInt64) { self.state = state }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    mutating func bytes(_ count: Int) -> [UInt8] { (0 ..< count).map { _ in UInt8(truncatingIfNeeded: next()) } }
}

struct LESession {
    var b: PacketBuilder
    var random = SplitMix64(state: 0x6274_6C6F_6700_0001)
    let advertisers: [Advertiser]
    var links: [Link]

    struct Advertiser {
        var address: String
        var addressType: UInt8
        var eventType: UInt8
        var data: [UInt8]
        var rssi: Int
    }

    /// One peripheral the phone keeps connecting to.
    struct Link {
        var handle: UInt16
        var peer: String
        /// ACL payload per fragment: 27 without LE Data Length Extension, 251 with it.
        var fragment: Int
        var connected = false
        var unacknowledged = 0
    }

    init(start: Int64) {
        b = PacketBuilder(start: start)
        var random = SplitMix64(state: 0x6164_7665_7274_6973)
        advertisers = (0 ..< 50).map { LESession.advertiser($0, &random) }
        links = [
            Link(handle: 0x0040, peer: "C0:FF:EE:12:34:56", fragment: 27),
            Link(handle: 0x0041, peer: "D4:3A:2C:11:22:33", fragment: 251),
            Link(handle: 0x0042, peer: "E8:9F:6D:00:10:42", fragment: 27),
            Link(handle: 0x0043, peer: "F2:01:A7:5C:3B:90", fragment: 251),
        ]
        b.exchange(0x0C03)                                                      // Reset
        b.exchange(0x1001, returns: [0x00, 0x0C, 0x00, 0x00, 0x0C, 0x0F, 0x00, 0x34, 0x12]) // Read Local Version
        b.exchange(0x1009, returns: [0x00] + addressBytes(Scenarios.phoneController))
        b.exchange(0x2002, returns: [0x00, 0xFB, 0x00, 0x08])                   // LE Read Buffer Size: 251 × 8
        b.exchange(0x200B, [0x01, 0x60, 0x00, 0x30, 0x00, 0x01, 0x00])          // LE Set Scan Parameters: active
        b.exchange(0x200C, [0x01, 0x00])                                        // LE Set Scan Enable
    }

    /// The devices around the phone and what they advertise (AD structures as the Core
    /// Specification Supplement lays them out).
    static func advertiser(_ index: Int, _ random: inout SplitMix64) -> Advertiser {
        let address = (0 ..< 6).map { i in
            String(UInt8(truncatingIfNeeded: random.next()) | (i == 0 ? 0xC0 : 0), radix: 16, uppercase: true)
        }.map { $0.count == 1 ? "0" + $0 : $0 }.joined(separator: ":")
        let data: [UInt8]
        var eventType: UInt8 = 0
        var addressType: UInt8 = 1
        switch index % 10 {
        case 0, 1: // Apple Nearby Info
            data = [0x02, 0x01, 0x1A, 0x0A, 0xFF, 0x4C, 0x00, 0x10, 0x05] + random.bytes(5)
        case 2: // Apple Find My
            data = [0x1E, 0xFF, 0x4C, 0x00, 0x12, 0x19, 0x10] + random.bytes(24)
            eventType = 3
        case 3: // iBeacon
            data = [0x02, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15] + random.bytes(16)
                + [0x00, UInt8(index), 0x00, 0x07, 0xC5]
            eventType = 3
        case 4: // Eddystone-URL
            data = [0x02, 0x01, 0x06, 0x03, 0x03, 0xAA, 0xFE, 0x13, 0x16, 0xAA, 0xFE, 0x10, 0xEB, 0x03]
                + Array("example.com/b".utf8)
            eventType = 2
        case 5: // Google Fast Pair
            data = [0x02, 0x01, 0x06, 0x06, 0x16, 0x2C, 0xFE] + random.bytes(3) + [0x02, 0x0A, 0xEC]
        case 6: // Microsoft Swift Pair / CDP
            data = [0x1E, 0xFF, 0x06, 0x00, 0x01, 0x09, 0x20, 0x02] + random.bytes(23)
            eventType = 3
        case 7: // Heart-rate sensor with a name and the scan response
            data = [0x02, 0x01, 0x06, 0x05, 0x03, 0x0D, 0x18, 0x0F, 0x18, 0x03, 0x19, 0x41, 0x03,
                    0x09, 0x09] + Array("HRM-\(index)   ".utf8.prefix(8))
            addressType = 0
        case 8: // Nordic UART peripheral: 128-bit service and manufacturer data
            data = [0x02, 0x01, 0x06, 0x11, 0x07] + Scenarios.uartService + [0x05, 0xFF, 0x59, 0x00] + random.bytes(2)
        default: // A scan response with a long name and TX power
            data = [0x02, 0x0A, 0x04, 0x11, 0x09] + Array("Living Room Speaker".utf8.prefix(16))
            eventType = 4
        }
        return Advertiser(address: address, addressType: addressType, eventType: eventType, data: data,
                          rssi: -40 - random.below(50))
    }

    mutating func step() {
        if random.chance(38) {
            let device = advertisers[random.below(advertisers.count)]
            b.leAdvertisingReport(eventType: device.eventType, addressType: device.addressType, address: device.address,
                                  data: device.data, rssi: Int8(device.rssi - random.below(6)), after: 600)
            return
        }
        let index = random.below(links.count)
        if !links[index].connected {
            connect(index)
        } else {
            traffic(index)
        }
    }

    mutating func att(_ index: Int, _ pdu: [UInt8], sent: Bool) {
        l2cap(index, cid: 0x0004, pdu, sent: sent)
    }

    mutating func smp(_ index: Int, _ pdu: [UInt8], sent: Bool) {
        l2cap(index, cid: 0x0006, pdu, sent: sent)
    }

    /// An L2CAP PDU in as many ACL packets as the link's buffers need; the host's packets are
    /// counted until Number Of Completed Packets reports them.
    mutating func l2cap(_ index: Int, cid: UInt16, _ pdu: [UInt8], sent: Bool) {
        let link = links[index]
        b.l2cap(handle: link.handle, cid: cid, pdu, sent: sent, fragment: link.fragment, after: 900)
        if sent { links[index].unacknowledged += (pdu.count + 4 + link.fragment - 1) / link.fragment }
    }

    /// Connection, Secure Connections pairing and GATT discovery.
    mutating func connect(_ index: Int) {
        let link = links[index]
        links[index].connected = true
        b.command(0x200D, [0x60, 0x00, 0x30, 0x00, 0x00, 0x01] + addressBytes(link.peer)
                  + [0x00, 0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0x48, 0x00, 0x00, 0x00, 0x00, 0x00])
        b.commandStatus(0x200D)
        b.leConnectionComplete(handle: link.handle, role: 0, peerType: 1, peer: link.peer)
        b.command(0x2016, le16(link.handle))                                    // LE Read Remote Features
        b.commandStatus(0x2016)
        b.event(0x3E, [0x04, 0x00] + le16(link.handle) + [0xFF, 0x59, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00])
        if link.fragment > 27 {                                                 // LE Data Length Change
            b.event(0x3E, [0x07] + le16(link.handle) + le16(251) + le16(2120) + le16(251) + le16(2120))
        }
        att(index, [0x02, 0xF7, 0x00], sent: true)                              // Exchange MTU 247
        att(index, [0x03, 0xF7, 0x00], sent: false)

        // LE Secure Connections, Numeric Comparison; the 65-byte public keys fragment on 27-byte links.
        smp(index, [0x01, 0x04, 0x00, 0x2D, 0x10, 0x0B, 0x0B], sent: true)
        smp(index, [0x02, 0x01, 0x00, 0x0D, 0x10, 0x0B, 0x0B], sent: false)
        smp(index, [0x0C] + random.bytes(64), sent: true)
        smp(index, [0x0C] + random.bytes(64), sent: false)
        smp(index, [0x03] + random.bytes(16), sent: false)
        smp(index, [0x04] + random.bytes(16), sent: true)
        smp(index, [0x04] + random.bytes(16), sent: false)
        smp(index, [0x0D] + random.bytes(16), sent: true)
        smp(index, [0x0D] + random.bytes(16), sent: false)
        b.command(0x2019, le16(link.handle) + [UInt8](repeating: 0, count: 10) + random.bytes(16))
        b.commandStatus(0x2019)
        b.event(0x08, [0x00] + le16(link.handle) + [0x01])                      // Encryption Change: on
        smp(index, [0x08] + random.bytes(16), sent: false)                       // Identity Information
        smp(index, [0x09, 0x00] + addressBytes(link.peer), sent: false)          // Identity Address Information

        // Primary services, then characteristics of the sensor service, then its CCCD.
        att(index, [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28], sent: true)
        att(index, [0x11, 0x06, 0x01, 0x00, 0x07, 0x00, 0x00, 0x18, 0x08, 0x00, 0x0B, 0x00, 0x01, 0x18,
                   0x0C, 0x00, 0x0F, 0x00, 0x0F, 0x18], sent: false)
        att(index, [0x10, 0x10, 0x00, 0xFF, 0xFF, 0x00, 0x28], sent: true)
        att(index, [0x11, 0x14, 0x10, 0x00, 0x18, 0x00] + Scenarios.uartService, sent: false)
        att(index, [0x10, 0x19, 0x00, 0xFF, 0xFF, 0x00, 0x28], sent: true)
        att(index, [0x01, 0x10, 0x19, 0x00, 0x0A], sent: false)                  // Attribute Not Found
        // Characteristics found with Find Information and read declaration by declaration, not
        // with Read By Type Request: btmon 5.66 crashes on every Read By Type Request, and the
        // benchmark needs a file all three tools read to the end.
        att(index, [0x04, 0x10, 0x00, 0x18, 0x00], sent: true)
        att(index, [0x05, 0x01, 0x10, 0x00, 0x00, 0x28, 0x11, 0x00, 0x03, 0x28, 0x13, 0x00, 0x03, 0x28,
                    0x15, 0x00, 0x02, 0x29], sent: false)
        att(index, [0x0A, 0x11, 0x00], sent: true)
        att(index, [0x0B, 0x0C, 0x12, 0x00] + Scenarios.uartRX, sent: false)
        att(index, [0x0A, 0x13, 0x00], sent: true)
        att(index, [0x0B, 0x10, 0x14, 0x00] + Scenarios.uartTX, sent: false)
        att(index, [0x0A, 0x0E, 0x00], sent: true)                              // Battery Level
        att(index, [0x0B, UInt8(40 + random.below(60))], sent: false)
        att(index, [0x12, 0x15, 0x00, 0x01, 0x00], sent: true)                  // CCCD: notifications on
        att(index, [0x13], sent: false)
    }

    /// A steady-state step on a connected link.
    mutating func traffic(_ index: Int) {
        let link = links[index]
        let roll = random.below(1000)
        switch roll {
        case 0 ..< 450: // sensor data notification, from a few bytes to a full MTU
            let size = random.chance(70) ? 4 + random.below(16) : 60 + random.below(180)
            att(index, [0x1B, 0x14, 0x00] + random.bytes(size), sent: false)
        case 450 ..< 600: // write command to the RX characteristic
            att(index, [0x52, 0x12, 0x00] + random.bytes(4 + random.below(20)), sent: true)
        case 600 ..< 680: // read of the battery level
            att(index, [0x0A, 0x0E, 0x00], sent: true)
            att(index, [0x0B, UInt8(40 + random.below(60))], sent: false)
        case 680 ..< 700: // write request and its response
            att(index, [0x12, 0x12, 0x00] + random.bytes(8), sent: true)
            att(index, [0x13], sent: false)
        case 700 ..< 705: // a read the peripheral refuses
            att(index, [0x0A, 0x0A, 0x00], sent: true)
            att(index, [0x01, 0x0A, 0x0A, 0x00, 0x02], sent: false)              // Read Not Permitted
        case 705 ..< 708: // the peripheral asks for other connection parameters
            let identifier = UInt8(1 + random.below(200))
            l2cap(index, cid: 0x0005, [0x12, identifier, 0x08, 0x00, 0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0x2C, 0x01], sent: false)
            l2cap(index, cid: 0x0005, [0x13, identifier, 0x02, 0x00, 0x00, 0x00], sent: true)
            b.command(0x2013, le16(link.handle) + [0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0x2C, 0x01, 0x00, 0x00, 0x00, 0x00])
            b.commandStatus(0x2013)
            b.event(0x3E, [0x03, 0x00] + le16(link.handle) + [0x24, 0x00, 0x00, 0x00, 0x2C, 0x01])
        case 708 ..< 710: // the link goes; it comes back on a later step
            if random.chance(50) {
                b.command(0x0406, le16(link.handle) + [0x13])                   // Disconnect: Remote User Terminated
                b.commandStatus(0x0406)
                b.disconnectionComplete(handle: link.handle, reason: 0x16)
            } else {
                b.disconnectionComplete(handle: link.handle, reason: 0x08)      // Connection Timeout
            }
            links[index].connected = false
            links[index].unacknowledged = 0
        default: // the controller reports sent packets
            if link.unacknowledged > 0 {
                b.completedPackets(handle: link.handle, count: UInt16(link.unacknowledged))
                links[index].unacknowledged = 0
            } else {
                att(index, [0x1B, 0x14, 0x00] + random.bytes(6), sent: false)
            }
        }
    }
}
