import BTCapture
import BTDecode
import BTQuery

/// `btlog grep`: renders each packet as the chosen view prints it (without colour), searches
/// its lines, and prints the selected packets with grep's context, separators, file prefixes
/// and match highlighting; or only counts them (-c), names the file (-l) or says nothing (-q).
public struct SearchingSink: PacketSink {
    public enum Output {
        /// The packets, as the view prints them.
        case packets
        /// -c: the number of selected packets.
        case count
        /// -l: the file's name when a packet is selected.
        case fileName
        /// -q: nothing; the first selected packet ends the search (the exit status tells).
        case quiet
    }

    var renderer: PacketRenderer
    let search: TextSearch
    var context: SearchContext
    let output: Output
    let out: OutputWriter
    /// Prefixed to each printed line, as grep does with several files ("FILE:" or "FILE-").
    let fileLabel: String?
    /// -m: stop after this many selected packets.
    let limit: Int?
    /// Highlight each match inside printed lines (--color).
    let highlight: Bool
    private let scratch = OutputWriter.capturing()
    public private(set) var selected = 0
    /// Whether this file printed a packet (the next file's first group is then separated).
    public var printedAny: Bool { context.printedAny }

    public init(renderer: PacketRenderer, search: TextSearch, context: SearchContext, output: Output, out: OutputWriter,
                fileLabel: String?, limit: Int?, highlight: Bool) {
        self.renderer = renderer
        self.search = search
        self.context = context
        self.output = output
        self.out = out
        self.fileLabel = fileLabel
        self.limit = limit
        self.highlight = highlight
    }

    public var isSatisfied: Bool {
        switch output {
        case .fileName, .quiet: return selected > 0
        case .count: return limit.map { selected >= $0 } ?? false
        case .packets: return limit.map { selected >= $0 && !context.wantsTrailingContext } ?? false
        }
    }

    /// Rendering and searching every packet is worth the second core, unless -m or -l can end
    /// the reading at a packet.
    public var runsOnItsOwnThread: Bool { limit == nil && output != .fileName && output != .quiet }

    public mutating func consume(_ packet: Packet) throws {
        try renderer.render(packet, to: scratch)
        let reachedLimit = limit.map { selected >= $0 } ?? false
        // Lent out (swapped, not copied: its held texts stay unshared) while the closure reads self.
        var window = SearchContext(before: 0, after: 0)
        swap(&window, &context)
        defer { swap(&window, &context) }
        try scratch.drain { text in
            let matched = !reachedLimit && search.selects(text)
            if matched { selected += 1 }
            guard output == .packets else { return }
            try window.add(text, matched: matched) { piece in
                switch piece {
                case .separator: try out.line("--")
                case .packet(let text, let matched): try write(text, matched: matched)
                }
            }
        }
    }

    /// Ends the file: the count or the name, when that is the output.
    public func finish(file: String) throws {
        switch output {
        case .count: try out.line(fileLabel.map { "\($0):\(selected)" } ?? "\(selected)")
        case .fileName: if selected > 0 { try out.line(file) }
        case .packets, .quiet: break
        }
    }

    private func write(_ text: UnsafeBufferPointer<UInt8>, matched: Bool) throws {
        var failure: Error?
        TextSearch.forEachLine(text) { line in
            do {
                var bytes: [UInt8] = []
                bytes.reserveCapacity(line.count + 16)
                if let fileLabel {
                    bytes.append(contentsOf: fileLabel.utf8)
                    bytes.append(matched ? UInt8(ascii: ":") : UInt8(ascii: "-"))
                }
                if highlight && matched && !search.invert {
                    appendHighlighted(line, to: &bytes)
                } else {
                    bytes.append(contentsOf: line)
                }
                try out.line(bytes: bytes)
                return true
            } catch {
                failure = error
                return false
            }
        }
        if let failure { throw failure }
    }

    /// The line with every match wrapped in grep's colours (bold red).
    private func appendHighlighted(_ line: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        var position = 0
        while position <= line.count, let match = search.pattern.firstMatch(in: line, from: position) {
            bytes.append(contentsOf: line[position ..< match.lowerBound])
            if match.isEmpty {
                // An empty match highlights nothing; step over one byte so the loop ends.
                guard match.upperBound < line.count else { position = line.count; break }
                bytes.append(line[match.upperBound])
                position = match.upperBound + 1
                continue
            }
            bytes.append(contentsOf: SearchingSink.matchColour)
            bytes.append(contentsOf: line[match])
            bytes.append(contentsOf: SearchingSink.endColour)
            position = match.upperBound
        }
        if position < line.count { bytes.append(contentsOf: line[position...]) }
    }

    static let matchColour = Array("\u{1B}[01;31m\u{1B}[K".utf8)
    static let endColour = Array("\u{1B}[m\u{1B}[K".utf8)
}
