import BTCapture
import BTDecode

/// What a filter can know about a packet before it is decoded: from the frame's kind alone,
/// whether the expression can be true. A test on a field (or a protocol) that cannot be in
/// such a frame (`ProtocolPlacement`: no `att.*` in an HCI event, no `hci.*` in ACL data) is
/// false there, whatever its relation: every test on an absent field is false (a bare name
/// asks for it, a comparison needs a value, `!=` and `all` need one too). Packet terms
/// (`handle`, `error`...) and fields of other protocols are unknown until decoded.
enum FilterForesight {
    /// What an expression will be for a frame of some kind.
    enum Outcome {
        case never, always, unknown

        static func && (a: Outcome, b: Outcome) -> Outcome {
            if a == .never || b == .never { return .never }
            return a == .always && b == .always ? .always : .unknown
        }

        static func || (a: Outcome, b: Outcome) -> Outcome {
            if a == .always || b == .always { return .always }
            return a == .never && b == .never ? .never : .unknown
        }

        static prefix func ! (a: Outcome) -> Outcome {
            switch a {
            case .never: return .always
            case .always: return .never
            case .unknown: return .unknown
            }
        }
    }

    /// Whether a packet decoded from a frame of a kind can match `syntax` (false: it cannot);
    /// nil when no test of it depends on the kind, so the filter can never tell.
    static func make(_ syntax: FilterExpression) -> ((FrameKind) -> Bool)? {
        guard let outcome = outcome(syntax) else { return nil }
        return { outcome($0) != .never }
    }

    /// nil: unknown for every kind.
    private static func outcome(_ syntax: FilterExpression) -> ((FrameKind) -> Outcome)? {
        switch syntax {
        case .and(let a, let b):
            return combine(outcome(a), outcome(b), &&)
        case .or(let a, let b):
            return combine(outcome(a), outcome(b), ||)
        case .not(let a):
            guard let p = outcome(a) else { return nil }
            return { !p($0) }
        case .test(let test):
            guard let family = family(of: test.name) else { return nil }
            return { family.mayAppear(in: $0) ? .unknown : .never }
        }
    }

    private static func combine(_ a: ((FrameKind) -> Outcome)?, _ b: ((FrameKind) -> Outcome)?,
                                _ join: @escaping (Outcome, Outcome) -> Outcome) -> ((FrameKind) -> Outcome)? {
        switch (a, b) {
        case (nil, nil): return nil
        case (let p?, nil): return { join(p($0), .unknown) }
        case (nil, let q?): return { join(.unknown, q($0)) }
        case (let p?, let q?): return { join(p($0), q($0)) }
        }
    }

    /// The family of the protocol a test's name belongs to, resolved as the compiler resolves
    /// it: a packet term first, then a field, then a protocol's name alone.
    private static func family(of name: String) -> ProtocolPlacement.Family? {
        if !name.contains("."), PacketFilter.packetTerms.contains(name.lowercased()) { return nil }
        if let field = FieldRegistry.lookup(name) ?? FieldRegistry.lookup(name.lowercased()) {
            return ProtocolPlacement.family(field.protocolName)
        }
        if !name.contains("."), FieldRegistry.protocols.contains(name) { return ProtocolPlacement.family(name) }
        return nil
    }
}
