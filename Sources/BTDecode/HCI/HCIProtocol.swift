import BTCapture

/// HCI commands and events (Core Vol 4, Part E): the hand-declared fields, then every
/// parameter field the layout tables make. The root of every packet, so it plugs in nowhere.
enum HCIProtocol {
    static let descriptor = ProtocolDescriptor(
        name: "HCI",
        fields: HCIFields.all + HCIParameterTables.fields.filter { HCIFields.byName[$0.name] == nil },
        layers: [.hciCommand, .hciEvent],
        valueNames: valueNames,
        secrets: ["hci.link_key", "hci.long_term_key", "hci.random_number", "hci.encrypted_diversifier", "hci.pin_code",
                  "hci.passkey", "hci.dhkey", "hci.key", "hci.local_irk", "hci.peer_irk", "hci.c", "hci.r_value",
                  "hci.c_192", "hci.c_256", "hci.r_192", "hci.r_256", "hci.local_p256_public_key", "hci.key_x_coordinate",
                  "hci.key_y_coordinate", "hci.broadcast_code", "hci.plaintext_data", "hci.encrypted_data"])

    /// Commands, events and error codes by name, and every enumerated parameter's table.
    static var valueNames: [(FieldDefinition, [ValueName])] {
        let commands = FieldValueNames.from(HCICommandNames.table), errors = FieldValueNames.from(HCIErrorNames.errors)
        var names: [(FieldDefinition, [ValueName])] = [
            (HCIFields.opcode, commands), (HCIFields.commandOpcode, commands),
            (HCIFields.event, FieldValueNames.from(HCIEventNames.events)),
            (HCIFields.subevent, FieldValueNames.from(HCIEventNames.subevents)),
            (HCIFields.status, errors), (HCIFields.reason, errors),
        ]
        let byName = Dictionary(HCIParameterTables.fields.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for (parameter, table) in HCIValueNames.tables.sorted(by: { $0.key < $1.key }) {
            if let field = byName["hci." + parameter.lowercased()] { names.append((field, FieldValueNames.from(table))) }
        }
        return names
    }
}

/// The layers this decoder makes.
extension LayerKind {
    public static let hciCommand = LayerKind("HCI Command", protocol: "hci")
    public static let hciEvent = LayerKind("HCI Event", protocol: "hci")
}
