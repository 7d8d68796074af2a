import BTCapture
import BTDecode
import BTQuery

/// `export --format jsonl` (one object per line) and `json` (one array): every packet as the
/// object docs/packet.schema.json describes, or with `--fields` a flat object of those columns.
/// Written straight into the output buffer as each packet comes: constant memory.
public struct JSONRenderer: PacketRenderer {
    public enum Layout: Sendable { case lines, array }

    /// The schema version every object's layout follows (docs/packet.schema.json's `$id`).
    public static let schemaVersion = 1

    let layout: Layout
    /// nil: the whole packet object.
    let columns: [ExportColumn]?
    /// The capture the next packets come from: written as `file` when set (several inputs).
    var file: String?
    var time = UTCTimeFormatter()
    var wroteAny = false
    /// `writeLayer`'s scratch, kept from layer to layer: each field's identity, and whether a
    /// group already wrote it.
    private var fieldIDs: [Int] = []
    private var fieldsWritten: [Bool] = []
    /// The Type member's text, kept from packet to packet.
    private var typeLabel: [UInt8] = []

    public init(layout: Layout, columns: [ExportColumn]? = nil) {
        self.layout = layout
        self.columns = columns
    }

    public mutating func render(_ packet: Packet, to out: OutputWriter) throws {
        try out.lines { text in
            if layout == .array { JSONText.appendLiteral(wroteAny ? ",\n" : "[\n", to: &text) }
            if let columns {
                writeFlat(packet, columns, to: &text)
            } else {
                writeObject(packet, to: &text)
            }
            if layout == .lines { text.put(0x0A) }
        }
        wroteAny = true
    }

    public mutating func beginFile(_ name: String) { file = name }

    public mutating func finish(_ statistics: CaptureStatistics, to out: OutputWriter) throws {
        guard layout == .array else { return }
        try out.write(wroteAny ? "\n]\n" : "[]\n")
    }

    // MARK: The packet object

    mutating func writeObject(_ packet: Packet, to text: inout OutputBuffer) {
        text.put(UInt8(ascii: "{"))
        if let file {
            JSONText.appendKey("file", to: &text)
            JSONText.appendString(file, to: &text)
            text.put(UInt8(ascii: ","))
        }
        for member in Self.objectMembers {
            JSONText.appendKey(member.rawValue, to: &text)
            writeMember(member, of: packet, to: &text)
            text.put(UInt8(ascii: ","))
        }
        if let origin = packet.frame.origin { Self.writeOrigin(origin, to: &text) }
        if let identity = packet.peerIdentity {
            // `"identity":{"address":"...","key_frame":N},`: the device behind the peer's private address.
            JSONText.appendKey("identity", to: &text)
            text.put(UInt8(ascii: "{"))
            if let address = identity.address {
                JSONText.appendKey("address", to: &text)
                text.put(UInt8(ascii: "\""))
                address.appendText(to: &text)
                JSONText.appendLiteral("\",", to: &text)
            }
            JSONText.appendLiteral("\"key_frame\":", to: &text)
            ASCII.appendDecimal(UInt64(max(0, identity.keyFrame)), to: &text)
            JSONText.appendLiteral("},", to: &text)
        }
        JSONText.appendKey("layers", to: &text)
        text.put(UInt8(ascii: "["))
        packet.layers.withUnsafeBufferPointer { layers in
            for index in layers.indices {
                if index > 0 { text.put(UInt8(ascii: ",")) }
                writeLayer(layers[index], to: &text)
            }
        }
        text.put(UInt8(ascii: "]"))
        text.put(UInt8(ascii: ","))
        JSONText.appendKey("bytes", to: &text)
        Self.appendHexString(packet.frame.bytes, to: &text)
        text.put(UInt8(ascii: "}"))
    }

    /// The members before `layers`, in the schema's order (`file` first when present, `bytes` last).
    static let objectMembers: [PacketMember] = [.number, .time, .timestampMicroseconds, .direction, .type, .kind, .controller,
                                                .handle, .address, .summary, .issues, .comment, .flagged, .length]

    mutating func writeMember(_ member: PacketMember, of packet: Packet, to text: inout OutputBuffer) {
        // `packet.frame` read in place at each use: a copy of the frame per member retains its bytes.
        switch member {
        case .file:
            if let file { JSONText.appendString(file, to: &text) } else { JSONText.appendLiteral("null", to: &text) }
        case .number: ASCII.appendDecimal(UInt64(max(0, packet.frame.number)), to: &text)
        case .time:
            text.put(UInt8(ascii: "\""))
            time.append(packet.frame.timestamp, to: &text)
            text.put(UInt8(ascii: "\""))
        case .timestampMicroseconds: JSONText.appendInteger(packet.frame.timestamp, to: &text)
        case .direction:
            switch packet.frame.direction {
            case .sent: JSONText.appendLiteral("\"sent\"", to: &text)
            case .received: JSONText.appendLiteral("\"received\"", to: &text)
            case .none: JSONText.appendLiteral("null", to: &text)
            }
        case .type:
            // Written where it is kept from packet to packet, then quoted: no String per packet.
            var label = typeLabel
            typeLabel = []
            label.removeAll(keepingCapacity: true)
            packet.writeTypeLabel(to: &label)
            label.withUnsafeBufferPointer { JSONText.appendString(utf8: $0, to: &text) }
            typeLabel = label
        case .kind: JSONText.appendString(packet.frame.kind.word, to: &text)
        case .controller:
            if packet.frame.controller == Frame.systemController {
                JSONText.appendLiteral("null", to: &text)
            } else {
                ASCII.appendDecimal(UInt64(packet.frame.controller), to: &text)
            }
        case .handle:
            if let handle = packet.handle { ASCII.appendDecimal(UInt64(handle), to: &text) } else { JSONText.appendLiteral("null", to: &text) }
        case .address:
            if let peer = packet.peer {
                text.put(UInt8(ascii: "\""))
                peer.appendText(to: &text)
                text.put(UInt8(ascii: "\""))
            } else {
                JSONText.appendLiteral("null", to: &text)
            }
        case .summary:
            if let top = packet.layers.indices.last {
                // Read in place: `packet.top` is a copy of the layer.
                packet.layers[top].summary.withBytes { JSONText.appendString(utf8: $0, to: &text) }
            } else {
                JSONText.appendLiteral("\"\"", to: &text)
            }
        case .issues:
            text.put(UInt8(ascii: "["))
            var first = true
            for index in packet.layers.indices where !packet.layers[index].issues.isEmpty {
                for issue in packet.layers[index].issues {
                    if !first { text.put(UInt8(ascii: ",")) }
                    first = false
                    JSONText.appendLiteral("{\"severity\":", to: &text)
                    JSONText.appendString(Self.severityWord(issue.severity), to: &text)
                    JSONText.appendLiteral(",\"message\":", to: &text)
                    JSONText.appendString(issue.message, to: &text)
                    text.put(UInt8(ascii: "}"))
                }
            }
            text.put(UInt8(ascii: "]"))
        case .comment:
            if let comment = packet.comment { JSONText.appendString(comment, to: &text) } else { JSONText.appendLiteral("null", to: &text) }
        case .flagged: JSONText.appendLiteral(packet.flagged ? "true" : "false", to: &text)
        case .length: ASCII.appendDecimal(UInt64(max(0, packet.frame.originalLength)), to: &text)
        case .bytes: Self.appendHexString(packet.frame.bytes, to: &text)
        }
    }

    /// `"source":{...},` and, for a matched PDU, `"merge":{...},`: a merged packet's origin.
    static func writeOrigin(_ origin: FrameOrigin, to text: inout OutputBuffer) {
        JSONText.appendKey("source", to: &text)
        JSONText.appendLiteral("{\"name\":", to: &text)
        JSONText.appendString(origin.name, to: &text)
        JSONText.appendLiteral(",\"number\":", to: &text)
        ASCII.appendDecimal(UInt64(max(0, origin.number)), to: &text)
        JSONText.appendLiteral(",\"controller\":", to: &text)
        if origin.controller == Frame.systemController {
            JSONText.appendLiteral("null", to: &text)
        } else {
            ASCII.appendDecimal(UInt64(origin.controller), to: &text)
        }
        JSONText.appendLiteral(",\"timestamp_us\":", to: &text)
        JSONText.appendInteger(origin.sourceTime, to: &text)
        JSONText.appendLiteral("},", to: &text)
        guard let match = origin.match else { return }
        JSONText.appendKey("merge", to: &text)
        JSONText.appendLiteral("{\"latency_ms\":", to: &text)
        ASCII.append(FieldValue.realText(Double(match.latency) / 1000), to: &text)
        JSONText.appendLiteral(",\"peer\":", to: &text)
        ASCII.appendDecimal(UInt64(max(0, match.number)), to: &text)
        JSONText.appendLiteral(",\"peer_source\":", to: &text)
        JSONText.appendString(match.sourceName, to: &text)
        if let address = match.accessAddress {
            JSONText.appendLiteral(",\"peer_access_address\":", to: &text)
            ASCII.appendDecimal(UInt64(address), to: &text)
        }
        JSONText.appendLiteral(match.isSender ? ",\"role\":\"sender\"}," : ",\"role\":\"receiver\"},", to: &text)
    }

    static func severityWord(_ severity: Issue.Severity) -> String {
        switch severity {
        case .error: return "error"
        case .warning: return "warning"
        case .note: return "note"
        }
    }

    /// `{"protocol":"att","name":"ATT","summary":"...","fields":{...}}`; a field occurring several
    /// times in the layer is an array of its values (and of its names).
    mutating func writeLayer(_ layer: Layer, to text: inout OutputBuffer) {
        JSONText.appendLiteral("{\"protocol\":", to: &text)
        JSONText.appendString(layer.protocolName, to: &text)
        JSONText.appendLiteral(",\"name\":", to: &text)
        JSONText.appendString(layer.name, to: &text)
        JSONText.appendLiteral(",\"summary\":", to: &text)
        layer.summary.withBytes { JSONText.appendString(utf8: $0, to: &text) }
        JSONText.appendLiteral(",\"fields\":{", to: &text)
        // Fields of one name go out together, at the first one's place (a layer repeats a field:
        // an AD structure per report). Each field's identity is read once into `ids`, and a
        // group's later members are marked written, instead of searching the layer for each field.
        // Taken out (and put back after), so each array is uniquely held while it is written.
        var ids = fieldIDs
        var written = fieldsWritten
        fieldIDs = []
        fieldsWritten = []
        ids.removeAll(keepingCapacity: true)
        written.removeAll(keepingCapacity: true)
        layer.withFields { fields, bytes in
            for i in fields.indices { ids.append(fields[i].definition.id) }
            written.append(contentsOf: repeatElement(false, count: fields.count))
            var wrote = false
            for i in fields.indices where !written[i] {
                let id = ids[i]
                var count = 1
                for j in i + 1 ..< fields.count where ids[j] == id { count += 1 }
                if wrote { text.put(UInt8(ascii: ",")) }
                wrote = true
                Self.appendKey(fields[i].definition, to: &text)
                if count == 1 {
                    writeValue(of: fields[i], in: bytes, to: &text)
                    if let name = ExportNames.name(of: fields[i], in: bytes) {
                        text.put(UInt8(ascii: ","))
                        writeNameKey(fields[i].definition, to: &text)
                        JSONText.appendString(name, to: &text)
                    }
                    continue
                }
                text.put(UInt8(ascii: "["))
                var anyName = false
                var first = true
                for j in i ..< fields.count where ids[j] == id {
                    written[j] = true
                    if !first { text.put(UInt8(ascii: ",")) }
                    first = false
                    writeValue(of: fields[j], in: bytes, to: &text)
                    if !anyName && ExportNames.name(of: fields[j], in: bytes) != nil { anyName = true }
                }
                text.put(UInt8(ascii: "]"))
                guard anyName else { continue }
                text.put(UInt8(ascii: ","))
                writeNameKey(fields[i].definition, to: &text)
                text.put(UInt8(ascii: "["))
                first = true
                for j in i ..< fields.count where ids[j] == id {
                    if !first { text.put(UInt8(ascii: ",")) }
                    first = false
                    Self.appendOptionalString(ExportNames.name(of: fields[j], in: bytes), to: &text)
                }
                text.put(UInt8(ascii: "]"))
            }
        }
        fieldIDs = ids
        fieldsWritten = written
        JSONText.appendLiteral("}}", to: &text)
    }

    /// `"att.opcode":`, from the name's bytes (a field's name is a plain dotted word: nothing to escape).
    static func appendKey(_ definition: FieldDefinition, to text: inout OutputBuffer) {
        text.put(UInt8(ascii: "\""))
        text.put(definition.nameBytes)
        text.put(UInt8(ascii: "\""))
        text.put(UInt8(ascii: ":"))
    }

    func writeNameKey(_ definition: FieldDefinition, to text: inout OutputBuffer) {
        text.put(UInt8(ascii: "\""))
        text.put(definition.nameBytes)
        JSONText.appendLiteral(".name\":", to: &text)
    }

    /// Integers as numbers, bytes as a hex string, addresses and UUIDs as their text, times in RFC 3339.
    /// A field's value from its layer's bytes: no String or array made.
    @inline(__always) mutating func writeValue(of field: Field, in bytes: UnsafeBufferPointer<UInt8>, to text: inout OutputBuffer) {
        if let stored = field.storedBytes(in: bytes) {
            if field.isText { return JSONText.appendString(utf8: stored, to: &text) }
            return Self.appendHexString(stored, to: &text)
        }
        if let value = field.inlineValue { writeValue(value, to: &text) }
    }

    mutating func writeValue(_ value: FieldValue, to text: inout OutputBuffer) {
        switch value {
        case .unsigned(let number, _): ASCII.appendDecimal(number, to: &text)
        case .signed(let number): JSONText.appendInteger(number, to: &text)
        case .bool(let flag): JSONText.appendLiteral(flag ? "true" : "false", to: &text)
        case .text(let string): JSONText.appendString(string, to: &text)
        case .bytes(let bytes): Self.appendHexString(bytes, to: &text)
        case .address(let address):
            text.put(UInt8(ascii: "\""))
            address.appendText(to: &text)
            text.put(UInt8(ascii: "\""))
        case .uuid(let uuid):
            text.put(UInt8(ascii: "\""))
            uuid.appendDescription(to: &text)
            text.put(UInt8(ascii: "\""))
        case .time(let micros):
            text.put(UInt8(ascii: "\""))
            time.append(micros, to: &text)
            text.put(UInt8(ascii: "\""))
        case .real(let number):
            // JSON has no NaN or infinity: a measurement that is not a number is null.
            if number.isFinite { ASCII.append(FieldValue.realText(number), to: &text) } else { JSONText.appendLiteral("null", to: &text) }
        }
    }

    static func appendOptionalString(_ string: String?, to text: inout OutputBuffer) {
        if let string { JSONText.appendString(string, to: &text) } else { JSONText.appendLiteral("null", to: &text) }
    }

    static func appendHexString<Bytes: Collection>(_ bytes: Bytes, to text: inout OutputBuffer) where Bytes.Element == UInt8 {
        text.put(UInt8(ascii: "\""))
        for byte in bytes { Hex.append(byte, to: &text) }
        text.put(UInt8(ascii: "\""))
    }

    // MARK: Flat objects (--fields)

    /// `{"number":1,"att.opcode":18,"att.opcode.name":"Write Request"}`: an absent field is
    /// null, one occurring several times an array.
    mutating func writeFlat(_ packet: Packet, _ columns: [ExportColumn], to text: inout OutputBuffer) {
        text.put(UInt8(ascii: "{"))
        if let file {
            JSONText.appendKey("file", to: &text)
            JSONText.appendString(file, to: &text)
            if !columns.isEmpty { text.put(UInt8(ascii: ",")) }
        }
        for (index, column) in columns.enumerated() {
            if index > 0 { text.put(UInt8(ascii: ",")) }
            JSONText.appendKey(column.name, to: &text)
            switch column {
            case .member(let member): writeMember(member, of: packet, to: &text)
            case .field(let field):
                var values: [FieldValue] = []
                packet.forEachValue(of: field) { values.append($0) }
                if values.isEmpty {
                    JSONText.appendLiteral("null", to: &text)
                } else if values.count == 1 {
                    writeValue(values[0], to: &text)
                } else {
                    text.put(UInt8(ascii: "["))
                    for (i, value) in values.enumerated() {
                        if i > 0 { text.put(UInt8(ascii: ",")) }
                        writeValue(value, to: &text)
                    }
                    text.put(UInt8(ascii: "]"))
                }
            case .valueName(let field):
                var names: [String?] = []
                packet.forEachValueName(of: field) { names.append($0) }
                if names.count <= 1 {
                    Self.appendOptionalString(names.first ?? nil, to: &text)
                } else {
                    text.put(UInt8(ascii: "["))
                    for (i, name) in names.enumerated() {
                        if i > 0 { text.put(UInt8(ascii: ",")) }
                        Self.appendOptionalString(name, to: &text)
                    }
                    text.put(UInt8(ascii: "]"))
                }
            }
        }
        text.put(UInt8(ascii: "}"))
    }
}
