import XCTest
@testable import BTDecode

/// AES-128 against FIPS-197, and LE encryption against the Core specification's sample data
/// (Vol 6, Part C, 1: the session key and the first four encrypted packets of a link).
final class LinkLayerEncryptionTests: XCTestCase {
    func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index ..< next], radix: 16)!)
            index = next
        }
        return bytes
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
}
