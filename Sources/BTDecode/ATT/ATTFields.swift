public enum ATTFields {
    static let f = FieldDefinition.maker("att")
    public static let opcode = f("opcode", "Opcode", .uint8, "ATT opcode (bit 6: command, bit 7: signed)")
    public static let handle = f("handle", "Handle", .uint16, "Attribute handle (every handle the PDU names)")
    public static let startHandle = f("start_handle", "Starting Handle", .uint16, "First handle of a range request")
    public static let endHandle = f("end_handle", "Ending Handle", .uint16, "Last handle of a range request")
    public static let groupEndHandle = f("group_end_handle", "End Group Handle", .uint16, "Last handle of a service in a group response")
    public static let uuid = f("uuid", "UUID", .uuid, "Attribute type or service/characteristic UUID in the PDU")
    public static let error = f("error", "Error Code", .uint8, "Error code of an Error Response")
    public static let requestOpcode = f("request_opcode", "Request Opcode In Error", .uint8, "Opcode of the request an Error Response answers")
    public static let mtu = f("mtu", "MTU", .uint16, "Client or server receive MTU")
    public static let value = f("value", "Value", .bytes, "Attribute value")
    public static let offset = f("offset", "Offset", .uint16, "Value offset of a blob read or prepared write")
    public static let flags = f("flags", "Flags", .uint8, "Execute Write flags: 0 cancel, 1 write")
    public static let format = f("format", "Format", .uint8, "Find Information format: 1 16-bit UUIDs, 2 128-bit UUIDs")
    public static let length = f("length", "Length", .uint8, "Length of each attribute data entry")
    public static let properties = f("properties", "Characteristic Properties", .uint8, "Properties of a characteristic declaration")
    public static let valueHandle = f("value_handle", "Characteristic Value Handle", .uint16, "Value handle in a characteristic declaration")
    public static let signature = f("signature", "Authentication Signature", .bytes, "Signature of a Signed Write Command")
    public static let requestIn = f("request_in", "Request In", .uint64, "Packet number of the request this response answers")
    public static let responseTime = f("response_time", "Response Time", .uint64, "Milliseconds between the request and this response")
    public static let name = f("name", "Attribute", .string, "What the GATT database learnt from discovery says the handle is")
    public static let all = [opcode, handle, startHandle, endHandle, groupEndHandle, uuid, error, requestOpcode, mtu, value,
                             offset, flags, format, length, properties, valueHandle, signature, requestIn, responseTime, name]
}

public enum GATTFields {
    public static let service = FieldDefinition("gatt.service", "Service", .uuid, "Service the attribute belongs to")
    public static let characteristic = FieldDefinition("gatt.characteristic", "Characteristic", .uuid, "Characteristic the attribute belongs to")
    public static let cccd = FieldDefinition("gatt.cccd", "Client Characteristic Configuration", .uint16, "CCCD bits: 1 notification, 2 indication")
    public static let value = FieldDefinition("gatt.value", "Decoded Value", .string, "A well-known characteristic's value, decoded")
    public static let all = [service, characteristic, cccd, value]
}

extension ATTFields {
    /// A step is an operation on a characteristic (or the type a request asks for); a discovery
    /// response lists the types it found with a characteristic's properties, never handles, so a
    /// database renumbered between runs compares the same.
    public static let conversation: ConversationDescription = {
        var description = ConversationDescription("ATT", rank: 0, operations: [opcode], ignored: [
            handle, startHandle, endHandle, groupEndHandle, valueHandle, offset, length, format, requestIn, responseTime, name,
            signature, GATTFields.service, GATTFields.characteristic, GATTFields.cccd, GATTFields.value, uuid, properties,
        ], values: [value])
        description.target = GATTFields.characteristic
        description.requestedType = uuid
        description.foundQualifier = properties
        description.discoveryResponses = Set(ATTDecoder.opcodes.filter { ATTOpcode.isDiscoveryResponse($0.code) }.map { UInt64($0.code) })
        return description
    }()
}
