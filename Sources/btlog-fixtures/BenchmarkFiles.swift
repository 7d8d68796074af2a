import BTCapture
import BTFixtures
import Foundation

/// `btlog-fixtures bench FOLDER [--le N] [--audio N]`: the benchmark's captures, each session
/// in btsnoop (H4) and PacketLogger form, named by session and packet count
/// (le-1000000.btsnoop, audio-200000.pklg). Streamed: memory stays flat at any count.
enum BenchmarkFiles {
    static func write(arguments: [String]) throws {
        var folder: String?
        var counts = (le: 1_000_000, audio: 200_000)
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--le", "--audio":
                guard let value = rest.popFirst().flatMap({ Int($0) }), value >= 0 else {
                    throw CaptureError("\(argument) needs a packet count")
                }
                if argument == "--le" { counts.le = value } else { counts.audio = value }
            default:
                guard folder == nil, !argument.hasPrefix("-") else { throw CaptureError("unexpected argument \(argument)") }
                folder = argument
            }
        }
        guard let folder else { throw CaptureError("usage: btlog-fixtures bench FOLDER [--le N] [--audio N]") }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        if counts.le > 0 { try write(folder, "le-\(counts.le)", BenchmarkSessions.leSession, counts.le) }
        if counts.audio > 0 { try write(folder, "audio-\(counts.audio)", BenchmarkSessions.audioSession, counts.audio) }
    }

    static func write(_ folder: String, _ name: String,
                      _ session: (Int, ([Frame]) throws -> Void) throws -> Void, _ packets: Int) throws {
        let paths = ["\(folder)/\(name).btsnoop", "\(folder)/\(name).pklg"]
        let sinks = try paths.map { try OutputFile(path: $0) }
        let writers = [try CaptureWriters.make(.btsnoopH4, sink: sinks[0]), try CaptureWriters.make(.pklg, sink: sinks[1])]
        try session(packets) { frames in
            for frame in frames {
                for writer in writers { try writer.write(frame) }
            }
        }
        for writer in writers { try writer.close() }
        for path in paths { print("wrote \(path) (\(packets) packets)") }
    }
}
