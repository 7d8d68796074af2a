import CSystemZlib

/// Inflates a gzip or zlib stream as it is read, member after member (concatenated gzip files
/// are one stream, as gunzip treats them), or one raw deflate stream (a zip member).
public final class InflateStream: ByteStream {
    let source: ByteStream
    let name: String
    let raw: Bool
    var stream = z_stream()
    let input: UnsafeMutableRawBufferPointer
    /// True between members: the end of the source there is a clean end.
    var betweenMembers = true
    var finished = false
    var completedMembers = 0
    var producedInMember = 0

    public init(source: ByteStream, name: String, raw: Bool = false) throws {
        self.source = source
        self.name = name
        self.raw = raw
        input = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 8)
        // 15 window bits + 32: accept gzip or zlib headers; -15: raw deflate without a header.
        let status = inflateInit2_(&stream, raw ? -15 : 15 + 32, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            input.deallocate()
            throw CaptureError("\(name): cannot start decompression (zlib status \(status))")
        }
    }

    deinit {
        inflateEnd(&stream)
        input.deallocate()
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard !finished, buffer.count > 0 else { return 0 }
        while true {
            if stream.avail_in == 0 {
                let n = try source.read(into: input)
                if n == 0 {
                    finished = true
                    if !betweenMembers {
                        throw CaptureError("\(name): compressed data ends early (the file is truncated)")
                    }
                    return 0
                }
                stream.next_in = input.baseAddress!.assumingMemoryBound(to: UInt8.self)
                stream.avail_in = UInt32(n)
            }
            stream.next_out = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
            stream.avail_out = UInt32(buffer.count)
            let status = inflate(&stream, Z_NO_FLUSH)
            let produced = buffer.count - Int(stream.avail_out)
            switch status {
            case Z_STREAM_END where raw:
                finished = true
                return produced
            case Z_STREAM_END:
                betweenMembers = true
                completedMembers += 1
                producedInMember = 0
                inflateReset(&stream)
            case Z_OK, Z_BUF_ERROR:
                betweenMembers = false
                producedInMember += produced
            default:
                finished = true
                // Padding or garbage after the last complete member ends the data, as gunzip does.
                if completedMembers > 0 && producedInMember == 0 { return produced }
                let detail = stream.msg.map { String(cString: $0) } ?? "zlib status \(status)"
                throw CaptureError("\(name): compressed data is corrupt (\(detail))")
            }
            if produced > 0 { return produced }
        }
    }

    /// Inflates a whole zlib or gzip buffer (btsnooz), refusing output past `limit` bytes.
    public static func inflateAll(_ bytes: [UInt8], name: String, limit: Int) throws -> [UInt8] {
        let stream = try InflateStream(source: MemoryStream(bytes), name: name)
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = try chunk.withUnsafeMutableBytes { try stream.read(into: $0) }
            if n == 0 { break }
            out.append(contentsOf: chunk[0 ..< n])
            if out.count > limit { throw CaptureError("\(name): decompresses to more than \(limit) bytes") }
        }
        return out
    }
}
