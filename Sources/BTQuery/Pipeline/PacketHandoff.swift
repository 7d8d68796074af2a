import BTDecode
import Foundation

/// Decoded packets on their way from the decoding thread to a sink on a thread of its own:
/// a bounded ring of batches. The decoding thread fills a batch in place (each slot a Packet
/// reused from the batch's last round, so decoding still allocates almost nothing), passes it
/// on full, and takes an empty one back; the sink's thread consumes batches in the order they
/// were passed and returns them. Each batch belongs to one thread at a time, handed over under
/// the lock, so neither side touches what the other holds. The Session never leaves the
/// decoding thread: sinks read only the packets.
final class PacketHandoff<Sink: PacketSink>: @unchecked Sendable {
    struct Batch {
        var packets: [Packet] = []
        /// Slots in use; the packets past it are spare storage from an earlier round.
        var count = 0
    }

    /// Packets per batch: enough that the lock is taken rarely, few enough that the ring stays
    /// small (measured on the LE benchmark session: 32 to 256 packets in 2 to 8 batches all run
    /// within noise of each other; 1,024 is slower and larger).
    static var batchSize: Int { 128 }

    private let condition = NSCondition()
    private var full: [Batch] = []
    private var empty: [Batch]
    private var ended = false
    private var sinkDone = false
    /// What the sink threw; the sink's thread stops there, and the decoding thread throws it.
    private var failure: Error?
    /// Owned by the sink's thread from `start` until `finish` returns it.
    private var sink: Sink

    init(_ sink: Sink, batches: Int = 4) {
        self.sink = sink
        empty = Array(repeating: Batch(), count: batches)
    }

    /// Starts the sink's thread.
    func start() {
        let thread = Thread { [self] in drain() }
        // The sink renders whole trees; the default secondary stack (512 KiB) is not the main one's.
        thread.stackSize = 8 << 20
        thread.name = "btlog sink"
        thread.start()
    }

    // MARK: The decoding thread

    /// A batch to fill; waits while the sink is behind. Throws what the sink threw.
    func takeEmpty() throws -> Batch {
        condition.lock()
        defer { condition.unlock() }
        while empty.isEmpty && failure == nil { condition.wait() }
        if let failure { throw failure }
        var batch = empty.removeLast()
        batch.count = 0
        return batch
    }

    /// Passes a full batch and takes an empty one in its place.
    func exchange(_ batch: inout Batch) throws {
        pass(&batch)
        batch = try takeEmpty()
    }

    /// Passes `batch` on, leaving an empty one in its place: the decoding thread keeps no
    /// reference to what it passed, so the sink's thread holds the only one and can write to
    /// its packets without copying them (a second reference, held while the decoding thread
    /// waits for an empty batch, made every write copy the whole batch).
    func pass(_ batch: inout Batch) {
        var passed = Batch()
        swap(&passed, &batch)
        condition.lock()
        full.append(consume passed)
        condition.broadcast()
        condition.unlock()
    }

    /// No more batches: waits until the sink consumed every one passed, and gives the sink back
    /// (its state after the last packet) with what it threw, if it threw.
    func finish() -> (Sink, Error?) {
        condition.lock()
        defer { condition.unlock() }
        ended = true
        condition.broadcast()
        while !sinkDone { condition.wait() }
        return (sink, failure)
    }

    // MARK: The sink's thread

    private func drain() {
        while true {
            condition.lock()
            while full.isEmpty && !ended { condition.wait() }
            if full.isEmpty {
                sinkDone = true
                condition.broadcast()
                condition.unlock()
                return
            }
            var batch = full.removeFirst()
            condition.unlock()
            do {
                let count = batch.count
                try batch.packets.withUnsafeMutableBufferPointer { packets in
                    let base = packets.baseAddress!
                    for index in 0 ..< count {
                        // Moved out and back (bitwise): reading a packet through the array or a
                        // pointer would copy it, retaining and releasing everything it holds.
                        let packet = (base + index).move()
                        do {
                            try sink.consume(packet)
                        } catch {
                            (base + index).initialize(to: packet)
                            throw error
                        }
                        (base + index).initialize(to: packet)
                    }
                }
            } catch {
                condition.lock()
                failure = error
                sinkDone = true
                condition.broadcast()
                condition.unlock()
                return
            }
            // When the sink is ahead (nothing waits for it), it also lets go of what the batch's
            // packets hold, which the decoding thread, the slower one then, would do as it reuses
            // them (the tree's decoding thread: 6% fewer instructions). When the sink is the
            // slower one (JSON Lines), the decoding thread keeps that work.
            condition.lock()
            let sinkIsAhead = full.isEmpty
            condition.unlock()
            if sinkIsAhead {
                let count = batch.count
                batch.packets.withUnsafeMutableBufferPointer { packets in
                    for index in 0 ..< count { packets[index].releaseContents() }
                }
            }
            batch.count = 0
            condition.lock()
            empty.append(consume batch) // the decoding thread's alone from here: no copy when it writes
            condition.broadcast()
            condition.unlock()
        }
    }
}

/// Whether sinks get a thread of their own: when this process may use more than one CPU
/// (taskset, cgroup cpusets), unless BTLOG_THREADS says otherwise (1: one thread; 2 or more: a
/// sink thread even on one CPU, for tests and measurements).
public enum SinkThreading {
    public static let available: Bool = {
        if let setting = ProcessInfo.processInfo.environment["BTLOG_THREADS"], let threads = Int(setting) {
            return threads > 1
        }
        return usableCPUs > 1
    }()

    /// How many inputs to decode at once where the output allows it (InputJobs): the usable
    /// CPUs, or BTLOG_THREADS.
    public static let inputsAtOnce: Int = {
        if let setting = ProcessInfo.processInfo.environment["BTLOG_THREADS"], let threads = Int(setting) {
            return max(1, threads)
        }
        return usableCPUs
    }()

    /// CPUs in this process's affinity mask (what taskset -c and cpusets set), from the kernel's
    /// "Cpus_allowed" line (Foundation's processor counts ignore the mask), or the online count.
    static var usableCPUs: Int {
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
           let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") }) {
            let mask = line.dropFirst("Cpus_allowed:".count)
            let count = mask.reduce(0) { count, character in count + (character.hexDigitValue ?? 0).nonzeroBitCount }
            if count > 0 { return count }
        }
        return ProcessInfo.processInfo.activeProcessorCount
    }
}
