import BTCapture
import Foundation

/// Names and databases from outside the capture: a JSON file of vendor UUID names in the
/// layout nRF Connect's uuid_definitions uses, and BlueZ's per-device GATT cache files.
public enum GATTNameSources {
    public struct LoadError: Error, CustomStringConvertible {
        public var description: String
    }

    /// `{"uuid16bitServiceDefinitions": {"180D": {"name": "Heart Rate"}}, "uuid128bitCharacteristicDefinitions": ...}`.
    /// Adds them to `names`; returns how many it added.
    @discardableResult
    public static func loadUUIDNames(path: String, into names: inout UUIDNames) throws -> Int {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw LoadError(description: "\(path): cannot read the UUID names file")
        }
        let json: Any
        do { json = try JSONSerialization.jsonObject(with: data) } catch {
            throw LoadError(description: "\(path): not JSON (\(error.localizedDescription))")
        }
        guard let root = json as? [String: Any] else {
            throw LoadError(description: "\(path): expected an object with uuid16bitServiceDefinitions and similar keys")
        }
        let sections: [(String, UUIDKind)] = [
            ("uuid16bitServiceDefinitions", .service), ("uuid16bitCharacteristicDefinitions", .characteristic),
            ("uuid16bitDescriptorDefinitions", .descriptor), ("uuid128bitServiceDefinitions", .service),
            ("uuid128bitCharacteristicDefinitions", .characteristic), ("uuid128bitDescriptorDefinitions", .descriptor),
        ]
        var added = 0
        for (key, kind) in sections {
            guard let entries = root[key] as? [String: Any] else { continue }
            for (text, value) in entries {
                guard let uuid = BTUUID(text) else {
                    throw LoadError(description: "\(path): '\(text)' in \(key) is not a UUID")
                }
                guard let name = (value as? [String: Any])?["name"] as? String ?? value as? String else {
                    throw LoadError(description: "\(path): \(key) \(text) has no name")
                }
                names.add(uuid, name: name, kind: kind)
                added += 1
            }
        }
        return added
    }

    /// BlueZ keeps each peer's discovered database in <adapter>/cache/<peer address>, section
    /// [Attributes]: `0x0001=2800:0x0005:1800` (service: type, end handle, UUID),
    /// `0x0002=2803:0x0003:0x02:2a00` (characteristic: value handle, properties, UUID),
    /// `0x0004=2902` (descriptor), `0x0010=2802:0x0020:0x0030:180f` (include).
    /// `folder` is that cache folder, an adapter folder, or /var/lib/bluetooth itself.
    public static func loadBlueZCache(folder: String) throws -> [BDAddr: GATTDatabase] {
        let fm = FileManager.default
        var isFolder: ObjCBool = false
        guard fm.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw LoadError(description: "\(folder): not a folder (give BlueZ's /var/lib/bluetooth or an adapter's cache folder)")
        }
        guard fm.isReadableFile(atPath: folder) else {
            throw LoadError(description: "\(folder): permission denied (BlueZ's storage is readable by root only; try sudo)")
        }
        var candidates: [String] = []
        for base in [folder, folder + "/cache"] {
            for name in (try? fm.contentsOfDirectory(atPath: base)) ?? [] where isAddress(name) {
                candidates.append(base + "/" + name)
            }
        }
        for adapter in (try? fm.contentsOfDirectory(atPath: folder)) ?? [] where isAddress(adapter) {
            for name in (try? fm.contentsOfDirectory(atPath: folder + "/" + adapter + "/cache")) ?? [] where isAddress(name) {
                candidates.append(folder + "/" + adapter + "/cache/" + name)
            }
        }
        var databases: [BDAddr: GATTDatabase] = [:]
        for path in candidates {
            var isDir: ObjCBool = false
            guard fm.fileExists(atPath: path, isDirectory: &isDir), !isDir.boolValue,
                  let text = fm.contents(atPath: path).map({ String(decoding: $0, as: UTF8.self) }) else { continue }
            let database = parseCache(text)
            if !database.attributes.isEmpty {
                databases[BDAddr(String(path.split(separator: "/").last!))] = database
            }
        }
        return databases
    }

    static func isAddress(_ name: String) -> Bool {
        let parts = name.split(separator: ":")
        return parts.count == 6 && parts.allSatisfy { $0.count == 2 && UInt8($0, radix: 16) != nil }
    }

    static func number(_ text: Substring) -> UInt16? {
        text.hasPrefix("0x") ? UInt16(text.dropFirst(2), radix: 16) : UInt16(text, radix: 16)
    }

    /// The [Attributes] section of one cache file; other sections and malformed lines are skipped.
    public static func parseCache(_ text: String) -> GATTDatabase {
        var database = GATTDatabase()
        var inAttributes = false
        var descriptors: [(UInt16, BTUUID)] = []
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") { inAttributes = line == "[Attributes]"; continue }
            guard inAttributes, let equals = line.firstIndex(of: "=") else { continue }
            guard let handle = number(Substring(line[..<equals])) else { continue }
            let parts = line[line.index(after: equals)...].split(separator: ":")
            guard let first = parts.first else { continue }
            switch (first.lowercased(), parts.count) {
            case ("2800", 3), ("2801", 3):
                if let end = number(parts[1]), let uuid = BTUUID(String(parts[2])) {
                    database.set(handle, .service(uuid: uuid, endHandle: end, primary: first == "2800"))
                }
            case ("2802", 4):
                if let start = number(parts[1]), let end = number(parts[2]) {
                    database.set(handle, .include(start: start, end: end, uuid: BTUUID(String(parts[3]))))
                }
            case ("2803", 4):
                if let valueHandle = number(parts[1]), let properties = number(parts[2]), let uuid = BTUUID(String(parts[3])) {
                    database.set(handle, .declaration(uuid: uuid, properties: UInt8(truncatingIfNeeded: properties), valueHandle: valueHandle))
                    database.set(valueHandle, .value(characteristic: uuid))
                }
            default:
                // A descriptor: its UUID, possibly after a value ("0x0001:2900").
                if let uuid = BTUUID(String(parts.last!)) { descriptors.append((handle, uuid)) }
            }
        }
        for (handle, uuid) in descriptors { database.learnType(handle, uuid) }
        return database
    }
}
