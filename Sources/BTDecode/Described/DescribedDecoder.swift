import BTCapture
import Foundation

/// Decodes bytes as a described protocol's message: each element read and added with its
/// bytes, as a built-in decoder reads its fields (`Layer.read`), checksums verified, and a
/// summary naming the message ("RevCar Drive - speed 40 - turn left").
enum DescribedDecoder {
    /// Nesting deeper than this (a message that selects itself, groups within groups) stops
    /// with an issue: a description must not make a decoder recurse without end.
    static let deepest = 32

    /// `c` (to its end) as `message`, in a layer of the protocol's own, appended to `packet`.
    static func decode(_ described: DescribedProtocol, _ message: DescribedMessage, _ c: inout ByteCursor, into packet: inout Packet,
                       pendingLine: inout [UInt8]) {
        var layer = packet.makeLayer(described.layerKind, over: c, showsDirection: true)
        let run = self.run(described, message, &c, into: &layer, pendingLine: &pendingLine, wantsSummary: layer.summary.isWritten)
        if run.wantsSummary {
            // Written straight into the layer's summary: one is made for every packet a table shows.
            layer.summary.set("\(described.heading(run.title))")
            run.writeSummary(to: &layer.summary)
        }
        packet.append(layer)
    }

    /// The message's fields on `layer` (an advertising layer holds those of manufacturer data),
    /// and the summary's words after the protocol's name ("Drive - speed 40 - turn left").
    @discardableResult
    static func decodeFields(_ described: DescribedProtocol, _ message: DescribedMessage, _ c: inout ByteCursor, into layer: inout Layer) -> String {
        var none: [UInt8] = []
        let run = self.run(described, message, &c, into: &layer, pendingLine: &none, wantsSummary: layer.summary.isWritten)
        guard run.wantsSummary else { return "" }
        var text = Array(run.title.utf8)
        run.writeSummary(to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// The message's fields on an ATT layer, for a protocol shown inline (`isInline`); the run,
    /// whose summary's parts alone ("72 bpm - Contact detected") the caller writes where it
    /// wants them, or nil when no text is wanted.
    static func decodeInline(_ described: DescribedProtocol, _ message: DescribedMessage, _ c: inout ByteCursor, into layer: inout Layer,
                             wantsText: Bool) -> Run? {
        var none: [UInt8] = []
        let run = self.run(described, message, &c, into: &layer, pendingLine: &none, wantsSummary: wantsText)
        return run.wantsSummary ? run : nil
    }

    private static func run(_ described: DescribedProtocol, _ message: DescribedMessage, _ c: inout ByteCursor, into layer: inout Layer,
                            pendingLine: inout [UInt8], wantsSummary: Bool) -> Run {
        var run = Run(described: described, slots: Slots(count: described.slotCount), wantsSummary: wantsSummary)
        swap(&run.pendingLine, &pendingLine)
        defer { swap(&run.pendingLine, &pendingLine) }
        run.decode(message, &c, &layer, depth: 0)
        if !c.isAtEnd { run.leftOver(&c, &layer) }
        return run
    }

    /// The values later elements refer to (counts, conditions, switches), by slot: in place for
    /// the few most descriptions have (Heart Rate's flags), an array past that. A decode of
    /// every notification allocated one before.
    struct Slots {
        static let inlineCount = 8
        private var inline: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        private var spilled: [UInt64]

        init(count: Int) {
            spilled = count > Self.inlineCount ? [UInt64](repeating: 0, count: count) : []
        }

        subscript(slot: Int) -> UInt64 {
            get {
                guard spilled.isEmpty else { return spilled[slot] }
                precondition(slot >= 0 && slot < Self.inlineCount, "slot \(slot) out of range")
                return withUnsafeBytes(of: inline) { $0.load(fromByteOffset: slot * 8, as: UInt64.self) }
            }
            set {
                guard spilled.isEmpty else { spilled[slot] = newValue; return }
                precondition(slot >= 0 && slot < Self.inlineCount, "slot \(slot) out of range")
                withUnsafeMutableBytes(of: &inline) { $0.storeBytes(of: newValue, toByteOffset: slot * 8, as: UInt64.self) }
            }
        }
    }

    /// A value a summary lists, kept as read: its text is written only into the summary.
    enum SummaryValue {
        /// A name, a date and time, a string already quoted.
        case text(String)
        /// An integer, written as its field writes it.
        case value(FieldValue)
        case real(Double, decimals: Int?)
        case bytes(ArraySlice<UInt8>)
    }

    /// One value of a field the summary lists, with the field's unit.
    struct NotedValue {
        let field: FieldDefinition
        let value: SummaryValue
        let unit: String?
    }

    struct Run {
        let described: DescribedProtocol
        var slots: Slots
        let wantsSummary: Bool
        /// The innermost message chosen so far: what the summary calls the layer.
        var title = ""
        var summaryFields: [FieldDefinition] = []
        var summaryItems: [DescribedSummaryItem] = []
        /// The values the summary lists, in the order read (of a repeated one, the first nine).
        var summary: [NotedValue] = []
        /// A value ran past the end: what is left is data, already reported.
        var ranOut = false
        /// The text stream's unfinished line (`DescribedText`).
        var pendingLine: [UInt8] = []

        mutating func takePending() -> [UInt8] {
            defer { pendingLine = [] }
            return pendingLine
        }

        mutating func putPending(_ line: [UInt8]) { pendingLine = line }
        var dataField: FieldDefinition { described.fields[0] }

        init(described: DescribedProtocol, slots: Slots, wantsSummary: Bool) {
            self.described = described
            self.slots = slots
            self.wantsSummary = wantsSummary
        }

        mutating func decode(_ message: DescribedMessage, _ c: inout ByteCursor, _ layer: inout Layer, depth: Int) {
            title = message.title
            summaryFields = message.summaryFields
            summaryItems = message.summaryItems
            summary.removeAll()
            guard depth < DescribedDecoder.deepest else {
                layer.addIssue(.error, "\(described.name): messages nested deeper than \(DescribedDecoder.deepest)")
                return
            }
            guard let checksum = message.checksum else {
                decodeElements(message.elements, &c, &layer, depth: depth)
                return
            }
            // The checksum's bytes are the message's last: the layout reads up to them.
            var body = c
            guard var stored = try? body.trailer(checksum.algorithm.size) else {
                layer.addIssue(.error, "\(described.heading(message.title)): \(c.remaining) byte\(c.remaining == 1 ? "" : "s"), too short for its \(checksum.algorithm.name) checksum")
                _ = c.rest()
                return
            }
            let covered = c.bytes[min(c.index + checksum.skip, stored.index) ..< stored.index]
            decodeElements(message.elements, &body, &layer, depth: depth)
            if !body.isAtEnd { leftOver(&body, &layer) }
            verify(checksum, over: covered, stored: &stored, &layer, message)
            _ = c.rest()
        }

        /// Bytes after the layout, as the protocol's data field, with a warning.
        mutating func leftOver(_ c: inout ByteCursor, _ layer: inout Layer) {
            let count = c.remaining
            _ = try? layer.read(dataField, &c, bytes: count)
            if !ranOut { layer.addIssue(.warning, "\(described.heading(title)): \(count) byte\(count == 1 ? "" : "s") after the described layout") }
        }

        mutating func decodeElements(_ elements: [DescribedElement], _ c: inout ByteCursor, _ layer: inout Layer, depth: Int) {
            for element in elements {
                guard decode(element, &c, &layer, depth: depth) else { return }
            }
        }

        /// False when the layout cannot go on (truncated, or a message took the rest).
        mutating func decode(_ element: DescribedElement, _ c: inout ByteCursor, _ layer: inout Layer, depth: Int) -> Bool {
            switch element {
            case .value(let value):
                guard let count = value.count else { return read(value, &c, &layer) }
                return repeatElements(count, &c) { run, c in run.read(value, &c, &layer) }
            case .optional(let condition, let elements):
                guard condition.holds(slots[condition.slot]) else { return true }
                guard depth + 1 < DescribedDecoder.deepest else {
                    layer.addIssue(.error, "\(described.name): layout nested deeper than \(DescribedDecoder.deepest)")
                    return false
                }
                for element in elements where !decode(element, &c, &layer, depth: depth + 1) { return false }
                return true
            case .repeated(let count, let elements):
                guard depth + 1 < DescribedDecoder.deepest else {
                    layer.addIssue(.error, "\(described.name): layout nested deeper than \(DescribedDecoder.deepest)")
                    return false
                }
                return repeatElements(count, &c) { run, c in
                    for element in elements where !run.decode(element, &c, &layer, depth: depth + 1) { return false }
                    return true
                }
            case .select(let slot, let cases, let otherwise):
                let type = slots[slot]
                guard let message = cases[type] ?? otherwise else {
                    if !c.isAtEnd {
                        layer.addIssue(.note, "\(described.heading(title)): message type \(type) (\(Hex.format(type, width: 2))) has no layout")
                        _ = try? layer.read(dataField, &c, bytes: c.remaining)
                    }
                    return false
                }
                decode(message, &c, &layer, depth: depth + 1)
                return false
            case .tlv(let tlv):
                readTLV(tlv, &c, &layer, depth: depth)
                return true
            case .text(let text):
                readText(text, &c, &layer)
                return false
            }
        }

        /// Runs `body` as many times as `count` says, or to the end; stops when a round reads
        /// nothing (a zero-length value cannot repeat a billion times) or fails.
        mutating func repeatElements(_ count: DescribedCount, _ c: inout ByteCursor, _ body: (inout Run, inout ByteCursor) -> Bool) -> Bool {
            var left: UInt64
            switch count {
            case .fixed(let n): left = UInt64(n)
            case .slot(let slot): left = slots[slot]
            case .rest: left = .max
            }
            while left > 0 {
                if count == .rest && c.isAtEnd { break }
                let before = c.index
                guard body(&self, &c) else { return false }
                if c.index == before { break }
                left -= 1
            }
            return true
        }

        mutating func truncated(_ needed: Int, _ c: ByteCursor, _ field: FieldDefinition, _ layer: inout Layer) -> Bool {
            layer.addIssue(.error, "\(described.heading(title)): \(field.label) needs \(needed) byte\(needed == 1 ? "" : "s"), \(c.remaining) left")
            ranOut = true
            return false
        }

        /// One value: read, added with its bytes, kept in its slot.
        mutating func read(_ value: DescribedValue, _ c: inout ByteCursor, _ layer: inout Layer) -> Bool {
            let start = c.index
            switch value.scalar {
            case .unsigned(let size, let order), .signed(let size, let order):
                guard c.remaining >= size else { return truncated(size, c, value.field, &layer) }
                let raw = DescribedDecoder.integer(&c, size, order)
                let range = layer.range(at: start, count: size)
                if let slot = value.slot { slots[slot] = raw }
                addInteger(value, raw, at: range, &layer)
                for bits in value.bits {
                    let shift = UInt64(bits.mask.trailingZeroBitCount)
                    let part = (raw & bits.mask) >> shift
                    if let slot = bits.slot { slots[slot] = part }
                    // A flag without names is a boolean; anything else a number (its field's type says which).
                    let single = bits.mask.nonzeroBitCount == 1 && bits.names.isEmpty
                    let fieldValue: FieldValue = single ? .bool(part != 0) : .unsigned(part, width: 0)
                    let name = bits.names[part]
                    if name != nil || !single {
                        layer.add(bits.field, fieldValue, named: name, at: range)
                    } else {
                        layer.add(bits.field, fieldValue, part != 0 ? "Yes" : "No", at: range)
                    }
                    noteForSummary(bits.field, name.map { .text($0) } ?? (single ? .text(part != 0 ? "yes" : "no") : .value(.unsigned(part, width: 0))))
                }
            case .float(let size, let order):
                guard c.remaining >= size else { return truncated(size, c, value.field, &layer) }
                let raw = DescribedDecoder.integer(&c, size, order)
                let number = size == 4 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: raw))) : Double(bitPattern: raw)
                addReal(value, scaled(value, number), special: nil, at: layer.range(at: start, count: size), &layer)
            case .sfloat(let order):
                guard c.remaining >= 2 else { return truncated(2, c, value.field, &layer) }
                let (number, special) = DescribedDecoder.sfloat(UInt16(DescribedDecoder.integer(&c, 2, order)))
                addReal(value, scaled(value, number), special: special, at: layer.range(at: start, count: 2), &layer)
            case .medfloat(let order):
                guard c.remaining >= 4 else { return truncated(4, c, value.field, &layer) }
                let (number, special) = DescribedDecoder.medfloat(UInt32(DescribedDecoder.integer(&c, 4, order)))
                addReal(value, scaled(value, number), special: special, at: layer.range(at: start, count: 4), &layer)
            case .dateTime:
                guard c.remaining >= 7, let bytes = try? c.slice(7) else { return truncated(7, c, value.field, &layer) }
                let text = GATTValues.dateTime(bytes)
                layer.add(value.field, .text(text), at: layer.range(at: start, count: 7))
                noteForSummary(value.field, .text(text))
            case .bytes(let length), .string(let length):
                let isString: Bool
                if case .string = value.scalar { isString = true } else { isString = false }
                var count: Int
                var terminator = 0
                switch length {
                case .fixed(let n): count = n
                case .slot(let slot): count = slots[slot] > UInt64(Int.max) ? Int.max : Int(slots[slot])
                case .rest: count = c.remaining
                case .nulTerminated:
                    let rest = c.bytes[c.index...]
                    if let nul = rest.firstIndex(of: 0) { count = nul - c.index; terminator = 1 } else { count = rest.count }
                }
                guard c.remaining >= count else { return truncated(count, c, value.field, &layer) }
                let bytes = c.bytes[c.index ..< c.index + count]
                _ = try? c.skip(count + terminator)
                let range = layer.range(at: start, count: count + terminator)
                if isString {
                    let text = String(decoding: bytes, as: UTF8.self)
                    layer.add(value.field, .text(text), at: range)
                    noteForSummary(value.field, .text("\"\(text)\""))
                } else {
                    layer.add(value.field, .bytes(bytes), at: range)
                    noteForSummary(value.field, .bytes(bytes))
                }
            }
            return true
        }

        mutating func addInteger(_ value: DescribedValue, _ raw: UInt64, at range: Range<Int>, _ layer: inout Layer) {
            let size: Int
            let isSigned: Bool
            switch value.scalar {
            case .unsigned(let n, _): size = n; isSigned = false
            case .signed(let n, _): size = n; isSigned = true
            default: return
            }
            let signed = DescribedDecoder.signExtend(raw, bytes: size)
            if value.scale != nil || value.offset != nil {
                addReal(value, scaled(value, isSigned ? Double(signed) : Double(raw)), special: nil, at: range, &layer)
                return
            }
            let fieldValue: FieldValue = isSigned ? .signed(signed) : .unsigned(raw, width: value.hex ? size * 2 : 0)
            if let name = value.names[raw] {
                layer.add(value.field, fieldValue, named: name, at: range)
                noteForSummary(value.field, .text(name))
            } else if let unit = value.unit {
                layer.add(value.field, fieldValue, "\(fieldValue.text) \(unit)", at: range)
                noteForSummary(value.field, unit: unit, .value(fieldValue))
            } else {
                layer.add(value.field, fieldValue, at: range)
                noteForSummary(value.field, .value(fieldValue))
            }
        }

        func scaled(_ value: DescribedValue, _ number: Double) -> Double {
            guard number.isFinite else { return number }
            var result = number
            if let scale = value.scale {
                // 0.01 is not exact in binary: dividing by 100 gives 36.6 where multiplying gives 36.600000000000001.
                let inverse = (1 / scale).rounded()
                result = abs(1 / scale - inverse) < 1e-9 && inverse != 0 ? number / inverse : number * scale
            }
            if let offset = value.offset { result += offset }
            return result
        }

        mutating func addReal(_ value: DescribedValue, _ number: Double, special: String?, at range: Range<Int>, _ layer: inout Layer) {
            // The text only when the tree or the summary asks for it (a table row of a filter's
            // view wants neither).
            let decimals = value.decimals
            let unit = special == nil ? value.unit : nil
            layer.add(value.field, .real(number), { () -> String in
                let text = special ?? DescribedDecoder.realText(number, decimals: decimals)
                return unit.map { "\(text) \($0)" } ?? text
            }(), at: range)
            noteForSummary(value.field, unit: unit, special.map { .text($0) } ?? .real(number, decimals: decimals))
        }

        /// A value the summary lists (its text without the unit); of a repeated one, the first nine.
        mutating func noteForSummary(_ field: FieldDefinition, unit: String? = nil, _ value: @autoclosure () -> SummaryValue) {
            guard wantsSummary, summaryFields.contains(field) else { return }
            var seen = 0
            for index in summary.indices where summary[index].field == field { seen += 1 }
            guard seen < 9 else { return }
            if summary.capacity == 0 { summary.reserveCapacity(8) }
            summary.append(NotedValue(field: field, value: value(), unit: unit))
        }

        /// The summary's items that have their values (and whose condition holds), each after
        /// " - " (the first after nothing when nothing was written after `start`).
        func writeSummary<Output: RetractableOutput>(to out: inout Output, after start: Int = 0) {
            items: for item in summaryItems {
                if let condition = item.condition, !condition.holds(slots[condition.slot]) { continue }
                for part in item.parts {
                    switch part {
                    case .text: continue
                    case .value(let field), .labelled(let field):
                        if !summary.indices.contains(where: { summary[$0].field == field }) { continue items }
                    }
                }
                let before = out.written
                if before > start { out.put(literal: " - ") }
                let itemStart = out.written
                for part in item.parts {
                    switch part {
                    case .text(let words):
                        ASCII.append(words, to: &out)
                    case .value(let field):
                        var index = 0
                        for at in summary.indices where summary[at].field == field {
                            if index == 8 { out.put(literal: ", ..."); break }
                            if index > 0 { out.put(literal: ", ") }
                            write(summary[at].value, to: &out)
                            index += 1
                        }
                    case .labelled(let field):
                        DescribedDecoder.writeLowercased(field.label, to: &out)
                        var index = 0, first = -1
                        for at in summary.indices where summary[at].field == field {
                            if index == 8 { out.put(literal: " ..."); break }
                            out.put(UInt8(ascii: " "))
                            write(summary[at].value, to: &out)
                            if index == 0 { first = at }
                            index += 1
                        }
                        if first >= 0, let unit = summary[first].unit {
                            out.put(UInt8(ascii: " "))
                            ASCII.append(unit, to: &out)
                        }
                    }
                }
                // An item that came out empty takes its separator back.
                if out.written == itemStart { out.retract(to: before) }
            }
        }

        func write<Output: ASCIIOutput>(_ value: SummaryValue, to out: inout Output) {
            switch value {
            case .text(let text): ASCII.append(text, to: &out)
            case .value(let value): value.writeText(to: &out)
            case .real(let number, let decimals): DescribedDecoder.writeReal(number, decimals: decimals, to: &out)
            case .bytes(let bytes): Hex.append(bytes: bytes, to: &out)
            }
        }

        mutating func verify(_ checksum: DescribedChecksum, over covered: ArraySlice<UInt8>, stored: inout ByteCursor, _ layer: inout Layer,
                             _ message: DescribedMessage) {
            let start = stored.index
            let size = checksum.algorithm.size
            let value = DescribedDecoder.integer(&stored, size, checksum.order)
            let expected = checksum.algorithm.compute(covered)
            let range = layer.range(at: start, count: size)
            if value == expected {
                layer.add(checksum.field, .unsigned(value, width: size * 2), "\(Hex.format(value, width: size * 2)) (correct)", at: range)
            } else {
                layer.add(checksum.field, .unsigned(value, width: size * 2), "\(Hex.format(value, width: size * 2)) (incorrect: \(checksum.algorithm.name) gives \(Hex.format(expected, width: size * 2)))", at: range)
                layer.addIssue(.error, "\(described.heading(message.title)): \(checksum.field.label) \(Hex.format(value, width: size * 2)) is wrong: \(checksum.algorithm.name) of the message gives \(Hex.format(expected, width: size * 2))")
            }
        }

        mutating func readTLV(_ tlv: DescribedTLV, _ c: inout ByteCursor, _ layer: inout Layer, depth: Int) {
            while !c.isAtEnd {
                let header = tlv.typeBytes + tlv.lengthBytes
                guard c.remaining >= header else {
                    _ = truncated(header, c, tlv.typeField, &layer)
                    return
                }
                let typeStart = c.index
                let type = DescribedDecoder.integer(&c, tlv.typeBytes, tlv.order)
                layer.add(tlv.typeField, .unsigned(type, width: tlv.typeBytes * 2), named: tlv.names[type] ?? tlv.cases[type]?.title,
                          at: layer.range(at: typeStart, count: tlv.typeBytes))
                let lengthStart = c.index
                var length = DescribedDecoder.integer(&c, tlv.lengthBytes, tlv.order)
                layer.add(tlv.lengthField, .unsigned(length, width: 0), at: layer.range(at: lengthStart, count: tlv.lengthBytes))
                if tlv.lengthIncludesHeader {
                    guard length >= UInt64(header) else {
                        layer.addIssue(.error, "\(described.heading(title)): item length \(length) is shorter than its \(header)-byte header")
                        return
                    }
                    length -= UInt64(header)
                }
                guard length <= UInt64(c.remaining), var item = try? c.cursor(Int(length)) else {
                    _ = truncated(length > UInt64(Int.max) ? Int.max : Int(length), c, tlv.valueField, &layer)
                    return
                }
                if let message = tlv.cases[type] {
                    let outer = (title, summaryFields, summaryItems, summary)
                    decode(message, &item, &layer, depth: depth + 1)
                    if !item.isAtEnd { leftOver(&item, &layer) }
                    (title, summaryFields, summaryItems, summary) = outer
                } else if !item.isAtEnd {
                    _ = try? layer.read(tlv.valueField, &item, bytes: item.remaining)
                }
            }
        }
    }

    /// A real value's text: with `decimals` digits after the point (rounded to nearest, ties to
    /// even), or as many as it takes.
    /// (Digits by integer arithmetic: Foundation's String(format:) cost more than the rest of
    /// a Heart Rate Measurement's decoding.)
    static func realText(_ number: Double, decimals: Int?) -> String {
        var text: [UInt8] = []
        writeReal(number, decimals: decimals, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    static func writeReal<Output: ASCIIOutput>(_ number: Double, decimals: Int?, to out: inout Output) {
        guard let decimals, decimals >= 0, decimals <= 9, number.isFinite else { return ASCII.append(FieldValue.realText(number), to: &out) }
        var scale: UInt64 = 1
        for _ in 0 ..< decimals { scale *= 10 }
        let scaled = (abs(number) * Double(scale)).rounded(.toNearestOrEven)
        guard scaled < 9.0e18 else { return ASCII.append(FieldValue.realText(number), to: &out) }
        let magnitude = UInt64(scaled)
        if number < 0 && magnitude != 0 { out.put(UInt8(ascii: "-")) }
        ASCII.appendDecimal(magnitude / scale, to: &out)
        if decimals > 0 {
            out.put(UInt8(ascii: "."))
            ASCII.appendDecimal(magnitude % scale, width: decimals, to: &out)
        }
    }

    /// A label in lower case, as a summary lists it ("speed 40"): ASCII byte by byte, anything
    /// else through String's own rules.
    static func writeLowercased<Output: ASCIIOutput>(_ label: String, to out: inout Output) {
        guard label.utf8.allSatisfy({ $0 < 0x80 }) else { return ASCII.append(label.lowercased(), to: &out) }
        for byte in label.utf8 { out.put(byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte) }
    }

    /// `size` bytes (1-8) as an unsigned integer in `order`. The caller checked they are there.
    static func integer(_ c: inout ByteCursor, _ size: Int, _ order: ByteOrder) -> UInt64 {
        guard let bytes = try? c.slice(size) else { return 0 }
        var value: UInt64 = 0
        if order == .littleEndian {
            for byte in bytes.reversed() { value = value << 8 | UInt64(byte) }
        } else {
            for byte in bytes { value = value << 8 | UInt64(byte) }
        }
        return value
    }

    static func signExtend(_ raw: UInt64, bytes: Int) -> Int64 {
        guard bytes < 8 else { return Int64(bitPattern: raw) }
        let shift = UInt64(64 - bytes * 8)
        return Int64(bitPattern: raw << shift) >> Int64(shift)
    }

    /// IEEE-11073 20601 SFLOAT: a 4-bit exponent and a 12-bit mantissa, both signed, and the
    /// special values NaN, NRes (not at this resolution), ±INFINITY and a reserved one.
    static func sfloat(_ raw: UInt16) -> (Double, String?) {
        switch raw {
        case 0x07FF: return (.nan, "NaN")
        case 0x0800: return (.nan, "NRes")
        case 0x07FE: return (.infinity, "+INFINITY")
        case 0x0802: return (-.infinity, "-INFINITY")
        case 0x0801: return (.nan, "Reserved")
        default:
            // 12 bits and 4 bits, each two's complement.
            let mantissa = Int64(Int16(bitPattern: (raw & 0x0FFF) << 4) >> 4)
            let exponent = Int(Int8(bitPattern: UInt8(raw >> 12) << 4) >> 4)
            return (power(mantissa, exponent), nil)
        }
    }

    /// IEEE-11073 20601 FLOAT: an 8-bit exponent and a 24-bit mantissa, both signed.
    static func medfloat(_ raw: UInt32) -> (Double, String?) {
        switch raw {
        case 0x007F_FFFF: return (.nan, "NaN")
        case 0x0080_0000: return (.nan, "NRes")
        case 0x007F_FFFE: return (.infinity, "+INFINITY")
        case 0x0080_0002: return (-.infinity, "-INFINITY")
        case 0x0080_0001: return (.nan, "Reserved")
        default:
            let mantissa = signExtend(UInt64(raw & 0x00FF_FFFF), bytes: 3)
            let exponent = Int(Int8(bitPattern: UInt8(raw >> 24)))
            return (power(mantissa, exponent), nil)
        }
    }

    /// mantissa × 10^exponent, dividing for a negative exponent so that 366 × 10^-1 is 36.6.
    static func power(_ mantissa: Int64, _ exponent: Int) -> Double {
        exponent < 0 ? Double(mantissa) / pow(10, Double(-exponent)) : Double(mantissa) * pow(10, Double(exponent))
    }
}
