import Synchronization

/// A list a protocol's state only ever appends to (the keys a capture shows), shared by every
/// copy of the Session that holds it: each copy sees its own prefix, and copying a Session
/// copies none of the elements.
///
/// Why: the browser's index keeps a copy of the decoder's Session every 1,024 packets,
/// and the decoder goes on changing its own. A plain array changed after a copy was taken is
/// copied whole, so lists that grow with the capture (an LTK each time a link is encrypted)
/// were held once per saved copy. Here a copy that appends at the end of what the storage holds
/// appends in place (the others do not see it: their count is theirs); a copy behind the end
/// (an older saved Session decoded forward) takes its prefix into storage of its own first.
///
/// The storage is behind a lock: the browser decodes from a saved copy on one thread while the
/// loader decodes on another, and both can append to the storage they share. Appends and
/// reads are rare (a key, a link encrypted, `btlog keys` at the end), never per packet.
public struct SharedLog<Element: Sendable>: Sendable {
    private var storage: Storage
    /// How many of the storage's elements this copy holds.
    public private(set) var count = 0

    private final class Storage: Sendable {
        struct Contents {
            var elements: [Element] = []
            /// For `append(_:unlessSeen:)`: the index of the element each identity was first
            /// appended with. Only the copy at the end appends, so it holds exactly the
            /// identities of the elements stored.
            var firstIndex: [[UInt8]: Int] = [:]
        }

        let contents: Mutex<Contents>

        init(_ contents: Contents = Contents()) { self.contents = Mutex(contents) }
    }

    public init() { storage = Storage() }

    /// This copy's elements, in order (a copy of them: read rarely).
    public var elements: [Element] {
        let count = count
        return storage.contents.withLock { Array($0.elements.prefix(count)) }
    }

    /// Appends `element`; the other copies of the Session do not see it.
    mutating func append(_ element: Element) {
        append(element, identity: nil)
    }

    /// Appends `element` unless this copy already holds one appended with the same identity;
    /// whether it was appended.
    @discardableResult
    mutating func append(_ element: Element, unlessSeen identity: [UInt8]) -> Bool {
        append(element, identity: identity)
    }

    private mutating func append(_ element: Element, identity: [UInt8]?) -> Bool {
        let count = count
        // At the end of the storage: appended in place. nil: behind it, or a seen identity.
        let outcome: Bool? = storage.contents.withLock { contents in
            guard contents.elements.count == count else { return nil }
            if let identity {
                guard contents.firstIndex[identity] == nil else { return false }
                contents.firstIndex[identity] = count
            }
            contents.elements.append(element)
            return true
        }
        switch outcome {
        case true?:
            self.count += 1
            return true
        case false?:
            return false
        case nil:
            // Another copy appended past this one's end: this copy's prefix, stored anew.
            var prefix = storage.contents.withLock { contents in
                Storage.Contents(elements: Array(contents.elements.prefix(count)),
                                 firstIndex: contents.firstIndex.filter { $0.value < count })
            }
            if let identity {
                guard prefix.firstIndex[identity] == nil else { return false }
                prefix.firstIndex[identity] = count
            }
            prefix.elements.append(element)
            storage = Storage(prefix)
            self.count += 1
            return true
        }
    }

    /// Whether the two copies share their storage (the tests' look at what a copy costs).
    func sharesStorage(with other: SharedLog) -> Bool { storage === other.storage }

    /// The index of the last of this copy's elements that satisfies `predicate`.
    func lastIndex(where predicate: (Element) -> Bool) -> Int? {
        let count = count
        return storage.contents.withLock { contents in
            contents.elements.prefix(count).lastIndex(where: predicate)
        }
    }
}
