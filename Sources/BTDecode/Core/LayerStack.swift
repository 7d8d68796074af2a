/// A packet's layers, from the outermost up, in storage that outlives them: the slots past the
/// last layer hold the layers of packets decoded before into this one, emptied but keeping
/// their arrays' capacity, so that the next packet's layers are opened in place
/// (`Packet.openLayer`) rather than moved in and out of a list of spares.
///
/// A value, as an Array is: a copy (a sink keeping a packet) shares the storage until either
/// writes, which then copies the layers (not the spares). Every index is checked.
///
/// The storage's counts and slots are reached through pointers kept beside the reference to
/// it (valid as long as it is, which is as long as this value holds it): going through the
/// object's own accessors would retain and release it at every use.
public struct LayerStack: RandomAccessCollection {
    @usableFromInline struct Counts {
        /// Layers in the packet: slots `0 ..< count`.
        @usableFromInline var count: Int
        /// Slots holding a layer: `count ..< initialized` are spares, but for a hole.
        @usableFromInline var initialized: Int
        /// The slots allocated (kept here: ManagedBuffer's `capacity` asks the allocator).
        @usableFromInline var capacity: Int
        /// Whether the slot at `count` is empty: its spare was taken out by `takeSpare` (for a
        /// layer made as a value), and the layer is put back there when appended.
        @usableFromInline var hole: Bool

        static let empty = Counts(count: 0, initialized: 0, capacity: 0, hole: false)
    }

    @usableFromInline final class Storage: ManagedBuffer<Counts, Layer> {
        deinit {
            withUnsafeMutablePointers { counts, layers in
                let counts = counts.pointee
                if counts.hole {
                    layers.deinitialize(count: counts.count)
                    (layers + counts.count + 1).deinitialize(count: counts.initialized - counts.count - 1)
                } else {
                    layers.deinitialize(count: counts.initialized)
                }
            }
        }
    }

    /// nil until the first layer: an empty stack allocates nothing.
    @usableFromInline var storage: Storage?
    /// The storage's counts and first slot (nil with it).
    @usableFromInline var counts: UnsafeMutablePointer<Counts>?
    @usableFromInline var slots: UnsafeMutablePointer<Layer>?

    public init() {}

    public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { counts?.pointee.count ?? 0 }
    @inlinable public var count: Int { endIndex }
    @inlinable public var isEmpty: Bool { endIndex == 0 }

    @inlinable public subscript(index: Int) -> Layer {
        _read {
            precondition(index >= 0 && index < endIndex, "layer index out of range")
            yield slots.unsafelyUnwrapped[index]
        }
        _modify {
            precondition(index >= 0 && index < endIndex, "layer index out of range")
            makeUnique()
            yield &slots.unsafelyUnwrapped[index]
        }
    }

    /// The layers in place, for a renderer walking them all. Inlinable, so that the renderer's
    /// closure is not called through a context.
    @inlinable public func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Layer>) throws -> R) rethrows -> R {
        // The caller holds this value (and so the storage) for the call: nothing to extend.
        try body(UnsafeBufferPointer(start: slots, count: count))
    }

    /// The layers in place, writable.
    mutating func withUnsafeMutableBufferPointer<R>(_ body: (UnsafeMutableBufferPointer<Layer>) throws -> R) rethrows -> R {
        makeUnique()
        return try withExtendedLifetime(storage) { try body(UnsafeMutableBufferPointer(start: slots, count: count)) }
    }

    /// The most severe of the layers' issues.
    func worstSeverity() -> Issue.Severity? {
        guard let slots else { return nil }
        var worst: Issue.Severity?
        for index in 0 ..< count where !slots[index].issues.isEmpty {
            for issue in slots[index].issues where worst.map({ issue.severity > $0 }) ?? true { worst = issue.severity }
        }
        return worst
    }

    // MARK: Writing

    /// Lends the layer at `index` in place, for a decoder whose parts hold it (ATT's Body):
    /// the pointer is valid only within `body`, during which the packet cannot be reached
    /// (this is a mutating access to it).
    mutating func withLayer<R>(_ index: Int, _ body: (UnsafeMutablePointer<Layer>) throws -> R) rethrows -> R {
        precondition(index >= 0 && index < count, "layer index out of range")
        makeUnique()
        return try withExtendedLifetime(storage) { try body(slots.unsafelyUnwrapped + index) }
    }

    /// The layer at `index` written in place by `body`: one check that the storage is this
    /// value's alone for all it writes, where each `stack[index].add` makes its own.
    mutating func update<R>(_ index: Int, _ body: (inout Layer) throws -> R) rethrows -> R {
        precondition(index >= 0 && index < count, "layer index out of range")
        makeUnique()
        return try body(&slots.unsafelyUnwrapped[index])
    }

    /// This value's storage alone, with room for `extra` more slots: a shared one is copied
    /// (its layers, not its spares).
    @inlinable mutating func makeUnique(extra: Int = 0) {
        // Checked before anything else holds the storage (a binding would be a second owner).
        if _fastPath(isKnownUniquelyReferenced(&storage)) {
            let counts = counts.unsafelyUnwrapped.pointee
            if _fastPath(counts.initialized + extra <= counts.capacity) { return }
        }
        makeUniqueSlowly(extra: extra)
    }

    @usableFromInline mutating func makeUniqueSlowly(extra: Int) {
        if isKnownUniquelyReferenced(&storage) {
            grow(to: counts.unsafelyUnwrapped.pointee.initialized + extra, moving: true)
        } else if storage == nil {
            if extra > 0 { grow(to: extra, moving: true) }
        } else {
            grow(to: count + extra, moving: false)
        }
    }

    /// New storage for at least `capacity` slots, holding this one's slots moved (when it is
    /// this value's alone) or its layers copied (when shared).
    private mutating func grow(to capacity: Int, moving: Bool) {
        let made = Storage.create(minimumCapacity: Swift.max(capacity, 4)) { _ in Counts.empty }
        let grown = unsafeDowncast(made, to: Storage.self)
        let allocated = grown.capacity
        let (newCounts, newSlots) = grown.withUnsafeMutablePointers { ($0, $1) }
        if let oldCounts = counts, let oldSlots = slots {
            if moving {
                // A hole's bits move too, and it stays a hole.
                newSlots.moveInitialize(from: oldSlots, count: oldCounts.pointee.initialized)
                newCounts.pointee = oldCounts.pointee
                oldCounts.pointee = .empty
            } else {
                newSlots.initialize(from: oldSlots, count: oldCounts.pointee.count)
                newCounts.pointee = Counts(count: oldCounts.pointee.count, initialized: oldCounts.pointee.count, capacity: 0, hole: false)
            }
        }
        newCounts.pointee.capacity = allocated
        storage = grown
        counts = newCounts
        slots = newSlots
    }

    /// Adds a layer on top, in place: a spare (a layer of a packet decoded before) or, where
    /// there is none, a blank layer, which `make` makes new for its index. Returns the index.
    @inline(__always)
    mutating func open(_ make: (inout Layer, Int) -> Void) -> Int {
        makeUnique(extra: 1)
        let counts = counts.unsafelyUnwrapped, slots = slots.unsafelyUnwrapped
        if counts.pointee.hole { fillHole() }
        let index = counts.pointee.count
        if index == counts.pointee.initialized {
            (slots + index).initialize(to: Layer(kind: .placeholder, range: 0 ..< 0, source: .frame, showsDirection: false, keepsDisplays: false))
            counts.pointee.initialized = index + 1
        }
        counts.pointee.count = index + 1
        make(&slots[index], index)
        return index
    }

    /// Puts `layer` on top: into the hole its spare left, or moving the spare in its slot past
    /// the others.
    mutating func append(_ layer: __owned Layer) {
        makeUnique(extra: 1)
        let counts = counts.unsafelyUnwrapped, slots = slots.unsafelyUnwrapped
        let top = counts.pointee.count
        if counts.pointee.hole {
            counts.pointee.hole = false
        } else {
            if top < counts.pointee.initialized { (slots + counts.pointee.initialized).moveInitialize(from: slots + top, count: 1) }
            counts.pointee.initialized += 1
        }
        (slots + top).initialize(to: layer)
        counts.pointee.count = top + 1
    }

    /// Takes the top layer out (a decoder reopening the layer below it).
    mutating func removeLast() -> Layer {
        precondition(!isEmpty, "no layer to remove")
        makeUnique()
        let counts = counts.unsafelyUnwrapped, slots = slots.unsafelyUnwrapped
        if counts.pointee.hole { fillHole() }
        let top = counts.pointee.count - 1
        let layer = (slots + top).move()
        let lastSpare = counts.pointee.initialized - 1
        if lastSpare != top { (slots + top).moveInitialize(from: slots + lastSpare, count: 1) }
        counts.pointee.count = top
        counts.pointee.initialized = lastSpare
        return layer
    }

    /// Whether `takeSpare` has one to give. The storage is made this value's alone first: the
    /// spares of one shared with a copy are not this value's to take.
    mutating func hasSpareToTake() -> Bool {
        guard storage != nil else { return false }
        makeUnique()
        let counts = counts.unsafelyUnwrapped.pointee
        return counts.initialized > counts.count + (counts.hole ? 1 : 0)
    }

    /// A spare taken out whole, for `Packet.makeLayer`, which hands a layer by value (once
    /// `hasSpareToTake` said there is one): the one in the next slot, leaving a hole there for
    /// the layer's `append`, or the last when there is a hole already.
    mutating func takeSpare() -> Layer {
        precondition(hasSpareToTake(), "no spare layer")
        let counts = counts.unsafelyUnwrapped, slots = slots.unsafelyUnwrapped
        if counts.pointee.hole {
            counts.pointee.initialized -= 1
            return (slots + counts.pointee.initialized).move()
        }
        counts.pointee.hole = true
        return (slots + counts.pointee.count).move()
    }

    /// Gives the hole at `count` the last spare, or drops it when it is the last slot.
    private func fillHole() {
        let counts = counts.unsafelyUnwrapped, slots = slots.unsafelyUnwrapped
        let hole = counts.pointee.count, last = counts.pointee.initialized - 1
        if last != hole { (slots + hole).moveInitialize(from: slots + last, count: 1) }
        counts.pointee.initialized = last
        counts.pointee.hole = false
    }

    /// No layers; what they held stays as spares. A shared storage is left to its other owner.
    mutating func removeAll() {
        guard storage != nil else { return }
        if isKnownUniquelyReferenced(&storage) {
            if counts.unsafelyUnwrapped.pointee.hole { fillHole() }
            counts.unsafelyUnwrapped.pointee.count = 0
        } else {
            storage = nil
            counts = nil
            slots = nil
        }
    }
}
