import XCTest
@testable import BTDecode

/// AES-128 against FIPS-197, and LE encryption against the Core specification's sample data
/// (Vol 6, Part C, 1: the session key and the first four encrypted packets of a link).
final class LinkLayerEncryptionTests: XCTestCase {
    /// Hex digits as the specification writes a value (the filter language's byte literals).
    func hex(_ text: String) -> [UInt8] {
        guard case .bytes(let bytes)? = FieldValue.parse(text, as: .bytes) else { preconditionFailure("not hex: \(text)") }
        return Array(bytes)
    }

    func testAESAgainstFIPS197() {
        // Appendix C.1 (AES-128).
        let cipher = AES128(key: hex("000102030405060708090a0b0c0d0e0f"))
        XCTAssertEqual(cipher.encrypt(hex("00112233445566778899aabbccddeeff")), hex("69c4e0d86a7b0430d8cdb78070b4c55a"))
        // Appendix B: the key expansion example's key and input.
        XCTAssertEqual(AES128(key: hex("2b7e151628aed2a6abf7158809cf4f3c")).encrypt(hex("3243f6a8885a308d313198a2e0370734")),
                       hex("3925841d02dc09fbdc118597196a0b32"))
    }

    /// The sample data: LTK 0x4C68384139F574D836BCF34E9DFB01BF, SKDm 0xACBDCEDFE0F10213,
    /// SKDs 0x0213243546576879, IVm 0xBADCAB24, IVs 0xDEAFBABE (on the air least significant
    /// octet first), giving SK 0x99AD1B5226A37E3E058E3B8E27C2C666 as e() writes it.
    var exchange: LinkLayerEncryption.Exchange {
        LinkLayerEncryption.Exchange(rand: hex("9078563412efcdab"), ediv: 0x2474, skdC: hex("1302f1e0dfcebdac"), ivC: hex("24abdcba"),
                                     skdP: hex("7968574635241302"), ivP: hex("bebaafde"))
    }

    let ltk = [UInt8]([0x4C, 0x68, 0x38, 0x41, 0x39, 0xF5, 0x74, 0xD8, 0x36, 0xBC, 0xF3, 0x4E, 0x9D, 0xFB, 0x01, 0xBF])

    func testSessionKeyAndPacketsOfTheSampleData() throws {
        let skd = Array(exchange.skdP.reversed()) + Array(exchange.skdC.reversed())
        XCTAssertEqual(AES128(key: ltk).encrypt(skd), hex("99ad1b5226a37e3e058e3b8e27c2c666"))
        let session = LinkLayerEncryption.session(ltk: ltk, exchange: exchange)
        // LL_START_ENC_RSP1, central to peripheral, packet 0: 0F 05 9F CD A7 F4 48.
        XCTAssertEqual(LinkLayerEncryption.open(hex("9fcda7f448")[...], header: 0x0F, counter: 0, fromCentral: true, session: session), [0x06])
        // LL_START_ENC_RSP2, peripheral to central, packet 0: 07 05 A3 4C 13 A4 15.
        XCTAssertEqual(LinkLayerEncryption.open(hex("a34c13a415")[...], header: 0x07, counter: 0, fromCentral: false, session: session), [0x06])
        // LL_DATA1, central to peripheral, packet 1, header 0x0E.
        let data1 = hex("7a70d66415226df26b17839a060405596bd6564f796b5b9ce6ff32f75a6d33")
        XCTAssertEqual(LinkLayerEncryption.open(data1[...], header: 0x0E, counter: 1, fromCentral: true, session: session),
                       hex("1700636465666768696a6b6c6d6e6f7071313233343536373839 30".replacingOccurrences(of: " ", with: "")))
        // LL_DATA2, peripheral to central, packet 1, header 0x06.
        let data2 = hex("f38881e7bd94c9c369b9a66846dd4786aa8c39ce540d0dae3adcdf89b96088")
        XCTAssertEqual(LinkLayerEncryption.open(data2[...], header: 0x06, counter: 1, fromCentral: false, session: session),
                       hex("170037363534333231304142434445464748494a4b4c4d4e4f5051"))
        // Sealing gives the sample's packets back.
        XCTAssertEqual(LinkLayerEncryption.seal([0x06], header: 0x07, counter: 0, fromCentral: false, session: session), hex("a34c13a415"))
        XCTAssertEqual(LinkLayerEncryption.seal(hex("1700636465666768696a6b6c6d6e6f707131323334353637383930"), header: 0x0E, counter: 1,
                                                fromCentral: true, session: session), data1)
        // NESN, SN and MD are outside the MIC; the wrong counter, direction or a flipped bit are not.
        XCTAssertEqual(LinkLayerEncryption.open(hex("9fcda7f448")[...], header: 0x0F | 0x1C, counter: 0, fromCentral: true, session: session), [0x06])
        XCTAssertNil(LinkLayerEncryption.open(hex("9fcda7f448")[...], header: 0x0F, counter: 1, fromCentral: true, session: session))
        XCTAssertNil(LinkLayerEncryption.open(hex("9fcda7f448")[...], header: 0x0F, counter: 0, fromCentral: false, session: session))
        XCTAssertNil(LinkLayerEncryption.open(hex("9fcda7f449")[...], header: 0x0F, counter: 0, fromCentral: true, session: session))
        XCTAssertNil(LinkLayerEncryption.open(hex("9fcda7")[...], header: 0x0F, counter: 0, fromCentral: true, session: session))
    }

    /// Legacy pairing's confirm value found again: TK 0 for Just Works, the passkey by trying
    /// them in turn (a small one here: the search counts up from 0).
    func testTemporaryKeyRecovery() {
        var pairing = LinkLayerEncryption.LegacyPairing()
        pairing.request = [0x01, 0x04, 0x00, 0x05, 0x10, 0x01, 0x01]
        pairing.response = [0x02, 0x02, 0x00, 0x05, 0x10, 0x01, 0x01]
        pairing.initiator = [0x01, 0x32, 0x54, 0x76, 0x98, 0xF0]
        pairing.responder = [0x5A, 0x4C, 0x3B, 0x2A, 0x19, 0xC8]
        pairing.initiatorType = 0
        pairing.responderType = 1
        pairing.initiatorRandom = (0 ..< 16).map { UInt8($0 &* 29 & 0xFF) }
        pairing.responderRandom = (0 ..< 16).map { UInt8($0 &* 31 & 0xFF) }
        for passkey: UInt32 in [0, 42] {
            pairing.initiatorConfirm = LESecurity.confirm(temporaryKey: passkey, random: pairing.initiatorRandom, request: pairing.request,
                                                          response: pairing.response, initiator: pairing.initiator, initiatorType: 0,
                                                          responder: pairing.responder, responderType: 1)
            XCTAssertEqual(pairing.findTemporaryKey(tryingPasskeys: true), passkey)
            XCTAssertEqual(pairing.findTemporaryKey(tryingPasskeys: false), passkey == 0 ? 0 : nil)
        }
        // c1 against the worked example of Core Vol 3, Part H, 2.2.3: k = 0, r = 0x5783D52156AD6F0E6388274EC6702EE0,
        // pres = 0x05000800000302, preq = 0x07071000000101, iat = 1, rat = 0, ia = 0xA1A2A3A4A5A6,
        // ra = 0xB1B2B3B4B5B6: the confirm is 0x1E1E3FEF878988EAD2A74DC5BEF13B86.
        var example = LinkLayerEncryption.LegacyPairing()
        example.response = Array(hex("05000800000302").reversed())
        example.request = Array(hex("07071000000101").reversed())
        example.initiatorType = 1
        example.responderType = 0
        example.initiator = Array(hex("a1a2a3a4a5a6").reversed())
        example.responder = Array(hex("b1b2b3b4b5b6").reversed())
        let confirm = example.confirm(tk: AES128(key: [UInt8](repeating: 0, count: 16)), random: Array(hex("5783d52156ad6f0e6388274ec6702ee0").reversed()))
        XCTAssertEqual(confirm, Array(hex("1e1e3fef878988ead2a74dc5bef13b86").reversed()))
        // s1 against the same section's example: r1 = 0x000F0E0D0C0B0A091122334455667788,
        // r2 = 0x010203040506070899AABBCCDDEEFF00, s1 = 0x9a1fe1f0e8b0f49b5b4216ae796da062; the
        // STK is s1(TK, Srand, Mrand): r1 is the responder's random, r2 the initiator's.
        var keys = LinkLayerEncryption.LegacyPairing()
        keys.responderRandom = Array(hex("000f0e0d0c0b0a091122334455667788").reversed())
        keys.initiatorRandom = Array(hex("010203040506070899aabbccddeeff00").reversed())
        XCTAssertEqual(keys.shortTermKey(temporaryKey: 0), hex("9a1fe1f0e8b0f49b5b4216ae796da062"))
    }

    /// A pairing's key search runs once per process, whatever decodes it again (the browser
    /// opening the packet from a saved Session, a filter scanning once more, a merge's air
    /// capture decoded to align, to pair and to show); a search that found nothing is
    /// remembered too.
    func testAKeySearchIsMadeOncePerProcess() {
        let searches = KeySearches()
        var runs = 0
        XCTAssertEqual(searches.result(for: [1, 2]) { runs += 1; return 123_456 }, 123_456)
        XCTAssertEqual(searches.result(for: [1, 2]) { runs += 1; return 0 }, 123_456)
        XCTAssertNil(searches.result(for: [3]) { runs += 1; return nil })
        XCTAssertNil(searches.result(for: [3]) { runs += 1; return 7 })
        XCTAssertEqual(runs, 2)
        // Every decoder's options share the process's searches.
        XCTAssertTrue(DecodeOptions().keySearches === DecodeOptions().keySearches)
        XCTAssertTrue(DecodeOptions().keySearches === KeySearches.shared)
    }
}
