import XCTest
import BTCapture
@testable import BTDecode

/// BR/EDR profile decoders on bytes laid out from their specifications. The RFCOMM FCS values
/// are the ones Linux's RFCOMM (through the kernel fixture) and TS 07.10's CRC agree on.
final class ClassicDecoderTests: ClassicLinkTestCase {
    // MARK: RFCOMM

    /// An RFCOMM frame the host sends: address, control, length (1 or 2 octets), information, FCS.
    @discardableResult
    func rfcomm(_ frame: [UInt8], sent: Bool = true) -> Packet {
        l2cap(sent ? 0x0041 : 0x0040, frame, sent: sent)
    }

    func testFrameTypesAndTheirFCS() {
        open(psm: 0x0003)
        // SABM on DLCI 0 with P: the FCS covers address, control and length.
        let sabm = rfcomm([0x03, 0x3F, 0x01, 0x1C])
        XCTAssertEqual(sabm.typeLabel, "RFCOMM Send")
        XCTAssertEqual(sabm.summary, "SABM - Multiplexer")
        XCTAssertEqual(values(sabm, RFCOMMFields.frameType), ["0x2F"])
        XCTAssertEqual(values(sabm, RFCOMMFields.pf), ["1"])
        XCTAssertEqual(values(sabm, RFCOMMFields.fcsValid), ["1"])
        XCTAssertNil(sabm.worstSeverity)
        let ua = rfcomm([0x03, 0x73, 0x01, 0xD7], sent: false)
        XCTAssertEqual(ua.summary, "UA - Multiplexer")
        // UA for DLCI 24 (server channel 12).
        let channelUA = rfcomm([0x63, 0x73, 0x01, 0x69], sent: false)
        XCTAssertEqual(channelUA.summary, "UA - Channel 12 (DLCI 24)")
        XCTAssertEqual(values(channelUA, RFCOMMFields.channel), ["12"])
        XCTAssertNil(channelUA.worstSeverity)
        // DISC and DM.
        XCTAssertEqual(rfcomm([0x63, 0x53, 0x01, RFCOMMFCS.of([0x63, 0x53, 0x01])]).summary, "DISC - Channel 12 (DLCI 24)")
        XCTAssertEqual(rfcomm([0x73, 0x1F, 0x01, RFCOMMFCS.of([0x73, 0x1F, 0x01])], sent: false).summary, "DM - Channel 14 (DLCI 28)")

        // A wrong FCS is an error, and says what it should be.
        let bad = rfcomm([0x03, 0x3F, 0x01, 0x1D])
        XCTAssertTrue(bad.hasError)
        XCTAssertEqual(values(bad, RFCOMMFields.fcsValid), ["0"])
        XCTAssertTrue(bad.issues.contains { $0.message == "Bad FCS 0x1D, expected 0x1C" }, "\(bad.issues)")
    }

    func testMultiplexerCommands() {
        open(psm: 0x0003)
        // PN command for DLCI 24: credit-based flow requested, priority 7, frame size 667, 7 credits.
        let pn = rfcomm([0x03, 0xEF, 0x15, 0x83, 0x11, 0x18, 0xF0, 0x07, 0x00, 0x9B, 0x02, 0x00, 0x07, 0x70])
        XCTAssertEqual(pn.summary, "UIH - Multiplexer - PN Command - Channel 12 (DLCI 24) - Frame Size: 667 - Credits: 7")
        XCTAssertEqual(values(pn, RFCOMMFields.mccType), ["0x20"])
        XCTAssertEqual(values(pn, RFCOMMFields.pnCL), ["0xF"])
        XCTAssertEqual(values(pn, RFCOMMFields.pnFrameSize), ["667"])
        XCTAssertEqual(values(pn, RFCOMMFields.pnPriority), ["7"])
        XCTAssertNil(pn.worstSeverity, "\(pn.issues)")
        // MSC response (C/R 0) for DLCI 24: RTC, RTR and DV set.
        let msc = rfcomm([0x01, 0xEF, 0x09, 0xE1, 0x05, 0x63, 0x8D, 0xAA], sent: false)
        XCTAssertEqual(msc.summary, "UIH - Multiplexer - MSC Response - Channel 12 (DLCI 24) - Signals: RTC RTR DV")
        XCTAssertEqual(values(msc, RFCOMMFields.mscDV), ["1"])
        XCTAssertEqual(values(msc, RFCOMMFields.mscFC), ["0"])
        XCTAssertNil(msc.worstSeverity, "\(msc.issues)")
        // RPN command: 9600 baud, 8 data bits, 1 stop bit, no parity; RPN request (DLCI only).
        func uih0(_ mcc: [UInt8]) -> [UInt8] { [0x03, 0xEF, UInt8(mcc.count << 1 | 1)] + mcc + [RFCOMMFCS.of([0x03, 0xEF])] }
        let rpn = rfcomm(uih0([0x93, 0x11, 0x63, 0x03, 0x03, 0x00, 0x11, 0x13, 0xFF, 0x3F]))
        XCTAssertEqual(rpn.summary, "UIH - Multiplexer - RPN Command - Channel 12 (DLCI 24) - 9600 baud, 8 data bits, 1 stop bit, no parity")
        XCTAssertEqual(rfcomm(uih0([0x93, 0x03, 0x63])).summary, "UIH - Multiplexer - RPN Command - Channel 12 (DLCI 24) - Request")
        // RLS with a framing error; NSC naming the command it did not know; Test; FCon.
        XCTAssertEqual(rfcomm(uih0([0x53, 0x05, 0x63, 0x09])).summary, "UIH - Multiplexer - RLS Command - Channel 12 (DLCI 24) - Error: framing")
        XCTAssertEqual(rfcomm(uih0([0x11, 0x03, 0x43]), sent: false).summary, "UIH - Multiplexer - NSC Response - PSC not supported")
        XCTAssertEqual(rfcomm(uih0([0x23, 0x07, 0x01, 0x02, 0x03])).summary, "UIH - Multiplexer - Test Command - 3 bytes")
        XCTAssertEqual(rfcomm(uih0([0xA3, 0x01])).summary, "UIH - Multiplexer - FCon Command")
        // A PN too short for its parameters.
        let short = rfcomm(uih0([0x83, 0x05, 0x18, 0xF0]))
        XCTAssertTrue(short.issues.contains { $0.message == "PN with 2 bytes of value, too short" }, "\(short.issues)")
    }

    func testDataCreditsAndLongLength() {
        open(psm: 0x0003)
        // UIH on DLCI 24 with P/F: a credits octet, then "AT+CGMI\r" as printable text (no
        // profile recognised: AT+CGMI is no hands-free unit's first word).
        let text = Array("AT+CGMI\r".utf8)
        let at = rfcomm([0x63, 0xFF, UInt8(text.count << 1 | 1), 0x21] + text + [RFCOMMFCS.of([0x63, 0xFF])])
        XCTAssertEqual(at.summary, "UIH - Channel 12 (DLCI 24) - Credits: 33 - 8 bytes - \"AT+CGMI\\r\"")
        XCTAssertEqual(values(at, RFCOMMFields.credits), ["33"])
        XCTAssertNil(at.worstSeverity, "\(at.issues)")
        // 667 bytes: the length takes two octets (EA 0).
        let data = [UInt8](repeating: 0x07, count: 667)
        let long = rfcomm([0x63, 0xEF, 0x36, 0x05] + data + [RFCOMMFCS.of([0x63, 0xEF])])
        XCTAssertEqual(long.summary, "UIH - Channel 12 (DLCI 24) - 667 bytes")
        XCTAssertEqual(values(long, RFCOMMFields.length), ["667"])
        XCTAssertNil(long.worstSeverity, "\(long.issues)")
        // A length larger than what follows (as BlueZ's emulator sends): said, and still decoded.
        let liar = rfcomm([0x63, 0xEF, 0x19, 0x00, 0x01, 0x02, RFCOMMFCS.of([0x63, 0xEF])], sent: false)
        XCTAssertEqual(values(liar, RFCOMMFields.payload), ["000102"])
        XCTAssertTrue(liar.issues.contains { $0.message == "Length 12 but 3 bytes of information before the FCS" }, "\(liar.issues)")
        // Truncated: one byte of RFCOMM.
        XCTAssertTrue(rfcomm([0x63]).hasError)
    }
}

extension ClassicDecoderTests {
    // MARK: SDP

    /// An SDP PDU: ID, transaction, parameter length (big-endian), parameters.
    @discardableResult
    func sdp(_ id: UInt8, _ transaction: UInt16, _ parameters: [UInt8], sent: Bool) -> Packet {
        let pdu = [id, UInt8(transaction >> 8), UInt8(transaction & 0xFF), UInt8(parameters.count >> 8), UInt8(parameters.count & 0xFF)] + parameters
        return l2cap(sent ? 0x0041 : 0x0040, pdu, sent: sent)
    }

    func testSDPRecordsTeachRFCOMMWhichProfileAChannelCarries() {
        open(psm: 0x0001)
        // Service Search Attribute Request: pattern (Handsfree Audio Gateway), 0xFFFF bytes, all attributes.
        let request = sdp(0x06, 0x0001, [0x35, 0x03, 0x19, 0x11, 0x1F, 0xFF, 0xFF, 0x35, 0x05, 0x0A, 0x00, 0x00, 0xFF, 0xFF, 0x00], sent: true)
        XCTAssertEqual(request.summary, "Service Search Attribute Request - Handsfree Audio Gateway - Attributes: 0x0000-0xFFFF")
        XCTAssertEqual(values(request, SDPFields.uuid), ["111F"])
        XCTAssertEqual(values(request, SDPFields.attributeRange), ["0x0000FFFF"])
        // One record: classes (HFP AG, Generic Audio), L2CAP + RFCOMM channel 2, profile 1.9,
        // a name with a 16-bit length (size index 6), features 0x0009 (three-way calling, in-band ring).
        let name: [UInt8] = [0x26, 0x00, 0x0D] + Array("Voice Gateway".utf8)
        let attributes: [UInt8] = [0x09, 0x00, 0x01, 0x35, 0x06, 0x19, 0x11, 0x1F, 0x19, 0x12, 0x03]
            + [0x09, 0x00, 0x04, 0x35, 0x0C, 0x35, 0x03, 0x19, 0x01, 0x00, 0x35, 0x05, 0x19, 0x00, 0x03, 0x08, 0x02]
            + [0x09, 0x00, 0x09, 0x35, 0x08, 0x35, 0x06, 0x19, 0x11, 0x1E, 0x09, 0x01, 0x09]
            + [0x09, 0x01, 0x00] + name + [0x09, 0x03, 0x11, 0x09, 0x00, 0x09]
        let record: [UInt8] = [0x35, UInt8(attributes.count)] + attributes
        let lists: [UInt8] = [0x35, UInt8(record.count)] + record
        let response = sdp(0x07, 0x0001, [0x00, UInt8(lists.count)] + lists + [0x00], sent: false)
        XCTAssertEqual(response.summary, "Service Search Attribute Response - 1 record: Handsfree Audio Gateway (RFCOMM 2)")
        XCTAssertEqual(values(response, SDPFields.rfcommChannel), ["2"])
        XCTAssertEqual(values(response, SDPFields.psm), [])
        XCTAssertEqual(values(response, SDPFields.serviceName), ["Voice Gateway"])
        XCTAssertEqual(values(response, SDPFields.profileVersion), ["0x0109"])
        XCTAssertEqual(values(response, SDPFields.serviceClass), ["111F", "1203"])
        let features = response.layers.last!.fieldCopies.first { $0.definition == SDPFields.supportedFeatures }
        XCTAssertEqual(features?.display, "0x0009 (Three-way calling, In-band ring tone)")
        XCTAssertNil(response.worstSeverity, "\(response.issues)")
        // RFCOMM on the same link now names channel 2.
        open(psm: 0x0003)
        let sabm = l2cap(0x0041, [0x13, 0x3F, 0x01, RFCOMMFCS.of([0x13, 0x3F, 0x01])], sent: true)
        XCTAssertEqual(sabm.summary, "SABM - Channel 2 (DLCI 4, Handsfree Audio Gateway)")
    }

    func testSDPContinuationAndErrors() {
        open(psm: 0x0001)
        // An attribute list (ServiceRecordHandle, ServiceClassIDList: Audio Sink) in two parts.
        let list: [UInt8] = [0x35, 0x10, 0x09, 0x00, 0x00, 0x0A, 0x00, 0x01, 0x00, 0x01, 0x09, 0x00, 0x01, 0x35, 0x03, 0x19, 0x11, 0x0B]
        sdp(0x04, 7, [0x00, 0x01, 0x00, 0x01, 0x00, 0x08, 0x35, 0x03, 0x09, 0x00, 0x01, 0x00], sent: true)
        let first = sdp(0x05, 7, [0x00, 0x08] + list.prefix(8) + [0x01, 0xAA], sent: false)
        XCTAssertEqual(first.summary, "Service Attribute Response - 8 bytes, continued")
        XCTAssertEqual(values(first, SDPFields.continuation), ["AA"])
        let again = sdp(0x04, 8, [0x00, 0x01, 0x00, 0x01, 0x00, 0x10, 0x35, 0x03, 0x09, 0x00, 0x01, 0x01, 0xAA], sent: true)
        XCTAssertEqual(again.summary, "Service Attribute Request - Record 0x00010001 - Attributes: ServiceClassIDList - Continuation")
        let last = sdp(0x05, 8, [0x00, UInt8(list.count - 8)] + list.dropFirst(8) + [0x00], sent: false)
        XCTAssertEqual(last.summary, "Service Attribute Response - Audio Sink - reassembled from 2 responses")
        XCTAssertEqual(values(last, SDPFields.attribute), ["0x0000", "0x0001"])
        XCTAssertEqual(values(last, SDPFields.fragments), ["2"])
        XCTAssertEqual(last.reassembledPDU.map(Array.init), list)
        // Error Response; a parameter length that lies; a data element with a size it cannot have.
        let error = sdp(0x01, 9, [0x00, 0x05], sent: false)
        XCTAssertEqual(error.summary, "Error Response - Invalid Continuation State (0x0005)")
        XCTAssertTrue(error.hasWarning)
        let lying = l2cap(0x0041, [0x02, 0x00, 0x0A, 0x00, 0x20, 0x35, 0x03, 0x19, 0x11, 0x0B, 0x00, 0x01, 0x00], sent: true)
        XCTAssertTrue(lying.issues.contains { $0.message == "Parameter length 32 but 8 bytes follow" }, "\(lying.issues)")
        let badSize = sdp(0x02, 11, [0x35, 0x03, 0x1D, 0x11, 0x0B, 0x00, 0x01, 0x00], sent: true)
        XCTAssertTrue(badSize.issues.contains { $0.message == "SDP service search pattern: data element type 3 cannot have size index 5" }, "\(badSize.issues)")
        // Sequences nested past the limit are refused, not followed.
        var nested: [UInt8] = [0x19, 0x11, 0x0B]
        for _ in 0 ..< 20 { nested = [0x35, UInt8(nested.count)] + nested }
        let deep = sdp(0x02, 12, nested + [0x00, 0x01, 0x00], sent: true)
        XCTAssertTrue(deep.issues.contains { $0.message.hasSuffix("nested deeper than 16") }, "\(deep.issues)")
    }
}

extension ClassicDecoderTests {
    // MARK: HFP

    /// AT text on server channel 1 (DLCI 2) of an RFCOMM session the host started: commands
    /// from the peer (the hands-free unit), results from the host (the audio gateway).
    @discardableResult
    func at(_ text: String, sent: Bool) -> Packet {
        let address: UInt8 = 2 << 2 | (sent ? 0x02 : 0x00) | 0x01
        let bytes = Array(text.utf8)
        return l2cap(sent ? 0x0041 : 0x0040, [address, 0xEF, UInt8(bytes.count << 1 | 1)] + bytes + [RFCOMMFCS.of([address, 0xEF])], sent: sent)
    }

    func testHandsFreeCommandsWithoutSDP() {
        open(psm: 0x0003)
        // No SDP in this capture: AT+BRSF says the channel is Hands-Free.
        let brsf = at("AT+BRSF=191\r", sent: false)
        XCTAssertEqual(brsf.typeLabel, "HFP Receive")
        XCTAssertEqual(brsf.summary, "AT+BRSF=191 (HF features: EC/NR, Three-way calling, CLI presentation, Voice recognition, Remote volume control, Enhanced call status, Codec negotiation)")
        XCTAssertEqual(values(brsf, HFPFields.command), ["+BRSF"])
        XCTAssertEqual(values(brsf, HFPFields.commandType), ["set"])
        XCTAssertEqual(values(brsf, HFPFields.hfFeatures), ["0x000000BF"])
        let agFeatures = at("\r\n+BRSF: 2048\r\n\r\nOK\r\n", sent: true)
        XCTAssertEqual(agFeatures.summary, "+BRSF: 2048 (AG features: eSCO S4) - OK")
        XCTAssertEqual(values(agFeatures, HFPFields.response), ["+BRSF", "OK"])
        // A command split over two frames is joined on the second.
        let first = at("AT+CIN", sent: false)
        XCTAssertEqual(first.summary, "Partial command \"AT+CIN\", continued")
        let second = at("D=?\r", sent: false)
        XCTAssertEqual(second.summary, "AT+CIND=? (Indicators) (joined from 2 frames)")
        XCTAssertEqual(values(second, HFPFields.joined), ["2"])
        // The test result names the indicators; +CIEV then reads by name.
        at("\r\n+CIND: (\"call\",(0,1)),(\"callsetup\",(0-3)),(\"signal\",(0-5))\r\n", sent: true)
        let event = at("\r\n+CIEV: 3,4\r\n", sent: true)
        XCTAssertEqual(event.summary, "+CIEV: 3,4 (signal 4)")
        XCTAssertEqual(values(event, HFPFields.indicator), ["signal"])
        XCTAssertEqual(values(event, HFPFields.indicatorValue), ["4"])
        // Codec selection, gain, and an error with its meaning.
        XCTAssertEqual(at("\r\n+BCS: 3\r\n", sent: true).summary, "+BCS: 3 (Codec Selection: LC3-SWB)")
        XCTAssertEqual(decoder.session.hfp.codecs.values.first, 3)
        XCTAssertEqual(at("AT+VGM=8\r", sent: false).summary, "AT+VGM=8 (Microphone Gain 8/15)")
        let error = at("\r\n+CME ERROR: 30\r\n", sent: true)
        XCTAssertEqual(error.summary, "+CME ERROR: 30 (No network service)")
        XCTAssertTrue(error.hasWarning)
        XCTAssertEqual(at("ATD0123456789;\r", sent: false).summary, "ATD0123456789; (Dial)")
        XCTAssertEqual(at("\r\nRING\r\n", sent: true).summary, "RING")
    }

    func testOtherChannelsStayText() {
        open(psm: 0x0003)
        // Serial data that is not AT: shown as text on the RFCOMM layer, no HFP layer.
        let serial = at("hello\r\n", sent: true)
        XCTAssertEqual(serial.typeLabel, "RFCOMM Send")
        XCTAssertEqual(serial.summary, "UIH - Channel 1 (DLCI 2) - 7 bytes - \"hello\\r\\n\"")
    }
}

extension ClassicDecoderTests {
    // MARK: AVDTP and A2DP

    /// A signal on the link's first AVDTP channel (host CID 0x0040, peer 0x0041).
    @discardableResult
    func avdtp(_ bytes: [UInt8], sent: Bool) -> Packet { l2cap(sent ? 0x0041 : 0x0040, bytes, sent: sent) }

    func testSignalsCapabilitiesAndCodecs() {
        open(psm: 0x0019)
        XCTAssertEqual(avdtp([0x10, 0x01], sent: true).summary, "Discover: Signal")
        let discover = avdtp([0x12, 0x01, 0x04, 0x08, 0x0A, 0x00], sent: false)
        XCTAssertEqual(discover.typeLabel, "A2DP Control")
        XCTAssertEqual(discover.summary, "Discover: Accept-Response - SEID 1 Audio Sink, SEID 2 Audio Source (in use)")
        XCTAssertEqual(values(discover, AVDTPFields.seid), ["1", "2"])
        XCTAssertEqual(values(discover, AVDTPFields.tsep), ["1", "0"])
        // Get All Capabilities response: media transport, AAC (MPEG-2/4 LC, 44.1 and 48 kHz,
        // stereo, VBR, 320 kb/s), delay reporting.
        let aac = avdtp([0x22, 0x0C, 0x01, 0x00, 0x07, 0x08, 0x00, 0x02, 0xC0, 0x01, 0x84, 0x84, 0xE2, 0x00, 0x08, 0x00], sent: false)
        XCTAssertEqual(aac.summary, "Get All Capabilities: Accept-Response - AAC MPEG-2 AAC LC MPEG-4 AAC LC 44.1kHz 48kHz Stereo VBR 320 kb/s")
        XCTAssertEqual(values(aac, AVDTPFields.category), ["0x01", "0x07", "0x08"])
        XCTAssertEqual(values(aac, AVDTPFields.aacBitrate), ["320000"])
        XCTAssertNil(aac.worstSeverity, "\(aac.issues)")
        // Set Configuration: SEID 1 from 3, SBC 48 kHz stereo, 16 blocks, 8 subbands, loudness, bitpool 2-35.
        let set = avdtp([0x30, 0x03, 0x04, 0x0C, 0x01, 0x00, 0x07, 0x06, 0x00, 0x00, 0x12, 0x15, 0x02, 0x23], sent: true)
        XCTAssertEqual(set.summary, "Set Configuration: Signal - SEID 1 from 3 - SBC 48kHz Stereo 16 blocks 8 subbands Loudness bitpool 2-35")
        XCTAssertEqual(values(set, AVDTPFields.intSEID), ["3"])
        XCTAssertEqual(values(set, AVDTPFields.sbcMaxBitpool), ["35"])
        // A reject names the category and the A2DP error; a vendor codec by its owner's ID.
        let reject = avdtp([0x33, 0x03, 0x07, 0xC4], sent: false)
        XCTAssertEqual(reject.summary, "Set Configuration: Reject-Response - Not Supported Sampling Frequency (0xC4)")
        XCTAssertTrue(reject.hasWarning)
        let aptX = avdtp([0x42, 0x02, 0x07, 0x09, 0x00, 0xFF, 0x4F, 0x00, 0x00, 0x00, 0x01, 0x00, 0x22], sent: false)
        XCTAssertEqual(aptX.summary, "Get Capabilities: Accept-Response - aptX 44.1kHz Stereo")
        XCTAssertEqual(values(aptX, AVDTPFields.vendorID), ["0x0000004F"])
        // Delay Report: 15 ms in tenths.
        XCTAssertEqual(avdtp([0x50, 0x0D, 0x04, 0x00, 0x96], sent: false).summary, "Delay Report: Signal - SEID 1 - 15.0 ms")
        // A signal in two packets: start (2 packets, Get Capabilities response), then end.
        let start = avdtp([0x66, 0x02, 0x02, 0x01, 0x00, 0x07, 0x06], sent: false)
        XCTAssertEqual(start.summary, "Get Capabilities: Accept-Response - fragment 1 of 2")
        let end = avdtp([0x6E, 0x00, 0x00, 0x21, 0x15, 0x02, 0x35], sent: false)
        XCTAssertEqual(end.summary, "Get Capabilities: Accept-Response - SBC 44.1kHz Joint Stereo 16 blocks 8 subbands Loudness bitpool 2-53")
        XCTAssertTrue(avdtp([0x7A, 0x00], sent: false).hasWarning, "an end packet without a start")
    }

    func testMediaPacketsAndLostAudio() {
        open(psm: 0x0019)
        avdtp([0x30, 0x03, 0x04, 0x04, 0x01, 0x00, 0x07, 0x06, 0x00, 0x00, 0x21, 0x15, 0x02, 0x35], sent: true)
        // The second AVDTP channel is media: host CID 0x0042, peer 0x0043.
        l2cap(0x0001, [0x02, 0x05, 0x04, 0x00, 0x19, 0x00, 0x42, 0x00], sent: true)
        l2cap(0x0001, [0x03, 0x05, 0x08, 0x00, 0x43, 0x00, 0x42, 0x00, 0x00, 0x00, 0x00, 0x00], sent: false)
        // RTP (V2, PT 96), SBC media header (1 frame), frame header: 44.1 kHz, 16 blocks, joint stereo, loudness, 8 subbands, bitpool 53.
        func media(_ sequence: UInt16) -> Packet {
            let rtp: [UInt8] = [0x80, 0x60, UInt8(sequence >> 8), UInt8(sequence & 0xFF), 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x01]
            return l2cap(0x0043, rtp + [0x01, 0x9C, 0xBD, 0x35, 0x00] + [UInt8](repeating: 0x11, count: 115), sent: true)
        }
        let first = media(100)
        XCTAssertEqual(first.typeLabel, "A2DP Data")
        XCTAssertEqual(first.summary, "RTP Seq 100 TS 4096 - SBC 1 frame - 44.1kHz Joint Stereo bitpool 53 (327 kb/s)")
        XCTAssertEqual(values(first, MediaFields.bitrate), ["327993"]) // 8 × 119 bytes × 44100 / (8 subbands × 16 blocks)
        XCTAssertNil(first.worstSeverity, "\(first.issues)")
        XCTAssertNil(media(101).worstSeverity)
        let gap = media(104)
        XCTAssertTrue(gap.issues.contains { $0.message == "2 RTP packets lost (sequence 104 after 101)" }, "\(gap.issues)")
        XCTAssertEqual(values(gap, MediaFields.lost), ["2"])
    }

    /// AAC media: an ADTS frame's length from its header (ISO/IEC 13818-7 ADTS: 13 bits over
    /// bytes 3-5), LATM named and not parsed; vendor codec settings where their layout is public.
    func testAACMediaAndVendorCodecSettings() {
        open(psm: 0x0019)
        // Set Configuration: MPEG-2 AAC LC, 48 kHz, stereo, VBR, bit rate 0.
        avdtp([0x30, 0x03, 0x04, 0x04, 0x01, 0x00, 0x07, 0x08, 0x00, 0x02, 0x80, 0x00, 0x84, 0x80, 0x00, 0x00], sent: true)
        l2cap(0x0001, [0x02, 0x05, 0x04, 0x00, 0x19, 0x00, 0x42, 0x00], sent: true)
        l2cap(0x0001, [0x03, 0x05, 0x08, 0x00, 0x43, 0x00, 0x42, 0x00, 0x00, 0x00, 0x00, 0x00], sent: false)
        let rtp: [UInt8] = [0x80, 0x60, 0x00, 0x01, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x02]
        // ADTS header: 0xFFF1, LC, 48 kHz (index 3), 2 channels, frame length 0x0123 = 291.
        let adts = l2cap(0x0043, rtp + [0xFF, 0xF1, 0x4C, 0x80, 0x24, 0x7F, 0xFC, 0x21], sent: true)
        XCTAssertEqual(adts.summary, "RTP Seq 1 TS 1024 - AAC ADTS frame 291 bytes")
        XCTAssertEqual(values(adts, MediaFields.aacLength), ["291"])
        XCTAssertEqual(adts.issues.map(\.message), ["ADTS frame of 291 bytes in a 8-byte payload"])
        let latm = l2cap(0x0043, [0x80, 0x60, 0x00, 0x02, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x02, 0x47, 0xFC, 0x00, 0x00], sent: true)
        XCTAssertEqual(latm.summary, "RTP Seq 2 TS 2048 - AAC LATM 4 bytes")
        // aptX: 48 kHz stereo (0x12); LDAC: 96 kHz (0x04), stereo (0x01).
        XCTAssertEqual(A2DPCodecs.vendorSettings(0x4F, 0x0001, [0x12]).rates, ["48kHz"])
        XCTAssertEqual(A2DPCodecs.vendorSettings(0x4F, 0x0001, [0x12]).modes, ["Stereo"])
        XCTAssertEqual(A2DPCodecs.vendorSettings(0x12D, 0x00AA, [0x04, 0x01]).rates, ["96kHz"])
        XCTAssertEqual(A2DPCodecs.vendorSettings(0x12D, 0x00AA, [0x04, 0x01]).modes, ["Stereo"])
        XCTAssertTrue(A2DPCodecs.vendorSettings(0x12D, 0x00AB, [0x04]).rates.isEmpty, "an unknown codec's bytes are not guessed at")
    }
}

extension ClassicDecoderTests {
    /// A peer that never ends a fragmented signal or a continued attribute list: the
    /// reassembly stops at its bound with an error instead of growing with the capture.
    func testEndlessReassemblyIsBounded() {
        open(psm: 0x0019)
        avdtp([0x66, 0x02, 0x02, 0x01, 0x00, 0x07, 0x06], sent: false)
        // Continue packets (label 6, packet type 2) of 1000 bytes: the 66th passes 64 KiB.
        let chunk = [0x6A] + [UInt8](repeating: 0x00, count: 999)
        var packets: [Packet] = []
        for _ in 0 ..< 70 { packets.append(avdtp(chunk, sent: false)) }
        XCTAssertEqual(packets.firstIndex { $0.hasError }, 65)
        XCTAssertTrue(packets[65].issues.contains { $0.message.hasPrefix("AVDTP signal started in packet") && $0.message.hasSuffix("grew past 65536 bytes: dropped") },
                      "\(packets[65].issues)")
        let dropped = packets[66]
        XCTAssertFalse(dropped.hasError, "after the drop, a continue packet has no start: a warning")
        XCTAssertTrue(dropped.hasWarning)
    }
}

/// TS 07.10's FCS computed bit by bit, independently of the decoder's table: CRC-8 with
/// polynomial x^8 + x^2 + x + 1, reflected, initial value 0xFF, sent as its ones' complement.
enum RFCOMMFCS {
    static func of(_ bytes: [UInt8]) -> UInt8 {
        var crc: UInt8 = 0xFF
        for byte in bytes {
            var bits = byte
            for _ in 0 ..< 8 {
                let feedback = (crc ^ bits) & 1
                crc >>= 1
                if feedback == 1 { crc ^= 0xE0 }
                bits >>= 1
            }
        }
        return ~crc
    }
}
