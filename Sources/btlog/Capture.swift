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
        abstract: "Capture live from the Linux HCI monitor: every controller's traffic, as btmon sees it.",
        discussion: """
        Needs CAP_NET_RAW: run as root, or once: sudo setcap cap_net_raw+ep $(which btlog). \
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
        let monitor: (fd: Int32, realSocket: Bool)
        do {
            if let monitorFD {
                var on: Int32 = 1
                _ = setsockopt(monitorFD, SOL_SOCKET, SO_TIMESTAMP, &on, socklen_t(MemoryLayout<Int32>.size))
                monitor = (monitorFD, false)
            } else {
                monitor = (try MonitorSocket.open().fd, true)
            }
            if let user { try Privileges.drop(to: user) }
        } catch let error as CaptureError {
            StandardError.error(error.message)
            throw ExitCode(1)
        }
        let session = try LiveCaptureRun(command: self, monitorFD: monitor.fd, readsKernelDrops: monitor.realSocket)
        try session.run()
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
