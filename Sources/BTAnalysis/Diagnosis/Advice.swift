/// What a failure code usually means, in one line a developer can act on. Codes without an
/// entry get a general line from their category.
enum Advice {
    /// SMP Pairing Failed reasons (Core Vol 3, Part H, 3.5.5).
    static let smp: [UInt8: String] = [
        0x01: "the passkey was not entered (cancelled, or timed out on the device with the keyboard)",
        0x02: "out-of-band pairing was asked for but one side has no OOB data: exchange it first (NFC, QR) or do not set the OOB flag",
        0x03: "the IO capabilities cannot give the security one side demands (MITM without a display or keyboard, or Secure Connections Only against a legacy device): change the AuthReq bits or the IO capabilities",
        0x04: "the confirm value did not match the random value: a mistyped passkey, or a side computing its confirm from a different TK",
        0x05: "the peer does not support pairing (or refuses it now): check that the peer allows pairing, or that it is not already bonded and refusing a new bond",
        0x06: "the key size the other side offers is below what this one requires: raise Maximum Encryption Key Size to 16",
        0x07: "the peer does not support an SMP command sent to it",
        0x08: "the peer failed pairing without saying why: look at the peer's own logs around this packet",
        0x09: "too many pairing attempts in a short time: wait (the interval doubles with each attempt) before pairing again",
        0x0A: "a pairing command carried invalid parameters: a stack bug on the side that sent them",
        0x0B: "the DHKey checks differ: a public key was altered or the numeric comparison confirmed on one side only",
        0x0C: "the user rejected the numeric comparison (the six digits differed, or No was pressed)",
        0x0D: "a BR/EDR pairing is in progress for the same device: let it finish, cross-transport key derivation will follow",
        0x0E: "cross-transport key derivation is not allowed by one side's policy",
        0x0F: "the peer rejected the distributed keys",
        0x10: "the peer is busy with another pairing: retry later",
    ]

    /// HCI status codes (Core Vol 1, Part F) when a command, a pairing or encryption fails.
    static let status: [UInt8: String] = [
        0x01: "the controller does not know this command: check Read Local Supported Commands before sending it",
        0x02: "the handle is not (or no longer) a connection: the command raced a disconnection",
        0x03: "a hardware failure in the controller: a firmware fault; reset the controller",
        0x04: "the peer did not answer the page: out of range, not connectable, or not page-scanning",
        0x05: "authentication failed: a wrong PIN or passkey, or the peer lost its link key; remove the pairing on both sides and pair again",
        0x06: "the peer has no key for this link (it lost the bond): delete the pairing on both sides and pair again",
        0x07: "the controller ran out of memory for the request (too many connections or advertising sets)",
        0x08: "the link was lost: the peer went out of range or stopped answering for the supervision timeout",
        0x09: "the controller's connection limit is reached: disconnect a link first",
        0x0B: "a connection to this device already exists",
        0x0C: "the controller refuses the command in its present state (e.g. changing parameters while scanning or advertising, or a procedure already in progress)",
        0x0D: "the peer refused the connection for lack of resources",
        0x0E: "the peer refused the connection for security reasons",
        0x0F: "the peer refused the connection: this address is not allowed",
        0x10: "the connection was not accepted in time (Connection Accept Timeout)",
        0x11: "the feature or parameter value is not supported by this controller",
        0x12: "a parameter is out of range or inconsistent: check the command's parameters against the Core specification",
        0x1A: "the peer's link layer does not support the feature (check the remote features first)",
        0x1E: "the peer does not accept the LMP/LL parameters offered",
        0x1F: "an unspecified error: look at the controller's vendor logs",
        0x20: "the peer does not support these LL parameters",
        0x22: "the peer did not answer a link-layer procedure within 40 s (LMP/LL Response Timeout): a peer firmware hang or heavy interference",
        0x23: "two link-layer procedures collided: the stacks started one each at the same time; retry",
        0x24: "the peer does not allow this LMP/LL PDU now",
        0x25: "the encryption mode is not acceptable to the peer",
        0x28: "the instant of a link-layer procedure passed before it was received: the link was too lossy (or latency too high) to apply the update in time",
        0x29: "pairing with a unit key is not supported",
        0x2A: "two procedures collided on the same transaction: retry",
        0x2F: "insufficient security: the peer requires a more secure pairing (MITM or Secure Connections)",
        0x3A: "the controller is busy (e.g. with a conflicting scan or connection): retry later",
        0x3B: "the peer cannot accept these connection parameters: stay within its Peripheral Preferred Connection Parameters",
        0x3C: "directed advertising ended without a connection",
        0x3D: "the link's encryption check (MIC) failed: the two sides use different keys (a stale bond) or packets were corrupted; re-pair",
        0x3E: "the connection was not established: the peer did not answer the first packets (out of range, or it stopped advertising)",
        0x3F: "the MAC connection failed",
        0x40: "coarse clock adjustment was rejected; the link continues",
        0x42: "an unknown advertising identifier (advertising set handle) was used",
        0x43: "the limit of advertising sets, periodic syncs or connections was reached",
        0x44: "the operation was cancelled by the host",
        0x45: "the packet was too long for the controller",
    ]

    /// Disconnection reasons that are part of normal operation.
    static let normalDisconnections: Set<UInt8> = [0x13, 0x15, 0x16]

    /// Disconnection reasons that mean the link failed.
    static let failedDisconnections: Set<UInt8> = [0x05, 0x06, 0x08, 0x22, 0x28, 0x3D, 0x3E]

    /// ATT Error Response codes (Core Vol 3, Part F, 3.4.1.1), and the common profile errors.
    static let att: [UInt8: String] = [
        0x01: "the handle is not in the server's database: the client's handle cache is stale (re-discover) or a wrong handle",
        0x02: "the attribute cannot be read: check the characteristic's properties before reading",
        0x03: "the attribute cannot be written: check the characteristic's properties (write vs. write without response)",
        0x04: "the request is malformed: a client bug",
        0x05: "the attribute needs an authenticated (paired, MITM) link: pair first, then retry",
        0x06: "the server does not support this request",
        0x07: "the offset is beyond the attribute's value",
        0x08: "the attribute needs authorization the server has not given",
        0x09: "too many prepared writes queued: execute or cancel before preparing more",
        0x0A: "no attribute in the range: the client read a handle or type the server does not have",
        0x0B: "the attribute is not long: read it with Read Request, not Read Blob",
        0x0C: "the link's encryption key is too short for the attribute: pair with a 16-byte key",
        0x0D: "the value's length is wrong for the attribute: check the characteristic's specification",
        0x0E: "the server failed for a reason it did not state",
        0x0F: "the attribute needs an encrypted link: pair (or encrypt with the bond's key) first, then retry",
        0x10: "the group type is not a grouping attribute: read services with Primary Service or Secondary Service",
        0x11: "the server has no resources for the request: retry later or with less",
        0x12: "the client's view of the database is out of sync: re-discover after Service Changed, or read the Database Hash",
        0x13: "the value is not allowed for the attribute",
        0xFC: "a write request was rejected by the profile",
        0xFD: "the Client Characteristic Configuration descriptor is not configured as the procedure needs: enable notifications or indications first",
        0xFE: "a procedure is already in progress: wait for it to end",
        0xFF: "the value is out of range",
    ]

    /// L2CAP connection results by signaling code.
    static func l2cap(code: Int, result: Int) -> String {
        switch (code, result) {
        case (0x01, 0): return "the peer does not understand the command (e.g. a Connection Parameter Update Request from a central, or an LE command to a BR/EDR host)"
        case (0x01, 1): return "the command exceeded the peer's signaling MTU"
        case (0x01, 2): return "the CID in the request is not a channel the peer knows: a race with a disconnection, or a stale CID"
        case (0x03, 2), (0x15, 2), (0x18, 2): return "the peer does not offer this PSM: check its SDP record (BR/EDR) or the GATT characteristic that publishes the PSM (LE)"
        case (0x03, 3): return "the channel needs a secured link: pair and encrypt first"
        case (0x03, 4), (0x15, 4), (0x18, 4): return "the peer has no resources for another channel"
        case (0x15, 5), (0x15, 6), (0x15, 7), (0x15, 8), (0x18, 5), (0x18, 6), (0x18, 7), (0x18, 8):
            return "the channel needs more security (authentication, authorization, key size or encryption): pair and encrypt first"
        case (0x03, 6), (0x03, 7), (0x15, 9), (0x15, 10), (0x18, 9), (0x18, 10):
            return "the source CID is invalid or already in use: a host bug reusing CIDs"
        case (0x15, 11), (0x18, 11): return "the MTU or MPS is unacceptable (MTU at least 23, MPS 23 to 65533)"
        case (0x18, 12): return "the parameters are invalid"
        default: return "the peer refused the channel"
        }
    }
}
