import XCTest
import BTCapture
@testable import BTDecode

/// Every HCI command (with its Command Complete return parameters) and every event and LE
/// subevent of the Core specification, version 6.0 (Vol 4, Part E, 7), written here from the
/// specification: opcode or code, and the size of its parameters. Each is decoded with that
/// many bytes (the fixed part of a variable one, its counts zero) and must be named and read to
/// its last byte by a layout: no parameters left as raw bytes, none missing. A layout that
/// reads one byte too few or too many fails here.
final class HCISpecificationTests: XCTestCase {
    /// "opcode parameters returns": parameters and return parameters (after the status) in
    /// bytes; "n+" the fixed part of a variable list; returns "-" for a command answered by
    /// Command Status alone (its result comes in an event).
    static let commands = """
    0x0401 5 -      0x0402 0 0      0x0403 9 0      0x0404 0 0      0x0405 13 -     0x0406 3 -
    0x0408 6 6      0x0409 7 -      0x040A 7 -      0x040B 22 6     0x040C 6 6      0x040D 23 6
    0x040E 6 6      0x040F 4 -      0x0411 2 -      0x0413 3 -      0x0415 2 -      0x0417 1 -
    0x0419 10 -     0x041A 6 6      0x041B 2 -      0x041C 3 -      0x041D 2 -      0x041F 2 -
    0x0420 2 7      0x0428 17 -     0x0429 21 -     0x042A 7 -      0x042B 9 6      0x042C 6 6
    0x042D 6 6      0x042E 10 6     0x042F 6 6      0x0430 38 6     0x0433 6 6      0x0434 7 6
    0x043D 59 -     0x043E 63 -     0x043F 9 -      0x0440 6 6      0x0441 11 3     0x0442 34 7
    0x0443 0 -      0x0444 12 -     0x0445 70 6
    0x0801 6 -      0x0803 10 -     0x0804 2 -      0x0807 20 -     0x0809 2 3      0x080B 7 -
    0x080C 2 4      0x080D 4 2      0x080E 0 2      0x080F 2 0      0x0810 21 -     0x0811 8 2
    0x0C01 8 0      0x0C03 0 0      0x0C05 1+ 0     0x0C08 2 2      0x0C09 0 1      0x0C0A 1 0
    0x0C0D 7 4      0x0C11 1+ 1     0x0C12 7 2      0x0C13 248 0    0x0C14 0 248    0x0C15 0 2
    0x0C16 2 0      0x0C17 0 2      0x0C18 2 0      0x0C19 0 1      0x0C1A 1 0      0x0C1B 0 4
    0x0C1C 4 0      0x0C1D 0 4      0x0C1E 4 0      0x0C1F 0 1      0x0C20 1 0      0x0C23 0 3
    0x0C24 3 0      0x0C25 0 2      0x0C26 2 0      0x0C27 2 4      0x0C28 4 2      0x0C29 0 1
    0x0C2A 1 0      0x0C2B 0 1      0x0C2C 1 0      0x0C2D 3 3      0x0C2E 0 1      0x0C2F 1 0
    0x0C31 1 0      0x0C33 7 0      0x0C35 1+ -     0x0C36 2 4      0x0C37 4 2      0x0C38 0 1
    0x0C39 0 1+     0x0C3A 1+ 0     0x0C3F 10 0     0x0C42 0 1      0x0C43 1 0      0x0C44 0 1
    0x0C45 1 0      0x0C46 0 1      0x0C47 1 0      0x0C48 0 1      0x0C49 1 0      0x0C51 0 241
    0x0C52 241 0    0x0C53 2 -      0x0C55 0 1      0x0C56 1 0      0x0C57 0 32     0x0C58 0 1
    0x0C59 1 0      0x0C5A 0 1      0x0C5B 1 0      0x0C5F 3 -      0x0C60 7 6      0x0C63 8 0
    0x0C68 3 5      0x0C6C 0 2      0x0C6D 2 0      0x0C6E 10 0     0x0C6F 7+ 0     0x0C70 30 32
    0x0C71 9 0      0x0C72 1+ 0     0x0C73 2+ 0     0x0C74 1 1      0x0C75 1 1      0x0C76 3+ 1
    0x0C77 0 7      0x0C78 9 2      0x0C79 0 1      0x0C7A 1 0      0x0C7B 2 4      0x0C7C 4 2
    0x0C7D 0 64     0x0C7E 0 2      0x0C7F 2 0      0x0C80 0 2      0x0C81 2 0      0x0C82 2 0
    0x0C83 3+ 0     0x0C84 1 0
    0x1001 0 8      0x1002 0 64     0x1003 0 8      0x1004 1 10     0x1005 0 7      0x1009 0 6
    0x100B 0 2+     0x100C 0 2      0x100D 0 2+     0x100E 7 1+     0x100F 8+ 6
    0x1401 2 4      0x1402 2 2      0x1403 2 3      0x1405 2 3      0x1406 2 13     0x1407 3 8
    0x1408 2 3      0x140C 0 1+     0x140D 6 0
    0x1801 0 1      0x1802 1 0      0x1803 0 0      0x1804 1 0      0x180A 4 2
    0x2001 8 0      0x2002 0 3      0x2003 0 8      0x2005 6 0      0x2006 15 0     0x2007 0 1
    0x2008 32 0     0x2009 32 0     0x200A 1 0      0x200B 7 0      0x200C 2 0      0x200D 25 -
    0x200E 0 0      0x200F 0 1      0x2010 0 0      0x2011 7 0      0x2012 7 0      0x2013 14 -
    0x2014 5 0      0x2015 2 7      0x2016 2 -      0x2017 32 16    0x2018 0 8      0x2019 28 -
    0x201A 18 2     0x201B 2 2      0x201C 0 8      0x201D 1 0      0x201E 3 0      0x201F 0 2
    0x2020 14 2     0x2021 3 2      0x2022 6 2      0x2023 0 4      0x2024 4 0      0x2025 0 -
    0x2026 64 -     0x2027 39 0     0x2028 7 0      0x2029 0 0      0x202A 0 1      0x202B 7 6
    0x202C 7 6      0x202D 1 0      0x202E 2 0      0x202F 0 8      0x2030 2 4      0x2031 3 0
    0x2032 7 -      0x2033 3 0      0x2034 4 0      0x2035 7 0      0x2036 25 1     0x2037 4+ 0
    0x2038 4+ 0     0x2039 2+ 0     0x203A 0 2      0x203B 0 1      0x203C 1 0      0x203D 0 0
    0x203E 7 0      0x203F 3+ 0     0x2040 2 0      0x2041 3+ 0     0x2042 6 0      0x2043 10+ -
    0x2044 14 -     0x2045 0 0      0x2046 2 0      0x2047 8 0      0x2048 8 0      0x2049 0 0
    0x204A 0 1      0x204B 0 2      0x204C 0 4      0x204D 4 0      0x204E 8 0      0x204F 7+ 0
    0x2050 7+ 0     0x2051 5+ 0     0x2052 2 0      0x2053 6+ 2     0x2054 5+ 2     0x2055 4+ 2
    0x2056 7 2      0x2057 3 2      0x2058 0 4      0x2059 3 0      0x205A 6 2      0x205B 5 2
    0x205C 8 2      0x205D 6 0      0x205E 65 -     0x205F 1 0      0x2060 0 6      0x2061 2 11
    0x2062 15+ 2+   0x2063 15+ 2+   0x2064 1+ -     0x2065 1 1      0x2066 2 -      0x2067 3 2
    0x2068 31 -     0x2069 36 -     0x206A 2 -      0x206B 24+ -    0x206C 1 1      0x206D 2 -
    0x206E 13+ 2    0x206F 3 2      0x2070 3 2      0x2071 3 2      0x2072 2 14     0x2073 2 14
    0x2074 2 0      0x2075 2 30     0x2076 3 5      0x2077 3 -      0x2078 8 2      0x2079 3 2
    0x207A 4 2      0x207B 8+ 0     0x207C 2 0      0x207D 10 0     0x207E 12 -     0x207F 27 1
    0x2080 1+ 0     0x2081 1+ 0     0x2082 2+ 1     0x2083 8+ 2     0x2084 5+ 2     0x2085 12+ -
    0x2086 12 1     0x2087 0 249    0x2088 3 -      0x2089 0 28     0x208A 2 -      0x208B 30 2
    0x208C 2 -      0x208D 5 2      0x208E 2 -      0x208F 74 2     0x2090 28 -     0x2091 3 -
    0x2092 10 0     0x2093 23 2     0x2094 4 -      0x2095 30+ 0    0x2096 0 -      0x2097 3 0
    0x2098 10 0     0x2099 7 0      0x209A 0 0      0x209B 0 1      0x209C 1 0      0x209D 9 -
    """

    /// "code parameters" of every event but LE Meta, Command Complete and Status.
    static let events = """
    0x01 1    0x02 1+   0x03 11   0x04 10   0x05 4    0x06 3    0x07 255  0x08 4    0x09 3
    0x0A 4    0x0B 11   0x0C 8    0x0D 21   0x10 1    0x11 2    0x12 8    0x13 1+   0x14 6
    0x15 1+   0x16 6    0x17 6    0x18 23   0x19 3+   0x1A 1    0x1B 3    0x1C 5    0x1D 5
    0x1E 2    0x20 7    0x21 22   0x22 1+   0x23 13   0x2C 17   0x2D 9    0x2E 11   0x2F 255
    0x30 3    0x31 6    0x32 9    0x33 10   0x34 6    0x35 6    0x36 7    0x38 4    0x39 2
    0x3B 10   0x3C 7    0x3D 14   0x48 3+   0x4E 9    0x4F 1    0x50 29   0x51 18+  0x52 7
    0x53 7    0x54 0    0x55 10   0x56 4    0x57 2    0x58 8    0x59 5
    """

    /// "subevent parameters" of every LE Meta subevent (the parameters after its code).
    static let subevents = """
    0x01 18   0x02 1+   0x03 9    0x04 11   0x05 12   0x06 10   0x07 10   0x08 65   0x09 33
    0x0A 30   0x0B 1+   0x0C 5    0x0D 1+   0x0E 15   0x0F 7+   0x10 2    0x11 0    0x12 5
    0x13 8    0x14 3    0x15 12+  0x16 13+  0x17 3    0x18 19   0x19 28   0x1A 6    0x1B 18+
    0x1C 2    0x1D 14+  0x1E 2    0x1F 4    0x20 4    0x21 8    0x22 19   0x23 11   0x24 19
    0x25 10+  0x26 23   0x27 3    0x28 4+   0x29 33   0x2A 42   0x2B 253  0x2C 31   0x2D 75
    0x2E 3    0x2F 33   0x30 21   0x31 15+  0x32 8+   0x33 1    0x34 8    0x35 9
    """

    struct Entry { var code: Int; var size: Int; var returns: Int? }

    static func parse(_ table: String, columns: Int) -> [Entry] {
        let words = table.split(whereSeparator: { $0 == " " || $0 == "\n" })
        return stride(from: 0, to: words.count, by: columns).map { at in
            let code = Int(words[at].dropFirst(2), radix: 16)!
            let size = Int(words[at + 1].replacingOccurrences(of: "+", with: ""))!
            let returns = columns == 3 && words[at + 2] != "-" ? Int(words[at + 2].replacingOccurrences(of: "+", with: ""))! : nil
            return Entry(code: code, size: size, returns: returns)
        }
    }

    func decode(_ kind: FrameKind, _ bytes: [UInt8]) -> Packet {
        Decoder().decode(Frame(number: 1, timestamp: 0, kind: kind, direction: kind == .command ? .sent : .received, bytes: bytes[...]))
    }

    static let shortfallWords = ["length", "short", "truncat", "needed", "malformed", "left", "follow"]

    /// What stopped a packet being read to its end by a layout: raw parameters left, or a
    /// parameter the bytes did not hold.
    func shortfalls(_ packet: Packet) -> [String] {
        var found: [String] = []
        for layer in packet.layers {
            if let raw = layer.fieldCopies.first(where: { $0.definition == HCIFields.parameters }) {
                found.append("\(raw.value.text.count / 2) bytes left as raw parameters")
            }
            // What a layout left unread or could not read; issues about the values themselves
            // (a zero reason, a zero key size) are the zero bytes', not the layout's.
            for issue in layer.issues where Self.shortfallWords.contains(where: { issue.message.lowercased().contains($0) }) {
                found.append(issue.message)
            }
        }
        return found
    }

    func testEveryCommandIsNamedAndReadToItsEnd() {
        let commands = Self.parse(Self.commands, columns: 3)
        XCTAssertGreaterThan(commands.count, 300)
        var failures: [String] = []
        for command in commands {
            let opcode = UInt16(command.code)
            guard let name = HCICommands.name(opcode) else {
                failures.append("\(Hex.u16(opcode)): no name")
                continue
            }
            let packet = decode(.command, [UInt8(opcode & 0xFF), UInt8(opcode >> 8), UInt8(command.size)] + [UInt8](repeating: 0, count: command.size))
            let problems = shortfalls(packet)
            if !problems.isEmpty { failures.append("\(Hex.u16(opcode)) \(name): \(problems.joined(separator: "; "))") }
        }
        XCTAssertEqual(failures, [], failures.joined(separator: "\n"))
    }

    func testEveryReturnIsReadToItsEnd() {
        var failures: [String] = []
        for command in Self.parse(Self.commands, columns: 3) {
            guard let returns = command.returns else { continue }
            let opcode = UInt16(command.code)
            let parameters: [UInt8] = [0x01, UInt8(opcode & 0xFF), UInt8(opcode >> 8), 0x00] + [UInt8](repeating: 0, count: returns)
            let packet = decode(.event, [0x0E, UInt8(parameters.count)] + parameters)
            let problems = shortfalls(packet)
            if !problems.isEmpty { failures.append("\(Hex.u16(opcode)) \(HCICommands.name(opcode) ?? "?"): \(problems.joined(separator: "; "))") }
        }
        XCTAssertEqual(failures, [], failures.joined(separator: "\n"))
    }

    func testEveryEventIsNamedAndReadToItsEnd() {
        var failures: [String] = []
        for event in Self.parse(Self.events, columns: 2) {
            let code = UInt8(event.code)
            guard let name = HCIEvents.name(code) else {
                failures.append("\(Hex.u8(code)): no name")
                continue
            }
            let packet = decode(.event, [code, UInt8(event.size)] + [UInt8](repeating: 0, count: event.size))
            let problems = shortfalls(packet)
            if !problems.isEmpty { failures.append("\(Hex.u8(code)) \(name): \(problems.joined(separator: "; "))") }
        }
        for subevent in Self.parse(Self.subevents, columns: 2) {
            let code = UInt8(subevent.code)
            guard let name = HCIEvents.subeventName(code) else {
                failures.append("LE \(Hex.u8(code)): no name")
                continue
            }
            let packet = decode(.event, [0x3E, UInt8(subevent.size + 1), code] + [UInt8](repeating: 0, count: subevent.size))
            let problems = shortfalls(packet)
            if !problems.isEmpty { failures.append("LE \(Hex.u8(code)) \(name): \(problems.joined(separator: "; "))") }
        }
        XCTAssertEqual(failures, [], failures.joined(separator: "\n"))
    }

    /// The names are the specification's, where they were once wrong: the events of 0x4E-0x59
    /// (Core 5.3 numbers them after the removed AMP events) and the 6.0 commands.
    func testNamesOfLaterEventsAndCommands() {
        XCTAssertEqual(HCIEvents.name(0x4E), "Triggered Clock Capture")
        XCTAssertEqual(HCIEvents.name(0x57), "Authenticated Payload Timeout Expired")
        XCTAssertEqual(HCIEvents.name(0x59), "Encryption Change v2")
        XCTAssertEqual(HCIEvents.name(0x21), "Flow Specification Complete")
        XCTAssertEqual(HCICommands.name(0x209D), "LE Frame Space Update")
        XCTAssertEqual(HCICommands.name(0x2087), "LE Read All Local Supported Features")
        XCTAssertEqual(HCIEvents.subeventName(0x31), "CS Subevent Result")
    }
}
