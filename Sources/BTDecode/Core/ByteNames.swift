/// Names of the values of a one-byte code (AD types, Apple message types), looked up by
/// index: a dictionary hashed the byte with SipHash on every lookup, several per advertising
/// report. Written as a dictionary literal, like the tables it replaces.
public struct ByteNames: ExpressibleByDictionaryLiteral, Sendable {
    @usableFromInline var names: [String?] = Array(repeating: nil, count: 256)

    public init(dictionaryLiteral elements: (UInt8, String)...) {
        for (code, name) in elements {
            precondition(names[Int(code)] == nil, "ByteNames: \(code) named twice")
            names[Int(code)] = name
        }
    }

    @inlinable public subscript(_ code: UInt8) -> String? { names[Int(code)] }
}
