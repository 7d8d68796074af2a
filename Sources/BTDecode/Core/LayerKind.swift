/// What a layer is, fixed by the decoder that makes it: its name, as the Type column and the
/// tree show it, and the protocol it belongs to, as filters, `--type`, `--payload` and JSON's
/// `"protocol"` name it (its fields' prefix). Views and stages outside the decoders tell layers
/// apart by their kind (`layer.kind == .linkLayer`), never by display text.
///
/// Kinds are made once, as static constants beside their decoders, and compared by identity.
/// Every Layer of every packet carries one, so copying it costs nothing: like FieldDefinition,
/// a kind is one reference to a description that lives as long as the process, held without
/// reference counting.
public struct LayerKind: Hashable, @unchecked Sendable {
    @usableFromInline final class Description { // immutable
        @usableFromInline let name: String
        @usableFromInline let protocolName: String?
        /// The name's UTF-8, and the terminal columns it takes: the table writes the Type column
        /// from these for every row, without touching the String. Kept where it stays for the
        /// life of the process (as the description), so reading it retains nothing.
        @usableFromInline let nameBytes: UnsafeBufferPointer<UInt8>
        @usableFromInline let nameColumns: Int

        init(name: String, protocolName: String?) {
            self.name = name
            self.protocolName = protocolName
            nameBytes = ProcessLifetime.copy(name.utf8)
            nameColumns = name.count
        }
    }

    /// Unmanaged: a trivial value, so a Layer holding it copies without reference counting.
    @usableFromInline let storage: Unmanaged<Description>
    @inlinable var description: Description { storage.takeUnretainedValue() }

    private init(name: String, protocolName: String?) {
        let description = Description(name: name, protocolName: protocolName)
        // Never released: what makes the unowned reference above safe. Kinds are static
        // constants, so their number is bounded.
        storage = Unmanaged.passRetained(description)
    }

    /// The layer of a protocol, which its descriptor lists (`ProtocolDescriptor.layers`).
    public init(_ name: String, protocol protocolName: String) {
        self.init(name: name, protocolName: protocolName)
    }

    /// A layer named after what it holds (System's "Power"), whose protocol its fields tell.
    public init(named name: String) {
        self.init(name: name, protocolName: nil)
    }

    // Inlinable: views in other modules read a layer's name per packet.
    @inlinable public var name: String { description.name }

    /// The name as UTF-8 bytes, read in place, and how many columns it takes on a terminal.
    @inlinable public func withNameBytes<R>(_ body: (UnsafeBufferPointer<UInt8>, _ columns: Int) -> R) -> R {
        // Borrowed, not retained: the description lives as long as the process.
        storage._withUnsafeGuaranteedRef { body($0.nameBytes, $0.nameColumns) }
    }

    /// The protocol the layer stands for, when its name always means it (the layer of ATT is
    /// ATT: a filter's bare `att` tests for it). Nil for a layer named after a record: its
    /// protocol is its first field's.
    @inlinable public var protocolName: String? { description.protocolName }

    /// What a layer moved out of a variable leaves behind (`Packet.append(taking:)`).
    static let placeholder = LayerKind(named: "")

    public static func == (a: LayerKind, b: LayerKind) -> Bool { a.storage.toOpaque() == b.storage.toOpaque() }
    public func hash(into hasher: inout Hasher) { hasher.combine(storage.toOpaque()) }
}
