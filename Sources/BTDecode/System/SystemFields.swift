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
    public static let controlCookie = FieldDefinition("control.cookie", "Cookie", .uint32, "Monitor control frames: the kernel's id of the socket")
    public static let controlFormat = FieldDefinition("control.format", "Format", .uint16, "MGMT Open: the channel (0 raw HCI, 1 user channel, 2 management)")
    public static let controlVersion = FieldDefinition("control.version", "Version", .string, "MGMT Open: the channel's interface version")
    public static let controlFlags = FieldDefinition("control.flags", "Flags", .uint32, "MGMT Open: 0x1 when the socket is privileged (trusted)")
    public static let controlName = FieldDefinition("control.name", "Process", .string, "MGMT Open: the name of the process that opened the socket")
    public static let controlOpcode = FieldDefinition("control.opcode", "Opcode", .uint16, "MGMT Command: the management command's opcode")
    public static let controlEvent = FieldDefinition("control.event", "Event", .uint16, "MGMT Event: the management event's code")
    public static let all = [text, syslogPID, syslogLevel, syslogProcess, syslogSender, syslogSubsystem, syslogCategory,
                             syslogMessage, logPriority, logIdent, indexType, indexBus, indexAddress, indexName,
                             indexManufacturer, controlCookie, controlFormat, controlVersion, controlFlags, controlName,
                             controlOpcode, controlEvent]
}
