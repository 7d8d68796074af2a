#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes pcapng: a Section Header Block, one Interface Description Block of link type 254
/// (Linux monitor: keeps controller indexes and notes), or of an air capture's own link type
/// when the first frame was taken from the air, and an Enhanced Packet Block per frame.
/// Frames of a merge (`Frame.origin`) get an interface per source, named after it, so
/// Wireshark shows which capture each came from; each keeps its own controller indexes.
/// Little-endian; timestamps in microseconds (the default if_tsresol).
public final class PcapNGWriter: CaptureWriter {
    let sink: ByteSink
    var block: [UInt8] = []
    /// The interfaces written so far, by source (0: frames of no merge), with their ID and link type.
    var interfaces: [Int: (id: UInt32, linkType: PcapLinkType)] = [:]
    var interfaceCount: UInt32 = 0
    var lastInterface: (source: Int, id: UInt32, linkType: PcapLinkType)?

    public init(sink: ByteSink) throws {
        self.sink = sink
        var header: [UInt8] = []
        // Section Header Block
        header.appendLE(UInt32(0x0A0D_0D0A))
        header.appendLE(UInt32(28))
        header.appendLE(UInt32(0x1A2B_3C4D))
        header.appendLE(UInt16(1))
        header.appendLE(UInt16(0))
        header.appendLE(UInt32(0xFFFF_FFFF))
        header.appendLE(UInt32(0xFFFF_FFFF)) // section length unknown
        header.appendLE(UInt32(28))
        try sink.write(header)
    }

    /// An Interface Description Block: link type 254 unless the frame came from the air; a
    /// merged source's name as its if_name.
    func writeInterface(for frame: Frame?, source: Int) throws -> (id: UInt32, linkType: PcapLinkType) {
        var type = PcapLinkType.linuxMonitor
        if case .air(let air)? = frame?.kind, let own = PcapLinkType(rawValue: air.rawValue) { type = own }
        var options: [UInt8] = []
        if let name = frame?.origin?.name, source != 0 {
            let text = Array(name.utf8.prefix(0xFFFF))
            options.appendLE(UInt16(2)) // if_name
            options.appendLE(UInt16(text.count))
            options.append(contentsOf: text)
            options.append(contentsOf: repeatElement(0, count: (4 - text.count % 4) % 4))
            options.appendLE(UInt32(0)) // opt_endofopt
        }
        let total = UInt32(20 + options.count)
        var interface: [UInt8] = []
        interface.appendLE(UInt32(1))
        interface.appendLE(total)
        interface.appendLE(UInt16(UInt16(type.rawValue)))
        interface.appendLE(UInt16(0))
        interface.appendLE(UInt32(0)) // no snap length limit
        interface.append(contentsOf: options)
        interface.appendLE(total)
        try sink.write(interface)
        let written = (id: interfaceCount, linkType: type)
        interfaceCount += 1
        interfaces[source] = written
        return written
    }

    public func write(_ frame: Frame) throws -> Bool {
        try write(frame, comments: frame.comment.map { [$0] } ?? [])
    }

    /// Writes one frame with packet comments (opt_comment, which Wireshark shows as frame.comment).
    public func write(_ frame: Frame, comments: [String]) throws -> Bool {
        let source = frame.origin?.source ?? 0
        // One interface in all but a merge: the last one's, without a lookup per frame.
        let interface: (id: UInt32, linkType: PcapLinkType)
        if let last = lastInterface, last.source == source {
            interface = (last.id, last.linkType)
        } else {
            interface = try interfaces[source] ?? writeInterface(for: frame, source: source)
            lastInterface = (source, interface.id, interface.linkType)
        }
        let pseudo: [UInt8]
        if let origin = frame.origin, frame.controller != Frame.systemController {
            // The source's own controller index: each interface is one capture as it was.
            var own = frame
            own.controller = origin.controller
            guard let header = PcapEncoding.pseudoHeader(for: own, linkType: interface.linkType) else { return false }
            pseudo = header
        } else {
            guard let header = PcapEncoding.pseudoHeader(for: frame, linkType: interface.linkType) else { return false }
            pseudo = header
        }
        let captured = pseudo.count + frame.bytes.count
        let padding = (4 - captured % 4) % 4
        var options: [UInt8] = []
        for comment in comments where !comment.isEmpty {
            let text = Array(comment.utf8.prefix(0xFFFF))
            options.appendLE(UInt16(1)) // opt_comment
            options.appendLE(UInt16(text.count))
            options.append(contentsOf: text)
            options.append(contentsOf: repeatElement(0, count: (4 - text.count % 4) % 4))
        }
        if !options.isEmpty { options.appendLE(UInt32(0)) } // opt_endofopt
        let total = 32 + captured + padding + options.count
        let stamp = UInt64(bitPattern: frame.timestamp)
        block.removeAll(keepingCapacity: true)
        block.appendLE(UInt32(6))
        block.appendLE(UInt32(total))
        block.appendLE(interface.id)
        block.appendLE(UInt32(stamp >> 32))
        block.appendLE(UInt32(stamp & 0xFFFF_FFFF))
        block.appendLE(UInt32(captured))
        block.appendLE(UInt32(pseudo.count + frame.originalLength))
        block.append(contentsOf: pseudo)
        block.append(contentsOf: frame.bytes)
        block.append(contentsOf: repeatElement(0, count: padding))
        block.append(contentsOf: options)
        block.appendLE(UInt32(total))
        try sink.write(block)
        return true
    }

    public func flush() throws { try sink.flush() }

    public func close() throws {
        if interfaces.isEmpty { _ = try writeInterface(for: nil, source: 0) }
        try sink.close()
    }
}

/// What libpcap does not hand over of a pcapng file: the packet comments (opt_comment, option
/// 1, of Enhanced, Simple and obsolete Packet Blocks) by packet record in file order (1-based),
/// and, when the file has several interfaces (a merge of several captures), each record's
/// interface and the interfaces' names. Found by walking the file's blocks once. Either byte
/// order; a block that does not fit ends the walk (what was found so far is kept).
struct PcapNGComments {
    var comments: [Int: String] = [:]
    /// Each record's interface, from record 1; empty when the file has one interface.
    var interfaceOfRecord: [UInt16] = []
    /// The interfaces' if_name options, by interface ID (nil where none was given).
    var interfaceNames: [String?] = []

    static func scan(path: String) -> PcapNGComments {
        guard let file = fopen(path, "rb") else { return PcapNGComments() }
        defer { fclose(file) }
        return scan(read: { buffer, offset, count in
            buffer.withUnsafeMutableBufferPointer { fread($0.baseAddress! + offset, 1, count, file) } == count
        }, back: { fseek(file, -Int($0), SEEK_CUR) }, remaining: { nil })
    }

    /// The same of a file held in memory (tests, fuzzing).
    static func scan(bytes: [UInt8]) -> PcapNGComments {
        var position = 0
        return scan(read: { buffer, offset, count in
            guard count <= bytes.count - position else { return false }
            for i in 0 ..< count { buffer[offset + i] = bytes[position + i] }
            position += count
            return true
        }, back: { position = max(0, position - $0) }, remaining: { bytes.count - position })
    }

    /// `read(buffer, offset, count)`: `count` bytes into the buffer at `offset`, false at the
    /// end; `back(n)`: step back n bytes; `remaining()`: the bytes left, where known (a block
    /// claiming more is not allocated).
    private static func scan(read: (inout [UInt8], Int, Int) -> Bool, back: (Int) -> Void, remaining: () -> Int?) -> PcapNGComments {
        var result = PcapNGComments()
        var comments: [Int: String] = [:]
        var interfaces: [UInt16] = []
        var record = 0
        var bigEndian = false
        var header = [UInt8](repeating: 0, count: 12)
        func u32(_ b: [UInt8], _ at: Int) -> UInt32 {
            bigEndian ? UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
                : UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
        }
        func u16(_ b: [UInt8], _ at: Int) -> Int {
            bigEndian ? Int(b[at]) << 8 | Int(b[at + 1]) : Int(b[at]) | Int(b[at + 1]) << 8
        }
        while read(&header, 0, 8) {
            let isSection = header[0 ..< 4] == [0x0A, 0x0D, 0x0D, 0x0A]
            if isSection {
                // The byte-order magic follows the length.
                guard read(&header, 8, 4) else { break }
                bigEndian = header[8 ..< 12] == [0x1A, 0x2B, 0x3C, 0x4D]
                back(4)
            }
            let type = u32(header, 0), length = Int(u32(header, 4))
            guard length >= 12, length % 4 == 0, length <= 1 << 28, length - 8 <= remaining() ?? .max else { break }
            var body = [UInt8](repeating: 0, count: length - 8)
            guard read(&body, 0, body.count) else { break }
            let content = body.dropLast(4) // the trailing length
            switch type {
            case 1: // Interface Description Block: link type, reserved, snap length, options
                result.interfaceNames.append(content.count >= 8 ? firstOption(2, Array(content), from: 8, u16: u16) : nil)
            case 6, 2: // Enhanced Packet Block, obsolete Packet Block: captured length at offset 12
                record += 1
                guard content.count >= 20 else { interfaces.append(0); continue }
                let bytes = Array(content)
                // The interface: 32 bits in an Enhanced Packet Block, 16 in the obsolete one.
                interfaces.append(type == 6 ? UInt16(clamping: u32(bytes, 0)) : UInt16(u16(bytes, 0)))
                let captured = Int(u32(bytes, 12))
                let optionsStart = 20 + (captured + 3) / 4 * 4
                if let comment = firstOption(1, bytes, from: optionsStart, u16: u16) { comments[record] = comment }
            case 3: // Simple Packet Block: no options, the first interface
                record += 1
                interfaces.append(0)
            default:
                break
            }
        }
        result.comments = comments
        if result.interfaceNames.count > 1 { result.interfaceOfRecord = interfaces }
        return result
    }

    /// The first option `code` among the options starting at `start`, as text.
    private static func firstOption(_ wanted: Int, _ block: [UInt8], from start: Int, u16: ([UInt8], Int) -> Int) -> String? {
        var at = start
        while at + 4 <= block.count {
            let code = u16(block, at), length = u16(block, at + 2)
            if code == 0 { return nil }
            let end = at + 4 + length
            guard end <= block.count else { return nil }
            if code == wanted { return String(decoding: block[at + 4 ..< end], as: UTF8.self) }
            at = at + 4 + (length + 3) / 4 * 4
        }
        return nil
    }
}
