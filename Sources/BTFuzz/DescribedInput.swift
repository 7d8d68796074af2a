import BTAnalysis
import BTCapture
import BTDecode
import BTDescribe
import BTRender

/// The two fuzz targets of described protocols: a description file as text, and described
/// decoders over payloads.
public enum DescribedInput {
    /// The input as a description: it compiles or is refused with an error naming a place in
    /// the file; one that compiles decodes the input's own bytes as each of its messages.
    public static func runDescription(_ input: [UInt8]) {
        let text = String(decoding: input, as: UTF8.self)
        do {
            let described = try ProtocolDescriptionReader.parse(text, source: "fuzz.yaml")
            for message in described.messages.prefix(8) { check(described.decode(input, message: message)) }
        } catch let error as DescriptionError {
            precondition(error.file == "fuzz.yaml", "a description's error names another file")
            precondition(!error.message.isEmpty, "a description's error says nothing")
        } catch {
            preconditionFailure("a description failed with \(error), not a DescriptionError")
        }
    }

    /// [description length][description bytes][payload]: the description bytes choose a layout
    /// (`generate`), which must compile; the payload is decoded as every one of its messages,
    /// with and without display text.
    public static func runDescribed(_ input: [UInt8]) {
        guard let first = input.first else { return }
        let split = min(input.count, 1 + Int(first))
        var recipe = ByteCursor(input[1 ..< split])
        let payload = Array(input[split...])
        let yaml = generate(&recipe)
        let described: DescribedProtocol
        do { described = try ProtocolDescriptionReader.parse(yaml, source: "generated.yaml") } catch {
            preconditionFailure("a generated description does not compile: \(error)\n\(yaml)")
        }
        // `btlog plot` of every numeric field over the decoded packets: the SVG and CSV render.
        var series = FieldSeries(fields: described.fields.filter { ![.bytes, .string].contains($0.type) })
        for message in described.messages {
            let packet = described.decode(payload, message: message)
            check(packet)
            check(described.decode(payload, message: message, buildsDisplayText: false))
            try? series.consume(packet)
        }
        let plot = FieldPlot(series, title: "fuzz")
        _ = plot.svg
        _ = plot.csv
        decodeAsHCI(described, payload)
    }

    /// The payload as the parameters of the generated description's vendor command, its
    /// Command Complete's return parameters and the vendor event, through the whole decoder:
    /// the HCI decoders' hand-over to a described layer.
    static func decodeAsHCI(_ described: DescribedProtocol, _ payload: [UInt8]) {
        var protocols = DescribedProtocols()
        guard (try? protocols.add(described)) != nil else { preconditionFailure("a generated description conflicts with itself") }
        var options = DecodeOptions()
        options.describe(protocols)
        let decoder = Decoder(options: options)
        let parameters = Array(payload.prefix(251))
        let length = UInt8(parameters.count)
        let frames: [(FrameKind, [UInt8])] = [
            (.command, [0x20, 0xFC, length] + parameters),
            (.event, [0x0E, length &+ 4, 0x01, 0x20, 0xFC, 0x00] + parameters),
            (.event, [0x0E, length &+ 4, 0x01, 0x20, 0xFC, payload.first ?? 0] + parameters),
            (.event, [0x0F, 0x04, 0x00, 0x01, 0x20, 0xFC]),
            (.event, [0xFF, length] + parameters),
        ]
        for (number, (kind, bytes)) in frames.enumerated() {
            check(decoder.decode(Frame(number: number + 1, timestamp: Int64(number), kind: kind, direction: kind == .command ? .sent : .received, bytes: bytes)))
        }
    }

    /// Every field's bytes lie inside the payload, and the layer's summary and fields read.
    static func check(_ packet: Packet) {
        for layer in packet.layers {
            _ = layer.summary.description
            for field in layer.fields {
                _ = layer.text(of: field)
                if let range = field.range {
                    precondition(range.lowerBound >= 0 && range.upperBound <= packet.frame.bytes.count, "\(field.definition.name)'s bytes lie outside the payload")
                }
            }
        }
    }

    /// A description whose every choice a byte makes: types, orders, lengths and counts that
    /// refer to earlier values, bit fields, optional parts, repeated groups, switches (which may
    /// select their own message), TLV lists and checksums.
    static func generate(_ recipe: inout ByteCursor) -> String {
        func next() -> Int { Int((try? recipe.u8()) ?? 0) }
        let messageCount = 1 + next() % 4
        var yaml = "btlog-protocol: 1\nname: Generated\ngatt:\n  - characteristic: FFF1\n    message: m0\n"
        if messageCount == 1 && next() % 2 == 0 {
            yaml += "field-names: short\ninline: true\n"
        } else {
            yaml += "hci:\n  - {command: 0xFC20, name: Generated, message: m0, returns: m\(messageCount - 1)}\n  - {event: 0xFF, message: m0}\n"
        }
        yaml += "messages:\n"
        let scalars = ["u8", "u16", "u24be", "u32", "u64be", "s8", "s16be", "s24", "s32", "s64", "f32", "f64be", "sfloat", "medfloat32"]
        let checksums = ChecksumAlgorithm.all.map(\.name)
        for m in 0 ..< messageCount {
            yaml += "  m\(m):\n"
            if next() % 4 == 0 { yaml += "    checksum: {type: \(checksums[next() % checksums.count]), skip: \(next() % 3)}\n" }
            yaml += "    fields:\n"
            var integers: [String] = []
            var values: [String] = []
            var summary: [String] = []
            let elements = 1 + next() % 6
            for e in 0 ..< elements {
                let name = "f\(e)"
                let choice = next() % 9
                let reference = integers.isEmpty ? nil : integers[next() % integers.count]
                switch choice {
                case 0, 1:
                    let type = scalars[next() % scalars.count]
                    var line = "      - {name: \(name), type: \(type)"
                    if next() % 3 == 0 { line += ", scale: 0.01, unit: V" + (next() % 2 == 0 ? ", decimals: \(next() % 10)" : "") }
                    if next() % 4 == 0 { line += ", count: \(reference ?? "rest")" }
                    yaml += line + "}\n"
                    values.append(name)
                    if type.hasPrefix("u") || type.hasPrefix("s") && !type.hasPrefix("sf") { integers.append(name) }
                case 2, 3:
                    if next() % 5 == 0 {
                        yaml += "      - {name: \(name), type: datetime}\n"
                        break
                    }
                    let kind = choice == 2 ? "bytes" : "string"
                    let lengths = ["length: \(next() % 5)", "length: rest", "until: nul", reference.map { "length: \($0)" } ?? "length: 2"]
                    yaml += "      - {name: \(name), type: \(kind), \(lengths[next() % lengths.count])}\n"
                case 4:
                    yaml += "      - name: \(name)\n        type: u16\n        bits:\n          - {name: \(name)_a, mask: \(1 + next())}\n          - {name: \(name)_b, bit: \(next() % 16 + 0), values: {0: no, 1: yes}}\n"
                    integers += [name, "\(name)_a", "\(name)_b"]
                case 5:
                    guard let reference else { fallthrough }
                    // The same value in either of two optional parts, as a flag says.
                    let mask = 1 + next()
                    yaml += "      - if: \"\(reference) & \(mask)\"\n        fields:\n          - {name: \(name), type: u8}\n"
                    yaml += "      - {name: \(name), type: u16, if: \"\(reference) & \(mask) == 0\"}\n"
                    integers.append(name)
                    values.append(name)
                    summary.append("{text: \"set \(name)\", if: \"\(reference) & \(mask)\"}")
                case 6:
                    yaml += "      - count: \(reference ?? "rest")\n        fields:\n          - {name: \(name), type: u8}\n          - {name: \(name)_x, type: bytes, length: \(next() % 3)}\n"
                case 7:
                    guard let reference else {
                        yaml += "      - {name: \(name), type: u8}\n"
                        integers.append(name)
                        break
                    }
                    yaml += "      - switch: \(reference)\n        cases: {\(next() % 4): m\(next() % messageCount), \(4 + next()): m\(next() % messageCount)}\n"
                    if next() % 2 == 0 { yaml += "        default: m\(next() % messageCount)\n" }
                case 8 where e == elements - 1:
                    yaml += "      - text: \(name)\n        end: \"\\r\\n\"\n        prompt: \">\"\n        rules:\n          - {name: Hex, match: '^(?<h\(name)>[0-9A-F]{1,16})$', hex: [h\(name)]}\n          - {name: Number, match: '^(?<d\(name)>-?[0-9]{1,18})$', decimal: [d\(name)]}\n          - {name: Word, match: '^(?<w\(name)>[A-Z]+)'}\n"
                default:
                    yaml += "      - {tlv: x, name: \(name), type: u\(next() % 2 == 0 ? 8 : 16), length: u8, length-includes: \(next() % 2 == 0 ? "value" : "all"), cases: {1: m\(next() % messageCount)}}\n"
                }
            }
            // A summary of templates and labelled values, when the message has values to show.
            if !values.isEmpty && next() % 2 == 0 {
                summary += ["\"{\(values[next() % values.count])} units\"", values[next() % values.count], "\"a {\(values[0])}, {\(values[values.count - 1])} b\""]
                yaml += "    summary: [\(summary.joined(separator: ", "))]\n"
            }
        }
        return yaml
    }
}

extension DescribedInput {
    /// Descriptions to start from: every kind of element, a selector of every kind.
    static let descriptionSeeds: [String] = [
        """
        btlog-protocol: 1
        name: Heart Rate Measurement
        key: hrm
        gatt:
          - {characteristic: 2A37, message: measurement}
        messages:
          measurement:
            summary: [heart_rate]
            fields:
              - name: flags
                type: u8
                bits:
                  - {name: wide, bit: 0}
                  - {name: contact, mask: 0x06, values: {2: not detected, 3: detected}}
                  - {name: energy_present, bit: 3}
                  - {name: rr_present, bit: 4}
              - {name: heart_rate, type: u8, if: "flags & 0x01 == 0"}
              - {if: wide, name: heart_rate16, type: u16}
              - {if: energy_present, name: energy, type: u16, unit: kJ}
              - {if: rr_present, name: rr, type: u16, scale: 0.0009765625, unit: s, count: rest}
        """,
        """
        btlog-protocol: 1
        name: Frame
        key: framed
        byte-order: big
        l2cap: [{psm: 0x1001, message: frame}, {spsm: 0x80, message: frame}]
        rfcomm: [{channel: 3, message: frame}, {service-name: Serial, message: frame}]
        advertising: [{company: 0x0059, prefix: "01 02", message: frame}, {service-data: FEAA, message: frame}]
        hci: [{command: 0xFC20, name: Frame Command, message: frame, returns: frame}, {event: 0xFF, prefix: "42", message: frame}]
        messages:
          frame:
            checksum: {type: crc16-ccitt-false, skip: 1}
            fields:
              - {name: sync, type: u8}
              - {name: type, type: u8, values: {1: status, 2: reading}}
              - {name: length, type: u8}
              - switch: type
                cases: {1: status, 2: reading}
          status:
            fields:
              - {name: text, type: string, until: nul}
              - {name: code, type: s16le}
              - {name: items, tlv: x, type: u8, length: u8, cases: {1: reading}}
          reading:
            fields:
              - {name: count, type: u8}
              - count: count
                fields:
                  - {name: value, type: sfloat, unit: °C}
                  - {name: raw, type: medfloat32}
              - {name: pressure, type: f32}
        """,
    ]

    static let elm327Seed = """
        btlog-protocol: 1
        name: ELM327
        rfcomm: [{channel: 1, message: session}]
        decode-as: ["l2cap.cid == 0x0055: rfcomm"]
        messages:
          session:
            fields:
              - text: line
                end: "\\r"
                prompt: ">"
                rules:
                  - name: Request
                    match: '^(?<service>[0-9A-F]{2})(?<pid>[0-9A-F]{2})$'
                    hex: [service, pid]
                  - {name: Status, match: '^(?<status>OK|NO DATA)$'}
        """

    static var describedSeeds: [[UInt8]] {
        var seeds: [[UInt8]] = []
        for n in 0 ..< 16 {
            let recipe = (0 ..< 24).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ n &* 11) }
            let payload = (0 ..< 40).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ n) }
            seeds.append([UInt8(recipe.count)] + recipe + payload)
        }
        return seeds
    }
}
