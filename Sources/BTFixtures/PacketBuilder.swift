import BTCapture

/// Builds HCI packets from their fields, byte by byte as the Core specification lays them out.
/// Each helper names the specification's packet so fixtures read like a trace.
public struct PacketBuilder {
    public private(set) var frames: [Frame] = []
    /// Microseconds since the Unix epoch of the next packet.
    public var clock: Int64
    public var controller: UInt16 = 0
    /// Frames already handed out by `drain()`; numbering continues after them.
    var drained = 0

    public init(start: Int64) { clock = start }

    /// Hands out the frames built so far and forgets them, so that long sessions stream.
    public mutating func drain() -> [Frame] {
        let out = frames
        drained += out.count
        frames.removeAll(keepingCapacity: true)
        return out
    }

    public mutating func advance(_ micros: Int64) { clock += micros }

    public mutating func add(_ kind: FrameKind, _ direction: Direction, _ bytes: [UInt8], after micros: Int64 = 1000,
                             controller: UInt16? = nil) {
        clock += micros
        frames.append(Frame(number: drained + frames.count + 1, timestamp: clock, kind: kind, direction: direction,
                            controller: controller ?? (kind.isHCI ? self.controller : Frame.systemController),
                            bytes: bytes))
    }

    // MARK: HCI

    public mutating func command(_ opcode: UInt16, _ parameters: [UInt8] = [], after: Int64 = 1000) {
        add(.command, .sent, le16(opcode) + [UInt8(parameters.count)] + parameters, after: after)
    }

    public mutating func event(_ code: UInt8, _ parameters: [UInt8], after: Int64 = 400) {
        add(.event, .received, [code, UInt8(parameters.count)] + parameters, after: after)
    }

    public mutating func commandComplete(_ opcode: UInt16, _ returned: [UInt8] = [0x00], after: Int64 = 400) {
        event(0x0E, [0x01] + le16(opcode) + returned, after: after)
    }

    public mutating func commandStatus(_ opcode: UInt16, status: UInt8 = 0, after: Int64 = 400) {
        event(0x0F, [status, 0x01] + le16(opcode), after: after)
    }

    /// A command and the Command Complete that answers it.
    public mutating func exchange(_ opcode: UInt16, _ parameters: [UInt8] = [], returns: [UInt8] = [0x00]) {
        command(opcode, parameters)
        commandComplete(opcode, returns)
    }

    public mutating func leAdvertisingReport(eventType: UInt8, addressType: UInt8, address: String, data: [UInt8],
                                             rssi: Int8, after: Int64 = 2000) {
        let report = [eventType, addressType] + addressBytes(address) + [UInt8(data.count)] + data + [UInt8(bitPattern: rssi)]
        event(0x3E, [0x02, 0x01] + report, after: after)
    }

    public mutating func leConnectionComplete(handle: UInt16, role: UInt8, peerType: UInt8, peer: String,
                                              interval: UInt16 = 24, latency: UInt16 = 0, timeout: UInt16 = 72) {
        event(0x3E, [0x01, 0x00] + le16(handle) + [role, peerType] + addressBytes(peer)
              + le16(interval) + le16(latency) + le16(timeout) + [0x00])
    }

    public mutating func connectionComplete(handle: UInt16, peer: String, status: UInt8 = 0) {
        event(0x03, [status] + le16(handle) + addressBytes(peer) + [0x01, 0x00])
    }

    public mutating func disconnectionComplete(handle: UInt16, reason: UInt8) {
        event(0x05, [0x00] + le16(handle) + [reason])
    }

    public mutating func completedPackets(handle: UInt16, count: UInt16 = 1) {
        event(0x13, [0x01] + le16(handle) + le16(count), after: 3000)
    }

    // MARK: ACL and L2CAP

    /// One L2CAP basic frame on `cid`, split into ACL fragments of at most `fragment` bytes.
    public mutating func l2cap(handle: UInt16, cid: UInt16, _ payload: [UInt8], sent: Bool, fragment: Int = 251,
                               after: Int64 = 1500) {
        let pdu = le16(UInt16(payload.count)) + le16(cid) + payload
        var offset = 0
        var first = true
        while offset < pdu.count {
            let piece = Array(pdu[offset ..< min(offset + fragment, pdu.count)])
            let pb: UInt16 = first ? 0x2 : 0x1
            add(.aclData, sent ? .sent : .received, le16(handle | pb << 12) + le16(UInt16(piece.count)) + piece,
                after: first ? after : 300)
            offset += piece.count
            first = false
        }
    }

    public mutating func att(handle: UInt16, _ pdu: [UInt8], sent: Bool, after: Int64 = 1500) {
        l2cap(handle: handle, cid: 0x0004, pdu, sent: sent, after: after)
    }

    // MARK: Records that are not HCI

    public mutating func note(_ kind: FrameKind, _ text: String, after: Int64 = 500) {
        add(kind, .none, Array(text.utf8) + [0], after: after)
    }

    /// PacketLogger's syslog record: pid, level, then NUL-terminated process, sender,
    /// subsystem, category and message.
    public mutating func syslog(pid: UInt32, level: UInt8, process: String, sender: String, subsystem: String,
                                category: String, message: String, after: Int64 = 500) {
        var payload = le32(pid) + [level]
        for text in [process, sender, subsystem, category, message] { payload += Array(text.utf8) + [0] }
        add(.syslog, .none, payload, after: after)
    }
}

public func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
public func le32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }
public func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
public func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
public func be64(_ v: UInt64) -> [UInt8] { be32(UInt32(v >> 32)) + be32(UInt32(v & 0xFFFF_FFFF)) }

/// "AA:BB:CC:DD:EE:FF" → the 6 bytes little-endian, as HCI carries them.
public func addressBytes(_ text: String) -> [UInt8] {
    text.split(separator: ":").map { UInt8($0, radix: 16)! }.reversed()
}

/// The air's error checks (the LE CRC, BR/EDR's HEC and CRC) as an LFSR written out position by
/// position, apart from the decoders' register arithmetic, so each checks the other: positions
/// preset with the initial value's bits, each input bit (bytes least significant bit first)
/// XORed with the top position and fed back into position 0 and the taps; the check is the
/// positions read from the top down, as sent, bit 0 first.
func airCheck(bits: [Bool], initial: UInt32, width: Int, taps: [Int]) -> UInt32 {
    var positions = (0 ..< width).map { initial >> UInt32($0) & 1 == 1 }
    for input in bits {
        let feedback = positions[width - 1] != input
        var next = [Bool](repeating: false, count: width)
        next[0] = feedback
        for i in 1 ..< width { next[i] = positions[i - 1] }
        for tap in taps { next[tap] = next[tap] != feedback }
        positions = next
    }
    var value: UInt32 = 0
    for sent in 0 ..< width where positions[width - 1 - sent] { value |= 1 << UInt32(sent) }
    return value
}

/// Bytes as the air sends their bits: each byte's least significant bit first.
func airBits(_ bytes: [UInt8]) -> [Bool] { bytes.flatMap { byte -> [Bool] in (0 ..< 8).map { byte >> UInt8($0) & 1 == 1 } } }
