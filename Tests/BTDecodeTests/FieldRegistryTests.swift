import XCTest
import BTCapture
@testable import BTDecode
import BTFixtures

/// The registry is the one list of names (`--fields`, filters, JSON): every field a decoder
/// emits must be in it, under one definition, and declared by one protocol.
final class FieldRegistryTests: XCTestCase {
    func testEveryEmittedFieldIsRegistered() throws {
        var emitted: [String: FieldDefinition] = [:]
        var captures = try ModelTests.decodeFixtures().map(\.1)
        var le: [Frame] = [], audio: [Frame] = []
        BenchmarkSessions.leSession(packets: 6000) { le += $0 }
        BenchmarkSessions.audioSession(packets: 3000) { audio += $0 }
        for frames in [le, audio] {
            let decoder = Decoder()
            captures.append(frames.map(decoder.decode))
        }
        for packets in captures {
            for packet in packets {
                for layer in packet.layers {
                    for field in layer.fields { emitted[field.definition.name] = field.definition }
                }
            }
        }
        XCTAssertGreaterThan(emitted.count, 200)
        for (name, definition) in emitted.sorted(by: { $0.key < $1.key }) {
            guard let registered = FieldRegistry.lookup(name) else {
                XCTFail("\(name) is emitted but no protocol registers it")
                continue
            }
            XCTAssertEqual(registered.label, definition.label, name)
            XCTAssertEqual(registered.type, definition.type, name)
            XCTAssertEqual(registered.help, definition.help, name)
        }
    }

    func testEachFieldIsDeclaredOnce() {
        let names = ProtocolCatalog.all.flatMap(\.fields).map(\.name)
        XCTAssertEqual(names.count, Set(names).count, "a field name declared twice: \(Dictionary(grouping: names) { $0 }.filter { $0.value.count > 1 }.keys.sorted())")
        XCTAssertEqual(FieldRegistry.all.map(\.name), names)
    }

    /// A parameter name has one definition whatever layout makes it: a name read at two widths
    /// (Packet_Type) is listed in `widerThanSomeLayouts` with the wider type, the same every run.
    func testHCIParameterFieldsHaveOneDefinition() {
        var types: [String: Set<String>] = [:]
        for table in [HCIParameterTables.commands, HCIParameterTables.returns] {
            for layout in table.values { for param in layout.flatMap(\.flattened) { types[param.field.name, default: []].insert(param.field.type.rawValue) } }
        }
        for table in [HCIParameterTables.events, HCIParameterTables.subevents] {
            for layout in table.values { for param in layout.flatMap(\.flattened) { types[param.field.name, default: []].insert(param.field.type.rawValue) } }
        }
        XCTAssertEqual(types.filter { $0.value.count > 1 }, [:], "a parameter name made with two types: add it to widerThanSomeLayouts")
        for (name, kinds) in types { XCTAssertEqual(FieldRegistry.lookup(name)?.type.rawValue, kinds.first, name) }
        XCTAssertEqual(FieldRegistry.lookup("hci.packet_type")?.type, .uint16)
        XCTAssertEqual(HCIParameterFields.field("Packet_Type", .u8).type, .uint16)
    }

    /// The dissector tables are built from the registrations: ATT on its fixed channel and PSMs,
    /// SMP on both of its channels, signaling on 0x0001 and 0x0005, SDP, RFCOMM, BNEP, HID (control and interrupt), AVCTP (control and browsing) and AVDTP on their PSMs; GATT formats by UUID.
    func testDissectorTablesComeFromTheCatalog() {
        XCTAssertEqual(DissectorTables.fixedChannels.indices.filter { DissectorTables.fixedChannels[$0] != nil }, [0x0001, 0x0004, 0x0005, 0x0006, 0x0007])
        XCTAssertEqual(DissectorTables.psmTable.keys.sorted(), [0x0001, 0x0003, 0x000F, 0x0011, 0x0013, 0x0017, 0x0019, 0x001B, 0x001F, 0x0027])
        XCTAssertEqual(DissectorTables.psms.indices.filter { DissectorTables.psm(UInt16($0)) != nil }.map(UInt16.init), DissectorTables.psmTable.keys.sorted())
        XCTAssertNil(DissectorTables.psm(0x1001)) // dynamic PSMs: no decoder by number
        XCTAssertNotNil(DissectorTables.gattValues[BTUUID(UInt16(0x2A37))])
        XCTAssertEqual(GATTValues.describe(BTUUID(UInt16(0x2A19)), [0x57]), "87%")
        XCTAssertNil(GATTValues.describe(BTUUID(UInt16(0x2A19)), []))
        XCTAssertNotNil(DissectorTables.manufacturerData[0x004C])
        // Profiles above GATT: ANCS and AMS three characteristics each, PACS 6, ASCS 3, BASS 2, VCS 3,
        // VOCS 4, AICS 6, MCS 4, TBS 4, CSIS 4.
        XCTAssertEqual(DissectorTables.gattCharacteristics.count, 42)
        XCTAssertNotNil(DissectorTables.gattCharacteristics[BTUUID(UInt16(0x2BC6))], "ASE Control Point")
        XCTAssertEqual(ProtocolCatalog.stateTypes.count, 14) // the LE link layer's connections the 13th, the baseband's links the 14th
    }

    /// A copied Session (the fuzzer's warm start) keeps its own protocol states.
    func testSessionCopiesKeepTheirOwnState() {
        var session = Session()
        session.l2cap.open(Session.LinkKey(controller: 0, handle: 1), L2CAPChannel(psm: 0x19, localCID: 0x40, remoteCID: 0x41, mode: .basic))
        let copy = session
        session.l2cap.remove(Session.LinkKey(controller: 0, handle: 1), localCID: 0x40)
        XCTAssertEqual(copy.l2cap.channels[Session.LinkKey(controller: 0, handle: 1)]?.count, 1)
        XCTAssertEqual(session.l2cap.channels[Session.LinkKey(controller: 0, handle: 1)]?.count, 0)
    }
}

/// ATT's opcode table (Core Vol 3, Part F, 3.4.8): one row per opcode, and what the kinds say
/// agrees with the specification's numbering.
final class ATTOpcodeTableTests: XCTestCase {
    func testRowsAgreeWithTheSpecification() {
        let rows = ATTDecoder.opcodes
        XCTAssertEqual(rows.count, 31)
        XCTAssertEqual(Set(rows.map(\.code)).count, rows.count)
        for row in rows {
            switch row.kind {
            case .request:
                // Every request is answered by the next opcode (or an Error Response).
                XCTAssertEqual(ATTDecoder.byCode[Int(row.code) + 1]?.kind, .response, row.name)
                XCTAssertTrue(row.name.hasSuffix("Request"), row.name)
            case .response: XCTAssertTrue(row.name.hasSuffix("Response"), row.name)
            case .command: XCTAssertNotEqual(row.code & 0x40, 0, "\(row.name): the command flag (bit 6)")
            case .notification, .indication, .confirmation: XCTAssertEqual(row.code & 0x40, 0, row.name)
            }
            XCTAssertEqual(ATTDecoder.opcodeName(row.code), row.name)
        }
        XCTAssertTrue(ATTDecoder.isFromClient(0x52))
        XCTAssertTrue(ATTDecoder.isFromClient(0x1E), "the client confirms indications")
        XCTAssertFalse(ATTDecoder.isFromClient(0x1D))
        XCTAssertEqual(ATTDecoder.opcodeName(0x15), "Unknown Opcode 0x15")
    }
}
