import BTCapture

/// Per link: text of a command or result still arriving, the indicators the audio gateway
/// listed (so +CIEV reads by name), and the codec it selected.
public struct HFPState: ProtocolState {
    public static var slot: Int { StateSlot.hfp.rawValue }

    struct StreamKey: WordKey {
        var link: Session.LinkKey
        var dlci: UInt8
        var sent: Bool

        var hashWord: UInt64 { UInt64(link.packed) << 9 | UInt64(dlci) << 1 | (sent ? 1 : 0) }
    }

    struct Partial {
        var bytes: [UInt8]
        var frames: Int
    }

    var partial: [StreamKey: Partial] = [:]
    var indicators: [Session.LinkKey: [String]] = [:]
    public internal(set) var codecs: [Session.LinkKey: UInt8] = [:]

    public init() {}

    public mutating func close(_ link: Session.LinkKey) -> [String] {
        partial = partial.filter { $0.key.link != link }
        indicators[link] = nil
        codecs[link] = nil
        return []
    }

    public mutating func finish() -> [SessionReport] { [] }
}

extension Session {
    public var hfp: HFPState { _read { yield self[HFPState.self] } _modify { yield &self[HFPState.self] } }
}

/// AT commands and results on a Hands-Free (or Headset) server channel: each line named, the
/// feature bits, codecs, indicators and gains decoded, a line split across frames joined.
enum HFPDecoder {
    static let descriptor = ProtocolDescriptor(name: "HFP", fields: HFPFields.all, layers: [.hfp, .hsp], state: HFPState.self,
                                               registrations: [0x111E, 0x111F, 0x1108, 0x1112, 0x1131].map { .rfcommService($0, decode) },
                                               conversation: HFPFields.conversation)

    /// A line longer than this without its end is not AT traffic: it is shown, not kept.
    static let maximumPartial = 512

    static func decode(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session, context: RFCOMMContext) throws {
        var layer = packet.makeLayer(context.serviceClass == 0x111E || context.serviceClass == 0x111F ? .hfp : .hsp, over: c,
                                     showsDirection: true)
        defer { packet.append(taking: &layer) }
        let key = HFPState.StreamKey(link: context.l2cap.link, dlci: context.dlci, sent: context.l2cap.sent)
        guard ReadableText.isLineText(c.bytes[c.index...]) else {
            // Not AT text: said, shown as bytes, and whatever was pending is dropped.
            session.hfp.partial[key] = nil
            layer.summary.set("\(c.remaining) bytes that are not AT text")
            layer.addIssue(.warning, "Data that is not AT text on a \(layer.name) channel")
            return
        }
        var pending = session.hfp.partial.removeValue(forKey: key) ?? HFPState.Partial(bytes: [], frames: 0)
        // Where this frame's bytes begin, in the packet and in the joined text.
        let frameStart = c.index, held = pending.bytes.count
        pending.bytes += c.rest()
        pending.frames += 1

        // Lines end at CR (a command) or CR LF (a result); results also begin with CR LF.
        var lines: [ArraySlice<UInt8>] = []
        var rest = pending.bytes[...]
        while true {
            rest = rest.drop { $0 == 0x0D || $0 == 0x0A }
            guard let end = rest.firstIndex(where: { $0 == 0x0D || $0 == 0x0A }) else { break }
            lines.append(rest[rest.startIndex ..< end])
            rest = rest[end...]
        }
        if pending.frames > 1, !lines.isEmpty { layer.add(HFPFields.joined, .count(pending.frames)) }
        if !rest.isEmpty {
            if rest.count <= maximumPartial {
                session.hfp.partial[key] = HFPState.Partial(bytes: Array(rest), frames: lines.isEmpty ? pending.frames : 1)
            } else {
                layer.addIssue(.warning, "\(rest.count) bytes without a line end: not AT commands")
            }
        }
        var parts: [String] = []
        for line in lines {
            let first = layer.fields.count
            parts.append(describe(line, &layer, &session, link: context.l2cap.link))
            // What a line says has the line's bytes, when this frame holds all of it.
            guard line.startIndex >= held else { continue }
            let range = layer.range(at: frameStart + line.startIndex - held, count: line.count)
            for index in first ..< layer.fields.count { layer.fields[index].range = range }
        }
        if parts.isEmpty {
            let shown = ReadableText.decode(rest.prefix(40)) + (rest.count > 40 ? "…" : "")
            layer.summary.set("Partial \(rest.first == UInt8(ascii: "A") || rest.first == UInt8(ascii: "a") ? "command" : "result") \"\(shown)\", continued")
        } else {
            layer.summary.set("\(parts.joined(separator: " - "))")
            if pending.frames > 1 { layer.summary += " (joined from \(pending.frames) frames)" }
        }
    }

    // MARK: Lines

    static let commandNames: [String: String] = [
        "+BRSF": "Supported Features", "+BAC": "Available Codecs", "+BCS": "Codec Selection", "+BCC": "Codec Connection",
        "+CIND": "Indicators", "+CMER": "Event Reporting", "+CHLD": "Call Hold and Multiparty", "+CLIP": "Calling Line Identification",
        "+CCWA": "Call Waiting", "+CIEV": "Indicator Event", "+VGS": "Speaker Gain", "+VGM": "Microphone Gain",
        "+BVRA": "Voice Recognition", "+NREC": "Noise Reduction and Echo Canceling", "+BINP": "Attach Phone Number",
        "+BLDN": "Redial Last Number", "+BTRH": "Response and Hold", "+CLCC": "Current Calls", "+CMEE": "Extended Error Results",
        "+COPS": "Network Operator", "+CNUM": "Subscriber Number", "+BIA": "Indicators Activation", "+BIND": "HF Indicators",
        "+BIEV": "HF Indicator Value", "+BSIR": "In-band Ring Tone", "+VTS": "DTMF", "+CKPD": "Keypad Control",
        "+CHUP": "Hang Up", "A": "Answer", "D": "Dial", "+XAPL": "Apple Accessory Features", "+IPHONEACCEV": "Apple Accessory Event",
        "+XEVENT": "Vendor Event", "+CSRSF": "CSR Supported Features", "+APLEFM": "Apple Siri Eyes Free",
    ]
    static let results = ["OK", "ERROR", "RING", "NO CARRIER", "BUSY", "NO ANSWER", "DELAYED", "BLACKLISTED"]
    static let codecNames: [UInt64: String] = [1: "CVSD", 2: "mSBC", 3: "LC3-SWB"]
    static let hfFeatureNames = ["EC/NR", "Three-way calling", "CLI presentation", "Voice recognition", "Remote volume control",
                                 "Enhanced call status", "Enhanced call control", "Codec negotiation", "HF Indicators", "eSCO S4",
                                 "Enhanced Voice Recognition Status", "Voice Recognition Text"]
    static let agFeatureNames = ["Three-way calling", "EC/NR", "Voice recognition", "In-band ring tone", "Attach a number to a voice tag",
                                 "Reject a call", "Enhanced call status", "Enhanced call control", "Extended Error Result Codes",
                                 "Codec negotiation", "HF Indicators", "eSCO S4", "Enhanced Voice Recognition Status",
                                 "Voice Recognition Text"]
    /// +CME ERROR codes (HFP 1.9, 4.33.2).
    static let cmeErrors: [UInt64: String] = [
        0: "AG failure", 1: "No connection to phone", 3: "Operation not allowed", 4: "Operation not supported",
        5: "PH-SIM PIN required", 10: "SIM not inserted", 11: "SIM PIN required", 12: "SIM PUK required", 13: "SIM failure",
        14: "SIM busy", 16: "Incorrect password", 17: "SIM PIN2 required", 18: "SIM PUK2 required", 20: "Memory full",
        21: "Invalid index", 23: "Memory failure", 24: "Text string too long", 25: "Invalid characters in text string",
        26: "Dial string too long", 27: "Invalid characters in dial string", 30: "No network service", 31: "Network timeout",
        32: "Network not allowed, emergency calls only",
    ]

    /// One line onto the layer; returns how the summary reads it.
    static func describe(_ bytes: ArraySlice<UInt8>, _ layer: inout Layer, _ session: inout Session, link: Session.LinkKey) -> String {
        let line = ReadableText.decode(bytes)
        layer.add(HFPFields.line, .text(line))
        let upper = line.uppercased()
        if upper.hasPrefix("AT") {
            return command(String(line.dropFirst(2)), &layer, &session, link: link, text: line)
        }
        if results.contains(upper) {
            layer.add(HFPFields.response, .text(upper))
            layer.add(HFPFields.commandType, .text("result"))
            if upper == "ERROR" { layer.addIssue(.warning, "ERROR result") }
            return upper
        }
        guard upper.hasPrefix("+"), let colon = line.firstIndex(of: ":") else {
            layer.add(HFPFields.response, .text(line))
            return "\"\(line)\""
        }
        let name = line[..<colon].uppercased()
        let parameters = line[line.index(after: colon)...].drop { $0 == " " }
        layer.add(HFPFields.response, .text(name))
        layer.add(HFPFields.commandType, .text("result"))
        if !parameters.isEmpty { layer.add(HFPFields.parameters, .text(String(parameters))) }
        let meaning = detail(name, String(parameters), result: true, &layer, &session, link: link)
        // A test result's list reads better named than as sent.
        if parameters.hasPrefix("("), let meaning { return "\(name): \(meaning)" }
        return line + (meaning.map { " (\($0))" } ?? "")
    }

    static func command(_ body: String, _ layer: inout Layer, _ session: inout Session, link: Session.LinkKey, text: String) -> String {
        let upper = body.uppercased()
        let name: String, type: String, parameters: String
        if upper.hasPrefix("D") {
            name = "D"; type = "action"; parameters = String(body.dropFirst())
            if !parameters.isEmpty { layer.add(HFPFields.number, .text(parameters.hasSuffix(";") ? String(parameters.dropLast()) : parameters)) }
        } else if let split = upper.firstIndex(where: { $0 == "=" || $0 == "?" }) {
            name = String(upper[..<split])
            let tail = body[split...]
            if tail == "=?" { type = "test"; parameters = "" } else if tail == "?" { type = "read"; parameters = "" } else {
                type = "set"; parameters = String(tail.dropFirst())
            }
        } else {
            name = upper; type = "action"; parameters = ""
        }
        layer.add(HFPFields.command, .text(name))
        layer.add(HFPFields.commandType, .text(type))
        if !parameters.isEmpty { layer.add(HFPFields.parameters, .text(parameters)) }
        if commandNames[name] == nil, !name.hasPrefix("+") || name.count < 2 {
            // A vendor's or an unknown basic command: shown as sent.
            return text
        }
        var meaning = commandNames[name]
        if type == "set", let more = detail(name, parameters, result: false, &layer, &session, link: link) { meaning = more }
        return text + (meaning.map { " (\($0))" } ?? "")
    }

    /// What a command's or result's parameters mean, for the ones that carry codes.
    static func detail(_ name: String, _ parameters: String, result: Bool, _ layer: inout Layer, _ session: inout Session,
                       link: Session.LinkKey) -> String? {
        let values = parameters.split(separator: ",").map { String($0).trimmingWhitespace }
        let numbers = values.map { UInt64($0) }
        switch name {
        case "+BRSF":
            guard let bits = numbers.first ?? nil, bits <= UInt64(UInt32.max) else { return nil }
            let table = result ? agFeatureNames : hfFeatureNames
            layer.add(result ? HFPFields.agFeatures : HFPFields.hfFeatures, .u32(UInt32(bits)))
            let named = table.indices.filter { bits & (1 << UInt64($0)) != 0 }.map { table[$0] }
            let others = (table.count ..< 32).filter { bits & (1 << UInt64($0)) != 0 }.map { "bit \($0)" }
            return "\(result ? "AG" : "HF") features: " + (named + others).joined(separator: ", ")
        case "+BAC", "+BCS", "+BCC":
            let codecs = numbers.compactMap { $0 }
            for codec in codecs where codec <= 0xFF { layer.add(HFPFields.codec, .u8(UInt8(codec)), codecNames[codec]) }
            if name == "+BCS", let codec = codecs.first, codec <= 0xFF { session.hfp.codecs[link] = UInt8(codec) }
            guard !codecs.isEmpty else { return commandNames[name] }
            return "\(commandNames[name]!): " + codecs.map { codecNames[$0] ?? "codec \($0)" }.joined(separator: ", ")
        case "+CIND" where parameters.hasPrefix("("):
            // The test result: ("name",(range)),... in order.
            let names = parameters.split(separator: "\"", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
            session.hfp.indicators[link] = names
            return "\(names.count) indicators: " + names.joined(separator: ", ")
        case "+CIND" where result:
            let names = session.hfp.indicators[link] ?? []
            var read: [String] = []
            for (index, value) in values.enumerated() {
                let indicator = names.indices.contains(index) ? names[index] : "\(index + 1)"
                layer.add(HFPFields.indicator, .text(indicator))
                if let number = Int64(value) { layer.add(HFPFields.indicatorValue, .signed(number)) }
                read.append("\(indicator) \(value)")
            }
            return read.joined(separator: ", ")
        case "+CIEV":
            guard values.count >= 2, let index = Int(values[0]), let value = Int64(values[1]) else { return nil }
            let names = session.hfp.indicators[link] ?? []
            let indicator = index >= 1 && index <= names.count ? names[index - 1] : "indicator \(index)"
            layer.add(HFPFields.indicator, .text(indicator))
            layer.add(HFPFields.indicatorValue, .signed(value))
            return "\(indicator) \(value)"
        case "+VGS", "+VGM":
            guard let gain = numbers.first ?? nil, gain <= 15 else { return commandNames[name] }
            layer.add(HFPFields.gain, .count(Int(gain)))
            return "\(commandNames[name]!) \(gain)/15"
        case "+CLIP", "+CCWA", "+CNUM":
            let number = values.first { $0.hasPrefix("\"") }.map { String($0.dropFirst().prefix { $0 != "\"" }) } ?? ""
            if result, !number.isEmpty { layer.add(HFPFields.number, .text(number)) }
            return commandNames[name]
        case "+CME ERROR":
            guard let code = numbers.first ?? nil else { return nil }
            layer.add(HFPFields.cmeError, .count(Int(min(code, 0xFFFF))))
            let meaning = cmeErrors[code] ?? "Unknown error"
            layer.addIssue(.warning, "+CME ERROR: \(code) (\(meaning))")
            return meaning
        case "+CMER":
            guard values.count >= 4 else { return commandNames[name] }
            return values[0] == "3" && values[3] == "1" ? "Indicator events on" : values[3] == "0" ? "Indicator events off" : commandNames[name]
        default:
            return commandNames[name]
        }
    }
}

/// The layers this decoder makes.
extension LayerKind {
    public static let hfp = LayerKind("HFP", protocol: "hfp")
    public static let hsp = LayerKind("HSP", protocol: "hfp")
}
