/// btsnoop version 1 (RFC 1761 layout, big-endian), every datalink in use.
///
/// File header: "btsnoop\0", version (1), datalink. Record header: original length, included
/// length, flags, cumulative drops, timestamp in microseconds since 0 AD.
public enum BTSnoop {
    public static let magic: [UInt8] = Array("btsnoop".utf8) + [0]
    /// Microseconds from 0 AD to the Unix epoch.
    public static let epochOffset: Int64 = 0x00dc_ddb3_0f2f_8000
    public static let headerSize = 16
    public static let recordHeaderSize = 24
    /// No HCI packet or monitor frame comes near this; a larger length means a broken record.
    public static let maximumRecordLength = 1 << 20

    public enum Datalink: UInt32, Sendable {
        case hci = 1001, uart = 1002, bcsp = 1003, threeWire = 1004, monitor = 2001

        var name: String {
            switch self {
            case .hci: return "HCI"
            case .uart: return "HCI UART (H4)"
            case .bcsp: return "BCSP"
            case .threeWire: return "HCI three-wire (H5)"
            case .monitor: return "Linux monitor"
            }
        }
    }
}

public final class BTSnoopReader: FrameReaderBase, FrameReader {
    let input: BufferedReader
    public let datalink: BTSnoop.Datalink
    var finished = false

    public init(_ input: BufferedReader, name: String) throws {
        self.input = input
        guard try input.ensure(BTSnoop.headerSize) else {
            throw CaptureError("\(name): btsnoop header cut short at byte \(input.available) of 16")
        }
        guard input.peek(8).elementsEqual(BTSnoop.magic) else {
            throw CaptureError("\(name): not a btsnoop file (first bytes \(firstBytes(input.peek(8))))")
        }
        var header = input.cursor(BTSnoop.headerSize)
        try header.skip(8)
        let version = try header.u32be()
        guard version == 1 else {
            throw CaptureError("\(name): btsnoop version \(version) is not supported (only version 1 exists)")
        }
        let code = try header.u32be()
        guard let datalink = BTSnoop.Datalink(rawValue: code) else {
            throw CaptureError("\(name): unsupported btsnoop datalink \(code) (known: 1001, 1002, 1003, 1004, 2001)")
        }
        self.datalink = datalink
        input.skip(BTSnoop.headerSize)
        super.init(name: name)
    }

    public var formatDescription: String { "btsnoop (datalink \(datalink.rawValue), \(datalink.name))" }

    public var nativeFormat: CaptureFileFormat {
        switch datalink {
        case .hci: return .btsnoopHCI
        case .monitor: return .btsnoopMonitor
        default: return .btsnoopH4
        }
    }

    public func next() throws -> Frame? {
        while !finished {
            let recordOffset = input.offset
            guard try input.ensure(BTSnoop.recordHeaderSize) else {
                finish(partial: input.available, at: recordOffset, what: "record header")
                return nil
            }
            // Each field in one load: `ensure` made the whole header available.
            guard let original = input.bigEndian(at: 0, as: UInt32.self), let included = input.bigEndian(at: 4, as: UInt32.self),
                  let flags = input.bigEndian(at: 8, as: UInt32.self), let drops = input.bigEndian(at: 12, as: UInt32.self),
                  let stampBits = input.bigEndian(at: 16, as: UInt64.self) else {
                // Unreachable after `ensure`; were it reached, the reader says where it stopped.
                finish(partial: input.available, at: recordOffset, what: "record header")
                return nil
            }
            let originalLength = Int(original), includedLength = Int(included)
            let stamp = Int64(bitPattern: stampBits)
            guard includedLength <= BTSnoop.maximumRecordLength else {
                warn("record at byte \(recordOffset) claims \(includedLength) bytes, more than any HCI packet; the rest of the file is not read")
                finished = true
                return nil
            }
            guard try input.ensure(BTSnoop.recordHeaderSize + includedLength) else {
                finish(partial: input.available, at: recordOffset, what: "record of \(BTSnoop.recordHeaderSize + includedLength) bytes")
                return nil
            }
            input.skip(BTSnoop.recordHeaderSize)
            let data = input.take(includedLength)
            let timestamp = stamp &- BTSnoop.epochOffset
            if let frame = makeFrame(data: data, originalLength: originalLength, flags: flags,
                                     drops: drops, timestamp: timestamp, offset: recordOffset) {
                return frame
            }
        }
        return nil
    }

    private func finish(partial: Int, at offset: Int64, what: String) {
        finished = true
        if partial > 0 {
            warn("truncated \(what) at byte \(offset) (\(partial) bytes present); every complete record before it was read")
        }
    }

    private func makeFrame(data: ArraySlice<UInt8>, originalLength: Int, flags: UInt32, drops: UInt32,
                           timestamp: Int64, offset: Int64) -> Frame? {
        let received = flags & 1 != 0
        switch datalink {
        case .monitor:
            let (kind, direction) = MonitorOpcode.kind(for: UInt16(flags & 0xFFFF))
            return Frame(number: nextNumber(), timestamp: timestamp, kind: kind, direction: direction,
                         controller: UInt16(flags >> 16), bytes: data, originalLength: originalLength, drops: drops)
        case .hci:
            let kind: FrameKind = flags & 2 != 0 ? (received ? .event : .command) : .aclData
            return Frame(number: nextNumber(), timestamp: timestamp, kind: kind,
                         direction: received ? .received : .sent, bytes: data,
                         originalLength: originalLength, drops: drops)
        case .uart:
            guard let indicator = data.first else {
                warn("empty record at byte \(offset) skipped")
                return nil
            }
            let kind = H4.kind(for: indicator) ?? .unrecognized(UInt16(indicator))
            return Frame(number: nextNumber(), timestamp: timestamp, kind: kind,
                         direction: received ? .received : .sent, bytes: data.dropFirst(),
                         originalLength: max(0, originalLength - 1), drops: drops)
        case .bcsp, .threeWire:
            let link = LinkPacket.parse(data, bcsp: datalink == .bcsp, received: received)
            return Frame(number: nextNumber(), timestamp: timestamp, kind: link.kind,
                         direction: received ? .received : .sent, bytes: link.payload, drops: drops)
        }
    }
}

/// Writes btsnoop with datalink 1001, 1002 or 2001.
public final class BTSnoopWriter: CaptureWriter {
    let sink: ByteSink
    let datalink: BTSnoop.Datalink
    var record: [UInt8] = []

    public init(sink: ByteSink, datalink: BTSnoop.Datalink) throws {
        precondition([.hci, .uart, .monitor].contains(datalink), "btlog writes btsnoop 1001, 1002 and 2001")
        self.sink = sink
        self.datalink = datalink
        var header = BTSnoop.magic
        header.appendBE(UInt32(1))
        header.appendBE(datalink.rawValue)
        try sink.write(header)
    }

    public func write(_ frame: Frame) throws -> Bool {
        var prefix: UInt8? = nil
        var flags: UInt32
        let received: UInt32 = frame.direction == .received ? 1 : 0
        switch datalink {
        case .monitor:
            guard let opcode = MonitorOpcode.opcode(for: frame.kind, direction: frame.direction) else { return false }
            flags = UInt32(frame.controller) << 16 | UInt32(opcode)
        case .uart:
            switch frame.kind {
            case .unrecognized(let code) where code <= 0xFF: prefix = UInt8(code)
            default:
                guard let indicator = H4.indicator(for: frame.kind) else { return false }
                prefix = indicator
            }
            flags = received | (frame.kind == .command || frame.kind == .event ? 2 : 0)
        default:
            switch frame.kind {
            case .command, .event: flags = received | 2
            case .aclData: flags = received
            default: return false
            }
        }
        let extra = prefix == nil ? 0 : 1
        record.removeAll(keepingCapacity: true)
        record.appendBE(UInt32(frame.originalLength + extra))
        record.appendBE(UInt32(frame.bytes.count + extra))
        record.appendBE(flags)
        record.appendBE(frame.drops)
        record.appendBE(UInt64(bitPattern: frame.timestamp &+ BTSnoop.epochOffset))
        if let prefix { record.append(prefix) }
        record.append(contentsOf: frame.bytes)
        try sink.write(record)
        return true
    }

    public func flush() throws { try sink.flush() }
    public func close() throws { try sink.close() }
}
