import BTCapture

/// One HCI event or LE Meta subevent (Core Vol 4, Part E, 7.7), one row: its name, the layout
/// of its parameters (in HCIParam's notation), and a decoder where the event does more than its
/// layout says: changes the Session (links opened and closed, commands answered) or is read by
/// hand (advertising reports, which the tree groups differently from their layout).
/// A class: the decoder finds the row of every event by its code, and a reference is passed on
/// without copying the row's strings and closure. Rows are static and immutable.
final class HCIEvent: @unchecked Sendable {
    let code: UInt8
    let name: String
    /// The parameters' layout; nil when the row has none (a hand decoder reads them, or nothing).
    let parameters: String?
    let decode: HCIRowDecoder?

    init(_ code: UInt8, _ name: String, _ parameters: String? = nil, decode: HCIRowDecoder? = nil) {
        self.code = code
        self.name = name
        self.parameters = parameters
        self.decode = decode
    }
}

/// The events' and LE subevents' rows (HCIEventTable.swift) and what is read from them.
public enum HCIEvents {
    /// The rows by code: asked for every event, so found without hashing.
    static let eventsByCode = byCode(events)
    static let subeventsByCode = byCode(leSubevents)

    public static func name(_ code: UInt8) -> String? { eventsByCode[Int(code)]?.name }
    public static func subeventName(_ code: UInt8) -> String? { subeventsByCode[Int(code)]?.name }

    /// The layouts, parsed the first time a capture holds the event.
    static let eventLayouts = layouts(events)
    static let subeventLayouts = layouts(leSubevents)

    static var eventValueNames: [ValueName] { events.map { ValueName(UInt64($0.code), $0.name) } }
    static var subeventValueNames: [ValueName] { leSubevents.map { ValueName(UInt64($0.code), $0.name) } }

    private static func byCode(_ rows: [HCIEvent]) -> [HCIEvent?] {
        var table = [HCIEvent?](repeating: nil, count: 256)
        for row in rows {
            precondition(table[Int(row.code)] == nil, "HCI event \(Hex.u8(row.code)) listed twice")
            table[Int(row.code)] = row
        }
        return table
    }

    private static func layouts(_ rows: [HCIEvent]) -> ParsedLayouts<UInt8> {
        ParsedLayouts(Dictionary(uniqueKeysWithValues: rows.compactMap { row in row.parameters.map { (row.code, $0) } }))
    }
}
