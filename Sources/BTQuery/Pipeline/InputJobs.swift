import Foundation
import BTCapture
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Several captures decoded at once, when what each prints does not depend on the others
/// (export's line formats, grep -c and -l). Each input's job runs on a thread of its own, at
/// most `width` at a time, and writes into a spool: an unlinked temporary file, so memory
/// stays flat however large the output. The calling thread hands each input's spool on in
/// input order, as soon as every input before it has been handed on, so the output and the
/// messages read exactly as they would one input after another.
public enum InputJobs {
    /// Where one input's job writes: `descriptor` for its output, `warnings` for what it would
    /// have printed on standard error (printed when its turn comes).
    public final class Spool: @unchecked Sendable {
        public let descriptor: Int32
        public var warnings: [String] = []

        init() throws {
            do {
                descriptor = try TemporaryFiles.make(prefix: "btlog-spool", .descriptorOnly).descriptor
            } catch let failure as TemporaryFiles.Failure {
                throw SpoolError(description: "\(failure.description) (TMPDIR)")
            }
        }

        deinit { close(descriptor) }

        /// What the job wrote, from the start, in blocks.
        public func readBack(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
            guard lseek(descriptor, 0, SEEK_SET) == 0 else {
                throw SpoolError(description: "cannot read back a temporary file: \(String(cString: strerror(errno)))")
            }
            let block = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
            defer { block.deallocate() }
            while true {
                let count = read(descriptor, block.baseAddress, block.count)
                if count < 0 {
                    if errno == EINTR { continue }
                    throw SpoolError(description: "cannot read back a temporary file: \(String(cString: strerror(errno)))")
                }
                if count == 0 { return }
                try body(UnsafeRawBufferPointer(rebasing: block[0 ..< count]))
            }
        }
    }

    /// Whether a spool can be made here (TMPDIR writable); if not, inputs are read one at a time.
    public static var canSpool: Bool { (try? Spool()) != nil }

    public struct SpoolError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Runs `job(index, spool)` for every index below `count` on up to `width` threads and calls
    /// `emit(index, spool, outcome)` on the calling thread in index order. When `emit` throws,
    /// no further job starts and the error is rethrown at once: jobs still running are left to
    /// the process's exit (their output is not wanted).
    public static func run<Outcome>(count: Int, width: Int, job: @escaping (Int, Spool) throws -> Outcome,
                                    emit: (Int, Spool?, Result<Outcome, Error>) throws -> Void) throws {
        // Finished spools wait for their turn: at most twice the width of them at a time, so
        // one long input first does not leave every other input's output on disk at once.
        let state = State<Outcome>(count: count, ahead: 2 * max(1, width))
        for _ in 0 ..< max(1, min(width, count)) {
            let thread = Thread { state.work(job) }
            // Decoders and renderers recurse as the main thread's would: give them its stack.
            thread.stackSize = 8 << 20
            thread.name = "btlog input"
            thread.start()
        }
        for index in 0 ..< count {
            let (spool, outcome) = state.wait(for: index)
            do {
                try emit(index, spool, outcome)
            } catch {
                state.stop()
                throw error
            }
        }
    }

    /// The jobs' shared bookkeeping, under one lock.
    final class State<Outcome>: @unchecked Sendable {
        let condition = NSCondition()
        let count: Int
        let ahead: Int
        var next = 0
        var emitted = 0
        var stopped = false
        var done: [Int: (Spool?, Result<Outcome, Error>)] = [:]

        init(count: Int, ahead: Int) {
            self.count = count
            self.ahead = ahead
        }

        func work(_ job: (Int, Spool) throws -> Outcome) {
            while true {
                condition.lock()
                while !stopped && next < count && next - emitted >= ahead { condition.wait() }
                guard !stopped, next < count else {
                    condition.unlock()
                    return
                }
                let index = next
                next += 1
                condition.unlock()
                var spool: Spool?
                let outcome = Result<Outcome, Error> {
                    let made = try Spool()
                    spool = made
                    return try job(index, made)
                }
                condition.lock()
                done[index] = (spool, outcome)
                condition.broadcast()
                condition.unlock()
            }
        }

        func wait(for index: Int) -> (Spool?, Result<Outcome, Error>) {
            condition.lock()
            defer { condition.unlock() }
            while done[index] == nil { condition.wait() }
            emitted = index + 1
            condition.broadcast()
            return done.removeValue(forKey: index)!
        }

        func stop() {
            condition.lock()
            stopped = true
            condition.broadcast()
            condition.unlock()
        }
    }
}
