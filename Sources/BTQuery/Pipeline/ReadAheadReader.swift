import BTCapture
import Foundation

/// A reader read on a thread of its own, a few batches of frames ahead of its consumer: for a
/// reader whose own work is worth a core (the merge's: reading several captures, pairing their
/// PDUs) when the sink leaves the second core idle (the table). The consumer sees the same
/// frames, warnings and failure at the same places as from the reader itself: each warning is
/// given out with the frame whose reading raised it, a failure after the frames before it.
/// Memory holds `batches` × `batchSize` frames at most.
public final class ReadAheadReader: FrameReader, @unchecked Sendable {
    private struct Batch {
        var frames: [Frame] = []
        /// Warnings raised while reading the frame at that position (at `frames.count`: while
        /// reading past the last one).
        var warnings: [(position: Int, warning: CaptureWarning)] = []
        /// What ended the reading after these frames, if it failed.
        var failure: Error?
        var isLast = false
    }

    static let batchSize = 256

    public let base: FrameReader
    public let formatDescription: String
    public let nativeFormat: CaptureFileFormat
    public let keysAhead: KeysAhead
    public var warnings: [CaptureWarning] = []

    private let condition = NSCondition()
    private var full: [Batch] = []
    private var spare: [Batch]
    private var started = false
    private var stopping = false
    private var threadDone = false

    /// Owned by the consumer's thread.
    private var current = Batch()
    private var position = 0
    private var warningIndex = 0

    public init(_ base: FrameReader, batches: Int = 4) {
        self.base = base
        formatDescription = base.formatDescription
        nativeFormat = base.nativeFormat
        keysAhead = base.keysAhead
        spare = Array(repeating: Batch(), count: batches)
        // What opening it raised: given out before the first frame, as the reader would.
        warnings = base.warnings
        base.warnings.removeAll()
    }

    public func next() throws -> Frame? {
        if !started {
            started = true
            let thread = Thread { [self] in fill() }
            thread.name = "btlog reader"
            thread.start()
        }
        while true {
            giveWarnings(through: position)
            if position < current.frames.count {
                position += 1
                return current.frames[position - 1]
            }
            if current.isLast {
                if let failure = current.failure {
                    current.failure = nil
                    throw failure
                }
                return nil
            }
            takeNextBatch()
        }
    }

    /// Stops the reading thread and waits until it has let go of `base`, which the caller may
    /// then read again (a merge's counts). Frames read ahead and not taken are dropped.
    public func stop() {
        condition.lock()
        defer { condition.unlock() }
        guard started else { return }
        stopping = true
        condition.broadcast()
        while !threadDone { condition.wait() }
    }

    /// The warnings raised while reading the frames up to `position`, given out in order.
    private func giveWarnings(through position: Int) {
        while warningIndex < current.warnings.count, current.warnings[warningIndex].position <= position {
            warnings.append(current.warnings[warningIndex].warning)
            warningIndex += 1
        }
    }

    private func takeNextBatch() {
        var done = Batch()
        swap(&done, &current)
        done.frames.removeAll(keepingCapacity: true)
        done.warnings.removeAll()
        condition.lock()
        spare.append(done)
        condition.broadcast()
        while full.isEmpty { condition.wait() }
        current = full.removeFirst()
        condition.unlock()
        position = 0
        warningIndex = 0
    }

    // MARK: The reading thread

    private func fill() {
        var ended = false
        while !ended {
            condition.lock()
            while spare.isEmpty && !stopping { condition.wait() }
            if stopping {
                threadDone = true
                condition.broadcast()
                condition.unlock()
                return
            }
            var batch = spare.removeLast()
            condition.unlock()
            while batch.frames.count < Self.batchSize {
                let frame: Frame?
                do {
                    frame = try base.next()
                } catch {
                    batch.failure = error
                    frame = nil
                }
                if base.hasWarnings {
                    for warning in base.warnings { batch.warnings.append((batch.frames.count, warning)) }
                    base.warnings.removeAll()
                }
                guard let frame else {
                    batch.isLast = true
                    ended = true
                    break
                }
                batch.frames.append(frame)
            }
            condition.lock()
            full.append(batch)
            condition.broadcast()
            condition.unlock()
        }
        condition.lock()
        threadDone = true
        condition.broadcast()
        condition.unlock()
    }
}
