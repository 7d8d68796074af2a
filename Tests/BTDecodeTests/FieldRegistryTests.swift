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
        // The built-in fields first, in catalog order (described protocols a test loaded earlier
        // in the same process come after them).
        XCTAssertEqual(Array(FieldRegistry.all.map(\.name).prefix(names.count)), names)
    }

    /// A parameter name has one definition whatever layout makes it: a name read at two widths
    /// (Packet_Type) is listed in `widerThanSomeLayouts` with the wider type, the same every run.
    func testHCIParameterFieldsHaveOneDefinition() {
        var types: [String: Set<String>] = [:]
        for layout in [HCICommands.parameterLayouts.all, HCICommands.returnLayouts.all].joined() {
            for param in layout.flatMap(\.flattened) { types[param.field.name, default: []].insert(param.field.type.rawValue) }
        }
        for layout in [HCIEvents.eventLayouts.all, HCIEvents.subeventLayouts.all].joined() {
            for param in layout.flatMap(\.flattened) { types[param.field.name, default: []].insert(param.field.type.rawValue) }
        }
        XCTAssertEqual(types.filter { $0.value.count > 1 }, [:], "a parameter name made with two types: add it to widerThanSomeLayouts")
        for (name, kinds) in types { XCTAssertEqual(FieldRegistry.lookup(name)?.type.rawValue, kinds.first, name) }
        XCTAssertEqual(FieldRegistry.lookup("hci.packet_type")?.type, .uint16)
        XCTAssertEqual(HCIParameterFields.field("Packet_Type", .u8).type, .uint16)
    }

    /// The dissector tables hold every registration of the catalog, each under its key, and the
    /// numbers the specifications fix: ATT on its fixed channel (0x0004), SMP on 0x0006 and
    /// 0x0007, signaling on 0x0001 and 0x0005, SDP on PSM 0x0001; no decoder by a dynamic PSM.
    func testDissectorTablesComeFromTheCatalog() {
        var characteristics = 0
        for descriptor in ProtocolCatalog.all {
            for registration in descriptor.registrations {
                switch registration {
                case .fixedChannel(let cid, let name, _):
                    XCTAssertNotNil(DissectorTables.fixedChannels[Int(cid)], descriptor.name)
                    XCTAssertEqual(L2CAPProtocols.fixedName(cid: cid), name)
                case .psm(let psm, let name, _):
                    XCTAssertNotNil(DissectorTables.psm(psm), descriptor.name)
                    XCTAssertEqual(L2CAPProtocols.name(psm: psm), name)
                case .gattValue(let uuid, _): XCTAssertNotNil(DissectorTables.gattValues[uuid], descriptor.name)
                case .manufacturerData(let company, _): XCTAssertNotNil(DissectorTables.manufacturerData[company], descriptor.name)
                case .rfcommService(let service, _): XCTAssertNotNil(DissectorTables.rfcommServices[service], descriptor.name)
                case .avctpProfile(let pid, _): XCTAssertNotNil(DissectorTables.avctpProfiles[pid], descriptor.name)
                case .gattCharacteristic(let uuid, _):
                    XCTAssertNotNil(DissectorTables.gattCharacteristics[uuid], descriptor.name)
                    characteristics += 1
                }
            }
        }
        XCTAssertEqual(DissectorTables.gattCharacteristics.count, characteristics)
        XCTAssertEqual(DissectorTables.fixedChannelNames[0x0004], "ATT")
        XCTAssertEqual(DissectorTables.fixedChannelNames[0x0006], "SMP")
        XCTAssertEqual(DissectorTables.fixedChannelNames[0x0007], "BR/EDR SMP")
        XCTAssertEqual(DissectorTables.fixedChannelNames[0x0001], "L2CAP Signaling")
        XCTAssertEqual(DissectorTables.fixedChannelNames[0x0005], "LE Signaling")
        XCTAssertEqual(DissectorTables.psmNames[0x0001], "SDP")
        XCTAssertEqual(L2CAPProtocols.name(psm: 0x0025), "OTS") // assigned, not decoded
        XCTAssertEqual(DissectorTables.psms.indices.filter { DissectorTables.psm(UInt16($0)) != nil }.map(UInt16.init), DissectorTables.psmTable.keys.sorted())
        XCTAssertNil(DissectorTables.psm(0x1001)) // dynamic PSMs: no decoder by number
        XCTAssertNotNil(DissectorTables.gattValues[BTUUID(UInt16(0x2A37))])
        XCTAssertEqual(GATTValues.describe(BTUUID(UInt16(0x2A19)), [0x57]), "87%")
        XCTAssertNil(GATTValues.describe(BTUUID(UInt16(0x2A19)), []))
        XCTAssertNotNil(DissectorTables.manufacturerData[0x004C])
        XCTAssertNotNil(DissectorTables.avctpProfiles[0x110E], "AVRCP")
        XCTAssertNotNil(DissectorTables.gattCharacteristics[BTUUID(UInt16(0x2BC6))], "ASE Control Point")
        // Each catalog protocol's state, then the described protocols' text streams'.
        XCTAssertEqual(ProtocolCatalog.stateTypes.count, ProtocolCatalog.all.filter { $0.state != nil }.count + 1)
        XCTAssertTrue(ProtocolCatalog.stateTypes.last == DescribedState.self)
        // Each state's constant slot is its place in that list, and a Session hands each decoder
        // its own kind of state from it.
        for (index, type) in ProtocolCatalog.stateTypes.enumerated() { XCTAssertEqual(type.slot, index, "\(type)") }
        XCTAssertEqual(L2CAPState.slot, StateSlot.l2cap.rawValue)
        XCTAssertTrue(ProtocolCatalog.stateTypes[StateSlot.att.rawValue] == ATTState.self)
        XCTAssertTrue(ProtocolCatalog.stateTypes[StateSlot.vendor.rawValue] == VendorState.self)
    }

    /// What `--redact` and `--redact-values` zero is named by the protocols: every such name is
    /// a field of the protocol that names it, and the keys SMP distributes are among them.
    func testRedactedFieldsAreFieldsOfTheirProtocol() {
        for descriptor in ProtocolCatalog.all {
            let own = Set(descriptor.fields.map(\.name))
            for name in descriptor.secrets + descriptor.values {
                XCTAssertTrue(own.contains(name), "\(descriptor.name) redacts \(name), which is not one of its fields")
            }
        }
        XCTAssertTrue(ProtocolCatalog.secretFields.isSuperset(of: ["smp.ltk", "smp.irk", "smp.csrk", "hci.link_key", "hci.long_term_key"]))
        XCTAssertTrue(ProtocolCatalog.valueFields.contains("att.value"))
        XCTAssertTrue(ProtocolCatalog.secretFields.isDisjoint(with: ProtocolCatalog.valueFields))
    }

    /// Every layer decoded from the fixtures (HCI logs and air captures) is of a kind its
    /// protocol declares, or one named after what it holds; no two kinds share a name.
    func testEveryLayerIsOfADeclaredKind() throws {
        let declared = ProtocolCatalog.all.flatMap(\.layers)
        XCTAssertEqual(Set(declared.map(\.name)).count, declared.count)
        XCTAssertEqual(ProtocolCatalog.layerProtocols, Set(declared.compactMap(\.protocolName)))
        var seen: Set<LayerKind> = []
        // The generated fixtures, and the third-party air captures beside them.
        let folder = ModelTests.fixtures, thirdParty = folder.appendingPathComponent("third-party/crackle")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasSuffix(".md") && $0 != "third-party" }
            .map { folder.appendingPathComponent($0) }
            + (try FileManager.default.contentsOfDirectory(atPath: thirdParty.path)).filter { $0.hasSuffix(".pcap") }.map { thirdParty.appendingPathComponent($0) }
        for file in files {
            let reader = try CaptureInput.open(file.path)
            let decoder = Decoder()
            while let frame = try reader.next() {
                for layer in decoder.decode(frame).layers { seen.insert(layer.kind) }
            }
        }
        for kind in seen where kind.protocolName != nil {
            XCTAssertTrue(declared.contains(kind), "\(kind.name) (\(kind.protocolName!)) is made but no protocol declares it")
        }
        // The air captures' and the data layers' kinds are all there.
        for kind in [LayerKind.linkLayer, .baseband, .ppi, .nordicSniffer, .leRadio, .acl, .sco, .iso, .l2cap, .att, .smp, .a2dpMedia] {
            XCTAssertTrue(seen.contains(kind), kind.name)
        }
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
