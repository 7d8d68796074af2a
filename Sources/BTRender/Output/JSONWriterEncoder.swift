import BTCapture

/// An `Encodable` value written through a `JSONWriter` as it is encoded: members in the order
/// the type encodes them (a synthesized conformance: its declaration order), names from
/// Swift's camelCase in snake_case (`maxTxOctets` → `max_tx_octets`), a nil optional written
/// as `null` (the member stays, so a reader sees every field of the schema), numbers with the
/// writer's three decimals unless a value says otherwise (`JSONWriterValue`), and a member
/// whose value is `JSONOmittable` and empty left out. A report's JSON then comes from its
/// document type alone; the schema test holds docs/*.schema.json to the same type.
public struct JSONWriterEncoder {
    public init() {}

    /// `value` as one JSON document's text (for the types of a report, which encode nothing that fails).
    public func text<T: Encodable>(of value: T) -> String {
        var json = JSONWriter()
        try? encode(value, into: &json)
        return json.text
    }

    /// `value` as one JSON document, into `json`.
    public func encode<T: Encodable>(_ value: T, into json: inout JSONWriter) throws {
        let sink = Sink(json)
        try sink.value(value, codingPath: [])
        json = sink.json
    }

    /// "maxTxOctets" → "max_tx_octets", "p95" → "p95".
    public static func snakeCase(_ name: String) -> String {
        var out = ""
        for character in name {
            if character.isUppercase {
                out.append("_")
                out.append(contentsOf: character.lowercased())
            } else {
                out.append(character)
            }
        }
        return out
    }

    /// The writer, shared by the containers of one document.
    final class Sink {
        var json: JSONWriter
        init(_ json: JSONWriter) { self.json = json }

        /// Writes `value`, closing whatever container its encoding opened.
        func value<T: Encodable>(_ value: T, codingPath: [CodingKey]) throws {
            if let written = value as? JSONWriterValue {
                written.write(to: &json)
                return
            }
            switch value {
            case let v as String: json.string(v)
            case let v as Bool: json.bool(v)
            case let v as Int: json.integer(v)
            case let v as Int64: json.integer(v)
            case let v as UInt8: json.integer(v)
            case let v as UInt16: json.integer(v)
            case let v as UInt32: json.integer(v)
            case let v as Double: json.number(v)
            default:
                let encoder = ValueEncoder(sink: self, codingPath: codingPath)
                try value.encode(to: encoder)
                encoder.close()
            }
        }
    }

    /// The encoder one value writes itself with: the first container it asks for opens its
    /// object or array; `close` ends it.
    final class ValueEncoder: Encoder {
        let sink: Sink
        let codingPath: [CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }
        private var opened: Character?

        init(sink: Sink, codingPath: [CodingKey]) {
            self.sink = sink
            self.codingPath = codingPath
        }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            if opened == nil {
                opened = "{"
                sink.json.beginObject()
            }
            return KeyedEncodingContainer(Keyed<Key>(encoder: self))
        }

        func unkeyedContainer() -> UnkeyedEncodingContainer {
            if opened == nil {
                opened = "["
                sink.json.beginArray()
            }
            return Unkeyed(encoder: self)
        }

        func singleValueContainer() -> SingleValueEncodingContainer { Single(encoder: self) }

        func close() {
            switch opened {
            case "{": sink.json.endObject()
            case "[": sink.json.endArray()
            default: break
            }
        }
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: ValueEncoder
        var codingPath: [CodingKey] { encoder.codingPath }

        mutating func encodeNil(forKey key: Key) throws {
            encoder.sink.json.key(JSONWriterEncoder.snakeCase(key.stringValue))
            encoder.sink.json.null()
        }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            if let omittable = value as? JSONOmittable, omittable.isOmitted { return }
            encoder.sink.json.key(JSONWriterEncoder.snakeCase(key.stringValue))
            try encoder.sink.value(value, codingPath: codingPath + [key])
        }

        // A nil optional is a member with null, not a member left out (the default).
        mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
        }
        mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
        }
        mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
        }
        mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
        }
        mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            preconditionFailure("JSONWriterEncoder writes as it goes: encode a nested value, not a nested container")
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> UnkeyedEncodingContainer {
            preconditionFailure("JSONWriterEncoder writes as it goes: encode a nested value, not a nested container")
        }
        mutating func superEncoder() -> Encoder { encoder }
        mutating func superEncoder(forKey key: Key) -> Encoder { encoder }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let encoder: ValueEncoder
        var codingPath: [CodingKey] { encoder.codingPath }
        private(set) var count = 0

        init(encoder: ValueEncoder) { self.encoder = encoder }

        mutating func encodeNil() throws {
            count += 1
            encoder.sink.json.null()
        }

        mutating func encode<T: Encodable>(_ value: T) throws {
            count += 1
            try encoder.sink.value(value, codingPath: codingPath)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            preconditionFailure("JSONWriterEncoder writes as it goes: encode a nested value, not a nested container")
        }
        mutating func nestedUnkeyedContainer() -> UnkeyedEncodingContainer {
            preconditionFailure("JSONWriterEncoder writes as it goes: encode a nested value, not a nested container")
        }
        mutating func superEncoder() -> Encoder { encoder }
    }

    struct Single: SingleValueEncodingContainer {
        let encoder: ValueEncoder
        var codingPath: [CodingKey] { encoder.codingPath }

        mutating func encodeNil() throws { encoder.sink.json.null() }
        mutating func encode<T: Encodable>(_ value: T) throws { try encoder.sink.value(value, codingPath: codingPath) }
    }
}

/// A value that writes its own JSON (a number with other than three decimals).
public protocol JSONWriterValue {
    func write(to json: inout JSONWriter)
}

/// A member left out of its object when `isOmitted` (rather than written as null).
public protocol JSONOmittable {
    var isOmitted: Bool { get }
}

/// A member present only sometimes: left out when nil.
public struct Omittable<Wrapped: Encodable>: Encodable, JSONOmittable {
    public var value: Wrapped?
    public init(_ value: Wrapped?) { self.value = value }
    public var isOmitted: Bool { value == nil }
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        if let value { try container.encode(value) } else { try container.encodeNil() }
    }
}

/// A number written with `decimals` digits after the point at most (seconds to the microsecond).
public struct FixedDecimal: Encodable, JSONWriterValue {
    public var value: Double
    public var decimals: Int
    public init(_ value: Double, decimals: Int) {
        self.value = value
        self.decimals = decimals
    }
    public static func seconds(microseconds: Int64) -> FixedDecimal { FixedDecimal(Double(microseconds) / 1_000_000, decimals: 6) }
    public func write(to json: inout JSONWriter) { json.number(value, decimals: decimals) }
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

/// Members whose names are data (a timeline event's values, a codec's configuration), after
/// the members a type declares.
public struct DynamicKey: CodingKey {
    public var stringValue: String
    public var intValue: Int? { nil }
    public init(_ name: String) { stringValue = name }
    public init?(stringValue: String) { self.stringValue = stringValue }
    public init?(intValue: Int) { nil }
}
