import BTDecode

/// The descriptions btlog ships: the SIG's characteristics whose values are measurements,
/// written in the same language as a user's file (`btlog protocols show hrs` prints one to
/// copy), so that their values are fields (`hrs.heart_rate`, `bas.level`) a filter, an
/// export or `btlog plot` takes. Layouts from the GATT Specification Supplement; each shown
/// inline, after the characteristic's name in the ATT summary, as btlog's text always read.
public enum ShippedProtocols {
    /// Each description's file name (what `btlog protocols` shows as its source) and text.
    public static let texts: [(name: String, text: String)] = [
        ("heart-rate.yaml", heartRate),
        ("battery.yaml", battery),
        ("health-thermometer.yaml", healthThermometer),
        ("blood-pressure.yaml", bloodPressure),
        ("glucose.yaml", glucose),
        ("cycling-speed-and-cadence.yaml", cyclingSpeedAndCadence),
        ("running-speed-and-cadence.yaml", runningSpeedAndCadence),
        ("weight-scale.yaml", weightScale),
        ("environmental-sensing.yaml", environmentalSensing),
    ]

    /// Where `btlog protocols` says a shipped description comes from.
    public static let sourcePrefix = "(built in) "

    /// Every shipped description, compiled. They are tested to compile; one that did not would
    /// be a build defect, and is left out rather than stopping every run.
    public static func compiled() -> [DescribedProtocol] {
        texts.compactMap { try? ProtocolDescriptionReader.parse($0.text, source: sourcePrefix + $0.name, shipped: true) }
    }
}
