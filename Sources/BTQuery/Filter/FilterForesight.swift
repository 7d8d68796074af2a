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
    /// nil when no test of it depends on the kind, so the filter can never tell. `protocols`:
    /// the protocol each test reads, as the compiler resolved its name (`testProtocols`).
    static func make(_ syntax: FilterExpression, protocols: [Range<Int>: String]) -> ((FrameKind) -> Bool)? {
        guard let outcome = outcome(syntax, protocols) else { return nil }
        return { outcome($0) != .never }
    }

    /// Every one of these may keep a frame of the kind (nil: none of them can tell).
    static func all(_ foresights: [((FrameKind) -> Bool)?]) -> ((FrameKind) -> Bool)? {
        let each = foresights.compactMap { $0 }
        switch each.count {
        case 0: return nil
        case 1: return each[0]
        default: return { kind in each.allSatisfy { $0(kind) } }
        }
    }

    /// nil: unknown for every kind.
    private static func outcome(_ syntax: FilterExpression, _ protocols: [Range<Int>: String]) -> ((FrameKind) -> Outcome)? {
        switch syntax {
        case .and(let a, let b):
            return combine(outcome(a, protocols), outcome(b, protocols), &&)
        case .or(let a, let b):
            return combine(outcome(a, protocols), outcome(b, protocols), ||)
        case .not(let a):
            guard let p = outcome(a, protocols) else { return nil }
            return { !p($0) }
        case .test(let test):
            guard let name = protocols[test.span], let family = ProtocolPlacement.family(name) else { return nil }
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
}
