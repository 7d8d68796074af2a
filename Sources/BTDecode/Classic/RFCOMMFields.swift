/// RFCOMM's fields (RFCOMM specification over TS 07.10), named as tshark's btrfcomm.* where
/// both have one.
public enum RFCOMMFields {
    static let f = FieldDefinition.maker("rfcomm")
    public static let dlci = f("dlci", "DLCI", .uint8, "Data link connection identifier: server channel × 2 + direction bit; 0 is the multiplexer")
    public static let channel = f("channel", "Server Channel", .uint8, "Server channel (DLCI >> 1), the number SDP advertises")
    public static let direction = f("direction", "Direction", .uint8, "DLCI direction bit: 1 on the server's side of the session")
    public static let cr = f("cr", "C/R", .uint8, "Command/response bit of the address")
    public static let frameType = f("frame_type", "Frame Type", .uint8, "Control field without P/F: 0x2F SABM, 0x63 UA, 0x0F DM, 0x43 DISC, 0xEF UIH")
    public static let pf = f("pf", "P/F", .uint8, "Poll/final bit; on UIH data it says a credits byte follows")
    public static let length = f("len", "Length", .uint16, "Information field length")
    public static let credits = f("credits", "Credits", .uint8, "Credits given to the other side (credit-based flow control)")
    public static let fcs = f("fcs", "FCS", .uint8, "Frame check sequence")
    public static let fcsValid = f("fcs_valid", "FCS Valid", .bool, "Whether the FCS matches the address and control (and length, except UIH)")
    public static let payload = f("payload", "Data", .bytes, "Information field of a UIH frame on a data channel")
    public static let text = f("text", "Text", .string, "The data as text, when it is printable")
    public static let mccType = f("mcc.cmd", "Multiplexer Command", .uint8, "Multiplexer control command type: 0x20 PN, 0x08 Test, 0x28 FCon, 0x18 FCoff, 0x38 MSC, 0x04 NSC, 0x24 RPN, 0x14 RLS, 0x10 PSC, 0x30 CLD")
    public static let mccCR = f("mcc.cr", "Multiplexer C/R", .uint8, "1: command, 0: response")
    public static let mccLength = f("mcc.len", "Multiplexer Length", .uint16, "Length of the command's value")
    public static let mccDLCI = f("mcc.dlci", "Multiplexer DLCI", .uint8, "DLCI the command is about")
    public static let mccChannel = f("mcc.channel", "Multiplexer Channel", .uint8, "Server channel the command is about")
    public static let pnFrameType = f("pn.i", "PN Frame Type", .uint8, "Frame type for information (0: UIH)")
    public static let pnCL = f("pn.cl", "PN Convergence Layer", .uint8, "0: no credit-based flow control, 0xF: requested, 0xE: accepted")
    public static let pnPriority = f("priority", "Priority", .uint8, "DLC priority, 0-63")
    public static let pnTimer = f("ack_timer", "Acknowledgement Timer", .uint8, "T1, in 100 ms (unused by RFCOMM)")
    public static let pnFrameSize = f("max_frame_size", "Maximum Frame Size", .uint16, "N1: the largest information field")
    public static let pnRetransmissions = f("max_retrans", "Maximum Retransmissions", .uint8, "N2 (unused by RFCOMM)")
    public static let pnCredits = f("initial_credits", "Initial Credits", .uint8, "k: credits given with the negotiation")
    public static let mscFC = f("msc.fc", "Flow Control", .bool, "MSC: the sender cannot accept frames")
    public static let mscRTC = f("msc.rtc", "Ready To Communicate", .bool, "MSC: RTC (DSR/DTR)")
    public static let mscRTR = f("msc.rtr", "Ready To Receive", .bool, "MSC: RTR (RTS/CTS)")
    public static let mscIC = f("msc.ic", "Incoming Call", .bool, "MSC: ring indicator")
    public static let mscDV = f("msc.dv", "Data Valid", .bool, "MSC: data carrier detect")
    public static let mscBreak = f("msc.break", "Break", .uint8, "MSC break octet: bit 1 break, bits 4-7 length in 200 ms")
    public static let rpnBaud = f("rpn.baud", "Baud Rate", .uint8, "RPN: 0 2400 ... 3 9600 ... 7 115200, 8 230400")
    public static let rpnLine = f("rpn.line", "Line Settings", .uint8, "RPN: data bits (0-1), stop bits (2), parity (3), parity type (4-5)")
    public static let rpnFlow = f("rpn.flow", "Flow Control", .uint8, "RPN: XON/XOFF and RTR/RTC on input and output")
    public static let rpnXON = f("rpn.xon", "XON", .uint8, "RPN: XON character")
    public static let rpnXOFF = f("rpn.xoff", "XOFF", .uint8, "RPN: XOFF character")
    public static let rpnMask = f("rpn.mask", "Parameter Mask", .uint16, "RPN: which parameters the command sets")
    public static let rlsStatus = f("rls.status", "Line Status", .uint8, "RLS: bit 0 error; bits 1-3 overrun, parity, framing")
    public static let nscType = f("nsc.type", "Not Supported Command", .uint8, "NSC: the command type octet that was not understood")
    public static let testData = f("test.data", "Test Pattern", .bytes, "Test command: the pattern echoed back")

    public static let all = [dlci, channel, direction, cr, frameType, pf, length, credits, fcs, fcsValid, payload, text,
                             mccType, mccCR, mccLength, mccDLCI, mccChannel, pnFrameType, pnCL, pnPriority, pnTimer, pnFrameSize,
                             pnRetransmissions, pnCredits, mscFC, mscRTC, mscRTR, mscIC, mscDV, mscBreak, rpnBaud, rpnLine,
                             rpnFlow, rpnXON, rpnXOFF, rpnMask, rlsStatus, nscType, testData]
}

extension RFCOMMFields {
    /// Data and credits travel in UIH frames on the data channels: the protocol above (HFP) has
    /// those steps. The multiplexer's commands (on DLCI 0) and a channel's opening and closing
    /// are RFCOMM's own.
    public static let conversation = ConversationDescription("RFCOMM", rank: 4, operations: [mccType, frameType], qualifier: mccCR, ignored: [
        dlci, direction, cr, pf, length, credits, fcs, fcsValid, payload, text, mccLength, mccDLCI, frameType,
    ], isStep: { layer in layer.integer(frameType) != Int(RFCOMMDecoder.uih) || layer.integer(mccType) != nil })
}
