import ArgumentParser
import BTCapture
import BTDecode
import BTQuery
import BTRender

struct Grep: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the packets whose text matches a regular expression, as grep prints lines.",
        discussion: """
        The text searched is what show prints for the packet: its one-line row, every line of its \
        tree with -V, the hex dump too with -x, its columns with --fields. A packet matches when \
        any of its lines does. The filters (-f, --type...) apply first. Exit status: 0 when a \
        packet was selected, 1 when none was, 2 on an error, as grep's; with -q, 0 as soon as a \
        packet is selected, even if a later file is missing.
        """,
        // -h is grep's --no-filename; help stays at --help.
        helpNames: [.long]
    )

    @Argument(help: ArgumentHelp("A regular expression (PCRE2, as grep -P; (?i) ignores case), or a fixed string with -F.", valueName: "PATTERN"))
    var pattern: String

    @Argument(help: ArgumentHelp("Capture files to read ('-' for standard input).", valueName: "FILE"))
    var files: [String]

    @Flag(name: [.customShort("F"), .customLong("fixed-strings")], help: "PATTERN is a plain string, not a regular expression.")
    var fixedStrings = false

    @Flag(name: [.customShort("i"), .customLong("ignore-case")], help: "Ignore case in the pattern and the text.")
    var ignoreCase = false

    @Flag(name: [.customShort("v"), .customLong("invert-match")], help: "Select the packets that do not match.")
    var invertMatch = false

    @Flag(name: [.customShort("c"), .customLong("count")], help: "Print only the number of selected packets (per file).")
    var countOnly = false

    @Flag(name: [.customShort("l"), .customLong("files-with-matches")], help: "Print only the names of files with a selected packet.")
    var filesWithMatches = false

    @Flag(name: [.customShort("q"), .customLong("quiet"), .customLong("silent")],
          help: "Print nothing; exit 0 at the first selected packet, 1 when none is (as in 'if btlog grep -q ...').")
    var quiet = false

    @Flag(name: [.customShort("s"), .customLong("no-messages")], help: "Do not report files that cannot be read or are not captures (the exit status still says 2).")
    var noMessages = false

    @Flag(name: [.customShort("H"), .customLong("with-filename")], help: "Prefix each line with the file name, even for one file.")
    var withFilename = false

    @Flag(name: [.customShort("h"), .customLong("no-filename")], help: "Never prefix lines with the file name, even for several files.")
    var noFilename = false

    @Option(name: [.customShort("A"), .customLong("after-context")], help: ArgumentHelp("Also print N packets after each selected one.", valueName: "N"))
    var afterContext: Int?

    @Option(name: [.customShort("B"), .customLong("before-context")], help: ArgumentHelp("Also print N packets before each selected one.", valueName: "N"))
    var beforeContext: Int?

    @Option(name: [.customShort("C"), .customLong("context")], help: ArgumentHelp("Also print N packets before and after each selected one.", valueName: "N"))
    var context: Int?

    @Option(name: [.customShort("m"), .customLong("max-count")], help: ArgumentHelp("Stop reading a file after N selected packets.", valueName: "N"))
    var maxCount: Int?

    @OptionGroup(title: "Input") var input: InputOptionGroup
    @OptionGroup(title: "Notes") var notes: NotesOptionGroup
    @OptionGroup(title: "Selection") var selection: SelectionOptionGroup
    @OptionGroup(title: "Display") var display: DisplayOptionGroup
    @OptionGroup(title: "Decoding") var decoding: DecodeOptionGroup

    func validate() throws {
        if files.isEmpty { throw ValidationError("give a capture file to search (or '-' for standard input)") }
        if files.filter({ $0 == "-" }).count > 1 { throw ValidationError("standard input ('-') can be read only once") }
        for (name, value) in [("-A", afterContext), ("-B", beforeContext), ("-C", context)] where (value ?? 0) < 0 {
            throw ValidationError("\(name) takes a number of packets, 0 or more")
        }
        if let maxCount, maxCount < 1 { throw ValidationError("-m takes a number of packets, 1 or more") }
        if notes.notes != nil && files.count != 1 { throw ValidationError("--notes names the notes of one capture; give one file") }
        if display.collapse { throw ValidationError("--collapse folds show's table; grep prints each selected packet") }
        if countOnly && filesWithMatches { throw ValidationError("-c and -l choose different outputs; give one") }
        if quiet && (countOnly || filesWithMatches) { throw ValidationError("-q prints nothing; -c and -l choose an output: give one") }
        if withFilename && noFilename { throw ValidationError("-H and -h contradict each other; give one") }
    }

    /// What every file's search shares.
    struct Setup {
        let pattern: TextPattern
        let options: RenderOptions
        let highlight: Bool
        let decoders: DecoderFactory
        let output: SearchingSink.Output
    }

    func run() throws {
        let compiled = try SearchPattern.compile(pattern, ignoringCase: ignoreCase, fixed: fixedStrings, option: "grep")
        _ = try selection.stages() // a bad filter is reported before any output
        let out = OutputWriter()
        var options = display.renderOptions(for: out)
        let highlight = options.style.enabled
        // The text searched carries no colour; only the matches are coloured, as grep does.
        options.style = Style(enabled: false)
        options.width = nil
        let setup = Setup(pattern: compiled, options: options, highlight: highlight, decoders: try decoding.prepare(),
                          output: quiet ? .quiet : countOnly ? .count : filesWithMatches ? .fileName : .packets)
        var anySelected = false, failed = false, printedBefore = false
        if let width = concurrentInputs {
            (anySelected, failed) = try runConcurrently(setup, out: out, width: width)
        } else {
            for source in try input.sources(files) {
                let file = source.label
                do {
                    let reader = try source.open(false)
                    if source.isStandardInput { out.lineBuffered = true }
                    let sink = try search(file, reader, setup, out: out, printedBefore: printedBefore) { warning in
                        if !noMessages { StandardError.warning(warning.message) }
                    }
                    if sink.selected > 0 { anySelected = true }
                    if sink.printedAny { printedBefore = true }
                    // grep -q: the answer is known; the other files are not read.
                    if quiet && anySelected { break }
                } catch is OutputWriter.OutputClosed {
                    throw ExitCode(anySelected ? 0 : 1)
                } catch let error as CaptureError {
                    try? out.flush()
                    if !noMessages { StandardError.error(error.message) }
                    failed = true
                }
            }
        }
        do { try out.flush() } catch is OutputWriter.OutputClosed {}
        // grep's rule: an error wins over a match, except for -q, whose match is the answer.
        if quiet && anySelected { return }
        if failed { throw ExitCode(2) }
        if !anySelected { throw ExitCode(1) }
    }

    /// One file through its decoder and stages into a searching sink, its count or name written.
    func search(_ file: String, _ reader: FrameReader, _ setup: Setup, out: OutputWriter, printedBefore: Bool, oneThread: Bool = false,
                warn: @escaping (CaptureWarning) -> Void) throws -> SearchingSink {
        var stages = try selection.stages()
        var fileOptions = setup.options
        if let annotations = notes.stage(for: file) {
            stages.insert(annotations, at: 0)
            fileOptions.flagColumn = NotesOptionGroup.flagMark
        }
        let mode = display.mode
        // The search reads the text the view prints: the view's fields are all it needs.
        var pipeline = PacketPipeline(decoder: setup.decoders.make(buildsDisplayText: mode.showsFieldText, keptFields: stages.fieldsToKeep(viewReads: mode.fieldsRead)),
                                      stages: stages, onWarning: warn)
        pipeline.live = out.lineBuffered
        pipeline.oneThread = oneThread
        var sink = SearchingSink(
            renderer: mode.makeRenderer(fileOptions),
            search: TextSearch(pattern: setup.pattern, invert: invertMatch),
            context: SearchContext(before: beforeContext ?? context ?? 0, after: afterContext ?? context ?? 0,
                                   printedBefore: printedBefore),
            output: setup.output, out: out, fileLabel: labelsLines ? file : nil, limit: maxCount, highlight: setup.highlight)
        try pipeline.run(reader, into: &sink)
        try sink.finish(file: file)
        return sink
    }

    /// Whether printed lines (and -c's counts) carry their file's name: with several files, as
    /// grep does, unless -h; always with -H.
    var labelsLines: Bool { withFilename || (files.count > 1 && !noFilename) }

    /// Files searched at once: -c and -l print a line per file that does not depend on the
    /// others (context separators and match lines do, so those read one file at a time).
    var concurrentInputs: Int? {
        guard files.count > 1, !input.merge, countOnly || filesWithMatches, !files.contains("-"), SinkThreading.inputsAtOnce > 1,
              InputJobs.canSpool else { return nil }
        return SinkThreading.inputsAtOnce
    }

    /// Each file on a thread of its own (InputJobs), the lines printed in file order.
    func runConcurrently(_ setup: Setup, out: OutputWriter, width: Int) throws -> (anySelected: Bool, failed: Bool) {
        var anySelected = false, failed = false
        let options = input.inputOptions
        do {
            try InputJobs.run(count: files.count, width: width, job: { index, spool in
                let file = files[index]
                let reader = try CaptureInput.open(file, options: options)
                let spoolOut = OutputWriter(fd: spool.descriptor)
                defer { try? spoolOut.flush() }
                let sink = try search(file, reader, setup, out: spoolOut, printedBefore: false, oneThread: true) { warning in
                    if !noMessages { spool.warnings.append(warning.message) }
                }
                try spoolOut.flush()
                return sink.selected
            }, emit: { _, spool, outcome in
                guard let selected = try InputJobs.emit(spool, outcome, to: out, warning: { StandardError.warning($0) },
                                                        failed: { if !noMessages { StandardError.error($0.message) } }) else { return failed = true }
                if selected > 0 { anySelected = true }
            })
        } catch is OutputWriter.OutputClosed {
            throw ExitCode(anySelected ? 0 : 1)
        } catch let error as CaptureError {
            // A temporary file that failed: the run cannot go on (grep's error status).
            try? out.flush()
            StandardError.error(error.message)
            throw ExitCode(2)
        }
        return (anySelected, failed)
    }
}

/// A search pattern from the command line, or a usage error pointing into it.
enum SearchPattern {
    static func compile(_ pattern: String, ignoringCase: Bool, fixed: Bool, option: String) throws -> TextPattern {
        do {
            return try TextPattern(pattern, ignoringCase: ignoringCase, fixed: fixed)
        } catch let error as TextPattern.CompileError {
            let column = String(decoding: pattern.utf8.prefix(error.offset), as: UTF8.self).unicodeScalars.count
            let span = min(column, max(0, pattern.unicodeScalars.count - 1))
            throw PatternError(option: option, pattern: pattern, message: error.message, column: span)
        }
    }
}

/// A pattern that does not compile: `btlog: grep: bad pattern 'a(': missing closing
/// parenthesis`, with the pattern and a caret under the column (exit status 2).
struct PatternError: Error, CustomStringConvertible {
    let option: String
    let pattern: String
    let message: String
    let column: Int

    var description: String {
        "\(option): bad pattern '\(pattern)': \(message)\n  \(pattern)\n  \(String(repeating: " ", count: column))^"
    }
}
