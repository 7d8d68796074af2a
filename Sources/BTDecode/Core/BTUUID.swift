import BTCapture

/// A Bluetooth UUID, held as 128 bits. 16- and 32-bit UUIDs are the Base UUID
/// 0000xxxx-0000-1000-8000-00805F9B34FB with their value in bits 96-127 (Core Vol 3, Part B, 2.5.1).
public struct BTUUID: WordKey, Sendable, CustomStringConvertible {
    public let high: UInt64
    public let low: UInt64

    /// Names are looked up by UUID for every field a view labels: one word for the map's hash
    /// (a UUID from the Bluetooth base differs from another in `high` alone).
    public var hashWord: UInt64 { high ^ low.byteSwapped }

    static let baseLow: UInt64 = 0x8000_0080_5F9B_34FB
    static let baseHighLow32: UInt64 = 0x0000_1000

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    public init(_ short: UInt32) {
        self.init(high: UInt64(short) << 32 | Self.baseHighLow32, low: Self.baseLow)
    }

    public init(_ short: UInt16) { self.init(UInt32(short)) }

    /// From little-endian wire bytes: 2, 4 or 16 of them.
    public init?(littleEndian bytes: ArraySlice<UInt8>) {
        var c = ByteCursor(bytes)
        switch bytes.count {
        case 2: guard let v = try? c.u16() else { return nil }; self.init(v)
        case 4: guard let v = try? c.u32() else { return nil }; self.init(v)
        case 16:
            guard let low = try? c.u64(), let high = try? c.u64() else { return nil }
            self.init(high: high, low: low)
        default: return nil
        }
    }

    /// From 16 bytes in the order people write them (iBeacon's proximity UUID).
    public init?(bigEndian bytes: ArraySlice<UInt8>) {
        var c = ByteCursor(bytes)
        guard bytes.count == 16, let a = try? c.u32be(), let b = try? c.u32be(), let d = try? c.u32be(), let e = try? c.u32be() else { return nil }
        self.init(high: UInt64(a) << 32 | UInt64(b), low: UInt64(d) << 32 | UInt64(e))
    }

    /// "2A37", "0000FEAA" style short forms and the 36-character form, any case.
    public init?(_ text: String) {
        let hex = text.filter { $0 != "-" }
        if text.hasPrefix("0x") || text.hasPrefix("0X") { self.init(String(text.dropFirst(2))); return }
        switch hex.count {
        case 4: guard let v = UInt16(hex, radix: 16) else { return nil }; self.init(v)
        case 8: guard let v = UInt32(hex, radix: 16) else { return nil }; self.init(v)
        case 32:
            guard text.count == 32 || text.count == 36,
                  let high = UInt64(hex.prefix(16), radix: 16), let low = UInt64(hex.suffix(16), radix: 16) else { return nil }
            self.init(high: high, low: low)
        default: return nil
        }
    }

    /// The 16- or 32-bit value when this UUID is built on the Base UUID.
    public var shortValue: UInt32? {
        guard low == Self.baseLow, high & 0xFFFF_FFFF == Self.baseHighLow32 else { return nil }
        return UInt32(high >> 32)
    }

    public var uuid16: UInt16? {
        guard let short = shortValue, short <= 0xFFFF else { return nil }
        return UInt16(short)
    }

    /// "2A37" for 16-bit, "0000FEAA"-style 8 digits for 32-bit, else the 36-character form.
    public var description: String { ASCII.string(capacity: 36) { appendDescription(to: &$0) } }

    /// Writes `description` (upper-case hex: "180F", "0000FEAA", or the 36-character form)
    /// without making a String: decoders and export write UUIDs for every packet.
    @inlinable public func appendDescription<O: ASCIIOutput>(to out: inout O) {
        if let short = shortValue {
            Self.appendHex(UInt64(short), digits: short <= 0xFFFF ? 4 : 8, to: &out)
        } else {
            appendLongForm(to: &out)
        }
    }

    @inlinable static func appendHex<O: ASCIIOutput>(_ value: UInt64, digits: Int, to out: inout O) {
        var shift = (digits - 1) * 4
        while shift >= 0 {
            let nibble = UInt8(truncatingIfNeeded: value >> UInt64(shift)) & 0xF
            out.put(nibble < 10 ? 0x30 + nibble : 0x37 + nibble)
            shift -= 4
        }
    }

    /// 8-4-4-4-12 hex digits with dashes.
    @inlinable public func appendLongForm<O: ASCIIOutput>(to out: inout O) {
        Self.appendHex(high >> 32, digits: 8, to: &out)
        out.put(UInt8(ascii: "-"))
        Self.appendHex(high >> 16, digits: 4, to: &out)
        out.put(UInt8(ascii: "-"))
        Self.appendHex(high, digits: 4, to: &out)
        out.put(UInt8(ascii: "-"))
        Self.appendHex(low >> 48, digits: 4, to: &out)
        out.put(UInt8(ascii: "-"))
        Self.appendHex(low, digits: 12, to: &out)
    }

    /// The 16 bytes as ATT and SDP-over-LE carry them, least significant first.
    public var littleEndianBytes: [UInt8] {
        (0 ..< 8).map { UInt8(truncatingIfNeeded: low >> (8 * $0)) } + (0 ..< 8).map { UInt8(truncatingIfNeeded: high >> (8 * $0)) }
    }

    public var longForm: String { ASCII.string(capacity: 36) { appendLongForm(to: &$0) } }
}
