import BTCapture
import BTDecode
import DequeModule

/// `--redact`: a capture made safe to share, as a reader of frames in front of the packet loop,
/// so every export format (JSON as much as btsnoop) gets the same redacted bytes, and what is
/// exported still decodes. Each frame is decoded once here, by a decoder of its own, to find
/// the fields to change by their byte ranges:
/// - keys and pairing values are zeroed (each protocol's `secrets`: SMP keys, confirm and random
///   values, public keys, DHKey checks; HCI link keys, LTKs, PINs, passkeys, OOB data...);
/// - every device address becomes a pseudonym, the same for the same device across files and
///   layers, marked locally administered (`AddressPseudonyms`); addresses written in text
///   records (syslog, notes) are replaced too once the device has been seen;
/// - with `values`, ATT values, what GATT profiles carry above ATT and ANCS strings are zeroed.
/// A key in an L2CAP PDU that arrived in several ACL fragments is mapped back to each fragment:
/// frames are held until the PDU completes (at most `holdLimit` frames).
public final class RedactingReader: FrameReaderWrapper {
    public let base: FrameReader
    let decoder = Decoder()
    let values: Bool
    public let pseudonyms: AddressPseudonyms
    /// Frames read but not handed on: a PDU in fragments is still incomplete.
    var held: [Frame] = []
    /// The serial number of `held[0]`.
    var heldBase = 0
    var serial = 0
    /// Per ACL flow, the fragments of the PDU being reassembled: (serial, payload start, length).
    var fragments: [FlowKey: [(serial: Int, start: Int, count: Int)]] = [:]
    var expected: [FlowKey: Int] = [:]
    /// Frames redacted and ready, handed on from the front.
    var released: Deque<Frame> = []
    static let holdLimit = 4096

    struct FlowKey: Hashable {
        let controller: UInt16
        let handle: UInt16
        let sent: Bool
    }

    public init(_ base: FrameReader, values: Bool, pseudonyms: AddressPseudonyms) {
        self.base = base
        self.values = values
        self.pseudonyms = pseudonyms
    }

    public func next() throws -> Frame? {
        while released.isEmpty {
            guard let frame = try base.next() else {
                released.append(contentsOf: held)
                held.removeAll()
                break
            }
            take(frame)
        }
        return released.isEmpty ? nil : released.removeFirst()
    }

    func take(_ frame: Frame) {
        held.append(frame)
        let mine = serial
        serial += 1
        let flow = trackFragments(frame, serial: mine)
        let packet = decoder.decode(frame)
        redact(packet, serial: mine, flow: flow)
        if let flow, let want = expected[flow], let parts = fragments[flow], parts.reduce(0, { $0 + $1.count }) >= want {
            fragments[flow] = nil
            expected[flow] = nil
        }
        // Hand on everything held once no PDU is waiting for more fragments (or too much waits).
        if fragments.isEmpty || held.count > Self.holdLimit {
            released.append(contentsOf: held)
            heldBase += held.count
            held.removeAll(keepingCapacity: true)
            if !fragments.isEmpty { fragments.removeAll(); expected.removeAll() }
        }
    }

    /// Notes which ACL fragment of which PDU the frame is; the flow, if it is ACL data.
    func trackFragments(_ frame: Frame, serial: Int) -> FlowKey? {
        var c = ByteCursor(frame.bytes)
        guard frame.kind == .aclData, let word = try? c.u16(), (try? c.skip(2)) != nil else { return nil }
        let flow = FlowKey(controller: frame.controller, handle: word & 0x0FFF, sent: frame.direction == .sent)
        let payload = c.remaining
        if word >> 12 & 0x3 == 0x1 { // a continuation
            guard fragments[flow] != nil else { return flow }
            fragments[flow]!.append((serial, 4, payload))
        } else {
            guard let length = (try? c.u16()).map(Int.init) else { return flow }
            fragments[flow] = [(serial, 4, payload)]
            expected[flow] = length + 4
        }
        return flow
    }

    // MARK: Changing bytes

    func redact(_ packet: Packet, serial: Int, flow: FlowKey?) {
        if packet.frame.kind.isText || packet.frame.kind == .syslog || packet.frame.kind == .userLogging {
            return replaceAddressText(serial: serial)
        }
        // Every address the packet names gets its pseudonym now, so the scan below also finds
        // it where no decoder gave it a field (advertising data, a vendor payload).
        for layer in packet.layers {
            for field in layer.fields { if case .address(let address)? = field.inlineValue { _ = pseudonyms.pseudonym(for: address) } }
        }
        defer { replaceAddressBytes(serial: serial) }
        let atATT = packet.layers.firstIndex { $0.kind == .att }
        for (index, layer) in packet.layers.enumerated() {
            let aboveATT = values && atATT.map { index > $0 } ?? false
            if aboveATT {
                write(zerosFor: layer.range, source: layer.source, packet: packet, serial: serial, flow: flow)
                continue
            }
            for field in layer.fields {
                guard let range = field.range else { continue }
                if case .address(let address)? = field.inlineValue {
                    guard let bytes = packet.bytes(of: layer, range), bytes.count == 6 else { continue }
                    let pseudonym = pseudonyms.pseudonym(for: address)
                    let replacement = Array(bytes) == address.littleEndianBytes ? pseudonym.littleEndianBytes
                        : Array(bytes) == address.array ? pseudonym.array : nil
                    if let replacement { write(replacement, at: range, source: layer.source, packet: packet, serial: serial, flow: flow) }
                } else if ProtocolCatalog.secretFields.contains(field.definition.name)
                            || values && ProtocolCatalog.valueFields.contains(field.definition.name) {
                    write(zerosFor: range, source: layer.source, packet: packet, serial: serial, flow: flow)
                }
            }
        }
    }

    func write(zerosFor range: Range<Int>, source: Layer.Source, packet: Packet, serial: Int, flow: FlowKey?) {
        write([UInt8](repeating: 0, count: range.count), at: range, source: source, packet: packet, serial: serial, flow: flow)
    }

    /// Puts `bytes` at `range` of a layer's source: the frame itself, or the reassembled PDU,
    /// whose bytes are the payloads of the flow's fragments one after another.
    func write(_ bytes: [UInt8], at range: Range<Int>, source: Layer.Source, packet: Packet, serial: Int, flow: FlowKey?) {
        switch source {
        case .frame:
            patch(serial: serial, offset: range.lowerBound, bytes)
        case .reassembled(let index):
            guard let flow, let parts = fragments[flow], index < packet.reassembled.count,
                  packet.reassembled[index].count == parts.reduce(0, { $0 + $1.count }) else { return }
            var partStart = 0
            for part in parts {
                let low = max(range.lowerBound, partStart), high = min(range.upperBound, partStart + part.count)
                if low < high {
                    let piece = Array(bytes[low - range.lowerBound ..< high - range.lowerBound])
                    patch(serial: part.serial, offset: part.start + low - partStart, piece)
                }
                partStart += part.count
            }
        }
    }

    /// Overwrites bytes of a held frame, counted from the start of its HCI bytes.
    func patch(serial: Int, offset: Int, _ bytes: [UInt8]) {
        let index = serial - heldBase
        guard index >= 0, index < held.count, offset >= 0, offset + bytes.count <= held[index].bytes.count else { return }
        var copy = Array(held[index].bytes)
        copy.replaceSubrange(offset ..< offset + bytes.count, with: bytes)
        held[index].bytes = copy[...]
    }

    /// Any known address left in the frame's bytes, in either byte order: its pseudonym.
    func replaceAddressBytes(serial: Int) {
        let index = serial - heldBase
        // Audio data is left alone: its bytes are samples, where six may match by chance.
        guard index >= 0, index < held.count, held[index].kind != .scoData, held[index].kind != .isoData,
              held[index].bytes.count >= 6 else { return }
        let patterns = pseudonyms.bytePatterns
        var bytes = Array(held[index].bytes)
        var changed = false
        var position = 0
        while position + 6 <= bytes.count {
            var key: UInt64 = 0
            for offset in 0 ..< 6 { key = key << 8 | UInt64(bytes[position + offset]) }
            if let replacement = patterns[key] {
                bytes.replaceSubrange(position ..< position + 6, with: replacement)
                changed = true
                position += 6
            } else {
                position += 1
            }
        }
        if changed { held[index].bytes = bytes[...] }
    }

    /// A text record (syslog, a note) naming a device already seen: its pseudonym instead.
    func replaceAddressText(serial: Int) {
        let index = serial - heldBase
        guard index >= 0, index < held.count, !pseudonyms.isEmpty else { return }
        var text = Array(held[index].bytes)
        var changed = false
        for (original, pseudonym) in pseudonyms.all {
            for form in [original.description, original.description.lowercased()] {
                let needle = Array(form.utf8), replacement = Array(pseudonym.description.utf8)
                var at = 0
                while at + needle.count <= text.count {
                    if text[at] == needle[0] && Array(text[at ..< at + needle.count]) == needle {
                        text.replaceSubrange(at ..< at + needle.count, with: replacement)
                        changed = true
                        at += needle.count
                    } else {
                        at += 1
                    }
                }
            }
        }
        if changed { held[index].bytes = text[...] }
    }
}

/// Device addresses and their stand-ins: in order of first appearance 02:00:00:00:00:01,
/// 02:00:00:00:00:02... (the locally administered bit set), keeping the two bits that make an
/// LE random address static (11) or resolvable (01), so the address reads as the same kind.
public final class AddressPseudonyms {
    var table: [BDAddr: BDAddr] = [:]
    var order: [BDAddr] = []

    public init() {}

    public var isEmpty: Bool { table.isEmpty }
    public var all: [(BDAddr, BDAddr)] { order.map { ($0, table[$0]!) } }

    /// Each original's six bytes, as read first to last in either byte order, to its
    /// pseudonym's bytes in the same order.
    private(set) var bytePatterns: [UInt64: [UInt8]] = [:]

    static func key(_ bytes: [UInt8]) -> UInt64 { bytes.reduce(0) { $0 << 8 | UInt64($1) } }

    public func pseudonym(for address: BDAddr) -> BDAddr {
        // An address of all zeros or all ones means none (a controller not yet told its own, a
        // broadcast): nothing to hide, and no pseudonym number spent on it.
        if address.packed == 0 || address.packed == 0xFFFF_FFFF_FFFF { return address }
        if let known = table[address] { return known }
        let number = order.count + 1
        var pseudonym = BDAddr("00:00:00:00:00:00")
        pseudonym.bytes = (address.bytes.0 & 0xC0 | 0x02, 0, 0, UInt8(number >> 16 & 0xFF), UInt8(number >> 8 & 0xFF), UInt8(number & 0xFF))
        table[address] = pseudonym
        order.append(address)
        bytePatterns[Self.key(address.littleEndianBytes)] = pseudonym.littleEndianBytes
        bytePatterns[Self.key(address.array)] = pseudonym.array
        return pseudonym
    }
}
