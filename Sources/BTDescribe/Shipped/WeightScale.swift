extension ShippedProtocols {
    /// Weight Scale Service (GATT Specification Supplement: Weight Measurement). The weight's
    /// resolution depends on its unit: 0.005 kg, or 0.01 lb.
    static let weightScale = """
    btlog-protocol: 1
    name: Weight Scale
    key: wss
    description: Weight Scale Service - Weight Measurement
    inline: true
    field-names: short
    gatt:
      - {characteristic: 2A9D, message: measurement}
    messages:
      measurement:
        name: Weight Measurement
        fields:
          - name: flags
            type: u8
            bits:
              - {name: units, label: Measurement units, bit: 0, values: {0: kg, 1: lb}}
              - {name: time_present, label: Time stamp present, bit: 1}
              - {name: user_present, label: User ID present, bit: 2}
              - {name: bmi_present, label: BMI and height present, bit: 3}
          - {name: weight, label: Weight, type: u16, scale: 0.005, decimals: 3, if: "flags & 0x01 == 0"}
          - {name: weight, label: Weight, type: u16, scale: 0.01, decimals: 2, if: "flags & 0x01"}
          - {name: time, label: Time stamp, type: datetime, if: "flags & 0x02"}
          - {name: user, label: User ID, type: u8, if: "flags & 0x04"}
          - if: "flags & 0x08"
            fields:
              - {name: bmi, label: BMI, type: u16, scale: 0.1, decimals: 1}
              - {name: height, label: Height, type: u16, if: "flags & 0x01 == 0", scale: 0.001, decimals: 3}
              - {name: height, label: Height, type: u16, if: "flags & 0x01", scale: 0.1, decimals: 1}
        summary:
          - "{weight} {units}"
          - "BMI {bmi}"
          - "User {user}"
    """
}
