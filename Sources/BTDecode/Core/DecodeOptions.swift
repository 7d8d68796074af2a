import BTCapture
import Foundation

/// How a Decoder decodes: which texts to build and what it knows beyond the capture. One value
/// per run, handed to the Decoder and carried by its Session; nothing in BTDecode reads a
/// global, so two files or two threads decode at once without affecting each other.
public struct DecodeOptions: Sendable {
    /// Build every field's display text and every layer's summary: the tree prints them (and
    /// search will read them). Off, layers keep values and the top summary only, which is all
    /// the table and `--fields` print; building the text costs more than the rest of decoding.
    public var buildsDisplayText = true
    /// The fields layers keep: all of them (the tree, JSON, statistics), or those the view and
    /// its stages read (the table reads none above its columns). What the Session keeps is the
    /// same either way: decoders keep state from the values they read, never from fields.
    public var keptFields = FieldMask.all
    /// Names for vendor UUIDs (`--uuids`), ahead of the assigned numbers.
    public var uuidNames = UUIDNames.standard
    /// GATT databases known before the capture (BlueZ's cache), by peer address: a remote
    /// server the capture has not discovered starts from its cached database.
    public var gattCache: [BDAddr: GATTDatabase] = [:]
    /// Keep the last value seen for each known GATT handle (the `gatt` command prints them). Off
    /// for every other view: keeping a copy of each notification's value costs about as much
    /// as naming its handle.
    public var keepsLastValues = false
    /// Long-term keys for air captures' encrypted links (`--ltk`, `--keys`), most significant
    /// octet first as people write them; each is also tried the other way round.
    public var linkLayerKeys: [[UInt8]] = []
    /// Identity resolving keys (`--irk`), most significant octet first, each with the identity
    /// address it stands for where known: every resolvable private address they resolve names
    /// that device (`identity.*`).
    public var identityKeys: [(irk: [UInt8], address: BDAddr?)] = []
    /// Identity resolving keys the captures show further on (a merge's alignment found them in
    /// its sources, `FrameReader.keysAhead`): known from the first packet, each credited to
    /// its own packet once decoding reaches it.
    public var identityKeysAhead = KeysAhead()
    /// Passkey searches done so far, shared by every decoder in the process (a search's result
    /// depends only on what it searched): a packet decoded again (the browser opens it from a
    /// saved Session, a filter scans the capture once more) and a merge's air capture decoded
    /// three times (to align, to pair, to show) do not try a million keys again.
    public let keySearches = KeySearches.shared
    /// Protocols described in files (`--protocol`, the protocols folder): what selects them,
    /// their layouts. Set with `describe(_:)`, which also names their UUIDs.
    public private(set) var described = DescribedProtocols()
    /// What channels and handles carry where the capture does not show it (`--decode-as`).
    public private(set) var decodeAs = DecodeAsRules()

    /// Adds a decode-as rule (a later one for the same CID, PSM, channel or handle wins).
    public mutating func decode(as rule: DecodeAsRule) {
        decodeAs.add(rule)
        if case .attHandle(let handle) = rule.selector, case .described(let protocolDescribed, let message) = rule.target {
            described.handleRules[handle] = DescribedTarget(described: protocolDescribed, message: message)
        }
    }

    /// Decodes `protocols` too, and names their characteristics and services as `--uuids` does
    /// (a name the run already has from `--uuids` stays).
    public mutating func describe(_ protocols: DescribedProtocols) {
        described = protocols
        for protocolDescribed in protocols.all {
            for (uuid, name) in protocolDescribed.uuidNames where uuidNames.custom[uuid] == nil { uuidNames.add(uuid, name: name) }
        }
    }

    public init(buildsDisplayText: Bool = true, uuidNames: UUIDNames = .standard, gattCache: [BDAddr: GATTDatabase] = [:],
                keepsLastValues: Bool = false) {
        self.buildsDisplayText = buildsDisplayText
        self.keepsLastValues = keepsLastValues
        self.uuidNames = uuidNames
        self.gattCache = gattCache
    }
}

/// What searches for a pairing's temporary key found, by what they searched (the pairing's
/// values): asked from every thread that decodes.
public final class KeySearches: @unchecked Sendable { // `found` is behind `lock`
    private let lock = NSLock()
    private var found: [[UInt8]: UInt32?] = [:]

    /// The process's: bounded by the pairings its captures hold.
    public static let shared = KeySearches()

    public init() {}

    /// The result of the search for `key`, made by `search` the first time it is asked.
    func result(for key: [UInt8], search: () -> UInt32?) -> UInt32? {
        lock.lock()
        if let known = found[key] {
            lock.unlock()
            return known
        }
        lock.unlock()
        let value = search()
        lock.lock()
        found[key] = value
        lock.unlock()
        return value
    }
}
