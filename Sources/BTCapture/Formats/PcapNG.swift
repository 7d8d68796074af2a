#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes pcapng: a Section Header Block, one Interface Description Block of link type 254
/// (Linux monitor: keeps controller indexes and notes), or of an air capture's own link type
/// when the first frame was taken from the air, and an Enhanced Packet Block per frame.
/// Little-endian; timestamps in microseconds (the default if_tsresol).
public final class PcapNGWriter: CaptureWriter {
    let sink: ByteSink
    var block: [UInt8] = []
    /// The interface's link type, once its block is written (with the first frame, or at close).
    var linkType: PcapLinkType?

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

    /// The Interface Description Block: link type 254 unless the first frame came from the air.
    func writeInterface(for frame: Frame?) throws {
        var type = PcapLinkType.linuxMonitor
        if case .air(let air)? = frame?.kind, let own = PcapLinkType(rawValue: air.rawValue) { type = own }
        var interface: [UInt8] = []
        interface.appendLE(UInt32(1))
        interface.appendLE(UInt32(20))
        interface.appendLE(UInt16(UInt16(type.rawValue)))
        interface.appendLE(UInt16(0))
        interface.appendLE(UInt32(0)) // no snap length limit
        interface.appendLE(UInt32(20))
        try sink.write(interface)
        linkType = type
    }

    public func write(_ frame: Frame) throws -> Bool {
        try write(frame, comments: frame.comment.map { [$0] } ?? [])
    }

    /// Writes one frame with packet comments (opt_comment, which Wireshark shows as frame.comment).
    public func write(_ frame: Frame, comments: [String]) throws -> Bool {
        if linkType == nil { try writeInterface(for: frame) }
        guard let pseudo = PcapEncoding.pseudoHeader(for: frame, linkType: linkType!) else { return false }
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
        block.appendLE(UInt32(0)) // interface
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
        if linkType == nil { try writeInterface(for: nil) }
        try sink.close()
    }
}

/// The packet comments of a pcapng file (opt_comment, option 1, of Enhanced, Simple and
/// obsolete Packet Blocks), which libpcap does not hand over: found by walking the file's
/// blocks once, by packet record in file order (1-based). Either byte order; a block that does
/// not fit ends the walk (what was found so far is kept).
enum PcapNGComments {
    static func scan(path: String) -> [Int: String] {
        guard let file = fopen(path, "rb") else { return [:] }
        defer { fclose(file) }
        var comments: [Int: String] = [:]
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
        while fread(&header, 1, 8, file) == 8 {
            let isSection = header[0 ..< 4] == [0x0A, 0x0D, 0x0D, 0x0A]
            if isSection {
                // The byte-order magic follows the length.
                guard fread(&header[8], 1, 4, file) == 4 else { break }
                bigEndian = header[8 ..< 12] == [0x1A, 0x2B, 0x3C, 0x4D]
                fseek(file, -4, SEEK_CUR)
            }
            let type = u32(header, 0), length = Int(u32(header, 4))
            guard length >= 12, length % 4 == 0, length <= 1 << 28 else { break }
            var body = [UInt8](repeating: 0, count: length - 8)
            guard fread(&body, 1, body.count, file) == body.count else { break }
            let content = body.dropLast(4) // the trailing length
            switch type {
            case 6, 2: // Enhanced Packet Block, obsolete Packet Block: captured length at offset 12
                record += 1
                guard content.count >= 20 else { continue }
                let captured = Int(u32(Array(content), 12))
                let optionsStart = 20 + (captured + 3) / 4 * 4
                if let comment = firstComment(Array(content), from: optionsStart, u16: u16) { comments[record] = comment }
            case 3: // Simple Packet Block: no options
                record += 1
            default:
                break
            }
        }
        return comments
    }

    /// The first opt_comment among the options starting at `start`.
    private static func firstComment(_ block: [UInt8], from start: Int, u16: ([UInt8], Int) -> Int) -> String? {
        var at = start
        while at + 4 <= block.count {
            let code = u16(block, at), length = u16(block, at + 2)
            if code == 0 { return nil }
            let end = at + 4 + length
            guard end <= block.count else { return nil }
            if code == 1 { return String(decoding: block[at + 4 ..< end], as: UTF8.self) }
            at = at + 4 + (length + 3) / 4 * 4
        }
        return nil
    }
}
