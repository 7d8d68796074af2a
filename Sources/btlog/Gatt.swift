import ArgumentParser
import BTCapture
import BTDecode
import BTRender

struct Gatt: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gatt",
        abstract: "Print each device's GATT database as the capture's discovery revealed it.",
        discussion: "One table per attribute server (a remote device, or the local host as a remote client saw it): handle, attribute, UUID, name, properties, and the last value the capture carried."
    )

    @Argument(help: ArgumentHelp("Capture file to read ('-' for standard input).", valueName: "FILE"))
    var file: String

    @OptionGroup(title: "Input") var input: InputOptionGroup
    @OptionGroup(title: "Decoding") var decoding: DecodeOptionGroup

    @Option(help: ArgumentHelp("Colour: auto, always or never.", valueName: "auto|always|never"))
    var color: ColorChoice = .auto

    func run() throws {
        let out = OutputWriter()
        let decoder = try decoding.prepare().make(buildsDisplayText: false)
        do {
            let reader = try CaptureInput.open(file, options: input.inputOptions)
            while let frame = try reader.next() {
                for warning in reader.warnings { FileHandleStderr.warning(warning.message) }
                reader.warnings.removeAll()
                _ = decoder.decode(frame)
            }
            for warning in reader.warnings { FileHandleStderr.warning(warning.message) }
        } catch let error as CaptureError {
            FileHandleStderr.error(error.message)
            throw Failure(code: 1)
        }
        let style = Style(enabled: color.enabled(for: out))
        let databases = decoder.session.gatt.databases.filter { !$0.value.attributes.isEmpty }
        do {
            if databases.isEmpty {
                try out.line("No GATT discovery in this capture.")
            }
            for (index, key) in databases.keys.sorted().enumerated() {
                if index > 0 { try out.line("") }
                for line in GATTTableRenderer.lines(key, databases[key]!, names: decoder.options.uuidNames, style: style) { try out.line(line) }
            }
            try out.flush()
        } catch is OutputWriter.OutputClosed {}
    }
}
