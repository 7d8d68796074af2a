/// Writes pcapng: a Section Header Block, one Interface Description Block of link type 254
/// (Linux monitor: keeps controller indexes and notes) and an Enhanced Packet Block per frame.
/// Little-endian; timestamps in microseconds (the default if_tsresol).
public final class PcapNGWriter: CaptureWriter {
    let sink: ByteSink
    var block: [UInt8] = []

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
        // Interface Description Block
        header.appendLE(UInt32(1))
        header.appendLE(UInt32(20))
        header.appendLE(UInt16(UInt16(PcapLinkType.linuxMonitor.rawValue)))
        header.appendLE(UInt16(0))
        header.appendLE(UInt32(0)) // no snap length limit
        header.appendLE(UInt32(20))
        try sink.write(header)
    }

    public func write(_ frame: Frame) throws -> Bool {
        guard let pseudo = PcapEncoding.pseudoHeader(for: frame, linkType: .linuxMonitor) else { return false }
        let captured = pseudo.count + frame.bytes.count
        let padding = (4 - captured % 4) % 4
        let total = 32 + captured + padding
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
        block.appendLE(UInt32(total))
        try sink.write(block)
        return true
    }

    public func flush() throws { try sink.flush() }
    public func close() throws { try sink.close() }
}
