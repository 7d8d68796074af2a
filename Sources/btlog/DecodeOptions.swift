import ArgumentParser
import BTDecode
import Foundation

/// What the decoder knows beyond the capture; shared by every command that decodes.
struct DecodeOptionGroup: ParsableArguments {
    @Option(help: ArgumentHelp("Names for vendor UUIDs: a JSON file in nRF Connect's uuid_definitions layout. Default: $XDG_CONFIG_HOME/btlog/uuids.json (~/.config/btlog/uuids.json) when it exists.", valueName: "FILE"))
    var uuids: String?

    @Option(name: .customLong("gatt-cache"), help: ArgumentHelp("BlueZ's GATT cache (/var/lib/bluetooth, an adapter folder or its cache folder): names handles the capture never discovered.", valueName: "DIR"))
    var gattCache: String?

    static var defaultUUIDFile: String {
        let environment = ProcessInfo.processInfo.environment
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.config"
        return config + "/btlog/uuids.json"
    }

    /// Loads the names and caches once; a bad file given on the command line is an error.
    func prepare() throws -> DecoderFactory {
        do {
            var names = UUIDNames.standard
            if let uuids {
                try GATTNameSources.loadUUIDNames(path: uuids, into: &names)
            } else if FileManager.default.fileExists(atPath: Self.defaultUUIDFile) {
                do { try GATTNameSources.loadUUIDNames(path: Self.defaultUUIDFile, into: &names) } catch {
                    FileHandleStderr.warning("\(error) (ignored)")
                }
            }
            let cache = try gattCache.map(GATTNameSources.loadBlueZCache) ?? [:]
            return DecoderFactory(options: DecodeOptions(uuidNames: names, gattCache: cache))
        } catch let error as GATTNameSources.LoadError {
            FileHandleStderr.error(error.description)
            throw Failure(code: 1)
        }
    }
}

/// A fresh decoder per capture, each starting from the same prepared knowledge.
struct DecoderFactory {
    let options: DecodeOptions

    /// `buildsDisplayText`: whether the view prints fields' display text (the tree).
    /// `keepsLastValues`: whether the view prints each GATT handle's last value (gatt).
    func make(buildsDisplayText: Bool, keepsLastValues: Bool = false) -> Decoder {
        var options = options
        options.buildsDisplayText = buildsDisplayText
        options.keepsLastValues = keepsLastValues
        return Decoder(options: options)
    }
}
