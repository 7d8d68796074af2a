#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a writer's bytes go: a file (written through a buffer) or memory.
public protocol ByteSink: AnyObject {
    func write(_ bytes: [UInt8]) throws
    func flush() throws
    func close() throws
}

/// Collects bytes in memory (tests, round trips).
public final class MemorySink: ByteSink {
    public private(set) var bytes: [UInt8] = []
    public init() {}
    public func write(_ bytes: [UInt8]) throws { self.bytes.append(contentsOf: bytes) }
    public func flush() throws {}
    public func close() throws {}
}

/// Buffered writes to a file descriptor; errors (a full disk, a closed pipe) are thrown with
/// the output's name.
public final class FileSink: ByteSink {
    let fd: Int32
    let name: String
    let ownsDescriptor: Bool
    var buffer: [UInt8] = []
    let capacity: Int
    var closed = false

    public init(fd: Int32, name: String, ownsDescriptor: Bool, capacity: Int = 1 << 16) {
        self.fd = fd
        self.name = name
        self.ownsDescriptor = ownsDescriptor
        self.capacity = capacity
        buffer.reserveCapacity(capacity)
    }

    public func write(_ bytes: [UInt8]) throws {
        buffer.append(contentsOf: bytes)
        if buffer.count >= capacity { try flush() }
    }

    public func flush() throws {
        defer { buffer.removeAll(keepingCapacity: true) }
        if let code = buffer.withUnsafeBytes({ writeFully(fd, $0) }) {
            throw CaptureError("\(name): write failed: \(systemErrorText(code))", isBrokenPipe: code == EPIPE)
        }
    }

    public func close() throws {
        guard !closed else { return }
        closed = true
        try flush()
        if ownsDescriptor, closeDescriptor(fd) != 0 {
            throw CaptureError("\(name): close failed: \(systemErrorText(errno))")
        }
    }

    deinit {
        if !closed { try? flush(); if ownsDescriptor { _ = closeDescriptor(fd) } }
    }
}

/// Writes every byte to a descriptor, retrying short writes and EINTR; the errno on failure.
public func writeFully(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
    var done = 0
    while done < bytes.count {
        #if canImport(Glibc)
        let n = SystemCalls.write(fd, bytes.baseAddress! + done, bytes.count - done)
        #else
        let n = Darwin.write(fd, bytes.baseAddress! + done, bytes.count - done)
        #endif
        if n < 0 {
            if errno == EINTR { continue }
            return errno
        }
        done += n
    }
    return nil
}

@inline(__always) func closeDescriptor(_ fd: Int32) -> Int32 {
    #if canImport(Glibc)
    return SystemCalls.close(fd)
    #else
    return Darwin.close(fd)
    #endif
}

/// Consumes Frames and writes them in one capture format.
public protocol CaptureWriter: AnyObject {
    /// Writes one frame; false if this format cannot hold a frame of that kind (it is skipped).
    @discardableResult func write(_ frame: Frame) throws -> Bool
    func flush() throws
    func close() throws
}

public enum CaptureWriters {
    /// A writer for `format` over `sink`; the header is written at once.
    public static func make(_ format: CaptureFileFormat, sink: ByteSink) throws -> CaptureWriter {
        switch format {
        case .btsnoopHCI: return try BTSnoopWriter(sink: sink, datalink: .hci)
        case .btsnoopH4: return try BTSnoopWriter(sink: sink, datalink: .uart)
        case .btsnoopMonitor: return try BTSnoopWriter(sink: sink, datalink: .monitor)
        case .pklg: return PacketLoggerWriter(sink: sink)
        case .pcapH4: return try PcapWriter(sink: sink, linkType: .h4WithPhdr)
        case .pcapMonitor: return try PcapWriter(sink: sink, linkType: .linuxMonitor)
        case .pcapng: return try PcapNGWriter(sink: sink)
        case .pcapLELL: return try PcapWriter(sink: sink, linkType: .leLL)
        case .pcapLELLWithRadioHeader: return try PcapWriter(sink: sink, linkType: .leLLWithRadioHeader)
        case .pcapNordicBLE: return try PcapWriter(sink: sink, linkType: .nordicBLE)
        case .pcapPPI: return try PcapWriter(sink: sink, linkType: .ppi)
        case .pcapBREDRBB: return try PcapWriter(sink: sink, linkType: .bredrBB)
        }
    }
}

/// Byte order for fixed-size fields, as writers append them (ByteCursor reads them).
extension Array where Element == UInt8 {
    mutating func appendBE(_ value: UInt16) { append(UInt8(value >> 8)); append(UInt8(value & 0xFF)) }
    mutating func appendBE(_ value: UInt32) {
        append(UInt8(value >> 24)); append(UInt8(value >> 16 & 0xFF))
        append(UInt8(value >> 8 & 0xFF)); append(UInt8(value & 0xFF))
    }
    mutating func appendBE(_ value: UInt64) { appendBE(UInt32(value >> 32)); appendBE(UInt32(value & 0xFFFF_FFFF)) }
    mutating func appendLE(_ value: UInt16) { append(UInt8(value & 0xFF)); append(UInt8(value >> 8)) }
    mutating func appendLE(_ value: UInt32) {
        append(UInt8(value & 0xFF)); append(UInt8(value >> 8 & 0xFF))
        append(UInt8(value >> 16 & 0xFF)); append(UInt8(value >> 24))
    }
}
