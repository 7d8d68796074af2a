/// A HID report descriptor (HID 1.11, 6.2.2) read into the reports it declares: for each
/// report type and ID, the application collection it belongs to and its fields in order, so
/// a report's bytes can be read as keys, buttons and axes. The HID profile's SDP record
/// carries the descriptor (HIDDescriptorList, attribute 0x0206).
struct HIDReportDescriptor: Equatable {
    enum Kind: UInt8 { case input = 1, output = 2, feature = 3 }

    struct Field: Equatable {
        var page: UInt16
        /// Usages listed one by one (with their page in the high 16 bits when given).
        var usages: [UInt32]
        var usageMinimum: UInt32?
        var usageMaximum: UInt32?
        var size: Int
        var count: Int
        var flags: UInt32
        var logicalMinimum: Int64

        var isConstant: Bool { flags & 0x01 != 0 }
        var isVariable: Bool { flags & 0x02 != 0 }
        var isRelative: Bool { flags & 0x04 != 0 }

        /// The usage (page << 16 | id) of value `index` of a variable field, or of array value `value`.
        func usage(at index: Int) -> UInt32? {
            // An array value below the logical minimum selects nothing.
            guard index >= 0 else { return nil }
            if let minimum = usageMinimum {
                let usage = UInt64(minimum) + UInt64(index)
                guard usage <= UInt64(usageMaximum ?? UInt32.max) else { return nil }
                return qualified(UInt32(truncatingIfNeeded: usage))
            }
            guard !usages.isEmpty else { return nil }
            return qualified(usages[min(index, usages.count - 1)])
        }

        private func qualified(_ usage: UInt32) -> UInt32 { usage > 0xFFFF ? usage : UInt32(page) << 16 | usage }
    }

    struct Report: Equatable {
        /// The application collection's usage (page << 16 | id): Keyboard, Mouse, Consumer Control.
        var application: UInt32?
        var fields: [Field] = []
        var bits: Int { fields.reduce(0) { $0 + $1.size * $1.count } }
    }

    struct Key: Hashable {
        var kind: Kind
        var id: UInt8
    }

    private(set) var reports: [Key: Report] = [:]
    /// Whether reports start with a Report ID byte (the descriptor declares one).
    private(set) var usesReportIDs = false

    /// A descriptor is a few hundred bytes; these bound what a hostile one can make us keep.
    static let maximumFields = 512
    static let maximumReportBits = 8 * 4096

    enum ParseError: Error, Equatable {
        case truncatedItem(offset: Int)
        case tooManyFields
        case reportTooLong
    }

    init(_ bytes: ArraySlice<UInt8>) throws {
        struct Globals {
            var page: UInt16 = 0
            var logicalMinimum: Int64 = 0
            var size = 0
            var count = 0
            var reportID: UInt8 = 0
        }
        var globals = Globals()
        var stack: [Globals] = []
        var usages: [UInt32] = []
        var usageMinimum: UInt32?, usageMaximum: UInt32?
        var collections: [UInt32?] = []
        var application: UInt32?
        var fieldCount = 0
        var index = bytes.startIndex

        while index < bytes.endIndex {
            let prefix = bytes[index]
            if prefix == 0xFE { // long item: size, tag, data
                guard index + 2 < bytes.endIndex else { throw ParseError.truncatedItem(offset: index - bytes.startIndex) }
                index += 3 + Int(bytes[index + 1])
                continue
            }
            let size = [0, 1, 2, 4][Int(prefix & 0x03)], type = prefix >> 2 & 0x03, tag = prefix >> 4
            guard index + size < bytes.endIndex else { throw ParseError.truncatedItem(offset: index - bytes.startIndex) }
            var unsigned: UInt32 = 0
            for byte in 0 ..< size { unsigned |= UInt32(bytes[index + 1 + byte]) << (8 * byte) }
            let signed: Int64 = size == 0 ? 0 : Int64(unsigned) - (unsigned >> (size * 8 - 1) & 1 == 1 ? Int64(1) << (size * 8) : 0)
            index += 1 + size

            switch (type, tag) {
            case (0, 0x8), (0, 0x9), (0, 0xB): // Input, Output, Feature
                let kind: Kind = tag == 0x8 ? .input : tag == 0x9 ? .output : .feature
                fieldCount += 1
                guard fieldCount <= Self.maximumFields else { throw ParseError.tooManyFields }
                let key = Key(kind: kind, id: globals.reportID)
                var report = reports[key] ?? Report(application: application)
                report.fields.append(Field(page: globals.page, usages: usages, usageMinimum: usageMinimum, usageMaximum: usageMaximum,
                                           size: globals.size, count: globals.count, flags: unsigned, logicalMinimum: globals.logicalMinimum))
                guard report.bits <= Self.maximumReportBits else { throw ParseError.reportTooLong }
                reports[key] = report
            case (0, 0xA): // Collection: an application collection (0x01) names the reports inside it
                let usage = usages.first.map { $0 > 0xFFFF ? $0 : UInt32(globals.page) << 16 | $0 }
                if unsigned == 0x01, collections.isEmpty || application == nil { application = usage }
                collections.append(usage)
            case (0, 0xC):
                _ = collections.popLast()
                if collections.isEmpty { application = nil }
            case (1, 0x0): globals.page = UInt16(truncatingIfNeeded: unsigned)
            case (1, 0x1): globals.logicalMinimum = signed
            case (1, 0x7): globals.size = Int(min(unsigned, 32))
            case (1, 0x8):
                globals.reportID = UInt8(truncatingIfNeeded: unsigned)
                usesReportIDs = true
            case (1, 0x9): globals.count = Int(min(unsigned, 4096))
            case (1, 0xA): if stack.count < 16 { stack.append(globals) }
            case (1, 0xB): if let top = stack.popLast() { globals = top }
            case (2, 0x0): if usages.count < 256 { usages.append(unsigned) }
            case (2, 0x1): usageMinimum = unsigned
            case (2, 0x2): usageMaximum = unsigned
            default: break
            }
            if type == 0 { // local items last until the next main item
                usages.removeAll()
                usageMinimum = nil
                usageMaximum = nil
            }
        }
    }

    func report(_ kind: Kind, id: UInt8) -> Report? { reports[Key(kind: kind, id: id)] }

    /// "Keyboard (report 1), Consumer Control (report 2)": the input reports and what they are.
    var inputSummary: String {
        reports.filter { $0.key.kind == .input }.sorted { $0.key.id < $1.key.id }.map { key, report in
            let name = report.application.map(HIDUsages.name) ?? "Input"
            return usesReportIDs ? "\(name) (report \(key.id))" : name
        }.joined(separator: ", ")
    }
}

/// Reads a report's bytes field by field, least significant bit first (HID 1.11, 8.4).
struct HIDReportReader {
    let bytes: ArraySlice<UInt8>
    var bit = 0

    mutating func read(_ size: Int, signed: Bool) -> Int64? {
        guard size > 0, size <= 32, bit + size <= bytes.count * 8 else { return nil }
        var value: UInt64 = 0
        for i in 0 ..< size {
            let position = bit + i
            if bytes[bytes.startIndex + position / 8] >> (position % 8) & 1 == 1 { value |= 1 << UInt64(i) }
        }
        bit += size
        if signed, value >> UInt64(size - 1) & 1 == 1 { return Int64(value) - Int64(1) << Int64(size) }
        return Int64(value)
    }
}

/// A report descriptor and a report read together, outside a capture: what the fuzzer drives
/// (a descriptor comes from a peer's SDP record, so it is as untrusted as the reports).
public enum HIDReportInput {
    /// The usages `report` has active for each report type, or nil when the descriptor is refused.
    public static func read(descriptor: ArraySlice<UInt8>, report: ArraySlice<UInt8>) -> [String]? {
        guard let parsed = try? HIDReportDescriptor(descriptor) else { return nil }
        _ = parsed.inputSummary
        let id = parsed.usesReportIDs ? report.first ?? 0 : 0
        let body = parsed.usesReportIDs ? report.dropFirst() : report
        var layer = Layer(kind: .hid, range: 0 ..< report.count, source: .frame, showsDirection: false, keepsDisplays: true)
        var active: [String] = []
        for kind in [HIDReportDescriptor.Kind.input, .output, .feature] {
            guard let layout = parsed.report(kind, id: id) else { continue }
            active += HIDDecoder.fields(layout, body, &layer)
        }
        return active
    }

    /// [descriptor length, 2 bytes little-endian][descriptor][report]
    public static func run(_ input: [UInt8]) {
        guard input.count >= 2 else { return }
        let length = min(Int(input[0]) | Int(input[1]) << 8, input.count - 2)
        _ = read(descriptor: input[2 ..< 2 + length], report: input[(2 + length)...])
    }

    public static func encode(descriptor: [UInt8], report: [UInt8]) -> [UInt8] {
        [UInt8(descriptor.count & 0xFF), UInt8(descriptor.count >> 8)] + descriptor + report
    }
}
