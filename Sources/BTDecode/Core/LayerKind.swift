/// What a layer is, fixed by the decoder that makes it: its name, as the Type column and the
/// tree show it, and the protocol it belongs to, as filters, `--type`, `--payload` and JSON's
/// `"protocol"` name it (its fields' prefix). Views and stages outside the decoders tell layers
/// apart by their kind (`layer.kind == LinkLayerDecoder.layerKind`), never by display text.
public struct LayerKind: Hashable, Sendable {
    public let name: String
    /// The protocol the layer stands for, when its name always means it (the layer of ATT is
    /// ATT: a filter's bare `att` tests for it). Nil for a layer named after a record or a
    /// profile (System's "Power", a GATT profile's error): its protocol is its first field's.
    public let protocolName: String?

    /// The layer of a protocol, which its descriptor lists (`ProtocolDescriptor.layers`).
    public init(_ name: String, protocol protocolName: String) {
        self.name = name
        self.protocolName = protocolName
    }

    /// A layer named after what it holds, whose protocol its fields tell.
    public init(named name: String) {
        self.name = name
        protocolName = nil
    }
}
