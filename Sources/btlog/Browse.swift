import ArgumentParser
import BTBrowse
import BTCapture
import BTDecode
import BTQuery
import BTRender
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct Browse: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Browse a capture in the terminal: the packet list, the selected packet's tree and bytes, filters and search.",
        discussion: "PacketLogger's window over ssh: the list is shown as soon as the first packets are read, while the rest load. Press ? inside for every key; q quits."
    )

    @Argument(help: ArgumentHelp("The capture file to browse (with --merge, the captures of one scenario to browse as one timeline).", valueName: "FILE"))
    var files: [String]

    var file: String { files.first ?? "" }

    @Flag(help: "Keep reading as another program writes the file (like tail -f); new packets join the list, which follows them while its last packet is selected.")
    var follow = false

    @OptionGroup(title: "Selection") var selection: SelectionOptionGroup

    @Option(help: ArgumentHelp("Time column: abs, rel, delta or epoch, as in show.", valueName: "abs|rel|delta|epoch"))
    var time: TimeFormatter.Mode = .abs

    @OptionGroup var coloring: ColorOptionGroup
    var color: ColorChoice { coloring.color }

    @OptionGroup(title: "Notes") var notes: NotesOptionGroup
    @OptionGroup(title: "Input") var input: InputOptionGroup
    @OptionGroup(title: "Decoding") var decoding: DecodeOptionGroup

    func validate() throws {
        if input.merge {
            _ = try input.mergeRequest(files)
            if follow { throw ValidationError("--follow reads one capture as it grows; a merge reads finished captures") }
            if notes.notes != nil { throw ValidationError("--notes names the notes of one capture; a merge has none") }
        } else if files.count != 1 {
            throw ValidationError(files.isEmpty ? "give the capture file to browse" : "browse reads one capture; give --merge to browse several captures of one scenario as one timeline")
        }
        if files.contains("-") { throw ValidationError("browse reads a capture file, not standard input (the keyboard is read from the terminal)") }
        if selection.packets != nil { throw ValidationError("--packets does not apply to browse: ':' goes to a packet, f filters") }
    }

    func run() throws {
        _ = try selection.stages() // a bad filter is a usage error, before the screen is taken
        guard isatty(0) != 0, isatty(1) != 0 else {
            StandardError.error("browse needs a terminal on standard input and output; 'btlog show' prints to a pipe or file")
            throw ExitCode(2)
        }
        let source = try input.sources(files)[0]
        let reader: FrameReader
        do {
            reader = try source.open(follow)
        } catch let error as CaptureError {
            StandardError.error(error.message)
            throw ExitCode(1)
        }
        let decoders = try decoding.prepare()
        let decoder = decoders.make(buildsDisplayText: false)
        let index = PacketIndex(decoder: decoder)
        let loader = CaptureLoader(index: index)
        loader.start(reader, live: follow)
        // A merge has no notes file of its own, and the browser's export re-reads one capture.
        let notesPath = input.merge ? nil : NotesStore.path(forCapture: file, notes: notes.notes)
        try BrowseLoop.run(index: index, loader: loader, source: input.merge ? source.label : (file as NSString).lastPathComponent,
                           time: time, follows: follow,
                           colours: color.enabledOnTerminal, filter: selection.filter ?? "", quick: selection.quickFilters,
                           notesPath: notesPath, capturePath: input.merge ? nil : file,
                           exporting: BrowserExport(input: input.inputOptions, decoding: decoders.options))
    }
}

/// The browser's loop: draw, wait for a key (or for the capture and the filter to move on),
/// hand the key to the model; the terminal is given back however the loop ends.
enum BrowseLoop {
    static func run(index: PacketIndex, loader: CaptureLoader, source: String, time: TimeFormatter.Mode, follows: Bool,
                    colours: Bool, filter: String, quick: QuickFilters, notesPath: String?, capturePath: String?,
                    exporting: BrowserExport?) throws {
        let terminal = CursesTerminal(colours: colours)
        defer {
            terminal.close()
            loader.stop()
        }
        let size = terminal.size
        let browser = Browser(index: index, loader: loader, source: source, timeMode: time, follows: follows,
                              width: size.width, height: size.height, notesPath: notesPath, capturePath: capturePath,
                              flagMark: terminal.unicode ? "⚑" : "F")
        try browser.setFilters(expression: filter, quick: quick)
        browser.exporting = exporting
        let screen = BrowserScreen(colours: terminal.colours, unicode: terminal.unicode)
        while !browser.quits && CursesTerminal.signalled == 0 {
            browser.tick()
            terminal.draw(screen.draw(browser))
            // While loading or filtering, the screen refreshes ten times a second; idle, it
            // still looks for a followed file's growth twice a second.
            if let key = terminal.read(waiting: browser.isBusy ? 100 : 500) {
                browser.handle(key)
            }
        }
        terminal.close()
        if CursesTerminal.signalled != 0 { throw ExitCode(128 + CursesTerminal.signalled) }
    }
}
