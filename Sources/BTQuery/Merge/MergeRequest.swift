import BTCapture

/// Several captures to read as one timeline, as the command line asks for it (`btlog merge`,
/// `--merge`): the files, and the clocks given by hand.
public struct MergeRequest {
    public var files: [String]
    public var input: InputOptions
    /// Fits given with --offset, by file position.
    public var manual: [Int: ClockFit] = [:]

    public init(files: [String], input: InputOptions) {
        self.files = files
        self.input = input
    }

    /// The sources' names, in file order.
    public var names: [String] { MergeInput.names(for: files) }

    /// What the timeline is called where a file name would be ("phone.btsnoop + board.btsnoop").
    public var label: String { names.joined(separator: " + ") }

    /// Gives a source's clock by hand: "FILE=SECONDS[,PPMppm]", FILE a path given, its name,
    /// or its position from 1. Nil with the reason when the text is not that.
    public mutating func addOffset(_ text: String) -> String? {
        guard let equals = text.lastIndex(of: "=") else { return "--offset takes FILE=SECONDS[,PPMppm], e.g. board.btsnoop=+3612.402,+21ppm, not '\(text)'" }
        let key = String(text[..<equals]), value = text[text.index(after: equals)...]
        let names = self.names
        guard let index = files.indices.first(where: { files[$0] == key || names[$0] == key }) ?? Int(key).map({ $0 - 1 }),
              files.indices.contains(index) else {
            return "--offset names a capture that is not merged: '\(key)' (give a file as on the command line, its name, or its position from 1)"
        }
        guard index > 0 else { return "--offset gives a clock against the first capture's, which is the reference: give one of the others" }
        let parts = value.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count <= 2, let seconds = Double(parts[0].replacingOccurrences(of: "_", with: "")), seconds.isFinite, abs(seconds) < 1e9 else {
            return "--offset takes seconds, e.g. +3612.402, not '\(value)'"
        }
        var drift = 0.0
        if parts.count == 2 {
            var ppm = parts[1].lowercased()
            if ppm.hasSuffix("ppm") { ppm.removeLast(3) }
            guard let parsed = Double(ppm), parsed.isFinite, abs(parsed) < 1_000 else {
                return "--offset takes the drift in parts per million, e.g. +21ppm, not '\(parts[1])'"
            }
            drift = parsed
        }
        manual[index] = .manual(offset: seconds * 1_000_000, drift: drift)
        return nil
    }

    /// The checks of the files alone.
    public static func problem(with files: [String]) -> String? {
        if files.count < 2 { return "a merge reads two captures or more" }
        if files.contains("-") { return "a merge reads each capture twice (to align the clocks, then to merge): standard input cannot be merged" }
        return nil
    }

    /// Aligns the clocks (reading every file once), then opens the merged timeline. `report`
    /// hears each source's alignment, in file order; a source that matched nothing is a warning.
    public func open(report: (SourceAlignment) -> Void) throws -> MergedFrameReader {
        let inputs = zip(files, names).map { file, name in
            MergeInput(name: name) { [input] in try CaptureInput.open(file, options: input) }
        }
        let alignments = try MergePlan.align(inputs, manual: manual)
        for alignment in alignments { report(alignment) }
        return try MergePlan.reader(inputs, alignments)
    }
}
