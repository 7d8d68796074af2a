/// AES-128 encryption of single blocks (FIPS-197), all the LE security functions need: the
/// session key (e), legacy pairing's c1 and s1, and CCM's counter and CBC-MAC blocks. Only the
/// forward cipher: CCM decrypts by encrypting counters. Table-driven; a key's schedule is
/// expanded once and kept.
struct AES128 {
    private var roundKeys = [UInt32](repeating: 0, count: 44)

    /// The key as the specifications write it: most significant octet first.
    init(key: [UInt8]) {
        precondition(key.count == 16)
        for i in 0 ..< 4 {
            roundKeys[i] = UInt32(key[4 * i]) << 24 | UInt32(key[4 * i + 1]) << 16 | UInt32(key[4 * i + 2]) << 8 | UInt32(key[4 * i + 3])
        }
        var rcon: UInt32 = 0x0100_0000
        for i in 4 ..< 44 {
            var t = roundKeys[i - 1]
            if i % 4 == 0 {
                t = (t << 8 | t >> 24)
                t = UInt32(Self.sbox[Int(t >> 24)]) << 24 | UInt32(Self.sbox[Int(t >> 16 & 0xFF)]) << 16
                    | UInt32(Self.sbox[Int(t >> 8 & 0xFF)]) << 8 | UInt32(Self.sbox[Int(t & 0xFF)])
                t ^= rcon
                rcon = Self.xtime(UInt8(rcon >> 24)).asWord << 24
            }
            roundKeys[i] = roundKeys[i - 4] ^ t
        }
    }

    /// One block, most significant octet first in and out.
    func encrypt(_ block: [UInt8]) -> [UInt8] {
        precondition(block.count == 16)
        var s0 = word(block, 0) ^ roundKeys[0], s1 = word(block, 4) ^ roundKeys[1]
        var s2 = word(block, 8) ^ roundKeys[2], s3 = word(block, 12) ^ roundKeys[3]
        let t0 = Self.table
        for round in 1 ..< 10 {
            let k = round * 4
            let n0 = t0[Int(s0 >> 24)] ^ Self.ror(t0[Int(s1 >> 16 & 0xFF)], 8) ^ Self.ror(t0[Int(s2 >> 8 & 0xFF)], 16) ^ Self.ror(t0[Int(s3 & 0xFF)], 24) ^ roundKeys[k]
            let n1 = t0[Int(s1 >> 24)] ^ Self.ror(t0[Int(s2 >> 16 & 0xFF)], 8) ^ Self.ror(t0[Int(s3 >> 8 & 0xFF)], 16) ^ Self.ror(t0[Int(s0 & 0xFF)], 24) ^ roundKeys[k + 1]
            let n2 = t0[Int(s2 >> 24)] ^ Self.ror(t0[Int(s3 >> 16 & 0xFF)], 8) ^ Self.ror(t0[Int(s0 >> 8 & 0xFF)], 16) ^ Self.ror(t0[Int(s1 & 0xFF)], 24) ^ roundKeys[k + 2]
            let n3 = t0[Int(s3 >> 24)] ^ Self.ror(t0[Int(s0 >> 16 & 0xFF)], 8) ^ Self.ror(t0[Int(s1 >> 8 & 0xFF)], 16) ^ Self.ror(t0[Int(s2 & 0xFF)], 24) ^ roundKeys[k + 3]
            s0 = n0; s1 = n1; s2 = n2; s3 = n3
        }
        let s = Self.sbox
        func last(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32, _ key: UInt32) -> UInt32 {
            (UInt32(s[Int(a >> 24)]) << 24 | UInt32(s[Int(b >> 16 & 0xFF)]) << 16 | UInt32(s[Int(c >> 8 & 0xFF)]) << 8 | UInt32(s[Int(d & 0xFF)])) ^ key
        }
        let out = [last(s0, s1, s2, s3, roundKeys[40]), last(s1, s2, s3, s0, roundKeys[41]),
                   last(s2, s3, s0, s1, roundKeys[42]), last(s3, s0, s1, s2, roundKeys[43])]
        var bytes = [UInt8](repeating: 0, count: 16)
        for (i, w) in out.enumerated() {
            bytes[4 * i] = UInt8(w >> 24); bytes[4 * i + 1] = UInt8(w >> 16 & 0xFF)
            bytes[4 * i + 2] = UInt8(w >> 8 & 0xFF); bytes[4 * i + 3] = UInt8(w & 0xFF)
        }
        return bytes
    }

    private func word(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }

    @inline(__always) static func ror(_ x: UInt32, _ n: UInt32) -> UInt32 { x >> n | x << (32 - n) }

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

private extension UInt8 {
    var asWord: UInt32 { UInt32(self) }
}
