/// Storage for what lives as long as the process (the descriptions of field definitions and
/// layer kinds, made once by static tables and never freed): copied once, read through a
/// pointer, so reading it per packet retains nothing.
enum ProcessLifetime {
    static func copy(_ bytes: some Collection<UInt8>) -> UnsafeBufferPointer<UInt8> {
        let storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
        _ = storage.initialize(from: bytes)
        return UnsafeBufferPointer(storage)
    }
}
