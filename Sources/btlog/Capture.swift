import ArgumentParser
import BTCapture
import BTDecode
import BTQuery
import BTRender
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct Capture: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Capture live from the Linux HCI monitor (every controller's traffic, as btmon sees it), a board's serial port or a btsnoop stream.",
        discussion: """
        The HCI monitor needs CAP_NET_RAW: run as root, or once: sudo setcap cap_net_raw+ep $(which btlog). \
        --tty reads a board's serial port, --h4 the two wires of a UART between a host and its \
        controller (the user needs the ports' group, usually dialout); \
        --tcp reads a btsnoop stream, such as an Android phone's snoop service after adb forward. \
        Packets are printed as they arrive (the show table, or the tree with -V) while -w writes \
        every frame; the file is complete after every record. Ctrl-C (SIGINT) or SIGTERM ends \
        the capture and prints the status line.
        """
    )

    @Option(name: [.customShort("i"), .customLong("interface")],
            help: ArgumentHelp("Controller to capture: hci0, hci1, ... or all. One controller keeps its own frames and the frames of no controller (notes, logs).", valueName: "hciN|all"))
    var interface = "all"

    @Option(name: [.customShort("w"), .customLong("write")],
            help: ArgumentHelp("Write every frame to FILE ('-' for standard output, which then prints no packets).", valueName: "FILE"))
    var writePath: String?

    @Option(help: ArgumentHelp("Format of the -w file: btsnoop (datalink 2001, as btmon -w writes: keeps controller indexes and notes), pklg or pcapng (link type 254). Default: from the file's extension (.pklg, .pcapng), else btsnoop.", valueName: "btsnoop|pklg|pcapng"))
    var format: LiveFileFormat?

    @Option(help: ArgumentHelp("Stop after this many seconds.", valueName: "SECONDS"))
    var duration: Double?

    @Flag(name: [.customShort("q"), .long], help: "Print no packets, only the status line at the end.")
    var quiet = false

    @Option(help: ArgumentHelp("After opening the monitor socket, drop privileges to this user (and its group) before writing anything, as tcpdump -Z does.", valueName: "NAME"))
    var user: String?

    @Flag(help: "List the controllers (index, address, type, bus, manufacturer, name, state) and exit.")
    var list = false

    @Flag(help: "Browse the packets as they arrive, in btlog browse's window, instead of printing them; -w still writes every frame (and F and C annotate that file). q ends the capture.")
    var browse = false

    @Option(help: ArgumentHelp("Capture from a board's serial port instead of this machine's controllers: the BlueZ monitor protocol over a UART, as btmon -d reads it and Zephyr (CONFIG_BT_DEBUG_MONITOR_UART) and other embedded stacks write it. The board's own timestamps are used.", valueName: "PATH"))
    var tty: String?

    @Option(help: ArgumentHelp("Capture raw H4 from a UART between a host and its controller, tapped into two serial ports: the host's wire (commands, data out) and the controller's (events, data in), e.g. host=/dev/ttyUSB0,controller=/dev/ttyUSB1. Timestamps are this machine's.", valueName: "host=PATH,controller=PATH"))
    var h4: String?

    @Option(help: ArgumentHelp("The serial line's speed in bit/s (with --tty or --h4; default 115200).", valueName: "BPS"))
    var speed: Int?

    @Flag(help: "Use RTS/CTS flow control on the serial line (with --tty or --h4).")
    var flowControl = false

    @Option(help: ArgumentHelp("Capture a btsnoop stream from HOST:PORT (Android's snoop log service, on port 8872 after adb forward tcp:8872 tcp:8872, or any program serving a btsnoop file as it grows).", valueName: "HOST:PORT"))
    var tcp: String?

    @Flag(help: "Capture from an Android phone over adb: its Bluetooth snoop log's stream where the phone serves one (port 8872, through adb forward), otherwise its log pulled with adb bugreport when the capture stops. Needs USB debugging and the snoop log on (Developer options).")
    var android = false

    @Option(help: ArgumentHelp("The phone to capture from with --android, when adb sees several: its serial number, as adb devices lists it (default: ANDROID_SERIAL, else the only one).", valueName: "SERIAL"))
    var serial: String?

    @Flag(help: "Capture from an iPhone or iPad over USB: its Bluetooth packet logger, which the device offers once Apple's Bluetooth logging profile is installed. Needs libimobiledevice and usbmuxd (Debian: libimobiledevice6 usbmuxd), and the device paired (Trust This Computer).")
    var ios = false

    @Option(help: ArgumentHelp("The iPhone or iPad to capture from with --ios, when several are connected: its UDID, as idevice_id -l lists it (default: the only one on USB).", valueName: "UDID"))
    var udid: String?

    /// Read monitor datagrams from this descriptor instead of the kernel (tests feed a socketpair).
    @Option(name: .customLong("monitor-fd"), help: ArgumentHelp(visibility: .private))
    var monitorFD: Int32?

    @OptionGroup(title: "Selection") var selection: SelectionOptionGroup
    @OptionGroup(title: "Selection") var limit: LimitOptionGroup
    @OptionGroup(title: "Display") var display: DisplayOptionGroup
    @OptionGroup(title: "Decoding") var decoding: DecodeOptionGroup

    func validate() throws {
        if ControllerFilter.parse(interface) == nil {
            throw ValidationError("-i takes a controller such as hci0, or all, not '\(interface)'")
        }
        if let duration, !(duration > 0 && duration.isFinite) {
            throw ValidationError("--duration takes a number of seconds greater than 0")
        }
        if let user, user.isEmpty { throw ValidationError("--user takes a user name") }
        if format != nil && writePath == nil { throw ValidationError("--format applies to the -w file; give -w FILE") }
        if [tty != nil, tcp != nil, h4 != nil, android, ios].filter({ $0 }).count > 1 {
            throw ValidationError("capture from one source: --tty, --h4, --tcp, --android or --ios, not two")
        }
        if udid != nil && !ios { throw ValidationError("--udid chooses the device for --ios; give --ios") }
        if serial != nil && !android { throw ValidationError("--serial chooses the phone for --android; give --android") }
        if tty == nil && h4 == nil && (speed != nil || flowControl) {
            throw ValidationError("--speed and --flow-control set a serial line; give --tty PATH or --h4 host=PATH,controller=PATH")
        }
        if let h4 { _ = try Self.wires(h4) }
        if let speed, SerialLine.speeds[speed] == nil { throw ValidationError(SerialLine.unsupported(speed)) }
        if list && (tty != nil || tcp != nil || h4 != nil || android || ios) { throw ValidationError("--list lists this machine's controllers; not with --tty, --h4, --tcp, --android or --ios") }
        if browse {
            if quiet || writePath == "-" { throw ValidationError("--browse shows the packets; not with -q or -w -") }
            if display.tree || display.fields != nil || display.collapse || limit.count != nil || selection.packets != nil {
                throw ValidationError("--browse has its own views and filters; not with -V, --fields, --collapse, -c or --packets")
            }
        }
    }

    func run() throws {
        if list { return try listControllers() }
        _ = try selection.stages(count: limit.count) // a bad filter is reported before the socket opens
        let source: LiveSourceChoice
        do {
            source = try openSource()
            if let user { try Privileges.drop(to: user) }
        } catch let error as CaptureError {
            StandardError.error(error.message)
            throw ExitCode(1)
        }
        let session = try LiveCaptureRun(command: self, source: source)
        try session.run()
    }

    /// The source the options name, opened (a failure here is the person's to fix: a port that
    /// is not there, a permission, nothing listening).
    func openSource() throws -> LiveSourceChoice {
        let wake = try WakePipe()
        let controller = ControllerFilter.parse(interface)!
        if let tty {
            let speed = speed ?? 115_200
            let line = try SerialLine.open(tty, speed: speed, flowControl: flowControl)
            let stream = PolledStream(fd: line.fd, name: tty, wake: wake, duration: duration, closing: line.closing)
            let receiver = StreamReceiver(stream: stream, configuration: .init(controller: controller)) { input in
                SerialMonitorReader(input, name: tty, arrival: { stream.lastArrival })
            }
            let hint = "\(tty) sends bytes but no monitor frame: is \(speed) bit/s the board's speed (--speed)? Does the board write the BlueZ monitor protocol on this port (Zephyr: CONFIG_BT_DEBUG_MONITOR_UART)?"
            receiver.noticeNoise = { skipped in "\(skipped) bytes and counting: \(hint)" }
            return LiveSourceChoice(receiver: receiver, wake: wake, name: tty,
                                    description: "\(tty) (BlueZ monitor protocol, \(speed) bit/s\(flowControl ? ", RTS/CTS" : ""))",
                                    drops: "dropped by the board", ended: "\(tty) closed (the board unplugged or reset?)")
        }
        if let h4 {
            let speed = speed ?? 115_200
            let latch = StopLatch()
            let wires = try Self.wires(h4)
            var sources: [StreamReceiver.Source] = []
            for (wire, path) in wires {
                let line = try SerialLine.open(path, speed: speed, flowControl: flowControl)
                let stream = PolledStream(fd: line.fd, name: path, wake: wake, latch: latch, duration: duration, closing: line.closing)
                sources.append(StreamReceiver.Source(stream: stream) { input in
                    H4WireReader(input, name: "\(path) (\(wire.rawValue))", wire: wire, arrival: { stream.lastArrival })
                })
            }
            let description = wires.map { "\($0.wire.rawValue) \($0.path)" }.joined(separator: ", ")
            return LiveSourceChoice(receiver: StreamReceiver(sources: sources, configuration: .init(controller: controller)), wake: wake,
                                    name: "h4", description: "a tapped UART (H4; \(description); \(speed) bit/s\(flowControl ? ", RTS/CTS" : ""))",
                                    drops: nil, ended: "both wires closed")
        }
        if android { return try openAndroid(wake: wake, controller: controller) }
        if ios {
            let logger = try IOSPacketLogger.open(udid: udid)
            let stream = PolledStream(fd: logger.fd, name: logger.name, wake: wake, duration: duration, closing: logger.closing)
            let receiver = StreamReceiver(stream: stream, configuration: .init(controller: controller)) { input in
                PacketLoggerReader(input, name: logger.name, littleEndian: false)
            }
            return LiveSourceChoice(receiver: receiver, wake: wake, name: logger.name,
                                    description: "\(logger.name), its Bluetooth packet logger", drops: nil,
                                    ended: "the device went away (unplugged?) or ended its packet logger")
        }
        if let tcp {
            let fd = try TCPConnection.open(tcp)
            let stream = PolledStream(fd: fd, name: tcp, wake: wake, duration: duration, closing: { close(fd) })
            let receiver = StreamReceiver(stream: stream, configuration: .init(controller: controller)) { input in
                guard try input.ensure(1) else { throw CaptureError("\(tcp) closed the connection before sending anything") }
                return try BTSnoopReader(input, name: tcp)
            }
            return LiveSourceChoice(receiver: receiver, wake: wake, name: tcp, description: "\(tcp) (btsnoop stream)",
                                    drops: "dropped at the source", ended: "\(tcp) closed the connection")
        }
        var configuration = MonitorReceiver.Configuration(controller: controller, duration: duration)
        let fd: Int32
        if let monitorFD {
            var on: Int32 = 1
            _ = setsockopt(monitorFD, SOL_SOCKET, SO_TIMESTAMP, &on, socklen_t(MemoryLayout<Int32>.size))
            fd = monitorFD
            configuration.readsKernelDrops = false
        } else {
            fd = try MonitorSocket.open().fd
        }
        return LiveSourceChoice(receiver: MonitorReceiver(fd: fd, configuration: configuration, wake: wake), wake: wake,
                                name: "monitor", description: "the HCI monitor, \(controller.map { "hci\($0)" } ?? "all controllers")",
                                drops: "dropped by the kernel", ended: nil)
    }

    /// host=PATH,controller=PATH (either order): the two wires of a tapped UART.
    static func wires(_ text: String) throws -> [(wire: H4WireReader.Wire, path: String)] {
        var found: [H4WireReader.Wire: String] = [:]
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2, let wire = H4WireReader.Wire(rawValue: pair[0]), !pair[1].isEmpty, found[wire] == nil else {
                throw ValidationError("--h4 takes host=PATH,controller=PATH (the serial ports tapping each wire), not '\(text)'")
            }
            found[wire] = pair[1]
        }
        guard let host = found[.host], let controller = found[.controller] else {
            throw ValidationError("--h4 needs both wires: host=PATH,controller=PATH, not '\(text)'")
        }
        guard host != controller else { throw ValidationError("--h4: the host and controller wires are two ports, not one ('\(host)')") }
        return [(.host, host), (.controller, controller)]
    }

    var fileFormat: CaptureFileFormat {
        (format ?? writePath.map(LiveFileFormat.guess) ?? .btsnoop).fileFormat
    }

    func listControllers() throws {
        let decoder = Decoder()
        do {
            var pipeline = PacketPipeline(decoder: decoder) { StandardError.warning($0.message) }
            var nothing = DiscardingSink()
            let replay = ArrayFrameReader(frames: try MonitorReplay.read(), formatDescription: "HCI monitor replay", nativeFormat: .btsnoopMonitor)
            try pipeline.run(replay, into: &nothing)
        } catch let error as CaptureError {
            StandardError.error(error.message)
            throw ExitCode(1)
        }
        let out = OutputWriter()
        do {
            try ControllerReport(session: decoder.session).render(to: out)
            try out.flush()
        } catch is OutputWriter.OutputClosed {}
    }
}

/// The capture file formats `capture -w` writes (the live stream's own, and two for other tools).
enum LiveFileFormat: String, ExpressibleByArgument, CaseIterable {
    case btsnoop, pklg, pcapng

    var fileFormat: CaptureFileFormat {
        switch self {
        case .btsnoop: return .btsnoopMonitor
        case .pklg: return .pklg
        case .pcapng: return .pcapng
        }
    }

    static func guess(_ path: String) -> LiveFileFormat {
        let lower = path.lowercased()
        if lower.hasSuffix(".pklg") { return .pklg }
        if lower.hasSuffix(".pcapng") { return .pcapng }
        return .btsnoop
    }
}

enum ControllerFilter {
    /// nil: not a controller name; .some(nil): all controllers.
    static func parse(_ text: String) -> UInt16?? {
        let lower = text.lowercased()
        if lower == "all" { return .some(nil) }
        let digits = lower.hasPrefix("hci") ? String(lower.dropFirst(3)) : lower
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let index = UInt16(digits), index < 0xFFFF else { return nil }
        return .some(index)
    }
}

enum Privileges {
    /// Becomes `name` (its uid, primary gid, no supplementary groups), for good.
    static func drop(to name: String) throws {
        guard let entry = getpwnam(name) else { throw CaptureError("--user: no user named '\(name)'") }
        let uid = entry.pointee.pw_uid, gid = entry.pointee.pw_gid
        if getuid() == uid && geteuid() == uid && getgid() == gid { return }
        guard setgroups(0, nil) == 0, setgid(gid) == 0, setuid(uid) == 0 else {
            throw CaptureError("--user: cannot become '\(name)': \(systemErrorText(errno)) (only root can change user)")
        }
        // setuid must be permanent: if root could be regained, the drop was not real.
        if uid != 0 && setuid(0) == 0 { throw CaptureError("--user: privileges could not be dropped for good") }
    }
}
