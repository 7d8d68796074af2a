import Foundation

/// What the user said about how to read an input.
public struct InputOptions: Sendable {
    /// Local time's offset from UTC in microseconds, subtracted from PacketLogger timestamps.
    public var pklgUTCOffset: Int64 = 0
    /// Which capture to read from a container holding several.
    public var member: String?
    /// Keep reading at the end of the file, as another program is still writing it (tail -f).
    public var follow = false
    public init(pklgUTCOffset: Int64 = 0, member: String? = nil, follow: Bool = false) {
        self.pklgUTCOffset = pklgUTCOffset
        self.member = member
        self.follow = follow
    }
}

/// Opens any supported input, finding its format from its content (never from its name).
public enum CaptureInput {
    static let headSize = 4096

    /// Opens a path, "-" for standard input, or a sysdiagnose folder.
    public static func open(_ path: String, options: InputOptions = InputOptions()) throws -> FrameReader {
        let name = path == "-" ? "<stdin>" : path
        if path != "-" {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                if options.follow { throw CaptureError("\(path): is a folder; --follow reads one growing capture file") }
                return try openFolder(path, options: options)
            }
        }
        if options.follow, path != "-" {
            // libpcap would stop at the end of the file: every format reads the growing stream.
            return try open(stream: FollowStream(try FileDescriptorStream(path: path)), name: name, plainFile: nil,
                            options: options, depth: 0)
        }
        let stream: ByteStream = path == "-"
            ? FileDescriptorStream(fd: 0, name: name, ownsDescriptor: false)
            : try FileDescriptorStream(path: path)
        return try open(stream: stream, name: name, plainFile: path == "-" ? nil : path, options: options, depth: 0)
    }

    /// Opens bytes already in memory (tests, fuzzing).
    public static func open(bytes: [UInt8], name: String = "<memory>", options: InputOptions = InputOptions()) throws -> FrameReader {
        if pcapKind(Array(bytes.prefix(4))) != nil { return try PcapReader(memory: bytes, name: name) }
        return try open(stream: MemoryStream(bytes), name: name, plainFile: nil, options: options, depth: 0)
    }

    static func open(stream: ByteStream, name: String, plainFile: String?, options: InputOptions, depth: Int) throws -> FrameReader {
        let input = BufferedReader(stream)
        // A file gives its whole head in one read; a pipe or a growing file gives what has been
        // written so far, so decide from the magic as soon as it is there and wait only when
        // the format needs more to be recognised.
        _ = try input.ensure(16)
        while true {
            let head = input.peek(headSize)
            guard !head.isEmpty else { throw CaptureError("\(name): empty file") }
            let complete = head.count >= headSize || input.isAtEnd
            let bytes = Array(head)
            let isTar = bytes.count >= 262 && bytes[257 ..< 262].elementsEqual(Array("ustar".utf8))
            if let reader = try openByMagic(bytes, input: input, name: name, plainFile: plainFile, options: options, depth: depth) {
                return reader
            }
            if !isTar, let littleEndian = PacketLogger.detectByteOrder(head, whole: complete) {
                return PacketLoggerReader(input, name: name, littleEndian: littleEndian, utcOffset: options.pklgUTCOffset)
            }
            if !complete {
                _ = try input.ensure(head.count + 1)
                continue
            }
            if isTar {
                if options.follow { throw notFollowable(name, "a tar archive") }
                guard depth < 3 else { throw CaptureError("\(name): compressed or archived more than three times over") }
                return try openSysdiagnoseTar(input: input, name: name, options: options, depth: depth)
            }
            if looksLikeText(bytes) {
                if options.follow { throw notFollowable(name, "text") }
                if let reader = try openBtsnooz(input: input, name: name) { return reader }
                throw CaptureError("\(name): not a btsnoop, PacketLogger or pcap file, and its text holds no Android btsnooz section (BTSNOOP_LOG_SUMMARY)")
            }
            throw CaptureError("\(name): not a btsnoop, PacketLogger or pcap file (first bytes \(firstBytes(bytes)))")
        }
    }

    /// The formats a few leading bytes identify; nil when they are not (yet) recognised.
    static func openByMagic(_ bytes: [UInt8], input: BufferedReader, name: String, plainFile: String?,
                            options: InputOptions, depth: Int) throws -> FrameReader? {
        if bytes.starts(with: BTSnoop.magic) {
            return try BTSnoopReader(input, name: name)
        }
        if let isNG = pcapKind(bytes) {
            if let plainFile { return try PcapReader(path: plainFile, name: name, isNG: isNG) }
            return try PcapReader(stream: input.remainingStream(), name: name, isNG: isNG)
        }
        if bytes.starts(with: [0x1F, 0x8B]) {
            if options.follow { throw notFollowable(name, "gzip-compressed") }
            guard depth < 3 else { throw CaptureError("\(name): compressed or archived more than three times over") }
            let inflated = try InflateStream(source: input.remainingStream(), name: name)
            return try open(stream: inflated, name: name, plainFile: nil, options: options, depth: depth + 1)
        }
        if bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) {
            if options.follow { throw notFollowable(name, "a zip archive") }
            // A zip holding itself (a zip quine) or archives nested without end stop here.
            guard depth < 3 else { throw CaptureError("\(name): compressed or archived more than three times over") }
            return try openBugreportZip(input: input, name: name, plainFile: plainFile, options: options, depth: depth)
        }
        return nil
    }

    static func notFollowable(_ name: String, _ what: String) -> CaptureError {
        CaptureError("\(name): is \(what); --follow reads btsnoop, PacketLogger and pcap files as they grow")
    }

    /// nil if not pcap; false for pcap, true for pcapng.
    static func pcapKind(_ bytes: [UInt8]) -> Bool? {
        guard bytes.count >= 4 else { return nil }
        let magic = Array(bytes[0 ..< 4])
        let pcapMagics: [[UInt8]] = [[0xA1, 0xB2, 0xC3, 0xD4], [0xD4, 0xC3, 0xB2, 0xA1],
                                     [0xA1, 0xB2, 0x3C, 0x4D], [0x4D, 0x3C, 0xB2, 0xA1]]
        if pcapMagics.contains(magic) { return false }
        if magic == [0x0A, 0x0D, 0x0D, 0x0A] { return true }
        return nil
    }

    static func looksLikeText(_ bytes: [UInt8]) -> Bool {
        let sample = bytes.prefix(1024)
        let printable = sample.filter { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || ($0 >= 0x20 && $0 != 0x7F) }
        return printable.count * 100 >= sample.count * 95
    }

    static func openBtsnooz(input: BufferedReader, name: String) throws -> FrameReader? {
        guard let section = try Btsnooz.findSection(in: input) else { return nil }
        var warnings: [CaptureWarning] = []
        let frames = try Btsnooz.frames(base64: section, name: name, warnings: &warnings)
        let reader = ArrayFrameReader(frames: frames, formatDescription: "Android btsnooz (bugreport)", nativeFormat: .btsnoopH4)
        reader.warnings = warnings
        return reader
    }

    static func isPacketLog(_ memberName: String) -> Bool {
        memberName.lowercased().hasSuffix(".pklg") && !(memberName as NSString).lastPathComponent.hasPrefix("._")
    }

    static func openSysdiagnoseTar(input: BufferedReader, name: String, options: InputOptions, depth: Int) throws -> FrameReader {
        // A damaged archive removes what it spooled itself (and nothing another input spooled).
        let members = try TarArchive.extractMembers(from: input, name: name, matching: isPacketLog)
        return try openMember(members, name: name, what: "packet log (.pklg)", options: options, depth: depth + 1)
    }

    static func openFolder(_ path: String, options: InputOptions) throws -> FrameReader {
        guard let walker = FileManager.default.enumerator(atPath: path) else {
            throw CaptureError("\(path): cannot list the folder")
        }
        var members: [ContainerMember] = []
        while let relative = walker.nextObject() as? String {
            guard isPacketLog(relative) else { continue }
            let full = (path as NSString).appendingPathComponent(relative)
            let attributes = try? FileManager.default.attributesOfItem(atPath: full)
            let modified = (attributes?[.modificationDate] as? Date).map { Int64($0.timeIntervalSince1970) } ?? 0
            let size = (attributes?[.size] as? NSNumber)?.int64Value ?? 0
            members.append(ContainerMember(name: relative, modified: modified, size: size, path: full))
        }
        guard !members.isEmpty else {
            throw CaptureError("\(path): a folder with no PacketLogger file (.pklg) in it; give a capture file or a sysdiagnose")
        }
        return try openMember(members, name: path, what: "packet log (.pklg)", options: options, depth: 1)
    }

    static func openMember(_ members: [ContainerMember], name: String, what: String, options: InputOptions,
                           depth: Int) throws -> FrameReader {
        var notices: [CaptureWarning] = []
        defer { for member in members { MemberSpool.release(member.path) } }
        let chosen = try MemberChoice.choose(members, requested: options.member, container: name, what: what, warnings: &notices)
        let memberOptions = InputOptions(pklgUTCOffset: options.pklgUTCOffset, member: nil)
        let reader = try open(stream: try FileDescriptorStream(path: chosen.path), name: "\(name):\(chosen.name)",
                              plainFile: chosen.path, options: memberOptions, depth: depth)
        reader.warnings.insert(contentsOf: notices, at: 0)
        return reader
    }

    static func openBugreportZip(input: BufferedReader, name: String, plainFile: String?, options: InputOptions,
                                 depth: Int) throws -> FrameReader {
        // A zip is read from its central directory at the end: spool a stream to a file first.
        var zipPath = plainFile
        var spooledZip: String?
        if zipPath == nil {
            let spooled = try MemberSpool.makeFile()
            while try input.ensure(1) { try spooled.sink.write(Array(input.take(input.available))) }
            try spooled.sink.close()
            zipPath = spooled.path
            spooledZip = spooled.path
        }
        let archive: ZipArchive
        do {
            archive = try ZipArchive(path: zipPath!, name: name)
            // The archive holds its descriptor: the spooled copy's name is no longer needed.
            if let spooledZip { MemberSpool.release(spooledZip) }
        } catch {
            if let spooledZip { MemberSpool.release(spooledZip) }
            throw error
        }
        var logs: [(ZipArchive.Member, ContainerMember)] = []
        var reports: [ZipArchive.Member] = []
        for entry in archive.members where !entry.isDirectory {
            let base = (entry.name as NSString).lastPathComponent
            if base.hasPrefix("btsnoop_hci.log") || base.hasSuffix(".btsnoop") || base.hasSuffix(".cfa") && base.contains("btsnoop") {
                // btsnoop_hci.log is newer than btsnoop_hci.log.last when the times tie.
                let rank: Int64 = base.hasSuffix(".last") ? 0 : 1
                logs.append((entry, ContainerMember(name: entry.name, modified: entry.modified * 2 + rank,
                                                   size: Int64(clamping: entry.uncompressedSize), path: "")))
            } else if base.hasPrefix("bugreport") && base.hasSuffix(".txt") {
                reports.append(entry)
            }
        }
        if !logs.isEmpty {
            var notices: [CaptureWarning] = []
            let chosen = try MemberChoice.choose(logs.map { $0.1 }, requested: options.member, container: name,
                                                 what: "btsnoop log", warnings: &notices)
            let entry = logs.first { $0.1.name == chosen.name }!.0
            let reader = try open(stream: try archive.stream(entry), name: "\(name):\(entry.name)", plainFile: nil,
                                  options: options, depth: depth + 1)
            reader.warnings.insert(contentsOf: notices, at: 0)
            return reader
        }
        for report in reports {
            if let reader = try openBtsnooz(input: BufferedReader(try archive.stream(report)), name: "\(name):\(report.name)") {
                return reader
            }
        }
        throw CaptureError("\(name): a zip file with no Bluetooth capture (no btsnoop_hci.log under FS/data/misc/bluetooth/logs and no btsnooz section in a bugreport text)")
    }
}
