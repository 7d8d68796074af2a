import BTDecode
import Foundation

/// The descriptions a run decodes with: the files named on the command line (`--protocol`),
/// then every `*.yaml` in the protocols folder ($XDG_CONFIG_HOME/btlog/protocols), in name
/// order. A file named on the command line that does not read is an error; one in the folder
/// is a warning, and the others still load. Two descriptions claiming the same protocol key,
/// UUID, PSM or channel is an error naming both.
public struct ProtocolLibrary: Sendable {
    public private(set) var protocols = DescribedProtocols()
    /// The descriptions' decode-as rules, in file order.
    public private(set) var rules: [DecodeAsRule] = []
    /// What was skipped, for the command line to print.
    public private(set) var warnings: [String] = []
    /// Shipped descriptions a user's replaced: the shipped one's source, and why.
    public private(set) var replaced: [(source: String, reason: String)] = []

    public init() {}

    /// The folder read automatically: $XDG_CONFIG_HOME/btlog/protocols, or ~/.config/btlog/protocols.
    public static var folder: String {
        let environment = ProcessInfo.processInfo.environment
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.config"
        return config + "/btlog/protocols"
    }

    /// A description named by the user: any failure is theirs to see.
    public mutating func load(file path: String) throws {
        let described = try ProtocolDescriptionReader.read(file: path)
        try add(described)
    }

    /// Every `*.yaml` (and `*.yml`) in `folder`, if it exists.
    public mutating func load(folder: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names.sorted() where name.hasSuffix(".yaml") || name.hasSuffix(".yml") {
            let path = folder + "/" + name
            do { try load(file: path) } catch {
                warnings.append("\(error) (\(path) not loaded)")
            }
        }
    }

    /// The descriptions btlog ships (`ShippedProtocols`), after the user's: one that claims
    /// what a user's description claims, or has its key, is left out (the user's wins).
    public mutating func loadShipped(_ shipped: [DescribedProtocol] = ShippedProtocols.compiled()) {
        for described in shipped {
            do { try protocols.add(described) } catch let conflict as DescribedProtocols.Conflict {
                replaced.append((described.source, conflict.description))
            } catch {
                replaced.append((described.source, "\(error)"))
            }
        }
    }

    mutating func add(_ described: DescribedProtocol) throws {
        var parsed: [DecodeAsRule] = []
        for (text, location) in described.decodeAs {
            do { parsed.append(try DecodeAsRule.parse(text, described: protocols.all + [described])) } catch let error as DecodeAsRule.ParseError {
                throw DescriptionError(file: "", line: 0, column: 0, message: "\(location): \(error.description)")
            }
        }
        do { try protocols.add(described) } catch let conflict as DescribedProtocols.Conflict {
            throw DescriptionError(file: "", line: 0, column: 0, message: conflict.description)
        }
        rules += parsed
    }

    /// A rule from the command line (`--decode-as`), which may name any loaded protocol.
    public func rule(_ text: String) throws -> DecodeAsRule {
        try DecodeAsRule.parse(text, described: protocols.all)
    }
}
