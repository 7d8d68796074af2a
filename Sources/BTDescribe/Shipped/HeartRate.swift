extension ShippedProtocols {
    /// Heart Rate Service (GATT Specification Supplement 3.113 and 3.26).
    static let heartRate = """
    btlog-protocol: 1
    name: Heart Rate
    key: hrs
    description: Heart Rate Service - Heart Rate Measurement and Body Sensor Location
    inline: true
    field-names: short
    gatt:
      - {characteristic: 2A37, message: measurement}
      - {characteristic: 2A38, message: location}
    messages:
      measurement:
        name: Heart Rate Measurement
        fields:
          - name: flags
            type: u8
            bits:
              - {name: rate_format, label: Heart rate value format, bit: 0, values: {0: UINT8, 1: UINT16}}
              - {name: contact, label: Sensor contact, mask: 0x06, values: {0: not supported, 1: not supported, 2: not detected, 3: detected}}
              - {name: energy_present, label: Energy expended present, bit: 3}
              - {name: rr_present, label: RR intervals present, bit: 4}
          - {name: heart_rate, label: Heart rate, type: u16, unit: bpm, if: "flags & 0x01"}
          - {name: heart_rate, label: Heart rate, type: u8, unit: bpm, if: "flags & 0x01 == 0"}
          - {name: energy, label: Energy expended, type: u16, unit: kJ, if: "flags & 0x08"}
          - {name: rr, label: RR interval, type: u16, scale: 0.0009765625, unit: s, decimals: 3, count: rest, if: "flags & 0x10"}
        summary:
          - "{heart_rate} bpm"
          - {text: Contact not detected, if: "flags & 0x06 == 0x04"}
          - {text: Contact detected, if: "flags & 0x06 == 0x06"}
          - "Energy: {energy} kJ"
          - "RR: {rr} s"
      location:
        name: Body Sensor Location
        fields:
          - name: location
            label: Body sensor location
            type: u8
            values: {0: Other, 1: Chest, 2: Wrist, 3: Finger, 4: Hand, 5: Ear Lobe, 6: Foot}
        summary: ["{location}"]
    """
}
