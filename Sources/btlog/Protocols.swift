import ArgumentParser
import BTCapture
import BTDecode
import BTDescribe
import BTRender
import Foundation

/// The descriptions this run decodes with, loaded before the arguments are parsed: the
/// options that name fields (`-f`, `--fields`, export columns) are checked while parsing, and
/// a described protocol's fields must be known by then.
enum LoadedProtocols {
    nonisolated(unsafe) static var library = ProtocolLibrary()

    /// The values of every `--protocol FILE` (or `--protocol=FILE`) before a `--`.
    static func files(in arguments: [String]) -> [String] {
        var files: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { break }
            if argument == "--protocol", index + 1 < arguments.count {
                files.append(arguments[index + 1])
                index += 1
            } else if argument.hasPrefix("--protocol=") {
                files.append(String(argument.dropFirst("--protocol=".count)))
            }
            index += 1
        }
        return files
    }

    /// Loads the files `arguments` name, then the protocols folder, and registers their fields.
    /// A named file that does not load ends the run (exit status 1).
    static func load(arguments: [String]) {
        var library = ProtocolLibrary()
        for file in files(in: arguments) {
            do { try library.load(file: file) } catch {
                StandardError.error("\(error)")
                terminate(1)
            }
        }
        library.load(folder: ProtocolLibrary.folder)
        // Off for measuring them against the Swift text decoders (Scripts/described-cost.py).
        if ProcessInfo.processInfo.environment["BTLOG_NO_SHIPPED_PROTOCOLS"] == nil { library.loadShipped() }
        for warning in library.warnings { StandardError.warning(warning) }
        FieldRegistry.register(library.protocols)
        self.library = library
    }
}

/// `btlog protocols`: what is loaded, and checking a description.
struct Protocols: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the protocols described in files, or check a description.",
        discussion: """
        A description (YAML, 'btlog-protocol: 1') lays out a protocol btlog does not know: a GATT \
        characteristic's values, manufacturer or service data in advertisements, an L2CAP PSM or \
        LE SPSM, an RFCOMM channel, a vendor's HCI commands and events. Every verb that decodes reads the files given with \
        --protocol and every *.yaml in $XDG_CONFIG_HOME/btlog/protocols (~/.config/btlog/protocols). \
        Their fields work everywhere a built-in field does.
        """,
        subcommands: [List.self, Show.self, Check.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the loaded protocols: name, key, file, what selects each, and how many fields.")

        @Option(name: .customLong("protocol"), help: ArgumentHelp("A protocol description to load besides the protocols folder; repeat for several.", valueName: "FILE"))
        var protocols: [String] = []

        func run() throws {
            let out = OutputWriter()
            do {
                let loaded = LoadedProtocols.library.protocols.all
                let users = loaded.filter { !$0.isShipped }, shipped = loaded.filter(\.isShipped)
                if users.isEmpty {
                    try out.line("No protocols described by you (give --protocol FILE, or put *.yaml files in \(ProtocolLibrary.folder)).")
                }
                for described in users {
                    try out.line("\(described.name) (\(described.key)): \(described.source)")
                    if !described.summary.isEmpty { try out.line("    \(described.summary)") }
                    for command in described.commandNames {
                        try out.line("    HCI command \(Hex.u16(command.opcode)) named \(command.name)")
                    }
                    for selector in described.selectors {
                        try out.line("    \(selector.key) -> \(selector.message.id)")
                    }
                    try out.line("    \(described.messages.count) message\(described.messages.count == 1 ? "" : "s"), \(described.fields.count) fields ('btlog fields \(described.key)' lists them)")
                }
                try out.line("")
                try out.line("Built in (descriptions btlog ships; 'btlog protocols show KEY' prints one, a file of yours claiming the same replaces it):")
                for described in shipped {
                    let characteristics = described.selectors.map { "\($0.key)".replacingOccurrences(of: "characteristic ", with: "") }
                    try out.line("    \(described.key): \(described.name) (\(characteristics.joined(separator: ", ")); \(described.fields.count) fields)")
                }
                for (source, reason) in LoadedProtocols.library.replaced {
                    try out.line("    \(source.replacingOccurrences(of: ShippedProtocols.sourcePrefix, with: "")) replaced: \(reason)")
                }
                try out.flush()
            } catch is OutputWriter.OutputClosed {}
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a loaded protocol's description: a built-in one to read or copy and change, or a file of yours.")

        @Option(name: .customLong("protocol"), help: ArgumentHelp("A protocol description to load besides the protocols folder; repeat for several.", valueName: "FILE"))
        var protocols: [String] = []

        @Argument(help: ArgumentHelp("The protocol's key (hrs, bas, or a key of yours: 'btlog protocols' lists them).", valueName: "KEY"))
        var key: String

        func run() throws {
            guard let described = LoadedProtocols.library.protocols.all.first(where: { $0.key == key }) else {
                let keys = LoadedProtocols.library.protocols.all.map(\.key)
                StandardError.error("no protocol '\(key)' is loaded; loaded: \(keys.joined(separator: ", "))")
                throw ExitCode(1)
            }
            let text: String
            if described.isShipped {
                let name = described.source.replacingOccurrences(of: ShippedProtocols.sourcePrefix, with: "")
                text = ShippedProtocols.texts.first { $0.name == name }?.text ?? ""
            } else {
                guard let data = FileManager.default.contents(atPath: described.source) else {
                    StandardError.error("\(described.source): cannot read the file")
                    throw ExitCode(1)
                }
                text = String(decoding: data, as: UTF8.self)
            }
            let out = OutputWriter()
            do {
                try out.write(text.hasSuffix("\n") ? text : text + "\n")
                try out.flush()
            } catch is OutputWriter.OutputClosed {}
        }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check descriptions: each is read and compiled as a run would, and checked against the others loaded.",
            discussion: "Prints each file's protocol and the number of its messages and fields, or the first error with its line and column. Exit status 1 when any file has an error."
        )

        @Argument(help: ArgumentHelp("The description files to check.", valueName: "FILE"))
        var files: [String]

        func validate() throws {
            if files.isEmpty { throw ValidationError("give a description file to check") }
        }

        func run() throws {
            var failed = false
            // Checked against what the folder loads, as a run would read them together; a
            // file that is itself in the folder is checked alone.
            var library = ProtocolLibrary()
            library.load(folder: ProtocolLibrary.folder)
            let folder = library
            for file in files {
                var candidate = folder
                if folder.protocols.all.contains(where: { $0.source == file || $0.source.hasSuffix("/" + file) }) { candidate = ProtocolLibrary() }
                do {
                    try candidate.load(file: file)
                    let described = candidate.protocols.all.last!
                    print("\(file): \(described.name) (\(described.key)): \(described.messages.count) message\(described.messages.count == 1 ? "" : "s"), \(described.fields.count) fields, \(described.selectors.count) selector\(described.selectors.count == 1 ? "" : "s"): OK")
                } catch {
                    StandardError.error("\(error)")
                    failed = true
                }
            }
            if failed { throw ExitCode(1) }
        }
    }
}
