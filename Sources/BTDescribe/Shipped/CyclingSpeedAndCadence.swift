extension ShippedProtocols {
    /// Cycling Speed and Cadence Service (GATT Specification Supplement: CSC Measurement).
    static let cyclingSpeedAndCadence = """
    btlog-protocol: 1
    name: Cycling Speed and Cadence
    key: cscs
    description: Cycling Speed and Cadence Service - CSC Measurement
    inline: true
    field-names: short
    gatt:
      - {characteristic: 2A5B, message: measurement}
    messages:
      measurement:
        name: CSC Measurement
        fields:
          - name: flags
            type: u8
            bits:
              - {name: wheel_present, label: Wheel revolution data present, bit: 0}
              - {name: crank_present, label: Crank revolution data present, bit: 1}
          - if: "flags & 0x01"
            fields:
              - {name: wheel_revolutions, label: Cumulative wheel revolutions, type: u32}
              - {name: wheel_time, label: Last wheel event time, type: u16, scale: 0.0009765625, unit: s, decimals: 3}
          - if: "flags & 0x02"
            fields:
              - {name: crank_revolutions, label: Cumulative crank revolutions, type: u16}
              - {name: crank_time, label: Last crank event time, type: u16, scale: 0.0009765625, unit: s, decimals: 3}
        summary:
          - "Wheel: {wheel_revolutions} revolutions at {wheel_time} s"
          - "Crank: {crank_revolutions} revolutions at {crank_time} s"
    """
}
