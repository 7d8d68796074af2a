import BTCapture

/// What a protocol remembers across packets (reassembly, channels, transactions, databases),
/// declared by its descriptor. The Session holds one of each, copied with it, and calls the
/// hooks when a link ends and when the capture ends.
public protocol ProtocolState {
    init()
    /// Its index among the registered states, a `StateSlot`.
    static var slot: Int { get }
    /// A link ended (Disconnection Complete): what it left open, as warnings on that packet.
    mutating func close(_ link: Session.LinkKey) -> [String]
    /// The end of the capture: what is still open, reported against the packets that opened it.
    mutating func finish() -> [SessionReport]
}

extension ProtocolState {
    static func makeBox() -> AnyStateBox { StateBox(Self()) }
}

/// A protocol state in a box, so the Session can hold every registered kind in one array and
/// hand a decoder its own kind in place (no copy of its dictionaries per packet).
protocol AnyStateBox: AnyObject {
    func copy() -> AnyStateBox
    func close(_ link: Session.LinkKey) -> [String]
    func finish() -> [SessionReport]
}

final class StateBox<State: ProtocolState>: AnyStateBox {
    var value: State
    init(_ value: State) { self.value = value }
    func copy() -> AnyStateBox { StateBox(value) }
    func close(_ link: Session.LinkKey) -> [String] { value.close(link) }
    func finish() -> [SessionReport] { value.finish() }
}

/// Every registered protocol's state, with value semantics: a copied Session (the fuzzer's
/// warm start) gets its own states the first time either copy changes one.
struct ProtocolStates {
    private final class Storage {
        var boxes: [AnyStateBox]
        init(_ boxes: [AnyStateBox]) { self.boxes = boxes }
    }

    private var storage = Storage(ProtocolCatalog.stateTypes.map { $0.makeBox() })

    /// The box to read from (the accessors borrow its value rather than copy it).
    func peek<State: ProtocolState>(_: State.Type) -> StateBox<State> {
        unsafeDowncast(storage.boxes[State.slot] as AnyObject, to: StateBox<State>.self)
    }

    /// The box to change in place, after making this copy's storage its own.
    mutating func box<State: ProtocolState>(_: State.Type) -> StateBox<State> {
        makeUnique()
        return unsafeDowncast(storage.boxes[State.slot] as AnyObject, to: StateBox<State>.self)
    }

    /// Every state's close hook, in catalog order.
    mutating func close(_ link: Session.LinkKey) -> [String] {
        makeUnique()
        return storage.boxes.flatMap { $0.close(link) }
    }

    /// Every state's finish hook, in catalog order.
    mutating func finish() -> [SessionReport] {
        makeUnique()
        return storage.boxes.flatMap { $0.finish() }
    }

    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.boxes.map { $0.copy() }) }
    }
}
