import Foundation

/// A table of layouts parsed from their specs the first time each is used: a capture meets a few
/// dozen of the hundreds, and parsing them all made every run start about 5 ms later (25 million
/// instructions). Shared by every decoder of the process, so the cache is guarded by a lock,
/// which is never held while parsing: parsing makes field definitions (their own lock, static
/// tables), and nothing it starts can then wait on this one.
final class ParsedLayouts<Key: Hashable & Comparable>: @unchecked Sendable { // `parsed` is only touched under `lock`
    private let specs: [Key: String]
    private let lock = NSLock()
    private var parsed: [Key: [HCIParam]] = [:]
    /// Whose parameters the layouts read (the core's, or a host stack's own records).
    private let namespace: HCIParameterFields.Namespace

    init(_ specs: [Key: String], in namespace: HCIParameterFields.Namespace = .hci) {
        self.specs = specs
        self.namespace = namespace
    }

    subscript(key: Key) -> [HCIParam]? {
        if let known = lock.withLock({ parsed[key] }) { return known }
        guard let spec = specs[key] else { return nil }
        // Two threads may parse the same spec at once: the same layout either way (parsing is
        // pure); the first stored is the one every later lookup gets.
        let layout = HCIParam.parse(spec, in: namespace)
        return lock.withLock {
            if let stored = parsed[key] { return stored }
            parsed[key] = layout
            return layout
        }
    }

    /// Every layout, in key order.
    var all: [[HCIParam]] { specs.keys.sorted().compactMap { self[$0] } }
}
