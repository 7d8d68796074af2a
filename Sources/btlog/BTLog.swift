import ArgumentParser
import BTCapture
import BTQuery
#if canImport(Glibc)
import Glibc
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
        subcommands: [Show.self, Browse.self, Grep.self, Annotate.self, Export.self, Stats.self, Diagnose.self, Diff.self, Capture.self, Gatt.self, Fields.self],
        defaultSubcommand: Show.self
    )

    /// Runs the command line; usage errors exit 2, failures 1, as the man page says.
    static func runMain() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let failure as Failure {
            Glibc.exit(failure.code)
        } catch let error as FilterError {
            StandardError.error(error.description)
            Glibc.exit(2)
        } catch let error as QuickFilterError {
            StandardError.error(error.description)
            Glibc.exit(2)
        } catch let error as PatternError {
            StandardError.error(error.description)
            Glibc.exit(2)
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                StandardError.write(fullMessage(for: error) + "\n")
                Glibc.exit(2)
            }
            BTLog.exit(withError: error)
        }
    }
}

/// Ends the process with a status after the message was already printed.
struct Failure: Error {
    var code: Int32
}

enum StandardError {
    static func write(_ text: String) {
        var text = text
        text.withUTF8 { raw in _ = Glibc.write(2, raw.baseAddress, raw.count) }
    }

    static func error(_ message: String) { write("btlog: \(message)\n") }
    static func warning(_ message: String) { write("btlog: warning: \(message)\n") }
}
