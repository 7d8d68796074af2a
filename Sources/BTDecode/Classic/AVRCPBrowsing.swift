import BTCapture

/// AVRCP on the browsing channel (its layer is "AVRCP" too: the PDUs differ) (PSM 0x001B; AVRCP 1.6, 6.10): PDU ID, length and the
/// parameters of Set Browsed Player, Get Folder Items (players, folders, media elements),
/// Change Path, Get Item Attributes, Get Total Number of Items, Search and General Reject.
enum AVRCPBrowsing {
    static func decode(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session, context: AVCTPContext) throws {
        var r = AVRCPReader(c: c, layer: packet.makeLayer(.avrcp, over: c, showsDirection: true), ranged: true)
        defer { packet.append(taking: &r.layer) }
        let pdu = try r.u8(AVRCPFields.pdu) { AVRCPNames.named(AVRCPNames.pdus, $0, Hex.u8($0)) }
        let length = try r.count16(AVRCPFields.length)
        let name = AVRCPNames.pdus[pdu] ?? "PDU \(Hex.u8(pdu))"
        r.layer.summary.set("\(name): \(context.isResponse ? "Response" : "Command")")
        if length != r.remaining { r.layer.addIssue(.warning, "AVRCP parameter length \(length) but \(r.remaining) bytes follow") }
        switch (pdu, context.isResponse) {
        case (0x70, false):
            let player = try r.u16(AVRCPFields.playerID)
            r.layer.summary += " - player \(player)"
        case (0x70, true):
            guard try r.status() == 0x04 else { break }
            _ = try r.u16(AVRCPFields.uidCounter)
            let items = try r.count32(AVRCPFields.numberOfItems)
            let charset = try r.u16(AVRCPFields.characterSet)
            let depth = try r.count8(AVRCPFields.folderDepth)
            var path: [String] = []
            for _ in 0 ..< depth {
                let length = Int(try r.c.u16be())
                path.append(try r.text(AVRCPFields.name, length: length, charset: charset))
            }
            r.layer.summary += " - /\(path.joined(separator: "/")) - \(items) items"
        case (0x71, false):
            let scope = try r.u8(AVRCPFields.scope) { AVRCPNames.scopes[safe: Int($0)] }
            let start = try r.count32(AVRCPFields.startItem), end = try r.count32(AVRCPFields.endItem)
            let countAt = r.c.index
            let count = try r.c.u8()
            r.layer.add(AVRCPFields.attributeCount, .count(Int(count)), count == 0 ? "All" : count == 0xFF ? "None" : nil,
                        at: r.ranged ? r.layer.range(at: countAt) : nil)
            if count != 0xFF {
                for _ in 0 ..< count { _ = try r.u32(AVRCPFields.attribute) { AVRCPNames.named(AVRCPNames.attributes, $0, Hex.format($0, width: 8)) } }
            }
            r.layer.summary += " - \(AVRCPNames.scopes[safe: Int(scope)] ?? "Scope \(scope)") \(start)-\(end)"
        case (0x71, true):
            guard try r.status() == 0x04 else { break }
            _ = try r.u16(AVRCPFields.uidCounter)
            let count = Int(try r.u16(AVRCPFields.numberOfItems))
            var names: [String] = []
            for _ in 0 ..< count { names.append(try item(&r)) }
            r.layer.summary += " - \(count) item\(count == 1 ? "" : "s")"
            if !names.isEmpty { r.layer.summary += ": \(names.prefix(4).joined(separator: ", "))\(names.count > 4 ? "…" : "")" }
        case (0x72, false):
            _ = try r.u16(AVRCPFields.uidCounter)
            let direction = try r.u8(AVRCPFields.direction) { $0 == 0 ? "Up" : $0 == 1 ? "Down" : nil }
            let folder = try r.u64(AVRCPFields.uid)
            r.layer.summary += direction == 0 ? " - up" : " - down into \(Hex.format(folder, width: 16))"
        case (0x72, true):
            guard try r.status() == 0x04 else { break }
            let items = try r.count32(AVRCPFields.numberOfItems)
            r.layer.summary += " - \(items) items"
        case (0x73, false):
            let scope = try r.u8(AVRCPFields.scope) { AVRCPNames.scopes[safe: Int($0)] }
            let uid = try r.u64(AVRCPFields.uid)
            _ = try r.u16(AVRCPFields.uidCounter)
            let count = try r.count8(AVRCPFields.attributeCount)
            for _ in 0 ..< count { _ = try r.u32(AVRCPFields.attribute) { AVRCPNames.named(AVRCPNames.attributes, $0, Hex.format($0, width: 8)) } }
            r.layer.summary += " - \(AVRCPNames.scopes[safe: Int(scope)] ?? "Scope \(scope)") UID \(Hex.format(uid, width: 16))"
        case (0x73, true):
            guard try r.status() == 0x04 else { break }
            let count = try r.count8(AVRCPFields.attributeCount)
            let values = try r.attributeValues(count)
            r.layer.summary += ": \(values.joined(separator: ", "))"
        case (0x75, false):
            let scope = try r.u8(AVRCPFields.scope) { AVRCPNames.scopes[safe: Int($0)] }
            r.layer.summary += " - \(AVRCPNames.scopes[safe: Int(scope)] ?? "Scope \(scope)")"
        case (0x75, true), (0x80, true):
            guard try r.status() == 0x04 else { break }
            _ = try r.u16(AVRCPFields.uidCounter)
            let items = try r.count32(AVRCPFields.numberOfItems)
            r.layer.summary += " - \(items) items"
        case (0x80, false):
            let charset = try r.u16(AVRCPFields.characterSet)
            let length = Int(try r.c.u16be())
            let search = try r.text(AVRCPFields.search, length: length, charset: charset)
            r.layer.summary += " - \"\(ReadableText.clipped(search))\""
        case (0xA0, _):
            _ = try r.status()
        default:
            if AVRCPNames.pdus[pdu] == nil { r.layer.addIssue(.warning, "Unknown AVRCP browsing PDU \(Hex.u8(pdu))") }
        }
        if !r.isAtEnd {
            r.layer.addIssue(.warning, "\(r.remaining) bytes after the \(name)'s parameters")
            r.rest(AVRCPFields.parameters)
        }
        c = r.c
    }

    /// One item of a Get Folder Items response; returns its name.
    static func item(_ r: inout AVRCPReader) throws -> String {
        let type = try r.u8(AVRCPFields.itemType) { AVRCPNames.named(AVRCPNames.itemTypes, $0, Hex.u8($0)) }
        let length = Int(try r.c.u16be())
        var body = AVRCPReader(c: ByteCursor(try r.c.slice(length)), layer: r.layer, ranged: r.ranged)
        defer { r.layer = body.layer }
        switch type {
        case 0x01: // media player
            _ = try body.u16(AVRCPFields.playerID)
            _ = try body.c.slice(1 + 4)                // major type, subtype
            _ = try body.u8(AVRCPFields.playStatus) { AVRCPNames.named(AVRCPNames.playStatuses, $0, Hex.u8($0)) }
            _ = try body.c.slice(16)                   // feature bit mask
            let charset = try body.u16(AVRCPFields.characterSet)
            let nameLength = Int(try body.c.u16be())
            return try body.text(AVRCPFields.name, length: nameLength, charset: charset)
        case 0x02: // folder
            _ = try body.u64(AVRCPFields.uid)
            let folderType = try body.c.u8()
            _ = try body.c.u8()                        // playable
            let charset = try body.u16(AVRCPFields.characterSet)
            let nameLength = Int(try body.c.u16be())
            let name = try body.text(AVRCPFields.name, length: nameLength, charset: charset)
            return "\(name)/ (\(AVRCPNames.folderTypes[safe: Int(folderType)] ?? "folder"))"
        case 0x03: // media element
            _ = try body.u64(AVRCPFields.uid)
            let media = try body.c.u8()
            let charset = try body.u16(AVRCPFields.characterSet)
            let nameLength = Int(try body.c.u16be())
            let name = try body.text(AVRCPFields.name, length: nameLength, charset: charset)
            let count = try body.count8(AVRCPFields.attributeCount)
            _ = try body.attributeValues(count)
            return "\"\(ReadableText.clipped(name))\"\(media == 1 ? " (video)" : "")"
        default:
            body.rest(AVRCPFields.parameters)
            return "item type \(Hex.u8(type))"
        }
    }
}
