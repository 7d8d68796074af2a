import BTCapture
import BTDecode
import BTRender

/// The selected packet's tree as lines: each layer (highest first, as `show -V` prints them)
/// with its fields under it, then the issues; each line knows the bytes it covers, so the
/// hex pane highlights them.
public struct PacketTree: Equatable {
    public struct Line: Equatable {
        public enum Kind: Equatable {
            /// A layer's header; its fields follow unless it is collapsed.
            case layer(expanded: Bool)
            case field
            case issue(Issue.Severity)
            /// A person's comment on the packet (a note, a pcapng comment).
            case comment
            /// A merged packet's source and the other end of its PDU (`show -V`'s Merge lines).
            case origin
        }
        public var kind: Kind
        public var text: String
        /// The layer it belongs to (its index in the packet), nil for an issue.
        public var layer: Int?
        /// The layer's kind (an issue's, the layer it is about): what folding is remembered by;
        /// nil for the comment.
        public var layerKind: LayerKind?
        public var layerName: String { layerKind?.name ?? "" }
        /// The bytes the line covers in `source`.
        public var bytes: Range<Int>?
        public var source: Layer.Source
        /// A field line's field (what the values report plots).
        public var field: FieldDefinition?
    }

    public private(set) var lines: [Line] = []
    /// The frame's bytes and every buffer reassembled from several frames (`Layer.Source`).
    public private(set) var frameBytes: [UInt8] = []
    public private(set) var reassembled: [[UInt8]] = []

    public init() {}

    /// The tree of `packet`, with the layers whose kinds are in `collapsed` folded to their header.
    public init(_ packet: Packet, collapsed: Set<LayerKind>) {
        frameBytes = Array(packet.frame.bytes)
        reassembled = packet.reassembled.map { Array($0) }
        var lines: [Line] = []
        Self.forEachLine(of: packet, collapsed: collapsed) { lines.append($0); return true }
        self.lines = lines
    }

    /// Whether any line of the packet's whole tree satisfies `test` (a search over the tree),
    /// without the bytes a PacketTree keeps; stops at the first.
    public static func anyLine(of packet: Packet, _ test: (String) -> Bool) -> Bool {
        var found = false
        forEachLine(of: packet, collapsed: []) { line in
            found = test(line.text)
            return !found
        }
        return found
    }

    /// The tree's lines in order, each handed to `body` until it returns false: each layer
    /// (highest first) and its fields unless folded, then the issues, then the comment.
    static func forEachLine(of packet: Packet, collapsed: Set<LayerKind>, _ body: (Line) -> Bool) {
        for index in packet.layers.indices.reversed() {
            let layer = packet.layers[index]
            let expanded = !collapsed.contains(layer.kind)
            guard body(Line(kind: .layer(expanded: expanded), text: TreeRenderer.layerLine(layer), layer: index,
                            layerKind: layer.kind, bytes: layer.range, source: layer.source)) else { return }
            guard expanded else { continue }
            for field in layer.fields {
                guard body(Line(kind: .field, text: TreeRenderer.fieldLine(field, of: layer), layer: index, layerKind: layer.kind,
                                bytes: field.range, source: layer.source, field: field.definition)) else { return }
            }
        }
        if let origin = packet.frame.origin {
            for text in TreeRenderer.originLines(origin) {
                // As a layer's line: the pane draws no fold arrow on it.
                let trimmed = String(text.drop { $0 == " " }).replacingOccurrences(of: " ▼ ", with: " ")
                guard body(Line(kind: .origin, text: trimmed, layer: nil, layerKind: nil, bytes: nil, source: .frame)) else { return }
            }
        }
        if let identity = packet.peerIdentity, let peer = packet.peer {
            for text in TreeRenderer.identityLines(identity, peer: peer) {
                let trimmed = String(text.drop { $0 == " " }).replacingOccurrences(of: " ▼ ", with: " ")
                guard body(Line(kind: .origin, text: trimmed, layer: nil, layerKind: nil, bytes: nil, source: .frame)) else { return }
            }
        }
        for layer in packet.layers {
            for issue in layer.issues {
                let owner = issue.layer >= 0 && issue.layer < packet.layers.count ? packet.layers[issue.layer] : nil
                guard body(Line(kind: .issue(issue.severity), text: TreeRenderer.issueLine(issue), layer: nil,
                                layerKind: owner?.kind, bytes: nil, source: .frame)) else { return }
            }
        }
        if let comment = packet.comment {
            _ = body(Line(kind: .comment, text: "Comment: " + comment, layer: nil, layerKind: nil, bytes: nil, source: .frame))
        }
    }

    /// The bytes a source names (empty for one the packet does not have).
    public func bytes(of source: Layer.Source) -> [UInt8] {
        switch source {
        case .frame: return frameBytes
        case .reassembled(let index): return index >= 0 && index < reassembled.count ? reassembled[index] : []
        }
    }
}

/// The tree pane's state across packets: which layers are folded (by layer kind, so opening
/// another packet of the same kind shows it folded the same way), the selected line and the
/// first line on screen.
public struct TreeState: Equatable {
    public private(set) var collapsed: Set<LayerKind> = []
    public private(set) var tree = PacketTree()
    public private(set) var selected = 0
    public private(set) var top = 0
    public var height = 1 {
        didSet { height = min(max(height, 1), 1 << 20); keepSelectionVisible() }
    }
    /// Which packet the tree shows (its index), nil before one is opened.
    public private(set) var packetIndex: Int?

    public init() {}

    public var selectedLine: PacketTree.Line? {
        tree.lines.indices.contains(selected) ? tree.lines[selected] : nil
    }

    /// Shows `packet` (at `index` of the capture), keeping the selection on the line of the
    /// same layer and label when the new tree has one, else on the same layer, else the top.
    public mutating func show(_ packet: Packet, at index: Int) {
        let previous = selectedLine
        tree = PacketTree(packet, collapsed: collapsed)
        if packetIndex != index { top = 0 }
        packetIndex = index
        selected = 0
        if let previous {
            let label = Self.label(previous.text)
            if let same = tree.lines.firstIndex(where: { $0.layerKind == previous.layerKind && $0.kind == previous.kind && Self.label($0.text) == label }) {
                selected = same
            } else if let layer = tree.lines.firstIndex(where: { $0.layerKind == previous.layerKind }) {
                selected = layer
            }
        }
        keepSelectionVisible()
    }

    /// Forgets the packet (the list is empty).
    public mutating func clear() {
        tree = PacketTree()
        packetIndex = nil
        selected = 0
        top = 0
    }

    /// "Handle" of "Handle: 0x0040"; a layer's name for its header.
    static func label(_ text: String) -> Substring {
        text.prefix { $0 != ":" }
    }

    public mutating func move(by delta: Int) {
        guard !tree.lines.isEmpty else { return }
        let step = min(max(delta, -(1 << 30)), 1 << 30) // a caller's number never overflows
        selected = min(max(selected + step, 0), tree.lines.count - 1)
        keepSelectionVisible()
    }

    public mutating func select(line: Int) {
        guard !tree.lines.isEmpty else { return }
        selected = min(max(line, 0), tree.lines.count - 1)
        keepSelectionVisible()
    }

    /// Enter on a layer's header folds or unfolds it (and every layer of that name after it);
    /// on a field, it folds the layer the field belongs to.
    public mutating func toggle(_ packet: Packet) {
        guard let line = selectedLine, line.layer != nil else { return }
        guard let kind = line.layerKind else { return }
        if collapsed.contains(kind) { collapsed.remove(kind) } else { collapsed.insert(kind) }
        tree = PacketTree(packet, collapsed: collapsed)
        selected = tree.lines.firstIndex { $0.layerKind == kind && $0.layer != nil } ?? 0
        keepSelectionVisible()
    }

    /// Folds (`expanded` false) or unfolds every layer of the tree shown.
    public mutating func setAll(expanded: Bool, _ packet: Packet) {
        let kinds = Set(tree.lines.compactMap { $0.layer != nil ? $0.layerKind : nil })
        if expanded { collapsed.subtract(kinds) } else { collapsed.formUnion(kinds) }
        let kind = selectedLine?.layerKind
        tree = PacketTree(packet, collapsed: collapsed)
        selected = tree.lines.firstIndex { $0.layerKind == kind && $0.layer != nil } ?? 0
        keepSelectionVisible()
    }

    private mutating func keepSelectionVisible() {
        if selected < top { top = selected }
        if selected >= top + height { top = selected - height + 1 }
        top = max(0, min(top, max(0, tree.lines.count - height)))
    }
}
