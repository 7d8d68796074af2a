import BTCapture

/// One HCI command (Core Vol 4, Part E, 7.1-7.8), one row, as ATT's opcodes and btmon's
/// opcode_table keep them: its name, the layout of its parameters and of its Command Complete
/// return parameters after the status (in HCIParam's notation), and a decoder where the command
/// or its return does more than its layout says (tells the Session something). A class, as
/// HCIEvent is: static, immutable rows passed on by reference.
final class HCICommand: @unchecked Sendable {
    let opcode: UInt16
    let name: String
    /// The parameters' layout; nil when the command has none.
    let parameters: String?
    /// The return parameters' layout after the status; nil when the return is the status alone.
    let returns: String?
    let decode: HCIRowDecoder?
    let decodeReturn: HCIRowDecoder?

    init(_ opcode: UInt16, _ name: String, _ parameters: String? = nil, returns: String? = nil,
         decode: HCIRowDecoder? = nil, decodeReturn: HCIRowDecoder? = nil) {
        self.opcode = opcode
        self.name = name
        self.parameters = parameters
        self.returns = returns
        self.decode = decode
        self.decodeReturn = decodeReturn
    }
}

/// A command's, a return's or an event's decoder, in place of reading its row's layout: given
/// that layout (parsed; nil when the row has none), to read where it needs it. It writes its
/// layer in place, lent by the packet (so it cannot reach the packet itself), and what it says
/// of the packet (handle, peer, a layer above) in `row`, which the packet takes in after.
typealias HCIRowDecoder = (_ layout: [HCIParam]?, _ c: inout ByteCursor, _ layer: inout Layer,
                           _ row: inout HCIPacketContext, _ session: inout Session) throws -> Void

/// What an HCI packet's decoder (a command's or event's row, SCO, ISO) reads of its packet and
/// writes to it, besides its own layer: the layer is opened in place and lent to the decoder
/// while the packet is under its mutating access, so the rest of the packet is read before and
/// written after.
struct HCIPacketContext {
    let controller: UInt16
    let frameNumber: Int
    let direction: Direction
    var handle: UInt16?
    var peer: BDAddr?
    /// A layer to decode above this one once it is done: a vendor's, BTstack's, a described protocol's.
    var above: HCILayerAbove?

    init(_ packet: Packet) {
        controller = packet.frame.controller
        frameNumber = packet.frame.number
        direction = packet.frame.direction
        handle = packet.handle
        peer = packet.peer
    }

    /// The handle and peer into the packet.
    func note(in packet: inout Packet) {
        packet.handle = handle
        packet.peer = peer
    }

    /// Opens a layer of `kind` over what `cursor` has left and lends it to `decode` with the
    /// packet's context, which goes back into the packet even when `decode` throws (the fields
    /// read stand, as the layer does). Returns the layer to decode above it, if any.
    @inline(__always)
    static func decode(_ kind: LayerKind, over cursor: ByteCursor, showsDirection: Bool = false, into packet: inout Packet,
                       _ decode: (inout Layer, inout HCIPacketContext) throws -> Void) throws -> HCILayerAbove? {
        let index = packet.openLayer(kind, over: cursor, showsDirection: showsDirection)
        var row = HCIPacketContext(packet)
        do {
            try packet.layers.withLayer(index) { slot in try decode(&slot.pointee, &row) }
        } catch {
            row.note(in: &packet)
            throw error
        }
        row.note(in: &packet)
        return row.above.take()
    }
}

/// A layer that stands on an HCI command's or event's, decoded once the HCI layer is done
/// (`HCIPacketContext.above`); each carries the cursor over the parameters it reads. Indirect:
/// the context of every HCI packet holds one (nil but for a few), which stays a pointer wide
/// rather than a vendor's table and two cursors copied in and out of every decode.
indirect enum HCILayerAbove {
    /// BTstack's daemon command or own event: `whole` reads it from its opcode or code.
    case btstackCommand(opcode: UInt16, whole: ByteCursor, ByteCursor)
    case btstackEvent(code: UInt8, whole: ByteCursor, ByteCursor)
    /// A vendor command, or the return parameters of one in Command Complete.
    case vendorCommand(VendorHCI, opcode: UInt16, ByteCursor)
    case vendorReturn(VendorHCI, opcode: UInt16, ByteCursor)
    /// The vendor event (0xFF): a described one, else a vendor's by its parameters.
    case vendorEvent(ByteCursor)
    /// A described vendor command's parameters or return parameters.
    case described(DescribedTarget, ByteCursor)

    /// Decodes the layer above, on top of the packet's HCI layer.
    func decode(into packet: inout Packet, session: inout Session) throws {
        switch self {
        case .btstackCommand(let opcode, let whole, var params):
            try BTstack.decodeCommand(opcode, whole: whole, &params, &packet, &session)
        case .btstackEvent(let code, let whole, var params):
            try BTstack.decodeEvent(code, whole: whole, &params, &packet, &session)
        case .vendorCommand(let vendor, let opcode, var params):
            try VendorDecoders.decodeCommand(vendor, opcode, &params, &packet, &session)
        case .vendorReturn(let vendor, let opcode, var params):
            try VendorDecoders.decodeReturn(vendor, opcode, &params, &packet, &session)
        case .described(let target, var params):
            target.decode(&params, into: &packet)
        case .vendorEvent(var params):
            if !session.options.described.isEmpty, let target = session.options.described.vendorEvent(params.bytes[params.index...]) {
                target.decode(&params, into: &packet)
                return
            }
            let before = packet.layers.count
            try VendorDecoders.decodeEvent(&params, &packet, &session)
            // No vendor's layer: the parameters stay the HCI layer's, as bytes.
            if packet.layers.count == before, !params.isAtEnd { packet.layers[before - 1].addUnreadHCIParameters(&params, header: 2) }
        }
    }
}

extension Layer {
    /// An HCI packet's parameters past what was decoded, as bytes; `header`: the command's (3)
    /// or event's (2) bytes before its parameters.
    mutating func addUnreadHCIParameters(_ params: inout ByteCursor, header: Int) {
        guard !params.isAtEnd else { return }
        let at = params.offset + header
        let rest = params.rest()
        add(HCIFields.parameters, .bytes(rest), at: at ..< at + rest.count)
    }
}

/// The commands' rows (HCICommandTable.swift, HCILECommandTable.swift) and what is read from them.
public enum HCICommands {
    /// The opcode some controllers answer a command they do not support with (a vendor command,
    /// most often) in Command Complete or Status: no command has it, so the answer names none.
    public static let unsupportedAnswer: UInt16 = 0xFFFF

    static let all: [HCICommand] = coreCommands + leCommands

    /// Row indices by opcode: a command's name is asked for every command and answer.
    private static let rowByOpcode: [UInt16: Int] = {
        var rows: [UInt16: Int] = [:]
        for (index, row) in all.enumerated() {
            precondition(rows.updateValue(index, forKey: row.opcode) == nil, "HCI opcode \(Hex.u16(row.opcode)) listed twice")
        }
        return rows
    }()

    static func command(_ opcode: UInt16) -> HCICommand? { rowByOpcode[opcode].map { all[$0] } }

    /// The command's name; "Vendor" for any of OGF 0x3F, whose names are the vendors'.
    public static func name(_ opcode: UInt16) -> String? {
        if opcode >> 10 == 0x3F { return "Vendor" }
        return rowByOpcode[opcode].map { all[$0].name }
    }

    /// The layouts, parsed the first time a capture holds the command.
    static let parameterLayouts = ParsedLayouts(Dictionary(uniqueKeysWithValues: all.compactMap { row in row.parameters.map { (row.opcode, $0) } }))
    static let returnLayouts = ParsedLayouts(Dictionary(uniqueKeysWithValues: all.compactMap { row in row.returns.map { (row.opcode, $0) } }))

    /// Every command's name, for the opcode fields.
    static var valueNames: [ValueName] { all.map { ValueName(UInt64($0.opcode), $0.name) } }
}
