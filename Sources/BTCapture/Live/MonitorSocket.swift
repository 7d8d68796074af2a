#if canImport(Glibc)
import Glibc

/// The Linux kernel's HCI monitor channel: one raw Bluetooth socket that sees every
/// controller's traffic (what btmon reads).
public enum MonitorSocket {
    // From the kernel's include/net/bluetooth/bluetooth.h and hci.h; Glibc does not export them.
    static let addressFamily: Int32 = 31          // AF_BLUETOOTH
    static let hciProtocol: Int32 = 1             // BTPROTO_HCI
    static let monitorChannel: UInt16 = 2         // HCI_CHANNEL_MONITOR
    static let noDevice: UInt16 = 0xFFFF          // HCI_DEV_NONE
    static let receiveBufferForce: Int32 = 33     // SO_RCVBUFFORCE
    static let memoryInfo: Int32 = 55             // SO_MEMINFO
    static let memoryInfoDrops = 8                // SK_MEMINFO_DROPS
    static let timestampOption: Int32 = 29        // SO_TIMESTAMP (struct timeval)
    static let rawSocket: Int32 = 3               // SOCK_RAW
    static let closeOnExec: Int32 = 0o2000000     // SOCK_CLOEXEC

    /// What the receive buffer is asked to hold: the kernel drops monitor frames silently when
    /// it is full, and a burst of ACL at full speed fills the default 208 KiB in milliseconds.
    public static let receiveBufferBytes: Int32 = 32 << 20

    public struct Opened {
        public let fd: Int32
        /// The receive buffer the kernel granted (it doubles the request and caps it).
        public let receiveBuffer: Int
        /// True when SO_RCVBUFFORCE worked (CAP_NET_ADMIN); otherwise rmem_max capped it.
        public let forcedBuffer: Bool
    }

    /// Opens and binds the monitor socket, with an error that says what to do when it fails.
    public static func open() throws -> Opened {
        let fd = socket(addressFamily, rawSocket | closeOnExec, hciProtocol)
        if fd < 0 { throw openError(errno, step: "socket") }
        var on: Int32 = 1
        if setsockopt(fd, SOL_SOCKET, timestampOption, &on, socklen_t(MemoryLayout<Int32>.size)) != 0 {
            let code = errno
            close(fd)
            throw CaptureError("capture: cannot ask the kernel for timestamps: \(systemErrorText(code))")
        }
        var size = receiveBufferBytes
        let forced = setsockopt(fd, SOL_SOCKET, receiveBufferForce, &size, socklen_t(MemoryLayout<Int32>.size)) == 0
        if !forced { _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }

        // struct sockaddr_hci { sa_family_t hci_family; unsigned short hci_dev, hci_channel; }
        var address: [UInt16] = [UInt16(addressFamily), noDevice, monitorChannel]
        let bound = address.withUnsafeMutableBytes { raw in
            bind(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
        }
        if bound != 0 {
            let code = errno
            close(fd)
            throw openError(code, step: "bind")
        }
        return Opened(fd: fd, receiveBuffer: receiveBufferSize(fd), forcedBuffer: forced)
    }

    static func openError(_ code: Int32, step: String) -> CaptureError {
        switch code {
        case EPERM, EACCES:
            return CaptureError("capture needs CAP_NET_RAW (run as root, or: sudo setcap cap_net_raw+ep $(which btlog))")
        case EAFNOSUPPORT, EPROTONOSUPPORT, ESOCKTNOSUPPORT:
            return CaptureError("capture: this kernel has no Bluetooth support (AF_BLUETOOTH: \(systemErrorText(code))); load it with 'modprobe bluetooth', or capture on a machine with Bluetooth and open the file here")
        default:
            return CaptureError("capture: cannot open the HCI monitor socket (\(step)): \(systemErrorText(code))")
        }
    }

    public static func receiveBufferSize(_ fd: Int32) -> Int {
        var size: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, &length) == 0 ? Int(size) : 0
    }

    /// Frames the kernel dropped because the receive buffer was full (SO_MEMINFO), if it says.
    public static func kernelDrops(_ fd: Int32) -> UInt32? {
        var info = [UInt32](repeating: 0, count: 16)
        var length = socklen_t(info.count * 4)
        let result = info.withUnsafeMutableBytes { getsockopt(fd, SOL_SOCKET, memoryInfo, $0.baseAddress, &length) }
        guard result == 0, Int(length) / 4 > memoryInfoDrops else { return nil }
        return info[memoryInfoDrops]
    }
}
#endif
