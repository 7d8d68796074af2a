import XCTest
import Foundation
import BTCapture
import BTFixtures

/// Captures taken from the air through the command line: written back out as they came, read
/// by tshark, keys given on the command line, and the errors a person can act on.
final class AirCaptureTests: XCTestCase {
    func btlog(_ arguments: String...) throws -> Tool.Result { try Tool.run(Tool.btlog, arguments) }

    let fixtures = ["Fixtures/le-air-ll.pcap", "Fixtures/le-air-radio.pcap", "Fixtures/le-air-nordic.pcap", "Fixtures/le-air-ubertooth.pcap"]

    func temporary(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("btlog-air-\(ProcessInfo.processInfo.processIdentifier)-\(name)").path
    }

    func testExportKeepsTheLinkType() throws {
        for fixture in fixtures {
            let pcap = temporary("out.pcap"), pcapng = temporary("out.pcapng")
            defer { try? FileManager.default.removeItem(atPath: pcap); try? FileManager.default.removeItem(atPath: pcapng) }
            XCTAssertEqual(try btlog("export", fixture, "--format", "pcap", "-o", pcap).status, 0)
            XCTAssertEqual(FileManager.default.contents(atPath: pcap), FileManager.default.contents(atPath: fixture), "\(fixture): the same file back")
            let exported = try btlog("export", fixture, "--format", "pcapng", "-o", pcapng)
            XCTAssertEqual(exported.status, 0, exported.err)
            XCTAssertEqual(exported.err, "")
            XCTAssertEqual(try btlog("show", pcapng).out, try btlog("show", fixture).out, fixture)
            // tshark reads what btlog wrote: a real consumer, the reference tier's.
            if Reference.isLive, let tshark = Tool.find("tshark") {
                let theirs = try Tool.run(tshark, ["-r", pcapng, "-T", "fields", "-e", "btle.access_address"] + Tool.tsharkUserDLT)
                XCTAssertEqual(theirs.status, 0, theirs.err)
                let ours = try btlog("show", fixture, "--fields", "btle.access_address")
                XCTAssertEqual(theirs.out.lowercased(), ours.out.lowercased(), fixture)
            }
            // HCI formats cannot hold packets from the air: said, not silently dropped.
            let btsnoop = try btlog("export", fixture, "--format", "btsnoop", "-o", pcap)
            XCTAssertTrue(btsnoop.err.contains("btsnoop cannot hold every record"), btsnoop.err)
        }
    }

    func testKeysOnTheCommandLine() throws {
        let fixture = "Fixtures/le-air-nordic.pcap"
        let bad = try btlog("show", "--ltk", "7A1F", fixture)
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.err.contains("--ltk 7A1F: a key is 32 hex digits (16 octets); this has 4"), bad.err)
        let missing = try btlog("show", "--keys", "/nonexistent/keys.txt", fixture)
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.err.contains("/nonexistent/keys.txt: cannot read the keys file"), missing.err)
        let file = temporary("keys.txt")
        defer { try? FileManager.default.removeItem(atPath: file) }
        try "# sensor\n7A1F3C55900BE26418D72B9E41C603F8\nnot a key\n".write(toFile: file, atomically: true, encoding: .utf8)
        let badLine = try btlog("show", "--keys", file, fixture)
        XCTAssertEqual(badLine.status, 1)
        XCTAssertTrue(badLine.err.contains("keys.txt:3: 'n' is not a hex digit"), badLine.err)
        try "# sensor\n7A1F3C55900BE26418D72B9E41C603F8\n".write(toFile: file, atomically: true, encoding: .utf8)
        let good = try btlog("show", "--keys", file, fixture, "-f", "btle.decrypted", "--fields", "number")
        XCTAssertEqual(good.status, 0, good.err)
        XCTAssertGreaterThan(good.out.split(separator: "\n").count, 10)
        // Grep finds decrypted text like any other: the notification the second, encrypted, link
        // carried is the third (a retransmitted copy and a damaged one are not decoded again).
        let grep = try btlog("grep", "-c", "Handle Value Notification", fixture)
        XCTAssertEqual(grep.out.trimmingCharacters(in: .whitespacesAndNewlines), "3")
    }

    /// Keys across sources: crackle's known_ltk.pcap with the peripheral's host log as it would
    /// be (written here from crackle's published key): the controller's LE Long Term Key
    /// Request with the Rand and EDIV of the air's LL_ENC_REQ, the host's reply with the key.
    /// Merged, the air capture decrypts as `--ltk` makes it, packet for packet; alone, not at all.
    func testAHostsLogDecryptsTheAirCaptureItIsMergedWith() throws {
        let air = "Fixtures/third-party/crackle/known_ltk.pcap"
        let start: Int64 = 1_360_876_486_507_000   // just after LL_ENC_REQ (#82, 46.506415)
        let rand: [UInt8] = [0x0F, 0x15, 0xE3, 0x86, 0xF5, 0x4B, 0x40, 0x07], ediv: [UInt8] = [0xE8, 0xCD]
        let ltk: [UInt8] = [0x7F, 0x62, 0xC0, 0x53, 0xF1, 0x04, 0xA5, 0xBB, 0xE6, 0x8B, 0x1D, 0x89, 0x6A, 0x2E, 0xD4, 0x9C]
        let frames = [
            Frame(number: 1, timestamp: start, kind: .event, direction: .received,
                  bytes: [0x3E, 0x0D, 0x05, 0x40, 0x00] + rand + ediv),
            Frame(number: 2, timestamp: start + 400, kind: .command, direction: .sent,
                  bytes: [0x1A, 0x20, 0x12, 0x40, 0x00] + ltk.reversed()),
            Frame(number: 3, timestamp: start + 600, kind: .event, direction: .received,
                  bytes: [0x0E, 0x06, 0x01, 0x1A, 0x20, 0x00, 0x40, 0x00]),
        ]
        let host = temporary("peripheral-host.btsnoop")
        defer { try? FileManager.default.removeItem(atPath: host) }
        try Data(FixtureContainers.encode(frames, as: .btsnoopH4)).write(to: URL(fileURLWithPath: host))
        func airRows(_ result: Tool.Result) -> [String] {
            // Each air packet's layers: its number and source aside, the key's provenance aside,
            // and the packet numbers a field cites (the merge numbers the timeline anew).
            result.out.split(separator: "\n").compactMap { line -> String? in
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      object["kind"] as? String == "le_ll" else { return nil }
                let layers = (object["layers"] as? [[String: Any]] ?? []).map { layer -> String in
                    var fields = layer["fields"] as? [String: Any] ?? [:]
                    for cited in ["btle.key_source", "btle.damaged_acknowledged", "att.request_in"] { fields[cited] = nil }
                    return "\(layer["summary"] ?? "") \(fields.keys.sorted().map { "\($0)=\(fields[$0]!)" })"
                }
                return "\(object["summary"] ?? "") | \(layers.joined(separator: " / "))"
            }
        }
        let given = try btlog("export", "--ltk", "7f62c053f104a5bbe68b1d896a2ed49c", air)
        let merged = try btlog("export", "--merge", air, host)
        XCTAssertEqual(merged.status, 0, merged.err)
        XCTAssertTrue(merged.err.contains("no PDU matched"), "an air capture and an HCI log share no L2CAP PDU yet: timestamps: \(merged.err)")
        let alone = try btlog("export", air)
        XCTAssertEqual(airRows(merged), airRows(given))
        XCTAssertNotEqual(airRows(alone), airRows(given), "without the host's log the link stays encrypted")
        let decrypted = try btlog("show", "--merge", air, host, "-f", "btle.decrypted", "-V")
        XCTAssertTrue(decrypted.out.contains("Key: LTK the host gave its controller in packet 85 (LE Long Term Key Request Reply)"), decrypted.out)
        XCTAssertEqual(try btlog("show", "--merge", air, host, "-f", "btle.decrypted", "--fields", "number").out.split(separator: "\n").count,
                       try btlog("show", "--ltk", "7f62c053f104a5bbe68b1d896a2ed49c", air, "-f", "btle.decrypted", "--fields", "number").out.split(separator: "\n").count)
    }

    /// `btlog keys`: the kernel's own pairing (l2cap-tester's LE case distributes keys both
    /// ways over SMP, which the host logs in plain text) and the LTK it then gives its
    /// controller; BR/EDR link keys; the --keys file it writes reads back. tshark, where it runs,
    /// reads the same LTK from the same packet.
    func testKeysLists() throws {
        let listed = try btlog("keys", "Fixtures/kernel-l2cap.btsnoop", "Fixtures/a2dp-stream.btsnoop")
        XCTAssertEqual(listed.status, 0, listed.err)
        let lines = listed.out.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines[0].hasPrefix("KIND"), listed.out)
        func row(_ needle: String) -> String? { lines.first { $0.contains(needle) } }
        let distributed = try XCTUnwrap(row("SMP Encryption Information, sent"), listed.out)
        XCTAssertTrue(distributed.hasPrefix("LTK       32F9B23F2F90866DAB056B397A46C368"), distributed)
        XCTAssertTrue(distributed.contains("#4322") && distributed.contains("0x5AE9") && distributed.contains("0x56424C7B1669379A"), distributed)
        XCTAssertNotNil(row("440C022554F497CA80EC84BAF8B49D62  LE Enable Encryption"), listed.out)
        let linkKey = try XCTUnwrap(row("Link key  50D5F9D5905EE0CC32104633805A070E  Link Key Notification, type 0x08"), listed.out)
        XCTAssertTrue(linkKey.contains("Fixtures/a2dp-stream.btsnoop") && linkKey.contains("#35"), linkKey)
        let keysFile = temporary("found.keys")
        defer { try? FileManager.default.removeItem(atPath: keysFile) }
        let written = try btlog("keys", "Fixtures/kernel-l2cap.btsnoop", "-o", keysFile)
        XCTAssertTrue(written.err.contains("3 LTKs written to"), written.err)
        let text = try String(contentsOfFile: keysFile, encoding: .utf8)
        XCTAssertTrue(text.contains("32F9B23F2F90866DAB056B397A46C368  # SMP Encryption Information, sent, Fixtures/kernel-l2cap.btsnoop #4322"), text)
        let reads = try btlog("show", "--keys", keysFile, "Fixtures/le-air-nordic.pcap", "-c", "1")
        XCTAssertEqual(reads.status, 0, reads.err)
        XCTAssertEqual(try btlog("keys", "Fixtures/bnep-pan.btsnoop").out, "No keys in plain text.\n")
        // From the air: what a legacy pairing sniffed in full distributed, once decrypted.
        XCTAssertTrue(try btlog("keys", "Fixtures/le-air-ll.pcap").out.contains("LTK   7A1F3C55900BE26418D72B9E41C603F8  SMP Encryption Information  #79"))
        if Reference.isLive, let tshark = Tool.find("tshark") {
            // tshark writes the octets as the PDU carries them, least significant first.
            let theirs = try Tool.run(tshark, ["-r", "Fixtures/kernel-l2cap.btsnoop", "-Y", "btsmp.long_term_key", "-T", "fields", "-e", "btsmp.long_term_key"])
            let keys = theirs.out.split(separator: "\n").map { line -> String in
                let hex = Array(line.replacingOccurrences(of: ":", with: "").uppercased())
                return stride(from: 0, to: hex.count - 1, by: 2).reversed().map { String(hex[$0 ... $0 + 1]) }.joined()
            }
            XCTAssertEqual(keys, ["00000000000000000000000000000000", "32F9B23F2F90866DAB056B397A46C368"], theirs.out)
        }
    }

    /// `btlog keys` on two real hosts bonding (Fixtures/kernel-pairing.btsnoop: LE legacy Just
    /// Works between btvirt's LE pair, the kernel's SMP driven over mgmt, then a reconnection
    /// on the bond). What the protocol demands of the keys, each from a different packet: the
    /// LTK the peripheral distributes is the one its host answers the reconnection's LTK
    /// Request with, under the EDIV and Rand it distributed with it, which the central's LE
    /// Enable Encryption carries; the pairing's own encryption (the STK) has EDIV and Rand 0
    /// and another key; both ends log each distributed key alike. tshark, where it runs, finds
    /// the same keys in the same packets.
    func testKeysOfTwoKernelHostsBonding() throws {
        let fixture = "Fixtures/kernel-pairing.btsnoop"
        let listed = try btlog("keys", fixture)
        XCTAssertEqual(listed.status, 0, listed.err)
        struct Row { var kind, key, how, packet, link, device, ediv, rand: String }
        let rows = listed.out.split(separator: "\n").dropFirst().map { line -> Row in
            let cells = line.split(separator: "  ", omittingEmptySubsequences: true).map { $0.trimmingCharacters(in: .whitespaces) }
            return Row(kind: cells[0], key: cells[1], how: cells[2], packet: cells[3], link: cells[4], device: cells[5], ediv: cells[6], rand: cells[7])
        }
        func only(_ how: String, _ link: String) throws -> [Row] {
            let found = rows.filter { $0.how == how && $0.link.hasPrefix(link) }
            XCTAssertFalse(found.isEmpty, "\(how) on \(link): \(listed.out)")
            return found
        }
        let distributed = try XCTUnwrap(only("SMP Encryption Information, sent", "hci1").first)
        let reconnection = try XCTUnwrap(only("LE Enable Encryption", "hci0").last)
        let reply = try XCTUnwrap(only("LE Long Term Key Request Reply", "hci1").last)
        XCTAssertEqual([reconnection.key, reconnection.ediv, reconnection.rand], [distributed.key, distributed.ediv, distributed.rand])
        XCTAssertEqual([reply.key, reply.ediv, reply.rand], [distributed.key, distributed.ediv, distributed.rand])
        XCTAssertNotEqual(distributed.ediv, "0x0000")
        let shortTerm = try XCTUnwrap(only("LE Enable Encryption", "hci0").first)
        XCTAssertEqual([shortTerm.ediv, shortTerm.rand], ["0x0000", "0x0000000000000000"])
        XCTAssertEqual(try only("LE Long Term Key Request Reply", "hci1").first?.key, shortTerm.key)
        let centralDistributed = try XCTUnwrap(only("SMP Encryption Information, sent", "hci0").first)
        XCTAssertEqual(Set([shortTerm.key, distributed.key, centralDistributed.key]).count, 3)
        // Each key the one end sends, the other receives.
        for (kind, how) in [("LTK", "SMP Encryption Information"), ("IRK", "SMP Identity Information"), ("CSRK", "SMP Signing Information")] {
            let sent = rows.filter { $0.kind == kind && $0.how == how + ", sent" }.map(\.key)
            let received = rows.filter { $0.kind == kind && $0.how == how + ", received" }.map(\.key)
            XCTAssertEqual(Set(sent), Set(received), kind)
            XCTAssertFalse(sent.isEmpty, kind)
        }
        // The central's IRK names its identity: its controller's public address.
        let irk = try XCTUnwrap(rows.first { $0.kind == "IRK" })
        XCTAssertEqual(irk.device, "00:AA:01:00:00:00", listed.out)
        let address = try btlog("show", fixture, "-f", "controller == 0", "-c", "30")
        XCTAssertTrue(address.out.contains("Command Complete: Read BD ADDR - 00:AA:01:00:00:00"), address.out)

        if Reference.isLive, let tshark = Tool.find("tshark") {
            // Octets as the PDU and the command carry them, least significant first.
            func quoted(_ field: String) -> String {
                let hex = Array(field.replacingOccurrences(of: ":", with: "").uppercased())
                return stride(from: 0, to: hex.count - 1, by: 2).reversed().map { String(hex[$0 ... $0 + 1]) }.joined()
            }
            for (field, how) in [("btsmp.long_term_key", "SMP Encryption Information"), ("btsmp.id_resolving_key", "SMP Identity Information"),
                                 ("bthci_cmd.le_long_term_key", "LE ")] {
                let theirs = try Tool.run(tshark, ["-r", fixture, "-Y", field, "-T", "fields", "-e", "frame.number", "-e", field])
                let pairs = theirs.out.split(separator: "\n").map { line -> String in
                    let cells = line.split(separator: "\t").map(String.init)
                    return "#\(cells[0]) \(quoted(cells[1]))"
                }
                let ours = rows.filter { $0.how.hasPrefix(how) }.map { "\($0.packet) \($0.key)" }
                XCTAssertEqual(ours, pairs, field)
            }
        }
    }

    func testStatsJSONOfAnAirCapture() throws {
        let result = try btlog("stats", "--json", "Fixtures/le-air-radio.pcap")
        XCTAssertEqual(result.status, 0, result.err)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        XCTAssertEqual(document["air"] as? Int, document["packets"] as? Int)
        XCTAssertEqual((document["connections"] as? [Any])?.count, 2)
        // StatsTests validates every fixture's document, these included, against docs/stats.schema.json.
    }

    /// BR/EDR baseband (link type 255) against tshark: the pseudo-header, the packet header with
    /// its HEC, and (on a copy whose payloads are flagged decrypted and HEC- and CRC-checked, the
    /// only ones Wireshark 4.0 decodes) the payload header, CRC, FHS and L2CAP above them. btlog checks HEC and CRC with
    /// the UAP as tshark does: both find the same two damaged packets.
    func testBasebandAgreesWithTshark() throws {
        let decrypted = temporary("bredr-decrypted.pcap")
        defer { try? FileManager.default.removeItem(atPath: decrypted) }
        try Data(FixtureContainers.encode(BasebandScenario.frames(decrypted: true), as: .pcapBREDRBB)).write(to: URL(fileURLWithPath: decrypted))
        let header = ["rf_channel", "signal_power", "noise_power", "access_address_offenses", "payload_transport_rate",
                      "payload_transport_rate.transport", "payload_transport_rate.payload", "corrected_header_bits",
                      "corrected_payload_bits", "lower_address_part", "reference_lower_address_part", "reference_upper_addres_part",
                      "packet_header", "packet_header.lt_addr", "packet_header.type", "packet_header.flow_control", "packet_header.arqn",
                      "packet_header.seqn", "packet_header.hec", "flags"].map { "btbredr_rf." + $0 }
        let payload = ["btbredr_rf.payload_header.llid", "btbredr_rf.payload_header.flow", "btbredr_rf.payload_header.length", "btbredr_rf.crc",
                       "btbredr_fhs.lap", "btbredr_fhs.uap", "btbredr_fhs.nap", "btbredr_fhs.class", "btbredr_fhs.ltaddr", "btbredr_fhs.eir",
                       "btbredr_fhs.sr", "btbredr_fhs.parity", "btl2cap.cid", "btl2cap.cmd_code"]
        let ours = ["l2cap.cid", "l2cap.code"]
        for (file, fields, mine, recording) in [("Fixtures/bredr-baseband.pcap", header, header, "header"),
                                                (decrypted, header + payload, header + payload.dropLast(2) + ours, "decrypted")] {
            let theirs = try Reference.output("tshark", ["-r", file, "-T", "fields", "-E", "separator=/t", "-e", "_ws.expert.message"] + fields.flatMap { ["-e", $0] },
                                              recordedAs: "tshark/baseband-\(recording).tsv")
            let btlog = try btlog("show", file, "--fields", (["btbredr_rf.crc_ok"] + mine).joined(separator: ","))
            XCTAssertEqual(btlog.status, 0, btlog.err)
            let theirRows = theirs.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            let ourRows = btlog.out.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            XCTAssertEqual(theirRows.count, 14)
            XCTAssertEqual(ourRows.count, 14)
            var compared = 0
            for (number, (t, b)) in zip(theirRows, ourRows).enumerated() {
                let tc = t.split(separator: "\t", omittingEmptySubsequences: false), bc = b.split(separator: "\t", omittingEmptySubsequences: false)
                // The damaged packets. Packet 14's header: both find its HEC wrong. Packet 13's
                // payload: btlog finds its CRC wrong (in the copy, as the sniffer's flags say);
                // tshark checks no CRC of a payload not flagged decrypted, and decodes none the
                // sniffer flagged bad. Packet 2, an FHS answering an inquiry: the spec checks it
                // with the DCI, 0x00 (Core Vol 2, Part B, 7.1), as btlog does; Wireshark 4.0 takes
                // the reference UAP for its CRC (not for its HEC) and calls it incorrect.
                let packet = number + 1
                XCTAssertEqual(tc[0].contains("Incorrect Packet Header or HEC"), packet == 14, "packet \(packet): \(tc[0])")
                XCTAssertEqual(tc[0].contains("Incorrect CRC"), packet == 2 && file == decrypted, "packet \(packet): \(tc[0])")
                XCTAssertEqual(bc[0] == "0", packet == 13, "packet \(packet): btlog's CRC verdict")
                for index in fields.indices {
                    switch (packet, fields[index]) {
                    case (14, _) where index >= header.count, (13, _) where index >= header.count:
                        continue
                    case (1, "btbredr_rf.payload_transport_rate"):
                        // An ID packet has no header: tshark writes no transport octet for it, btlog its 0xFF.
                        continue
                    case (2, "btbredr_rf.crc"):
                        continue
                    case (9, "btl2cap.cid"), (9, "btl2cap.cmd_code"):
                        // Wireshark 4.0 does not join this DM1 continuation to the start before it
                        // (it reads "as" of the echo data as a CID); btlog reassembles the PDU.
                        continue
                    default: break
                    }
                    let a = DifferentialTests.values(tc[index + 1]), o = DifferentialTests.values(bc[index + 1])
                    XCTAssertEqual(o, a, "\(file) packet \(number + 1): \(mine[index]) is \(bc[index + 1]), tshark's \(fields[index]) is \(tc[index + 1])")
                    if !a.isEmpty { compared += 1 }
                }
                XCTAssertEqual(bc.count, fields.count + 1)
            }
            XCTAssertGreaterThan(compared, file == decrypted ? 250 : 200)
        }
    }

    /// A link paired with LE Secure Connections: no sniffer can find its key (ECDH), and
    /// stats and diagnose say so and ask for --ltk. The scenario's pairing PDUs are marked SC
    /// (AuthReq bit 3), as a pairing between two SC devices would be.
    func testSecureConnectionsLinksAskForTheLTK() throws {
        let frames = AirScenario.frames(.nordicBLE, secureConnections: true)
        let file = temporary("sc.pcap")
        defer { try? FileManager.default.removeItem(atPath: file) }
        try Data(try FixtureContainers.encode(frames, as: .pcapNordicBLE)).write(to: URL(fileURLWithPath: file))
        let method = try btlog("show", file, "-f", "smp.method", "--fields", "smp.method")
        XCTAssertTrue(method.out.hasPrefix("LE Secure Connections"), method.out)
        let stats = try btlog("stats", file)
        XCTAssertTrue(stats.out.contains("paired with LE Secure Connections: no sniffer can recover its key, give the LTK with --ltk"), stats.out)
        // The nRF Sniffer had no key either: its MIC flag is clear on every encrypted packet,
        // which is no MIC failure (the link went on); diagnose lists the link as the capture's
        // gap, encrypted without a key, and asks for it.
        let diagnose = try btlog("diagnose", file)
        XCTAssertTrue(diagnose.out.contains("encrypted, no key (paired with LE Secure Connections, whose key cannot be recovered from the air)"), diagnose.out)
        XCTAssertTrue(diagnose.out.contains("--ltk"), diagnose.out)
        XCTAssertFalse(diagnose.out.contains("MIC"), diagnose.out)
        XCTAssertEqual(try btlog("show", file, "-f", "btle.mic_ok == 0", "--fields", "number").out, "")
        XCTAssertEqual(try btlog("show", file, "--errors", "-f", "btle.encrypted").out.contains("MIC failure"), false)
        let json = try btlog("stats", "--json", file)
        XCTAssertTrue(json.out.contains("\"le_secure_connections\": true"), json.out)
    }

    /// Private addresses: numeric_pin.pcap's peripheral distributed its IRK (#177) but the
    /// sniffer missed its identity address; given with --irk and an address, every packet of
    /// the device answers to that address, from the first advertisement on.
    func testIdentityResolvingKeys() throws {
        let pin = "Fixtures/third-party/crackle/numeric_pin.pcap", irk = "9C3E771E765220FD690B7E62E7452969"
        // The capture's own key: from its packet on, with the identity address unknown.
        let own = try btlog("stats", pin)
        XCTAssertTrue(own.out.contains("69:5B:FB:2C:3F:A7  (not in the capture)  #177        131"), own.out)
        let given = try btlog("show", "--irk", "\(irk)=C0:11:22:33:44:55", pin, "--device", "C0:11:22:33:44:55", "--fields", "number,identity.address,identity.key_frame")
        XCTAssertEqual(given.status, 0, given.err)
        let rows = given.out.split(separator: "\n").filter { $0.first?.isNumber == true }
        XCTAssertEqual(rows.first, "1\tC0:11:22:33:44:55\t0", "from the first advertisement: \(given.out)")
        XCTAssertGreaterThan(rows.count, 250)
        XCTAssertEqual(try btlog("show", pin, "--device", "C0:11:22:33:44:55").out.split(separator: "\n").count, 1, "without the key, no packet is the device's")
        let tree = try btlog("show", "--irk", "\(irk)=C0:11:22:33:44:55", pin, "--packets", "3", "-V")
        XCTAssertTrue(tree.out.contains("Identity     ▼ 69:5B:FB:2C:3F:A7 is a resolvable private address of C0:11:22:33:44:55, by the key given with --irk"), tree.out)
        // A key that does not read is a usage error.
        let bad = try btlog("show", "--irk", "12=C0:11:22:33:44:55", pin)
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.err.contains("--irk 12=C0:11:22:33:44:55: a key is 32 hex digits"), bad.err)
        let badAddress = try btlog("show", "--irk", "\(irk)=nowhere", pin)
        XCTAssertEqual(badAddress.status, 2)
        // openssl, where it runs, computes the same hash: AES-128 of 0…0 ‖ prand under the key.
        if let openssl = Reference.consumer("openssl") {
            let block = FileManager.default.temporaryDirectory.appendingPathComponent("btlog-prand-\(getpid()).bin")
            defer { try? FileManager.default.removeItem(at: block) }
            try Data([UInt8](repeating: 0, count: 13) + [0x69, 0x5B, 0xFB]).write(to: block)
            let output = block.appendingPathExtension("out")
            defer { try? FileManager.default.removeItem(at: output) }
            let cipher = try Tool.run(openssl, ["enc", "-aes-128-ecb", "-K", irk, "-nopad", "-in", block.path, "-out", output.path])
            XCTAssertEqual(cipher.status, 0, cipher.err)
            XCTAssertEqual(Array(try Data(contentsOf: output).suffix(3)), [0x2C, 0x3F, 0xA7], "ah = the address's low 24 bits")
        }
    }
}
