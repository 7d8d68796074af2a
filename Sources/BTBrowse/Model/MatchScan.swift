import BTCapture
import BTDecode
import BTQuery
import Foundation

/// The packets of a PacketIndex that a chain of stages keeps (the filter and quick filters as
/// `btlog show` compiles them, the annotations a filter on flags and comments reads), found on
/// a thread of its own while the list shows those found so far: a new filter over 500,000
/// packets never holds the screen still. A scan is decoded again from the index's saved
/// Sessions, so a packet it keeps is decoded exactly as the list and the tree show it.
public final class MatchScan: @unchecked Sendable { // the mutable state is behind `lock`
    private let index: PacketIndex
    private var stages: [any PacketStage]
    private let buildsDisplayText: Bool
    /// What the stages read, and nothing for a view: the scan only notes which packets they
    /// keep (the list decodes its rows again), so no summary unless a stage reads them.
    private let keptFields: FieldMask
    private let lock = NSLock()
    private var found: [Int32] = []
    private var scannedCount = 0
    private var counts = CaptureStatistics()
    private var cancelled = false
    private let done = NSCondition()
    private var finished = true

    /// A scan of `index` through `stages`, in their order, as the pipeline runs them.
    public init(index: PacketIndex, stages: [any PacketStage]) {
        self.index = index
        self.stages = stages
        buildsDisplayText = stages.needDisplayText(viewShowsFieldText: false)
        keptFields = stages.fieldsToKeep(viewReads: .only([]))
    }

    /// The indices (0-based) of the packets kept so far, ascending.
    public var matches: [Int32] {
        lock.withLock { found }
    }

    public var matchCount: Int {
        lock.withLock { found.count }
    }

    /// The counts of the packets kept so far (the status line of what is listed).
    public var statistics: CaptureStatistics {
        lock.withLock { counts }
    }

    /// How many packets of the index the scan has decided on.
    public var scanned: Int {
        lock.withLock { scannedCount }
    }

    /// Whether the scan has stopped: at the end of what the index held, at a stage that kept
    /// its last packet (`-c`), or cancelled.
    public var isFinished: Bool {
        done.lock()
        defer { done.unlock() }
        return finished
    }

    /// Scans on a thread of its own, from where it stopped to the index's end as it is now
    /// (a followed capture's new packets: call it again).
    public func start() {
        done.lock()
        guard finished else {
            done.unlock()
            return
        }
        finished = false
        done.unlock()
        let thread = Thread { [self] in
            run()
            done.lock()
            finished = true
            done.broadcast()
            done.unlock()
        }
        thread.stackSize = 1 << 22
        thread.start()
    }

    /// Stops the scan at the next run of packets; what it found stays.
    public func cancel() {
        lock.withLock { cancelled = true }
    }

    /// Waits until the scan stops.
    public func wait() {
        done.lock()
        while !finished { done.wait() }
        done.unlock()
    }

    /// Scans on the calling thread (what `start` runs).
    public func run() {
        let context = StageContext(captureStart: index.timestamp(at: 0) ?? 0)
        // A run of packets at a time, each starting at a saved Session: nothing decoded twice,
        // and a cancel or a new filter waits at most one run.
        let run = index.interval
        while true {
            lock.lock()
            let from = scannedCount
            let stop = cancelled
            lock.unlock()
            let end = index.count
            if stop || from >= end { return }
            let to = min(end, (from / run + 1) * run)
            var kept: [Int32] = []
            var keptCounts = CaptureStatistics()
            var stopped = false
            var position = from
            index.decode(from ..< to, buildsDisplayText: buildsDisplayText, keeping: keptFields) { packet in
                defer { position += 1 }
                guard !stopped else { return }
                let (keep, stop) = stages.admit(&packet, context: context)
                if keep {
                    kept.append(Int32(truncatingIfNeeded: position))
                    keptCounts.add(packet)
                }
                if stop { stopped = true }
            }
            lock.lock()
            found += kept
            counts.merge(keptCounts)
            scannedCount = to
            if stopped { cancelled = true }
            lock.unlock()
        }
    }
}
