/// Apple PacketLogger (.pklg). A file is a run of records with no file header:
/// length (4 bytes, counting what follows it), seconds (4), microseconds (4), type (1), payload.
/// Older files (macOS) store the integers big-endian, newer ones (iOS) little-endian.
public enum PacketLogger {
    public static let recordHeaderSize = 13
    public static let maximumRecordLength = 1 << 20

    /// Record type → frame kind and direction.
    public static func kind(for type: UInt8) -> (FrameKind, Direction) {
        switch type {
        case 0x00: return (.command, .sent)
        case 0x01: return (.event, .received)
        case 0x02: return (.aclData, .sent)
        case 0x03: return (.aclData, .received)
        case 0x08: return (.scoData, .sent)
        case 0x09: return (.scoData, .received)
        case 0x0A: return (.lmp, .sent)
        case 0x0B: return (.lmp, .received)
        // PacketLogger's published types stop at SCO/LMP; btlog stores ISO data as 0x0C/0x0D.
        case 0x0C: return (.isoData, .sent)
        case 0x0D: return (.isoData, .received)
        case 0xF7: return (.syslog, .none)
        case 0xF8: return (.kernel, .none)
        case 0xF9: return (.kernelDebug, .none)
        case 0xFA: return (.error, .none)
        case 0xFB: return (.power, .none)
        case 0xFC: return (.note, .none)
        case 0xFD: return (.config, .none)
        case 0xFE: return (.newController, .none)
        default: return (.unrecognized(UInt16(type)), .none)
        }
    }

    public static func type(for kind: FrameKind, direction: Direction) -> UInt8? {
        let received = direction == .received
        switch kind {
        case .command: return 0x00
        case .event: return 0x01
        case .aclData: return received ? 0x03 : 0x02
        case .scoData: return received ? 0x09 : 0x08
        case .lmp, .vendorDiagnostic: return received ? 0x0B : 0x0A
        case .isoData: return received ? 0x0D : 0x0C
        case .syslog: return 0xF7
        case .kernel: return 0xF8
        case .kernelDebug: return 0xF9
        case .error: return 0xFA
        case .power: return 0xFB
        case .note: return 0xFC
        case .config: return 0xFD
        case .newController: return 0xFE
        case .unrecognized(let code) where code <= 0xFF: return UInt8(code)
        default: return nil
        }
    }

    static func isKnownType(_ type: UInt8) -> Bool {
        if case .unrecognized = kind(for: type).0 { return false }
        return true
    }

    /// Does a record header at `offset` of `bytes` look like PacketLogger in this byte order?
    /// Checks the length, the microseconds and the type.
    static func plausibleRecord(_ bytes: ArraySlice<UInt8>, at offset: Int, littleEndian: Bool) -> Int? {
        let i = bytes.startIndex + offset
        guard bytes.endIndex - i >= recordHeaderSize else { return nil }
        var header = ByteCursor(bytes[i ..< i + recordHeaderSize])
        guard let length = (try? header.u32(littleEndian: littleEndian)).map(Int.init), (try? header.skip(4)) != nil,
              let micros = try? header.u32(littleEndian: littleEndian), let type = try? header.u8() else { return nil }
        guard length >= 9, length <= maximumRecordLength, micros < 1_000_000, isKnownType(type) else { return nil }
        return length + 4
    }

    /// The byte order whose first records (up to three) are all plausible, if either.
    /// `whole`: the head is the file's start up to 4 KiB or its end; otherwise it is what a
    /// pipe has delivered so far, and a record header cut at its end proves nothing.
    public static func detectByteOrder(_ head: ArraySlice<UInt8>, whole: Bool = true) -> Bool? {
        for littleEndian in [true, false] {
            var offset = 0
            var records = 0
            while records < 3, let size = plausibleRecord(head, at: offset, littleEndian: littleEndian) {
                records += 1
                offset += size
                if offset >= head.count { break }
            }
            // Every record the head holds whole must be plausible; one is enough for a tiny file.
            let restIsUnread = offset >= head.count || !whole && head.count - offset < recordHeaderSize
            if records > 0, records == 3 || restIsUnread { return littleEndian }
        }
        return nil
    }
}

public final class PacketLoggerReader: FrameReaderBase, FrameReader {
    let input: BufferedReader
    public let littleEndian: Bool
    /// Subtracted from every timestamp: iOS writes the device's local time.
    let utcOffset: Int64
    var finished = false

    /// - Parameter utcOffset: the local time's offset from UTC in microseconds.
    public init(_ input: BufferedReader, name: String, littleEndian: Bool, utcOffset: Int64 = 0) {
        self.input = input
        self.littleEndian = littleEndian
        self.utcOffset = utcOffset
        super.init(name: name)
    }

    public var formatDescription: String {
        "PacketLogger (\(littleEndian ? "little-endian, iOS" : "big-endian, macOS") layout)"
    }
    public var nativeFormat: CaptureFileFormat { .pklg }

    public func next() throws -> Frame? {
        guard !finished else { return nil }
        let offset = input.offset
        guard try input.ensure(PacketLogger.recordHeaderSize) else {
            return end(partial: input.available, at: offset, what: "record header")
        }
        var header = input.cursor(PacketLogger.recordHeaderSize)
        let length = Int(try header.u32(littleEndian: littleEndian))
        let seconds = Int64(try header.u32(littleEndian: littleEndian))
        let micros = Int64(try header.u32(littleEndian: littleEndian))
        let type = try header.u8()
        guard length >= 9, length <= PacketLogger.maximumRecordLength else {
            warn("record at byte \(offset) has an impossible length (\(length)); the rest of the file is not read")
            finished = true
            return nil
        }
        guard try input.ensure(4 + length) else {
            return end(partial: input.available, at: offset, what: "record of \(4 + length) bytes")
        }
        input.skip(PacketLogger.recordHeaderSize)
        let payload = input.take(length - 9)
        let (kind, direction) = PacketLogger.kind(for: type)
        let controller: UInt16 = kind.isHCI || kind == .lmp ? 0 : Frame.systemController
        return Frame(number: nextNumber(), timestamp: seconds * 1_000_000 + micros - utcOffset, kind: kind,
                     direction: direction, controller: controller, bytes: payload)
    }

    private func end(partial: Int, at offset: Int64, what: String) -> Frame? {
        finished = true
        if partial > 0 {
            warn("truncated \(what) at byte \(offset) (\(partial) bytes present); every complete record before it was read")
        }
        return nil
    }
}

/// Writes the little-endian PacketLogger layout. Controller indexes cannot be stored.
public final class PacketLoggerWriter: CaptureWriter {
    let sink: ByteSink
    var record: [UInt8] = []
    let utcOffset: Int64

    public init(sink: ByteSink, utcOffset: Int64 = 0) {
        self.sink = sink
        self.utcOffset = utcOffset
    }

    public func write(_ frame: Frame) throws -> Bool {
        guard let type = PacketLogger.type(for: frame.kind, direction: frame.direction) else { return false }
        let (seconds, micros) = Microseconds.split(frame.timestamp &+ utcOffset)
        record.removeAll(keepingCapacity: true)
        record.appendLE(UInt32(9 + frame.bytes.count))
        record.appendLE(UInt32(truncatingIfNeeded: seconds))
        record.appendLE(UInt32(micros))
        record.append(type)
        record.append(contentsOf: frame.bytes)
        try sink.write(record)
        return true
    }

    public func flush() throws { try sink.flush() }
    public func close() throws { try sink.close() }
}
