import ArgumentParser
import BTCapture
import BTDecode
import BTQuery
import BTRender

struct Keys: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the keys captures reveal, and write the LTKs for --keys.",
        discussion: """
        A host logs SMP in plain text, so its HCI log shows the keys a pairing distributed \
        (LTK with its EDIV and Rand, IRK with the identity address it resolves, CSRK), and every \
        LTK the host gives its controller (LE Enable Encryption, LE Long Term Key Request Reply: \
        LE Secure Connections too, which no sniffer can crack). BR/EDR link keys (Link Key \
        Notification, Link Key Request Reply) are listed; they decrypt nothing btlog reads. With \
        --merge, an air capture of the link merged with the host's log is decrypted with them \
        directly; -o writes the LTKs as the --keys file an air capture is read with.
        """
    )

    @Argument(help: ArgumentHelp("Capture files to read.", valueName: "FILE"))
    var files: [String]

    @Option(name: [.customShort("o"), .customLong("output")],
            help: ArgumentHelp("Write the LTKs found to this file, in the form --keys reads (one key a line, where it was found after #).", valueName: "FILE"))
    var output: String?

    @OptionGroup(title: "Input") var input: InputOptionGroup
    @OptionGroup(title: "Decoding") var decoding: DecodeOptionGroup

    func validate() throws {
        if files.isEmpty { throw ValidationError("give a capture file to read") }
        if files.filter({ $0 == "-" }).count > 1 { throw ValidationError("standard input ('-') can be read only once") }
        if input.merge { _ = try input.mergeRequest(files) }
    }

    func run() throws {
        let decoders = try decoding.prepare()
        var found: [(file: String, key: RevealedKey)] = []
        var failed = false
        for source in try input.sources(files) {
            do {
                let decoder = decoders.make(buildsDisplayText: false, keptFields: .only([]))
                var pipeline = PacketPipeline(decoder: decoder) { StandardError.warning($0.message) }
                var nothing = DiscardingSink()
                try pipeline.run(try source.open(false), into: &nothing)
                found += decoder.session.revealedKeys.map { (source.label, $0) }
            } catch let error as CaptureError {
                StandardError.error(error.message)
                failed = true
            }
        }
        let out = OutputWriter()
        do {
            for line in Self.table(found, files: files.count > 1 && !input.merge) { try out.line(line) }
            try out.flush()
        } catch is OutputWriter.OutputClosed {
            return
        }
        if let output {
            let ltks = found.filter { $0.key.kind == .ltk }
            do {
                let file = try OutputFile(path: output)
                try file.write(Array(Self.keysFile(ltks).utf8))
                try file.close()
            } catch let error as CaptureError {
                StandardError.error(error.message)
                throw ExitCode(1)
            }
            StandardError.note("\(ltks.count) LTK\(ltks.count == 1 ? "" : "s") written to \(output) (read them with --keys \(output))")
        }
        if failed { throw ExitCode(1) }
    }

    /// One line per key: what, the key, where it showed, the device.
    static func table(_ found: [(file: String, key: RevealedKey)], files: Bool) -> [String] {
        guard !found.isEmpty else { return ["No keys in plain text."] }
        var table = TextTable(["KIND", "KEY", "HOW"] + (files ? ["FILE"] : []) + ["PACKET", "LINK", "DEVICE", "EDIV", "RAND"], indent: 0)
        for (file, key) in found {
            let link = key.handle.map { "hci\(key.controller) \(Hex.u16($0))" } ?? "hci\(key.controller)"
            table.add([key.kind.rawValue, Hex.bytes(key.key, separator: ""), key.how] + (files ? [file] : [])
                      + ["#\(key.frame)", link, key.address?.description ?? "-",
                         key.ediv.map(Hex.u16) ?? "-", key.rand.map { Hex.format($0, width: 16) } ?? "-"])
        }
        return table.lines
    }

    /// The `--keys` file: each LTK, most significant octet first, with where it was found.
    static func keysFile(_ ltks: [(file: String, key: RevealedKey)]) -> String {
        var text = "# Long-term keys btlog found in plain text (btlog keys); read with --keys FILE.\n"
        for (file, key) in ltks {
            text += Hex.bytes(key.key, separator: "") + "  # \(key.how), \(file) #\(key.frame)"
            if let address = key.address { text += ", \(address)" }
            text += "\n"
        }
        return text
    }
}
