import BTCapture
import CSystemZlib
import Foundation
import ZIPFoundation

/// Wraps captures the way devices hand them over: gzip, an iOS sysdiagnose tar, an Android
/// bugreport zip and its btsnooz text, and the BCSP/H5 link framing of btsnoop 1003/1004.
public enum FixtureContainers {
    /// Serialises frames in a capture format.
    public static func encode(_ frames: [Frame], as format: CaptureFileFormat) throws -> [UInt8] {
        let sink = MemorySink()
        let writer = try CaptureWriters.make(format, sink: sink)
        for frame in frames { try writer.write(frame) }
        try writer.close()
        return sink.bytes
    }

    /// gzip with a fixed header (no name, time 0) so the output is reproducible.
    public static func gzip(_ bytes: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        // 15 window bits + 16: write a gzip header and trailer.
        deflateInit2_(&stream, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        defer { deflateEnd(&stream) }
        var input = bytes
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(bytes.count))) + 64)
        let produced: Int = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = UInt32(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = UInt32(outBuffer.count)
                deflate(&stream, Z_FINISH)
                return outBuffer.count - Int(stream.avail_out)
            }
        }
        return Array(output[0 ..< produced])
    }

    /// zlib stream (btsnooz's compression).
    public static func zlibCompress(_ bytes: [UInt8]) -> [UInt8] {
        var length = compressBound(UInt(bytes.count))
        var output = [UInt8](repeating: 0, count: Int(length))
        _ = compress2(&output, &length, bytes, UInt(bytes.count), 9)
        return Array(output[0 ..< Int(length)])
    }

    /// A ustar archive of (name, mtime, bytes) members.
    public static func tar(_ members: [(String, Int64, [UInt8])]) -> [UInt8] {
        var out: [UInt8] = []
        for (name, mtime, data) in members {
            var header = [UInt8](repeating: 0, count: 512)
            func put(_ text: String, _ offset: Int, _ width: Int) {
                for (i, byte) in Array(text.utf8).prefix(width).enumerated() { header[offset + i] = byte }
            }
            func octal(_ value: Int64, _ offset: Int, _ width: Int) {
                let digits = String(value, radix: 8)
                put(String(repeating: "0", count: width - 1 - digits.count) + digits, offset, width - 1)
            }
            put(name, 0, 100)
            octal(0o644, 100, 8)
            octal(0, 108, 8)
            octal(0, 116, 8)
            octal(Int64(data.count), 124, 12)
            octal(mtime, 136, 12)
            put("        ", 148, 8)
            header[156] = UInt8(ascii: "0")
            put("ustar", 257, 6)
            put("00", 263, 2)
            let sum = header.reduce(0) { $0 + Int($1) }
            let digits = String(sum, radix: 8)
            put(String(repeating: "0", count: 6 - digits.count) + digits, 148, 6)
            header[154] = 0
            header[155] = UInt8(ascii: " ")
            out += header + data + [UInt8](repeating: 0, count: (512 - data.count % 512) % 512)
        }
        return out + [UInt8](repeating: 0, count: 1024)
    }

    /// An Android bugreport zip holding btsnoop logs and a bugreport text.
    public static func zip(_ members: [(String, Date, [UInt8])], to url: URL) throws {
        try? FileManager.default.removeItem(at: url)
        let archive = try Archive(url: url, accessMode: .create)
        for (name, date, data) in members {
            try archive.addEntry(with: name, type: .file, uncompressedSize: Int64(data.count), modificationDate: date,
                                 compressionMethod: .deflate) { position, size in
                Data(data[Int(position) ..< Int(position) + size])
            }
        }
    }

    /// btsnooz v2 of HCI frames, as the base64 text block of a bugreport.
    public static func btsnoozSection(_ frames: [Frame]) -> String {
        var records: [UInt8] = []
        var previous = frames.first?.timestamp ?? 0
        for frame in frames {
            let type: UInt8
            switch (frame.kind, frame.direction) {
            case (.event, _): type = 0x10
            case (.aclData, .received): type = 0x11
            case (.scoData, .received): type = 0x12
            case (.isoData, .received): type = 0x17
            case (.command, _): type = 0x20
            case (.aclData, _): type = 0x21
            case (.scoData, _): type = 0x22
            case (.isoData, _): type = 0x2D
            default: continue
            }
            records += le16(UInt16(frame.bytes.count + 1)) + le16(UInt16(frame.bytes.count + 1))
            records += le32(UInt32(frame.timestamp - previous)) + [type] + frame.bytes
            previous = frame.timestamp
        }
        var blob: [UInt8] = [0x02]
        let last = UInt64(previous)
        for i in 0 ..< 8 { blob.append(UInt8(last >> (8 * UInt64(i)) & 0xFF)) }
        blob += zlibCompress(records)
        let base64 = Data(blob).base64EncodedString(options: [.lineLength76Characters, .endLineWithLineFeed])
        return "--- BEGIN:BTSNOOP_LOG_SUMMARY (\(blob.count) bytes in) ---\n\(base64)\n--- END:BTSNOOP_LOG_SUMMARY ---\n"
    }

    /// A btsnoop 1004 (H5) or 1003 (BCSP) file: each HCI frame in a SLIP-framed link packet,
    /// with a pure acknowledgement packet after every received one.
    public static func linkFramed(_ frames: [Frame], bcsp: Bool) -> [UInt8] {
        var out = Array("btsnoop".utf8) + [0] + be32(1) + be32(bcsp ? 1003 : 1004)
        var sequence: UInt8 = 0
        func record(_ packet: [UInt8], received: Bool, time: Int64) {
            out += be32(UInt32(packet.count)) + be32(UInt32(packet.count)) + be32(received ? 1 : 0) + be32(0)
            let stamp = UInt64(time + BTSnoop.epochOffset)
            out += be32(UInt32(stamp >> 32)) + be32(UInt32(stamp & 0xFFFF_FFFF))
            out += packet
        }
        for frame in frames where frame.kind.isHCI {
            let type: UInt8
            if bcsp {
                switch frame.kind {
                case .aclData: type = 6
                case .scoData: type = 7
                default: type = 5
                }
            } else {
                type = H4.indicator(for: frame.kind)!
            }
            let payload = Array(frame.bytes)
            var header: [UInt8] = [0x80 | sequence, type | UInt8(payload.count & 0xF) << 4, UInt8(payload.count >> 4)]
            header.append(~(header[0] &+ header[1] &+ header[2]))
            sequence = (sequence + 1) & 7
            record(slip(header + payload), received: frame.direction == .received, time: frame.timestamp)
            if frame.direction == .received {
                var ack: [UInt8] = [sequence << 3, 0x00, 0x00]
                ack.append(~(ack[0] &+ ack[1] &+ ack[2]))
                record(slip(ack), received: false, time: frame.timestamp + 50)
            }
        }
        return out
    }

    static func slip(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0xC0]
        for byte in bytes {
            switch byte {
            case 0xC0: out += [0xDB, 0xDC]
            case 0xDB: out += [0xDB, 0xDD]
            default: out.append(byte)
            }
        }
        return out + [0xC0]
    }
}
