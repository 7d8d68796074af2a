import BTCapture

/// Broadcast Audio Scan Service fields (BASS 1.0).
public enum BASSFields {
    static let f = FieldDefinition.maker("bass")
    public static let opcode = f("opcode", "Opcode", .uint8, "0x00 Remote Scan Stopped, 0x01 Remote Scan Started, 0x02 Add Source, 0x03 Modify Source, 0x04 Set Broadcast Code, 0x05 Remove Source")
    public static let source = f("source_id", "Source ID", .uint8, "A broadcast source the server keeps")
    public static let address = f("address", "Advertiser Address", .address, "The broadcast source's address")
    public static let broadcastID = f("broadcast_id", "Broadcast ID", .uint32, "24-bit identifier of the broadcast")
    public static let paSync = f("pa_sync", "PA Sync", .uint8, "Add/Modify: 0 do not synchronize, 1 synchronize (PAST), 2 synchronize (no PAST); state: 0 not synchronized, 1 SyncInfo request, 2 synchronized, 3 failed, 4 no PAST")
    public static let encryption = f("big_encryption", "BIG Encryption", .uint8, "0 not encrypted, 1 Broadcast Code required, 2 decrypting, 3 bad code")
    public static let bisSync = f("bis_sync", "BIS Sync", .uint32, "Bit per BIS index (0xFFFFFFFF: no preference / failed)")

    public static let all = [opcode, source, address, broadcastID, paSync, encryption, bisSync]
}

/// BASS (service 0x184F): the Broadcast Audio Scan Control Point's operations and each
/// Broadcast Receive State (source, PA sync, BIG encryption, BIS sync and metadata per subgroup).
enum BASSDecoder {
    static let descriptor = ProtocolDescriptor(name: "BASS", fields: BASSFields.all, layers: [.bass],
                                               registrations: [0x2BC7, 0x2BC8].map { .gattCharacteristic(BTUUID(UInt16($0)), decode) })

    static let opcodes = ["Remote Scan Stopped", "Remote Scan Started", "Add Source", "Modify Source", "Set Broadcast Code", "Remove Source"]
    static let syncRequests = ["Do Not Synchronize", "Synchronize (PAST available)", "Synchronize (PAST not available)"]
    static let syncStates = ["Not Synchronized", "SyncInfo Request", "Synchronized", "Failed to Synchronize", "No PAST"]
    static let encryptions = ["Not Encrypted", "Broadcast Code Required", "Decrypting", "Bad Code"]
    static let errors: [UInt8: String] = [0x80: "Opcode Not Supported", 0x81: "Invalid Source ID"]

    static func decode(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session, context: GATTValueContext) throws {
        if context.opcode == 0x01 { return try GATTProfileError.report(&c, &packet, layer: .bass, errors) }
        var layer = packet.makeLayer(.bass, over: c, showsDirection: true)
        defer { packet.append(taking: &layer) }
        if context.characteristic.uuid16 == 0x2BC7 {
            try controlPoint(&c, &layer)
        } else {
            try receiveState(&c, &layer)
        }
        if !c.isAtEnd { layer.addIssue(.warning, "\(c.remaining) bytes after the BASS value") }
    }

    static func controlPoint(_ c: inout ByteCursor, _ layer: inout Layer) throws {
        let (opcode, opcodeAt) = try layer.reading(&c) { try $0.u8() }
        let name = opcodes[safe: Int(opcode)] ?? "Reserved Opcode \(Hex.u8(opcode))"
        layer.add(BASSFields.opcode, .u8(opcode), name, at: opcodeAt)
        layer.summary.set("\(name)")
        switch opcode {
        case 0x02:
            _ = try c.u8()
            let address = try layer.read(BASSFields.address, &c, as: BDAddr.self)
            let sid = try c.u8()
            let (id, idAt) = try layer.reading(&c) { try $0.u24() }
            layer.add(BASSFields.broadcastID, .u32(id), at: idAt)
            let sync = try layer.readCount(BASSFields.paSync, &c, as: UInt8.self, display: { sync in syncRequests[safe: Int(sync)] })
            _ = try c.u16()
            layer.summary += " - \(address) SID \(sid) - Broadcast ID \(Hex.format(id, width: 6)) - \(syncRequests[safe: Int(sync)] ?? "PA Sync \(sync)")"
            let groups = try subgroups(&c, &layer)
            layer.summary += "\(groups)"
        case 0x03:
            let (source, sourceAt) = try layer.reading(&c) { try $0.u8() }
            let (sync, syncAt) = try layer.reading(&c) { try $0.u8() }
            layer.add(BASSFields.source, .count(Int(source)), at: sourceAt)
            layer.add(BASSFields.paSync, .count(Int(sync)), syncRequests[safe: Int(sync)], at: syncAt)
            _ = try c.u16()
            layer.summary += " - source \(source) - \(syncRequests[safe: Int(sync)] ?? "PA Sync \(sync)")"
            let groups = try subgroups(&c, &layer)
            layer.summary += "\(groups)"
        case 0x04:
            let source = try layer.readCount(BASSFields.source, &c, as: UInt8.self)
            _ = try c.slice(16)
            layer.summary += " - source \(source)"
        case 0x05:
            let source = try layer.readCount(BASSFields.source, &c, as: UInt8.self)
            layer.summary += " - source \(source)"
        default:
            break
        }
    }

    static func receiveState(_ c: inout ByteCursor, _ layer: inout Layer) throws {
        guard !c.isAtEnd else {
            layer.summary.set("Broadcast Receive State: empty")
            return
        }
        let source = try layer.readCount(BASSFields.source, &c, as: UInt8.self)
        _ = try c.u8()
        let address = try layer.read(BASSFields.address, &c, as: BDAddr.self)
        _ = try c.u8()
        let (id, idAt) = try layer.reading(&c) { try $0.u24() }
        layer.add(BASSFields.broadcastID, .u32(id), at: idAt)
        let (sync, syncAt) = try layer.reading(&c) { try $0.u8() }
        let (encryption, encryptionAt) = try layer.reading(&c) { try $0.u8() }
        layer.add(BASSFields.paSync, .count(Int(sync)), syncStates[safe: Int(sync)], at: syncAt)
        layer.add(BASSFields.encryption, .count(Int(encryption)), encryptions[safe: Int(encryption)], at: encryptionAt)
        if encryption == 3 { _ = try c.slice(16) }
        layer.summary.set("Broadcast Receive State: source \(source) - \(address) - Broadcast ID \(Hex.format(id, width: 6)) - \(syncStates[safe: Int(sync)] ?? "PA state \(sync)") - \(encryptions[safe: Int(encryption)] ?? "encryption \(encryption)")")
        let groups = try subgroups(&c, &layer)
        layer.summary += "\(groups)"
        if sync == 3 { layer.addIssue(.warning, "BASS: the server failed to synchronize to the periodic advertising") }
        if encryption == 3 { layer.addIssue(.warning, "BASS: bad Broadcast Code") }
    }

    /// Num_Subgroups, then each subgroup's BIS sync bits and metadata.
    static func subgroups(_ c: inout ByteCursor, _ layer: inout Layer) throws -> String {
        let count = try c.u8()
        var parts: [String] = []
        for _ in 0 ..< count {
            let bis = try layer.read(BASSFields.bisSync, &c, as: UInt32.self)
            let metadata = try c.slice(Int(try c.u8()))
            let entries = LEAudioValues.ltvs(metadata, .metadata, lc3: false, &layer)
            let indices: [String] = (0 ..< 32).filter { (index: Int) -> Bool in bis >> UInt32(index) & 1 == 1 }.map { String($0 + 1) }
            let sync = bis == 0xFFFF_FFFF ? "any BIS" : bis == 0 ? "no BIS" : "BIS " + indices.joined(separator: ",")
            parts.append(([sync] + entries).joined(separator: " "))
        }
        return parts.isEmpty ? "" : " - \(parts.joined(separator: "; "))"
    }
}

/// The layers this decoder makes.
extension LayerKind {
    public static let bass = LayerKind("BASS", protocol: "bass")
}
