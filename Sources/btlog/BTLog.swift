import ArgumentParser
import BTCapture
import BTQuery
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct BTLog: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "btlog",
        abstract: "Decode, filter and export Bluetooth HCI packet logs.",
        discussion: """
        Reads btsnoop (Android, btmon -w), Apple PacketLogger (.pklg), pcap and pcapng captures, \
        gzip-compressed ones, iOS sysdiagnose archives and Android bugreports. The format is \
        found from the content. `btlog FILE` is short for `btlog show FILE`.
        """,
        version: "0.1.0",
        subcommands: [Show.self, Browse.self, Grep.self, Annotate.self, Export.self, Stats.self, Diagnose.self, Diff.self, Merge.self, Keys.self, Flow.self, Capture.self, Gatt.self, Fields.self,
                      Protocols.self, Plot.self],
        defaultSubcommand: Show.self
    )

    /// Runs the command line; usage errors exit 2, failures 1, as the man page says.
    static func runMain() {
        LoadedProtocols.load(arguments: Array(CommandLine.arguments.dropFirst()))
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let error as FilterError {
            StandardError.error(error.description)
            terminate(2)
        } catch let error as QuickFilterError {
            StandardError.error(error.description)
            terminate(2)
        } catch let error as PatternError {
            StandardError.error(error.description)
            terminate(2)
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                StandardError.write(fullMessage(for: error) + "\n")
                terminate(2)
            }
            BTLog.exit(withError: error)
        }
    }
}

/// Ends the process with `code` (usage errors the parser itself does not know of).
func terminate(_ code: Int32) -> Never { exit(code) }

enum StandardError {
    static func write(_ text: String) {
        var text = text
        text.withUTF8 { raw in _ = systemWrite(2, raw.baseAddress, raw.count) }
    }

    static func error(_ message: String) { write("btlog: \(message)\n") }
    /// What the user should know that is no fault (a merge's clocks).
    static func note(_ message: String) { write("btlog: \(message)\n") }
    static func warning(_ message: String) { write("btlog: warning: \(message)\n") }
}

/// The C library's write(2), whichever module provides it (Glibc on Linux, Darwin on macOS).
private func systemWrite(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int { write(fd, bytes, count) }
