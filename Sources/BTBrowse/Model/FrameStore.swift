import BTCapture

/// Every frame of a capture, kept for reading again in any order (the browser opens packet
/// 412,007, then 12): the bytes of all frames one after another in large chunks, and a small
/// fixed-size record per frame. No Frame (with its own array) is kept per packet.
public struct FrameStore {
    /// What a frame is besides its bytes, and where its bytes lie. Every reader caps a record
    /// (1 MB for btsnoop and PacketLogger, the snap length for pcap, 64 KB from the monitor
    /// socket), so a frame's offset in its chunk and its length fit 32 bits.
    struct Record {
        var number: Int
        var timestamp: Int64
        var originalLength: Int
        var kind: FrameKind
        var direction: Direction
        var controller: UInt16
        var drops: UInt32
        var chunk: UInt32
        var offset: UInt32
        var length: UInt32
    }

    /// A chunk's size: a frame's bytes never span two chunks, and a frame longer than this has
    /// a chunk of its own.
    static let chunkSize = 1 << 20
    private var chunks: [[UInt8]] = []
    private var records: [Record] = []
    /// The few frames a capture file comments (pcapng), by index.
    private var comments: [Int: String] = [:]
    /// A merge's frames (`Frame.origin`), by index, compactly: each source's name once, a
    /// small record per frame, and the matched PDUs' other ends apart (a minority).
    struct OriginRecord {
        var source: UInt16
        var controller: UInt16
        var number: UInt32
        var sourceTime: Int64
    }
    private var sourceNames: [String] = []
    private var origins: [OriginRecord] = []
    private var matches: [Int: FrameMatch] = [:]

    public init() {}

    public var count: Int { records.count }

    /// The Source column's width for a merge (as the table widens it: 12, or the longest
    /// name); nil for a single capture.
    public var sourceColumnWidth: Int? {
        sourceNames.isEmpty ? nil : max(12, sourceNames.map(\.utf8.count).max() ?? 0)
    }
    public var isEmpty: Bool { records.isEmpty }

    /// Bytes held: the chunks' capacity and the records (what a browser's memory grows by).
    public var bytesHeld: Int {
        chunks.reduce(0) { $0 + $1.capacity } + records.capacity * MemoryLayout<Record>.stride
            + origins.capacity * MemoryLayout<OriginRecord>.stride
    }

    public mutating func append(_ frame: Frame) {
        let length = frame.bytes.count
        if chunks.isEmpty || chunks[chunks.count - 1].count + length > Self.chunkSize {
            var chunk: [UInt8] = []
            chunk.reserveCapacity(max(Self.chunkSize, length))
            chunks.append(chunk)
        }
        let chunk = chunks.count - 1
        let offset = chunks[chunk].count
        chunks[chunk].append(contentsOf: frame.bytes)
        if let comment = frame.comment { comments[records.count] = comment }
        if let origin = frame.origin {
            while origins.count < records.count { origins.append(OriginRecord(source: 0, controller: 0, number: 0, sourceTime: 0)) }
            let source = min(max(origin.source, 1), Int(UInt16.max))
            while sourceNames.count < source { sourceNames.append("") }
            sourceNames[source - 1] = origin.name
            origins.append(OriginRecord(source: UInt16(source), controller: origin.controller,
                                        number: UInt32(clamping: origin.number), sourceTime: origin.sourceTime))
            if let match = origin.match { matches[records.count] = match }
        }
        records.append(Record(number: frame.number, timestamp: frame.timestamp, originalLength: frame.originalLength, kind: frame.kind,
                              direction: frame.direction, controller: frame.controller, drops: frame.drops,
                              chunk: UInt32(chunk), offset: UInt32(offset), length: UInt32(length)))
    }

    /// The frame at `index` (0-based), as it was appended. A frame of a chunk no longer appended
    /// to shares the chunk's storage; one of the last chunk gets its own copy, so that a packet
    /// kept while frames are still appended (a followed capture) never makes the chunk copy itself.
    /// The capture time of the frame at `index`, without making the Frame (a row's relative
    /// and delta times read the packet before it).
    public func timestamp(at index: Int) -> Int64? {
        index >= 0 && index < records.count ? records[index].timestamp : nil
    }

    public func frame(at index: Int) -> Frame? {
        guard index >= 0, index < records.count else { return nil }
        let record = records[index]
        let chunk = Int(record.chunk), start = Int(record.offset)
        let slice = chunks[chunk][start ..< start + Int(record.length)]
        let bytes = chunk == chunks.count - 1 ? Array(slice)[...] : slice
        var frame = Frame(number: record.number, timestamp: record.timestamp, kind: record.kind, direction: record.direction,
                          controller: record.controller, bytes: bytes, originalLength: record.originalLength, drops: record.drops)
        frame.comment = comments[index]
        if index < origins.count, origins[index].source > 0 {
            let origin = origins[index]
            frame.origin = FrameOrigin(source: Int(origin.source), name: sourceNames[Int(origin.source) - 1], number: Int(origin.number),
                                       controller: origin.controller, sourceTime: origin.sourceTime, match: matches[index])
        }
        return frame
    }
}
