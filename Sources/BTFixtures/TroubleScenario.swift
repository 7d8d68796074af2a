import BTCapture

extension Scenarios {
    /// A capture with one of each problem `btlog diagnose` looks for, and where each is: the
    /// generator records the number of the packet that shows it under a name, so tests check
    /// the diagnosis against what was built rather than against btlog's own reading.
    ///
    /// A phone (the host) with three LE links and one BR/EDR link: a scan refused (Command
    /// Disallowed), Write Local Name never answered, a controller Hardware Error; on 0x0040 an
    /// Attribute Not Found ending discovery (normal), Insufficient Encryption on a read, the
    /// peer's LTK request answered with a negative reply (no bond), SMP Pairing Failed
    /// (Authentication Requirements) from the peer, a connection parameter update refused, an
    /// LE credit-based channel whose two credits run out and a third K-frame sent anyway, a
    /// write answered 35 s later, a read never answered while the capture goes on 31 s; on
    /// 0x0041 encryption refused (PIN or Key Missing) and a MIC failure; on 0x0042 a
    /// connection update refused (Unacceptable Connection Parameters), a request sent before
    /// the previous one was answered, and a supervision timeout; on BR/EDR 0x000B a link key
    /// missing, Simple Pairing failed (Authentication Failure), an L2CAP channel refused
    /// (security block) and a normal disconnection (Remote User Terminated, not a problem).
    public static func troubleSession() -> (frames: [Frame], marks: [String: Int]) {
        var b = PacketBuilder(start: demoStart + 10_800_000_000)
        var marks: [String: Int] = [:]
        func mark(_ name: String) { marks[name] = b.frames.count }
        let a = "C0:FF:EE:00:00:0A", bPeer = "C0:FF:EE:00:00:0B", c = "C0:FF:EE:00:00:0C", car = "00:1B:DC:0F:00:01"
        func att(_ handle: UInt16, _ pdu: [UInt8], sent: Bool, after: Int64 = 1500) {
            b.l2cap(handle: handle, cid: 0x0004, pdu, sent: sent, after: after)
        }
        func signaling(_ handle: UInt16, cid: UInt16 = 0x0005, _ code: UInt8, _ ident: UInt8, _ data: [UInt8], sent: Bool) {
            b.l2cap(handle: handle, cid: cid, [code, ident] + le16(UInt16(data.count)) + data, sent: sent)
        }

        b.exchange(0x0C03)
        b.exchange(0x1009, returns: [0x00] + addressBytes(phoneController))
        b.command(0x200B, [0x01, 0x60, 0x00, 0x30, 0x00, 0x01, 0x00])
        b.commandComplete(0x200B, [0x0C]); mark("commandDisallowed")
        b.command(0x0C13, Array("Phone".utf8) + [UInt8](repeating: 0, count: 243)); mark("unansweredCommand")
        b.event(0x10, [0x2A]); mark("hardwareError")

        // 0x0040: ATT, security, parameters, credits, slow and missing responses.
        b.leConnectionComplete(handle: 0x0040, role: 0, peerType: 1, peer: a)
        att(0x0040, [0x10] + le16(0x0001) + le16(0xFFFF) + le16(0x2800), sent: true)
        att(0x0040, [0x01, 0x10] + le16(0x0001) + [0x0A], sent: false); mark("attributeNotFound")
        att(0x0040, [0x0A] + le16(0x0003), sent: true)
        att(0x0040, [0x01, 0x0A] + le16(0x0003) + [0x0F], sent: false); mark("insufficientEncryption")
        b.event(0x3E, [0x05] + le16(0x0040) + [UInt8](repeating: 0x11, count: 8) + le16(0x1234))
        b.command(0x201B, le16(0x0040)); mark("ltkMissing")
        b.commandComplete(0x201B, [0x00] + le16(0x0040))
        b.l2cap(handle: 0x0040, cid: 0x0006, [0x01, 0x03, 0x00, 0x0D, 0x10, 0x07, 0x07], sent: true)
        b.l2cap(handle: 0x0040, cid: 0x0006, [0x02, 0x03, 0x00, 0x0D, 0x10, 0x07, 0x07], sent: false)
        b.l2cap(handle: 0x0040, cid: 0x0006, [0x05, 0x03], sent: false); mark("pairingFailed")
        signaling(0x0040, 0x12, 0x01, le16(6) + le16(6) + le16(0) + le16(100), sent: false)
        signaling(0x0040, 0x13, 0x01, le16(1), sent: true); mark("updateRejected")
        signaling(0x0040, 0x14, 0x02, le16(0x0080) + le16(0x0040) + le16(512) + le16(247) + le16(10), sent: true)
        signaling(0x0040, 0x15, 0x02, le16(0x0050) + le16(512) + le16(247) + le16(2) + le16(0), sent: false)
        for k in 0 ..< 3 {
            b.l2cap(handle: 0x0040, cid: 0x0050, le16(20) + [UInt8](repeating: UInt8(k), count: 20), sent: true)
            if k == 1 { mark("creditsExhausted") }
            if k == 2 { mark("creditViolation") }
        }
        att(0x0040, [0x12] + le16(0x0010) + [0x01, 0x00], sent: true); mark("slowRequest")
        b.advance(35_000_000)
        att(0x0040, [0x13], sent: false); mark("lateResponse")
        att(0x0040, [0x0A] + le16(0x0005), sent: true); mark("neverAnswered")

        // 0x0041: encryption refused, then the MIC fails.
        b.leConnectionComplete(handle: 0x0041, role: 0, peerType: 1, peer: bPeer)
        b.command(0x2019, le16(0x0041) + [UInt8](repeating: 0, count: 8) + le16(0) + [UInt8](repeating: 0x22, count: 16))
        b.commandStatus(0x2019)
        b.event(0x08, [0x06] + le16(0x0041) + [0x00]); mark("encryptionRefused")
        b.disconnectionComplete(handle: 0x0041, reason: 0x3D); mark("micFailure")

        // 0x0042: an update refused, a request overtaking the one before, a supervision timeout.
        b.leConnectionComplete(handle: 0x0042, role: 0, peerType: 1, peer: c)
        b.command(0x2013, le16(0x0042) + le16(6) + le16(6) + le16(0) + le16(10) + le16(0) + le16(0))
        b.commandStatus(0x2013)
        b.event(0x3E, [0x03, 0x3B] + le16(0x0042) + le16(24) + le16(0) + le16(72)); mark("connectionUpdateFailed")
        att(0x0042, [0x0A] + le16(0x0003), sent: true); mark("supersededRequest")
        att(0x0042, [0x0A] + le16(0x0005), sent: true)
        att(0x0042, [0x0B, 0x41], sent: false)
        b.disconnectionComplete(handle: 0x0042, reason: 0x08); mark("supervisionTimeout")

        // BR/EDR 0x000B: no link key, Simple Pairing fails, a channel refused, a normal end.
        b.command(0x0405, addressBytes(car) + le16(0xCC18) + [0x01, 0x00] + le16(0) + [0x01])
        b.commandStatus(0x0405)
        b.connectionComplete(handle: 0x000B, peer: car)
        b.event(0x17, addressBytes(car))
        b.command(0x040C, addressBytes(car)); mark("linkKeyMissing")
        b.commandComplete(0x040C, [0x00] + addressBytes(car))
        b.event(0x36, [0x05] + addressBytes(car)); mark("simplePairingFailed")
        signaling(0x000B, cid: 0x0001, 0x02, 0x03, le16(0x0019) + le16(0x0040), sent: true)
        signaling(0x000B, cid: 0x0001, 0x03, 0x03, le16(0x0000) + le16(0x0040) + le16(0x0003) + le16(0x0000), sent: false); mark("channelRefused")
        b.advance(31_000_000)
        b.disconnectionComplete(handle: 0x000B, reason: 0x13); mark("normalDisconnection")
        return (b.frames, marks)
    }
}
