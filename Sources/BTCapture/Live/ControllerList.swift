#if canImport(Glibc)
import Glibc

/// A controller as the monitor channel announces it: when a monitor socket is bound, the
/// kernel replays New Index, Index Info and Open Index for every controller it has.
public struct ControllerInfo: Equatable, Sendable {
    public var index: UInt16
    public var name = ""
    /// 0 primary (BR/EDR and LE), 1 AMP.
    public var type: UInt8 = 0
    /// The transport: 0 virtual, 1 USB, 3 UART, ... (HCI_VIRTUAL ... in the kernel).
    public var bus: UInt8 = 0
    /// "00:11:22:33:44:55", most significant byte first.
    public var address = ""
    public var manufacturer: UInt16?
    public var isUp = false

    public init(index: UInt16) { self.index = index }
}

public enum ControllerList {
    /// Applies one monitor frame to the list (index frames only).
    public static func apply(_ frame: Frame, to list: inout [UInt16: ControllerInfo]) {
        let bytes = Array(frame.bytes)
        let index = frame.controller
        switch frame.kind {
        case .newIndex where bytes.count >= 8:
            var info = ControllerInfo(index: index)
            info.type = bytes[0]
            info.bus = bytes[1]
            info.address = addressText(bytes[2 ..< 8])
            info.name = String(decoding: bytes.dropFirst(8).prefix(8).prefix { $0 != 0 }, as: UTF8.self)
            list[index] = info
        case .indexInfo where bytes.count >= 8:
            var info = list[index] ?? ControllerInfo(index: index)
            info.address = addressText(bytes[0 ..< 6])
            info.manufacturer = UInt16(bytes[6]) | UInt16(bytes[7]) << 8
            list[index] = info
        case .openIndex: list[index, default: ControllerInfo(index: index)].isUp = true
        case .closeIndex: list[index]?.isUp = false
        case .deleteIndex: list[index] = nil
        default: break
        }
    }

    static func addressText(_ bytes: ArraySlice<UInt8>) -> String {
        Hex.bytes(bytes.reversed(), separator: ":")
    }

    /// Opens the monitor socket, reads the kernel's replay of its controllers and closes it.
    public static func read(quietPeriod: Double = 0.2) throws -> [ControllerInfo] {
        let socket = try MonitorSocket.open()
        defer { close(socket.fd) }
        let pipe = try WakePipe()
        var configuration = MonitorReceiver.Configuration()
        configuration.idleTimeout = quietPeriod
        let receiver = MonitorReceiver(fd: socket.fd, configuration: configuration, wake: pipe)
        receiver.start()
        // The replay is queued at bind time; the receiver stops once the socket is quiet.
        var list: [UInt16: ControllerInfo] = [:]
        let reader = LiveFrameReader(receiver: receiver, name: "monitor")
        while let frame = try reader.next() { apply(frame, to: &list) }
        receiver.waitUntilFinished()
        return list.values.sorted { $0.index < $1.index }
    }
}
#endif
