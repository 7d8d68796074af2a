/// ATT opcodes that code outside the decoder acts on, by name, and what each row of
/// `ATTDecoder.opcodes` says of a PDU: its kind, what it does to an attribute's value, whether it
/// discovers the database. The statistics, the diagnosis and `diff` read these, never raw codes.
public enum ATTOpcode {
    public static let errorResponse: UInt8 = 0x01, exchangeMTURequest: UInt8 = 0x02, exchangeMTUResponse: UInt8 = 0x03
    public static let writeRequest: UInt8 = 0x12, notification: UInt8 = 0x1B, indication: UInt8 = 0x1D
    public static let confirmation: UInt8 = 0x1E

    /// What a PDU does to one attribute's value (a characteristic's activity counts these).
    public enum Access: Sendable {
        /// A Write Request or a part of a prepared write.
        case write
        /// A Write Command, signed or not.
        case writeWithoutResponse
        /// A Read (Blob) Response: the value read.
        case read
        case notify, indicate
    }

    public static func access(of opcode: UInt8) -> Access? { accesses[Int(opcode)] }

    /// A request or response of discovery (Find Information, Find By Type Value, Read By Type,
    /// Read By Group Type).
    public static func discovers(_ opcode: UInt8) -> Bool { discovering[Int(opcode)] }

    /// The rows' traits alone, by opcode: asked for every PDU the statistics count, so read
    /// without copying a row (and retaining its decoder).
    static let accesses: [Access?] = ATTDecoder.byCode.map { $0?.access }
    static let discovering: [Bool] = ATTDecoder.byCode.map { $0?.discovers ?? false }

    public static func isDiscoveryRequest(_ opcode: UInt8) -> Bool { discovers(opcode) && ATTDecoder.kinds[Int(opcode)] == .request }
    public static func isDiscoveryResponse(_ opcode: UInt8) -> Bool { discovers(opcode) && ATTDecoder.kinds[Int(opcode)] == .response }
}

/// ATT error codes code acts on, by name (their names for people are `ATTDecoder.errorNames`).
public enum ATTError {
    /// How a server ends every discovery: there is nothing more.
    public static let attributeNotFound: UInt8 = 0x0A
}
