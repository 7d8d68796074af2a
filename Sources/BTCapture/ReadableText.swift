/// Text taken from packet bytes (device names, log lines, notes), made safe for a terminal.
///
/// Captures carry text that other programs wrote: BlueZ's testers colour their log lines with
/// ANSI escape sequences, and a device can name itself anything. Printed raw, such bytes would
/// recolour or move the reader's terminal, so escape sequences are dropped and every other
/// control character becomes U+FFFD; line breaks and tabs become spaces. Its generic functions
/// are inlinable so the decoders above BTCapture get them specialized for their byte slices.
public enum ReadableText {
    @inlinable public static func decode<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return String(decoding: bytes, as: UTF8.self) }
        var out = String.UnicodeScalarView()
        var scalars = String(decoding: bytes, as: UTF8.self).unicodeScalars.makeIterator()
        var pending = scalars.next()
        while let scalar = pending {
            pending = scalars.next()
            switch scalar.value {
            case 0x1B:
                // ESC [ parameters intermediates final (CSI), or ESC and one more character.
                guard let next = pending else { continue }
                pending = scalars.next()
                if next == "[" {
                    while let inner = pending, !(0x40 ... 0x7E).contains(inner.value) { pending = scalars.next() }
                    pending = scalars.next()
                }
            case 0x09, 0x0A, 0x0D:
                out.append(" ")
            case 0x00 ..< 0x20, 0x7F ... 0x9F:
                out.append("\u{FFFD}")
            default:
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// A value in a summary: at most `limit` characters, "…" when cut.
    public static func clipped(_ text: String, to limit: Int = 40) -> String {
        text.count > limit ? String(text.prefix(limit)) + "…" : text
    }

    /// Whether bytes are line-oriented text: printable ASCII, CR, LF and tab (AT commands, serial
    /// consoles). RFCOMM shows such data as text; HFP refuses anything else as not AT.
    @inlinable public static func isLineText<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8 {
        bytes.allSatisfy { ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x0D || $0 == 0x0A || $0 == 0x09 }
    }

    /// The text up to the first NUL (fixed-size name fields are NUL-padded).
    public static func untilNUL(_ bytes: ArraySlice<UInt8>) -> String {
        decode(bytes.prefix { $0 != 0 })
    }
}
