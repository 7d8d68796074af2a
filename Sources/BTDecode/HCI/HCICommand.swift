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
/// that layout (parsed; nil when the row has none), to read where it needs it. One that hands
/// the layer to a layer above (a vendor's) appends it itself, with `Packet.append(taking:)`.
typealias HCIRowDecoder = (_ layout: [HCIParam]?, _ c: inout ByteCursor, _ layer: inout Layer,
                           _ packet: inout Packet, _ session: inout Session) throws -> Void

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
