import BTCapture

/// A checksum algorithm a description can name. The CRCs are parameterised as in the
/// catalogue of parametrised CRC algorithms (width, polynomial, initial value, reflection,
/// final XOR); each one's `check` is its published value over the ASCII bytes "123456789",
/// which the tests hold every algorithm to.
public struct ChecksumAlgorithm: Sendable {
    public let name: String
    /// Bytes the checksum takes in the message.
    public let size: Int
    let kind: Kind
    /// The published result over "123456789".
    public let check: UInt64

    enum Kind: Sendable {
        case sum8
        case xor8
        case crc(width: Int, poly: UInt64, initial: UInt64, reflected: Bool, xorOut: UInt64)
    }

    public static let all: [ChecksumAlgorithm] = [
        ChecksumAlgorithm(name: "sum8", size: 1, kind: .sum8, check: 0xDD),
        ChecksumAlgorithm(name: "xor8", size: 1, kind: .xor8, check: 0x31),
        ChecksumAlgorithm(name: "crc8", size: 1, kind: .crc(width: 8, poly: 0x07, initial: 0, reflected: false, xorOut: 0), check: 0xF4),
        ChecksumAlgorithm(name: "crc8-maxim", size: 1, kind: .crc(width: 8, poly: 0x31, initial: 0, reflected: true, xorOut: 0), check: 0xA1),
        ChecksumAlgorithm(name: "crc8-bluetooth", size: 1, kind: .crc(width: 8, poly: 0xA7, initial: 0, reflected: true, xorOut: 0), check: 0x26),
        ChecksumAlgorithm(name: "crc16-ccitt-false", size: 2, kind: .crc(width: 16, poly: 0x1021, initial: 0xFFFF, reflected: false, xorOut: 0), check: 0x29B1),
        ChecksumAlgorithm(name: "crc16-xmodem", size: 2, kind: .crc(width: 16, poly: 0x1021, initial: 0, reflected: false, xorOut: 0), check: 0x31C3),
        ChecksumAlgorithm(name: "crc16-kermit", size: 2, kind: .crc(width: 16, poly: 0x1021, initial: 0, reflected: true, xorOut: 0), check: 0x2189),
        ChecksumAlgorithm(name: "crc16-x25", size: 2, kind: .crc(width: 16, poly: 0x1021, initial: 0xFFFF, reflected: true, xorOut: 0xFFFF), check: 0x906E),
        ChecksumAlgorithm(name: "crc16-modbus", size: 2, kind: .crc(width: 16, poly: 0x8005, initial: 0xFFFF, reflected: true, xorOut: 0), check: 0x4B37),
        ChecksumAlgorithm(name: "crc16-arc", size: 2, kind: .crc(width: 16, poly: 0x8005, initial: 0, reflected: true, xorOut: 0), check: 0xBB3D),
        ChecksumAlgorithm(name: "crc32", size: 4, kind: .crc(width: 32, poly: 0x04C1_1DB7, initial: 0xFFFF_FFFF, reflected: true, xorOut: 0xFFFF_FFFF), check: 0xCBF4_3926),
    ]

    public static func named(_ name: String) -> ChecksumAlgorithm? { all.first { $0.name == name.lowercased() } }

    /// The checksum of `bytes`, bit by bit (descriptions' messages are short; no table is kept).
    public func compute<C: Collection>(_ bytes: C) -> UInt64 where C.Element == UInt8 {
        switch kind {
        case .sum8: return UInt64(bytes.reduce(UInt8(0), &+))
        case .xor8: return UInt64(bytes.reduce(UInt8(0), ^))
        case .crc(let width, let poly, let initial, let reflected, let xorOut):
            let top: UInt64 = 1 << UInt64(width - 1)
            let mask: UInt64 = width == 64 ? .max : (1 << UInt64(width)) - 1
            if reflected {
                let reversedPoly = Self.reverse(poly, width: width)
                var crc = Self.reverse(initial, width: width)
                for byte in bytes {
                    crc ^= UInt64(byte)
                    for _ in 0 ..< 8 { crc = crc & 1 != 0 ? (crc >> 1) ^ reversedPoly : crc >> 1 }
                }
                return (crc ^ xorOut) & mask
            }
            var crc = initial
            for byte in bytes {
                crc ^= UInt64(byte) << UInt64(width - 8)
                for _ in 0 ..< 8 { crc = crc & top != 0 ? ((crc << 1) ^ poly) & mask : (crc << 1) & mask }
            }
            return (crc ^ xorOut) & mask
        }
    }

    static func reverse(_ value: UInt64, width: Int) -> UInt64 {
        var result: UInt64 = 0
        for bit in 0 ..< width where value & (1 << UInt64(bit)) != 0 { result |= 1 << UInt64(width - 1 - bit) }
        return result
    }
}

/// A checksum in a message's last bytes, over the message's bytes from `skip` on up to it.
public struct DescribedChecksum: Sendable {
    public let field: FieldDefinition
    public let algorithm: ChecksumAlgorithm
    public let order: ByteOrder
    /// Leading bytes it does not cover (a sync byte).
    public let skip: Int

    public init(field: FieldDefinition, algorithm: ChecksumAlgorithm, order: ByteOrder, skip: Int) {
        self.field = field
        self.algorithm = algorithm
        self.order = order
        self.skip = skip
    }
}
