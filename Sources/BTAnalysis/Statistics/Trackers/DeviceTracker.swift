import BTCapture
import BTDecode
import BTQuery

/// Devices seen: advertisers, inquiry results, peers of links; their names, address types and RSSI.
struct DeviceTracker {
    private var devices: [DeviceReport] = []
    private var deviceIndex: [BDAddr: Int] = [:]

    /// The device's position, added when new; a known type replaces the one before.
    mutating func device(_ address: BDAddr, type: UInt8?, at time: Int64) -> Int {
        if let index = deviceIndex[address] {
            if let type { devices[index].addressType = type }
            devices[index].lastSeen = max(devices[index].lastSeen, time)
            return index
        }
        deviceIndex[address] = devices.count
        devices.append(DeviceReport(address: address, addressType: type, firstSeen: time, lastSeen: time))
        return devices.count - 1
    }

    mutating func name(_ name: String, for address: BDAddr, at time: Int64) {
        guard !name.isEmpty else { return }
        let index = device(address, type: nil, at: time)
        devices[index].name = name
    }

    /// A signal strength read for a device (Read RSSI on its link).
    mutating func rssi(_ rssi: Int, for address: BDAddr, at time: Int64) {
        let index = device(address, type: nil, at: time)
        devices[index].rssi.add(Int64(rssi))
    }

    /// Advertising and inquiry reports: each report's address, then its data (a name) and RSSI.
    mutating func reports(_ layer: Layer, packet: Packet, addressField: FieldDefinition, typeField: FieldDefinition?,
                          rssiField: FieldDefinition) {
        let time = packet.frame.timestamp
        var current: Int?
        var type: UInt8?
        for field in layer.fields {
            let definition = field.definition
            let value = field.inlineValue // numbers and addresses; a name (text) is read below
            if let typeField, definition == typeField {
                type = value?.integer.map(UInt8.init(truncatingIfNeeded:))
            } else if definition == addressField, case .address(let address)? = value {
                let index = device(address, type: typeField == nil ? nil : type, at: time)
                devices[index].advertisingReports += 1
                devices[index].packets += 1
                current = index
            } else if definition == rssiField {
                if let index = current, let rssi = value?.integer, rssi != 127 { devices[index].rssi.add(Int64(rssi)) }
            } else if definition == AdvertisingFields.name {
                if let index = current, case .text(let name) = layer.value(of: field), !name.isEmpty { devices[index].name = name }
            }
        }
    }

    /// The devices with their links' packets counted, vendors named (`vendors` is asked for
    /// once, only when a device has a public address), by packets.
    func report(connections: [ConnectionReport], vendors: () -> VendorNames?) -> [DeviceReport] {
        var result = devices
        for connection in connections {
            guard let address = connection.address, let index = deviceIndex[address] else { continue }
            result[index].packets += connection.packetsSent + connection.packetsReceived
            result[index].firstSeen = min(result[index].firstSeen, connection.firstSeen)
            result[index].lastSeen = max(result[index].lastSeen, connection.lastSeen)
        }
        let publicDevices = result.indices.filter { result[$0].addressType.map { $0 == 0 || $0 == 2 } ?? true }
        if !publicDevices.isEmpty, let vendors = vendors() {
            let names = vendors.organisations(of: publicDevices.map { result[$0].address })
            for index in publicDevices { result[index].vendor = names[result[index].address] }
        }
        return result.sorted { $0.packets != $1.packets ? $0.packets > $1.packets : $0.firstSeen < $1.firstSeen }
    }
}
