/// AES-128 encryption of single blocks (FIPS-197), all the LE security functions need: the
/// session key (e), legacy pairing's c1 and s1, and CCM's counter and CBC-MAC blocks. Only the
/// forward cipher: CCM decrypts by encrypting counters. Table-driven; a key's schedule is
/// expanded once and kept.
struct AES128 {
    private var roundKeys = [UInt32](repeating: 0, count: 44)

    /// The key as the specifications write it: most significant octet first.
    init(key: [UInt8]) {
        precondition(key.count == 16)
        self.init(key: Self.words(key))
    }

    /// The key as four big-endian words. The passkey search makes a million keys: built from
    /// words, without an array of octets, even a debug build (the tests') makes them quickly.
    init(key: Block) {
        Self.sbox.withUnsafeBufferPointer { box in
            roundKeys.withUnsafeMutableBufferPointer { k in
                k[0] = key.0; k[1] = key.1; k[2] = key.2; k[3] = key.3
                var rcon: UInt32 = 0x0100_0000
                for i in 4 ..< 44 {
                    var t = k[i - 1]
                    if i % 4 == 0 {
                        t = (t << 8 | t >> 24)
                        t = UInt32(box[Int(t >> 24)]) << 24 | UInt32(box[Int(t >> 16 & 0xFF)]) << 16
                            | UInt32(box[Int(t >> 8 & 0xFF)]) << 8 | UInt32(box[Int(t & 0xFF)])
                        t ^= rcon
                        rcon = UInt32(Self.xtime(UInt8(rcon >> 24))) << 24
                    }
                    k[i] = k[i - 4] ^ t
                }
            }
        }
    }

    /// A block as four big-endian words, the first octet most significant in the first word.
    typealias Block = (UInt32, UInt32, UInt32, UInt32)

    static func words(_ b: [UInt8]) -> Block {
        func word(_ i: Int) -> UInt32 { UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3]) }
        return (word(0), word(4), word(8), word(12))
    }

    static func octets(_ w: Block) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 16)
        for (i, word) in [w.0, w.1, w.2, w.3].enumerated() {
            bytes[4 * i] = UInt8(word >> 24); bytes[4 * i + 1] = UInt8(word >> 16 & 0xFF)
            bytes[4 * i + 2] = UInt8(word >> 8 & 0xFF); bytes[4 * i + 3] = UInt8(word & 0xFF)
        }
        return bytes
    }

    /// One block, most significant octet first in and out.
    func encrypt(_ block: [UInt8]) -> [UInt8] {
        precondition(block.count == 16)
        return Self.octets(encrypt(Self.words(block)))
    }

    /// One block as words: the rounds, with the round keys and the table read through buffers.
    func encrypt(_ block: Block) -> Block {
        Self.table.withUnsafeBufferPointer { t0 in
            Self.sbox.withUnsafeBufferPointer { s in
                roundKeys.withUnsafeBufferPointer { k in
                    // One output word of a round: each input word's byte through the table,
                    // rotated by its position (statements, not one expression: the type checker
                    // takes seconds over the latter).
                    func column(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32, _ key: UInt32) -> UInt32 {
                        let ta: UInt32 = t0[Int(a >> 24)]
                        let tb: UInt32 = t0[Int(b >> 16 & 0xFF)]
                        let tc: UInt32 = t0[Int(c >> 8 & 0xFF)]
                        let td: UInt32 = t0[Int(d & 0xFF)]
                        var word: UInt32 = ta ^ key
                        word ^= tb >> 8 | tb << 24
                        word ^= tc >> 16 | tc << 16
                        word ^= td >> 24 | td << 8
                        return word
                    }
                    var s0 = block.0 ^ k[0], s1 = block.1 ^ k[1], s2 = block.2 ^ k[2], s3 = block.3 ^ k[3]
                    var round = 4
                    while round < 40 {
                        let n0 = column(s0, s1, s2, s3, k[round]), n1 = column(s1, s2, s3, s0, k[round + 1])
                        let n2 = column(s2, s3, s0, s1, k[round + 2]), n3 = column(s3, s0, s1, s2, k[round + 3])
                        s0 = n0; s1 = n1; s2 = n2; s3 = n3
                        round += 4
                    }
                    func last(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32, _ key: UInt32) -> UInt32 {
                        let sa = UInt32(s[Int(a >> 24)]) << 24, sb = UInt32(s[Int(b >> 16 & 0xFF)]) << 16
                        let sc = UInt32(s[Int(c >> 8 & 0xFF)]) << 8, sd = UInt32(s[Int(d & 0xFF)])
                        return (sa | sb | sc | sd) ^ key
                    }
                    return (last(s0, s1, s2, s3, k[40]), last(s1, s2, s3, s0, k[41]), last(s2, s3, s0, s1, k[42]), last(s3, s0, s1, s2, k[43]))
                }
            }
        }
    }

    static func xtime(_ b: UInt8) -> UInt8 { b & 0x80 != 0 ? (b << 1) ^ 0x1B : b << 1 }

    /// The S-box, computed from its definition (the multiplicative inverse in GF(2^8) followed
    /// by the affine transformation) rather than typed in.
    static let sbox: [UInt8] = {
        var box = [UInt8](repeating: 0, count: 256)
        func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
            var a = a, b = b, product: UInt8 = 0
            while b != 0 {
                if b & 1 != 0 { product ^= a }
                a = xtime(a)
                b >>= 1
            }
            return product
        }
        for x in 0 ..< 256 {
            var inverse: UInt8 = 0
            if x != 0 { for y in 1 ..< 256 where multiply(UInt8(x), UInt8(y)) == 1 { inverse = UInt8(y); break } }
            var result = inverse
            for shift in 1 ... 4 { result ^= inverse << UInt8(shift) | inverse >> UInt8(8 - shift) }
            box[x] = result ^ 0x63
        }
        return box
    }()

    /// SubBytes, ShiftRows' column and MixColumns in one word per byte value: (2s, s, s, 3s).
    static let table: [UInt32] = sbox.map { s in
        let two = xtime(s), three = two ^ s
        return UInt32(two) << 24 | UInt32(s) << 16 | UInt32(s) << 8 | UInt32(three)
    }
}
