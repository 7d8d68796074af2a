#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a zip archive (an Android bugreport) from a file: the central directory (ZIP64 too)
/// lists the members, and a member is streamed out of its byte range, stored or deflated.
/// Every offset and size is checked against the file before it is used, so a hostile archive
/// gets an error, never a read outside the file, a large allocation or an endless loop.
final class ZipArchive {
    struct Member {
        var name: String
        var method: UInt16
        var flags: UInt16
        var compressedSize: UInt64
        var uncompressedSize: UInt64
        var localHeaderOffset: UInt64
        /// Seconds since 1970, from the DOS date and time (taken as UTC).
        var modified: Int64
        var isDirectory: Bool { name.hasSuffix("/") }
    }

    let fd: Int32
    let name: String
    let size: UInt64
    private(set) var members: [Member] = []

    init(path: String, name: String) throws {
        self.name = name
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CaptureError("\(name): \(systemErrorText(errno))") }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            close(fd)
            throw CaptureError("\(name): \(systemErrorText(errno))")
        }
        size = UInt64(info.st_size)
        do { members = try readDirectory() } catch {
            close(fd)
            throw error
        }
    }

    deinit { close(fd) }

    private func corrupt(_ what: String) -> CaptureError {
        CaptureError("\(name): a zip file that cannot be read (\(what))")
    }

    /// `count` bytes at `offset`, or nil if the file does not hold them.
    func read(_ count: Int, at offset: UInt64) throws -> [UInt8]? {
        guard count >= 0, offset <= size, UInt64(count) <= size - offset else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset) + off_t(done)) }
            if n < 0, errno == EINTR { continue }
            if n < 0 { throw CaptureError("\(name): read failed: \(systemErrorText(errno))") }
            if n == 0 { return nil }
            done += n
        }
        return bytes
    }

    private func readDirectory() throws -> [Member] {
        // The end-of-central-directory record: 22 bytes plus a comment of up to 65,535.
        let tailSize = Int(min(size, 22 + 0xFFFF))
        guard tailSize >= 22, let tail = try read(tailSize, at: size - UInt64(tailSize)) else {
            throw corrupt("too short for a zip")
        }
        let tailBytes = ByteCursor(tail)
        guard let eocd = stride(from: tail.count - 22, through: 0, by: -1).first(where: { (try? tailBytes.u32(at: $0)) == 0x0605_4B50 }) else {
            throw corrupt("no end of central directory record")
        }
        let eocdOffset = size - UInt64(tailSize) + UInt64(eocd)
        var count = UInt64(try tailBytes.u16(at: eocd + 10))
        var directorySize = UInt64(try tailBytes.u32(at: eocd + 12))
        var directoryOffset = UInt64(try tailBytes.u32(at: eocd + 16))
        if count == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF {
            // ZIP64: a locator just before the record points at the 64-bit directory record.
            guard eocdOffset >= 20, let locator = try read(20, at: eocdOffset - 20).map(ByteCursor.init), try locator.u32(at: 0) == 0x0706_4B50,
                  let record = try read(56, at: try locator.u64(at: 8)).map(ByteCursor.init), try record.u32(at: 0) == 0x0606_4B50 else {
                throw corrupt("ZIP64 end of central directory missing")
            }
            count = try record.u64(at: 32)
            directorySize = try record.u64(at: 40)
            directoryOffset = try record.u64(at: 48)
        }
        // Each entry is at least 46 bytes: a count the directory cannot hold is corrupt.
        guard directoryOffset <= eocdOffset, directorySize <= eocdOffset - directoryOffset,
              count <= directorySize / 46 else {
            throw corrupt("its central directory lies outside the file or lists more entries than it holds")
        }
        // A bugreport's directory is a few hundred kB; this bounds what a hostile one allocates.
        guard directorySize <= 64 << 20 else {
            throw corrupt("a central directory of \(directorySize) bytes, more than btlog reads (64 MiB)")
        }
        guard let directory = try read(Int(directorySize), at: directoryOffset) else {
            throw corrupt("central directory cut short")
        }
        var members: [Member] = []
        var at = 0
        let entries = ByteCursor(directory)
        for _ in 0 ..< count {
            guard at + 46 <= directory.count, try entries.u32(at: at) == 0x0201_4B50 else {
                throw corrupt("central directory entry \(members.count + 1) is damaged")
            }
            let nameLength = Int(try entries.u16(at: at + 28))
            let extraLength = Int(try entries.u16(at: at + 30))
            let commentLength = Int(try entries.u16(at: at + 32))
            let end = at + 46 + nameLength + extraLength + commentLength
            guard end <= directory.count else { throw corrupt("central directory entry \(members.count + 1) is cut short") }
            var member = Member(
                name: String(decoding: directory[at + 46 ..< at + 46 + nameLength], as: UTF8.self),
                method: try entries.u16(at: at + 10), flags: try entries.u16(at: at + 8),
                compressedSize: UInt64(try entries.u32(at: at + 20)), uncompressedSize: UInt64(try entries.u32(at: at + 24)),
                localHeaderOffset: UInt64(try entries.u32(at: at + 42)),
                modified: Self.dosTime(date: try entries.u16(at: at + 14), time: try entries.u16(at: at + 12)))
            Self.applyZip64(Array(directory[at + 46 + nameLength ..< at + 46 + nameLength + extraLength]), to: &member)
            members.append(member)
            at = end
        }
        return members
    }

    /// The ZIP64 extra field holds, in this order, whichever 32-bit values were 0xFFFFFFFF.
    static func applyZip64(_ extra: [UInt8], to member: inout Member) {
        var fields = ByteCursor(extra)
        while let id = try? fields.u16(), let length = (try? fields.u16()).map(Int.init), var body = try? fields.cursor(length) {
            if id == 0x0001 {
                func next() -> UInt64? { try? body.u64() }
                if member.uncompressedSize == 0xFFFF_FFFF, let value = next() { member.uncompressedSize = value }
                if member.compressedSize == 0xFFFF_FFFF, let value = next() { member.compressedSize = value }
                if member.localHeaderOffset == 0xFFFF_FFFF, let value = next() { member.localHeaderOffset = value }
                return
            }
        }
    }

    static func dosTime(date: UInt16, time: UInt16) -> Int64 {
        var parts = tm()
        parts.tm_year = Int32(date >> 9) + 80
        parts.tm_mon = max(0, Int32(date >> 5 & 0x0F) - 1)
        parts.tm_mday = max(1, Int32(date & 0x1F))
        parts.tm_hour = Int32(time >> 11)
        parts.tm_min = Int32(time >> 5 & 0x3F)
        parts.tm_sec = Int32(time & 0x1F) * 2
        return Int64(timegm(&parts))
    }

    /// The member's bytes as they are read, inflated if deflated.
    func stream(_ member: Member) throws -> ByteStream {
        let label = "\(name):\(member.name)"
        guard member.flags & 1 == 0 else { throw CaptureError("\(label): encrypted; btlog cannot read it") }
        guard let header = try read(30, at: member.localHeaderOffset).map(ByteCursor.init), try header.u32(at: 0) == 0x0403_4B50 else {
            throw corrupt("local header of \(member.name) missing")
        }
        let dataOffset = member.localHeaderOffset + 30 + UInt64(try header.u16(at: 26)) + UInt64(try header.u16(at: 28))
        guard dataOffset <= size, member.compressedSize <= size - dataOffset else {
            throw corrupt("\(member.name) extends past the end of the file")
        }
        let range = FileRangeStream(archive: self, start: dataOffset, length: member.compressedSize)
        switch member.method {
        case 0: return range
        case 8: return try InflateStream(source: range, name: label, raw: true)
        default: throw CaptureError("\(label): compression method \(member.method) is not supported (stored and deflate are)")
        }
    }
}

/// A byte range of an open file, read with pread so several can share one descriptor.
final class FileRangeStream: ByteStream {
    let archive: ZipArchive
    var position: UInt64
    let end: UInt64

    init(archive: ZipArchive, start: UInt64, length: UInt64) {
        self.archive = archive
        position = start
        end = start + length
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let count = Int(min(UInt64(buffer.count), end - position))
        guard count > 0 else { return 0 }
        while true {
            let n = pread(archive.fd, buffer.baseAddress!, count, off_t(position))
            if n < 0, errno == EINTR { continue }
            if n < 0 { throw CaptureError("\(archive.name): read failed: \(systemErrorText(errno))") }
            position += UInt64(n)
            return n
        }
    }
}
