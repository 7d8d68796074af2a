import Foundation
import Yams

/// What is wrong with a description, where: "revcar.yaml:12:7: expected ...". Line and column
/// count from 1, as editors do.
public struct DescriptionError: Error, CustomStringConvertible, Equatable {
    public let file: String
    public let line: Int
    public let column: Int
    public let message: String

    public var description: String {
        if file.isEmpty { return message }
        return line > 0 ? "\(file):\(line):\(column): \(message)" : "\(file): \(message)"
    }
}

/// A YAML node with the file it came from, and the questions a description asks of it, each
/// answered or failed with an error at the node's place.
struct DescriptionNode {
    let node: Node
    let file: String

    var line: Int { node.mark?.line ?? 0 }
    var column: Int { node.mark?.column ?? 0 }
    var location: String { "\(file):\(line):\(column)" }

    func error(_ message: String) -> DescriptionError {
        DescriptionError(file: file, line: line, column: column, message: message)
    }

    /// The node's text, when it is a scalar.
    var text: String? {
        if case .scalar(let scalar) = node { return scalar.string }
        return nil
    }

    func string(_ what: String) throws -> String {
        guard let text, !text.isEmpty else { throw error("expected \(what)") }
        return text
    }

    /// An integer: decimal, 0x hex or 0b binary; `_` may group digits.
    func integer(_ what: String, max: UInt64 = .max) throws -> UInt64 {
        guard let text, let value = DescriptionNode.parseInteger(text), value <= max else {
            throw error("expected \(what)\(max < .max ? " (0 to \(max))" : ""), not '\(text ?? kindName)'")
        }
        return value
    }

    static func parseInteger(_ text: String) -> UInt64? {
        let lower = text.lowercased().replacingOccurrences(of: "_", with: "").trimmingCharacters(in: .whitespaces)
        if lower.hasPrefix("0x") { return UInt64(lower.dropFirst(2), radix: 16) }
        if lower.hasPrefix("0b") { return UInt64(lower.dropFirst(2), radix: 2) }
        return UInt64(lower, radix: 10)
    }

    func number(_ what: String) throws -> Double {
        guard let text else { throw error("expected \(what), not \(kindName)") }
        if let integer = DescriptionNode.parseInteger(text) { return Double(integer) }
        if text.hasPrefix("-"), let integer = DescriptionNode.parseInteger(String(text.dropFirst())) { return -Double(integer) }
        guard let value = Double(text), value.isFinite else { throw error("expected \(what), not '\(text)'") }
        return value
    }

    func bool(_ what: String) throws -> Bool {
        switch text?.lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default: throw error("expected \(what) (true or false), not '\(text ?? kindName)'")
        }
    }

    var kindName: String {
        switch node {
        case .scalar: return "a value"
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .alias: return "an alias"
        }
    }

    /// The items of a list (a single item stands for a list of one).
    func list(_ what: String) throws -> [DescriptionNode] {
        switch node {
        case .sequence(let sequence): return sequence.map { DescriptionNode(node: $0, file: file) }
        case .mapping, .scalar: return [self]
        case .alias: throw error("expected \(what), not an alias")
        }
    }

    /// A mapping's entries in file order, each key checked against `allowed`.
    func mapping(_ what: String, allowed: Set<String>? = nil) throws -> DescriptionMapping {
        guard case .mapping(let mapping) = node else { throw error("expected \(what) (a mapping of keys to values), not \(kindName)") }
        var entries: [(key: String, keyNode: DescriptionNode, value: DescriptionNode)] = []
        for (key, value) in mapping {
            let keyNode = DescriptionNode(node: key, file: file)
            guard let name = keyNode.text else { throw keyNode.error("expected a key, not \(keyNode.kindName)") }
            if let allowed, !allowed.contains(name) {
                throw keyNode.error("unknown key '\(name)' in \(what); expected one of \(allowed.sorted().joined(separator: ", "))")
            }
            if entries.contains(where: { $0.key == name }) { throw keyNode.error("'\(name)' is given twice in \(what)") }
            entries.append((name, keyNode, DescriptionNode(node: value, file: file)))
        }
        return DescriptionMapping(owner: self, what: what, entries: entries)
    }
}

struct DescriptionMapping {
    let owner: DescriptionNode
    let what: String
    let entries: [(key: String, keyNode: DescriptionNode, value: DescriptionNode)]

    subscript(_ key: String) -> DescriptionNode? { entries.first { $0.key == key }?.value }

    func required(_ key: String) throws -> DescriptionNode {
        guard let value = self[key] else { throw owner.error("\(what) needs '\(key)'") }
        return value
    }

    func has(_ key: String) -> Bool { self[key] != nil }
}
