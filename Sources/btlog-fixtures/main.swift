import BTCapture
import BTFixtures
import BTFuzz
import Foundation

// Writes every fixture under Fixtures/ (or the folder given as the first argument).
// Run: swift run btlog-fixtures [Fixtures]
//  or: btlog-fixtures bench FOLDER [--le N] [--audio N]   (the benchmark's large captures)
//  or: btlog-fixtures fuzz-seeds FOLDER [FIXTURES]        (seed corpora for Scripts/fuzz.sh)
//  or: btlog-fixtures diff-pairs FOLDER                   (btlog diff's scenario pairs)
if CommandLine.arguments.dropFirst().first == "bench" {
    try BenchmarkFiles.write(arguments: Array(CommandLine.arguments.dropFirst(2)))
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "fuzz-seeds", CommandLine.arguments.count >= 3 {
    let count = try FuzzSeeds.write(to: CommandLine.arguments[2],
                                    fixtures: CommandLine.arguments.count > 3 ? CommandLine.arguments[3] : nil)
    print("wrote \(count) seeds under \(CommandLine.arguments[2])")
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "diff-pairs", CommandLine.arguments.count >= 3 {
    let folder = URL(fileURLWithPath: CommandLine.arguments[2])
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    for pair in DiffPairs.all {
        try Data(try FixtureContainers.encode(pair.frames(), as: .btsnoopH4)).write(to: folder.appendingPathComponent(pair.name))
        print("wrote \(folder.path)/\(pair.name)")
    }
    exit(0)
}
let folder = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "Fixtures"
try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)

func save(_ name: String, _ bytes: [UInt8]) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: folder).appendingPathComponent(name))
    print("wrote \(folder)/\(name) (\(bytes.count) bytes)")
}

let dual = Scenarios.wwdcDual()
let hciOnly = dual.filter { $0.kind.isHCI }
let monitor = Scenarios.monitorSession()

try save("wwdc-dual.pklg", try FixtureContainers.encode(dual, as: .pklg))
try save("wwdc-dual-be.pklg", FixtureFiles.bigEndianPacketLogger(dual))
try save("wwdc-dual.btsnoop", try FixtureContainers.encode(hciOnly, as: .btsnoopH4))
try save("wwdc-dual-hci.btsnoop", try FixtureContainers.encode(hciOnly.filter { $0.kind != .scoData }, as: .btsnoopHCI))
try save("wwdc-dual-monitor.btsnoop", try FixtureContainers.encode(monitor, as: .btsnoopMonitor))
try save("wwdc-dual-h5.btsnoop", FixtureContainers.linkFramed(hciOnly, bcsp: false))
try save("wwdc-dual-bcsp.btsnoop", FixtureContainers.linkFramed(hciOnly, bcsp: true))
try save("wwdc-dual.pcap", try FixtureContainers.encode(hciOnly, as: .pcapH4))
try save("wwdc-dual-monitor.pcap", try FixtureContainers.encode(monitor, as: .pcapMonitor))
try save("wwdc-dual.pcapng", try FixtureContainers.encode(monitor, as: .pcapng))
try save("wwdc-dual.btsnoop.gz", FixtureContainers.gzip(try FixtureContainers.encode(hciOnly, as: .btsnoopH4)))

// Decoder coverage: LE GATT discovery, pairing and errors; BR/EDR L2CAP signaling; the btmon crash.
try save("le-heart-rate.btsnoop", try FixtureContainers.encode(Scenarios.heartRateSession(), as: .btsnoopH4))
try save("le-heart-rate.pklg", try FixtureContainers.encode(Scenarios.heartRateSession(), as: .pklg))
try save("bredr-l2cap.btsnoop", try FixtureContainers.encode(Scenarios.classicL2CAPSession(), as: .btsnoopH4))
try save("bredr-handsfree.btsnoop", try FixtureContainers.encode(Scenarios.handsfreeSession(), as: .btsnoopH4))
try save("avrcp-remote.btsnoop", try FixtureContainers.encode(Scenarios.remoteControlSession(), as: .btsnoopH4))
try save("hid-keyboard.btsnoop", try FixtureContainers.encode(Scenarios.hidSession(), as: .btsnoopH4))
try save("bnep-pan.btsnoop", try FixtureContainers.encode(Scenarios.panSession(), as: .btsnoopH4))
try save("le-apple.btsnoop", try FixtureContainers.encode(Scenarios.appleSession(), as: .btsnoopH4))
try save("le-audio-unicast.btsnoop", try FixtureContainers.encode(Scenarios.leAudioSession(), as: .btsnoopH4))
try save("a2dp-codecs.btsnoop", try FixtureContainers.encode(Scenarios.a2dpSession(), as: .btsnoopH4))
var audio: [Frame] = []
BenchmarkSessions.audioSession(packets: 600) { audio += $0 }
try save("a2dp-stream.btsnoop", try FixtureContainers.encode(audio, as: .btsnoopH4))
// A notification stream held back by MTU 23 (stats --throughput and its diagnosis).
try save("le-throughput.btsnoop", try FixtureContainers.encode(
    Scenarios.throughputSession(ThroughputRegime(interval: 20, mtu: 23, dataLength: 27, phy: 1, transfer: .notifications, perEvent: 4, seconds: 3)),
    as: .btsnoopH4))
// The same link faster and faster: MTU 23, then MTU 247 with data length 251, then LE 2M at 12.5 ms (the README's picture).
try save("le-throughput-phases.btsnoop", try FixtureContainers.encode(Scenarios.throughputSession(phases: [
    ThroughputRegime(interval: 20, mtu: 23, dataLength: 27, phy: 1, transfer: .notifications, perEvent: 4, seconds: 3),
    ThroughputRegime(interval: 20, mtu: 247, dataLength: 251, phy: 1, transfer: .notifications, perEvent: 6, seconds: 3),
    ThroughputRegime(interval: 10, mtu: 247, dataLength: 251, phy: 2, transfer: .notifications, perEvent: 8, seconds: 3),
]), as: .btsnoopH4))
// One of each problem btlog diagnose finds (Scenarios.troubleSession).
try save("trouble.btsnoop", try FixtureContainers.encode(Scenarios.troubleSession().frames, as: .btsnoopH4))
// Vendor HCI: Android's extensions and quality reports on a Broadcom controller, a Broadcom
// firmware download, an Intel boot (VendorScenarios.swift).
try save("android-vendor.btsnoop", try FixtureContainers.encode(Scenarios.androidVendorSession().frames, as: .btsnoopH4))
try save("broadcom-firmware.btsnoop", try FixtureContainers.encode(Scenarios.broadcomFirmwareSession().frames, as: .btsnoopH4))
try save("intel-boot.btsnoop", try FixtureContainers.encode(Scenarios.intelBootSession().frames, as: .btsnoopH4))
// BTstack's daemon in its own PacketLogger log: its private commands and events beside the HCI
// traffic, and a vendor command answered with opcode 0xFFFF (StackScenarios.swift).
try save("btstack-daemon.pklg", try FixtureContainers.encode(Scenarios.btstackDaemonSession().frames, as: .pklg))
// The same connection taken from the air, in the three link types sniffers write.
try save("le-air-ll.pcap", try FixtureContainers.encode(AirScenario.frames(.leLL), as: .pcapLELL))
try save("le-air-radio.pcap", try FixtureContainers.encode(AirScenario.frames(.leLLWithRadioHeader), as: .pcapLELLWithRadioHeader))
try save("le-air-nordic.pcap", try FixtureContainers.encode(AirScenario.frames(.nordicBLE), as: .pcapNordicBLE))
try save("le-air-ubertooth.pcap", try FixtureContainers.encode(AirScenario.frames(.ppi), as: .pcapPPI))
// Passkey pairing (TK 001234) whose Pairing Confirm PDUs the sniffer missed: the TK is found by
// the MIC of the first encrypted packet, crackle's third strategy.
try save("le-air-no-confirms.pcap", try FixtureContainers.encode(AirScenario.frames(.ppi, passkey: 1_234, missingConfirms: true), as: .pcapPPI))
// LE Audio on the air: LE Coded extended advertising, a periodic train with BIGInfo, BIS and CIS packets.
try save("le-air-iso-radio.pcap", try FixtureContainers.encode(AirIsochronousScenario.frames(.leLLWithRadioHeader), as: .pcapLELLWithRadioHeader))
// BR/EDR baseband from the air: a piconet as Ubertooth follows it.
try save("bredr-baseband.pcap", try FixtureContainers.encode(BasebandScenario.frames(), as: .pcapBREDRBB))
try save("le-air-iso-nordic.pcap", try FixtureContainers.encode(AirIsochronousScenario.frames(.nordicBLE), as: .pcapNordicBLE))
// An AVCTP channel whose ERTM request the headset refused: Basic mode, AVRCP decoded.
try save("avctp-refused-ertm.btsnoop", try FixtureContainers.encode(Scenarios.refusedERTMSession(), as: .btsnoopH4))
try save("btmon-crash-heart-rate.btsnoop", try FixtureContainers.encode(Scenarios.btmonCrashTrace(), as: .btsnoopH4))

// An iOS sysdiagnose with two packet logs; the newer one is the WWDC session.
let older = Array(dual.prefix(12))
let sysdiagnose = FixtureContainers.tar([
    ("sysdiagnose_2019.05.08_23-05-10_iPhone/logs/Bluetooth/bluetoothd-hci-2019_05_08-22_10_00.pklg", 1_557_353_400,
     try FixtureContainers.encode(older, as: .pklg)),
    ("sysdiagnose_2019.05.08_23-05-10_iPhone/logs/Bluetooth/bluetoothd-hci-latest.pklg", 1_557_356_700,
     try FixtureContainers.encode(dual, as: .pklg)),
    ("sysdiagnose_2019.05.08_23-05-10_iPhone/summaries/readme.txt", 1_557_356_700, Array("not a capture\n".utf8)),
])
try save("sysdiagnose_demo.tar.gz", FixtureContainers.gzip(sysdiagnose))

// An Android bugreport: btsnoop logs under FS/data/misc/bluetooth/logs and the btsnooz text.
let report = "== dumpstate: 2019-05-08 23:05:00\n\nDUMP OF SERVICE bluetooth_manager:\n"
    + FixtureContainers.btsnoozSection(hciOnly) + "\n== end\n"
try save("bugreport-btsnooz.txt", Array(report.utf8))
let zipURL = URL(fileURLWithPath: folder).appendingPathComponent("bugreport-demo.zip")
try FixtureContainers.zip([
    ("bugreport-demo.txt", Date(timeIntervalSince1970: 1_557_356_700), Array(report.utf8)),
    ("FS/data/misc/bluetooth/logs/btsnoop_hci.log.last", Date(timeIntervalSince1970: 1_557_353_400),
     try FixtureContainers.encode(Array(hciOnly.prefix(12)), as: .btsnoopH4)),
    ("FS/data/misc/bluetooth/logs/btsnoop_hci.log", Date(timeIntervalSince1970: 1_557_356_700),
     try FixtureContainers.encode(hciOnly, as: .btsnoopH4)),
], to: zipURL)
print("wrote \(zipURL.path)")

// The central's and the peripheral's host logs of crackle's known_ltk.pcap link, written from
// the air's own PDUs (AirHostLog): for merging a real air capture with both ends' logs (`--merge`).
let knownLTKAir = URL(fileURLWithPath: folder).appendingPathComponent("third-party/crackle/known_ltk.pcap").path
if FileManager.default.fileExists(atPath: knownLTKAir) {
    let pdus = try AirHostLog.pdus(air: knownLTKAir, keys: [AirHostLog.knownLTK])
    try save("known-ltk-central.btsnoop", try FixtureContainers.encode(AirHostLog.centralLog(pdus), as: .btsnoopH4))
    try save("known-ltk-peripheral.btsnoop", try FixtureContainers.encode(AirHostLog.peripheralLog(pdus), as: .btsnoopH4))
}
