import ArgumentParser
import BTCapture
import BTDecode
import BTQuery
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

    @OptionGroup var coloring: ColorOptionGroup
    var color: ColorChoice { coloring.color }

    func validate() throws {
        try input.refuseMerge("gatt", because: "it reads one capture's GATT database; merge the captures first (btlog merge) and read the merged file")
    }

    func run() throws {
        let out = OutputWriter()
        let decoder = try decoding.prepare().make(buildsDisplayText: false, keepsLastValues: true)
        var pipeline = PacketPipeline(decoder: decoder) { StandardError.warning($0.message) }
        do {
            var nothing = DiscardingSink()
            try pipeline.run(try CaptureInput.open(file, options: input.inputOptions), into: &nothing)
        } catch let error as CaptureError {
            StandardError.error(error.message)
            throw ExitCode(1)
        }
        do {
            try GATTReport(session: decoder.session, style: Style(enabled: color.enabled(for: out))).render(to: out)
            try out.flush()
        } catch is OutputWriter.OutputClosed {}
    }
}
