/// SDP's fields (Core Vol 3, Part B, 4), named as tshark's btsdp.* where both have one.
public enum SDPFields {
    static let f = FieldDefinition.maker("sdp")
    public static let pdu = f("pdu", "PDU", .uint8, "PDU ID: 0x01 Error Response, 0x02/0x03 Service Search, 0x04/0x05 Service Attribute, 0x06/0x07 Service Search Attribute")
    public static let transaction = f("transaction", "Transaction ID", .uint16, "Matches a response to its request")
    public static let length = f("length", "Parameter Length", .uint16, "Length of the PDU's parameters")
    public static let errorCode = f("error_code", "Error Code", .uint16, "Error Response code")
    public static let uuid = f("uuid", "Service Search UUID", .uuid, "A UUID of the service search pattern")
    public static let maxRecords = f("max_records", "Maximum Service Record Count", .uint16, "Records the client accepts")
    public static let totalRecords = f("total_records", "Total Service Record Count", .uint16, "Records matching the pattern")
    public static let currentRecords = f("current_records", "Current Service Record Count", .uint16, "Record handles in this response")
    public static let recordHandle = f("record_handle", "Service Record Handle", .uint32, "A service record handle")
    public static let maxBytes = f("max_bytes", "Maximum Attribute Byte Count", .uint16, "Attribute bytes the client accepts per response")
    public static let attributeID = f("attribute_id", "Requested Attribute", .uint16, "An attribute ID the request asks for (ranges: sdp.attribute_range)")
    public static let attributeRange = f("attribute_range", "Requested Attribute Range", .uint32, "A range of attribute IDs: first << 16 | last")
    public static let byteCount = f("byte_count", "Attribute List Byte Count", .uint16, "Bytes of attribute list in this response")
    public static let continuation = f("continuation", "Continuation State", .bytes, "Continuation state: more of the response follows when not empty")
    public static let attribute = f("attribute", "Attribute", .uint16, "An attribute ID in a (reassembled) attribute list, with its value")
    public static let serviceClass = f("service_class", "Service Class", .uuid, "A service class of a record (ServiceClassIDList)")
    public static let protocolUUID = f("protocol", "Protocol", .uuid, "A protocol of a record's ProtocolDescriptorList")
    public static let psm = f("psm", "L2CAP PSM", .uint16, "The PSM a record's protocol stack uses")
    public static let rfcommChannel = f("rfcomm_channel", "RFCOMM Server Channel", .uint8, "The RFCOMM server channel a record's protocol stack uses")
    public static let profile = f("profile", "Profile", .uuid, "A profile of a record's BluetoothProfileDescriptorList")
    public static let profileVersion = f("profile_version", "Profile Version", .uint16, "The profile's version, major.minor as 0xMMmm")
    public static let serviceName = f("service_name", "Service Name", .string, "A record's ServiceName")
    public static let supportedFeatures = f("supported_features", "Supported Features", .uint16, "A record's SupportedFeatures (0x0311)")
    public static let records = f("records", "Records", .uint16, "Service records in a complete attribute list response")
    public static let fragments = f("fragments", "Reassembled From", .uint16, "Responses the attribute list was reassembled from")

    public static let all = [pdu, transaction, length, errorCode, uuid, maxRecords, totalRecords, currentRecords, recordHandle, maxBytes,
                             attributeID, attributeRange, byteCount, continuation, attribute, serviceClass, protocolUUID, psm,
                             rfcommChannel, profile, profileVersion, serviceName, supportedFeatures, records, fragments]
}

extension SDPFields {
    public static let conversation = ConversationDescription("SDP", rank: 3, operations: [pdu], ignored: [
        transaction, length, recordHandle, maxBytes, byteCount, continuation, fragments, maxRecords, attribute,
    ])
}
