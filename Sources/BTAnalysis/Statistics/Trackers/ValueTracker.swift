import BTCapture
import BTDecode
import BTQuery

/// The amounts described protocols decode (a heart rate, a battery level, an OBD reply's
/// value): for each field, how many values, their range and mean, and where the first and
/// last were. Fields that are codes or flags are not amounts (`FieldRegistry.quantities`).
struct ValueTracker {
    /// By field id: the position in `values`, or -1 for a field that is not an amount.
    private var positions: [Int] = []
    private var values: [ValueSummary] = []
    private let quantities: [FieldDefinition]

    init(quantities: [FieldDefinition] = FieldRegistry.quantities) {
        self.quantities = quantities
        for field in quantities {
            if field.id >= positions.count { positions += Array(repeating: -1, count: field.id + 1 - positions.count) }
        }
    }

    mutating func see(_ packet: Packet) {
        guard !quantities.isEmpty else { return }
        for layer in packet.layers.indices {
            packet.layers[layer].fields.withUnsafeBufferPointer { fields in
                for entry in fields where entry.definition.isDescribed {
                    let id = entry.definition.id
                    guard id < positions.count, positions[id] != -2, let number = FieldSeries.number(entry.inlineValue ?? packet.layers[layer].value(of: entry)) else { continue }
                    add(entry.definition, number, packet.frame)
                }
            }
        }
    }

    private mutating func add(_ field: FieldDefinition, _ number: Double, _ frame: Frame) {
        var position = positions[field.id]
        if position == -1 {
            guard quantities.contains(field) else {
                positions[field.id] = -2 // described, but a code or a flag
                return
            }
            position = values.count
            positions[field.id] = position
            values.append(ValueSummary(field: field.name, label: field.label, unit: FieldRegistry.unit(of: field), count: 0, minimum: number,
                                       maximum: number, sum: 0, firstFrame: frame.number, lastFrame: frame.number,
                                       first: frame.timestamp, last: frame.timestamp))
        }
        values[position].count += 1
        values[position].minimum = min(values[position].minimum, number)
        values[position].maximum = max(values[position].maximum, number)
        values[position].sum += number
        values[position].lastFrame = frame.number
        values[position].last = frame.timestamp
    }

    /// In the order the descriptions declare the fields.
    func finish() -> [ValueSummary] {
        values.sorted { a, b in
            (quantities.firstIndex { $0.name == a.field } ?? 0) < (quantities.firstIndex { $0.name == b.field } ?? 0)
        }
    }
}

/// One described field's values over the capture.
public struct ValueSummary: Equatable, Sendable {
    public var field: String
    public var label: String
    public var unit: String?
    public var count: Int
    public var minimum: Double
    public var maximum: Double
    public var sum: Double
    public var firstFrame: Int
    public var lastFrame: Int
    /// Microseconds since the epoch.
    public var first: Int64
    public var last: Int64

    public var mean: Double { count == 0 ? 0 : sum / Double(count) }
}
