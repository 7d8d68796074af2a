import BTCapture

/// HCI commands and events (Core Vol 4, Part E): the hand-declared fields, then every
/// parameter field the layout tables make. The root of every packet, so it plugs in nowhere.
enum HCIProtocol {
    static let descriptor = ProtocolDescriptor(
        name: "HCI",
        fields: HCIFields.all + HCIParameterTables.fields.filter { HCIFields.byName[$0.name] == nil })
}
