import BTCapture

/// One field of a layer, as the layer stores it: a plain value, copied without reference
/// counting and dropped without a release, so that a packet's layers are refilled field by
/// field without the runtime touching each one. Its text and byte strings are not in it but in
/// the layer's `fieldBytes`, so a field is read with the layer that holds it: `layer.value(of:)`,
/// or, in the views, `field.writeDisplayText(in: bytes, to:)` over the layer's bytes;
/// `layer.copy(of:)` makes a `FieldCopy` that stands alone, for what is kept past the packet.
public struct Field {
    public let definition: FieldDefinition
    @usableFromInline var stored: StoredValue
    /// Where its decoder's display text is in the layer's `fieldBytes` (see `form`); nil: none.
    @usableFromInline var storedDisplay: StoredBytes?
    /// The bytes it was read from, offsets in its layer's source.
    public internal(set) var range: Range<Int>?
    /// How the display text and the value make the text a person reads.
    public internal(set) var form = Form.text

    public enum Form: UInt8, Sendable {
        /// The display text, or the value's own text.
        case text
        /// The integer value in decimal (`Layer.add(_:_:inDecimal:at:)`).
        case decimal
        /// The display text as a name, then the value: "Command Complete (0x0E)".
        case named
    }

    /// Whether its decoder gave it display text of its own.
    public var hasWrittenDisplay: Bool { storedDisplay != nil }

    /// The field with its text and bytes `delta` further on in `fieldBytes` (moved with them
    /// between a layer and a memo of it).
    func movingStoredBytes(by delta: Int) -> Field {
        func moved(_ place: StoredBytes) -> StoredBytes {
            StoredBytes(start: UInt32(truncatingIfNeeded: Int(place.start) &+ delta), count: place.count)
        }
        var field = self
        switch stored {
        case .text(let place): field.stored = .text(moved(place))
        case .bytes(let place): field.stored = .bytes(moved(place))
        default: break
        }
        field.storedDisplay = storedDisplay.map(moved)
        return field
    }
}

/// Where a text or byte string is in a layer's `fieldBytes`.
@usableFromInline struct StoredBytes {
    @usableFromInline var start: UInt32
    @usableFromInline var count: UInt32
}

/// A `FieldValue` with its text or bytes kept as a place in the layer's `fieldBytes`.
@usableFromInline enum StoredValue {
    case unsigned(UInt64, width: Int)
    case signed(Int64)
    case bool(Bool)
    case text(StoredBytes)
    case bytes(StoredBytes)
    case address(BDAddr)
    case uuid(BTUUID)
    case time(Int64)
    case real(Double)
}

/// A field copied out of its layer, standing alone: its value, display text and range. For what
/// outlives the packet (a sink's kept rows, a memo, a test's look at a layer) and for code that
/// reads a few fields where speed does not matter; the views read fields in place.
public struct FieldCopy {
    public let definition: FieldDefinition
    public var value: FieldValue
    /// As its decoder wrote it (see `form`), nil: none.
    public var writtenDisplay: String?
    public var range: Range<Int>?
    public var form: Field.Form

    public init(definition: FieldDefinition, value: FieldValue, writtenDisplay: String? = nil, range: Range<Int>? = nil, form: Field.Form = .text) {
        self.definition = definition
        self.value = value
        self.writtenDisplay = writtenDisplay
        self.range = range
        self.form = form
    }

    /// How a person reads it ("LE Set Scan Enable (0x200C)", "612"); nil: the value's own text.
    public var display: String? {
        switch form {
        case .text: return writtenDisplay
        case .decimal: return value.decimalText
        case .named: return writtenDisplay.map { "\($0) (\(value.displayText))" }
        }
    }

    /// How the tree shows it.
    public var text: String { display ?? value.displayText }

    /// The name its decoder gave a coded value ("Write Request" for att.opcode 0x12), without
    /// the value; otherwise the text a person reads.
    public var name: String {
        if form == .named, let writtenDisplay { return writtenDisplay }
        return text
    }
}

// MARK: Reading a field from its layer's bytes

extension Field {
    /// The value when the field holds it itself (all but text and byte strings), else nil.
    @inlinable public var inlineValue: FieldValue? {
        switch stored {
        case .unsigned(let v, let width): return .unsigned(v, width: width)
        case .signed(let v): return .signed(v)
        case .bool(let v): return .bool(v)
        case .text, .bytes: return nil
        case .address(let a): return .address(a)
        case .uuid(let u): return .uuid(u)
        case .time(let t): return .time(t)
        case .real(let v): return .real(v)
        }
    }

    /// The bytes at `place` of `bytes` (its layer's `fieldBytes`); empty if they are not there
    /// (a field read against another layer's bytes: never in btlog, and never a trap).
    @inlinable static func stored(_ place: StoredBytes, in bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        let start = Int(place.start), count = Int(place.count)
        guard start <= bytes.count, count <= bytes.count - start, let base = bytes.baseAddress else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: base + start, count: count)
    }

    /// A text field's UTF-8 or a byte string's bytes, in `bytes` (its layer's `fieldBytes`); nil
    /// for other values.
    @inlinable public func storedBytes(in bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        switch stored {
        case .text(let place), .bytes(let place): return Field.stored(place, in: bytes)
        default: return nil
        }
    }

    /// Whether the value is text (its bytes then UTF-8), not a byte string.
    @inlinable public var isText: Bool {
        if case .text = stored { return true }
        return false
    }

    /// A byte string's length (0 for other values).
    @inlinable public var byteCount: Int {
        if case .bytes(let place) = stored { return Int(place.count) }
        return 0
    }

    /// Writes the display text its decoder wrote (the name part of a named code).
    @inlinable public func writeWrittenDisplay<O: ASCIIOutput>(in bytes: UnsafeBufferPointer<UInt8>, to out: inout O) {
        if let place = storedDisplay { out.put(Field.stored(place, in: bytes)) }
    }

    /// Writes the value as `FieldValue.writeDisplayText` does.
    @inlinable public func writeDisplayText<O: ASCIIOutput>(in bytes: UnsafeBufferPointer<UInt8>, to out: inout O) {
        switch stored {
        case .text(let place): out.put(Field.stored(place, in: bytes))
        case .bytes(let place): Hex.append(bytes: Field.stored(place, in: bytes), to: &out)
        default: inlineValue?.writeDisplayText(to: &out)
        }
    }

    /// Writes an integer in decimal, other values as their display text.
    @inlinable public func writeDecimal<O: ASCIIOutput>(in bytes: UnsafeBufferPointer<UInt8>, to out: inout O) {
        if case .unsigned(let v, _) = stored { return ASCII.appendDecimal(v, to: &out) }
        writeDisplayText(in: bytes, to: &out)
    }

    /// The display text its decoder wrote, as a String (nil: none).
    public func writtenDisplay(in bytes: UnsafeBufferPointer<UInt8>) -> String? {
        storedDisplay.map { String(decoding: Field.stored($0, in: bytes), as: UTF8.self) }
    }
}

// MARK: Storing fields

extension Layer {
    // A field is stored in two steps: its value made a stored one where it is added (inlined,
    // so that a value the call site builds, `.u16(handle)`, needs no switch at run time), then
    // put on the layer by a call.

    /// The value as the layer keeps it: text and bytes copied into `fieldBytes`.
    @inline(__always)
    mutating func storing(_ value: __owned FieldValue) -> StoredValue {
        switch value {
        case .unsigned(let v, let width): return .unsigned(v, width: width)
        case .signed(let v): return .signed(v)
        case .bool(let v): return .bool(v)
        case .text(let s): return .text(keep(s))
        case .bytes(let b): return .bytes(keep(b))
        case .address(let a): return .address(a)
        case .uuid(let u): return .uuid(u)
        case .time(let t): return .time(t)
        case .real(let v): return .real(v)
        }
    }

    /// Puts a field without display text of its own on the layer.
    @inline(never)
    mutating func store(_ definition: FieldDefinition, _ stored: StoredValue, range: Range<Int>?, form: Field.Form) {
        fields.append(Field(definition: definition, stored: stored, storedDisplay: nil, range: range, form: form))
    }

    /// Puts a field with the display text its decoder wrote on the layer.
    @inline(never)
    mutating func store(_ definition: FieldDefinition, _ stored: StoredValue, display: __owned String, range: Range<Int>?, form: Field.Form) {
        let shown = keep(display)
        fields.append(Field(definition: definition, stored: stored, storedDisplay: shown, range: range, form: form))
    }

    /// A field of this layer, its strings stored, not yet in `fields`.
    mutating func made(_ definition: FieldDefinition, _ value: __owned FieldValue, display: __owned String?, range: Range<Int>?,
                       form: Field.Form) -> Field {
        let stored = storing(value)
        var storedDisplay: StoredBytes?
        if let display { storedDisplay = keep(display) }
        return Field(definition: definition, stored: stored, storedDisplay: storedDisplay, range: range, form: form)
    }

    /// A field put back as it was copied out (`copy(of:)`).
    mutating func append(_ copy: FieldCopy) {
        fields.append(made(copy.definition, copy.value, display: copy.writtenDisplay, range: copy.range, form: copy.form))
    }

    /// Empties the layer's fields, keeping their storage. Plain values: nothing to release.
    mutating func removeFields() {
        // One at a time from the end: a layer keeps a few fields under a view's mask, and
        // removeAll(keepingCapacity:) costs more in its general path than popping them
        // (measured again with fields as plain values: still so).
        while fields.popLast() != nil {}
        fieldBytes.removeAll()
    }

    @inline(never)
    mutating func keep(_ text: __owned String) -> StoredBytes {
        let start = fieldBytes.count
        if text.utf8.withContiguousStorageIfAvailable({ fieldBytes.put($0) }) == nil {
            var text = text
            text.withUTF8 { fieldBytes.put($0) }
        }
        return StoredBytes(start: UInt32(truncatingIfNeeded: start), count: UInt32(truncatingIfNeeded: fieldBytes.count - start))
    }

    @inline(never)
    mutating func keep(_ bytes: __owned ArraySlice<UInt8>) -> StoredBytes {
        let start = fieldBytes.count
        bytes.withUnsafeBufferPointer { fieldBytes.put($0) }
        return StoredBytes(start: UInt32(truncatingIfNeeded: start), count: UInt32(truncatingIfNeeded: bytes.count))
    }
}

// MARK: Reading fields through their layer

extension Layer {
    /// A field's value (a field of this layer).
    @inlinable public func value(of field: Field) -> FieldValue {
        switch field.stored {
        case .text(let place): return .text(fieldBytes.withUnsafeBufferPointer { String(decoding: Field.stored(place, in: $0), as: UTF8.self) })
        case .bytes(let place): return .bytes(fieldBytes.slice(from: Int(place.start), count: Int(place.count)))
        default: return field.inlineValue!
        }
    }

    /// The display text its decoder wrote for a field, without the value (see `Field.Form`).
    public func writtenDisplay(of field: Field) -> String? {
        fieldBytes.withUnsafeBufferPointer { field.writtenDisplay(in: $0) }
    }

    /// A field standing alone, for keeping or for reading at leisure.
    public func copy(of field: Field) -> FieldCopy {
        FieldCopy(definition: field.definition, value: value(of: field), writtenDisplay: writtenDisplay(of: field), range: field.range,
                  form: field.form)
    }

    /// The value of the field added last (a decoder reading back what it just read).
    public var lastFieldValue: FieldValue? { fields.last.map { value(of: $0) } }

    /// Every field copied out, in order (see `FieldCopy`).
    public var fieldCopies: [FieldCopy] { fields.map { copy(of: $0) } }

    /// How the tree shows a field.
    public func text(of field: Field) -> String { copy(of: field).text }

    /// A byte-string field's bytes (nil for other values).
    public func bytesValue(of field: Field) -> ArraySlice<UInt8>? {
        if case .bytes(let place) = field.stored { return fieldBytes.slice(from: Int(place.start), count: Int(place.count)) }
        return nil
    }

    /// The layer's fields and the bytes their text and byte strings are in, lent in place, for
    /// `Field.writeDisplayText(in:to:)` and its kin. (A view holding the layer through a pointer
    /// reads `fieldBytes` and `fields` themselves instead: a method called on a value loaded
    /// through a pointer works on a copy, which retains each of the layer's arrays.)
    @inlinable public func withFields<R>(_ body: (UnsafeBufferPointer<Field>, UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try fieldBytes.withUnsafeBufferPointer { bytes in try fields.withUnsafeBufferPointer { try body($0, bytes) } }
    }
}
