/// LE link-layer encryption (Core Vol 6, Part E: AES-CCM with a 4-octet MIC) and what it
/// takes to find the key: the session key from the LTK and the diversifiers exchanged in
/// LL_ENC_REQ/LL_ENC_RSP, and, for LE legacy pairing captured in full, the STK from the
/// temporary key (0 for Just Works, the passkey otherwise, found by trying each against the
/// confirm value, as crackle does). Values on the air are least significant octet first; the
/// security functions take and give most significant octet first.
enum LinkLayerEncryption {
    /// What LL_ENC_REQ and LL_ENC_RSP exchanged, as received.
    struct Exchange {
        var rand = [UInt8](), ediv: UInt16 = 0, skdC = [UInt8](), ivC = [UInt8](), skdP = [UInt8](), ivP = [UInt8]()
        var isComplete: Bool { skdC.count == 8 && skdP.count == 8 && ivC.count == 4 && ivP.count == 4 }
        /// Rand and EDIV zero: the key is the STK of a pairing just done.
        var usesSTK: Bool { ediv == 0 && rand.allSatisfy { $0 == 0 } }
    }

    /// A link's session: the cipher of its session key and its IV.
    struct Session {
        let cipher: AES128
        /// IVc then IVp, as they sit in the nonce.
        let iv: [UInt8]
    }

    /// SK = e(LTK, SKDp || SKDc); `ltk` most significant octet first.
    static func session(ltk: [UInt8], exchange: Exchange) -> Session {
        let skd = Array(exchange.skdP.reversed()) + Array(exchange.skdC.reversed())
        let key = AES128(key: ltk).encrypt(skd)
        return Session(cipher: AES128(key: key), iv: exchange.ivC + exchange.ivP)
    }

    /// The plaintext of an encrypted payload (MIC included in `sealed`), or nil when the MIC
    /// does not match: the wrong key or counter, or a damaged packet. `header` is the PDU's
    /// first header octet; `counter` the sender's count of encrypted PDUs before this one.
    static func open(_ sealed: ArraySlice<UInt8>, header: UInt8, counter: UInt64, fromCentral: Bool, session: Session) -> [UInt8]? {
        guard sealed.count >= 4 else { return nil }
        let nonce = self.nonce(counter: counter, fromCentral: fromCentral, session: session)
        let plain = crypt(sealed.dropLast(4), nonce: nonce, session: session)
        let mic = tag(plain, header: header, nonce: nonce, session: session)
        return mic.elementsEqual(sealed.suffix(4)) ? plain : nil
    }

    /// The payload as the sender puts it on the air: encrypted, then the MIC.
    static func seal(_ plain: [UInt8], header: UInt8, counter: UInt64, fromCentral: Bool, session: Session) -> [UInt8] {
        let nonce = self.nonce(counter: counter, fromCentral: fromCentral, session: session)
        return crypt(plain[...], nonce: nonce, session: session) + tag(plain, header: header, nonce: nonce, session: session)
    }

    /// The CCM nonce: the 39-bit packet counter, the direction bit (1 from the central), the IV.
    static func nonce(counter: UInt64, fromCentral: Bool, session: Session) -> [UInt8] {
        var nonce = [UInt8](repeating: 0, count: 13)
        for i in 0 ..< 5 { nonce[i] = UInt8(truncatingIfNeeded: counter >> UInt64(8 * i)) }
        nonce[4] = nonce[4] & 0x7F | (fromCentral ? 0x80 : 0)
        for i in 0 ..< 8 { nonce[5 + i] = session.iv[i] }
        return nonce
    }

    static func counterBlock(_ nonce: [UInt8], _ i: Int) -> [UInt8] { [0x01] + nonce + [UInt8(i >> 8), UInt8(i & 0xFF)] }

    /// CTR mode from counter block 1: encrypts and decrypts alike.
    static func crypt(_ input: ArraySlice<UInt8>, nonce: [UInt8], session: Session) -> [UInt8] {
        var output = [UInt8](); output.reserveCapacity(input.count)
        var blockIndex = 1
        var offset = input.startIndex
        while offset < input.endIndex {
            let stream = session.cipher.encrypt(counterBlock(nonce, blockIndex))
            for i in 0 ..< min(16, input.endIndex - offset) { output.append(input[offset + i] ^ stream[i]) }
            offset += 16
            blockIndex += 1
        }
        return output
    }

    /// The MIC: CBC-MAC over B0 (flags 0x49: Adata, M = 4, L = 2), B1 (the header octet with
    /// NESN, SN and MD masked as the additional data) and the plaintext, encrypted with block 0.
    static func tag(_ plain: [UInt8], header: UInt8, nonce: [UInt8], session: Session) -> [UInt8] {
        let length = plain.count
        var x = session.cipher.encrypt([0x49] + nonce + [UInt8(length >> 8), UInt8(length & 0xFF)])
        var b1 = [UInt8](repeating: 0, count: 16)
        b1[1] = 1
        b1[2] = header & 0xE3
        x = session.cipher.encrypt(zip(x, b1).map { $0 ^ $1 })
        var start = 0
        while start < length {
            var block = [UInt8](repeating: 0, count: 16)
            for i in 0 ..< min(16, length - start) { block[i] = plain[start + i] }
            x = session.cipher.encrypt(zip(x, block).map { $0 ^ $1 })
            start += 16
        }
        let s0 = session.cipher.encrypt(counterBlock(nonce, 0))
        return (0 ..< 4).map { x[$0] ^ s0[$0] }
    }

    /// LE legacy pairing as the capture saw it (Core Vol 3, Part H, 2.3.5): the two pairing
    /// PDUs (7 octets each, code included), both confirms and randoms, and the addresses.
    struct LegacyPairing {
        var request = [UInt8](), response = [UInt8]()
        var initiatorConfirm = [UInt8](), responderConfirm = [UInt8](), initiatorRandom = [UInt8](), responderRandom = [UInt8]()
        var initiator = [UInt8](), responder = [UInt8]()
        var initiatorType: UInt8 = 0, responderType: UInt8 = 0

        /// Every value the temporary key search reads, in one array (what a search is known by).
        var values: [UInt8] {
            request + response + initiatorConfirm + initiatorRandom + responderRandom + initiator + responder + [initiatorType, responderType]
        }

        var isComplete: Bool {
            request.count == 7 && response.count == 7 && initiatorConfirm.count == 16 && initiatorRandom.count == 16
                && responderRandom.count == 16 && initiator.count == 6 && responder.count == 6
        }

        /// c1(k, r, preq, pres, iat, rat, ia, ra) = e(k, e(k, r ⊕ p1) ⊕ p2).
        func confirm(tk: AES128, random: [UInt8]) -> [UInt8] {
            let (p1, p2) = confirmPadding()
            let r = Array(random.reversed())
            let first = tk.encrypt(zip(r, p1).map { $0 ^ $1 })
            return Array(tk.encrypt(zip(first, p2).map { $0 ^ $1 }).reversed())
        }

        /// c1's p1 = pres || preq || rat' || iat' and p2 = padding || ia || ra, most significant first.
        func confirmPadding() -> (p1: [UInt8], p2: [UInt8]) {
            (Array(response.reversed()) + Array(request.reversed()) + [responderType, initiatorType],
             [0, 0, 0, 0] + Array(initiator.reversed()) + Array(responder.reversed()))
        }

        static func temporaryKey(_ value: UInt32) -> [UInt8] {
            [UInt8](repeating: 0, count: 12) + [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
        }

        /// The temporary key whose confirm value is the initiator's: 0 (Just Works), then, when
        /// the pairing used passkey entry, every six-digit passkey (a million tries, about a
        /// second); nil if none is (out of band data, or a damaged capture).
        func findTemporaryKey(tryingPasskeys: Bool) -> UInt32? {
            guard isComplete else { return nil }
            // Under the fuzzer (sanitizers make AES many times slower) the search stops at 999,
            // so a mutated passkey pairing cannot run into libFuzzer's per-input timeout.
            #if FUZZING
            let last: UInt32 = 999
            #else
            let last: UInt32 = 999_999
            #endif
            // c1 as words, with what does not depend on the key computed once: r ⊕ p1, p2, and
            // the confirm sought (most significant octet first).
            let (p1, p2) = confirmPadding()
            let rp1 = AES128.words(zip(Array(initiatorRandom.reversed()), p1).map { $0 ^ $1 })
            let p2w = AES128.words(p2), sought = AES128.words(Array(initiatorConfirm.reversed()))
            for value in UInt32(0) ... (tryingPasskeys ? last : 0) {
                let tk = AES128(key: (0, 0, 0, value))
                let first = tk.encrypt(rp1)
                let c = tk.encrypt((first.0 ^ p2w.0, first.1 ^ p2w.1, first.2 ^ p2w.2, first.3 ^ p2w.3))
                if c == sought { return value }
            }
            return nil
        }

        /// STK = s1(TK, Srand, Mrand) = e(TK, Srand[0..7] || Mrand[0..7]), most significant first.
        func shortTermKey(temporaryKey: UInt32) -> [UInt8] {
            let r = Array(responderRandom.prefix(8).reversed()) + Array(initiatorRandom.prefix(8).reversed())
            return AES128(key: Self.temporaryKey(temporaryKey)).encrypt(r)
        }
    }
}

/// The LE security functions for whoever builds encrypted links rather than reads them (the
/// fixture generator): values as they go on the air, least significant octet first, except
/// keys, most significant first as the specifications write them.
public enum LESecurity {
    /// Legacy pairing's confirm value c1 for `random`.
    public static func confirm(temporaryKey: UInt32, random: [UInt8], request: [UInt8], response: [UInt8],
                               initiator: [UInt8], initiatorType: UInt8, responder: [UInt8], responderType: UInt8) -> [UInt8] {
        let pairing = LinkLayerEncryption.LegacyPairing(request: request, response: response, initiator: initiator, responder: responder,
                                                        initiatorType: initiatorType, responderType: responderType)
        return pairing.confirm(tk: AES128(key: LinkLayerEncryption.LegacyPairing.temporaryKey(temporaryKey)), random: random)
    }

    /// Legacy pairing's STK, s1(TK, Srand, Mrand).
    public static func shortTermKey(temporaryKey: UInt32, initiatorRandom: [UInt8], responderRandom: [UInt8]) -> [UInt8] {
        LinkLayerEncryption.LegacyPairing(initiatorRandom: initiatorRandom, responderRandom: responderRandom)
            .shortTermKey(temporaryKey: temporaryKey)
    }

    /// An encrypted payload with its MIC, for a link whose LL_ENC_REQ/RSP exchanged these values.
    public static func seal(_ plain: [UInt8], header: UInt8, counter: UInt64, fromCentral: Bool, ltk: [UInt8],
                            skdC: [UInt8], ivC: [UInt8], skdP: [UInt8], ivP: [UInt8]) -> [UInt8] {
        let exchange = LinkLayerEncryption.Exchange(skdC: skdC, ivC: ivC, skdP: skdP, ivP: ivP)
        return LinkLayerEncryption.seal(plain, header: header, counter: counter, fromCentral: fromCentral,
                                        session: LinkLayerEncryption.session(ltk: ltk, exchange: exchange))
    }
}
