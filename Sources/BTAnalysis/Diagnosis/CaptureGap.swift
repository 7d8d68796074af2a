import BTCapture
import BTDecode
import BTQuery

/// What the capture itself lacks, as opposed to what the devices did: packets a sniffer
/// missed, answers that went by unheard, links whose keys or set-up are not in it, records cut
/// short. `btlog diagnose` lists these apart from problems ("capture completeness"), so that a
/// gap in the recording is never read as a failure of the devices.
public struct CaptureGap: Equatable {
    public enum Kind: String, CaseIterable, Sendable {
        /// Packets of an air link the sniffer did not take (sequence numbers, packet counters).
        case snifferMissed = "sniffer_missed"
        /// A request whose answer may be among what the sniffer missed.
        case answerNotCaptured = "answer_not_captured"
        /// Encrypted packets no key btlog has opens (the pairing not captured, LE Secure Connections).
        case noKey = "no_key"
        /// Encrypted packets that did not authenticate on a link whose key opened the others,
        /// and the link went on: the sniffer's copies, not the devices'.
        case notAuthenticated = "not_authenticated"
        /// Many of an air link's packets reached the sniffer damaged (bad CRC).
        case damagedAtSniffer = "damaged_at_sniffer"
        /// Records cut short by the capture (a snap length, a filtered snoop log).
        case truncatedRecords = "truncated_records"
        /// Records the capture tool reported dropped.
        case droppedRecords = "dropped_records"
        /// Links that were up before the capture began: their set-up is not in it.
        case setupNotCaptured = "setup_not_captured"
    }

    public var kind: Kind
    public var summary: String
    public var advice: String
    public var count: Int
    /// The packets that show it (the first 20).
    public var frames: [Int]
    public var handle: UInt16?
    public var address: BDAddr?

    public init(_ kind: Kind, _ summary: String, advice: String, frames: [Int], count: Int? = nil, handle: UInt16? = nil, address: BDAddr? = nil) {
        self.kind = kind
        self.summary = summary
        self.advice = advice
        self.frames = Array(frames.prefix(20))
        self.count = count ?? frames.count
        self.handle = handle
        self.address = address
    }
}

extension Diagnosis {
    /// What the capture lacks, in the order it first shows.
    public static func completeness(in report: CaptureReport) -> [CaptureGap] {
        var found: [CaptureGap] = []
        found += records(report)
        found += links(report)
        found += answersNotCaptured(report)
        return found.sorted { ($0.frames.first ?? 0) < ($1.frames.first ?? 0) }
    }

    static func plural(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }

    /// Records the capture cut short or dropped.
    static func records(_ report: CaptureReport) -> [CaptureGap] {
        var found: [CaptureGap] = []
        let totals = report.totals
        if totals.truncated > 0 {
            found.append(CaptureGap(.truncatedRecords, "\(plural(totals.truncated, "record")) cut short by the capture (\(plural(totals.truncatedBytes, "byte")) not recorded)",
                                    advice: "the capture kept only the start of these packets: a snap length, or an Android snoop log in filtered mode (persist.bluetooth.btsnooplogmode=filtered keeps headers, not payloads); decoding stops where the bytes do: capture in full mode for payloads",
                                    frames: totals.truncatedFrames, count: totals.truncated))
        }
        if totals.drops > 0 {
            found.append(CaptureGap(.droppedRecords, "The capture tool reported \(plural(Int(totals.drops), "record")) dropped",
                                    advice: "the recorder could not keep up (a full buffer): packets are missing between those shown; capture to a faster disk or with less else running",
                                    frames: [], count: Int(totals.drops)))
        }
        return found
    }

    /// Per link: set-up not captured; from the air, packets missed and encryption without a key.
    static func links(_ report: CaptureReport) -> [CaptureGap] {
        var found: [CaptureGap] = []
        // Links that carried data with no set-up before it; a handle named only by an event (a
        // broadcast isochronous stream's Disconnection Complete) is not one.
        let joined = report.connections.filter { $0.startFrame == nil && ($0.packetsSent + $0.packetsReceived > 0 || ($0.air?.dataPDUs ?? 0) > 0) }
        if !joined.isEmpty {
            let handles = joined.prefix(8).map { Hex.u16($0.handle) }.joined(separator: ", ") + (joined.count > 8 ? ", ..." : "")
            found.append(CaptureGap(.setupNotCaptured, "\(plural(joined.count, "link")) whose set-up is not in the capture (\(handles)): \(joined.count == 1 ? "its" : "their") data comes without the connection's start",
                                    advice: "what the set-up said is unknown here: the peer's address, role and parameters, and which protocol each L2CAP channel opened before the capture carries (shown as L2CAP bytes); start the capture before connecting, or turn the snoop log on before Bluetooth",
                                    frames: joined.compactMap(\.firstFrame), count: joined.count))
        }
        for c in report.connections {
            guard let q = c.air else { continue }
            let place = on(c.handle, c.address)
            // The sniffer's reception: the devices' own losses show as retransmissions.
            if often(q.badCRC, of: q.dataPDUs), let first = q.firstBadCRC {
                found.append(CaptureGap(.damagedAtSniffer, "\(q.badCRC) of \(q.dataPDUs) data PDUs reached the sniffer damaged (bad CRC, \(percent(q.badCRC, of: q.dataPDUs)))\(place)",
                                        advice: "the sniffer's reception, not the link's: those the devices lost too they send again (retransmissions); move the sniffer nearer to both devices, away from Wi-Fi antennas",
                                        frames: [first], count: q.badCRC, handle: c.handle, address: c.address))
            }
            if q.missed > 0 {
                found.append(CaptureGap(.snifferMissed, "The sniffer missed at least \(plural(q.missed, "packet")) of the link\(place)",
                                        advice: "the devices acknowledged packets the sniffer never took (sequence numbers and packet counters show where): requests may seem unanswered and reassembly incomplete; move the sniffer nearer to both devices",
                                        frames: q.missedFrames, count: q.missed, handle: c.handle, address: c.address))
            }
            if q.micFailures > 0, c.disconnectReason != 0x3D {
                found.append(CaptureGap(.notAuthenticated, "\(plural(q.micFailures, "encrypted packet")) did not authenticate, though the link's key opened the others, and the link went on\(place)",
                                        advice: "the sniffer's copies, not the devices' failure (those end the link with reason 0x3D, MIC Failure): a copy damaged past its CRC, or a packet counter thrown off by packets the sniffer missed",
                                        frames: q.micFailureFrames, count: q.micFailures, handle: c.handle, address: c.address))
            }
            if q.undecrypted > 0, let first = q.firstUndecrypted {
                let why = q.secureConnections ? "encrypted, no key (paired with LE Secure Connections, whose key cannot be recovered from the air)"
                    : "encrypted, no key"
                found.append(CaptureGap(.noKey, "\(plural(q.undecrypted, "packet")) \(why)\(place)",
                                        advice: q.secureConnections
                                            ? "give the link's LTK with --ltk or the keys file (--keys): from the device's bond store (Linux: /var/lib/bluetooth/<adapter>/<device>/info, [LongTermKey]) or an HCI log of either side (LE Long Term Key Request Reply)"
                                            : "give the link's LTK with --ltk or the keys file (--keys), or capture the pairing (LE legacy pairing, Just Works or passkey, btlog recovers from the air; LE Secure Connections it cannot); a capture that starts after LL_ENC_REQ lacks the session's diversifiers: start sniffing before the connection",
                                        frames: [first], count: q.undecrypted, handle: c.handle, address: c.address))
            }
        }
        return found
    }

    /// Requests whose answer the sniffer may have missed.
    static func answersNotCaptured(_ report: CaptureReport) -> [CaptureGap] {
        var byOpcode: [UInt8: CaptureGap] = [:]
        var order: [UInt8] = []
        for u in report.att.unanswered where u.end == .notCaptured {
            if byOpcode[u.opcode] == nil {
                order.append(u.opcode)
                byOpcode[u.opcode] = CaptureGap(.answerNotCaptured, "\(attOpcode(u.opcode)): its answer not in the sniffer's capture (it missed or took damaged packets of the link after it)",
                                                advice: "the request was likely answered in a packet the sniffer did not take intact (the next request followed as usual): a gap in the capture, not a server that failed to answer",
                                                frames: [], count: 0)
            }
            byOpcode[u.opcode]!.count += 1
            if byOpcode[u.opcode]!.frames.count < 20 { byOpcode[u.opcode]!.frames.append(u.frame) }
        }
        return order.map { opcode in
            var gap = byOpcode[opcode]!
            if gap.count > 1 { gap.summary += " × \(gap.count)" }
            return gap
        }
    }
}
