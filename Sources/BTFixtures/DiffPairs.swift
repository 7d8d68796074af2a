import BTCapture

/// `btlog diff`'s scenario pairs: runs of the same scenario that differ in one known way each,
/// written by `btlog-fixtures diff-pairs FOLDER` and read by the tests.
public enum DiffPairs {
    public static func heartRate(_ change: (inout Scenarios.HeartRateRun) -> Void) -> [Frame] {
        var run = Scenarios.HeartRateRun()
        change(&run)
        return Scenarios.heartRateSession(run)
    }

    /// File name → frames: the heart-rate session as the fixtures hold it and in five other
    /// runs, and an A2DP stream with SBC and with AAC.
    public static let all: [(name: String, frames: () -> [Frame])] = [
        ("heart-rate.btsnoop", { Scenarios.heartRateSession() }),
        // The same run a day later on another controller: timestamps shifted, connection handles renumbered.
        ("heart-rate-later.btsnoop", { heartRate { $0.timeShift = 86_400_000_000 + 123_456; $0.handleOffset = 0x0010 } }),
        ("heart-rate-new-addresses.btsnoop", { heartRate { $0.sensorAddress = "D1:22:33:44:55:66"; $0.beaconAddress = "5B:0C:1D:2E:3F:40" } }),
        ("heart-rate-mtu-100.btsnoop", { heartRate { $0.serverMTU = 100 } }),
        ("heart-rate-no-ppcp.btsnoop", { heartRate { $0.preferredParameters = false } }),
        ("heart-rate-pairing-fails.btsnoop", { heartRate { $0.pairingFails = true } }),
        ("a2dp-sbc.btsnoop", { Scenarios.a2dpStreamRun(codec: .sbc) }),
        ("a2dp-aac.btsnoop", { Scenarios.a2dpStreamRun(codec: .aac) }),
    ]
}
