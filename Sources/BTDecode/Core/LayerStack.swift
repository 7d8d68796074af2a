/// A packet's layers, from the outermost up, in storage that outlives them: the slots past the
/// last layer hold the layers of packets decoded before into this one, emptied but keeping
/// their arrays' capacity, so that the next packet's layers are opened in place
/// (`Packet.openLayer`) rather than moved in and out of a list of spares.
///
/// A value, as an Array is: a copy (a sink keeping a packet) shares the storage until either
/// writes, which then copies the layers (not the spares). Every index is checked.
public struct LayerStack: RandomAccessCollection {
    @usableFromInline struct Counts {
        /// Layers in the packet: slots `0 ..< count`.
        @usableFromInline var count: Int
        /// Slots holding a layer: `count ..< initialized` are spares.
        @usableFromInline var initialized: Int
    }

    @usableFromInline final class Storage: ManagedBuffer<Counts, Layer> {
        deinit {
            withUnsafeMutablePointers { counts, layers in _ = layers.deinitialize(count: counts.pointee.initialized) }
        }
    }

    /// nil until the first layer: an empty stack allocates nothing.
    @usableFromInline var storage: Storage?

    public init() {}

    public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { storage?.header.count ?? 0 }
    @inlinable public var count: Int { endIndex }
    @inlinable public var isEmpty: Bool { endIndex == 0 }

    /// The slots' first, valid while `storage` is (the caller holds it).
    @usableFromInline var slots: UnsafeMutablePointer<Layer> {
        storage.unsafelyUnwrapped.withUnsafeMutablePointerToElements { $0 }
    }

    @inlinable public subscript(index: Int) -> Layer {
        _read {
            precondition(index >= 0 && index < endIndex, "layer index out of range")
            yield slots[index]
        }
        _modify {
            precondition(index >= 0 && index < endIndex, "layer index out of range")
            makeUnique()
            yield &slots[index]
        }
    }

    /// The layers in place, for a renderer walking them all.
    public func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Layer>) throws -> R) rethrows -> R {
        guard let storage else { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
        return try withExtendedLifetime(storage) { try body(UnsafeBufferPointer(start: slots, count: count)) }
    }

    /// The layers in place, writable.
    mutating func withUnsafeMutableBufferPointer<R>(_ body: (UnsafeMutableBufferPointer<Layer>) throws -> R) rethrows -> R {
        guard storage != nil else { return try body(UnsafeMutableBufferPointer(start: nil, count: 0)) }
        makeUnique()
        return try withExtendedLifetime(storage) { try body(UnsafeMutableBufferPointer(start: slots, count: count)) }
    }

    // MARK: Writing

    /// This value's storage alone, with room for `extra` more slots: a shared one is copied
    /// (its layers, not its spares).
    @usableFromInline mutating func makeUnique(extra: Int = 0) {
        // Checked before anything else holds the storage (a binding would be a second owner).
        if isKnownUniquelyReferenced(&storage) {
            let storage = storage.unsafelyUnwrapped
            let initialized = storage.header.initialized
            if initialized + extra <= storage.capacity { return }
            grow(to: initialized + extra, moving: true)
        } else if storage == nil {
            if extra > 0 { grow(to: extra, moving: true) }
        } else {
            grow(to: count + extra, moving: false)
        }
    }

    /// New storage for at least `capacity` slots, holding this one's slots moved (when it is
    /// this value's alone) or its layers copied (when shared).
    private mutating func grow(to capacity: Int, moving: Bool) {
        let new = Storage.create(minimumCapacity: Swift.max(capacity, 4)) { _ in Counts(count: 0, initialized: 0) }
        let grown = unsafeDowncast(new, to: Storage.self)
        if let old = storage {
            old.withUnsafeMutablePointers { oldCounts, oldSlots in
                grown.withUnsafeMutablePointers { counts, slots in
                    if moving {
                        slots.moveInitialize(from: oldSlots, count: oldCounts.pointee.initialized)
                        counts.pointee = oldCounts.pointee
                        oldCounts.pointee.initialized = 0
                        oldCounts.pointee.count = 0
                    } else {
                        slots.initialize(from: oldSlots, count: oldCounts.pointee.count)
                        counts.pointee = Counts(count: oldCounts.pointee.count, initialized: oldCounts.pointee.count)
                    }
                }
            }
        }
        storage = grown
    }

    /// Opens the next layer in place: a spare made new, or one made where there is none.
    /// Returns its index.
    @usableFromInline mutating func open(_ make: (UnsafeMutablePointer<Layer>, _ isSpare: Bool) -> Void) -> Int {
        makeUnique(extra: 1)
        let storage = storage.unsafelyUnwrapped
        let counts = storage.header
        let index = counts.count
        make(slots + index, index < counts.initialized)
        slots[index].position = index
        storage.header.count = index + 1
        if index == counts.initialized { storage.header.initialized = index + 1 }
        return index
    }

    /// Puts `layer` on top. A spare in its slot moves past the other spares.
    mutating func append(_ layer: __owned Layer) {
        makeUnique(extra: 1)
        let storage = storage.unsafelyUnwrapped
        let counts = storage.header
        if counts.count < counts.initialized {
            (slots + counts.initialized).moveInitialize(from: slots + counts.count, count: 1)
        }
        (slots + counts.count).initialize(to: layer)
        storage.header = Counts(count: counts.count + 1, initialized: counts.initialized + 1)
    }

    /// Takes the top layer out (a decoder reopening the layer below it).
    mutating func removeLast() -> Layer {
        precondition(!isEmpty, "no layer to remove")
        makeUnique()
        let storage = storage.unsafelyUnwrapped
        let counts = storage.header
        let top = counts.count - 1
        let layer = (slots + top).move()
        let lastSpare = counts.initialized - 1
        if lastSpare != top { (slots + top).moveInitialize(from: slots + lastSpare, count: 1) }
        storage.header = Counts(count: top, initialized: lastSpare)
        return layer
    }

    /// A spare taken out whole (for `Packet.makeLayer`, which hands a layer by value), or nil.
    mutating func takeSpare() -> Layer? {
        guard let stored = storage?.header, stored.initialized > stored.count else { return nil }
        makeUnique()
        let storage = storage.unsafelyUnwrapped
        let counts = storage.header
        guard counts.initialized > counts.count else { return nil }
        storage.header.initialized = counts.initialized - 1
        return (slots + counts.initialized - 1).move()
    }

    /// No layers; what they held stays as spares. A shared storage is left to its other owner.
    mutating func removeAll() {
        guard storage != nil else { return }
        if isKnownUniquelyReferenced(&storage) {
            storage.unsafelyUnwrapped.header.count = 0
        } else {
            storage = nil
        }
    }
}
