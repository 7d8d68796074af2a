public enum SystemFields {
    public static let text = FieldDefinition("note.text", "Text", .string, "Text of a note, kernel, power, error or config record")
    public static let syslogPID = FieldDefinition("syslog.pid", "Process ID", .uint32, "PacketLogger syslog: process id")
    public static let syslogLevel = FieldDefinition("syslog.level", "Level", .uint8, "PacketLogger syslog: message type")
    public static let syslogProcess = FieldDefinition("syslog.process", "Process", .string, "PacketLogger syslog: process name")
    public static let syslogSender = FieldDefinition("syslog.sender", "Sender", .string, "PacketLogger syslog: sender image")
    public static let syslogSubsystem = FieldDefinition("syslog.subsystem", "Subsystem", .string, "PacketLogger syslog: subsystem")
    public static let syslogCategory = FieldDefinition("syslog.category", "Category", .string, "PacketLogger syslog: category")
    public static let syslogMessage = FieldDefinition("syslog.message", "Message", .string, "Syslog or user logging message")
    public static let logPriority = FieldDefinition("log.priority", "Priority", .uint8, "Monitor user logging priority")
    public static let logIdent = FieldDefinition("log.ident", "Identifier", .string, "Monitor user logging identifier")
    public static let indexType = FieldDefinition("index.type", "Controller Type", .uint8, "Monitor New Index: primary (0) or AMP (1)")
    public static let indexBus = FieldDefinition("index.bus", "Bus", .uint8, "Monitor New Index: transport bus")
    public static let indexAddress = FieldDefinition("index.address", "Address", .address, "Controller address")
    public static let indexName = FieldDefinition("index.name", "Name", .string, "Controller name (hci0)")
    public static let indexManufacturer = FieldDefinition("index.manufacturer", "Manufacturer", .uint16, "Monitor Index Info: manufacturer")
    public static let all = [text, syslogPID, syslogLevel, syslogProcess, syslogSender, syslogSubsystem, syslogCategory,
                             syslogMessage, logPriority, logIdent, indexType, indexBus, indexAddress, indexName,
                             indexManufacturer]
}
