import BTCapture
import BTDecode
import BTQuery

/// `btlog plot`'s data: each asked field's numeric values against capture time (a heart
/// rate's bpm, a battery's level, an OBD reply's value), and the moments links came up and
/// went down, which the plot marks and where it breaks its lines. A sink: it keeps numbers,
/// not packets.
public struct FieldSeries: PacketSink {
    public struct Point: Sendable, Equatable {
        /// Microseconds since the epoch.
        public var time: Int64
        public var value: Double
    }

    public struct LinkEvent: Sendable, Equatable {
        public var time: Int64
        public var connected: Bool
        public var handle: UInt16
    }

    public let fields: [FieldDefinition]
    /// One list per field, in packet order.
    public private(set) var points: [[Point]]
    public private(set) var links: [LinkEvent] = []
    /// The first packet's time: the plot's zero.
    public private(set) var origin: Int64?
    public private(set) var last: Int64?

    public init(fields: [FieldDefinition]) {
        self.fields = fields
        points = Array(repeating: [], count: fields.count)
    }

    /// The fields a decoder must keep for this sink: the plotted ones and the HCI fields that
    /// tell a link's start and end.
    public var fieldsRead: [FieldDefinition] { fields + [HCIFields.event, HCIFields.subevent, HCIFields.status, HCIFields.handle] }

    public mutating func consume(_ packet: Packet) throws {
        let time = packet.frame.timestamp
        if origin == nil { origin = time }
        last = time
        for (index, field) in fields.enumerated() {
            packet.forEachValue(of: field) { value in
                if let number = Self.number(value) { points[index].append(Point(time: time, value: number)) }
            }
        }
        recordLink(packet, time)
    }

    /// A field value as a number to plot: integers, measurements and flags; nil for the rest.
    static func number(_ value: FieldValue) -> Double? {
        switch value {
        case .unsigned(let v, _): return Double(v)
        case .signed(let v): return Double(v)
        case .real(let v): return v.isFinite ? v : nil
        case .bool(let v): return v ? 1 : 0
        default: return nil
        }
    }

    /// Connection Complete, LE (Enhanced) Connection Complete and Disconnection Complete,
    /// when they succeeded.
    mutating func recordLink(_ packet: Packet, _ time: Int64) {
        guard packet.frame.kind == .event, let layer = packet.layers.first, let event = layer.integer(HCIFields.event),
              layer.integer(HCIFields.status) ?? 0 == 0, let handle = layer.integer(HCIFields.handle) else { return }
        let le = [Int(LESubeventCode.connectionComplete), Int(LESubeventCode.enhancedConnectionComplete),
                  Int(LESubeventCode.enhancedConnectionCompleteV2)]
        if event == Int(HCIEventCode.connectionComplete) || (event == Int(HCIEventCode.leMeta) && le.contains(layer.integer(HCIFields.subevent) ?? -1)) {
            links.append(LinkEvent(time: time, connected: true, handle: UInt16(truncatingIfNeeded: handle)))
        } else if event == Int(HCIEventCode.disconnectionComplete) {
            links.append(LinkEvent(time: time, connected: false, handle: UInt16(truncatingIfNeeded: handle)))
        }
    }
}
