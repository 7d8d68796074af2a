import ArgumentParser
import BTCapture
import BTDecode
import BTQuery
import BTRender
import Foundation

struct Annotate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Comment and flag packets, in a notes file beside the capture.",
        discussion: """
        The notes are kept in FILE.btlog-notes.json (or --notes PATH), keyed by packet number and \
        checked against each packet's time and bytes, so notes on another capture of the same name \
        are reported, never shown on the wrong packet. show and grep print them (a flag column and \
        a Comment line under the packet); filters test them (flagged, comment contains "...").
        """
    )

    @Argument(help: ArgumentHelp("The capture the notes are about.", valueName: "FILE"))
    var file: String

    @Option(help: ArgumentHelp("The packet to annotate, by its number.", valueName: "N"))
    var packet: Int?

    @Option(help: ArgumentHelp("Set the packet's comment (an empty one removes it).", valueName: "TEXT"))
    var comment: String?

    @Flag(help: "Flag the packet.")
    var flag = false

    @Flag(help: "Remove the packet's flag.")
    var unflag = false

    @Flag(help: "Remove the packet's comment and flag.")
    var clear = false

    @Flag(help: "Print every annotated packet with its comment (the table's row, flag column and Comment line).")
    var list = false

    @OptionGroup(title: "Notes") var notes: NotesOptionGroup
    @OptionGroup(title: "Input") var input: InputOptionGroup
    @OptionGroup(title: "Decoding") var decoding: DecodeOptionGroup

    func validate() throws {
        try input.refuseMerge("annotate", because: "notes belong to one capture file")
        if file == "-" { throw ValidationError("annotate needs a capture file (notes are kept beside it), not standard input") }
        if list {
            if packet != nil || comment != nil || flag || unflag || clear {
                throw ValidationError("--list prints the notes; give it alone, without --packet or a change")
            }
            return
        }
        guard let packet else { throw ValidationError("give --packet N and a change (--comment, --flag, --unflag, --clear), or --list") }
        if packet < 1 { throw ValidationError("--packet takes a packet number, 1 or more") }
        if flag && unflag { throw ValidationError("--flag and --unflag contradict each other; give one") }
        if clear && (comment != nil || flag || unflag) { throw ValidationError("--clear removes the comment and the flag; give it alone") }
        if comment == nil && !flag && !unflag && !clear { throw ValidationError("give a change: --comment TEXT, --flag, --unflag or --clear") }
    }

    func run() throws {
        let path = NotesStore.path(forCapture: file, notes: notes.notes)
        do {
            if list { return try listNotes(path) }
            try change(path, packet: packet!)
        } catch let failure as NotesStore.Failure {
            StandardError.error(failure.description)
            throw ExitCode(1)
        } catch let error as CaptureError {
            StandardError.error(error.message)
            throw ExitCode(1)
        }
    }

    private func change(_ path: String, packet: Int) throws {
        // The packet's fingerprint, and those of the packets already annotated (checked below).
        let known = (try? NotesStore.read(path))??.notes.keys.map { $0 } ?? []
        let prints = try Self.fingerprints(of: Set(known + [packet]), in: file, options: input.inputOptions)
        guard let target = prints.found[packet] else {
            throw NotesStore.Failure(description: "\(file) has \(prints.count) packet\(prints.count == 1 ? "" : "s"); there is no packet \(packet)")
        }
        try NotesStore.update(path, capture: file) { document in
            if let foreign = document.foreignNote(path: path, fingerprint: { prints.found[$0] }) {
                throw NotesStore.Failure(description: foreign)
            }
            var note = document.notes[packet] ?? PacketNote(packet: packet, fingerprint: target)
            if clear { note.comment = nil; note.flagged = false }
            if let comment { note.comment = comment.isEmpty ? nil : comment }
            if flag { note.flagged = true }
            if unflag { note.flagged = false }
            document.notes[packet] = note.isEmpty ? nil : note
        }
    }

    /// Reads the capture (no decoding) for the fingerprints of the given packet numbers.
    static func fingerprints(of numbers: Set<Int>, in file: String, options: InputOptions) throws -> (found: [Int: PacketFingerprint], count: Int) {
        let reader = try CaptureInput.open(file, options: options)
        let last = numbers.max() ?? 0
        var found: [Int: PacketFingerprint] = [:], count = 0
        while let frame = try reader.next() {
            count += 1
            if numbers.contains(frame.number) { found[frame.number] = PacketFingerprint(frame) }
            if frame.number >= last { break }
        }
        return (found, count)
    }

    private func listNotes(_ path: String) throws {
        guard let document = try NotesStore.read(path), !document.notes.isEmpty else {
            StandardError.error("\(file) has no notes (\(path))")
            throw ExitCode(1)
        }
        let out = OutputWriter()
        var options = RenderOptions()
        options.flagColumn = NotesOptionGroup.flagMark
        let reader = try CaptureInput.open(file, options: input.inputOptions)
        let wanted = Set(document.notes.keys)
        let stages: [any PacketStage] = [NotesOptionGroup.stage(document, path: path),
                                         FilterStage(try PacketFilter("number in {\(wanted.sorted().map(String.init).joined(separator: " "))}"))]
        var pipeline = PacketPipeline(decoder: try decoding.prepare().make(buildsDisplayText: false), stages: stages) {
            StandardError.warning($0.message)
        }
        var sink = RenderingSink(RenderMode.table.makeRenderer(options), out: out)
        do {
            try pipeline.run(reader, into: &sink)
            try out.flush()
        } catch is OutputWriter.OutputClosed {}
        if pipeline.statistics.packets < wanted.count {
            StandardError.warning("\(path): \(wanted.count - pipeline.statistics.packets) note(s) on packets past the end of \(file)")
        }
    }
}

/// `--notes PATH`, and how show, grep and annotate attach a capture's notes.
struct NotesOptionGroup: ParsableArguments {
    @Option(help: ArgumentHelp("The notes file (default: FILE.btlog-notes.json beside the capture).", valueName: "PATH"))
    var notes: String?

    /// ⚑ where the locale's encoding is UTF-8, F elsewhere.
    static var flagMark: String { localeIsUTF8 ? "⚑" : "F" }

    /// Whether the locale's encoding is UTF-8 (LC_ALL, else LC_CTYPE, else LANG): what marks
    /// beyond ASCII need.
    static var localeIsUTF8: Bool {
        let environment = ProcessInfo.processInfo.environment
        let locale = environment["LC_ALL"].flatMap { $0.isEmpty ? nil : $0 } ?? environment["LC_CTYPE"].flatMap { $0.isEmpty ? nil : $0 }
            ?? environment["LANG"] ?? ""
        let lower = locale.lowercased()
        return lower.contains("utf-8") || lower.contains("utf8")
    }

    /// The annotation stage for a capture's notes, if it has any; a notes file that cannot be
    /// read is reported and the capture shown without notes.
    func stage(for file: String) -> (any PacketStage)? {
        guard file != "-" || notes != nil else { return nil }
        let path = NotesStore.path(forCapture: file, notes: notes)
        do {
            guard let document = try NotesStore.read(path) else { return nil }
            return Self.stage(document, path: path)
        } catch let failure as NotesStore.Failure {
            StandardError.warning("\(failure.description); showing the capture without notes")
        } catch {
            StandardError.warning("\(path): \(error)")
        }
        return nil
    }

    /// Reports (up to ten) notes whose packet is not the one they were written for.
    static func stage(_ document: NotesDocument, path: String) -> AnnotationStage {
        var reported = 0
        return AnnotationStage(document) { note, actual in
            reported += 1
            if reported <= 10 {
                StandardError.warning("\(path): the note on packet \(note.packet) was written for a packet with \(note.fingerprint), this one has \(actual): not shown")
            } else if reported == 11 {
                StandardError.warning("\(path): more notes do not match their packets; is it another capture's notes file?")
            }
        }
    }
}
