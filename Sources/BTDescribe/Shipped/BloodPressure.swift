extension ShippedProtocols {
    /// Blood Pressure Service (GATT Specification Supplement: Blood Pressure Measurement and
    /// Intermediate Cuff Pressure, one layout).
    static let bloodPressure = """
    btlog-protocol: 1
    name: Blood Pressure
    key: bps
    description: Blood Pressure Service - measurements and intermediate cuff pressure
    inline: true
    field-names: short
    gatt:
      - {characteristic: 2A35, message: measurement}
      - {characteristic: 2A36, message: measurement}
    messages:
      measurement:
        name: Blood Pressure Measurement
        fields:
          - name: flags
            type: u8
            bits:
              - {name: units, label: Pressure units, bit: 0, values: {0: mmHg, 1: kPa}}
              - {name: time_present, label: Time stamp present, bit: 1}
              - {name: pulse_present, label: Pulse rate present, bit: 2}
              - {name: user_present, label: User ID present, bit: 3}
              - {name: status_present, label: Measurement status present, bit: 4}
          - {name: systolic, label: Systolic, type: sfloat}
          - {name: diastolic, label: Diastolic, type: sfloat}
          - {name: mean_arterial, label: Mean arterial pressure, type: sfloat}
          - {name: time, label: Time stamp, type: datetime, if: "flags & 0x02"}
          - {name: pulse_rate, label: Pulse rate, type: sfloat, unit: bpm, if: "flags & 0x04"}
          - {name: user, label: User ID, type: u8, if: "flags & 0x08"}
          - name: status
            label: Measurement status
            type: u16
            format: hex
            if: "flags & 0x10"
            bits:
              - {name: body_movement, label: Body movement, bit: 0, values: {0: none, 1: during measurement}}
              - {name: cuff_fit, label: Cuff fit, bit: 1, values: {0: proper, 1: too loose}}
              - {name: irregular_pulse, label: Irregular pulse, bit: 2, values: {0: no, 1: detected}}
              - {name: pulse_range, label: Pulse rate range, mask: 0x18, values: {0: within range, 1: above upper limit, 2: below lower limit}}
              - {name: position, label: Measurement position, bit: 5, values: {0: proper, 1: improper}}
        summary:
          - "{systolic}/{diastolic} {units}"
          - "MAP: {mean_arterial} {units}"
          - "Pulse: {pulse_rate} bpm"
          - "User {user}"
    """
}
