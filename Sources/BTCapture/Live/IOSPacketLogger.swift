import Foundation
#if canImport(Glibc)
import Glibc

/// An iPhone's or iPad's Bluetooth packet logger (the lockdown service
/// com.apple.bluetooth.BTPacketLogger, which the device offers once Apple's Bluetooth logging
/// profile is installed), reached through libimobiledevice. The library is opened when a
/// capture asks for it, not linked: btlog builds and runs without it, and Debian's 1.3.0 (which
/// has no packet-logger client of its own) is enough, since its lockdown and service API start
/// any service by name and read its bytes.
///
/// The service sends each PacketLogger record (big-endian, as a .pklg file holds it) after a
/// 2-byte little-endian length. A thread reads the service and writes the records, without
/// their lengths, to a socket pair: the capture reads the other end as a PacketLogger stream,
/// as it reads any stream.
public enum IOSPacketLogger {
    public static let serviceName = "com.apple.bluetooth.BTPacketLogger"

    /// A device usbmuxd lists.
    public struct Device: Sendable, Equatable {
        public let udid: String
        public let overNetwork: Bool
    }

    /// Opens the packet logger of the device `udid` names (or the only one connected by USB):
    /// the descriptor to read its records from, and the device's name.
    public static func open(udid: String?) throws -> (fd: Int32, name: String, closing: () -> Void) {
        let library = try MobileDeviceLibrary.load()
        let devices = try library.devices()
        let usb = devices.filter { !$0.overNetwork }
        let chosen: String
        if let udid {
            guard devices.contains(where: { $0.udid == udid }) else {
                throw CaptureError("no iPhone or iPad \(udid): \(devices.isEmpty ? "usbmuxd lists no device" : "usbmuxd lists \(devices.map(\.udid).joined(separator: ", "))")")
            }
            chosen = udid
        } else {
            guard !usb.isEmpty else {
                throw CaptureError("no iPhone or iPad: connect it by USB, unlock it, and tap Trust on \"Trust This Computer?\"")
            }
            guard usb.count == 1 else {
                throw CaptureError("several iPhones or iPads: choose one with --udid UDID: \(usb.map(\.udid).joined(separator: ", "))")
            }
            chosen = usb[0].udid
        }
        return try library.startPacketLogger(udid: chosen)
    }

    /// What a lockdown error means to the person holding the device.
    static func lockdownMessage(_ code: Int32, udid: String) -> String {
        switch code {
        case -17: return "\(udid) is locked: unlock it (its passcode) and try again"
        case -18: return "\(udid) refused this computer (Don't Trust was tapped): plug it in again and tap Trust"
        case -19: return "\(udid) asks \"Trust This Computer?\": tap Trust on the device, then try again"
        case -20, -21, -29, -31:
            return "\(udid) is not paired with this computer (or no longer): unlock it, run idevicepair pair, and tap Trust on the device"
        case -8: return "\(udid): usbmuxd lost the device (unplugged?)"
        case -5: return "\(udid): the secure session with the device failed (its pairing may be stale: idevicepair unpair, then idevicepair pair)"
        default: return "\(udid): lockdown refused the connection (error \(code))"
        }
    }

    static func serviceMessage(_ code: Int32, udid: String) -> String {
        switch code {
        case -27, -26:
            return "\(udid) offers no Bluetooth packet logger: install Apple's Bluetooth logging profile on it (developer.apple.com/bug-reporting/profiles-and-logs/, \"Bluetooth\"), then restart the device"
        case -34: return "\(udid) does not let this computer start its Bluetooth packet logger (service prohibited)"
        case -28: return "\(udid) runs too many services at once: end other tools using the device and try again"
        default: return "\(udid): the Bluetooth packet logger could not be started (lockdown error \(code))"
        }
    }
}

/// libimobiledevice's functions btlog uses, looked up at run time.
final class MobileDeviceLibrary: @unchecked Sendable {
    typealias ListDevices = @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutableRawPointer?>?>?, UnsafeMutablePointer<Int32>?) -> Int32
    typealias FreeList = @convention(c) (UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> Int32
    typealias NewDevice = @convention(c) (UnsafeMutablePointer<OpaquePointer?>?, UnsafePointer<CChar>?, Int32) -> Int32
    typealias FreeHandle = @convention(c) (OpaquePointer?) -> Int32
    typealias NewLockdown = @convention(c) (OpaquePointer?, UnsafeMutablePointer<OpaquePointer?>?, UnsafePointer<CChar>?) -> Int32
    typealias StartService = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    typealias DeviceName = @convention(c) (OpaquePointer?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32
    typealias NewService = @convention(c) (OpaquePointer?, OpaquePointer?, UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    typealias Receive = @convention(c) (OpaquePointer?, UnsafeMutablePointer<CChar>?, UInt32, UnsafeMutablePointer<UInt32>?, UInt32) -> Int32

    /// The names Debian's libimobiledevice6 (1.3.0) and newer releases give the library.
    static let names = ["libimobiledevice-1.0.so.6", "libimobiledevice.so.6", "libimobiledevice-1.0.so"]

    let listDevices: ListDevices, freeList: FreeList, newDevice: NewDevice, freeDevice: FreeHandle
    let newLockdown: NewLockdown, freeLockdown: FreeHandle, startService: StartService, freeDescriptor: FreeHandle
    let deviceName: DeviceName?
    let newService: NewService, receive: Receive, freeService: FreeHandle

    static func load() throws -> MobileDeviceLibrary {
        guard let handle = names.lazy.compactMap({ dlopen($0, RTLD_NOW) }).first else {
            throw CaptureError("--ios needs libimobiledevice, which is not installed (Debian: apt-get install libimobiledevice6 usbmuxd)")
        }
        func symbol<T>(_ name: String, as type: T.Type) throws -> T {
            guard let address = dlsym(handle, name) else {
                throw CaptureError("--ios: this libimobiledevice has no \(name) (btlog needs release 1.3.0 or later)")
            }
            return unsafeBitCast(address, to: type)
        }
        return MobileDeviceLibrary(
            listDevices: try symbol("idevice_get_device_list_extended", as: ListDevices.self),
            freeList: try symbol("idevice_device_list_extended_free", as: FreeList.self),
            newDevice: try symbol("idevice_new_with_options", as: NewDevice.self),
            freeDevice: try symbol("idevice_free", as: FreeHandle.self),
            newLockdown: try symbol("lockdownd_client_new_with_handshake", as: NewLockdown.self),
            freeLockdown: try symbol("lockdownd_client_free", as: FreeHandle.self),
            startService: try symbol("lockdownd_start_service", as: StartService.self),
            freeDescriptor: try symbol("lockdownd_service_descriptor_free", as: FreeHandle.self),
            deviceName: try? symbol("lockdownd_get_device_name", as: DeviceName.self),
            newService: try symbol("service_client_new", as: NewService.self),
            receive: try symbol("service_receive_with_timeout", as: Receive.self),
            freeService: try symbol("service_client_free", as: FreeHandle.self))
    }

    private init(listDevices: ListDevices, freeList: FreeList, newDevice: NewDevice, freeDevice: FreeHandle,
                 newLockdown: NewLockdown, freeLockdown: FreeHandle, startService: StartService, freeDescriptor: FreeHandle,
                 deviceName: DeviceName?, newService: NewService, receive: Receive, freeService: FreeHandle) {
        self.listDevices = listDevices; self.freeList = freeList; self.newDevice = newDevice; self.freeDevice = freeDevice
        self.newLockdown = newLockdown; self.freeLockdown = freeLockdown; self.startService = startService
        self.freeDescriptor = freeDescriptor; self.deviceName = deviceName
        self.newService = newService; self.receive = receive; self.freeService = freeService
    }

    /// The devices usbmuxd lists (struct idevice_info: char *udid; enum conn_type; void *conn_data).
    func devices() throws -> [IOSPacketLogger.Device] {
        var list: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        var count: Int32 = 0
        guard listDevices(&list, &count) == 0 else {
            throw CaptureError("cannot reach usbmuxd, which connects to iPhones and iPads (Debian: apt-get install usbmuxd; it starts when a device is plugged in)")
        }
        defer { _ = freeList(list) }
        var devices: [IOSPacketLogger.Device] = []
        for index in 0 ..< Int(max(0, count)) {
            guard let info = list?[index], let udid = info.load(as: UnsafePointer<CChar>?.self) else { continue }
            let connection = info.load(fromByteOffset: MemoryLayout<UnsafeRawPointer>.size, as: Int32.self)
            devices.append(.init(udid: String(cString: udid), overNetwork: connection == 2))
        }
        return devices
    }

    /// Connects to the device, starts its packet logger, and pumps its records into a socket pair.
    func startPacketLogger(udid: String) throws -> (fd: Int32, name: String, closing: () -> Void) {
        var device: OpaquePointer?
        // USB or the network, as usbmuxd has it (USB preferred).
        guard newDevice(&device, udid, 1 << 1 | 1 << 2) == 0, device != nil else {
            throw CaptureError("\(udid): the device went away (unplugged?)")
        }
        var lockdown: OpaquePointer?
        let handshake = newLockdown(device, &lockdown, "btlog")
        guard handshake == 0 else {
            _ = freeDevice(device)
            throw CaptureError(IOSPacketLogger.lockdownMessage(handshake, udid: udid))
        }
        var name = udid
        if let deviceName {
            var text: UnsafeMutablePointer<CChar>?
            if deviceName(lockdown, &text) == 0, let text {
                name = "\(String(cString: text)) (\(udid))"
                free(text)
            }
        }
        var descriptor: OpaquePointer?
        let started = startService(lockdown, IOSPacketLogger.serviceName, &descriptor)
        _ = freeLockdown(lockdown)
        guard started == 0, descriptor != nil else {
            _ = freeDevice(device)
            throw CaptureError(IOSPacketLogger.serviceMessage(started, udid: udid))
        }
        var service: OpaquePointer?
        let opened = newService(device, descriptor, &service)
        _ = freeDescriptor(descriptor)
        guard opened == 0, service != nil else {
            _ = freeDevice(device)
            throw CaptureError("\(udid): cannot connect to the Bluetooth packet logger (service error \(opened))")
        }
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, TCPConnection.streamSocket, 0, &pair) == 0 else {
            _ = freeService(service); _ = freeDevice(device)
            throw CaptureError("capture: cannot create a socket pair: \(systemErrorText(errno))")
        }
        for fd in pair { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let pump = RecordPump(library: self, service: service, device: device, out: pair[1])
        let thread = Thread { pump.run() }
        thread.name = "btlog-ios"
        thread.start()
        let reading = pair[0]
        return (reading, name, {
            pump.stop()
            close(reading)
        })
    }
}

/// Reads the service's length-prefixed records and writes each record to the socket; ends (and
/// closes its end, which ends the capture's stream) when the device goes or the capture stops.
final class RecordPump: @unchecked Sendable {
    let library: MobileDeviceLibrary
    let service: OpaquePointer?
    let device: OpaquePointer?
    let out: Int32
    private let lock = NSLock()
    private var stopping = false

    init(library: MobileDeviceLibrary, service: OpaquePointer?, device: OpaquePointer?, out: Int32) {
        self.library = library
        self.service = service
        self.device = device
        self.out = out
    }

    func stop() {
        lock.lock(); stopping = true; lock.unlock()
    }

    private var isStopping: Bool {
        lock.lock(); defer { lock.unlock() }
        return stopping
    }

    func run() {
        defer {
            _ = library.freeService(service)
            _ = library.freeDevice(device)
            close(out)
        }
        var framing = RecordFraming()
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while !isStopping {
            var received: UInt32 = 0
            let status = buffer.withUnsafeMutableBytes { raw in
                library.receive(service, raw.baseAddress?.assumingMemoryBound(to: CChar.self), UInt32(raw.count), &received, 250)
            }
            if received > 0 {
                guard let records = framing.feed(buffer[..<Int(received)]) else { return }
                if !records.isEmpty && !send(records) { return }
            }
            // Timeouts and short reads go on; anything else is the device gone.
            if status != 0 && status != -7 && status != -6 { return }
        }
    }

    // MSG_NOSIGNAL (a closed reader is an error to return, not SIGPIPE), which the release
    // build's Glibc module does not show.
    static let noSignal: Int32 = 0x4000

    private func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(out, $0.baseAddress, $0.count, Self.noSignal) }
            if sent < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += sent
        }
        return true
    }
}

/// The service's framing: a 2-byte length, then a PacketLogger record of that many bytes whose
/// own first 4 bytes say the same length less 4. The records are big-endian (as idevicebtlogger
/// reads them); the prefix is in the host's order as libimobiledevice reads it (little-endian
/// on every machine it runs on). Both orders are taken from the first record that agrees with
/// itself, and a little-endian record is turned big-endian, so the reader sees one layout.
public struct RecordFraming {
    private var pending: [UInt8] = []
    private var order: (prefixBigEndian: Bool, recordBigEndian: Bool)?

    /// The whole records `bytes` completes, without their prefixes; nil when the stream is not
    /// this framing.
    public init() {}

    public mutating func feed(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
        pending += bytes
        var out: [UInt8] = []
        var offset = 0
        while pending.count - offset >= 6 {
            let p = offset
            let prefixes = (little: Int(pending[p]) | Int(pending[p + 1]) << 8, big: Int(pending[p]) << 8 | Int(pending[p + 1]))
            let inner = (little: Int(pending[p + 2]) | Int(pending[p + 3]) << 8 | Int(pending[p + 4]) << 16 | Int(pending[p + 5]) << 24,
                         big: Int(pending[p + 2]) << 24 | Int(pending[p + 3]) << 16 | Int(pending[p + 4]) << 8 | Int(pending[p + 5]))
            if order == nil {
                for candidate in [(false, true), (true, true), (false, false), (true, false)] {
                    let length = candidate.0 ? prefixes.big : prefixes.little
                    if length >= 13 && (candidate.1 ? inner.big : inner.little) == length - 4 { order = candidate; break }
                }
                guard order != nil else { return nil }
            }
            let length = order!.prefixBigEndian ? prefixes.big : prefixes.little
            guard length >= 13, (order!.recordBigEndian ? inner.big : inner.little) == length - 4 else { return nil }
            guard pending.count - offset >= 2 + length else { break }
            var record = Array(pending[(p + 2) ..< (p + 2 + length)])
            if !order!.recordBigEndian {
                // Length, seconds, microseconds: each 4 bytes, reversed.
                for field in stride(from: 0, to: 12, by: 4) { record[field ..< field + 4].reverse() }
            }
            out += record
            offset += 2 + length
        }
        pending.removeFirst(offset)
        return out
    }
}
#endif
