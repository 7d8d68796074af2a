import BTCapture

/// Reading one layer's values by definition, as the statistics, the diagnosis and a protocol's
/// conversation do: the first occurrence, as the type the code needs. (The filter language and
/// export read every occurrence through `Packet.forEachValue`.)
extension Layer {
    public func value(_ field: FieldDefinition) -> FieldValue? {
        for index in fields.indices where fields[index].definition == field { return value(of: fields[index]) }
        return nil
    }

    /// An integer field's value (an unsigned, signed or boolean field).
    public func integer(_ field: FieldDefinition) -> Int? {
        switch value(field) {
        case .unsigned(let v, _)?: return Int(truncatingIfNeeded: v)
        case .signed(let v)?: return Int(v)
        case .bool(let v)?: return v ? 1 : 0
        default: return nil
        }
    }

    public func address(_ field: FieldDefinition) -> BDAddr? {
        if case .address(let a)? = value(field) { return a }
        return nil
    }

    public func text(_ field: FieldDefinition) -> String? {
        if case .text(let s)? = value(field) { return s }
        return nil
    }

    public func uuid(_ field: FieldDefinition) -> BTUUID? {
        if case .uuid(let u)? = value(field) { return u }
        return nil
    }

    /// The length of a byte-string field (0 when absent).
    public func byteCount(_ field: FieldDefinition) -> Int {
        var total = 0
        for index in fields.indices where fields[index].definition == field { total += fields[index].byteCount }
        return total
    }

    /// Every value of an integer field, in order (the CIDs of an enhanced credit-based request).
    public func integers(_ field: FieldDefinition) -> [Int] {
        fields.compactMap { field == $0.definition ? value(of: $0).integer : nil }
    }
}

extension FieldValue {
    public var integer: Int? {
        switch self {
        case .unsigned(let v, _): return Int(truncatingIfNeeded: v)
        case .signed(let v): return Int(v)
        case .bool(let v): return v ? 1 : 0
        default: return nil
        }
    }
}
