import BTCapture

/// BR/EDR baseband packets as a sniffer takes them from the air (LINKTYPE_BLUETOOTH_BREDR_BB,
/// Ubertooth following a piconet): the pseudo-header, the 18-bit packet header (Core Vol 2,
/// Part B, 6.4), and the payload (6.5-6.6): FHS field by field, ACL payloads with their payload
/// header, L2CAP fragments handed to the same L2CAP decoder as HCI ACL data (the piconet's LAP
/// and the LT_ADDR standing in for the HCI handle), LMP and synchronous payloads as bytes.
enum BasebandDecoder {
    static let descriptor = ProtocolDescriptor(name: "BR/EDR Baseband", fields: BasebandFields.all, layers: [.baseband], state: BasebandState.self)

    static let transportNames: [UInt8: String] = [0: "Any (link unknown)", 1: "SCO", 2: "eSCO", 3: "ACL", 4: "CSB"]
    static let rateNames: [UInt8: String] = [0: "BR (GFSK)", 1: "EDR 2 Mb/s (π/4-DQPSK)", 2: "EDR 3 Mb/s (8DPSK)"]
    static let llidNames: [UInt8: String] = [0: "Reserved", 1: "L2CAP continuation (or empty)", 2: "L2CAP start", 3: "LMP"]

    /// Core Vol 2, Part B, Table 6.2 by column: the type codes 4-15 on each logical transport
    /// and rate (0-3 are NULL, POLL, FHS and DM1 on every one).
    static let scoTypes: [UInt8: String] = [5: "HV1", 6: "HV2", 7: "HV3", 8: "DV"]
    static let escoTypes: [[UInt8: String]] = [[7: "EV3", 12: "EV4", 13: "EV5"], [6: "2-EV3", 12: "2-EV5"], [7: "3-EV3", 13: "3-EV5"]]
    static let aclTypes: [UInt8: String] = [4: "DH1", 9: "AUX1", 10: "DM3", 11: "DH3", 14: "DM5", 15: "DH5"]
    static let aclEDRTypes: [UInt8: String] = [4: "2-DH1", 8: "3-DH1", 9: "AUX1", 10: "2-DH3", 11: "3-DH3", 14: "2-DH5", 15: "3-DH5"]
    static let commonTypes = ["NULL", "POLL", "FHS", "DM1"]

    /// The packet type's name on its logical transport and rate.
    static func typeName(_ type: UInt8, transport: UInt8, rate: UInt8) -> String {
        if type < 4 { return commonTypes[Int(type)] }
        switch transport {
        case 1: return scoTypes[type] ?? "Undefined (SCO type \(type))"
        case 2: return escoTypes[safe: Int(rate)]?[type] ?? "Undefined (eSCO type \(type))"
        default: return (rate == 1 || rate == 2 ? aclEDRTypes : aclTypes)[type] ?? "Undefined (ACL type \(type))"
        }
    }

    static func decode(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session) throws {
        var layer = packet.makeLayer(.baseband, over: c, showsDirection: false)
        var appended = false
        defer { if !appended { packet.append(taking: &layer) } }
        let f = BasebandFields.self
        let start = c.index
        let rf = try c.u8(), signal = try c.i8(), noise = try c.i8(), offenses = try c.u8(), transportRate = try c.u8()
        let correctedHeader = try c.u8(), correctedPayload = try c.u16()
        let lap = try c.u32(), refLAP = try c.u24(), refUAP = try c.u8(), header = try c.u32(), flags = try c.u16()
        let isID = transportRate == 0xFF
        let transport = transportRate >> 4, rate = transportRate & 0x0F
        layer.add(f.rfChannel, .u8(rf), "\(rf) (\(2402 + Int(rf)) MHz)", at: layer.range(at: start))
        if flags & 0x0002 != 0 { layer.add(f.signal, .signed(Int64(signal)), "\(signal) dBm", at: layer.range(at: start + 1)) }
        if flags & 0x0004 != 0 { layer.add(f.noise, .signed(Int64(noise)), "\(noise) dBm", at: layer.range(at: start + 2)) }
        layer.add(f.offenses, .u8(offenses), inDecimal: true, at: layer.range(at: start + 3))
        layer.add(f.transportRate, .u8(transportRate), isID ? "ID packet (no header, no payload)"
                  : "\(transportNames[transport] ?? "Reserved"), \(rateNames[rate] ?? "Reserved")", at: layer.range(at: start + 4))
        if !isID {
            layer.add(f.transport, .u8(transport), named: transportNames[transport] ?? "Reserved", at: layer.range(at: start + 4))
            layer.add(f.rate, .u8(rate), named: rateNames[rate] ?? "Reserved", at: layer.range(at: start + 4))
        }
        layer.add(f.correctedHeaderBits, .u8(correctedHeader), inDecimal: true, at: layer.range(at: start + 5))
        layer.add(f.correctedPayloadBits, .signed(Int64(Int16(bitPattern: correctedPayload))), inDecimal: true, at: layer.range(at: start + 6, count: 2))
        layer.add(f.lap, .u32(lap), at: layer.range(at: start + 8, count: 4))
        if flags & 0x0010 != 0 { layer.add(f.referenceLAP, .unsigned(UInt64(refLAP), width: 6), at: layer.range(at: start + 12, count: 3)) }
        if flags & 0x0080 != 0 { layer.add(f.referenceUAP, .u8(refUAP), at: layer.range(at: start + 15)) }
        layer.add(f.flags, .u16(flags), describeFlags(flags), at: layer.range(at: start + 20, count: 2))
        let piconet = lap & 0xFF_FFFF
        // Inquiry and its FHS responses use the general or a dedicated inquiry access code,
        // whose HEC and CRC start from the DCI (0x00) instead of the UAP.
        let inquiry = piconet & 0xFF_FFC0 == 0x9E_8B00
        let uap: UInt8? = inquiry ? 0x00 : flags & 0x0080 != 0 ? refUAP : nil
        if isID {
            layer.summary.set("ID - LAP \(Hex.format(piconet, width: 6))\(inquiry ? " (inquiry)" : "")")
            if !c.isAtEnd { layer.addIssue(.warning, "An ID packet with \(c.remaining) bytes of payload") }
            return
        }

        // The packet header, 18 bits in air order from bit 0.
        let ltAddr = UInt8(header & 0x7), type = UInt8(header >> 3 & 0xF), flow = header >> 7 & 1, arqn = header >> 8 & 1, seqn = header >> 9 & 1
        let hec = UInt8(header >> 10 & 0xFF)
        let name = typeName(type, transport: transport, rate: rate)
        let headerRange = layer.range(at: start + 16, count: 4)
        layer.add(f.packetHeader, .u32(header), at: headerRange)
        layer.add(f.ltAddr, .u8(ltAddr), inDecimal: true, at: headerRange)
        layer.add(f.type, .u8(type), named: name, at: headerRange)
        layer.add(f.flowControl, .bool(flow != 0), flow != 0 ? "Go" : "Stop", at: headerRange)
        layer.add(f.arqn, .bool(arqn != 0), arqn != 0 ? "ACK" : "NAK", at: headerRange)
        layer.add(f.seqn, .bool(seqn != 0), "\(seqn)", at: headerRange)
        layer.add(f.hec, .u8(hec), at: headerRange)
        if header >> 18 != 0 { layer.addIssue(.warning, "The packet header's reserved bits 18-31 are not zero") }
        layer.summary.set("\(name) - LAP \(Hex.format(piconet, width: 6)) LT_ADDR \(ltAddr) - ARQN \(arqn) SEQN \(seqn)")
        // The sniffer's verdicts stand; without them, btlog checks with the UAP it was given.
        var hecOK: Bool? = flags & 0x0100 != 0 ? flags & 0x0200 != 0 : nil
        if hecOK == nil, let uap { hecOK = BasebandCheck.hec(header & 0x3FF, initial: uap) == hec }
        if let hecOK { layer.add(f.hecOK, .bool(hecOK), hecOK ? "Good" : "Bad", at: headerRange) }
        if hecOK == false {
            layer.summary += " (header damaged)"
            layer.addIssue(.error, "HEC failure: the packet header was received damaged (the payload is not decoded)")
            if !c.isAtEnd { try layer.read(f.data, &c, bytes: c.remaining) }
            return
        }
        if flags & 0x0020 == 0 {
            if !c.isAtEnd { layer.addIssue(.warning, "Payload bytes follow, but the flags say no payload is present") }
            return
        }
        var crcOK: Bool? = flags & 0x0400 != 0 ? flags & 0x0800 != 0 : nil
        if crcOK == nil, let uap, let covered = crcCovered(c, type: type, transport: transport) {
            crcOK = BasebandCheck.crc(covered.payload, initial: uap) == covered.crc
        }
        let crcBad = crcOK == false
        if let crcOK { layer.add(f.crcOK, .bool(crcOK), crcOK ? "Good" : "Bad") }
        if crcBad {
            // An encrypted payload's CRC cannot be checked without the key either.
            layer.addIssue(.error, "CRC failure: the payload was received damaged, or is encrypted (not decoded further, not reassembled)")
        }
        let link = BasebandState.LinkKey(lap: piconet, ltAddr: ltAddr)
        switch (type, transport) {
        case (0, _), (1, _):
            if !c.isAtEnd { layer.addIssue(.warning, "\(name) carries no payload, but \(c.remaining) bytes follow") }
        case (2, _):
            try decodeFHS(&c, into: &layer)
        case (5...8, 1), (6, 2), (7, 2), (12, 2), (13, 2):
            // Synchronous: voice or transparent data, no payload header; eSCO adds a CRC.
            let withCRC = transport == 2
            let data = try layer.read(f.isochronousData, &c, bytes: c.remaining - (withCRC ? min(2, c.remaining) : 0))
            layer.summary += " - \(data.count) bytes of voice"
            if withCRC, c.remaining == 2 { try layer.read(f.crc, &c, as: UInt16.self) }
        default:
            packet.handle = session.baseband.handle(for: link)
            layer.add(f.handle, .u16(packet.handle!))
            let handoff = try decodeACL(&c, type: type, rate: rate, name: name, crcBad: crcBad, into: &layer)
            appended = true
            packet.append(taking: &layer)
            if let handoff { try L2CAPDecoder.receive(handoff.payload, pb: handoff.pb, into: &packet, session: &session) }
        }
    }

    /// The bytes a packet's CRC covers (payload header and payload) and the CRC after them,
    /// for the types that carry one.
    static func crcCovered(_ c: ByteCursor, type: UInt8, transport: UInt8) -> (payload: ArraySlice<UInt8>, crc: UInt16)? {
        let bytes = c.bytes[c.index...]
        switch (type, transport) {
        case (0, _), (1, _), (9, _), (5...8, 1): return nil
        case (2, _): guard bytes.count >= 20 else { return nil }
            return (bytes.prefix(18), UInt16(bytes[bytes.startIndex + 18]) | UInt16(bytes[bytes.startIndex + 19]) << 8)
        default:
            guard bytes.count >= 2 else { return nil }
            let payload = bytes.dropLast(2)
            return (payload, UInt16(bytes[bytes.endIndex - 2]) | UInt16(bytes[bytes.endIndex - 1]) << 8)
        }
    }

    static func describeFlags(_ flags: UInt16) -> String {
        let names: [(UInt16, String)] = [(0x0001, "dewhitened"), (0x0002, "signal valid"), (0x0004, "noise valid"), (0x0008, "decrypted"),
                                         (0x0010, "reference LAP valid"), (0x0020, "payload present"), (0x0040, "channel aliased"),
                                         (0x0080, "reference UAP valid"), (0x0100, "HEC checked"), (0x0200, "HEC passed"),
                                         (0x0400, "CRC checked"), (0x0800, "CRC passed"), (0x1000, "MIC checked"), (0x2000, "MIC passed")]
        let set = names.filter { flags & $0.0 != 0 }.map(\.1)
        return "\(Hex.u16(flags))\(set.isEmpty ? "" : " (" + set.joined(separator: ", ") + ")")"
    }

    /// An ACL packet's payload: its header (one byte in single-slot BR packets, two in
    /// multi-slot and EDR ones), the data, and the CRC (none in AUX1).
    static func decodeACL(_ c: inout ByteCursor, type: UInt8, rate: UInt8, name: String, crcBad: Bool,
                          into layer: inout Layer) throws -> LinkLayerDecoder.L2CAPHandoff? {
        let f = BasebandFields.self
        let oneByteHeader = type == 3 || type == 9 || (rate == 0 && type == 4)
        let headerStart = c.index
        let headerRange = layer.range(at: headerStart, count: oneByteHeader ? 1 : 2)
        let llid: UInt8, flow: Bool, length: Int
        if oneByteHeader {
            let byte = try c.u8()
            llid = byte & 0x3; flow = byte & 0x4 != 0; length = Int(byte >> 3)
            layer.add(f.payloadHeader, .u16(UInt16(byte)), at: layer.range(at: headerStart))
        } else {
            let word = try c.u16()
            llid = UInt8(word & 0x3); flow = word & 0x4 != 0; length = Int(word >> 3 & 0x3FF)
            layer.add(f.payloadHeader, .u16(word), at: layer.range(at: headerStart, count: 2))
        }
        layer.add(f.llid, .u8(llid), named: llidNames[llid]!, at: headerRange)
        layer.add(f.payloadFlow, .bool(flow), flow ? "Go" : "Stop", at: headerRange)
        layer.add(f.payloadLength, .u16(UInt16(length)), inDecimal: true, at: headerRange)
        let hasCRC = type != 9
        guard c.remaining >= length else {
            let available = c.remaining
            try layer.read(f.data, &c, bytes: available)
            throw DecodeError.truncated(needed: length, available: available, at: c.offset)
        }
        let dataRange = layer.range(at: c.index, count: length)
        let data = try c.slice(length)
        if hasCRC {
            if c.remaining >= 2 { try layer.read(f.crc, &c, as: UInt16.self) }
            else { layer.addIssue(.warning, "\(name) lacks its 2-byte CRC") }
        }
        if !c.isAtEnd { layer.addIssue(.warning, "\(c.remaining) bytes after the payload and its CRC") }
        switch llid {
        case 3:
            layer.add(f.lmpData, .bytes(data), at: dataRange)
            if let first = data.first {
                let firstRange = dataRange.lowerBound ..< dataRange.lowerBound + 1
                layer.add(f.lmpOpcode, .u8(first >> 1), inDecimal: true, at: firstRange)
                layer.add(f.lmpTransaction, .bool(first & 1 != 0), first & 1 != 0 ? "Peripheral initiated" : "Central initiated", at: firstRange)
                layer.summary += " - LMP, opcode \(first >> 1), \(data.count) bytes (not decoded further)"
            } else {
                layer.summary += " - LMP, empty"
            }
            return nil
        case 1, 2:
            if llid == 1 && data.isEmpty {
                layer.summary += " - empty"
                return nil
            }
            layer.summary += " - \(llid == 2 ? "L2CAP start" : "L2CAP continuation"), \(data.count) bytes"
            if crcBad {
                layer.add(f.data, .bytes(data), at: dataRange)
                return nil
            }
            return LinkLayerDecoder.L2CAPHandoff(payload: data, pb: llid == 2 ? 2 : 1)
        default:
            layer.add(f.data, .bytes(data), at: dataRange)
            layer.summary += " - reserved LLID 0"
            layer.addIssue(.warning, "ACL payload with the reserved LLID 0")
            return nil
        }
    }

    /// FHS (Core Vol 2, Part B, 6.5.1.4): 144 bits: parity, LAP, EIR, reserved, SR, SP, UAP,
    /// NAP, class of device, LT_ADDR, CLK27-2, page scan mode; then the CRC.
    static func decodeFHS(_ c: inout ByteCursor, into layer: inout Layer) throws {
        let f = BasebandFields.self
        let bytes = try c.slice(18)
        var bits = BitReader(bytes)
        let parity = bits.take(34), lap = bits.take(24), eir = bits.take(1)
        _ = bits.take(1)
        let sr = bits.take(2)
        _ = bits.take(2)
        let uap = bits.take(8), nap = bits.take(16), cod = bits.take(24), ltAddr = bits.take(3), clock = bits.take(26), pageScan = bits.take(3)
        let octets: [UInt8] = [UInt8(lap & 0xFF), UInt8(lap >> 8 & 0xFF), UInt8(lap >> 16 & 0xFF), UInt8(uap), UInt8(nap & 0xFF), UInt8(nap >> 8)]
        let address = BDAddr(littleEndian: octets[...])
        /// The bytes that hold `width` bits from bit `offset` of the FHS payload.
        func span(_ offset: Int, _ width: Int) -> Range<Int> {
            layer.range(at: bytes.startIndex + offset / 8, count: (offset + width + 7) / 8 - offset / 8)
        }
        layer.add(f.fhsParity, .unsigned(parity, width: 9), at: span(0, 34))
        layer.add(f.fhsLAP, .unsigned(lap, width: 6), at: span(34, 24))
        layer.add(f.fhsEIR, .bool(eir != 0), eir != 0 ? "Extended inquiry response follows" : "None", at: span(58, 1))
        layer.add(f.fhsSR, .u8(UInt8(sr)), named: ["R0", "R1", "R2", "Reserved"][Int(sr)], at: span(60, 2))
        layer.add(f.fhsUAP, .u8(UInt8(uap)), at: span(64, 8))
        layer.add(f.fhsNAP, .u16(UInt16(nap)), at: span(72, 16))
        layer.add(f.fhsAddress, .address(address), at: span(34, 54))
        layer.add(f.fhsClass, .unsigned(cod, width: 6), at: span(88, 24))
        layer.add(f.fhsLTAddr, .u8(UInt8(ltAddr)), inDecimal: true, at: span(112, 3))
        layer.add(f.fhsClock, .u32(UInt32(clock)), "\(clock) (\(Double(clock) * 1.25) ms)", at: span(115, 26))
        layer.add(f.fhsPageScanMode, .u8(UInt8(pageScan)), inDecimal: true, at: span(141, 3))
        if c.remaining >= 2 { try layer.read(f.crc, &c, as: UInt16.self) }
        layer.summary += " - \(address), LT_ADDR \(ltAddr)"
    }
}

/// The baseband's error checks (Core Vol 2, Part B, 7.1): the 8-bit HEC over the header's
/// 10 bits and the 16-bit CRC-CCITT over payload header and payload, each register preset with
/// the UAP (the DCI, 0x00, for inquiry), fed each byte's least significant bit first and sent
/// from its highest position down, so the captured value holds the register's bits reversed.
enum BasebandCheck {
    static func hec(_ header: UInt32, initial: UInt8) -> UInt8 {
        var register = initial
        for bit in 0 ..< 10 {
            let feedback = (register >> 7 ^ UInt8(header >> UInt32(bit) & 1)) & 1
            register <<= 1
            if feedback != 0 { register ^= 0xA7 }
        }
        return register.bitReversed
    }

    static func crc(_ bytes: ArraySlice<UInt8>, initial: UInt8) -> UInt16 {
        var register = UInt16(initial)
        for byte in bytes {
            for bit in 0 ..< 8 {
                let feedback = (register >> 15 ^ UInt16(byte >> UInt8(bit) & 1)) & 1
                register <<= 1
                if feedback != 0 { register ^= 0x1021 }
            }
        }
        return UInt16(UInt8(register & 0xFF).bitReversed) << 8 | UInt16(UInt8(register >> 8).bitReversed)
    }
}

/// Bits of a little-endian buffer taken from bit 0 up, as the baseband sends them.
struct BitReader {
    let bytes: ArraySlice<UInt8>
    var position = 0

    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    mutating func take(_ count: Int) -> UInt64 {
        var value: UInt64 = 0
        for bit in 0 ..< count {
            let index = bytes.startIndex + (position + bit) / 8
            guard index < bytes.endIndex else { break }
            value |= UInt64(bytes[index] >> UInt8((position + bit) % 8) & 1) << UInt64(bit)
        }
        position += count
        return value
    }
}

/// The piconet links a baseband capture shows, by LAP and LT_ADDR, each numbered as an HCI
/// handle is so that L2CAP and what runs above it key their state by it.
public struct BasebandState: ProtocolState {
    public static var slot: Int { StateSlot.baseband.rawValue }

    struct LinkKey: WordKey {
        var lap: UInt32
        var ltAddr: UInt8

        var hashWord: UInt64 { UInt64(lap) << 8 | UInt64(ltAddr) }
    }

    var handles: [LinkKey: UInt16] = [:]

    public init() {}

    mutating func handle(for link: LinkKey) -> UInt16 {
        if let known = handles[link] { return known }
        let made = UInt16(handles.count % 0x0EFF + 1)
        handles[link] = made
        return made
    }

    public mutating func close(_ link: Session.LinkKey) -> [String] { [] }
    public mutating func finish() -> [SessionReport] { [] }
}

extension Session {
    var baseband: BasebandState {
        _read { yield self[BasebandState.self] }
        _modify { yield &self[BasebandState.self] }
    }
}

/// The layers this decoder makes.
extension LayerKind {
    public static let baseband = LayerKind(named: "BR/EDR BB")
}
