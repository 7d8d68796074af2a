import CPcap
import Foundation

/// The pcap link types btlog reads: HCI, and packets taken from the air (`AirLinkType`).
public enum PcapLinkType: Int32, Sendable {
    /// H4 packets, no direction.
    case h4 = 187
    /// 4-byte big-endian direction (0 sent, 1 received), then an H4 packet.
    case h4WithPhdr = 201
    /// 2-byte adapter index and 2-byte monitor opcode, big-endian, then the frame payload.
    case linuxMonitor = 254
    case leLL = 251
    case leLLWithRadioHeader = 256
    case nordicBLE = 272
    case ppi = 192
    case bredrBB = 255

    /// The air capture this link type holds, if it is one.
    public var air: AirLinkType? { AirLinkType(rawValue: rawValue) }

    static let knownNames: [Int32: String] = [
        187: "BLUETOOTH_HCI_H4", 201: "BLUETOOTH_HCI_H4_WITH_PHDR", 202: "AX25_KISS",
        251: "BLUETOOTH_LE_LL", 254: "BLUETOOTH_LINUX_MONITOR", 255: "BLUETOOTH_BREDR_BB",
        256: "BLUETOOTH_LE_LL_WITH_PHDR", 272: "NORDIC_BLE", 192: "PPI",
    ]
}

/// Reads pcap and pcapng through libpcap.
public final class PcapReader: FrameReaderBase, FrameReader {
    let handle: OpaquePointer
    public let linkType: PcapLinkType
    let isNG: Bool
    /// Keeps the thread that feeds a non-file stream into libpcap alive.
    var feeder: PipeFeeder?
    /// The copy of an in-memory capture libpcap reads through fmemopen; freed after pcap_close.
    var memory: UnsafeMutableRawPointer?
    var finished = false
    /// Records libpcap handed over so far, and the pcapng packet comments by record.
    var records = 0
    var comments: [Int: String] = [:]
    /// A pcapng of several interfaces (a merge): each record's interface and the names, so
    /// each frame says its source and each interface's controllers stay its own.
    var interfaces = PcapNGComments()
    var controllers = ControllerIndexes()
    var sourceNumbers: [Int] = []

    /// Opens a regular file by path.
    public convenience init(path: String, name: String, isNG: Bool) throws {
        var errorBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
        guard let handle = pcap_open_offline_with_tstamp_precision(path, UInt32(PCAP_TSTAMP_PRECISION_MICRO), &errorBuffer) else {
            throw CaptureError("\(name): \(String(cString: errorBuffer))")
        }
        try self.init(handle: handle, name: name, isNG: isNG, feeder: nil)
        if isNG {
            interfaces = PcapNGComments.scan(path: path)
            comments = interfaces.comments
            interfaces.comments = [:]
        }
    }

    /// Reads a stream (standard input, a decompressed file) by feeding libpcap through a pipe.
    public convenience init(stream: ByteStream, name: String, isNG: Bool) throws {
        let feeder = try PipeFeeder(stream: stream)
        var errorBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
        guard let file = fdopen(feeder.readDescriptor, "r") else {
            throw CaptureError("\(name): cannot read: \(systemErrorText(errno))")
        }
        guard let handle = pcap_fopen_offline_with_tstamp_precision(file, UInt32(PCAP_TSTAMP_PRECISION_MICRO), &errorBuffer) else {
            fclose(file)
            throw CaptureError("\(name): \(String(cString: errorBuffer))")
        }
        try self.init(handle: handle, name: name, isNG: isNG, feeder: feeder)
    }

    /// Reads a capture held in memory (tests, fuzzing): no thread, no pipe.
    public convenience init(memory bytes: [UInt8], name: String) throws {
        guard !bytes.isEmpty else { throw CaptureError("\(name): empty file") }
        let copy = UnsafeMutableRawPointer.allocate(byteCount: bytes.count, alignment: 16)
        bytes.withUnsafeBytes { copy.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
        var errorBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
        guard let file = fmemopen(copy, bytes.count, "r") else {
            copy.deallocate()
            throw CaptureError("\(name): cannot read: \(systemErrorText(errno))")
        }
        guard let handle = pcap_fopen_offline_with_tstamp_precision(file, UInt32(PCAP_TSTAMP_PRECISION_MICRO), &errorBuffer) else {
            fclose(file)
            copy.deallocate()
            throw CaptureError("\(name): \(String(cString: errorBuffer))")
        }
        do {
            try self.init(handle: handle, name: name, isNG: bytes.starts(with: [0x0A, 0x0D, 0x0D, 0x0A]), feeder: nil)
        } catch {
            copy.deallocate()
            throw error
        }
        memory = copy
        if isNG {
            interfaces = PcapNGComments.scan(bytes: bytes)
            comments = interfaces.comments
            interfaces.comments = [:]
        }
    }

    init(handle: OpaquePointer, name: String, isNG: Bool, feeder: PipeFeeder?) throws {
        let code = pcap_datalink(handle)
        guard let linkType = PcapLinkType(rawValue: code) else {
            pcap_close(handle)
            let known = PcapLinkType.knownNames[code]
            let label = known ?? (pcap_datalink_val_to_name(code).map { String(cString: $0) } ?? "not a Bluetooth link type")
            throw CaptureError("\(name): unsupported link type \(code) (\(label)); btlog reads 187, 201, 254 (HCI), 251, 256, 272, 192 (LE link layer from the air) and 255 (BR/EDR baseband)")
        }
        self.handle = handle
        self.linkType = linkType
        self.isNG = isNG
        self.feeder = feeder
        super.init(name: name)
    }

    deinit {
        pcap_close(handle)
        memory?.deallocate()
    }

    public var formatDescription: String {
        "\(isNG ? "pcapng" : "pcap") (link type \(linkType.rawValue), \(PcapLinkType.knownNames[linkType.rawValue] ?? ""))"
    }

    public var nativeFormat: CaptureFileFormat {
        switch linkType {
        case .linuxMonitor: return .pcapMonitor
        case .h4, .h4WithPhdr: return .pcapH4
        case .leLL: return .pcapLELL
        case .leLLWithRadioHeader: return .pcapLELLWithRadioHeader
        case .nordicBLE: return .pcapNordicBLE
        case .ppi: return .pcapPPI
        case .bredrBB: return .pcapBREDRBB
        }
    }

    public func next() throws -> Frame? {
        while !finished {
            var header: UnsafeMutablePointer<pcap_pkthdr>?
            var data: UnsafePointer<UInt8>?
            let status = pcap_next_ex(handle, &header, &data)
            if status == 1, let header, let data {
                records += 1
                let bytes = Array(UnsafeBufferPointer(start: data, count: Int(header.pointee.caplen)))
                let timestamp = Microseconds.combine(seconds: Int64(header.pointee.ts.tv_sec),
                                                     micros: Int64(header.pointee.ts.tv_usec))
                if var frame = makeFrame(bytes, originalLength: Int(header.pointee.len), timestamp: timestamp) {
                    frame.comment = comments[records]
                    if records <= interfaces.interfaceOfRecord.count { attachSource(&frame) }
                    return frame
                }
                continue
            }
            finished = true
            if let failure = feeder?.failure {
                warnings.append(CaptureWarning("\(failure) after record \(count); every record before it was read"))
            } else if status == PCAP_ERROR {
                let message = String(cString: pcap_geterr(handle))
                warn("\(message) after record \(count); every complete record before it was read")
            }
        }
        return nil
    }

    /// The frame's interface as its source: named by the interface's if_name, numbered in it,
    /// its controller index made distinct from other interfaces' (kept in the origin).
    private func attachSource(_ frame: inout Frame) {
        let interface = Int(interfaces.interfaceOfRecord[records - 1])
        while sourceNumbers.count <= interface { sourceNumbers.append(0) }
        sourceNumbers[interface] += 1
        let name = interface < interfaces.interfaceNames.count ? interfaces.interfaceNames[interface] : nil
        frame.origin = FrameOrigin(source: interface + 1, name: name ?? "interface \(interface)", number: sourceNumbers[interface],
                                   controller: frame.controller, sourceTime: frame.timestamp)
        if frame.controller != Frame.systemController {
            frame.controller = controllers.index(source: interface, controller: frame.controller)
        }
    }

    private func makeFrame(_ bytes: [UInt8], originalLength: Int, timestamp: Int64) -> Frame? {
        switch linkType {
        case .leLL, .leLLWithRadioHeader, .nordicBLE, .ppi, .bredrBB:
            // The whole record: its pseudo-header is decoded as a layer of its own, and a
            // capture written back out keeps it byte for byte.
            return Frame(number: nextNumber(), timestamp: timestamp, kind: .air(linkType.air!), direction: .none,
                         bytes: bytes[...], originalLength: originalLength)
        case .linuxMonitor:
            guard bytes.count >= 4 else {
                warn("record \(count + 1) is shorter than the 4-byte monitor header; skipped")
                return nil
            }
            let index = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
            let opcode = UInt16(bytes[2]) << 8 | UInt16(bytes[3])
            let (kind, direction) = MonitorOpcode.kind(for: opcode)
            return Frame(number: nextNumber(), timestamp: timestamp, kind: kind, direction: direction,
                         controller: index, bytes: bytes[4...], originalLength: max(0, originalLength - 4))
        case .h4, .h4WithPhdr:
            let headerSize = linkType == .h4WithPhdr ? 5 : 1
            guard bytes.count >= headerSize else {
                warn("record \(count + 1) is shorter than its \(headerSize)-byte header; skipped")
                return nil
            }
            let indicator = bytes[headerSize - 1]
            let kind = H4.kind(for: indicator) ?? .unrecognized(UInt16(indicator))
            var direction = H4.impliedDirection(for: kind)
            if linkType == .h4WithPhdr {
                let flag = UInt32(bytes[0]) << 24 | UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 8 | UInt32(bytes[3])
                direction = flag & 1 != 0 ? .received : .sent
            }
            return Frame(number: nextNumber(), timestamp: timestamp, kind: kind, direction: direction,
                         bytes: bytes[headerSize...], originalLength: max(0, originalLength - headerSize))
        }
    }
}

/// Copies a ByteStream into a socket pair on its own thread, so a library that reads a FILE*
/// (libpcap) can read standard input or a decompressed file as it arrives. A socket rather than a
/// pipe so that a reader that stops early ends the copy with EPIPE (MSG_NOSIGNAL), never SIGPIPE.
final class PipeFeeder: @unchecked Sendable {
    let readDescriptor: Int32
    let writeDescriptor: Int32
    let stream: ByteStream
    let lock = NSLock()
    var thread: Thread?
    var storedFailure: Error?

    /// Why the copy stopped early, if the stream failed (a corrupt gzip, a read error).
    var failure: Error? {
        lock.lock()
        defer { lock.unlock() }
        return storedFailure
    }

    init(stream: ByteStream) throws {
        var fds: [Int32] = [0, 0]
        #if canImport(Glibc)
        let type = Int32(SOCK_STREAM.rawValue)
        #else
        let type = SOCK_STREAM
        #endif
        guard socketpair(AF_UNIX, type, 0, &fds) == 0 else {
            throw CaptureError("cannot create a socket pair: \(systemErrorText(errno))")
        }
        readDescriptor = fds[0]
        writeDescriptor = fds[1]
        self.stream = stream
        let thread = Thread { [self] in self.run() }
        self.thread = thread
        thread.start()
    }

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        defer { close(writeDescriptor) }
        while true {
            let n: Int
            do {
                n = try buffer.withUnsafeMutableBytes { try stream.read(into: $0) }
            } catch {
                lock.lock()
                storedFailure = error
                lock.unlock()
                return
            }
            if n == 0 { return }
            var done = 0
            while done < n {
                let sent = buffer.withUnsafeBytes { send(writeDescriptor, $0.baseAddress! + done, n - done, Int32(MSG_NOSIGNAL)) }
                if sent < 0 {
                    if errno == EINTR { continue }
                    return // the reader went away
                }
                done += sent
            }
        }
    }
}

/// Writes classic pcap (microsecond timestamps, little-endian) with link type 201 or 254, or
/// an air capture's own link type (251, 256, 272), which holds only frames of that type.
public final class PcapWriter: CaptureWriter {
    let sink: ByteSink
    let linkType: PcapLinkType
    var record: [UInt8] = []

    public init(sink: ByteSink, linkType: PcapLinkType) throws {
        precondition(linkType != .h4, "btlog writes pcap link types 201, 254, 251, 256, 272 and 192")
        self.sink = sink
        self.linkType = linkType
        var header: [UInt8] = []
        header.appendLE(UInt32(0xA1B2_C3D4))
        header.appendLE(UInt16(2))
        header.appendLE(UInt16(4))
        header.appendLE(UInt32(0)) // thiszone
        header.appendLE(UInt32(0)) // sigfigs
        header.appendLE(UInt32(0x0004_0000)) // snaplen
        header.appendLE(UInt32(linkType.rawValue))
        try sink.write(header)
    }

    public func write(_ frame: Frame) throws -> Bool {
        guard let pseudo = PcapEncoding.pseudoHeader(for: frame, linkType: linkType) else { return false }
        let (seconds, micros) = Microseconds.split(frame.timestamp)
        record.removeAll(keepingCapacity: true)
        record.appendLE(UInt32(truncatingIfNeeded: seconds))
        record.appendLE(UInt32(micros))
        record.appendLE(UInt32(pseudo.count + frame.bytes.count))
        record.appendLE(UInt32(pseudo.count + frame.originalLength))
        record.append(contentsOf: pseudo)
        record.append(contentsOf: frame.bytes)
        try sink.write(record)
        return true
    }

    public func flush() throws { try sink.flush() }
    public func close() throws { try sink.close() }
}

enum PcapEncoding {
    /// The bytes in front of the frame payload for a link type, or nil when it cannot hold the frame.
    static func pseudoHeader(for frame: Frame, linkType: PcapLinkType) -> [UInt8]? {
        var header: [UInt8] = []
        switch linkType {
        case .leLL, .leLLWithRadioHeader, .nordicBLE, .ppi, .bredrBB:
            guard case .air(let type) = frame.kind, type == linkType.air else { return nil }
        case .linuxMonitor:
            guard let opcode = MonitorOpcode.opcode(for: frame.kind, direction: frame.direction) else { return nil }
            header.appendBE(frame.controller)
            header.appendBE(opcode)
        case .h4WithPhdr, .h4:
            let indicator: UInt8
            if case .unrecognized(let code) = frame.kind, code <= 0xFF {
                indicator = UInt8(code)
            } else {
                guard let known = H4.indicator(for: frame.kind) else { return nil }
                indicator = known
            }
            if linkType == .h4WithPhdr { header.appendBE(UInt32(frame.direction == .received ? 1 : 0)) }
            header.append(indicator)
        }
        return header
    }
}
