import Foundation
#if canImport(Glibc)
import Glibc

/// An Android device as `adb devices -l` lists it.
public struct AndroidDevice: Sendable, Equatable {
    public let serial: String
    /// "device" (usable), "unauthorized", "offline", "no permissions", "recovery", ...
    public let state: String
    /// The model adb names ("Pixel_7"), when it does.
    public let model: String?

    public var label: String { model.map { "\(serial) (\($0.replacingOccurrences(of: "_", with: " ")))" } ?? serial }
}

/// Android's debug bridge as a capture uses it (Debian's `adb`, found on PATH): the devices, the
/// phone's settings, a port forward to the snoop log's stream, a bugreport. Every failure is
/// said as what the person can do about it.
public struct AndroidDebugBridge: Sendable {
    public let serial: String

    public init(serial: String) { self.serial = serial }

    /// Runs adb with `arguments`; its output, or a CaptureError naming what went wrong.
    static func run(_ arguments: [String], timeout: Double?, wake: WakePipe? = nil, passOutputTo: Int32? = nil) throws -> Subprocess.Result {
        let result: Subprocess.Result
        do {
            result = try Subprocess.run(["adb"] + arguments, timeout: timeout, wake: wake, passOutputTo: passOutputTo)
        } catch Subprocess.Failure.notFound {
            throw CaptureError("--android needs adb, Android's debug bridge, and there is none on PATH (Debian: apt-get install adb)")
        } catch Subprocess.Failure.timedOut(let seconds) {
            throw CaptureError("adb \(arguments.joined(separator: " ")) did not answer in \(Int(seconds)) s (is the phone still connected? adb kill-server restarts adb)")
        } catch Subprocess.Failure.cannotStart(let why) {
            throw CaptureError("cannot run adb: \(why)")
        }
        if result.status != 0 {
            let said = (result.errors + result.output).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty && !$0.hasPrefix("*") }
            throw CaptureError("adb \(arguments.joined(separator: " ")) failed\(said.isEmpty ? " (exit status \(result.status))" : ": " + said.joined(separator: "; "))")
        }
        return result
    }

    /// The devices adb sees.
    public static func devices() throws -> [AndroidDevice] {
        parseDevices(try run(["devices", "-l"], timeout: 30).output)
    }

    /// Parses `adb devices -l`: a heading, then "SERIAL  STATE key:value ..." per device (the
    /// state "no permissions" has words and a URL of its own after it).
    public static func parseDevices(_ text: String) -> [AndroidDevice] {
        var devices: [AndroidDevice] = []
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            if line.hasPrefix("List of devices") || line.hasPrefix("*") || line.hasPrefix("adb ") { continue }
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard words.count >= 2 else { continue }
            let state = words[1] == "no" && words.count > 2 ? "no permissions" : words[1]
            let model = words.dropFirst(2).first { $0.hasPrefix("model:") }.map { String($0.dropFirst(6)) }
            devices.append(AndroidDevice(serial: words[0], state: state, model: model.flatMap { $0.isEmpty ? nil : $0 }))
        }
        return devices
    }

    /// The device the capture is to use: the one asked for (`--serial`, else ANDROID_SERIAL),
    /// else the only one there is.
    public static func choose(_ devices: [AndroidDevice], requested: String?) throws -> AndroidDevice {
        let device: AndroidDevice
        if let requested {
            guard let found = devices.first(where: { $0.serial == requested }) else {
                let listed = devices.isEmpty ? "adb lists no device" : "adb lists \(devices.map(\.label).joined(separator: ", "))"
                throw CaptureError("no Android device \(requested): \(listed)")
            }
            device = found
        } else {
            guard !devices.isEmpty else {
                throw CaptureError("no Android device: connect the phone by USB with USB debugging on (Settings > System > Developer options > USB debugging), or over the network with adb connect HOST (Android 11's wireless debugging pairs with adb pair, from platform-tools 30 on)")
            }
            let usable = devices.filter { $0.state == "device" }
            if usable.count > 1 || (usable.isEmpty && devices.count > 1) {
                throw CaptureError("several Android devices: choose one with --serial SERIAL (or ANDROID_SERIAL): \(devices.map { "\($0.label) \($0.state)" }.joined(separator: ", "))")
            }
            device = usable.first ?? devices[0]
        }
        switch device.state {
        case "device": return device
        case "unauthorized":
            throw CaptureError("\(device.label) has not allowed this computer: unlock the phone and accept \"Allow USB debugging?\" (adb devices says unauthorized)")
        case "no permissions":
            throw CaptureError("\(device.label): no permission to open the phone's USB device; add a udev rule for it (Debian: apt-get install android-sdk-platform-tools-common), be in the plugdev group, and plug it in again")
        case "offline":
            throw CaptureError("\(device.label) is offline: plug it in again, or restart adb with adb kill-server")
        case "authorizing", "connecting":
            throw CaptureError("\(device.label) is still \(device.state): wait a moment and try again")
        default:
            throw CaptureError("\(device.label) is in \(device.state) mode, not running Android: start the phone normally")
        }
    }

    /// The phone's properties (`getprop`), and its clock: seconds since the Unix epoch and its
    /// offset from UTC in seconds.
    public func settings() throws -> AndroidSettings {
        let text = try Self.run(["-s", serial, "shell", "getprop; date +'[\(AndroidSettings.clockKey)]: [%s %z]'"], timeout: 30).output
        return AndroidSettings(getprop: text)
    }

    /// The phone's clock now (seconds since the Unix epoch, offset from UTC in seconds).
    public func clock() throws -> (seconds: Int64, utcOffset: Int64)? {
        AndroidSettings(getprop: try Self.run(["-s", serial, "shell", "date +'[\(AndroidSettings.clockKey)]: [%s %z]'"], timeout: 30).output).clock
    }

    /// Forwards a free local port to the phone's port 8872 (where the Bluetooth stack serves its
    /// snoop log as a btsnoop stream, when it does); the local port.
    public func forwardSnoopPort() throws -> UInt16 {
        let text = try Self.run(["-s", serial, "forward", "tcp:0", "tcp:\(Self.snoopPort)"], timeout: 30).output
        guard let port = UInt16(text.trimmingCharacters(in: .whitespacesAndNewlines)), port > 0 else {
            throw CaptureError("adb forward tcp:0 tcp:\(Self.snoopPort) answered '\(text.trimmingCharacters(in: .whitespacesAndNewlines))', not a port")
        }
        return port
    }

    public func removeForward(_ port: UInt16) {
        _ = try? Self.run(["-s", serial, "forward", "--remove", "tcp:\(port)"], timeout: 10)
    }

    /// Has the phone write a bugreport zip to `path` (a minute or more; adb's progress goes to
    /// standard error). A write to `wake` meanwhile ends it.
    public func bugreport(to path: String, wake: WakePipe) throws {
        do {
            _ = try Self.run(["-s", serial, "bugreport", path], timeout: nil, wake: wake, passOutputTo: 2)
        } catch Subprocess.Failure.stopped {
            throw CaptureError("the bugreport was interrupted, so nothing was pulled from the phone (adb bugreport \(path) pulls it)")
        }
    }

    /// The port Android's Bluetooth stack serves its snoop log on (btsnoop, one client at a time).
    public static let snoopPort = 8872
}

/// What a capture needs to know of the phone's settings.
public struct AndroidSettings: Sendable {
    public let properties: [String: String]
    static let clockKey = "btlog.clock"

    /// Parses getprop's "[key]: [value]" lines.
    public init(getprop text: String) {
        var properties: [String: String] = [:]
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            guard line.hasPrefix("["), let split = line.range(of: "]: ["), line.hasSuffix("]") else { continue }
            let key = line[line.index(after: line.startIndex)..<split.lowerBound]
            let value = line[split.upperBound..<line.index(before: line.endIndex)]
            properties[String(key)] = String(value)
        }
        self.properties = properties
    }

    public var model: String? { properties["ro.product.model"].flatMap { $0.isEmpty ? nil : $0 } }
    public var release: String? { properties["ro.build.version.release"].flatMap { $0.isEmpty ? nil : $0 } }
    /// "user" on phones as sold; "userdebug" and "eng" on development builds.
    public var buildType: String { properties["ro.build.type"] ?? "user" }

    /// The phone's clock when asked: seconds since the Unix epoch, and its offset from UTC.
    public var clock: (seconds: Int64, utcOffset: Int64)? {
        guard let value = properties[Self.clockKey] else { return nil }
        let parts = value.split(separator: " ")
        guard parts.count == 2, let seconds = Int64(parts[0]) else { return nil }
        let zone = parts[1]
        guard zone.count == 5, let sign = zone.first, sign == "+" || sign == "-",
              let hours = Int64(zone.dropFirst().prefix(2)), let minutes = Int64(zone.suffix(2)) else { return (seconds, 0) }
        return (seconds, (sign == "-" ? -1 : 1) * (hours * 3600 + minutes * 60))
    }

    /// The snoop log's mode as the Bluetooth stack reads it when Bluetooth starts:
    /// persist.bluetooth.btsnooplogmode (Android 10 on), else persist.bluetooth.btsnoopenable
    /// (earlier), else the build's default (filtered on development builds, off on phones as sold).
    public var snoopMode: AndroidSnoopMode {
        if let mode = properties["persist.bluetooth.btsnooplogmode"], !mode.isEmpty {
            return AndroidSnoopMode(rawValue: mode) ?? .disabled
        }
        if properties["persist.bluetooth.btsnoopenable"] == "true" { return .full }
        if buildType != "user" {
            return properties["persist.bluetooth.btsnoopdefaultmode"].flatMap(AndroidSnoopMode.init(rawValue:)) ?? .filtered
        }
        return .disabled
    }

    /// What the phone's filtered log leaves out, from its filter settings
    /// (persist.bluetooth.snooplogfilter.*); the Bluetooth stack's own filter when none is set.
    public var filteredOut: [String] {
        var cut: [String] = []
        let on = { (key: String) in self.properties["persist.bluetooth.snooplogfilter.\(key)"] == "true" }
        if on("headers.enabled") { cut.append("ACL data after its first 14 bytes, except L2CAP signaling (ATT values, SMP, RFCOMM and AVDTP contents)") }
        if on("profiles.a2dp.enabled") { cut.append("A2DP audio packets") }
        if on("profiles.rfcomm.enabled") { cut.append("RFCOMM data after its header") }
        for (profile, key) in [("PBAP and HFP phone-book and call-list data", "profiles.pbap"), ("MAP message data", "profiles.map")] {
            switch properties["persist.bluetooth.snooplogfilter.\(key)"] ?? "" {
            case "fullfilter": cut.append("\(profile) (whole packets)")
            case "header": cut.append("\(profile) (after the headers)")
            case "magic": cut.append("\(profile) (replaced by \"PROHIBITED\")")
            default: break
            }
        }
        if cut.isEmpty {
            cut.append("the data of L2CAP channels the stack does not list as safe to log (their packets cut after the headers), and audio")
        }
        return cut
    }
}

public enum AndroidSnoopMode: String, Sendable {
    case full, filtered, disabled, kernel
}

/// What a person is told to do on the phone.
public enum AndroidAdvice {
    public static let enableFull = "on the phone, Settings > System > Developer options > Enable Bluetooth HCI snoop log: Enabled (Developer options appear after tapping Build number seven times), then turn Bluetooth off and on: the stack reads the setting when Bluetooth starts"

    /// Why the log cannot be captured, or nil when it can.
    public static func refusal(_ settings: AndroidSettings, serial: String) -> String? {
        switch settings.snoopMode {
        case .full, .filtered: return nil
        case .disabled:
            return "the phone \(serial) keeps no Bluetooth snoop log (persist.bluetooth.btsnooplogmode is \(settings.properties["persist.bluetooth.btsnooplogmode"].map { "'\($0)'" } ?? "not set")): \(enableFull)"
        case .kernel:
            return "the phone \(serial) sends its Bluetooth snoop log to the kernel's log, not to a btsnoop file (persist.bluetooth.btsnooplogmode is 'kernel'): \(enableFull)"
        }
    }

    /// What the filtered log hides, said once a capture of it starts.
    public static func filtered(_ settings: AndroidSettings) -> String {
        "the phone's snoop log is filtered (persist.bluetooth.btsnooplogmode is '\(settings.properties["persist.bluetooth.btsnooplogmode"] ?? "")', the default of a \(settings.buildType) build): it leaves out \(settings.filteredOut.joined(separator: "; ")). HCI commands and events are whole. For everything, \(enableFull.replacingOccurrences(of: "Enabled (", with: "Enabled, not Enabled Filtered ("))"
    }
}

/// A phone's snoop log pulled at the end of a capture, and the part of it the capture covers.
public enum AndroidLogPull {
    /// Pulls the log of `bridge`'s phone into a bugreport at `path` and reads it: the frames the
    /// phone logged from `start` (its clock when the capture began, seconds since the Unix
    /// epoch) on. `stop` is its clock when the capture stopped.
    public static func pull(_ bridge: AndroidDebugBridge, to path: String, start: (seconds: Int64, utcOffset: Int64),
                            wake: WakePipe) throws -> PulledLogReceiver.Pulled {
        let stop = (try? bridge.clock()) ?? nil
        try bridge.bugreport(to: path, wake: wake)
        // The log before the current one (the phone starts a new file every 65,535 packets)
        // first: the capture's window may reach back into it.
        let logs = try snoopLogs(in: path)
        let members = [logs.earlier, logs.current].compactMap { $0 }
        // The newest record decides the log's clock.
        var last: Int64?
        let scan = try CaptureInput.open(path, options: InputOptions(member: logs.current))
        while let frame = try scan.next() { last = max(last ?? .min, frame.timestamp) }
        let shift = last.map { logClockShift(lastRecord: $0, stop: stop?.seconds ?? start.seconds, utcOffset: stop?.utcOffset ?? start.utcOffset) } ?? 0
        let from = microseconds(start.seconds, plus: -2) ?? .min
        let readers = try members.map { try CaptureInput.open(path, options: InputOptions(member: $0)) }
        return PulledLogReceiver.Pulled(readers: readers) { frame in
            let (time, overflow) = frame.timestamp.subtractingReportingOverflow(shift)
            return !overflow && time >= from
        }
    }

    /// The bugreport's snoop log, and the one it rotated out before it (`.last`), by name.
    static func snoopLogs(in path: String) throws -> (current: String, earlier: String?) {
        let names = try ZipArchive(path: path, name: path).members.map(\.name)
        for base in ["btsnoop_hci.log", "btsnoop_hci.log.filtered"] {
            if let current = names.first(where: { $0.hasSuffix("/" + base) || $0 == base }) {
                return (current, names.first { $0 == current + ".last" })
            }
        }
        throw CaptureError("\(path) holds no btsnoop_hci.log: the phone wrote no snoop log (was Bluetooth turned off and on after the snoop log was enabled? The phone starts the log when Bluetooth starts)")
    }

    /// How far (µs) the log's clock is ahead of UTC. The snoop logger of recent Android stacks
    /// writes UTC; bluedroid's older btsnoop writer added the phone's offset from UTC. A log whose last record lies in the
    /// future of the phone's clock by UTC, but not by local time, is taken as local time. (A
    /// local-time log west of Greenwich cannot be told from a UTC log by its times: it is read
    /// as UTC.)
    public static func logClockShift(lastRecord: Int64, stop: Int64, utcOffset: Int64) -> Int64 {
        // Numbers from a phone: out of range, there is no shift to find.
        guard let latest = microseconds(stop, plus: 60) else { return 0 }
        if lastRecord <= latest { return 0 }
        guard utcOffset > 0, let shift = microseconds(utcOffset, plus: 0) else { return 0 }
        let (local, overflow) = lastRecord.subtractingReportingOverflow(shift)
        return !overflow && local <= latest ? shift : 0
    }

    /// (seconds + extra) in microseconds, or nil when it does not fit.
    static func microseconds(_ seconds: Int64, plus extra: Int64) -> Int64? {
        let (sum, overflowed) = seconds.addingReportingOverflow(extra)
        let (product, overflowedAgain) = sum.multipliedReportingOverflow(by: 1_000_000)
        return overflowed || overflowedAgain ? nil : product
    }
}
#endif
