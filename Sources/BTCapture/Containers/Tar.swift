/// Reads a tar stream (an iOS sysdiagnose, usually gzip-compressed) and spools out the members
/// whose names match, so one pass over a large archive finds every packet log.
enum TarArchive {
    static let blockSize = 512

    /// A damaged archive throws after removing the members it had spooled.
    static func extractMembers(from input: BufferedReader, name: String,
                               matching: (String) -> Bool) throws -> [ContainerMember] {
        var made: [String] = []
        do {
            return try extract(from: input, name: name, matching: matching, made: &made)
        } catch {
            for path in made { MemberSpool.release(path) }
            throw error
        }
    }

    private static func extract(from input: BufferedReader, name: String, matching: (String) -> Bool,
                                made: inout [String]) throws -> [ContainerMember] {
        var found: [ContainerMember] = []
        var pendingLongName: String?
        while true {
            guard try input.ensure(blockSize) else {
                if input.available > 0 { throw CaptureError("\(name): tar archive cut short inside a header") }
                break
            }
            let header = Array(input.take(blockSize))
            if header.allSatisfy({ $0 == 0 }) { break }
            guard let size = parseNumber(header[124 ..< 136]) else {
                throw CaptureError("\(name): tar header at byte \(input.offset - 512) is corrupt")
            }
            let type = header[156]
            let mtime = parseNumber(header[136 ..< 148]) ?? 0
            var memberName = cString(header[0 ..< 100])
            if header[257 ..< 262].elementsEqual(Array("ustar".utf8)) {
                let prefix = cString(header[345 ..< 500])
                if !prefix.isEmpty { memberName = prefix + "/" + memberName }
            }
            if let long = pendingLongName { memberName = long; pendingLongName = nil }
            let padded = (size + 511) / 512 * 512
            switch type {
            case UInt8(ascii: "L"), UInt8(ascii: "x"):
                guard size <= 1 << 20, try input.ensure(Int(padded)) else {
                    throw CaptureError("\(name): tar extended header is corrupt or cut short")
                }
                let data = Array(input.take(Int(padded)).prefix(Int(size)))
                pendingLongName = type == UInt8(ascii: "L") ? cString(data[...]) : paxPath(data)
                continue
            case 0, UInt8(ascii: "0"), UInt8(ascii: "7"):
                if matching(memberName) {
                    let spooled = try MemberSpool.makeFile()
                    made.append(spooled.path)
                    var remaining = size
                    while remaining > 0 {
                        if input.available == 0, !(try input.ensure(1)) {
                            throw CaptureError("\(name): tar archive cut short inside \(memberName)")
                        }
                        let step = Int(min(Int64(input.available), remaining))
                        try spooled.sink.write(Array(input.take(step)))
                        remaining -= Int64(step)
                    }
                    try spooled.sink.close()
                    guard try input.skipAcross(padded - size) else {
                        throw CaptureError("\(name): tar archive cut short after \(memberName)")
                    }
                    found.append(ContainerMember(name: memberName, modified: mtime, size: size, path: spooled.path))
                    continue
                }
            default:
                break
            }
            guard try input.skipAcross(padded) else {
                throw CaptureError("\(name): tar archive cut short inside \(memberName)")
            }
        }
        return found
    }

    /// Above any real archive member, and far enough below Int64.max that rounding a size up
    /// to whole blocks cannot overflow.
    static let largestNumber: Int64 = 1 << 62

    /// Octal, or base-256 when the high bit of the first byte is set (GNU, for large sizes);
    /// nil when malformed or above `largestNumber`.
    static func parseNumber(_ field: ArraySlice<UInt8>) -> Int64? {
        guard let first = field.first else { return nil }
        var value: Int64 = 0
        if first & 0x80 != 0 {
            value = Int64(first & 0x7F)
            for byte in field.dropFirst() {
                guard value <= largestNumber >> 8 else { return nil }
                value = value << 8 | Int64(byte)
            }
        } else {
            var seenDigit = false
            for byte in field {
                if byte == 0 || byte == UInt8(ascii: " ") { if seenDigit { break } else { continue } }
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "7"), value <= largestNumber >> 3 else { return nil }
                value = value * 8 + Int64(byte - UInt8(ascii: "0"))
                seenDigit = true
            }
        }
        return value <= largestNumber ? value : nil
    }

    static func cString(_ field: ArraySlice<UInt8>) -> String {
        String(decoding: field.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// The `path` record of a pax extended header ("LEN path=VALUE\n" records).
    static func paxPath(_ data: [UInt8]) -> String? {
        let text = String(decoding: data, as: UTF8.self)
        for line in text.split(separator: "\n") {
            guard let space = line.firstIndex(of: " ") else { continue }
            let record = line[line.index(after: space)...]
            if record.hasPrefix("path=") { return String(record.dropFirst(5)) }
        }
        return nil
    }
}
