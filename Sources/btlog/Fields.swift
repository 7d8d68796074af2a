import ArgumentParser
import BTCapture
import BTDecode
import BTQuery
import BTRender

struct Fields: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the field names that filters, --fields and JSON export use.",
        discussion: "One line per field: name, type, description. Give a protocol (frame, hci, adv, acl, l2cap, att, gatt, smp...) to list only its fields, or a field with --values to list the names its values take (att.opcode == write_req)."
    )

    @Argument(help: ArgumentHelp("Only this protocol's fields, or this one field.", valueName: "PROTOCOL|FIELD"))
    var name: String?

    @Flag(help: "List the named values of the field (value, name, and the word a filter accepts).")
    var values = false

    @Option(name: .customLong("protocol"), help: ArgumentHelp("A protocol description whose fields to list too; repeat for several.", valueName: "FILE"))
    var protocols: [String] = []

    func validate() throws {
        if values {
            guard let name else { throw ValidationError("--values lists the values of one field: btlog fields att.opcode --values") }
            guard FieldRegistry.lookup(name) != nil else { throw ValidationError("unknown field '\(name)'; 'btlog fields' lists them") }
            return
        }
        if let name, !FieldRegistry.protocols.contains(name), FieldRegistry.lookup(name) == nil {
            throw ValidationError("unknown protocol or field '\(name)'; known protocols: \(FieldRegistry.protocols.joined(separator: ", "))")
        }
    }

    func run() throws {
        let out = OutputWriter()
        do {
            if values, let name, let field = FieldRegistry.lookup(name) {
                try listValues(of: field, to: out)
            } else {
                try listFields(to: out)
            }
            try out.flush()
        } catch is OutputWriter.OutputClosed {}
    }

    private func listFields(to out: OutputWriter) throws {
        let fields: [FieldDefinition]
        if let name, let field = FieldRegistry.lookup(name) {
            fields = [field]
        } else {
            fields = FieldRegistry.all.filter { name == nil || $0.protocolName == name }
        }
        let width = fields.map(\.name.count).max() ?? 0
        for field in fields {
            let padded = field.name + String(repeating: " ", count: width - field.name.count)
            let type = field.type.rawValue + String(repeating: " ", count: max(0, 8 - field.type.rawValue.count))
            try out.line("\(padded)  \(type)  \(field.help)")
        }
    }

    private func listValues(of field: FieldDefinition, to out: OutputWriter) throws {
        let names = FieldValueNames.names(of: field)
        guard !names.isEmpty else {
            StandardError.error("\(field.name) has no named values; a filter compares it with \(field.type.rawValue) literals")
            throw ExitCode(1)
        }
        let digits = names.map(\.value).max().map { $0 > 0xFFFF ? 8 : $0 > 0xFF ? 4 : 2 } ?? 2
        let width = names.map(\.key.count).max() ?? 0
        for entry in names {
            let key = entry.key + String(repeating: " ", count: width - entry.key.count)
            try out.line("\(Hex.format(entry.value, width: digits))  \(key)  \(entry.name)")
        }
    }
}
