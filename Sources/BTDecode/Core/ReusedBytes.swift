/// Bytes written over in place from packet to packet: the first `count` are the content, what
/// lies past them an earlier packet's, overwritten as new bytes come. Emptying is one store and
/// writing a copy into bytes already allocated (Array's own clearing and appending cost a
/// general call each, on every layer of every packet). A layer's summary and its fields' text
/// and byte strings are kept so.
public struct ReusedBytes {
    @usableFromInline var storage: [UInt8] = []
    @usableFromInline var length = 0

    public init() {}

    public var count: Int { length }
    public var isEmpty: Bool { length == 0 }
    /// The content (a slice of the storage: no copy).
    public var bytes: ArraySlice<UInt8> { storage[0 ..< length] }

    /// The content in place.
    @inlinable public func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try storage.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[0 ..< length])) }
    }

    /// `count` bytes from `start` of the content; empty where that is not all content.
    @inlinable func slice(from start: Int, count: Int) -> ArraySlice<UInt8> {
        guard start >= 0, count >= 0, start <= length, count <= length - start else { return [] }
        return storage[start ..< start + count]
    }

    public mutating func removeAll() { length = 0 }

    /// Takes back the last `count` bytes written.
    mutating func removeLast(_ count: Int) { length -= min(max(count, 0), length) }

    /// Writes `bytes` after the content: over the stale bytes where the storage has room, else
    /// past them, growing it.
    public mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        let n = bytes.count
        guard n > 0 else { return }
        if length + n <= storage.count {
            let at = length
            storage.withUnsafeMutableBufferPointer { target in
                UnsafeMutableRawPointer(target.baseAddress! + at).copyMemory(from: bytes.baseAddress!, byteCount: n)
            }
        } else {
            if length < storage.count { storage.removeSubrange(length...) }
            storage.append(contentsOf: bytes)
        }
        length += n
    }

    public mutating func put(_ byte: UInt8) {
        if length < storage.count { storage[length] = byte } else { storage.append(byte) }
        length += 1
    }
}
