#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The bytes of text output waiting to be written: a growing buffer reached through a pointer,
/// so that each byte a renderer puts costs a bounds check and a store, not an array's
/// uniqueness and capacity checks. Its owner (one writer) frees it with `deallocate()`; a
/// copy shares the storage, so it is lent (`inout`), never copied.
public struct OutputBuffer: ASCIIOutput {
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var capacity: Int
    @usableFromInline var written = 0
    public var count: Int { written }

    public init(capacity: Int) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    public func deallocate() { base.deallocate() }

    public var isEmpty: Bool { written == 0 }

    /// The bytes written so far.
    public func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base, count: written))
    }

    public mutating func removeAll() { written = 0 }

    /// Takes back the last `count` bytes written (at most all of them).
    public mutating func removeLast(_ count: Int) { written -= min(max(0, count), written) }

    @inlinable @inline(__always) public mutating func put(_ byte: UInt8) {
        if written == capacity { grow(to: written + 1) }
        base[written] = byte
        written += 1
    }

    @inlinable @inline(__always) public mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        if written + bytes.count > capacity { grow(to: written + bytes.count) }
        (base + written).update(from: source, count: bytes.count)
        written += bytes.count
    }

    @inlinable public mutating func put(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { put($0) }
    }

    @usableFromInline mutating func grow(to needed: Int) {
        var larger = capacity * 2
        while larger < needed { larger *= 2 }
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        moved.update(from: base, count: written)
        base.deallocate()
        base = moved
        capacity = larger
    }
}
