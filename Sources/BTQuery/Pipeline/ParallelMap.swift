import Foundation

/// `body(index)` for every index below `count`, on up to `threads` threads at once (the
/// calling thread waits): each index's result or failure, in index order. For a few large
/// independent reads (a merge's captures, each read for its PDUs); output that must stream in
/// order goes through InputJobs' spools instead.
enum ParallelMap {
    static func run<Value>(count: Int, threads: Int, _ body: @escaping (Int) throws -> Value) -> [Result<Value, Error>] {
        let width = max(1, min(threads, count))
        guard width > 1 else { return (0 ..< count).map { index in Result { try body(index) } } }
        let state = State<Value>(count: count)
        for _ in 0 ..< width {
            let thread = Thread { state.work(body) }
            // Readers decode as the main thread would (an air capture's link layer): its stack.
            thread.stackSize = 8 << 20
            thread.name = "btlog read"
            thread.start()
        }
        return state.waitForAll(workers: width)
    }

    private final class State<Value>: @unchecked Sendable {
        let condition = NSCondition()
        let count: Int
        // Behind `condition`, as `nextIndex` and `finishedWorkers` are.
        var results: [Result<Value, Error>?]
        var nextIndex = 0
        var finishedWorkers = 0

        init(count: Int) {
            self.count = count
            results = Array(repeating: nil, count: count)
        }

        func work(_ body: (Int) throws -> Value) {
            while true {
                condition.lock()
                let index = nextIndex
                nextIndex += 1
                condition.unlock()
                guard index < count else { break }
                let result = Result { try body(index) }
                condition.lock()
                results[index] = result
                condition.unlock()
            }
            condition.lock()
            finishedWorkers += 1
            condition.broadcast()
            condition.unlock()
        }

        func waitForAll(workers: Int) -> [Result<Value, Error>] {
            condition.lock()
            defer { condition.unlock() }
            while finishedWorkers < workers { condition.wait() }
            return results.map { $0! }
        }
    }
}
