/// One wire of a UART between a host and its controller, tapped: the bytes one side sends, as
/// H4 (a type octet, then the HCI packet). The host's wire carries commands and outgoing data,
/// the controller's events and incoming data. A tap starts mid-stream and picks up noise, so
/// packets are found by what they must be: a type the wire carries, a header that makes sense
/// (a command group that exists, an event code the specification defines, a handle in range,
/// an L2CAP length that covers the fragment), and then either content that vouches for it or
/// the starts of the two packets after it (`confirmed`). Bytes that are no packet are skipped
/// and counted. A packet's time is when the bytes that decided it arrived: its own last byte,
/// or, for one that waited for the packets after it, theirs.
public final class H4WireReader: FrameReaderBase, FrameReader, NoiseSkipping {
    public enum Wire: String, Sendable {
        /// What the host sends: commands, ACL/SCO/ISO data out.
        case host
        /// What the controller sends: events, ACL/SCO/ISO data in.
        case controller
    }

    let input: BufferedReader
    public let wire: Wire
    /// The wall clock (µs since the Unix epoch) when the bytes read last arrived.
    let arrival: () -> Int64
    /// Bytes skipped because they were not a packet.
    public private(set) var skippedBytes = 0
    private var skippedSinceFrame = 0

    public init(_ input: BufferedReader, name: String, wire: Wire, arrival: @escaping () -> Int64) {
        self.input = input
        self.wire = wire
        self.arrival = arrival
        super.init(name: name)
    }

    public var formatDescription: String { "H4 (\(wire.rawValue) wire)" }
    public var nativeFormat: CaptureFileFormat { .btsnoopH4 }

    /// The type octets this wire carries.
    public func carries(_ type: UInt8) -> Bool {
        switch type {
        case 0x02, 0x03, 0x05: return true
        case 0x01: return wire == .host
        case 0x04: return wire == .controller
        default: return false
        }
    }

    public func next() throws -> Frame? {
        while try input.ensure(1) {
            let type = input.peek(1).first!
            guard carries(type) else { skip(); continue }
            let headerLength = Self.headerLength(type)
            guard try input.ensure(1 + headerLength) else { break }
            let header = input.peek(1 + headerLength).dropFirst()
            guard let length = Self.payloadLength(type: type, header: header) else { skip(); continue }
            let total = 1 + headerLength + length
            guard try input.ensure(total) else {
                // The wire ended: a header near the end announcing more than is left is no packet.
                if input.available > 0 { skip(); continue }
                break
            }
            let packet = input.peek(total).dropFirst()
            guard Self.fits(type: type, packet: packet, headerLength: headerLength), try confirmed(type, packet, total) else {
                skip()
                continue
            }
            inSync = true
            if type != 0x01 && type != 0x04 { knownHandles.insert(Self.handleKey(type, packet)) }
            if type == 0x04, let opened = Self.openedHandle(packet) { knownHandles.insert(opened) }
            let number = nextNumber()
            if skippedSinceFrame > 0 {
                warn("\(skippedSinceFrame) byte\(skippedSinceFrame == 1 ? "" : "s") that were no H4 packet skipped before packet \(number)")
                skippedSinceFrame = 0
            }
            let bytes = input.take(total).dropFirst()
            return Frame(number: number, timestamp: arrival(), kind: H4.kind(for: type)!,
                         direction: wire == .host ? .sent : .received, bytes: bytes)
        }
        if input.available > 0 {
            let left = input.available
            skippedBytes += left
            warn("the \(wire.rawValue) wire ended inside a packet: its last \(left) byte\(left == 1 ? "" : "s") were not a whole packet")
        }
        return nil
    }

    /// Whether the last packet ended where this one starts: then a command or event that fits,
    /// or data on a handle this wire has carried, is taken as it is (noise after a packet must
    /// not lose the packet).
    private var inSync = false
    /// The (type, handle) pairs of the data packets taken so far: data on a handle never seen
    /// needs more to be believed. Bounded: 3 types by 3,840 handles.
    private var knownHandles = Set<UInt16>()

    static func handleKey(_ type: UInt8, _ packet: ArraySlice<UInt8>) -> UInt16 {
        UInt16(type) << 12 | (UInt16(packet[packet.startIndex]) | UInt16(packet[packet.startIndex + 1]) << 8) & 0x0FFF
    }

    /// The data handle an event opens (Connection Complete, Synchronous Connection Complete,
    /// LE Connection Complete in its three forms, CIS Established), as a (type, handle) key.
    static func openedHandle(_ p: ArraySlice<UInt8>) -> UInt16? {
        let s = p.startIndex
        func key(_ type: UInt8, at: Int) -> UInt16? {
            guard p.count >= at + 2 else { return nil }
            return UInt16(type) << 12 | (UInt16(p[s + at]) | UInt16(p[s + at + 1]) << 8) & 0x0FFF
        }
        switch p[s] {
        case 0x03: return p.count >= 5 && p[s + 2] == 0 ? key(0x02, at: 3) : nil
        case 0x2C: return p.count >= 5 && p[s + 2] == 0 ? key(0x03, at: 3) : nil
        case 0x3E:
            guard p.count >= 6, p[s + 3] == 0 else { return nil }
            switch p[s + 2] {
            case 0x01, 0x0A, 0x29: return key(0x02, at: 4)
            case 0x19: return key(0x05, at: 4)
            default: return nil
            }
        default: return nil
        }
    }

    /// Whether the candidate is believed. A packet whose content vouches for it (a command of
    /// a defined group, an event of the size its code has, data on a handle this wire carried
    /// or an ACL fragment holding a whole L2CAP PDU) is taken in step. Any other must be
    /// followed by the starts of two more packets (the wire's end confirms too). Out of step, data on a handle never
    /// seen is taken only as an ACL start fragment: a continuation, SCO or ISO data carries
    /// nothing that could confirm it.
    private func confirmed(_ type: UInt8, _ packet: ArraySlice<UInt8>, _ total: Int) throws -> Bool {
        let isData = type != 0x01 && type != 0x04
        let known = isData && knownHandles.contains(Self.handleKey(type, packet))
        let vouched = isData ? known || Self.wholePDU(type, packet) : Self.vouched(type, packet)
        if inSync && vouched { return true }
        if !inSync && isData && !known {
            let continuation = type == 0x02 && (Int(packet[packet.startIndex + 1]) >> 4) & 0x3 == 0x1
            if type != 0x02 || continuation { return false }
        }
        // A first fragment on a new handle longer than controllers' ACL buffers (BR/EDR's 1,021
        // bytes, LE's 251) is more likely noise than a controller's.
        if type == 0x02 && !known && packet.count > 4 + 1024 { return false }
        // SCO and ISO data on a handle not seen come in streams: the next packet is more of it
        // (its content says too little for anything else to tell it from noise).
        if (type == 0x03 || type == 0x05) && !known {
            if type == 0x05 && packet.count > 4 + 1024 { return false }   // longer than an ISO buffer holds
            guard try input.ensure(total + 3), input.peek(total + 3).suffix(3).elementsEqual([type] + packet.prefix(2)) else { return false }
        }
        return try followedByPackets(2, from: total)
    }

    /// Whether `count` packet starts (a type this wire carries, a header that makes sense)
    /// follow at `offset`. The bytes are waited for: a packet that does not vouch for itself
    /// is given once the next ones have come (or the wire ended), which on a live wire is a
    /// moment later; a packet that does is given at once.
    private func followedByPackets(_ count: Int, from offset: Int) throws -> Bool {
        var at = offset
        func have(_ n: Int) throws -> Bool { try input.ensure(n) }
        for _ in 0 ..< count {
            guard try have(at + 1) else { return true }
            let next = input.peek(at + 1).last!
            guard carries(next) else { return false }
            let headerLength = Self.headerLength(next)
            guard try have(at + 1 + headerLength) else { return true }
            guard let length = Self.payloadLength(type: next, header: input.peek(at + 1 + headerLength).suffix(headerLength)) else { return false }
            at += 1 + headerLength + length
        }
        return true
    }

    /// The parameter sizes of the events whose size is fixed (Core Vol 4, Part E, 7.7).
    static let eventSizes: [UInt8: Int] = [
        0x01: 1, 0x03: 11, 0x04: 10, 0x05: 4, 0x06: 3, 0x07: 255, 0x08: 4, 0x09: 3, 0x0B: 11, 0x0C: 8, 0x0F: 4,
        0x10: 1, 0x12: 8, 0x14: 6, 0x16: 6, 0x17: 6, 0x18: 23, 0x1B: 3, 0x1C: 5, 0x1D: 5, 0x20: 7, 0x23: 13,
        0x2C: 17, 0x2D: 9, 0x30: 3, 0x31: 6, 0x32: 9, 0x33: 10, 0x34: 6, 0x36: 7, 0x38: 4, 0x3B: 10, 0x3D: 14, 0x57: 2,
    ]

    /// A command of a defined group (its number in range), or an event of its code's size
    /// (Command Complete, Number Of Completed Packets and LE Meta by their own rules).
    static func vouched(_ type: UInt8, _ p: ArraySlice<UInt8>) -> Bool {
        let s = p.startIndex
        if type == 0x01 { return (Int(p[s]) | Int(p[s + 1]) << 8) >> 10 != 0x3F }
        let parameters = Int(p[s + 1])
        if let size = eventSizes[p[s]] { return parameters == size }
        return [0x0E, 0x13, 0x3E].contains(p[s])
    }

    /// An ACL start fragment holding a whole L2CAP PDU (its length says exactly the rest): the
    /// first packet on a new handle usually is one, and noise seldom.
    static func wholePDU(_ type: UInt8, _ p: ArraySlice<UInt8>) -> Bool {
        let s = p.startIndex
        guard type == 0x02, p.count >= 8, (Int(p[s + 1]) >> 4) & 0x3 != 0x1 else { return false }
        return Int(p[s + 4]) | Int(p[s + 5]) << 8 == p.count - 8
    }

    public static func headerLength(_ type: UInt8) -> Int { type == 0x04 ? 2 : type == 0x01 || type == 0x03 ? 3 : 4 }

    private func skip() {
        inSync = false
        input.skip(1)
        skippedBytes += 1
        skippedSinceFrame += 1
    }

    /// Handles 0x0000-0x0EFF are connection handles; the rest of the 12 bits are reserved.
    static let highestHandle = 0x0EFF
    /// Longer than any controller's ACL buffer (BR/EDR's are about 1,021 bytes, LE's 251): a
    /// header announcing more is noise, and waiting for that many bytes would hold up the wire.
    static let longestACL = 8192

    /// Above the highest command each group defines (Core 6.0), with room for a few more: a
    /// command outside is noise. Vendor commands (group 0x3F) take any number.
    static let highestCommand: [Int: Int] = [0x01: 0x50, 0x02: 0x20, 0x03: 0xC0, 0x04: 0x20, 0x05: 0x20, 0x06: 0x20, 0x08: 0xC0]

    /// The event codes the Core specification defines (Vol 4, Part E, 7.7: the gaps are codes
    /// never assigned or withdrawn with AMP), with the testing and vendor codes.
    static let definedEvents: Set<UInt8> = Set(Array(0x01 ... 0x23) + Array(0x2C ... 0x36) + [0x38, 0x39] + Array(0x3B ... 0x3E)
                                                + [0x48] + Array(0x4E ... 0x59) + [0xFE, 0xFF])

    /// The payload length a header announces, if the header is one: nil for a command group
    /// that does not exist, an event code no specification defines, a handle out of range.
    public static func payloadLength(type: UInt8, header h: ArraySlice<UInt8>) -> Int? {
        let s = h.startIndex
        func le16(_ at: Int) -> Int { Int(h[s + at]) | Int(h[s + at + 1]) << 8 }
        switch type {
        case 0x01:
            let group = le16(0) >> 10, command = le16(0) & 0x03FF
            guard let highest = highestCommand[group] else { return group == 0x3F ? Int(h[s + 2]) : nil }
            return (1 ... highest).contains(command) ? Int(h[s + 2]) : nil
        case 0x04:
            return definedEvents.contains(h[s]) ? Int(h[s + 1]) : nil
        case 0x02:
            return le16(0) & 0x0FFF <= highestHandle && le16(2) <= longestACL ? le16(2) : nil
        case 0x03:
            return le16(0) & 0x0FFF <= highestHandle ? Int(h[s + 2]) : nil
        case 0x05:
            return le16(0) & 0x0FFF <= highestHandle ? le16(2) & 0x3FFF : nil
        default:
            return nil
        }
    }

    /// What the whole packet must also be: the events whose parameters have a fixed shape have
    /// it; an ACL start fragment's L2CAP length covers the fragment.
    static func fits(type: UInt8, packet p: ArraySlice<UInt8>, headerLength: Int) -> Bool {
        let s = p.startIndex
        let parameters = p.count - headerLength
        switch type {
        case 0x04:
            switch p[s] {
            case 0x0E: return parameters >= 3                                        // Command Complete
            case 0x0F: return parameters == 4                                        // Command Status
            case 0x13: return parameters >= 1 && parameters == 1 + 4 * Int(p[s + 2]) // Number Of Completed Packets
            case 0x05, 0x08: return parameters == 4                                  // Disconnection Complete, Encryption Change
            case 0x3E: return parameters >= 1 && (0x01 ... 0x3F).contains(p[s + 2])  // LE Meta: a subevent
            default: return true
            }
        case 0x02:
            let boundary = (Int(p[s + 1]) >> 4) & 0x3
            guard boundary != 0x1, parameters >= 4 else { return true }   // a continuation: nothing to check
            let l2capLength = Int(p[s + 4]) | Int(p[s + 5]) << 8
            return parameters <= l2capLength + 4
        default:
            return true
        }
    }
}
