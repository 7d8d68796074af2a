/// A key the Session's maps look up for every packet (a link, a flow, a bearer, a GATT server),
/// small enough to pack into one word. Its hash is that word mixed once (splitmix64's
/// finalizer with the map's seed) instead of SipHash through a `Hasher`: a lookup of a link's
/// state cost about 190 instructions, three to five of them per ACL packet, most of it the
/// hasher's rounds. Equality stays the type's own (the word need not be unique, only spread).
///
/// `_rawHashValue(seed:)` is what Dictionary and Set call for a key's bucket; it is public but
/// underscored (the standard library's integers implement it the same way). The seed is each
/// map's own and unknown to a capture's author, so a crafted capture cannot aim its keys at
/// one bucket; and the keys are few (a capture has at most a few thousand links).
public protocol WordKey: Hashable {
    /// The key's values in one word: equal keys give equal words.
    var hashWord: UInt64 { get }
}

extension WordKey {
    public func hash(into hasher: inout Hasher) { hasher.combine(hashWord) }

    public func _rawHashValue(seed: Int) -> Int { WordHash.mix(hashWord, seed: seed) }
}

public enum WordHash {
    @inlinable @inline(__always)
    public static func mix(_ word: UInt64, seed: Int) -> Int {
        var x = word ^ UInt64(truncatingIfNeeded: seed)
        x = (x ^ x >> 30) &* 0xBF58_476D_1CE4_E5B9
        x = (x ^ x >> 27) &* 0x94D0_49BB_1331_11EB
        return Int(truncatingIfNeeded: x ^ x >> 31)
    }
}
