import ArgumentParser
import Foundation
import BTCapture
import BTQuery
import BTRender
#if canImport(Glibc)
import Glibc
#endif

/// How inputs are read; shared by every command that reads a capture.
struct InputOptionGroup: ParsableArguments {
    @Option(name: .customLong("pklg-utc-offset"),
            help: ArgumentHelp("The UTC offset of the local time an iOS PacketLogger file was written in, e.g. +02:00.", valueName: "+HH:MM"))
    var pklgUTCOffset: String?

    @Option(help: ArgumentHelp("Which capture to read from a sysdiagnose or bugreport holding several (a path or a file name).", valueName: "NAME"))
    var member: String?

    func validate() throws {
        if let pklgUTCOffset, UTCOffset.parse(pklgUTCOffset) == nil {
            throw ValidationError("--pklg-utc-offset takes +HH:MM or -HH:MM (e.g. +02:00), not '\(pklgUTCOffset)'")
        }
    }

    var inputOptions: InputOptions {
        InputOptions(pklgUTCOffset: pklgUTCOffset.flatMap(UTCOffset.parse) ?? 0, member: member)
    }
}

enum UTCOffset {
    /// "+HH:MM", "-HH:MM", "+HHMM" or "+HH" → microseconds.
    static func parse(_ text: String) -> Int64? {
        guard let sign = text.first, sign == "+" || sign == "-" else { return nil }
        let digits = text.dropFirst().replacingOccurrences(of: ":", with: "")
        guard digits.allSatisfy(\.isNumber), digits.count == 2 || digits.count == 4 else { return nil }
        let hours = Int64(digits.prefix(2))!, minutes = digits.count == 4 ? Int64(digits.suffix(2))! : 0
        guard hours <= 14, minutes < 60 else { return nil }
        let magnitude = (hours * 3600 + minutes * 60) * 1_000_000
        return sign == "-" ? -magnitude : magnitude
    }
}

/// Which packets: shared by show, capture and export. Filter expressions join this group later.
struct SelectionOptionGroup: ParsableArguments {
    @Option(name: [.customShort("c"), .long], help: ArgumentHelp("Stop after N packets.", valueName: "N"))
    var count: Int?

    @Option(help: ArgumentHelp("Only packets numbered in this range: 10-20, 10- or -20.", valueName: "RANGE"))
    var packets: String?

    func validate() throws {
        if let count, count < 1 { throw ValidationError("--count takes a number of packets, 1 or more") }
        if let packets, PacketSelection.parseRange(packets) == nil {
            throw ValidationError("--packets takes a range of packet numbers such as 10-20, 10- or -20, not '\(packets)'")
        }
    }

    var selection: PacketSelection {
        PacketSelection(range: packets.flatMap(PacketSelection.parseRange), count: count)
    }
}

enum ColorChoice: String, ExpressibleByArgument, CaseIterable {
    case auto, always, never

    /// auto: only on a terminal, and not when NO_COLOR is set to something.
    func enabled(for out: OutputWriter) -> Bool {
        switch self {
        case .always: return true
        case .never: return false
        case .auto: return out.isTerminal && !(getenv("NO_COLOR").map { $0.pointee != 0 } ?? false)
        }
    }
}

extension TimeFormatter.Mode: ExpressibleByArgument {}

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

    @Option(help: ArgumentHelp("Colour: auto (when the output is a terminal and NO_COLOR is unset), always or never.", valueName: "auto|always|never"))
    var color: ColorChoice = .auto

    var fieldNames: [String]? {
        fields.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
    }

    func validate() throws {
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
