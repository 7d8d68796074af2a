import Foundation

/// Advertising data decoded before, by its bytes. A scan hears the same advertisements over and
/// over (a beacon every 100 ms, each device's scan response), and what `AdvertisingData.decode`
/// makes of them is a function of the bytes and the view alone: it reads no session state and
/// keeps none (a company's decoder sees only its bytes: `ManufacturerDataDescriber`). So the
/// fields, issues and digest it made for the same bytes under the same view are appended again
/// instead of decoded again: an advertising report's structures cost about 9,700 instructions
/// to decode for the tree and 3,000 to repeat (copying their fields), 1,700 and 300 for the
/// table (callgrind, the bench's LE session).
///
/// Not state a view can see: a session keeps it beside its state, and copies of a session (the
/// browser's saved ones) carry their own.
struct AdvertisingDataMemo {
    /// Data longer than this is decoded every time (extended advertising joined from several
    /// packets): what the memo holds stays small.
    static let longestData = 251
    /// Entries kept before the memo starts over: a busy scan has a few dozen advertisers.
    static let capacity = 256

    struct Key: Hashable {
        var bytes: ArraySlice<UInt8>
        /// Whether fields have ranges (the data lies in the layer's own bytes).
        var ranged: Bool
        /// Whether the layer had no field yet: a layer keeps its first field whatever the mask.
        var layerWasEmpty: Bool
        /// All of it in one word, eight bytes at a time: a report is looked up for every
        /// packet, and SipHash over its bytes and a byte-wise comparison cost more than
        /// half of what the memo saves the table.
        private let word: UInt64

        init(bytes: ArraySlice<UInt8>, ranged: Bool, layerWasEmpty: Bool) {
            self.bytes = bytes
            self.ranged = ranged
            self.layerWasEmpty = layerWasEmpty
            var word = UInt64(truncatingIfNeeded: bytes.count) << 2 | (ranged ? 2 : 0) | (layerWasEmpty ? 1 : 0)
            bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset + 8 <= raw.count {
                    word = (word ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0x9E37_79B9_7F4A_7C15
                    word ^= word >> 29
                    offset += 8
                }
                var tail: UInt64 = 0
                while offset < raw.count {
                    tail = tail << 8 | UInt64(raw[offset])
                    offset += 1
                }
                word = (word ^ tail) &* 0x9E37_79B9_7F4A_7C15
            }
            self.word = word
        }

        func hash(into hasher: inout Hasher) { hasher.combine(word) }

        func _rawHashValue(seed: Int) -> Int { WordHash.mix(word, seed: seed) }

        static func == (a: Key, b: Key) -> Bool {
            guard a.word == b.word, a.ranged == b.ranged, a.layerWasEmpty == b.layerWasEmpty, a.bytes.count == b.bytes.count else { return false }
            return a.bytes.withUnsafeBytes { x in b.bytes.withUnsafeBytes { y in x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 } }
        }
    }

    struct Entry {
        /// Ranges relative to the data's first byte, text and bytes to `fieldBytes`'s.
        var fields: [Field]
        /// What the fields' text and bytes were in their layer's `fieldBytes`.
        var fieldBytes: [UInt8]
        var issues: [Issue]
        var digest: AdvertisingData.Digest
    }

    private var entries: [Key: Entry] = [:]
    var count: Int { entries.count }
    /// The view the entries were decoded for (fields kept, display text): another view starts
    /// the memo over.
    private var view: (fields: FieldMask, displays: Bool)?

    /// The data's fields, issues and digest added to `layer` as `decode` added them before, if
    /// it did for this view; nil when it has to be decoded.
    mutating func replay(_ key: Key, into layer: inout Layer, shift: Int) -> AdvertisingData.Digest? {
        guard let view, view.fields == layer.keptFields, view.displays == layer.keepsDisplays,
              let entry = entries[key] else { return nil }
        let base = layer.fieldBytes.count
        entry.fieldBytes.withUnsafeBufferPointer { layer.fieldBytes.put($0) }
        for field in entry.fields {
            var field = field.movingStoredBytes(by: base)
            if let range = field.range { field.range = range.lowerBound + shift ..< range.upperBound + shift }
            layer.fields.append(field)
        }
        if !entry.issues.isEmpty { layer.issues += entry.issues }
        return entry.digest
    }

    /// What `decode` added to `layer` past `fieldsBefore` and `issuesBefore`, for the next time.
    mutating func remember(_ key: Key, from layer: Layer, fieldsBefore: Int, fieldBytesBefore: Int, issuesBefore: Int, shift: Int,
                           digest: AdvertisingData.Digest) {
        if view == nil || view!.fields != layer.keptFields || view!.displays != layer.keepsDisplays {
            entries.removeAll()
            view = (layer.keptFields, layer.keepsDisplays)
        }
        if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
        // The fields' text and bytes are all past `fieldBytesBefore`: a layer's are only appended.
        var fields = layer.fields[fieldsBefore...].map { $0.movingStoredBytes(by: -fieldBytesBefore) }
        for index in fields.indices {
            if let range = fields[index].range { fields[index].range = range.lowerBound - shift ..< range.upperBound - shift }
        }
        // Bytes of their own: an entry must not keep the capture's buffers alive.
        let stored = Key(bytes: ArraySlice(Array(key.bytes)), ranged: key.ranged, layerWasEmpty: key.layerWasEmpty)
        entries[stored] = Entry(fields: fields, fieldBytes: Array(layer.fieldBytes.bytes[fieldBytesBefore...]),
                                issues: Array(layer.issues[issuesBefore...]), digest: digest)
    }
}
