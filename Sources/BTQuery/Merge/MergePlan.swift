import BTCapture

/// One capture to merge: its name in the timeline and how to open it (it is read twice: once
/// for its PDUs, to align its clock, then for the merge).
public struct MergeInput {
    public var name: String
    public var open: () throws -> FrameReader

    public init(name: String, open: @escaping () throws -> FrameReader) {
        self.name = name
        self.open = open
    }

    /// Names for the timeline: each file's own name, or the path given where two share one.
    public static func names(for paths: [String]) -> [String] {
        let bases = paths.map { path -> String in
            let base = path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? path
            return base.isEmpty ? path : base
        }
        let counts = Dictionary(bases.map { ($0, 1) }, uniquingKeysWith: +)
        var names = paths.indices.map { counts[bases[$0]]! > 1 ? paths[$0] : bases[$0] }
        var seen: [String: Int] = [:]
        for index in names.indices {
            seen[names[index], default: 0] += 1
            if seen[names[index]]! > 1 { names[index] += " (\(seen[names[index]]!))" }
        }
        return names
    }
}

/// How a source's clock was put on the reference's.
public struct SourceAlignment {
    public enum Basis: Equatable {
        /// The first source: the others are put on its clock.
        case reference
        /// From the PDUs both captures show.
        case matched
        /// Given with --offset.
        case manual
        /// Nothing matched: its own timestamps, as they are.
        case timestamps
    }

    public var name: String
    public var basis: Basis
    public var fit: ClockFit?
    public var reference: String
    /// Long-term keys the source's host gave its controller: the merge decrypts every air
    /// source's PDUs with them.
    public var revealedKeys: [[UInt8]] = []
    /// Identity resolving keys the source's SMP distributed: the merge's decoder knows them
    /// from the first packet.
    public var identityKeys = KeysAhead()

    /// "board.btsnoop: +3,612.402 s, +21 ppm from phone.cfa, 148 matched PDUs, residual
    /// 0.3 ms (p99 1.1 ms)", or what was done instead.
    public var summary: String {
        switch basis {
        case .reference:
            return "\(name): the reference clock"
        case .manual:
            let fit = fit ?? .manual(offset: 0, drift: 0)
            return "\(name): \(Self.seconds(fit.offset)), \(Self.ppm(fit.drift)) from \(reference), as --offset gives"
        case .timestamps:
            return "\(name): no PDU matched \(reference)'s; its own timestamps are used, which may be off by any amount: give --offset \(name)=SECONDS if you know its clock"
        case .matched:
            guard let fit else { return "\(name): matched" }
            let pdus = fit.matched - fit.events
            var text = "\(name): \(Self.seconds(fit.offset)), \(Self.ppm(fit.drift)) from \(reference), \(pdus) matched PDU\(pdus == 1 ? "" : "s")"
            if fit.events > 0 { text += " and \(fit.events) link event\(fit.events == 1 ? "" : "s")" }
            if fit.sampleOneIn > 1 { text += " of a sample of 1 in \(fit.sampleOneIn)" }
            if fit.outliers > 0 { text += " (\(fit.outliers) set aside)" }
            text += ", residual \(Self.milliseconds(fit.residual)) (p99 \(Self.milliseconds(fit.residualP99)))"
            if fit.latency == nil { text += "; matched one way only, so the offset includes the one-way latency" }
            return text
        }
    }

    /// The links both captures carried, one line each.
    public var linkLines: [String] {
        guard basis == .matched, let fit else { return [] }
        return fit.links.prefix(8).map { link in
            "  \(reference) \(Self.linkName(link.reference, link.referenceAccessAddress)) = \(name) \(Self.linkName(link.other, link.otherAccessAddress)): \(link.pdus) PDU\(link.pdus == 1 ? "" : "s")" + (link.events > 0 ? ", \(link.events) link event\(link.events == 1 ? "" : "s")" : "")
        }
    }

    /// "hci0 handle 0x0040", or for the air "access address 0xAF9A9B5E".
    static func linkName(_ link: (controller: UInt16, handle: UInt16), _ accessAddress: UInt32?) -> String {
        if let accessAddress { return "access address \(Hex.format(accessAddress, width: 8))" }
        return "hci\(link.controller) handle \(Hex.u16(link.handle))"
    }

    /// "+3,612.402 s"
    static func seconds(_ micros: Double) -> String {
        let millis = (micros / 1000).rounded()
        guard millis.isFinite, abs(millis) < 9e15 else { return "\(micros) µs" }
        let whole = Int64(abs(millis))
        let seconds = whole / 1000, fraction = whole % 1000
        var grouped = String(seconds)
        var index = grouped.count - 3
        while index > 0 {
            grouped.insert(",", at: grouped.index(grouped.startIndex, offsetBy: index))
            index -= 3
        }
        let fractionText = String(fraction)
        return (millis < 0 ? "-" : "+") + grouped + "." + String(repeating: "0", count: 3 - fractionText.count) + fractionText + " s"
    }

    static func ppm(_ value: Double) -> String {
        let rounded = value.rounded()
        return (rounded < 0 ? "-" : "+") + String(Int64(abs(rounded).isFinite ? min(abs(rounded), 1e12) : 0)) + " ppm"
    }

    /// "0.3 ms", "12 ms"
    static func milliseconds(_ micros: Double) -> String {
        let value = micros / 1000
        guard value.isFinite else { return "-" }
        if value >= 10 { return "\(Int64(value.rounded())) ms" }
        let tenths = Int64((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) ms"
    }
}

/// Puts several captures on one clock: the first is the reference; each other is aligned to
/// it from the PDUs both show (`ClockAligner`), or by the offset given by hand, or, when
/// nothing matches, left on its own timestamps with a warning.
public enum MergePlan {
    /// Reads each input once for its PDUs and keys (an air capture twice, when a host's log
    /// gave up the key to an encrypted link). `manual`: fits given by hand, by input position.
    public static func align(_ inputs: [MergeInput], manual: [Int: ClockFit] = [:],
                             anchorLimit: Int = MergeAnchors.defaultLimit) throws -> [SourceAlignment] {
        guard let reference = inputs.first else { return [] }
        // Every capture is read, also one whose clock is given by hand: its keys serve the
        // others. As many at once as there are CPUs; then each air capture again if a host's
        // log gave up long-term keys (the first reading had none).
        let toRead = Array(inputs.indices)
        var anchors = try readAnchors(toRead.map { (inputs[$0], [[UInt8]]()) }, limit: anchorLimit, count: inputs.count, at: toRead)
        var keys: [[UInt8]] = []
        for index in toRead {
            for key in anchors[index]?.revealedKeys ?? [] where !keys.contains(key) { keys.append(key) }
        }
        if !keys.isEmpty {
            let air = toRead.filter { anchors[$0]?.hasAir == true }
            let again = try readAnchors(air.map { (inputs[$0], keys) }, limit: anchorLimit, count: inputs.count, at: air)
            for index in air { anchors[index] = again[index] }
        }
        var alignments = [SourceAlignment(name: reference.name, basis: .reference, fit: nil, reference: reference.name)]
        for index in inputs.indices.dropFirst() {
            let input = inputs[index]
            if let fit = manual[index] {
                alignments.append(SourceAlignment(name: input.name, basis: .manual, fit: fit, reference: reference.name))
            } else if let referenceAnchors = anchors[0], let own = anchors[index],
                      let fit = ClockAligner.fit(reference: referenceAnchors, other: own) {
                alignments.append(SourceAlignment(name: input.name, basis: .matched, fit: fit, reference: reference.name))
            } else {
                alignments.append(SourceAlignment(name: input.name, basis: .timestamps, fit: nil, reference: reference.name))
            }
        }
        for index in alignments.indices {
            alignments[index].revealedKeys = anchors[index]?.revealedKeys ?? []
            alignments[index].identityKeys = anchors[index]?.identityKeys ?? KeysAhead()
        }
        return alignments
    }

    /// Each input's anchors, read on as many threads as there are CPUs, put at `positions`
    /// of an array of `count`; the first failure in input order is thrown.
    private static func readAnchors(_ reads: [(input: MergeInput, keys: [[UInt8]])], limit: Int, count: Int,
                                    at positions: [Int]) throws -> [MergeAnchors?] {
        let results = ParallelMap.run(count: reads.count, threads: SinkThreading.inputsAtOnce) { index in
            try MergeAnchors.read(reads[index].input.open(), limit: limit, keys: reads[index].keys)
        }
        var anchors = [MergeAnchors?](repeating: nil, count: count)
        for (index, position) in positions.enumerated() { anchors[position] = try results[index].get() }
        return anchors
    }

    /// The merged timeline: every input opened again, on the clocks `alignments` found.
    public static func reader(_ inputs: [MergeInput], _ alignments: [SourceAlignment]) throws -> MergedFrameReader {
        var sources: [MergedFrameReader.Source] = []
        var keys: [[UInt8]] = [], identityKeys = KeysAhead()
        for (input, alignment) in zip(inputs, alignments) {
            sources.append(MergedFrameReader.Source(name: input.name, reader: try input.open(), fit: alignment.fit))
            for key in alignment.revealedKeys where !keys.contains(key) { keys.append(key) }
            identityKeys.add(alignment.identityKeys)
        }
        return MergedFrameReader(sources: sources, keys: keys, keysAhead: identityKeys)
    }
}
