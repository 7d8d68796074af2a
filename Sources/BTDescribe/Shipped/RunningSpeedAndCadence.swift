extension ShippedProtocols {
    /// Running Speed and Cadence Service (GATT Specification Supplement: RSC Measurement).
    static let runningSpeedAndCadence = """
    btlog-protocol: 1
    name: Running Speed and Cadence
    key: rscs
    description: Running Speed and Cadence Service - RSC Measurement
    inline: true
    field-names: short
    gatt:
      - {characteristic: 2A53, message: measurement}
    messages:
      measurement:
        name: RSC Measurement
        fields:
          - name: flags
            type: u8
            bits:
              - {name: stride_present, label: Stride length present, bit: 0}
              - {name: distance_present, label: Total distance present, bit: 1}
              - {name: running, label: Walking or running, bit: 2, values: {0: walking, 1: running}}
          - {name: speed, label: Speed, type: u16, scale: 0.00390625, unit: m/s, decimals: 2}
          - {name: cadence, label: Cadence, type: u8, unit: steps/min}
          - {name: stride, label: Stride length, type: u16, scale: 0.01, unit: m, if: "flags & 0x01"}
          - {name: distance, label: Total distance, type: u32, scale: 0.1, unit: m, if: "flags & 0x02"}
        summary:
          - "{speed} m/s"
          - "{cadence} steps/min"
          - "Stride: {stride} m"
          - "Distance: {distance} m"
          - "{running}"
    """
}
