/// State that spans packets, fed in capture order: which connection handle belongs to which
/// device. Later decoders add L2CAP channels, reassembly and the GATT database here.
public struct Session {
    public struct ConnectionKey: Hashable {
        public var controller: UInt16
        public var handle: UInt16
    }

    public struct Connection {
        public var peer: BDAddr
        public var peerAddressType: UInt8
        public var isLE: Bool
        public var role: UInt8
    }

    public var connections: [ConnectionKey: Connection] = [:]
    /// Controller index → its own address, from Read BD ADDR or the monitor's New Index.
    public var controllerAddresses: [UInt16: BDAddr] = [:]

    public init() {}

    public func connection(controller: UInt16, handle: UInt16) -> Connection? {
        connections[ConnectionKey(controller: controller, handle: handle)]
    }
}
