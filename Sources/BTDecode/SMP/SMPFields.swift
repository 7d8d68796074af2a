public enum SMPFields {
    static let f = FieldDefinition.maker("smp")
    public static let code = f("code", "Code", .uint8, "Security Manager command code")
    public static let ioCapability = f("io_capability", "IO Capability", .uint8, "0 DisplayOnly, 1 DisplayYesNo, 2 KeyboardOnly, 3 NoInputNoOutput, 4 KeyboardDisplay")
    public static let oob = f("oob", "OOB Data Flag", .uint8, "1 when OOB authentication data is present")
    public static let authReq = f("authreq", "AuthReq", .uint8, "Authentication requirements flags")
    public static let bonding = f("bonding", "Bonding", .bool, "AuthReq bonding flag")
    public static let mitm = f("mitm", "MITM", .bool, "AuthReq MITM protection flag")
    public static let secureConnections = f("sc", "Secure Connections", .bool, "AuthReq Secure Connections flag")
    public static let keypress = f("keypress", "Keypress", .bool, "AuthReq keypress notifications flag")
    public static let ct2 = f("ct2", "CT2", .bool, "AuthReq h7 support for cross-transport key derivation")
    public static let maxKeySize = f("max_key_size", "Maximum Encryption Key Size", .uint8, "7 to 16 bytes")
    public static let initiatorKeys = f("initiator_keys", "Initiator Key Distribution", .uint8, "Bits: 0 EncKey, 1 IdKey, 2 SignKey, 3 LinkKey")
    public static let responderKeys = f("responder_keys", "Responder Key Distribution", .uint8, "Bits: 0 EncKey, 1 IdKey, 2 SignKey, 3 LinkKey")
    public static let reason = f("reason", "Reason", .uint8, "Pairing Failed reason")
    public static let confirm = f("confirm", "Confirm Value", .bytes, "Pairing confirm value")
    public static let random = f("random", "Random Value", .bytes, "Pairing random value")
    public static let ltk = f("ltk", "Long Term Key", .bytes, "Distributed LTK")
    public static let ediv = f("ediv", "EDIV", .uint16, "Encrypted diversifier")
    public static let rand = f("rand", "Rand", .uint64, "Random number of the central identification")
    public static let irk = f("irk", "Identity Resolving Key", .bytes, "Distributed IRK")
    public static let addressType = f("address_type", "Address Type", .uint8, "Identity address type: 0 public, 1 static random")
    public static let address = f("address", "Address", .address, "Identity address")
    public static let csrk = f("csrk", "Signature Key", .bytes, "Distributed CSRK")
    public static let publicKeyX = f("public_key_x", "Public Key X", .bytes, "P-256 public key X coordinate")
    public static let publicKeyY = f("public_key_y", "Public Key Y", .bytes, "P-256 public key Y coordinate")
    public static let dhkeyCheck = f("dhkey_check", "DHKey Check", .bytes, "DHKey check value")
    public static let keypressType = f("keypress_type", "Notification Type", .uint8, "Passkey entry keypress notification")
    public static let method = f("method", "Pairing Method", .string, "Method the two sides' features select")
    public static let all = [code, ioCapability, oob, authReq, bonding, mitm, secureConnections, keypress, ct2, maxKeySize,
                             initiatorKeys, responderKeys, reason, confirm, random, ltk, ediv, rand, irk, addressType,
                             address, csrk, publicKeyX, publicKeyY, dhkeyCheck, keypressType, method]
}

extension SMPFields {
    /// Pairing's steps without its nonces, keys and confirm values (new every run).
    public static let conversation = ConversationDescription("SMP", rank: 1, operations: [code], ignored: [
        confirm, random, ltk, ediv, rand, irk, csrk, publicKeyX, publicKeyY, dhkeyCheck, authReq,
    ])
}
