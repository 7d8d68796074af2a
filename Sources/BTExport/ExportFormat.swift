import BTCapture
import BTRender

/// What an export writes: a line format, text, hex, a capture file format, or one audio stream.
public enum ExportFormat: String, CaseIterable, Sendable {
    case jsonl, json, csv, text, hex
    case btsnoop, pklg, pcap, pcapng
    case btsnoopH4 = "btsnoop-h4", btsnoopHCI = "btsnoop-hci", btsnoopMonitor = "btsnoop-monitor"
    case pcapH4 = "pcap-h4", pcapMonitor = "pcap-monitor"
    case sbc, msbc, cvsd

    public var isCapture: Bool { ![.jsonl, .json, .csv, .text, .hex].contains(self) && !isAudio }
    public var isAudio: Bool { [.sbc, .msbc, .cvsd].contains(self) }

    /// JSON objects give every layer's summary and the decoders' value names, and flat ones
    /// (--fields) the names asked for; the tree its fields' text. Everything else only values
    /// and the top summary, which are always there.
    public func buildsDisplayText(tree: Bool, columns: [ExportColumn]?) -> Bool {
        switch self {
        case .jsonl, .json, .csv:
            guard let columns else { return self != .csv }
            return columns.contains { if case .valueName = $0 { return true } else { return false } }
        case .text: return tree
        default: return false
        }
    }

    /// The file format for frames read from an input of `native` format: btsnoop and pcap keep
    /// the input's own datalink where it has one of theirs (so an unfiltered btsnoop export is
    /// the same file), else the one that keeps most (monitor: controller indexes and notes).
    public func captureFormat(for native: CaptureFileFormat) -> CaptureFileFormat {
        switch self {
        case .btsnoop:
            switch native {
            case .btsnoopHCI, .btsnoopH4, .btsnoopMonitor: return native
            case .pcapH4: return .btsnoopH4
            default: return .btsnoopMonitor
            }
        case .pcap:
            switch native {
            case .btsnoopMonitor, .pcapMonitor, .pcapng: return .pcapMonitor
            case .pcapLELL, .pcapLELLWithRadioHeader, .pcapNordicBLE, .pcapPPI, .pcapBREDRBB: return native
            default: return .pcapH4
            }
        case .pklg: return .pklg
        case .pcapng: return .pcapng
        case .btsnoopH4: return .btsnoopH4
        case .btsnoopHCI: return .btsnoopHCI
        case .btsnoopMonitor: return .btsnoopMonitor
        case .pcapH4: return .pcapH4
        case .pcapMonitor: return .pcapMonitor
        case .jsonl, .json, .csv, .text, .hex, .sbc, .msbc, .cvsd: preconditionFailure("not a capture format")
        }
    }

    /// From an output file's extension.
    public static func guess(_ path: String) -> ExportFormat? {
        let lower = path.lowercased()
        let table: [(String, ExportFormat)] = [
            (".jsonl", .jsonl), (".ndjson", .jsonl), (".json", .json), (".csv", .csv), (".txt", .text), (".hex", .hex),
            (".btsnoop", .btsnoop), (".log", .btsnoop), (".cfa", .btsnoop), (".pklg", .pklg), (".pcapng", .pcapng), (".pcap", .pcap),
            (".sbc", .sbc), (".msbc", .msbc), (".cvsd", .cvsd),
        ]
        return table.first { lower.hasSuffix($0.0) }?.1
    }
}
