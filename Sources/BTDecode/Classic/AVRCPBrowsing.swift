import BTCapture

/// AVRCP on the browsing channel (its layer is "AVRCP" too: the PDUs differ) (PSM 0x001B; AVRCP 1.6, 6.10): PDU ID, length and the
/// parameters of Set Browsed Player, Get Folder Items (players, folders, media elements),
/// Change Path, Get Item Attributes, Get Total Number of Items, Search and General Reject.
enum AVRCPBrowsing {
    static func decode(_ c: inout ByteCursor, into packet: inout Packet, session: inout Session, context: AVCTPContext) throws {
        var layer = packet.makeLayer(.avrcp, over: c, showsDirection: true)
        defer { packet.append(taking: &layer) }
        let pdu = try layer.read(AVRCPFields.pdu, &c, as: UInt8.self, named: { AVRCPNames.pdus[$0] ?? "Unknown" })
        let length = Int(try layer.readCount(AVRCPFields.length, &c, as: UInt16.self, .bigEndian))
        let name = AVRCPNames.pdus[pdu] ?? "PDU \(Hex.u8(pdu))"
        layer.summary.set("\(name): \(context.isResponse ? "Response" : "Command")")
        if length != c.remaining { layer.addIssue(.warning, "AVRCP parameter length \(length) but \(c.remaining) bytes follow") }
        switch (pdu, context.isResponse) {
        case (0x70, false):
            let player = try layer.read(AVRCPFields.playerID, &c, as: UInt16.self, .bigEndian)
            layer.summary += " - player \(player)"
        case (0x70, true):
            guard try AVRCPDecoder.status(&c, &layer) == 0x04 else { break }
            _ = try layer.read(AVRCPFields.uidCounter, &c, as: UInt16.self, .bigEndian)
            let items = Int(try layer.readCount(AVRCPFields.numberOfItems, &c, as: UInt32.self, .bigEndian))
            let charset = try layer.read(AVRCPFields.characterSet, &c, as: UInt16.self, .bigEndian)
            let depth = Int(try layer.readCount(AVRCPFields.folderDepth, &c, as: UInt8.self))
            var path: [String] = []
            for _ in 0 ..< depth {
                let length = Int(try c.u16be())
                path.append(try AVRCPDecoder.text(&c, &layer, AVRCPFields.name, length: length, charset: charset))
            }
            layer.summary += " - /\(path.joined(separator: "/")) - \(items) items"
        case (0x71, false):
            let scope = try layer.read(AVRCPFields.scope, &c, as: UInt8.self, display: { AVRCPNames.scopes[safe: Int($0)] })
            let start = try layer.readCount(AVRCPFields.startItem, &c, as: UInt32.self, .bigEndian)
            let end = try layer.readCount(AVRCPFields.endItem, &c, as: UInt32.self, .bigEndian)
            let count = Int(try layer.readCount(AVRCPFields.attributeCount, &c, as: UInt8.self, display: { $0 == 0 ? "All" : $0 == 0xFF ? "None" : nil }))
            if count != 0xFF {
                for _ in 0 ..< count { _ = try layer.read(AVRCPFields.attribute, &c, as: UInt32.self, .bigEndian, named: { AVRCPNames.attributes[$0] ?? "Unknown" }) }
            }
            layer.summary += " - \(AVRCPNames.scopes[safe: Int(scope)] ?? "Scope \(scope)") \(start)-\(end)"
        case (0x71, true):
            guard try AVRCPDecoder.status(&c, &layer) == 0x04 else { break }
            _ = try layer.read(AVRCPFields.uidCounter, &c, as: UInt16.self, .bigEndian)
            let count = Int(try layer.read(AVRCPFields.numberOfItems, &c, as: UInt16.self, .bigEndian))
            var names: [String] = []
            for _ in 0 ..< count { names.append(try item(&c, &layer)) }
            layer.summary += " - \(count) item\(count == 1 ? "" : "s")"
            if !names.isEmpty { layer.summary += ": \(names.prefix(4).joined(separator: ", "))\(names.count > 4 ? "…" : "")" }
        case (0x72, false):
            _ = try layer.read(AVRCPFields.uidCounter, &c, as: UInt16.self, .bigEndian)
            let direction = try layer.read(AVRCPFields.direction, &c, as: UInt8.self, display: { $0 == 0 ? "Up" : $0 == 1 ? "Down" : nil })
            let folder = try layer.read(AVRCPFields.uid, &c, as: UInt64.self, .bigEndian)
            layer.summary += direction == 0 ? " - up" : " - down into \(Hex.format(folder, width: 16))"
        case (0x72, true):
            guard try AVRCPDecoder.status(&c, &layer) == 0x04 else { break }
            let items = Int(try layer.readCount(AVRCPFields.numberOfItems, &c, as: UInt32.self, .bigEndian))
            layer.summary += " - \(items) items"
        case (0x73, false):
            let scope = try layer.read(AVRCPFields.scope, &c, as: UInt8.self, display: { AVRCPNames.scopes[safe: Int($0)] })
            let uid = try layer.read(AVRCPFields.uid, &c, as: UInt64.self, .bigEndian)
            _ = try layer.read(AVRCPFields.uidCounter, &c, as: UInt16.self, .bigEndian)
            let count = Int(try layer.readCount(AVRCPFields.attributeCount, &c, as: UInt8.self))
            for _ in 0 ..< count { _ = try layer.read(AVRCPFields.attribute, &c, as: UInt32.self, .bigEndian, named: { AVRCPNames.attributes[$0] ?? "Unknown" }) }
            layer.summary += " - \(AVRCPNames.scopes[safe: Int(scope)] ?? "Scope \(scope)") UID \(Hex.format(uid, width: 16))"
        case (0x73, true):
            guard try AVRCPDecoder.status(&c, &layer) == 0x04 else { break }
            let count = Int(try layer.readCount(AVRCPFields.attributeCount, &c, as: UInt8.self))
            let values = try AVRCPDecoder.attributeValues(&c, &layer, count)
            layer.summary += ": \(values.joined(separator: ", "))"
        case (0x75, false):
            let scope = try layer.read(AVRCPFields.scope, &c, as: UInt8.self, display: { AVRCPNames.scopes[safe: Int($0)] })
            layer.summary += " - \(AVRCPNames.scopes[safe: Int(scope)] ?? "Scope \(scope)")"
        case (0x75, true), (0x80, true):
            guard try AVRCPDecoder.status(&c, &layer) == 0x04 else { break }
            _ = try layer.read(AVRCPFields.uidCounter, &c, as: UInt16.self, .bigEndian)
            let items = Int(try layer.readCount(AVRCPFields.numberOfItems, &c, as: UInt32.self, .bigEndian))
            layer.summary += " - \(items) items"
        case (0x80, false):
            let charset = try layer.read(AVRCPFields.characterSet, &c, as: UInt16.self, .bigEndian)
            let length = Int(try c.u16be())
            let search = try AVRCPDecoder.text(&c, &layer, AVRCPFields.search, length: length, charset: charset)
            layer.summary += " - \"\(ReadableText.clipped(search))\""
        case (0xA0, _):
            _ = try AVRCPDecoder.status(&c, &layer)
        default:
            if AVRCPNames.pdus[pdu] == nil { layer.addIssue(.warning, "Unknown AVRCP browsing PDU \(Hex.u8(pdu))") }
        }
        if !c.isAtEnd {
            layer.addIssue(.warning, "\(c.remaining) bytes after the \(name)'s parameters")
            AVRCPDecoder.rest(&c, &layer, AVRCPFields.parameters)
        }
    }

    /// One item of a Get Folder Items response; returns its name.
    static func item(_ c: inout ByteCursor, _ layer: inout Layer) throws -> String {
        let type = try layer.read(AVRCPFields.itemType, &c, as: UInt8.self, named: { AVRCPNames.itemTypes[$0] ?? "Unknown" })
        let length = Int(try c.u16be())
        var body = ByteCursor(try c.slice(length))
        switch type {
        case 0x01: // media player
            _ = try layer.read(AVRCPFields.playerID, &body, as: UInt16.self, .bigEndian)
            _ = try body.slice(1 + 4)                // major type, subtype
            _ = try layer.read(AVRCPFields.playStatus, &body, as: UInt8.self, named: { AVRCPNames.playStatuses[$0] ?? "Unknown" })
            _ = try body.slice(16)                   // feature bit mask
            let charset = try layer.read(AVRCPFields.characterSet, &body, as: UInt16.self, .bigEndian)
            let nameLength = Int(try body.u16be())
            return try AVRCPDecoder.text(&body, &layer, AVRCPFields.name, length: nameLength, charset: charset)
        case 0x02: // folder
            _ = try layer.read(AVRCPFields.uid, &body, as: UInt64.self, .bigEndian)
            let folderType = try body.u8()
            _ = try body.u8()                        // playable
            let charset = try layer.read(AVRCPFields.characterSet, &body, as: UInt16.self, .bigEndian)
            let nameLength = Int(try body.u16be())
            let name = try AVRCPDecoder.text(&body, &layer, AVRCPFields.name, length: nameLength, charset: charset)
            return "\(name)/ (\(AVRCPNames.folderTypes[safe: Int(folderType)] ?? "folder"))"
        case 0x03: // media element
            _ = try layer.read(AVRCPFields.uid, &body, as: UInt64.self, .bigEndian)
            let media = try body.u8()
            let charset = try layer.read(AVRCPFields.characterSet, &body, as: UInt16.self, .bigEndian)
            let nameLength = Int(try body.u16be())
            let name = try AVRCPDecoder.text(&body, &layer, AVRCPFields.name, length: nameLength, charset: charset)
            let count = Int(try layer.readCount(AVRCPFields.attributeCount, &body, as: UInt8.self))
            _ = try AVRCPDecoder.attributeValues(&body, &layer, count)
            return "\"\(ReadableText.clipped(name))\"\(media == 1 ? " (video)" : "")"
        default:
            AVRCPDecoder.rest(&body, &layer, AVRCPFields.parameters)
            return "item type \(Hex.u8(type))"
        }
    }
}
