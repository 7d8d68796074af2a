import BTCapture
import BTDecode
import BTQuery

/// A sink that prints Packets. The table, the tree, JSON, CSV and hex all take this shape,
/// so `show`, `capture` and `export` drive any of them the same way.
public protocol PacketRenderer {
    mutating func render(_ packet: Packet, to out: OutputWriter) throws
    /// Called once at the end with the counts of everything rendered.
    mutating func finish(_ statistics: CaptureStatistics, to out: OutputWriter) throws
    /// The packets that follow come from this capture (export of several files labels them).
    mutating func beginFile(_ name: String)
    /// Whether rendering costs enough to pay for a thread of its own (RenderingSink).
    var worthItsOwnThread: Bool { get }
    /// Whether the text of the packet just rendered depended on that packet alone, not on
    /// the packets rendered before it: another renderer with the same options, shown other
    /// packets before, would print the same (so `show -e` prints what it searched).
    var renderedPacketAlone: Bool { get }
    /// Keeps the state rendering `packet` would have left, for a packet printed from text
    /// rendered elsewhere (`Packet.renderedText`).
    mutating func account(for packet: Packet)
}

extension PacketRenderer {
    public mutating func beginFile(_ name: String) {}
    public var worthItsOwnThread: Bool { true }
    public var renderedPacketAlone: Bool { false }
    public mutating func account(for packet: Packet) {}
}

public struct RenderOptions: Sendable, Equatable {
    public var time: TimeFormatter.Mode = .abs
    public var style = Style(enabled: false)
    /// Cut lines to this many columns (a terminal); nil: never cut.
    public var width: Int?
    public var hex = false
    /// A column after the number marks flagged packets (when the capture has notes), with
    /// this mark: ⚑, or F where the terminal's encoding is not UTF-8.
    public var flagColumn: String?
    /// A Source column after the time, this wide, for captures merged into one timeline.
    public var sourceColumn: Int?
    public init() {}
}

/// Which view to print: the one place that maps the display options to a renderer.
public enum RenderMode {
    case table
    case tree
    case fields([FieldDefinition])

    /// Whether this view prints the fields' display text (the tree); the others print only
    /// summaries and values, so decoding can skip building that text.
    public var showsFieldText: Bool {
        if case .tree = self { return true }
        return false
    }

    /// The fields this view reads: the table its radio columns, `--fields` its columns, the
    /// tree every field.
    public var fieldsRead: FieldMask {
        switch self {
        case .table: return TableRenderer.fieldsRead
        case .tree: return .all
        case .fields(let columns): return .only(columns)
        }
    }

    public func makeRenderer(_ options: RenderOptions) -> PacketRenderer {
        switch self {
        case .table: return TableRenderer(options: options)
        case .tree: return TreeRenderer(options: options)
        case .fields(let columns): return FieldsRenderer(columns: columns)
        }
    }
}
