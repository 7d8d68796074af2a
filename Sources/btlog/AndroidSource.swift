import BTCapture
import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension Capture {
    /// `--android`: the phone adb sees (or the one --serial or ANDROID_SERIAL names). Its snoop
    /// log's stream when the phone serves one (port 8872, through adb forward); otherwise its
    /// log, pulled with adb bugreport when the capture stops.
    func openAndroid(wake: WakePipe, controller: UInt16?) throws -> LiveSourceChoice {
        let environment = ProcessInfo.processInfo.environment["ANDROID_SERIAL"].flatMap { $0.isEmpty ? nil : $0 }
        let phone = try AndroidDebugBridge.choose(AndroidDebugBridge.devices(), requested: serial ?? environment)
        let bridge = AndroidDebugBridge(serial: phone.serial)
        let settings = try bridge.settings()
        let label = [settings.model, settings.release.map { "Android \($0)" }].compactMap { $0 }.joined(separator: ", ")
        let name = label.isEmpty ? phone.serial : "\(phone.serial) (\(label))"
        if let refusal = AndroidAdvice.refusal(settings, serial: name) { throw CaptureError(refusal) }
        if settings.snoopMode == .filtered { StandardError.warning(AndroidAdvice.filtered(settings)) }

        let port = try bridge.forwardSnoopPort()
        var stream: Int32?
        if let fd = try? TCPConnection.open("127.0.0.1:\(port)") {
            if TCPConnection.firstBytes(fd, within: 3) == true { stream = fd } else { close(fd) }
        }
        if let fd = stream {
            let polled = PolledStream(fd: fd, name: name, wake: wake, duration: duration, closing: {
                close(fd)
                bridge.removeForward(port)
            })
            let receiver = StreamReceiver(stream: polled, configuration: .init(controller: controller)) { input in
                try BTSnoopReader(input, name: name)
            }
            return LiveSourceChoice(receiver: receiver, wake: wake, name: name,
                                    description: "\(name), its Bluetooth snoop stream (adb forward tcp:\(port) tcp:\(AndroidDebugBridge.snoopPort))",
                                    drops: "dropped at the phone",
                                    ended: "the phone's snoop stream closed (unplugged, adb disconnected, or Bluetooth turned off)")
        }
        bridge.removeForward(port)
        if browse {
            throw CaptureError("\(name) serves no snoop stream, so there is nothing to browse as it arrives: the phone hands its log over when the capture stops. Capture with -w FILE (Ctrl-C pulls the log), then btlog browse FILE")
        }

        guard let start = settings.clock else { throw CaptureError("\(name): the phone did not tell its time (adb shell date)") }
        let path = bugreportPath(serial: phone.serial)
        StandardError.write("btlog: \(name) serves no snoop stream (development builds of recent Android do, on port \(AndroidDebugBridge.snoopPort)): it keeps its log, and when you stop (Ctrl-C, or --duration) btlog pulls it with adb bugreport and shows what the phone logged from now on\n")
        let receiver = PulledLogReceiver(wake: wake, duration: duration, controller: controller) { wake in
            try AndroidLogPull.pull(bridge, to: path, start: start, wake: wake)
        }
        receiver.willPull = {
            StandardError.write("btlog: pulling the phone's log: adb -s \(phone.serial) bugreport \(path) (a minute or two; Ctrl-C again abandons it)\n")
        }
        return LiveSourceChoice(receiver: receiver, wake: wake, name: name,
                                description: "\(name), its snoop log (pulled with adb bugreport when the capture stops)",
                                drops: nil, ended: nil,
                                summary: { [receiver] in
                                    guard receiver.pulled else { return nil }
                                    return "the phone's whole log is in \(path) (\(receiver.leftOut) earlier frame\(receiver.leftOut == 1 ? "" : "s") of it left out)"
                                })
    }

    /// Where the bugreport goes: beside the -w file, else in the current directory (where adb
    /// bugreport itself puts one), named by the phone and the time.
    func bugreportPath(serial: String) -> String {
        var folder = "."
        if let writePath, writePath != "-" { folder = (writePath as NSString).deletingLastPathComponent }
        if folder.isEmpty { folder = "." }
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        let stamp = String(format: "%04d-%02d-%02d-%02d-%02d-%02d", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                           parts.tm_hour, parts.tm_min, parts.tm_sec)
        let safe = String(serial.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." ? $0 : "_" })
        return (folder as NSString).appendingPathComponent("bugreport-\(safe)-\(stamp).zip")
    }
}
