import BTCapture
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A progress line on standard error while a long export reads its input: how far into the
/// file, packets per second, time left. Only on a terminal, only after half a second (a quick
/// export never shows it), at most five redraws a second, erased when the file is read.
/// How far: the read position of the input's descriptor (found in /proc/self/fd), so it holds
/// for every format and for compressed files (the compressed bytes read of their total).
final class ProgressLine {
    let name: String
    let total: Int64
    var descriptor: Int32?
    var frames = 0
    let start: Double
    var lastDraw: Double = 0
    var drawn = false
    /// Seconds before the first draw (BTLOG_PROGRESS_DELAY overrides it, for tests).
    static let delay: Double = getenv("BTLOG_PROGRESS_DELAY").flatMap { Double(String(cString: $0)) } ?? 0.5

    /// nil unless standard error is a terminal and `file` is a regular file.
    init?(file: String, enabled: Bool) {
        guard enabled, isatty(2) != 0, file != "-" else { return nil }
        var info = stat()
        guard stat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size > 0 else { return nil }
        name = file
        total = Int64(info.st_size)
        start = Self.now()
        descriptor = Self.descriptor(of: file, device: info.st_dev, inode: info.st_ino)
    }

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// The descriptor this process has open on the file (same device and inode).
    static func descriptor(of file: String, device: dev_t, inode: ino_t) -> Int32? {
        guard let folder = opendir("/proc/self/fd") else { return nil }
        defer { closedir(folder) }
        while let entry = readdir(folder) {
            let text = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let fd = Int32(text) else { continue }
            var info = stat()
            if fstat(fd, &info) == 0, info.st_dev == device, info.st_ino == inode { return fd }
        }
        return nil
    }

    /// Called for every frame read: cheap but for one frame in 1024.
    func tick() {
        frames += 1
        guard frames & 1023 == 0 else { return }
        redraw()
    }

    /// The count an export reports (every 1,024 frames).
    func update(frames: Int) {
        self.frames = frames
        redraw()
    }

    private func redraw() {
        let now = Self.now()
        guard now - start >= Self.delay, now - lastDraw >= 0.2 else { return }
        lastDraw = now
        draw(now)
    }

    func draw(_ now: Double) {
        let elapsed = max(now - start, 1e-6)
        let rate = Double(frames) / elapsed
        var line = "\r\u{1B}[Kbtlog: export \(name): "
        if let descriptor, case let position = lseek(descriptor, 0, SEEK_CUR), position >= 0 {
            let done = min(1, Double(position) / Double(total))
            let bar = Int(done * 20)
            line += "[" + String(repeating: "#", count: bar) + String(repeating: ".", count: 20 - bar) + "] "
            line += "\(Int(done * 100))% of \(Self.size(total)) · \(Self.count(rate)) packets/s"
            if done > 0.01 { line += " · \(Self.clock(elapsed * (1 - done) / done)) left" }
        } else {
            line += "\(Self.count(Double(frames))) packets · \(Self.count(rate)) packets/s"
        }
        StandardError.write(line)
        drawn = true
    }

    /// Erases the line once the file is read (or the export ends early).
    func finish() {
        if drawn { StandardError.write("\r\u{1B}[K") }
        drawn = false
    }

    static func size(_ bytes: Int64) -> String {
        bytes >= 1 << 30 ? String(format: "%.1f GB", Double(bytes) / 1e9) : String(format: "%.0f MB", max(1, Double(bytes) / 1e6))
    }

    static func count(_ value: Double) -> String {
        value >= 1e6 ? String(format: "%.1fM", value / 1e6) : value >= 1e3 ? String(format: "%.0fk", value / 1e3) : String(Int(value))
    }

    static func clock(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        return whole >= 3600 ? String(format: "%d:%02d:%02d", whole / 3600, whole / 60 % 60, whole % 60) : String(format: "%d:%02d", whole / 60, whole % 60)
    }
}

/// A reader that moves the progress line as frames are read.
final class ProgressReader: FrameReader {
    let base: FrameReader
    let progress: ProgressLine

    init(_ base: FrameReader, progress: ProgressLine) {
        self.base = base
        self.progress = progress
    }

    var formatDescription: String { base.formatDescription }
    var nativeFormat: CaptureFileFormat { base.nativeFormat }
    var warnings: [CaptureWarning] {
        get { base.warnings }
        set {
            // A warning is printed on its own line: the progress line makes room first.
            if !newValue.isEmpty { progress.finish() }
            base.warnings = newValue
        }
    }

    var hasWarnings: Bool { base.hasWarnings }

    func next() throws -> Frame? {
        guard let frame = try base.next() else {
            progress.finish()
            return nil
        }
        progress.tick()
        return frame
    }

    deinit { progress.finish() }
}
