import Foundation

/// Android's btsnooz: the HCI log a bugreport carries in its text, between
/// "--- BEGIN:BTSNOOP_LOG_SUMMARY" and "--- END:BTSNOOP_LOG_SUMMARY", as base64 of
/// a version byte (1 or 2), the last packet's time (8 bytes, little-endian, microseconds since the
/// Unix epoch) and a zlib stream of records. Record header, little-endian:
/// v1: length (2, counting the type byte), time since the previous record (4), type (1);
/// v2: length (2), original packet length (2), time since the previous record (4), type (1).
/// Types: 0x10 event, 0x11 ACL, 0x12 SCO, 0x17 ISO received; 0x20 command, 0x21 ACL,
/// 0x22 SCO, 0x2D ISO sent.
public enum Btsnooz {
    public static let beginMarker = Array("--- BEGIN:BTSNOOP_LOG_SUMMARY".utf8)
    public static let endMarker = Array("--- END:BTSNOOP_LOG_SUMMARY".utf8)
    static let maximumBase64 = 256 << 20
    static let maximumInflated = 256 << 20

    /// Scans text for the btsnooz section; nil if there is none.
    static func findSection(in input: BufferedReader) throws -> [UInt8]? {
        var line: [UInt8] = []
        var inside = false
        var base64: [UInt8] = []
        // Whole buffers at a time: bugreports run to hundreds of megabytes of text.
        while try input.ensure(1) {
            for byte in input.take(input.available) {
                if byte != 0x0A { if line.count < 4096 { line.append(byte) }; continue }
                defer { line.removeAll(keepingCapacity: true) }
                if inside {
                    if contains(line, endMarker) { return base64 }
                    base64.append(contentsOf: line.filter { $0 > 0x20 })
                    if base64.count > maximumBase64 { throw CaptureError("btsnooz section is larger than \(maximumBase64) bytes") }
                } else if contains(line, beginMarker) {
                    inside = true
                }
            }
        }
        return inside ? base64 : nil
    }

    static func contains(_ line: [UInt8], _ marker: [UInt8]) -> Bool {
        guard line.count >= marker.count else { return false }
        for start in 0 ... line.count - marker.count where line[start] == marker[0] {
            if line[start ..< start + marker.count].elementsEqual(marker) { return true }
        }
        return false
    }

    /// Decodes the base64 text of a section into Frames.
    public static func frames(base64: [UInt8], name: String, warnings: inout [CaptureWarning]) throws -> [Frame] {
        guard let data = Data(base64Encoded: Data(base64), options: .ignoreUnknownCharacters) else {
            throw CaptureError("\(name): the btsnooz section is not valid base64")
        }
        let bytes = [UInt8](data)
        guard bytes.count >= 9 else { throw CaptureError("\(name): the btsnooz section is too short (\(bytes.count) bytes)") }
        let version = bytes[0]
        guard version == 1 || version == 2 else {
            throw CaptureError("\(name): btsnooz version \(version) is not supported (1 and 2 are)")
        }
        var last: Int64 = 0
        for i in 0 ..< 8 { last |= Int64(bytes[1 + i]) << (8 * i) }
        let records = try InflateStream.inflateAll(Array(bytes[9...]), name: "\(name) (btsnooz)", limit: maximumInflated)
        let headerSize = version == 1 ? 7 : 9
        struct Entry { var delta: Int64; var type: UInt8; var data: ArraySlice<UInt8>; var original: Int }
        var entries: [Entry] = []
        var offset = 0
        while offset < records.count {
            guard records.count - offset >= headerSize else {
                warnings.append(CaptureWarning("\(name): btsnooz record header cut short at byte \(offset) of the inflated log"))
                break
            }
            let length = Int(records[offset]) | Int(records[offset + 1]) << 8
            let original = max(0, (version == 2 ? Int(records[offset + 2]) | Int(records[offset + 3]) << 8 : length) - 1)
            let d = offset + (version == 2 ? 4 : 2)
            let delta = Int64(records[d]) | Int64(records[d + 1]) << 8 | Int64(records[d + 2]) << 16 | Int64(records[d + 3]) << 24
            let type = records[d + 4]
            let dataStart = offset + headerSize
            guard length >= 1, dataStart + length - 1 <= records.count else {
                warnings.append(CaptureWarning("\(name): btsnooz record at byte \(offset) of the inflated log is cut short"))
                break
            }
            entries.append(Entry(delta: delta, type: type, data: records[dataStart ..< dataStart + length - 1], original: original))
            offset = dataStart + length - 1
        }
        var time = last &- entries.reduce(0) { $0 &+ $1.delta }
        var frames: [Frame] = []
        frames.reserveCapacity(entries.count)
        for entry in entries {
            time &+= entry.delta
            let kind: FrameKind
            let direction: Direction
            switch entry.type {
            case 0x10: (kind, direction) = (.event, .received)
            case 0x11: (kind, direction) = (.aclData, .received)
            case 0x12: (kind, direction) = (.scoData, .received)
            case 0x17: (kind, direction) = (.isoData, .received)
            case 0x20: (kind, direction) = (.command, .sent)
            case 0x21: (kind, direction) = (.aclData, .sent)
            case 0x22: (kind, direction) = (.scoData, .sent)
            case 0x2D: (kind, direction) = (.isoData, .sent)
            default:
                warnings.append(CaptureWarning("\(name): btsnooz record of unknown type 0x\(String(entry.type, radix: 16)) skipped"))
                continue
            }
            frames.append(Frame(number: frames.count + 1, timestamp: time, kind: kind, direction: direction,
                                bytes: entry.data, originalLength: max(entry.original, entry.data.count)))
        }
        return frames
    }
}
