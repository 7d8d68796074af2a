import BTCapture

/// The decoded tree of one Frame: its layers from the outermost (HCI) to the highest decoded,
/// each with fields, and the issues found on the way.
public struct Packet {
    public private(set) var frame: Frame
    /// From the outermost (HCI) to the highest decoded. Decoders open a layer in place
    /// (`openLayer`, then write it through `layers.update(index)`), or make one as a value and
    /// `append` it. Each slot is reused by the next packet decoded into this one (`LayerStack`).
    public internal(set) var layers = LayerStack()
    /// Connection handle the packet belongs to, if any.
    public var handle: UInt16?
    /// The remote device the packet concerns (from the connection or the packet itself).
    public var peer: BDAddr?
    /// The device behind `peer` where that is a resolvable private address a known identity
    /// key resolves (`PrivateAddresses`).
    public var peerIdentity: PrivateAddresses.Resolved?
    /// A person's note on the packet (`btlog annotate`, a pcapng packet comment), attached by
    /// the annotation stage.
    public var comment: String?
    /// Marked by a person as worth a second look (`btlog annotate --flag`).
    public var flagged = false
    /// The packet as the view prints it, when a stage already rendered it exactly so (`show
    /// -e` renders each packet to search it): the view writes these bytes instead of
    /// rendering again. Empty: not rendered.
    public var renderedText: [UInt8] = []
    /// The L2CAP PDU and SDU this packet completed, in the order they were reassembled from
    /// several frames (a K-frame finishing an SDU can itself arrive in ACL fragments): each
    /// layer decoded from one says which (`Layer.Source.reassembled`).
    public private(set) var reassembled: [ArraySlice<UInt8>] = []

    /// The last buffer reassembled, which the layers above it were decoded from (the tree's
    /// hex dump prints it). Setting it adds one.
    public var reassembledPDU: ArraySlice<UInt8>? {
        get { reassembled.last }
        set { if let newValue { reassembled.append(newValue) } }
    }
    /// Whether layers keep their fields' display text and every layer its summary
    /// (`DecodeOptions.buildsDisplayText`); otherwise only values and the top summary.
    public internal(set) var buildsDisplayText: Bool
    /// The fields its layers keep (`DecodeOptions.keptFields`), and whether they write summaries
    /// (other fields and no summary for a packet no stage can keep: `Decoder.decode(_:into:keeping:buildsDisplayText:)`).
    public internal(set) var keptFields: FieldMask
    /// The most severe issue's severity, kept so that the table, the colours and the counts
    /// need not walk every layer of every packet: noted as layers are appended and issues added
    /// through the packet, and for layers opened in place (whose decoders add issues to the
    /// layer alone) when decoding is done (`noteIssuesOfOpenedLayers`).
    public private(set) var worstSeverity: Issue.Severity?

    public init(frame: Frame, buildsDisplayText: Bool = true, keptFields: FieldMask = .all) {
        self.frame = frame
        comment = frame.comment
        self.buildsDisplayText = buildsDisplayText
        self.keptFields = keptFields
    }

    /// Empties the packet for the next frame, keeping what it allocated: the layer list, each
    /// layer's field and issue arrays, the reassembly list. Decoding a capture into one reused
    /// Packet allocates almost nothing per packet. A copy of the packet kept elsewhere (a sink
    /// that holds packets) is unaffected: the arrays are values, and a shared one is copied
    /// before it is cleared.
    mutating func reset(for frame: consuming Frame) {
        // Only when either has one: copying an Optional String, even a nil one, goes through
        // the runtime's generic value witness (90 instructions a packet). Before the frame is
        // moved in (not copied: a retain and a release a packet).
        if frame.comment != nil || comment != nil { comment = frame.comment }
        self.frame = consume frame
        // The layers stay in their slots as spares, opened again in place.
        layers.removeAll()
        // Only when there is something to clear: most packets reassemble and render nothing,
        // and clearing an empty array still costs a call.
        if !reassembled.isEmpty { reassembled.removeAll(keepingCapacity: true) }
        handle = nil
        peer = nil
        if peerIdentity != nil { peerIdentity = nil }
        flagged = false
        if !renderedText.isEmpty { renderedText.removeAll(keepingCapacity: true) }
        worstSeverity = nil
    }

    /// Empties the decoded layers (fields, issues), keeping their storage for the next packet
    /// decoded into this one. A sink's thread that is ahead of decoding calls it on the packets
    /// it has rendered, so that the decoding thread, then the slower of the two, finds their
    /// layers already emptied. (Fields are plain values now, so this releases only issues'
    /// messages; it was 6% of the decoding thread's instructions in the tree when each field
    /// held a String or a slice.)
    public mutating func releaseContents() {
        // Through the buffer (one uniqueness check), and only where there is something to let
        // go of: under a view that keeps no fields this is a test per layer.
        layers.withUnsafeMutableBufferPointer { layers in
            for index in layers.indices {
                layers[index].removeFields()
                if !layers[index].issues.isEmpty { layers[index].issues.removeAll(keepingCapacity: true) }
            }
        }
    }

    /// Which way a packet taken from the air went, which only the link layer's decoder can tell:
    /// central to peripheral is `.sent`, peripheral to central `.received` (a phone, the usual
    /// central, sends as it does in its own HCI log).
    mutating func setAirDirection(_ direction: Direction) { frame.direction = direction }

    /// The highest decoded layer, which names the packet in the one-line view.
    public var top: Layer? { layers.last }

    /// PacketLogger's Type column: the highest layer's name plus the direction for data.
    public var typeLabel: String { typeName + "\(directionSuffix)" }

    /// Writes `typeLabel` without making a String (the table and CSV write one per row) and
    /// returns its width in terminal columns.
    @inlinable @discardableResult
    public func writeTypeLabel<O: ASCIIOutput>(to out: inout O) -> Int {
        let nameColumns: Int
        if let top = layers.indices.last {
            // The kind's bytes, read in place: a copy of the layer costs.
            nameColumns = layers[top].kind.withNameBytes { bytes, columns in
                out.put(bytes)
                return columns
            }
        } else {
            let name = typeName // what a packet with no layer is called
            ASCII.append(name, to: &out)
            nameColumns = name.count
        }
        // The suffix's bytes where the compiler put them, not a String walked per row.
        let suffix = directionSuffix
        out.put(UnsafeBufferPointer(start: suffix.utf8Start, count: suffix.utf8CodeUnitCount))
        return nameColumns + suffix.utf8CodeUnitCount
    }

    /// The Type column's name part: the highest layer's name.
    public var typeName: String { layers.isEmpty ? "Unknown" : layers[layers.count - 1].name }

    /// " Send" or " Receive" after the name of a data layer ("ACL Send"); empty otherwise.
    public var directionSuffix: StaticString {
        // By index, not through `top`: the table asks per packet, and a copy of the layer costs.
        guard !layers.isEmpty, layers[layers.count - 1].showsDirection else { return "" }
        switch frame.direction {
        case .sent: return " Send"
        case .received: return " Receive"
        case .none: return ""
        }
    }

    /// The highest layer's summary: the one-line view's last column.
    public var summary: String { layers.isEmpty ? "" : layers[layers.count - 1].summary.description }

    // MARK: Building layers: the one way

    /// A new layer for this packet. A decoder fills it (fields, summary, issues), then
    /// `append`s it before handing on what the layer carries, so the layers above stand on it.
    public mutating func makeLayer(_ kind: LayerKind, range: Range<Int>, showsDirection: Bool = false) -> Layer {
        let source: Layer.Source = reassembled.isEmpty ? .frame : .reassembled(reassembled.count - 1)
        if layers.hasSpareToTake() {
            var layer = layers.takeSpare()
            layer.reuse(kind: kind, range: range, source: source, showsDirection: showsDirection, keepsDisplays: buildsDisplayText,
                        keptFields: keptFields)
            return layer
        }
        return Layer(kind: kind, range: range, source: source, showsDirection: showsDirection, keepsDisplays: buildsDisplayText,
                     keptFields: keptFields)
    }

    /// A new layer with its summary already written.
    public mutating func makeLayer(_ kind: LayerKind, summary: SummaryPiece, range: Range<Int>, showsDirection: Bool = false) -> Layer {
        var layer = makeLayer(kind, range: range, showsDirection: showsDirection)
        layer.summary += summary
        return layer
    }

    /// A layer whose bytes are what `cursor` has left to read: its range in the layer's source.
    public mutating func makeLayer(_ kind: LayerKind, over cursor: ByteCursor, showsDirection: Bool = false) -> Layer {
        let start = cursor.index - (reassembledPDU?.startIndex ?? frame.bytes.startIndex)
        var layer = makeLayer(kind, range: start ..< start + cursor.remaining, showsDirection: showsDirection)
        layer.cursorBase = cursor.index - start
        return layer
    }

    /// A new layer on top of this packet, opened in place (a spare slot made new): its index,
    /// through which its decoder writes it (`layers.update(index) { layer in ... }`, or
    /// `layers[index]` for one write). Nothing is moved or left to
    /// destroy, as a layer made by `makeLayer` and appended is. The layers above it are opened
    /// after it; its summary may be written once they are (`setSummaryIfShown`).
    public mutating func openLayer(_ kind: LayerKind, range: Range<Int>, showsDirection: Bool = false) -> Int {
        let source: Layer.Source = reassembled.isEmpty ? .frame : .reassembled(reassembled.count - 1)
        let keepsDisplays = buildsDisplayText, keptFields = keptFields
        return layers.open { layer, index in
            layer.reuse(kind: kind, range: range, source: source, showsDirection: showsDirection, keepsDisplays: keepsDisplays,
                        keptFields: keptFields, position: index)
        }
    }

    /// `openLayer` over what `cursor` has left to read.
    public mutating func openLayer(_ kind: LayerKind, over cursor: ByteCursor, showsDirection: Bool = false) -> Int {
        let start = cursor.index - (reassembledPDU?.startIndex ?? frame.bytes.startIndex)
        let source: Layer.Source = reassembled.isEmpty ? .frame : .reassembled(reassembled.count - 1)
        let keepsDisplays = buildsDisplayText, keptFields = keptFields
        return layers.open { layer, index in
            layer.reuse(kind: kind, range: start ..< start + cursor.remaining, source: source, showsDirection: showsDirection,
                        keepsDisplays: keepsDisplays, keptFields: keptFields, position: index)
            layer.cursorBase = cursor.index - start
        }
    }

    /// The bytes a layer (or a field of it) covers, from the frame or the buffer it was decoded from.
    public func bytes(of layer: Layer, _ range: Range<Int>? = nil) -> ArraySlice<UInt8>? {
        let source: ArraySlice<UInt8>
        switch layer.source {
        case .frame: source = frame.bytes
        case .reassembled(let index): source = index < reassembled.count ? reassembled[index] : []
        }
        let wanted = range ?? layer.range
        guard wanted.lowerBound >= 0, wanted.upperBound <= source.count else { return nil }
        return source[source.startIndex + wanted.lowerBound ..< source.startIndex + wanted.upperBound]
    }

    /// Puts a finished (or started) layer on top; the issues it carries are now this packet's.
    @inline(__always)
    public mutating func append(_ layer: __owned Layer) {
        let index = layers.count
        layers.append(layer)
        layers[index].position = index
        if !layers[index].issues.isEmpty {
            for i in layers[index].issues.indices {
                layers[index].issues[i].layer = index
                noteSeverity(layers[index].issues[i].severity)
            }
        }
    }

    /// Takes in the severity of the issues on layers opened in place, which their decoders add
    /// to the layer, not through the packet: `Decoder` calls it once a packet is decoded.
    mutating func noteIssuesOfOpenedLayers() {
        if let worst = layers.worstSeverity() { noteSeverity(worst) }
    }

    /// `append` for a decoder's `defer`: moves the layer in, leaving an empty one behind, where
    /// passing it would copy it (a retain and a release of each of its arrays) every packet.
    @inline(__always)
    public mutating func append(taking layer: inout Layer) {
        let taken = withUnsafeMutablePointer(to: &layer) { slot in
            let taken = slot.move()
            slot.initialize(to: Layer(kind: .placeholder, range: 0 ..< 0, source: .frame, showsDirection: false, keepsDisplays: false, reserving: 0))
            return taken
        }
        append(taken)
    }

    /// An issue on the highest layer appended so far (a decoder's own once it appended it).
    public mutating func addIssue(_ severity: Issue.Severity, _ message: String) {
        if layers.isEmpty {
            // Every decoder appends a layer; should one not, the issue is still shown.
            append(makeLayer(SystemDecoder.layerKind(frame.kind), range: 0 ..< frame.bytes.count))
        }
        layers[layers.count - 1].issues.append(Issue(severity: severity, message: message, layer: layers.count - 1))
        noteSeverity(severity)
    }

    private mutating func noteSeverity(_ severity: Issue.Severity) {
        if worstSeverity.map({ severity > $0 }) ?? true { worstSeverity = severity }
    }

    /// Gives the layer at `index` its summary once the layers above it are decoded, if a view
    /// will show it: the table shows only the highest layer's, the tree every layer's. A summary
    /// the layer's own protocol already set is kept.
    mutating func setSummaryIfShown(at index: Int, _ write: (inout SummaryText) -> Void) {
        guard layers[index].summary.isEmpty, buildsDisplayText || layers.count == index + 1 else { return }
        write(&layers[index].summary)
    }

    // MARK: Issues

    /// Every layer's issues, from the outermost layer up.
    public var issues: [Issue] { layers.flatMap(\.issues) }

    /// The most severe issue (the first of equals).
    public var worstIssue: Issue? {
        guard let worst = worstSeverity else { return nil }
        for i in layers.indices {
            if let issue = layers[i].issues.first(where: { $0.severity == worst }) { return issue }
        }
        return nil
    }

    public var hasError: Bool { worstSeverity == .error }

    /// Whether any issue is a warning (an error may be there too).
    public var hasWarning: Bool {
        switch worstSeverity {
        case .warning?: return true
        case .error?: return layers.indices.contains { i in layers[i].issues.contains { $0.severity == .warning } }
        default: return false
        }
    }

    /// The first field with this definition, searching from the highest layer down, copied out.
    public func fieldCopy(_ definition: FieldDefinition) -> FieldCopy? {
        for index in layers.indices.reversed() {
            if let field = layers[index].fields.first(where: { $0.definition == definition }) { return layers[index].copy(of: field) }
        }
        return nil
    }

    /// The value of the first field with this definition, searching from the highest layer down.
    public func value(of definition: FieldDefinition) -> FieldValue? {
        for index in layers.indices.reversed() {
            if let value = layers[index].value(definition) { return value }
        }
        return nil
    }
}

public struct Layer {
    /// What the layer is: its name and protocol, set by the decoder that made it.
    public private(set) var kind: LayerKind
    /// As the Type column and the tree show it.
    /// Inlinable, so a view in another module reads it in place rather than copying the Layer
    /// to call a getter.
    @inlinable public var name: String { kind.name }
    /// The protocol it belongs to: its kind's, or for a layer named after what it holds its
    /// first field's, or its name as a word ("Close Index" → close_index).
    public var protocolName: String {
        if let known = kind.protocolName { return known }
        if let first = fields.first { return first.definition.protocolName }
        return ValueName.key(kind.name)
    }
    /// What the one-line view shows for the layer, written by its decoder (`+=`, `set`).
    public var summary = SummaryText()
    /// Its fields, in order. Plain values: what a field's text or bytes are lies in the layer's
    /// `fieldBytes`, so a field is read with its layer (`value(of:)`, `copy(of:)`; see `Field`).
    public internal(set) var fields: [Field] = []
    /// The text and byte strings of its fields' values and display names, one after another:
    /// reused with the layer, so a packet's fields allocate nothing once the layer has grown.
    public internal(set) var fieldBytes = ReusedBytes()
    /// What is wrong in this layer: malformed, truncated, a protocol error. Kept with the
    /// layer so that an issue lands where it belongs whatever the decoder does next.
    public internal(set) var issues: [Issue] = []
    /// Where a layer's bytes (and its fields' ranges) are: the frame, or one of the buffers
    /// reassembled from several frames (`Packet.reassembled[index]`) for the layers decoded from it.
    public enum Source: Equatable {
        case frame
        case reassembled(Int)
    }

    /// The layer's bytes: offsets from 0 in its source, as are its fields' ranges.
    public var range: Range<Int>
    /// For a layer made over a cursor: the cursor's index of the source's first byte, so that
    /// `range(at:)` turns what a decoder's cursor reads into a field's range.
    var cursorBase = 0
    public private(set) var source: Source
    /// Data layers say Send/Receive in the Type column ("ACL Send"); HCI commands do not.
    public var showsDirection: Bool
    /// Whether fields keep their display text: only the tree (and search) read it, and
    /// building it for every field costs more than the rest of decoding together.
    public private(set) var keepsDisplays: Bool
    /// The fields it keeps (its first whatever this says): `add` and `read` store no other.
    public internal(set) var keptFields: FieldMask
    /// Its index in the packet, once there (opened in place, or appended); -1 before.
    var position = -1

    /// Layers are made by `Packet.makeLayer`, which knows the decode options.
    init(kind: LayerKind, range: Range<Int>, source: Source, showsDirection: Bool, keepsDisplays: Bool, keptFields: FieldMask = .all,
         reserving fieldCount: Int = 8) {
        self.kind = kind
        self.range = range
        self.source = source
        self.showsDirection = showsDirection
        self.keepsDisplays = keepsDisplays
        self.keptFields = keptFields
        summary.isWritten = keptFields.keepsSummaries
        if fieldCount > 0 { fields.reserveCapacity(fieldCount) }
    }

    /// The layer made new for another packet, keeping its arrays' capacity.
    mutating func reuse(kind: LayerKind, range: Range<Int>, source: Source, showsDirection: Bool, keepsDisplays: Bool, keptFields: FieldMask,
                        position: Int = -1) {
        self.kind = kind
        self.keptFields = keptFields
        summary.removeAll()
        summary.isWritten = keptFields.keepsSummaries
        self.range = range
        self.source = source
        self.showsDirection = showsDirection
        self.keepsDisplays = keepsDisplays
        cursorBase = 0
        self.position = position
        removeFields()
        if !issues.isEmpty { issues.removeAll(keepingCapacity: true) }
    }

    /// Runs `body`, which writes this layer's summary, with the summary written whatever the
    /// mask, and returns what it wrote; the summary is then as it was. For a decoder that needs
    /// a summary's text for more than the summary (BNEP makes an extension's into an issue,
    /// which every view shows).
    mutating func summaryText(writtenBy body: (inout Layer) throws -> Void) rethrows -> String {
        let saved = summary
        summary.isWritten = true
        defer { summary.isWritten = saved.isWritten }
        try body(&self)
        let text = summary.description
        summary = saved
        return text
    }

    /// Issues found before the layer was made (an L2CAP PDU's, found reassembling it) as its own.
    mutating func takeIssues(_ found: [Issue]) {
        issues = found
        if position >= 0 { for index in issues.indices { issues[index].layer = position } }
    }

    /// Keep every field added from here on, whatever the mask: for a layer whose decoder reads
    /// its own fields back (a vendor's sub-command chosen by the field read last, the
    /// manufacturer Read Local Version returns), before the fields it reads are added.
    /// (Whether its summary is written stays as the layer was made.)
    mutating func keepEveryField() { keptFields = .all }

    /// Whether `add` stores a field of this definition: the mask's, and a layer's first.
    @inline(__always) func keeps(_ definition: FieldDefinition) -> Bool { fields.isEmpty || keptFields.keeps(definition) }

    // The three `add`s are inlined as far as their mask check, so that a field the view does not
    // keep costs its caller the check alone: its value is not even built (the compiler sinks
    // it past the check). Storing one is a call (`store`), not code at every call site.

    @inline(__always)
    public mutating func add(_ definition: FieldDefinition, _ value: __owned FieldValue, _ display: @autoclosure () -> String? = nil,
                             at range: Range<Int>? = nil) {
        guard keeps(definition) else { return }
        let stored = storing(value)
        if keepsDisplays, let shown = display() { return store(definition, stored, display: shown, range: range, form: .text) }
        store(definition, stored, range: range, form: .text)
    }

    /// A code or length whose value is hex (`--fields` prints 0x0264) that a person reads in
    /// decimal ("612"): the tree writes the digits itself, no String made per packet.
    @inline(__always)
    public mutating func add(_ definition: FieldDefinition, _ value: __owned FieldValue, inDecimal: Bool, at range: Range<Int>? = nil) {
        guard keeps(definition) else { return }
        store(definition, storing(value), range: range, form: inDecimal && keepsDisplays ? .decimal : .text)
    }

    /// A code with its name, shown as "Name (0x0E)": the tree writes the value after the name,
    /// no String made per packet. A code without a name (nil: not in the decoder's table) shows
    /// its value alone.
    @inline(__always)
    public mutating func add(_ definition: FieldDefinition, _ value: __owned FieldValue, named name: @autoclosure () -> String?,
                             at range: Range<Int>? = nil) {
        guard keeps(definition) else { return }
        let stored = storing(value)
        if keepsDisplays, let shown = name() { return store(definition, stored, display: shown, range: range, form: .named) }
        store(definition, stored, range: range, form: .text)
    }

    /// The range in the layer's source of `count` bytes its decoder's cursor read at `index`
    /// (for a layer made with `Packet.makeLayer(_:over:)`).
    public func range(at index: Int, count: Int = 1) -> Range<Int> {
        index - cursorBase ..< index - cursorBase + count
    }

    /// An issue on this layer (its index in the packet is set when the layer is appended).
    public mutating func addIssue(_ severity: Issue.Severity, _ message: String) {
        issues.append(Issue(severity: severity, message: message, layer: position))
    }
}

public struct Issue: Equatable {
    public enum Severity: Int, Comparable {
        case note, warning, error
        public static func < (a: Severity, b: Severity) -> Bool { a.rawValue < b.rawValue }
    }
    public var severity: Severity
    public var message: String
    /// Index of the layer the issue belongs to in its packet.
    public var layer: Int

    public init(severity: Severity, message: String, layer: Int) {
        self.severity = severity
        self.message = message
        self.layer = layer
    }
}
