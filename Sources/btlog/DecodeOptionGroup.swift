import ArgumentParser
import BTCapture
import BTDecode
import Foundation

/// What the decoder knows beyond the capture; shared by every command that decodes.
struct DecodeOptionGroup: ParsableArguments {
    @Option(help: ArgumentHelp("Names for vendor UUIDs: a JSON file in nRF Connect's uuid_definitions layout. Default: $XDG_CONFIG_HOME/btlog/uuids.json (~/.config/btlog/uuids.json) when it exists.", valueName: "FILE"))
    var uuids: String?

    @Option(name: .customLong("gatt-cache"), help: ArgumentHelp("BlueZ's GATT cache (/var/lib/bluetooth, an adapter folder or its cache folder): names handles the capture never discovered.", valueName: "DIR"))
    var gattCache: String?

    @Option(name: .customLong("ltk"), help: ArgumentHelp("A long-term key (32 hex digits) for an encrypted link in an air capture; repeat for several. Legacy pairing captured in full (Just Works, passkey) and keys the capture distributes need none.", valueName: "HEX"))
    var ltk: [String] = []

    @Option(name: .customLong("keys"), help: ArgumentHelp("A file of long-term keys for air captures, one per line (32 hex digits; # starts a comment).", valueName: "FILE"))
    var keys: String?

    @Option(name: .customLong("irk"), help: ArgumentHelp("An identity resolving key (32 hex digits), with the identity address it stands for after '=' where known: every resolvable private address it resolves names that device (identity.address, --device, stats). Keys a capture distributes over SMP need none; repeat for several.", valueName: "HEX[=ADDRESS]"))
    var irk: [String] = []

    @Option(name: .customLong("protocol"), help: ArgumentHelp("A protocol description (YAML, 'btlog-protocol: 1'): its fields are decoded, filtered and exported as built-in ones; repeat for several. Every *.yaml in $XDG_CONFIG_HOME/btlog/protocols is read too; 'btlog protocols' lists them.", valueName: "FILE"))
    var protocols: [String] = []

    @Option(name: .customLong("decode-as"), help: ArgumentHelp("What a channel or handle carries where the capture does not show it set up: 'l2cap.cid == 0x0055: rfcomm' (l2cap.cid, l2cap.psm, rfcomm.channel or att.handle; a protocol reached by a PSM, or a described one); repeat for several.", valueName: "RULE"))
    var decodeAs: [String] = []

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
                    StandardError.warning("\(error) (ignored)")
                }
            }
            let cache = try gattCache.map(GATTNameSources.loadBlueZCache) ?? [:]
            var options = DecodeOptions(uuidNames: names, gattCache: cache)
            options.linkLayerKeys = try linkLayerKeys()
            options.identityKeys = try identityKeys()
            // Loaded before the arguments were parsed (LoadedProtocols), `--protocol` among them.
            options.describe(LoadedProtocols.library.protocols)
            for rule in LoadedProtocols.library.rules { options.decode(as: rule) }
            for text in decodeAs {
                do { options.decode(as: try LoadedProtocols.library.rule(text)) } catch let error as DecodeAsRule.ParseError {
                    StandardError.error("--decode-as \(error.description)")
                    throw ExitCode(2)
                }
            }
            return DecoderFactory(options: options)
        } catch let error as GATTNameSources.LoadError {
            StandardError.error(error.description)
            throw ExitCode(1)
        }
    }

    /// `--irk HEX[=ADDRESS]`: each key as written and reversed (a key copied in the other
    /// octet order still resolves; the wrong order resolves nothing but by a 1 in 16 million
    /// chance).
    func identityKeys() throws -> [(irk: [UInt8], address: BDAddr?)] {
        var all: [(irk: [UInt8], address: BDAddr?)] = []
        for text in irk {
            let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key: [UInt8]
            do { key = try LinkLayerKeys.parse(key: parts[0]) } catch let error as LinkLayerKeys.ParseError {
                StandardError.error("--irk \(text): \(error.description)")
                throw ExitCode(2)
            }
            var address: BDAddr?
            if parts.count == 2 {
                guard case .address(let parsed)? = FieldValue.parse(String(parts[1]).trimmingWhitespace, as: .address) else {
                    StandardError.error("--irk \(text): '\(parts[1])' is not an address (00:11:22:33:44:55)")
                    throw ExitCode(2)
                }
                address = parsed
            }
            all.append((key, address))
            all.append((key.reversed(), address))
        }
        return all
    }

    /// `--ltk` and `--keys`: a key that does not read is a usage error, a file that does not
    /// open or read an error.
    func linkLayerKeys() throws -> [[UInt8]] {
        var all: [[UInt8]] = []
        for text in ltk {
            do { all.append(try LinkLayerKeys.parse(key: text[...])) } catch let error as LinkLayerKeys.ParseError {
                StandardError.error("--ltk \(text): \(error.description)")
                throw ExitCode(2)
            }
        }
        if let keys {
            guard let data = FileManager.default.contents(atPath: keys) else {
                StandardError.error("\(keys): cannot read the keys file")
                throw ExitCode(1)
            }
            do { all += try LinkLayerKeys.parse(file: String(decoding: data, as: UTF8.self), name: keys) } catch let error as LinkLayerKeys.ParseError {
                StandardError.error(error.description)
                throw ExitCode(1)
            }
        }
        return all
    }
}

/// A fresh decoder per capture, each starting from the same prepared knowledge.
struct DecoderFactory {
    let options: DecodeOptions

    /// `buildsDisplayText`: whether the view prints fields' display text (the tree).
    /// `keepsLastValues`: whether the view prints each GATT handle's last value (gatt).
    func make(buildsDisplayText: Bool, keepsLastValues: Bool = false, keptFields: FieldMask = .all) -> Decoder {
        var options = options
        options.buildsDisplayText = buildsDisplayText
        options.keptFields = keptFields
        options.keepsLastValues = keepsLastValues
        return Decoder(options: options)
    }
}
