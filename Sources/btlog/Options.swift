import ArgumentParser
import Foundation
import BTCapture
import BTDecode
import BTQuery
import BTRender
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How inputs are read; shared by every command that reads a capture.
struct InputOptionGroup: ParsableArguments {
    @Option(name: .customLong("pklg-utc-offset"),
            help: ArgumentHelp("The UTC offset of the local time an iOS PacketLogger file was written in, e.g. +02:00.", valueName: "+HH:MM"))
    var pklgUTCOffset: String?

    @Option(help: ArgumentHelp("Which capture to read from a sysdiagnose or bugreport holding several (a path or a file name).", valueName: "NAME"))
    var member: String?

    @Flag(help: "Read the captures as one timeline of one scenario (the two ends of a link): clocks aligned from the PDUs both show, each packet labelled with its source (frame.source).")
    var merge = false

    @Option(name: .customLong("offset"),
            help: ArgumentHelp("With --merge: how far a capture's clock reads ahead of the first's, instead of finding it from the PDUs (repeatable), e.g. board.btsnoop=+3612.402,+21ppm.", valueName: "FILE=SECONDS[,PPMppm]"))
    var offsets: [String] = []

    func validate() throws {
        if let pklgUTCOffset, UTCOffset.parse(pklgUTCOffset) == nil {
            throw ValidationError("--pklg-utc-offset takes +HH:MM or -HH:MM (e.g. +02:00), not '\(pklgUTCOffset)'")
        }
    }

    /// What a command reads: each file, or with --merge every file as one timeline (the
    /// clocks' alignment reported on standard error as the merge opens).
    func sources(_ files: [String]) throws -> [InputSource] {
        // (btlog merge asks for mergeRequest itself: --merge goes without saying there.)
        if !offsets.isEmpty && !merge { throw ValidationError("--offset gives a clock for --merge; add --merge") }
        guard merge else {
            return files.map { file in
                InputSource(label: file, isStandardInput: file == "-") { follow in
                    var options = inputOptions
                    options.follow = follow
                    return try CaptureInput.open(file, options: options)
                }
            }
        }
        let request = try mergeRequest(files)
        return [InputSource(label: request.label, isStandardInput: false) { _ in
            try request.open { MergeReport.print($0) }
        }]
    }

    /// For a command that reads one capture at a time in its own way (annotate, diff, gatt, plot).
    func refuseMerge(_ command: String, because reason: String) throws {
        if merge { throw ValidationError("--merge does not apply to \(command): \(reason)") }
    }

    func mergeRequest(_ files: [String]) throws -> MergeRequest {
        if let problem = MergeRequest.problem(with: files) { throw ValidationError(problem) }
        var request = MergeRequest(files: files, input: inputOptions)
        for offset in offsets {
            if let problem = request.addOffset(offset) { throw ValidationError(problem) }
        }
        return request
    }
}

/// A capture as a command reads it: a file, or several merged into one timeline.
struct InputSource {
    /// The file's name, or the merged files' ("phone.btsnoop + board.btsnoop").
    let label: String
    let isStandardInput: Bool
    /// Opens it; `true` to read on as the file grows (--follow).
    let open: (_ follow: Bool) throws -> FrameReader
}

/// How the merged sources' clocks were found, on standard error.
enum MergeReport {
    static func print(_ alignment: SourceAlignment) {
        if alignment.basis == .timestamps {
            StandardError.warning("merge: " + alignment.summary)
        } else {
            StandardError.note("merge: " + alignment.summary)
        }
        for line in alignment.linkLines { StandardError.note("merge: " + line) }
    }
}

extension InputOptionGroup {
    var inputOptions: InputOptions {
        InputOptions(pklgUTCOffset: pklgUTCOffset.flatMap(UTCOffset.parse) ?? 0, member: member)
    }
}

enum UTCOffset {
    /// "+HH:MM", "-HH:MM", "+HHMM" or "+HH" → microseconds.
    static func parse(_ text: String) -> Int64? {
        guard let sign = text.first, sign == "+" || sign == "-" else { return nil }
        let digits = text.dropFirst().replacingOccurrences(of: ":", with: "")
        // ASCII digits only: `isNumber` also takes "٠٢" or "½", which Int64() then refuses.
        guard digits.allSatisfy({ $0.isASCII && $0.isWholeNumber }), digits.count == 2 || digits.count == 4,
              let hours = Int64(digits.prefix(2)), let minutes = digits.count == 4 ? Int64(digits.suffix(2)) : 0 else { return nil }
        guard hours <= 14, minutes < 60 else { return nil }
        let magnitude = (hours * 3600 + minutes * 60) * 1_000_000
        return sign == "-" ? -magnitude : magnitude
    }
}

/// Which packets: shared by show, grep, capture, export, stats and diagnose. The packet range
/// (the count is LimitOptionGroup: grep has its own -c), the filter expression and
/// PacketLogger's quick filters, all ANDed.
struct SelectionOptionGroup: ParsableArguments {
    @Option(help: ArgumentHelp("Only packets numbered in this range: 10-20, 10- or -20.", valueName: "RANGE"))
    var packets: String?

    @Option(name: [.customShort("f"), .customShort("Y"), .long],
            help: ArgumentHelp("Only packets the expression matches, e.g. 'att.opcode == write_req and att.handle == 0x2a' (see FILTER EXPRESSIONS in the man page; -Y as in tshark).", valueName: "EXPR"))
    var filter: String?

    @Option(name: .customLong("type"),
            help: ArgumentHelp("Only these packet types: cmd, event, acl, sco, iso, or a protocol present in the packet (l2cap, att, smp, sdp, rfcomm, avdtp, avctp, hid, bnep...). Comma-separated or repeated.", valueName: "TYPE,..."))
    var types: [String] = []

    @Option(name: .customLong("device"), help: ArgumentHelp("Only packets about this device address (repeatable).", valueName: "ADDR"))
    var devices: [String] = []

    @Option(name: .customLong("handle"), help: ArgumentHelp("Only packets on this connection handle, e.g. 0x0040 or 64 (repeatable).", valueName: "HANDLE"))
    var handles: [String] = []

    @Flag(help: "Only packets with an error (a malformed packet, a non-zero status, an ATT Error Response...).")
    var errors = false

    @Flag(help: "Only packets flagged with 'btlog annotate --flag'.")
    var flagged = false

    @Option(help: ArgumentHelp("Leave out bulk traffic: nocp (Number Of Completed Packets), adv (advertising and inquiry reports), media (A2DP audio), iso, sco, empty (air captures' Empty PDUs, NULL and POLL). Comma-separated or repeated.", valueName: "CLASS,..."))
    var hide: [String] = []

    private static func list(_ values: [String]) -> [String] { values.flatMap(CommaList.items) }

    private var handleValues: [UInt16?] {
        SelectionOptionGroup.list(handles).map { text in
            let lower = text.lowercased()
            return lower.hasPrefix("0x") ? UInt16(lower.dropFirst(2), radix: 16) : UInt16(lower)
        }
    }

    func validate() throws {
        if let packets, PacketSelection.parseRange(packets) == nil {
            throw ValidationError("--packets takes a range of packet numbers such as 10-20, 10- or -20, not '\(packets)'")
        }
        for (text, value) in zip(SelectionOptionGroup.list(handles), handleValues) where value == nil || value! > 0x0EFF {
            throw ValidationError("--handle takes a connection handle from 0 to 0x0EFF, such as 0x0040 or 64, not '\(text)'")
        }
        for device in SelectionOptionGroup.list(devices) where FieldValue.parse(device, as: .address) == nil {
            throw ValidationError("--device takes a device address such as 00:1B:DC:F2:1E:4F, not '\(device)'")
        }
        for word in SelectionOptionGroup.list(hide) where QuickFilters.HiddenClass(rawValue: word.lowercased()) == nil {
            throw ValidationError("--hide takes \(QuickFilters.HiddenClass.allCases.map(\.rawValue).joined(separator: ", ")), not '\(word)'")
        }
    }

    var quickFilters: QuickFilters {
        var quick = QuickFilters()
        quick.types = SelectionOptionGroup.list(types)
        quick.devices = SelectionOptionGroup.list(devices).map { BDAddr($0) }
        quick.handles = handleValues.compactMap { $0 }
        quick.errorsOnly = errors
        quick.flaggedOnly = flagged
        quick.hidden = SelectionOptionGroup.list(hide).compactMap { QuickFilters.HiddenClass(rawValue: $0.lowercased()) }
        return quick
    }

    /// The packet range, then the filters, then the count (`-c` of show and capture): the
    /// stages every command's chain begins with. Throws a FilterError or QuickFilterError
    /// (usage errors, exit status 2).
    func stages(count: Int? = nil) throws -> [any PacketStage] {
        var filters: [PacketFilter] = []
        if let filter { filters.append(try PacketFilter(filter)) }
        if let quick = try quickFilters.filter() { filters.append(quick) }
        let range = packets.flatMap(PacketSelection.parseRange)
        // No stage where there is nothing to select: every stage costs each packet a call.
        var stages: [any PacketStage] = range.map { [PacketSelection(range: $0)] } ?? []
        if let first = filters.first { stages.append(FilterStage(filters.dropFirst().reduce(first, &&))) }
        if let count { stages.append(PacketSelection(count: count)) }
        return stages
    }
}

/// What an option given as "a, b,c" (or repeated) lists: the items, trimmed, empty ones dropped.
enum CommaList {
    static func items(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}

/// `-c N`: show and capture stop after N packets (grep's -c counts instead).
struct LimitOptionGroup: ParsableArguments {
    @Option(name: [.customShort("c"), .long], help: ArgumentHelp("Stop after N packets (counted after the filters).", valueName: "N"))
    var count: Int?

    func validate() throws {
        if let count, count < 1 { throw ValidationError("--count takes a number of packets, 1 or more") }
    }
}

enum ColorChoice: String, ExpressibleByArgument, CaseIterable {
    case auto, always, never

    /// auto: only on a terminal, and not when NO_COLOR is set to something.
    func enabled(for out: OutputWriter) -> Bool {
        self == .auto ? out.isTerminal && enabledOnTerminal : enabledOnTerminal
    }

    /// For a view that owns the terminal (browse): auto means unless NO_COLOR is set to something.
    var enabledOnTerminal: Bool {
        switch self {
        case .always: return true
        case .never: return false
        case .auto: return !(getenv("NO_COLOR").map { $0.pointee != 0 } ?? false)
        }
    }
}

extension TimeFormatter.Mode: ExpressibleByArgument {}

/// `--color`, declared once for every command that prints in colour.
struct ColorOptionGroup: ParsableArguments {
    @Option(help: ArgumentHelp("Colour: auto (when the output is a terminal and NO_COLOR is unset), always or never (errors red, warnings yellow).",
                               valueName: "auto|always|never"))
    var color: ColorChoice = .auto
}

/// `--no-progress`, declared once for every command that reads captures at length.
struct ProgressOptionGroup: ParsableArguments {
    @Flag(name: .customLong("no-progress"),
          help: "Never show the progress line (shown on standard error, when it is a terminal, for a run that takes more than half a second).")
    var noProgress = false
}

/// How packets are printed: shared by show and capture.
struct DisplayOptionGroup: ParsableArguments {
    @Flag(name: [.customShort("V"), .long], help: "Print every layer of every packet with all its fields (the hierarchical view).")
    var tree = false

    @Flag(name: [.customShort("x"), .long], help: "With the tree, add each packet's bytes as hex and ASCII.")
    var hex = false

    @Option(help: ArgumentHelp("Time column: abs (May 08 23:04:39.824, local time), rel (since the first packet), delta (since the previous one) or epoch.", valueName: "abs|rel|delta|epoch"))
    var time: TimeFormatter.Mode = .abs

    @Option(help: ArgumentHelp("Print only these fields, tab-separated, one row per packet (like tshark -T fields); see 'btlog fields'.", valueName: "NAME,..."))
    var fields: String?

    @OptionGroup var coloring: ColorOptionGroup
    var color: ColorChoice { coloring.color }

    @Flag(help: "Fold runs of consecutive packets that differ only in counters (same type, handle and summary but for its decimal numbers) into one row ending '× N'; a packet with an issue, comment or flag is never folded. The table only.")
    var collapse = false

    var fieldNames: [String]? { fields.map(CommaList.items) }

    func validate() throws {
        if collapse && (tree || fields != nil) { throw ValidationError("--collapse folds rows of the table; not with --tree or --fields") }
        guard let names = fieldNames else { return }
        if names.isEmpty { throw ValidationError("--fields takes a comma-separated list of field names; 'btlog fields' lists them") }
        let unknown = FieldsRenderer.columns(for: names).unknown
        if !unknown.isEmpty {
            throw ValidationError("unknown field\(unknown.count == 1 ? "" : "s") \(unknown.map { "'\($0)'" }.joined(separator: ", ")); 'btlog fields' lists them")
        }
        if tree { throw ValidationError("--fields and --tree choose different views; give one") }
    }

    var mode: RenderMode {
        if let names = fieldNames { return .fields(FieldsRenderer.columns(for: names).columns) }
        return tree ? .tree : .table
    }

    func renderOptions(for out: OutputWriter) -> RenderOptions {
        var options = RenderOptions()
        options.time = time
        options.hex = hex
        options.style = Style(enabled: color.enabled(for: out))
        options.width = out.terminalWidth
        return options
    }
}

/// A length of time on the command line: 1s, 250ms, 500us, 2min, or bare seconds (0.5).
struct TimeSpan: ExpressibleByArgument, Equatable {
    var microseconds: Int64

    init(microseconds: Int64) { self.microseconds = microseconds }

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [(String, Double)] = [("min", 60_000_000), ("ms", 1000), ("us", 1), ("µs", 1), ("s", 1_000_000)]
        var number = Substring(text), scale = 1_000_000.0
        for (suffix, value) in units where text.hasSuffix(suffix) {
            number = text.dropLast(suffix.count)
            scale = value
            break
        }
        guard let value = Double(number), value.isFinite, value >= 0, value * scale < 1e15 else { return nil }
        microseconds = Int64((value * scale).rounded())
    }

    var defaultValueDescription: String { microseconds % 1_000_000 == 0 ? "\(microseconds / 1_000_000)s" : "\(microseconds)us" }
}
