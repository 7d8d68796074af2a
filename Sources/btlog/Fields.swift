import ArgumentParser
import BTDecode
import BTRender

struct Fields: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the field names that --fields (and later filters and JSON) use.",
        discussion: "One line per field: name, type, description. Give a protocol (frame, hci, adv, acl, l2cap, att, gatt, smp...) to list only its fields."
    )

    @Argument(help: ArgumentHelp("Only this protocol's fields.", valueName: "PROTOCOL"))
    var protocolName: String?

    func validate() throws {
        if let protocolName, !FieldRegistry.protocols.contains(protocolName) {
            throw ValidationError("unknown protocol '\(protocolName)'; known: \(FieldRegistry.protocols.joined(separator: ", "))")
        }
    }

    func run() throws {
        let out = OutputWriter()
        let fields = FieldRegistry.all.filter { protocolName == nil || $0.protocolName == protocolName }
        let width = fields.map(\.name.count).max() ?? 0
        do {
            for field in fields {
                let name = field.name + String(repeating: " ", count: width - field.name.count)
                let type = field.type.rawValue + String(repeating: " ", count: max(0, 8 - field.type.rawValue.count))
                try out.line("\(name)  \(type)  \(field.help)")
            }
            try out.flush()
        } catch is OutputWriter.OutputClosed {}
    }
}
