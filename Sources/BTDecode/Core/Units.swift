/// Bluetooth's time units (0.625 ms slots, 1.25 ms connection events, 10 ms timeouts) as a
/// person reads them: "7.5 ms", "4000 ms". The one formatter every decoder uses.
enum Units {
    static func milliseconds<T: BinaryInteger>(_ count: T, _ unit: Double) -> String {
        let ms = Double(count) * unit
        return ms == ms.rounded() && abs(ms) < 1e15 ? "\(Int64(ms)) ms" : "\(ms) ms"
    }
}
