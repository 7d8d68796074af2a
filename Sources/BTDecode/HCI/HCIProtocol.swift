import BTCapture

/// HCI commands and events (Core Vol 4, Part E): the hand-declared fields, then every
/// parameter field the layout tables make. The root of every packet, so it plugs in nowhere.
enum HCIProtocol {
    static let descriptor = ProtocolDescriptor(
        name: "HCI",
        fields: HCIFields.all + parameterFields.filter { HCIFields.byName[$0.name] == nil },
        layers: [.hciCommand, .hciEvent],
        valueNames: valueNames,
        secrets: ["hci.link_key", "hci.long_term_key", "hci.random_number", "hci.encrypted_diversifier", "hci.pin_code",
                  "hci.passkey", "hci.dhkey", "hci.key", "hci.local_irk", "hci.peer_irk", "hci.c", "hci.r_value",
                  "hci.c_192", "hci.c_256", "hci.r_192", "hci.r_256", "hci.local_p256_public_key", "hci.key_x_coordinate",
                  "hci.key_y_coordinate", "hci.broadcast_code", "hci.plaintext_data", "hci.encrypted_data"])

    /// Commands, events and error codes by name, and every enumerated parameter's table.
    static var valueNames: [(FieldDefinition, [ValueName])] {
        let commands = HCICommands.valueNames, errors = FieldValueNames.from(HCIErrorNames.errors)
        var names: [(FieldDefinition, [ValueName])] = [
            (HCIFields.opcode, commands), (HCIFields.commandOpcode, commands),
            (HCIFields.event, HCIEvents.eventValueNames), (HCIFields.subevent, HCIEvents.subeventValueNames),
            (HCIFields.status, errors), (HCIFields.reason, errors),
        ]
        let byName = Dictionary(parameterFields.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for (parameter, table) in HCIValueNames.tables.sorted(by: { $0.key < $1.key }) {
            if let field = byName["hci." + parameter.lowercased()] { names.append((field, FieldValueNames.from(table))) }
        }
        return names
    }

    /// Every field the rows' layouts make, once each, in name order, for the registry.
    static let parameterFields: [FieldDefinition] = {
        let layouts = [HCICommands.parameterLayouts.all, HCICommands.returnLayouts.all, HCIEvents.eventLayouts.all, HCIEvents.subeventLayouts.all]
        let all = layouts.joined().flatMap { $0.flatMap(\.flattened) }.map(\.field)
        return Dictionary(all.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a }).values.sorted { $0.name < $1.name }
    }()
}

/// The layers this decoder makes.
extension LayerKind {
    public static let hciCommand = LayerKind("HCI Command", protocol: "hci")
    public static let hciEvent = LayerKind("HCI Event", protocol: "hci")
}
