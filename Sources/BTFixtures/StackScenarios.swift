import BTCapture

extension Scenarios {
    /// BTstack's daemon as its PacketLogger log shows it: beside the HCI traffic, the
    /// commands its applications send the daemon (OGF 0x3D, never sent to the controller, so
    /// never answered by it) and the events BTstack raises for them (codes 0x60 and up, never
    /// sent by a controller); and a vendor command the controller does not support, answered
    /// with a Command Complete for opcode 0xFFFF. Layouts from BTstack's src/btstack_defines.h.
    public static func btstackDaemonSession() -> (frames: [Frame], marks: [String: Int]) {
        var b = PacketBuilder(start: demoStart + 25_200_000_000)
        var marks: [String: Int] = [:]
        func mark(_ name: String) { marks[name] = b.frames.count }
        let phone = "00:1B:DC:07:32:11"
        func daemon(_ ocf: UInt16, _ parameters: [UInt8] = [], after: Int64 = 1000) { b.command(0x3D << 10 | ocf, parameters, after: after) }
        daemon(0x04); mark("getVersion")                                   // BTSTACK_GET_VERSION
        b.event(0x63, [0x01, 0x00] + le16(0x0BB8)); mark("daemonVersion")  // DAEMON_EVENT_VERSION 1.0 rev 3000
        daemon(0x02, [0x01]); mark("powerOn")                              // BTSTACK_SET_POWER_MODE on
        b.event(0x60, [0x01]); mark("stateInitializing")                   // BTSTACK_EVENT_STATE initializing
        b.exchange(0x0C03)
        b.exchange(0x1001, returns: [0x00, 0x06] + le16(0x0000) + [0x06] + le16(0x000A) + le16(0x22BB))
        b.exchange(0x1009, returns: [0x00] + addressBytes("00:1B:DC:03:4E:55"))
        // A vendor command this controller does not support: the answer names opcode 0xFFFF.
        b.command(0xFC0A, [0x00]); mark("vendorCommand")
        b.commandComplete(0xFFFF, [0x01]); mark("unsupportedAnswer")
        b.exchange(0x0C56, [0x01])
        b.event(0x60, [0x02]); mark("stateWorking")                        // BTSTACK_EVENT_STATE working
        b.advance(1_500_000)
        daemon(0x22, le16(0x0001) + le16(672)); mark("registerService")  // L2CAP_REGISTER_SERVICE SDP
        b.event(0x75, [0x00] + le16(0x0001))                               // DAEMON_EVENT_L2CAP_SERVICE_REGISTERED
        daemon(0x20, addressBytes(phone) + le16(0x0001)); mark("createChannel") // L2CAP_CREATE_CHANNEL to SDP
        b.command(0x0405, addressBytes(phone) + le16(0xCC18) + [0x01, 0x00] + le16(0x0000) + [0x01])
        b.commandStatus(0x0405)
        b.connectionComplete(handle: 0x000B, peer: phone)
        b.event(0x61, [0x01]); mark("connections")                         // BTSTACK_EVENT_NR_CONNECTIONS_CHANGED
        b.l2cap(handle: 0x000B, cid: 0x0001, [0x0A, 0x01] + le16(2) + le16(0x0002), sent: true)
        b.l2cap(handle: 0x000B, cid: 0x0001, [0x0B, 0x01] + le16(8) + le16(0x0002) + le16(0x0000) + le32(0x0000_02B8), sent: false)
        b.event(0x78, le16(0x000B) + le16(0x02B8) + le16(0x0006)); mark("informationResponse") // L2CAP_EVENT_INFORMATION_RESPONSE
        b.l2cap(handle: 0x000B, cid: 0x0001, [0x02, 0x02] + le16(4) + le16(0x0001) + le16(0x0041), sent: true)
        b.l2cap(handle: 0x000B, cid: 0x0001, [0x03, 0x02] + le16(8) + le16(0x0050) + le16(0x0041) + le16(0x0000) + le16(0x0000), sent: false)
        b.l2cap(handle: 0x000B, cid: 0x0001, [0x04, 0x03] + le16(4) + le16(0x0050) + le16(0x0000), sent: true)
        b.l2cap(handle: 0x000B, cid: 0x0001, [0x05, 0x03] + le16(6) + le16(0x0041) + le16(0x0000) + le16(0x0000), sent: false)
        b.l2cap(handle: 0x000B, cid: 0x0001, [0x04, 0x04] + le16(4) + le16(0x0041) + le16(0x0000), sent: false)
        b.l2cap(handle: 0x000B, cid: 0x0001, [0x05, 0x04] + le16(6) + le16(0x0050) + le16(0x0000) + le16(0x0000), sent: true)
        b.event(0x70, [0x00] + addressBytes(phone) + le16(0x000B) + le16(0x0001) + le16(0x0041) + le16(0x0050)
                + le16(672) + le16(672) + le16(0xFFFF) + [0x00, 0x00, 0x00]); mark("channelOpened") // L2CAP_EVENT_CHANNEL_OPENED
        daemon(0x21, le16(0x0041) + [0x00]); mark("disconnectChannel")    // L2CAP_DISCONNECT
        b.l2cap(handle: 0x000B, cid: 0x0001, [0x06, 0x05] + le16(4) + le16(0x0050) + le16(0x0041), sent: true)
        b.l2cap(handle: 0x000B, cid: 0x0001, [0x07, 0x05] + le16(4) + le16(0x0050) + le16(0x0041), sent: false)
        b.event(0x71, le16(0x0041)); mark("channelClosed")                // L2CAP_EVENT_CHANNEL_CLOSED
        b.command(0x0406, le16(0x000B) + [0x13])
        b.commandStatus(0x0406)
        b.disconnectionComplete(handle: 0x000B, reason: 0x16)
        b.event(0x61, [0x00])
        b.advance(1_200_000)
        daemon(0x02, [0x00]); mark("powerOff")
        b.event(0x60, [0x03])
        b.event(0x60, [0x00]); mark("stateOff")
        return (b.frames, marks)
    }
}
