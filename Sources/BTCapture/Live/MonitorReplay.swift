#if canImport(Glibc)
import Glibc

/// The kernel's replay to a newly bound monitor socket: New Index, Index Info and Open Index
/// for every controller it has (plus notes and open control sockets).
public enum MonitorReplay {
    /// Opens the monitor socket, reads what it is sent until it has been quiet a moment, closes it.
    public static func read(quietPeriod: Double = 0.2) throws -> [Frame] {
        let socket = try MonitorSocket.open()
        defer { close(socket.fd) }
        var configuration = MonitorReceiver.Configuration()
        configuration.idleTimeout = quietPeriod
        let receiver = MonitorReceiver(fd: socket.fd, configuration: configuration, wake: try WakePipe())
        receiver.start()
        let reader = LiveFrameReader(receiver: receiver, name: "monitor")
        var frames: [Frame] = []
        while let frame = try reader.next() { frames.append(frame) }
        receiver.waitUntilFinished()
        return frames
    }
}
#endif
