import BTCapture
import BTDecode

/// `btlog gatt`: each attribute server's table as discovery revealed it, with the last value
/// the capture showed for each attribute.
public enum GATTTableRenderer {
    public static func lines(_ key: GATTServerKey, _ database: GATTDatabase, names: UUIDNames, style: Style) -> [String] {
        var out = [style.paint(key.description, Style.bold)]
        out.append("  Handle  Attribute        UUID                                  Name                                   Properties / Value")
        for handle in database.attributes.keys.sorted() {
            let attribute = database.attributes[handle]!
            var kind: String, uuid: BTUUID, name: String, detail = ""
            var indent = ""
            switch attribute.role {
            case .service(let u, let end, let primary):
                kind = primary ? "Primary Service" : "Secondary Service"
                uuid = u
                name = names.name(u, as: .service) ?? ""
                detail = "\(Hex.u16(handle))-\(Hex.u16(end))"
            case .include(let start, let end, let u):
                kind = "Include"
                uuid = u ?? BTUUID(UInt16(0x2802))
                name = u.flatMap { names.name($0, as: .service) } ?? ""
                detail = "\(Hex.u16(start))-\(Hex.u16(end))"
                indent = "  "
            case .declaration(let u, let properties, let valueHandle):
                kind = "Characteristic"
                uuid = u
                name = names.name(u, as: .characteristic) ?? ""
                detail = "\(GATTNames.properties(properties)) (value \(Hex.u16(valueHandle)))"
                indent = "  "
            case .value(let u):
                kind = "Value"
                uuid = u
                name = names.name(u, as: .characteristic) ?? ""
                indent = "    "
            case .descriptor(let u, _):
                kind = "Descriptor"
                uuid = u
                name = names.name(u, as: .descriptor) ?? ""
                indent = "    "
            case .typed(let u):
                kind = "Attribute"
                uuid = u
                name = names.name(u) ?? ""
            }
            if let value = attribute.lastValue {
                let decoded = GATTValues.describe(attribute.type, value[...])
                detail += (detail.isEmpty ? "" : "  ") + "= " + (decoded ?? (value.count > 24 ? Hex.bytes(value.prefix(24)) + " … (\(value.count) bytes)" : Hex.bytes(value)))
            }
            out.append("  " + pad(Hex.u16(handle), 8) + pad(indent + kind, 17) + pad(uuid.description, 38) + pad(name, 39) + detail)
        }
        return out
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
