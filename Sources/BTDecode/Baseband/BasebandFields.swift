/// BR/EDR baseband fields, named as Wireshark's btbredr_rf and btbredr_fhs dissectors name
/// them where they have the field, so that filters carry over; the split of the transport/rate
/// octet, the handle and LMP's opcode are btlog's own.
public enum BasebandFields {
    static let f = FieldDefinition.maker("btbredr_rf")
    public static let rfChannel = f("rf_channel", "RF Channel", .uint8, "BR/EDR RF channel 0-78 (2402 + n MHz)")
    public static let signal = f("signal_power", "Signal Power", .int, "dBm")
    public static let noise = f("noise_power", "Noise Power", .int, "dBm")
    public static let offenses = f("access_address_offenses", "Access Code Offenses", .uint8, "Bits of the access code that did not match")
    public static let transportRate = f("payload_transport_rate", "Payload Transport Rate", .uint8, "High nibble the logical transport, low nibble the rate; 0xFF an ID packet")
    public static let transport = f("payload_transport_rate.transport", "Transport", .uint8, "0 any, 1 SCO, 2 eSCO, 3 ACL, 4 CSB")
    public static let rate = f("payload_transport_rate.payload", "Payload Rate", .uint8, "0 BR, 1 EDR 2 Mb/s, 2 EDR 3 Mb/s")
    public static let correctedHeaderBits = f("corrected_header_bits", "Corrected Header Bits", .uint8, "Bits of the 18-bit header the FEC corrected")
    public static let correctedPayloadBits = f("corrected_payload_bits", "Corrected Payload Bits", .int, "Negative: corrected and uncorrectable bits together")
    public static let lap = f("lower_address_part", "Lower Address Part", .uint32, "LAP recovered from the sync word")
    public static let referenceLAP = f("reference_lower_address_part", "Reference Lower Address Part", .uint32, "The LAP the sniffer looked for")
    public static let referenceUAP = f("reference_upper_addres_part", "Reference Upper Address Part", .uint8, "The UAP the sniffer checks HEC and CRC with")
    public static let packetHeader = f("packet_header", "Packet Header", .uint32, "The 18-bit packet header")
    public static let ltAddr = f("packet_header.lt_addr", "LT_ADDR", .uint8, "Logical transport address of the peripheral")
    public static let type = f("packet_header.type", "Type", .uint8, "Packet type code (named by transport and rate)")
    public static let flowControl = f("packet_header.flow_control", "Flow Control", .bool, "FLOW: 1 go, 0 stop")
    public static let arqn = f("packet_header.arqn", "ARQN", .bool, "1 the last packet was received (ACK)")
    public static let seqn = f("packet_header.seqn", "SEQN", .bool, "Sequence bit")
    public static let hec = f("packet_header.hec", "HEC", .uint8, "Header error check")
    public static let hecOK = f("hec_ok", "HEC Valid", .bool, "Whether the HEC matches, as the sniffer checked or btlog computed from the UAP")
    public static let crcOK = f("crc_ok", "CRC Valid", .bool, "Whether the payload's CRC matches, as the sniffer checked or btlog computed from the UAP")
    public static let flags = f("flags", "Flags", .uint16, "Which values are valid, HEC/CRC/MIC checks, payload present")
    public static let payloadHeader = f("payload_header", "Payload Header", .uint16, "An ACL payload's header")
    public static let llid = f("payload_header.llid", "LLID", .uint8, "1 L2CAP continuation, 2 L2CAP start, 3 LMP")
    public static let payloadFlow = f("payload_header.flow", "Flow", .bool, "L2CAP flow: 1 go")
    public static let payloadLength = f("payload_header.length", "Length", .uint16, "Payload bytes")
    public static let crc = f("crc", "CRC", .uint16, "The payload's 16-bit CRC")
    public static let data = f("data", "Data", .bytes, "Payload bytes not decoded further")
    public static let isochronousData = f("isochronous_data", "Isochronous Data", .bytes, "An SCO or eSCO packet's voice or transparent data")
    public static let handle = f("handle", "Link", .uint16, "btlog's number for the piconet link (LAP and LT_ADDR), as an HCI handle")
    public static let lmpOpcode = f("lmp.opcode", "LMP Opcode", .uint8, "LMP opcode (7 bits; 127 escapes to an extended opcode)")
    public static let lmpTransaction = f("lmp.tid", "Transaction ID", .bool, "0 the central initiated the transaction, 1 the peripheral")
    public static let lmpData = f("lmp.data", "LMP PDU", .bytes, "The LMP PDU (not decoded field by field)")

    static let h = FieldDefinition.maker("btbredr_fhs")
    public static let fhsParity = h("parity", "Parity Bits", .uint64, "34 parity bits of the sync word")
    public static let fhsLAP = h("lap", "Lower Address Part", .uint32, "The sender's LAP")
    public static let fhsEIR = h("eir", "Extended Inquiry Response", .bool, "An extended inquiry response follows")
    public static let fhsSR = h("sr", "Scan Repetition", .uint8, "R0, R1, R2")
    public static let fhsUAP = h("uap", "Upper Address Part", .uint8, "The sender's UAP")
    public static let fhsNAP = h("nap", "Non-Significant Address Part", .uint16, "The sender's NAP")
    public static let fhsAddress = h("bd_addr", "BD_ADDR", .address, "The sender's address: NAP, UAP, LAP")
    public static let fhsClass = h("class", "Class of Device", .uint32, "")
    public static let fhsLTAddr = h("ltaddr", "LT_ADDR", .uint8, "The LT_ADDR the central assigns (page response)")
    public static let fhsClock = h("clk", "CLK", .uint32, "CLK27-2 of the sender's native clock (1.25 ms units)")
    public static let fhsPageScanMode = h("pagescanmode", "Page Scan Mode", .uint8, "")

    public static let all = [rfChannel, signal, noise, offenses, transportRate, transport, rate, correctedHeaderBits, correctedPayloadBits,
                             lap, referenceLAP, referenceUAP, packetHeader, ltAddr, type, flowControl, arqn, seqn, hec, hecOK, crcOK, flags,
                             payloadHeader, llid, payloadFlow, payloadLength, crc, data, isochronousData, handle, lmpOpcode,
                             lmpTransaction, lmpData, fhsParity, fhsLAP, fhsEIR, fhsSR, fhsUAP, fhsNAP, fhsAddress, fhsClass, fhsLTAddr,
                             fhsClock, fhsPageScanMode]
}
